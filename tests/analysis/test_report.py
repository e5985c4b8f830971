"""write_report end to end: errors, half-finished runs, formats, and the numbers in the JSON
against a direct Polars computation on the run's tables."""

import json
import os

import polars as pl
import pytest
from cardsim.analysis.games.yuanzi import dao as yuanzi_dao
from cardsim.analysis.report import write_report
from cardsim.sim.errors import CardsimError

from tests.analysis.conftest import copy_run, interrupt


def _table(doc, section, table):
    return pl.DataFrame(doc["sections"][section]["tables"][table]["rows"])


# --- errors ------------------------------------------------------------------------------------


def test_missing_empty_and_foreign_directories(tmp_path):
    out = tmp_path / "r.html"
    with pytest.raises(CardsimError, match="no such directory"):
        write_report([tmp_path / "nope"], out)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CardsimError, match="empty"):
        write_report([tmp_path / "empty"], out)
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "data.csv").write_text("a,b\n")
    with pytest.raises(CardsimError, match="not a cardsim run directory"):
        write_report([tmp_path / "foreign"], out)
    (tmp_path / "badjson").mkdir()
    (tmp_path / "badjson" / "manifest.json").write_text("{not json")
    with pytest.raises(CardsimError, match="unreadable manifest"):
        write_report([tmp_path / "badjson"], out)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "manifest.json").write_text('{"name": "something else"}')
    with pytest.raises(CardsimError, match="not a cardsim manifest"):
        write_report([tmp_path / "other"], out)
    assert not out.exists()


def test_run_with_no_finished_chunk(tmp_path, yz_run):
    run = copy_run(yz_run, tmp_path / "run")
    interrupt(run, [0, 1, 2])
    with pytest.raises(CardsimError, match="no finished games"):
        write_report([run], tmp_path / "r.html")


def test_different_games_and_unwritable_out(tmp_path, yz_run, at_run):
    with pytest.raises(CardsimError, match="different games"):
        write_report([yz_run, at_run], tmp_path / "r.html")
    with pytest.raises(CardsimError, match="is a directory"):
        write_report([yz_run], tmp_path)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(CardsimError, match="cannot create its folder"):
        write_report([yz_run], blocker / "r.html")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):  # running as root: permissions do not bind
            pytest.skip("cannot make an unwritable directory as root")
        with pytest.raises(CardsimError, match="cannot write"):
            write_report([yz_run], ro / "r.html")
    finally:
        ro.chmod(0o700)


def test_cli_prints_one_line_not_a_traceback(tmp_path, capsys):
    from cardsim.cli import main

    with pytest.raises(SystemExit) as e:
        main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "no such directory" in err and "Traceback" not in err


# --- half-finished runs ------------------------------------------------------------------------


def test_half_finished_run_reports_the_games_it_has(tmp_path, yz_run):
    run = copy_run(yz_run, tmp_path / "run")
    interrupt(run, [2])
    res = write_report([run], tmp_path / "r.html", json_out=tmp_path / "r.json")
    assert any("half-finished" in w and "2,000 of 3,000" in w for w in res.warnings)
    page = (tmp_path / "r.html").read_text()
    assert 'class="warning"' in page and "half-finished" in page
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["runs"][0]["games_done"] == 2000 and doc["runs"][0]["complete"] is False
    team = _table(doc, "seats", "team")  # 原子: the sides are teams (game facts)
    assert team["n"].to_list() == [2000] * 2


# --- numbers = direct Polars -------------------------------------------------------------------


def test_a_json_report_draws_no_figure_and_an_html_one_draws_each_once(
    tmp_path, yz_run, monkeypatch
):
    """Figures are drawn when a writer reads them (``model.Figure``): a JSON report alone
    draws none; an HTML report draws each figure it shows once, with the JSON beside it."""
    from cardsim.analysis import plots

    drawn, real = [], plots._png
    monkeypatch.setattr(plots, "_png", lambda fig: drawn.append(1) or real(fig))
    write_report([yz_run], tmp_path / "r.json")
    assert drawn == [] and json.loads((tmp_path / "r.json").read_text())["sections"]
    write_report([yz_run], tmp_path / "r.html", json_out=tmp_path / "again.json")
    shown = (tmp_path / "r.html").read_text().count("data:image/png;base64,")
    assert len(drawn) == shown >= 5
    one, two = (json.loads((tmp_path / f).read_text()) for f in ("r.json", "again.json"))
    assert {**one, "generated": None} == {**two, "generated": None}


def test_yuanzi_numbers_equal_direct_polars(tmp_path, yz_run):
    doc = json.loads(write_report([yz_run], tmp_path / "r.json").out.read_text())
    games = pl.read_parquet(yz_run / "games" / "*.parquet")
    seats = pl.read_parquet(yz_run / "seats" / "*.parquet")
    # team win rates (the seats table agrees: partners share every result)
    want = seats.filter(pl.col("seat") < 2).group_by("team").agg(pl.col("won").sum())
    team = _table(doc, "seats", "team")
    assert team.sort("team")["wins"].to_list() == want.sort("team")["won"].to_list()
    assert team["n"].to_list() == [games.height] * 2
    assert team["wins"].to_list() == [
        int((games["winner_team"] == "南北").sum()),
        int((games["winner_team"] == "东西").sum()),
    ]
    # 刀 frequencies, first half, and the exact probabilities beside them
    d = _table(doc, "yuanzi_dao", "dao").filter(pl.col("half") == 1)
    counts = dict(games["h1_dao"].cast(pl.String).value_counts().iter_rows())
    for r in d.iter_rows(named=True):
        assert r["k"] == counts.get(yuanzi_dao.rank_name(r["dao"]), 0) and r["n"] == games.height
        assert r["expected"] == pytest.approx(float(yuanzi_dao.exact(0)["dao"][r["dao"]]))
    d2 = _table(doc, "yuanzi_dao", "dao").filter(pl.col("half") == 2)
    assert d2["n"].unique().item() == int(games["second_half"].sum())
    # 双夹 and length
    m = _table(doc, "yuanzi_finish", "match")
    assert m.filter(pl.col("outcome") == "双夹 (any team)")["k"].item() == games["shuangjia"].sum()
    s = _table(doc, "length", "summary").filter(pl.col("measure") == "tricks in half 1")
    assert s["mean"].item() == pytest.approx(games["h1_tricks"].mean())
    assert s["median"].item() == games["h1_tricks"].median()


