"""One report for a whole study: a tiny study of both games (a rule comparison, strategy
comparisons, a lone scenario) run with ``run_study``; the page in Chromium; the JSON numbers
against direct Polars. Set CARDSIM_STUDY_SCREENSHOT=path.png to keep a screenshot."""

import json
import os
import shutil

import polars as pl
import pytest

from tests.analysis.test_browser import CHROMIUM, probe, screenshot

STUDY = """
[study]
name = "tiny study"

[[scenario]]
name = "yz-default"
game = "yuanzi"
games = 240

[[scenario]]
name = "yz-redraw"
game = "yuanzi"
games = 240
seed = 2
rules = { joker_indicator = "redraw" }

[[scenario]]
name = "yz-greedy-vs-random"
game = "yuanzi"
compare = ["greedy", "random"]
games = 120

[[scenario]]
name = "at-4p"
game = "atlas"
players = 4
games = 300

[[scenario]]
name = "at-careful-vs-greedy"
game = "atlas"
players = 4
compare = ["careful", "greedy"]
games = 400
chunk_size = 100
until_ci = 0.1

[[comparison]]
name = "原子: joker indicator three vs redraw"
scenarios = ["yz-default", "yz-redraw"]
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    pytest.importorskip("cardsim.sim.games")
    from cardsim.workflows.study import parse_study, run_study

    s = parse_study(STUDY, "tiny.toml")
    out = tmp_path_factory.mktemp("study")
    res = run_study(s, out, threads=1, progress=False)
    return s, res


def _doc(res):
    return json.loads(res.report.with_suffix(".json").read_text())


def _part(doc, kind, scenario):
    return next(p for p in doc["parts"] if p["kind"] == kind and scenario in p["scenarios"])


def _rows(report, section, table):
    return pl.DataFrame(report["sections"][section]["tables"][table]["rows"])


def test_parts_in_study_order(study):
    _, res = study
    doc = _doc(res)
    assert doc["format"] == "cardsim-study" and doc["study"] == "tiny study"
    assert [(p["kind"], p["scenarios"]) for p in doc["parts"]] == [
        ("comparison of runs", ["yz-default", "yz-redraw"]),
        ("strategy comparison", ["yz-greedy-vs-random"]),
        ("strategy comparison", ["at-careful-vs-greedy"]),
        ("scenario", ["at-4p"]),
    ]
    rule = _part(doc, "comparison of runs", "yz-default")["report"]
    assert list(rule["sections"])[:2] == ["config", "comparison"]
    cmp_at = _part(doc, "strategy comparison", "at-careful-vs-greedy")["report"]
    assert set(cmp_at["sections"]) == {"config", "duplicate", "strategy"}
    # one multiple-testing family per part: Holm over its questions; checks stand apart
    tested = [f for f in doc["findings"] if f["p"] is not None and f["kind"] == "question"]
    assert all(f["p_holm"] >= f["p"] - 1e-12 for f in tested)
    assert max(f["p_holm"] for f in tested) <= 1.0
    checks = [f for f in doc["findings"] if f["kind"] == "check"]
    assert checks and all(f["p_holm"] is None and f["verdict"] in ("pass", "fail") for f in checks)
    for part in {f["part_key"] for f in tested}:
        qs = [f for f in tested if f["part_key"] == part]
        assert min(f["p_holm"] for f in qs) == pytest.approx(
            min(1.0, len(qs) * min(f["p"] for f in qs))
        )
    # the rule option that differs is highlighted
    rules = _rows(rule, "config", "rules")
    flagged = rules.filter(pl.col("non_default"))["option"].to_list()
    assert flagged == ["joker_indicator"]


def test_json_numbers_equal_direct_polars(study):
    _, res = study
    doc = _doc(res)
    rule = _part(doc, "comparison of runs", "yz-default")["report"]
    diffs = _rows(rule, "comparison", "diffs").filter(pl.col("measure").str.starts_with("双夹"))
    g0 = pl.read_parquet(res.runs["yz-default"] / "games" / "*.parquet")
    g1 = pl.read_parquet(res.runs["yz-redraw"] / "games" / "*.parquet")
    r = diffs.row(0, named=True)
    assert r["run"] == "yz-redraw" and r["n"] == g1.height == 240
    assert r["value"] == pytest.approx(g1["shuangjia"].mean())
    assert r["baseline"] == pytest.approx(g0["shuangjia"].mean())
    assert r["diff"] == pytest.approx(r["value"] - r["baseline"])
    first = _rows(rule, "comparison", "diffs").filter(pl.col("measure").str.contains("excess"))
    lead = (g1["winner_team"].to_physical() == g1["h1_first_leader"] % 2).mean()
    assert first["value"].item() == pytest.approx(lead - 0.5)  # excess over the fair share
    # the strategy comparison: paired difference per deal
    cmp = _part(doc, "strategy comparison", "yz-greedy-vs-random")["report"]
    pw = _rows(cmp, "duplicate", "pairwise").row(0, named=True)
    s = pl.read_parquet(res.runs["yz-greedy-vs-random"] / "seats" / "*.parquet")
    per_deal = (
        s.group_by("game", "strategy")
        .agg(pl.col("won").mean())
        .pivot(on="strategy", index="game", values="won")
        .select(d=pl.col("greedy") - pl.col("random"))["d"]
    )
    assert pw["deals"] == 120 and pw["games"] == 240
    assert pw["diff"] == pytest.approx(per_deal.mean())
    assert pw["win_a"] == pytest.approx(s.filter(pl.col("strategy") == "greedy")["won"].mean())


def test_early_stop_is_stated(study):
    _, res = study
    m = json.loads((res.runs["at-careful-vs-greedy"] / "manifest.json").read_text())
    doc = _doc(res)
    if m["stopped_by"] in (None, "games"):
        pytest.fail("the ±0.1 target should stop the 400-deal comparison after its first chunk")
    facts = [
        f["text"] for f in doc["findings"] if f["section"] == "config" and f["headline"] is True
    ]
    assert any("stopped early: by --until-ci ±0.1" in t for t in facts)
    assert "stopped early" in res.report.read_text()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_study_page_in_chromium(study, tmp_path):
    s, res = study
    html = res.report.read_text()
    assert "http://" not in html and "https://" not in html
    images, decoded, tables, rows, dom = probe(html, tmp_path)
    assert images == html.count("<img ") >= 20 and decoded == images
    assert tables >= 30 and rows >= 150
    assert dom.index("Answers") < dom.index("Contents")
    for title in (
        "tiny study",
        "原子: joker indicator three vs redraw",
        "yz-greedy-vs-random: greedy vs random — 原子 (yuanzi)",
        "at-careful-vs-greedy: careful vs greedy — ATLAS",
        "at-4p — ATLAS",
    ):
        assert title in dom, title
    doc = _doc(res)
    for f in doc["findings"]:
        if f["headline"]:
            assert f["text"].replace("&", "&amp;").replace("<", "&lt;") in dom
    assert any(" beats " in f["text"] or " vs " in f["text"] for f in doc["findings"])
    png = screenshot(res.report, tmp_path / "study.png", tmp_path, height=4000)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("CARDSIM_STUDY_SCREENSHOT")
    if keep:
        shutil.copy(png, keep)


def test_a_strategy_comparison_part_builds_only_its_sections_with_the_same_content(study):
    """The part of a ``compare`` scenario builds only the sections it shows (``build_report``'s
    ``only``: the other sections' figures are never drawn), and they are the ones the full
    report has: tables, figures, findings and verdicts equal."""
    from dataclasses import replace

    from cardsim.analysis import verdicts
    from cardsim.analysis.report import build_report, judge
    from cardsim.analysis.study_report import COMPARE_SECTIONS

    _, res = study
    run = res.runs["yz-greedy-vs-random"]

    def part(report):  # what _compare_parts does with the report it builds
        keep = [s for s in report.sections if s.key in COMPARE_SECTIONS]
        kept = [(k, f) for k, f in report.findings if k in ("config", *COMPARE_SECTIONS)]
        judge(kept)
        verdicts.fill_tables(keep)
        return replace(report, sections=keep, findings=kept)

    full = build_report([run])
    lean, whole = part(build_report([run], only=COMPARE_SECTIONS)), part(full)
    assert len(full.sections) > len(lean.sections) == 2
    assert [s.key for s in lean.sections] == [s.key for s in whole.sections]
    for a, b in zip(lean.sections, whole.sections, strict=True):
        assert (a.title, a.intro, a.notes) == (b.title, b.intro, b.notes)
        assert [(f.key, f.title, f.png) for f in a.figures] == [
            (f.key, f.title, f.png) for f in b.figures
        ]
        assert len(a.tables) == len(b.tables)
        for s, t in zip(a.tables, b.tables, strict=True):
            assert s.key == t.key and s.df.equals(t.df)
    assert repr(lean.findings) == repr(whole.findings)
