"""The skill ladder (``cardsim ladder``, cardsim/workflows/ladder.py, analysis/ladder.py): the verdict logic
calibrated on synthetic levels, the report section on both games, resume, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.analysis.ladder import WORDS, judge_trends, weighted_trend
from polars.testing import assert_frame_equal

from cardsim.cli import main

STABLE, TREND, UNSURE = "stable across levels", "skill-dependent", "not enough games"


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def synthetic(rng, ratings, truth, se, n=10_000, key="m", kind="rate"):
    """One measure at each level: the true value plus normal noise of its standard error."""
    est = np.asarray(truth, dtype=float) + rng.normal(0.0, se, len(ratings))
    return pl.DataFrame(
        {
            "group": [""] * len(ratings),
            "key": [key] * len(ratings),
            "label": [key] * len(ratings),
            "kind": [kind] * len(ratings),
            "unit": ["match"] * len(ratings),
            "level": [f"L{i}" for i in range(len(ratings))],
            "x": np.asarray(ratings, dtype=float),
            "estimate": est,
            "se": [se] * len(ratings),
            "n": [n] * len(ratings),
        }
    )


RATINGS = [-3.0, 0.0, 0.8, 1.5]


def test_a_real_trend_is_skill_dependent_and_a_flat_measure_stable_or_not_enough():
    rng = np.random.default_rng(1)
    trend = synthetic(rng, RATINGS, [0.02 + 0.02 * r for r in RATINGS], 0.004, key="trend")
    flat = synthetic(rng, RATINGS, [0.03] * 4, 0.002, key="flat")
    noisy = synthetic(rng, RATINGS, [0.03] * 4, 0.05, n=100, key="noisy")
    table, found = judge_trends(pl.concat([trend, flat, noisy]))
    verdict = dict(zip(table["key"], table["verdict"], strict=True))
    assert verdict == {"trend": TREND, "flat": STABLE, "noisy": UNSURE}
    # the table and the findings agree, word for word
    for r, f in zip(table.iter_rows(named=True), found, strict=True):
        assert WORDS[f.verdict] == r["verdict"]
        if r["verdict"] != UNSURE:
            assert r["verdict"] in f.text
    t = table.row(0, named=True)  # 0.02 per rating unit over a span of 4.5
    assert t["slope_lo"] < 0.02 < t["slope_hi"] and t["change_lo"] < 0.09 < t["change_hi"]
    assert "Not enough games to tell: about" in found[2].text  # with the games needed


def test_null_ladders_that_really_vary_are_rarely_called_skill_dependent():
    """500 flat ladders with noise: 'skill-dependent' about 5 % of the time (the test's level),
    never far above; and a scatter beyond the stated errors widens the interval (dispersion)."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(500):
        d = synthetic(rng, RATINGS, [0.05] * 4, 0.01)
        tr = weighted_trend(d["x"], d["estimate"], d["se"], d["n"])
        hits += tr.p < 0.05
    assert hits / 500 < 0.09
    # values that scatter 5x more than their stated errors: the dispersion scale is about 25
    wide = synthetic(rng, [0, 1, 2, 3, 4, 5], [0.05] * 6, 0.05)
    tr = weighted_trend(wide["x"], wide["estimate"], [0.01] * 6, wide["n"])
    assert tr.dispersion > 4


def test_a_u_shape_is_not_stable():
    """No linear trend but large differences between levels: Cochran's Q calls it
    skill-dependent, and the dispersion keeps its change from looking stable."""
    rng = np.random.default_rng(3)
    d = synthetic(rng, [-2, -1, 0, 1, 2], [0.10, 0.0, -0.05, 0.0, 0.10], 0.002, key="u")
    table, found = judge_trends(d)
    r = table.row(0, named=True)
    assert r["verdict"] == TREND and r["p_q"] < 1e-6 and r["p_slope"] > 0.05
    assert r["dispersion"] > 10 and r["change_lo"] < -0.01 < 0.01 < r["change_hi"]
    # the sentence does not let the fitted change's interval (covering 0) read as a trend
    assert "skill-dependent (the levels differ, not along a line)" in found[0].text
    from cardsim.analysis.ladder import answer_line

    line = answer_line("", table, found, [f"L{i}" for i in range(5)]).text
    assert "the levels differ, not along a line" in line


# --- the command on both games (tiny runs; pimc with 2 samples, few games) --------------------


def _report(out: Path) -> dict:
    return json.loads((out / "ladder.json").read_text())


def _section_tables(doc: dict) -> dict[str, pl.DataFrame]:
    tables = doc["sections"]["ladder"]["tables"]
    return {k: pl.DataFrame(t["rows"], infer_schema_length=None) for k, t in tables.items()}


@pytest.mark.parametrize(
    "game, args",
    [
        ("yuanzi", ["--levels", "random,greedy,pimc:samples=2,cap=2", "--games", 60]),
        ("atlas", ["--levels", "random,greedy,pimc:samples=2,cap=2", "--games", 40]),
    ],
)
def test_ladder_writes_the_section_for_both_games(capsys, tmp_path, game, args):
    out = tmp_path / game
    code, stdout, err = cardsim(
        capsys, "ladder", game, *args, "--deals", 20, "--out", out, "--quiet"
    )
    assert code == 0, err
    assert "report:" in stdout
    html = (out / "ladder.html").read_text()
    assert "Does it hold under stronger play?" in html
    doc = _report(out)
    t = _section_tables(doc)
    assert set(t) == {"ratings", "levels", "trends"}
    assert t["ratings"]["level"].to_list() == ["random", "greedy", "pimc:samples=2,cap=2"]
    trends = t["trends"]
    assert set(trends["verdict"]) <= {STABLE, TREND, UNSURE}
    measures = set(trends["measure"])
    if game == "yuanzi":
        assert {"match ends in 双夹", "tricks per match", "bombs in the first half"} <= measures
        assert any("刀 cards" in m for m in measures) and any("jokers" in m for m in measures)
    else:
        assert {"round ends without a winner", "turns per round"} <= measures
    assert any("excess over the fair share" in m for m in measures)
    # every level plays every measure; n counts the independent units of each level's run
    levels = t["levels"]
    assert levels.height == 3 * trends.height
    ladder_findings = [f for f in doc["findings"] if f["section"] == "ladder"]
    answer = [f for f in ladder_findings if "Does it hold under stronger play" in f["text"]]
    assert len(answer) == 1
    # a finding never contradicts its table: each trends row's verdict word is its finding's
    per_measure = [f for f in ladder_findings if f["kind"] == "question"]
    for row, f in zip(trends.iter_rows(named=True), per_measure, strict=True):
        assert row["measure"] in f["text"]
        if row["verdict"] == TREND:
            assert f["verdict"] == "clear difference" and TREND in f["text"]
        elif row["verdict"] == STABLE:
            assert f["verdict"] == "equivalent" and STABLE in f["text"]
        else:
            assert f["verdict"] == "not enough games"


@pytest.mark.heavy
def test_ladder_resumes_to_identical_tables_and_reuses_finished_runs(capsys, tmp_path):
    out = tmp_path / "lad"
    args = ["ladder", "yuanzi", "--levels", "random,greedy", "--games", 300, "--deals", 40]
    args += ["--chunk-size", 100, "--out", out, "--quiet"]
    assert cardsim(capsys, *args)[0] == 0
    before = _section_tables(_report(out))
    parts = {p: p.read_bytes() for p in sorted(out.glob("*/*/part-*.parquet"))}
    # a lost chunk of one level's self-play (as after a kill): the rerun redoes that chunk only
    lost = out / "L1-greedy" / "games" / "part-00001.parquet"
    lost.unlink()
    shutil.rmtree(out / "rating")  # and a whole sub-run gone
    assert cardsim(capsys, *args)[0] == 0
    after = _section_tables(_report(out))
    # the parts are byte-identical (below) and the report's sums run in a fixed order (groups
    # sorted before any float sum), so the tables are equal to the last bit
    for key in before:
        assert_frame_equal(before[key], after[key], check_exact=True)
    assert {p: p.read_bytes() for p in sorted(out.glob("*/*/part-*.parquet"))} == parts
    # a different ladder in the same directory is refused (nothing replaced) unless --force
    other = [a if a != 300 else 301 for a in args]
    code, _, err = cardsim(capsys, *other)
    assert code == 2 and "different run" in err and "--force" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["yuanzi", "--levels", "random,nope"], "unknown yuanzi strategy 'nope'"),
        (["yuanzi", "--levels", "random,pimc:samples=0"], "samples=0 is outside"),
        (["yuanzi", "--levels", "random,pimc:depth=3"], "depth"),
        (["yuanzi", "--levels", "greedy,greedy"], "listed twice"),
        (["yuanzi", "--levels", "greedy"], "at least two"),
        (["atlas", "--players", "11"], "not 11"),
        (["atlas", "--players", "4,4"], "listed twice"),
        (["yuanzi", "--games", 0], "--games must be a positive integer"),
        (["yuanzi", "--rule", "nope=1"], "unknown yuanzi rule option"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, args, message):
    out = tmp_path / "bad"
    full = ["ladder", *args]
    if "--games" not in args:
        full += ["--games", 10]
    code, _, err = cardsim(capsys, *full, "--out", out)
    assert code == 2
    assert err.startswith("cardsim: error:") and err.count("\n") == 1 and message in err, err
    assert not out.exists()


