"""Every registered game goes through every command (issue 20 item 3), in the style of pgx's
api_test.py: the built-in games and the tests' fake game (tests/fake_engine.py), at tiny sizes,
through run, compare, report, strategy check, warm-up, tune, ladder and a factorial study —
with no change to shared code for the fake game. Then one headline measure added to the fake
game as one declaration appears in the report, the ladder and the factorial study.
"""

from __future__ import annotations

import dataclasses
import html
import json

import polars as pl
import pytest
from cardsim.sim import games as registry
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure
from cardsim.sim.games import get_engine, register_engine

import tests.fake_engine  # noqa: F401  (registers the game "fake")
from tests.fake_engine import FACTS, FakeEngine


def conformance_games() -> list[str]:
    """Every game of the registry (``GAMES``) and the tests' fake game."""
    return [*registry.GAMES, FakeEngine.name]


GAMES = conformance_games()


def test_the_games_come_from_the_registry(monkeypatch):
    """A game added to the registry goes through every command below with no edit here."""
    monkeypatch.setattr(registry, "GAMES", (*registry.GAMES, "newgame"))
    assert conformance_games() == [*registry.GAMES, "fake"]
    assert {"yuanzi", "atlas", "fake"} <= set(GAMES)


def _option(engine) -> tuple[str, list[str]]:
    """A rule option of the game with two values to vary (a choice or a yes/no option)."""
    for o in engine.rule_options:
        if o.choices:
            return o.name, [str(c) for c in o.choices[:2]]
        if isinstance(o.default, bool):
            return o.name, ["false", "true"]
    raise AssertionError(f"{engine.name}: no choice or yes/no option to vary")


