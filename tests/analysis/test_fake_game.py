"""Issue 9 item 2: the shared analyses read the game facts, never a game's name. A new game —
the fake test engine (game "fake", with its facts) — goes through run, compare
and report with no change to shared code."""

import html
import json

import polars as pl
import pytest
from cardsim.sim.errors import CardsimError

import tests.fake_engine  # noqa: F401  (registers the game "fake")


@pytest.fixture
def fake_registry():
    """The fake game, registered the way any game is (``cardsim.sim.games.register_engine``, done by
    tests/fake_engine.py): shared analysis code knows it only through its facts."""
    from cardsim.sim.games import get_engine

    return get_engine("fake")


def test_fake_game_run_compare_and_report(tmp_path, fake_registry):
    from cardsim.analysis.report import write_report
    from cardsim.sim import runner
    from cardsim.sim.compare import DuplicateEngine, build_compare_config
    from cardsim.sim.game import RunConfig

    engine = fake_registry
    plain = tmp_path / "plain"
    cfg = RunConfig("fake", 4, ("greedy", "random", "greedy", "random"), {}, 5, 400)
    runner.run(cfg, plain, chunk_size=200, progress=False, threads=1, engine=engine)
    cmp = tmp_path / "cmp"
    ccfg = build_compare_config(engine, ["greedy", "random"], games=300, seed=5)
    runner.run(ccfg, cmp, chunk_size=150, progress=False, threads=1, engine=DuplicateEngine(engine))
    for run in (plain, cmp):
        res = write_report([run], tmp_path / f"{run.name}.html", json_out=tmp_path / "r.json")
        doc = json.loads(res.json_out.read_text())
        assert doc["game"] == "fake"
        page = html.unescape(res.out.read_text())
        assert "Fake team game" in page and "first leader's team" in page
        first = doc["sections"]["seats"]["tables"]["first_player"]["rows"][0]
        g = pl.read_parquet(run / "games" / "*.parquet")
        lead = (g["winner_team"] == g["first_leader"] % 2).sum()
        assert first["wins"] == lead and first["n"] == g.height
        assert first["fair_share"] == 0.5
    # the comparison run: the paired comparison of the two labels, greedy's bonus is found
    pw = doc["sections"]["duplicate"]["tables"]["pairwise"]["rows"][0]
    assert (pw["a"], pw["b"], pw["deals"]) == ("greedy", "random", 300)
    assert pw["verdict"] == "clear difference" and pw["diff"] > 0
    # the plain run: the strategy effect against the seat-adjusted expectation
    doc = json.loads((tmp_path / "r.json").read_text())
    res = write_report([plain], tmp_path / "p.json")
    doc = json.loads((tmp_path / "p.json").read_text())
    rates = doc["sections"]["strategy"]["tables"]["rates"]["rows"]
    assert {r["strategy"] for r in rates} == {"greedy + greedy", "random + random"}


def test_unknown_game_in_a_manifest_is_an_error(tmp_path, yz_run):
    import shutil

    from cardsim.analysis.report import write_report

    run = tmp_path / "run"
    shutil.copytree(yz_run, run)
    m = json.loads((run / "manifest.json").read_text())
    m["game"] = "chess"
    (run / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(CardsimError, match="chess"):
        write_report([run], tmp_path / "r.html")