def test_yuanzi_dao_frequencies_match_exact_probabilities(tmp_path, yz_run):
    doc = json.loads(write_report([yz_run], tmp_path / "r.json").out.read_text())
    gof = [f for f in doc["findings"] if f["section"] == "yuanzi_dao" and "刀 freq" in f["text"]]
    assert len(gof) == 2 and all(f["p"] > 0.001 for f in gof)


def test_atlas_numbers_equal_direct_polars(tmp_path, at_run):
    res = write_report([at_run], tmp_path / "r.md", fmt="md", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    games = pl.read_parquet(at_run / "games" / "*.parquet")
    ends = _table(doc, "atlas_end", "ends")
    counts = dict(games["end"].cast(pl.String).value_counts().iter_rows())
    for r in ends.iter_rows(named=True):
        assert r["k"] == counts.get(r["end"], 0) and r["n"] == games.height
    pos = _table(doc, "seats", "position").filter(pl.col("position") == 0).row(0, named=True)
    decided = games.filter(pl.col("winner").is_not_null())
    assert pos["n"] == decided.height
    assert pos["wins"] == (decided["winner"] == decided["first_player"]).sum()
    s = _table(doc, "length", "summary").filter(pl.col("measure") == "turns per round")
    assert s["mean"].item() == pytest.approx(games["turns"].mean())
    # Markdown: the file and its PNGs
    text = (tmp_path / "r.md").read_text()
    pngs = list((tmp_path / "r_files").glob("*.png"))
    assert "## Findings" in text and len(pngs) >= 5
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert all(f"r_files/{p.name}" in text for p in pngs)


def test_two_runs_are_compared_and_non_default_rules_marked(tmp_path, yz_run):
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    cfg = build_config(
        get_engine("yuanzi"), games=1000, seed=2, rules=[("joker_indicator", "redraw")]
    )
    other = tmp_path / "redraw"
    runner.run(cfg, other, chunk_size=1000, progress=False, threads=1)
    res = write_report([yz_run, other], tmp_path / "r.html", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    rules = _table(doc, "config", "rules")
    ji = rules.filter(pl.col("option") == "joker_indicator").row(0, named=True)
    assert ji["non_default"] is True and ji["redraw"] == "redraw"
    assert rules.filter(pl.col("option") != "joker_indicator")["non_default"].sum() == 0
    diffs = _table(doc, "comparison", "diffs")
    assert {"run", "diff", "diff_lo", "diff_hi", "p", "p_holm"} <= set(diffs.columns)
    # the redraw variant's exact 刀 probabilities: 1/13 per rank in the first half
    d = _table(doc, "yuanzi_dao", "dao").filter((pl.col("run") == "redraw") & (pl.col("half") == 1))
    assert d["expected"].to_list() == pytest.approx([1 / 13] * 13)
    assert 'class="nondefault"' in (tmp_path / "r.html").read_text()


def test_atlas_player_counts_side_by_side(tmp_path):
    """Two small ATLAS runs, 3 and 5 players: the player-count table and plot, per-run seats."""
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    dirs = []
    for k in (3, 5):
        cfg = build_config(get_engine("atlas"), games=400, seed=4, players=k)
        runner.run(cfg, tmp_path / f"p{k}", chunk_size=200, progress=False, threads=1)
        dirs.append(tmp_path / f"p{k}")
    res = write_report(dirs, tmp_path / "r.html", json_out=tmp_path / "r.json")
    doc = json.loads(res.json_out.read_text())
    players = _table(doc, "atlas_end", "players")
    assert players["run"].to_list() == ["p3", "p5"] and players["players"].to_list() == [3, 5]
    assert players["fair_share"].to_list() == pytest.approx([1 / 3, 1 / 5])
    for d, r in zip(dirs, players.iter_rows(named=True), strict=True):
        g = pl.read_parquet(d / "games" / "*.parquet")
        decided = g.filter(pl.col("winner").is_not_null())
        assert r["rounds"] == g.height and r["no_winner"] == g.height - decided.height
        assert r["first_wins"] == (decided["winner"] == decided["first_player"]).sum()
        assert r["first_share"] == pytest.approx(r["first_wins"] / decided.height)
        assert r["mean_turns"] == pytest.approx(g["turns"].mean())
    seat = _table(doc, "seats", "seat")
    assert seat.group_by("run").len().sort("run")["len"].to_list() == [3, 5]
    first = _table(doc, "seats", "first_player")
    assert first["fair_share"].to_list() == pytest.approx([1 / 3, 1 / 5])
    diffs = _table(doc, "comparison", "diffs")
    assert "first player wins (excess over the fair share)" in diffs["measure"].to_list()
    page = (tmp_path / "r.html").read_text()
    assert "Effect of the player count" in page and 'alt="player count"' in page