@pytest.mark.parametrize("game", GAMES)
def test_run_compare_report(game, tmp_path):
    import cardsim

    engine = get_engine(game)
    plain = tmp_path / "run"
    cardsim.run(game, plain, games=12, seed=3, threads=1, chunk_size=6)
    games = pl.read_parquet(plain / "games" / "*.parquet")
    assert games["game"].n_unique() == 12
    table = cardsim.compare(game, ["greedy", "random"], tmp_path / "cmp", games=10, seed=3,
                            threads=1)  # fmt: skip
    assert table.height == 1 and table["deals"][0] == 10
    res = cardsim.report([plain], tmp_path / "r.html", json_out=tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["game"] == game and res.out.is_file()
    rows = doc["sections"]["measures"]["tables"]["table"]["rows"]
    assert [r["measure"] for r in rows] == [m.name for m in engine.facts.headline if m.value]
    # the Scores unit speaks of seat points only where the game declares them (issue 20: the
    # 原子 wording was printed in every game's report)
    from cardsim.analysis.games import analysis_of

    note = analysis_of(game).score_unit_note
    page = html.unescape(res.out.read_text())
    assert (f"({note})" in page) if note else ("seat points" not in page)
    cardsim.report([tmp_path / "cmp"], tmp_path / "c.md")


@pytest.mark.parametrize("game", GAMES)
def test_strategy_check(game, tmp_path, capsys):
    """A game with strategy-check hooks checks a ``py:`` strategy; one without says so in one
    line (never runs as another game)."""
    from cardsim.workflows.strategy_check import check

    engine = get_engine(game)
    hooks = getattr(engine, "strategy_check", None)
    if hooks is None:
        with pytest.raises(CardsimError, match=f"game '{game}' has no strategy check"):
            check(game, f"py:{tmp_path / 'x.py'}:choose", games=2)
        return
    args = ", ".join(hooks.python_args)
    last = hooks.python_args[-1]
    (tmp_path / "first.py").write_text(f"def choose({args}):\n    return {last}[0]\n")
    lines = []
    code = check(game, f"py:{tmp_path / 'first.py'}:choose", games=4, threads=1,
                 echo=lines.append)  # fmt: skip
    assert code == 0, lines
    assert "illegal answers: none" in lines


@pytest.mark.parametrize("game", GAMES)
def test_warmup(game):
    """Warm-up knows a game only through its engine's declaration: after a run its kernels
    are cached (nothing to announce); a game without one has nothing to compile."""
    from cardsim.sim import warmup
    from cardsim.sim.config import build_config

    engine = get_engine(game)
    config = build_config(engine, games=1, seed=0)
    warmup.compile_here(game)
    assert warmup.is_cached(game) and warmup.notice_for(config) is None
    with warmup.start([config]) as compiling:
        compiling.wait(game)
    assert not compiling.failed
    if getattr(engine, "warmup", None) is None:
        assert warmup.estimate_seconds([(game, "run")]) == 0.0
    else:
        assert warmup.estimate_seconds([(game, "run")]) > 0
        assert warmup.display_name(game) in warmup.notice([(game, "run")])


@pytest.mark.parametrize("game", GAMES)
def test_tune(game, tmp_path):
    from cardsim.workflows.tune import tune

    engine = get_engine(game)
    name, _values = _option(engine)
    result = tune(game, "first_excess", out=tmp_path / "t", options=name,
                  budget=80, min_games=20, seed=1, progress=False, run_verify=False)  # fmt: skip
    assert result.configurations >= 2 and result.best is not None


@pytest.mark.parametrize("game", GAMES)
def test_ladder(game, tmp_path):
    import cardsim

    r = cardsim.ladder(game, tmp_path / "lad", games=12, deals=6, levels=["random", "greedy"],
                       seed=2)  # fmt: skip
    assert r.report.is_file()
    doc = json.loads(r.numbers.read_text())
    assert doc["sections"]["ladder"]["tables"]["trends"]["rows"]


def _factorial(game: str, tmp_path, games: int = 40):
    from cardsim.workflows.study import parse_study, run_study

    name, values = _option(get_engine(game))
    text = (
        f'[[design]]\nname = "f"\ngame = "{game}"\ngames = {games}\nseed = 4\n'
        f'strategy = "greedy"\noptions = {{ {name} = [{", ".join(repr(v) for v in values)}] }}\n'
    )
    text = text.replace("'", '"').replace('"false"', "false").replace('"true"', "true")
    result = run_study(parse_study(text, "f.toml"), tmp_path / "st", progress=False)
    return json.loads(result.designs["f"].with_suffix(".json").read_text())


def _fitted(doc: dict) -> set[str]:
    """The measures a factorial study fitted, or found constant over every cell."""
    constant = {c["name"] if isinstance(c, dict) else c[0] for c in doc.get("constant", [])}
    return {m["name"] for m in doc["measures"]} | constant


@pytest.mark.parametrize("game", GAMES)
def test_factorial(game, tmp_path):
    doc = _factorial(game, tmp_path)
    assert "first_side_wins" in _fitted(doc)


# --- one new headline measure, one declaration ------------------------------------------------

LONG = Measure("long_match", "match lasts over 50 moves", "match", "binary",
               lambda f: pl.col("length") > 50, "long matches")  # fmt: skip


class MeasuredEngine(FakeEngine):
    name = "fake_measured"
    facts = dataclasses.replace(FACTS, headline=(*FACTS.headline, LONG))  # the one declaration


try:
    get_engine("fake_measured")
except CardsimError:
    register_engine(MeasuredEngine())


def test_a_new_measure_appears_in_report_ladder_and_factorial(tmp_path):
    import cardsim

    cardsim.run("fake_measured", tmp_path / "run", games=200, seed=1, threads=1)
    games = pl.read_parquet(tmp_path / "run" / "games" / "*.parquet")
    cardsim.report([tmp_path / "run"], tmp_path / "r.md", json_out=tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    rows = {r["measure"]: r for r in doc["sections"]["measures"]["tables"]["table"]["rows"]}
    assert rows["long_match"]["estimate"] == pytest.approx((games["length"] > 50).mean())
    assert rows["long_match"]["label"] == LONG.label
    lad = cardsim.ladder("fake_measured", tmp_path / "lad", games=60, deals=10,
                         levels=["random", "greedy"], seed=2)  # fmt: skip
    trends = json.loads(lad.numbers.read_text())["sections"]["ladder"]["tables"]["trends"]["rows"]
    assert LONG.label in {r["measure"] for r in trends}
    fac = _factorial("fake_measured", tmp_path, games=200)
    assert "long_match" in _fitted(fac)