@pytest.mark.heavy
def test_a_study_ladder_section_runs_its_sub_runs_and_writes_its_report(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(
        '[[scenario]]\nname = "plain"\ngame = "atlas"\nplayers = 3\ngames = 100\n'
        '[[ladder]]\nname = "lad"\ngame = "atlas"\nlevels = ["random", "greedy"]\n'
        "games = 200\ndeals = 30\nplayers = [3]\n",
        encoding="utf-8",
    )
    code, out, err = cardsim(capsys, "study", study, "--out", tmp_path / "st", "--quiet")
    assert code == 0, err
    assert "ladder report of lad:" in out
    assert {p.name for p in (tmp_path / "st").iterdir() if p.is_dir()} == {
        "plain", "lad-p3-rating", "lad-p3-L0-random", "lad-p3-L1-greedy",
    }  # fmt: skip
    page = json.loads((tmp_path / "st" / "report.json").read_text())  # the study's own page
    kinds = [p["kind"] for p in page["parts"]]
    assert kinds == ["scenario", "skill ladder"]
    assert "Does it hold under stronger play?" in (tmp_path / "st" / "report.html").read_text()
    doc = json.loads((tmp_path / "st" / "lad-ladder.json").read_text())
    trends = _section_tables(doc)["trends"]
    assert set(trends["group"]) == {"3 players"}
    # a misspelt key is one line naming the ladder and the allowed keys
    study.write_text('[[ladder]]\nname = "lad"\ngame = "atlas"\ngames = 5\nlevel = "x"\n')
    code, _, err = cardsim(capsys, "study", study, "--out", tmp_path / "st2")
    assert code == 2 and "unknown ladder key 'level'" in err and "allowed:" in err


def test_the_python_api_runs_a_ladder(tmp_path):
    import cardsim

    r = cardsim.ladder("atlas", tmp_path / "api", games=60, deals=10, levels=["random", "greedy"],
                       players=[3], seed=2)  # fmt: skip
    assert r.report.is_file() and r.numbers.is_file()
    with pytest.raises(cardsim.CardsimError, match="listed twice"):
        cardsim.ladder("atlas", tmp_path / "x", games=5, levels=["greedy", "greedy"])


def test_a_foreign_ladder_html_is_never_replaced(capsys, tmp_path):
    out = tmp_path / "lad"
    out.mkdir()
    (out / "ladder.html").write_text("my notes")
    code, _, err = cardsim(capsys, "ladder", "atlas", "--levels", "random,greedy", "--games", 5,
                           "--out", out)  # fmt: skip
    assert code == 2 and "not a ladder report" in err
    assert (out / "ladder.html").read_text() == "my notes" and sorted(out.iterdir()) == [
        out / "ladder.html"
    ]


def test_unequal_games_per_level_are_named_in_the_table_and_the_answers():
    """--scripted-games: the levels' unit counts differ; the trends table gives the fewest and
    the most, and the 'would settle' estimate says it counts the least-played levels."""
    from cardsim.analysis.ladder import answer_line

    rng = np.random.default_rng(1)
    noisy = synthetic(rng, RATINGS, [0.03] * 4, 0.05, n=100, key="noisy")
    noisy = noisy.with_columns(pl.Series("n", [4000, 4000, 4000, 100]))
    table, found = judge_trends(noisy)
    row = table.row(0, named=True)
    assert (row["n_per_level"], row["n_per_level_max"], row["verdict"]) == (100, 4000, UNSURE)
    assert "100–4,000 matches per level" in found[0].text
    text = answer_line("", table, found, [f"L{i}" for i in range(4)]).text
    assert "matches at the levels with the fewest (the others in proportion) would settle" in text
    even, found = judge_trends(synthetic(rng, RATINGS, [0.03] * 4, 0.05, n=100, key="noisy"))
    assert "matches per level would settle" in answer_line("", even, found, ["a"] * 4).text
