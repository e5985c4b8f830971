"""ATLAS weak levels ``greedy:eps=E`` and ``soft:temp=T`` (kernels/levels.py,
docs/strategies.md "Levels"): names, legality, reproducibility, strength order."""

import numpy as np
import polars as pl
import pytest
from cardsim.kernels import levels
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas.encoding import PAIR, TARGET
from cardsim.kernels.atlas.state import P_SIZES, S_LEN
from cardsim.kernels.atlas.strategies import (
    DT_CLAIM,
    DT_SELF,
    DT_TARGET,
    GREEDY,
    LEVEL_BASE,
    choose_in_state,
    choose_level,
)
from cardsim.kernels.rng import seed_stream
from cardsim.sim.compare import DuplicateEngine, build_compare_config
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.atlas import ENGINE, LEVELS, rules_array
from cardsim.sim.strategy_params import EPS_DEFAULT, TEMP_DEFAULT

from cardsim.cli import main
from tests.games.atlas import test_agreement as ta

EPS1, SOFT = "greedy:eps=1", "soft:temp=0.5"


def test_level_names_defaults_and_ids():
    assert LEVELS.id("greedy:eps") == levels.encode(LEVEL_BASE, levels.KIND_EPS, 20)
    assert LEVELS.id("greedy:eps") == LEVELS.id(f"greedy:eps={EPS_DEFAULT}")
    assert LEVELS.id("soft") == LEVELS.id(f"soft:temp={TEMP_DEFAULT}")
    assert levels.decode(LEVEL_BASE, LEVELS.id("soft:temp=2.25")) == (levels.KIND_SOFT, 225)
    assert levels.decode(LEVEL_BASE, LEVELS.id("greedy:eps=0.29")) == (levels.KIND_EPS, 29)
    cfg = RunConfig("atlas", 3, ("greedy:eps=0.5", "greedy", "soft"), {}, 1, 5)
    ids, _mod = ENGINE.seat_ids(cfg)
    assert ids[1] == GREEDY and min(ids[0], ids[2]) >= LEVEL_BASE
    names = [s.name for s in ENGINE.strategies]
    assert "greedy:eps" in names and "soft" in names
    assert build_config(ENGINE, games=4, seed=1, strategy="greedy:eps=0.3").seats[0] == (
        "greedy:eps=0.3"
    )


@pytest.mark.parametrize(
    "bad, why",
    [
        ("greedy:eps=0", "outside 0.01..1"),  # eps=0 is refused: it would be greedy itself
        ("greedy:eps=2", "outside 0.01..1"),
        ("greedy:eps=0.123", "decimal"),
        ("soft:temp=0", "outside 0.01..100"),
        ("soft:temp=-1", "outside"),
        ("soft:depth=3", "unknown parameter 'depth'"),
        ("greedy:temp=1", "unknown parameter 'temp'"),
        ("greedy:eps=x", "not a number"),
    ],
)
def test_bad_level_parameters_are_one_line_errors(capsys, tmp_path, bad, why):
    with pytest.raises(CardsimError, match=why):
        build_config(ENGINE, games=10, seed=1, strategy=bad)
    with pytest.raises(SystemExit) as e:
        main(["run", "atlas", "--games", "5", "--strategy", bad, "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert not (tmp_path / "r").exists()  # nothing written
    assert e.value.code != 0 and why.split("'")[0] in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_strategies_command_lists_the_levels(capsys):
    with pytest.raises(SystemExit) as e:
        main(["strategies", "atlas"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "greedy:eps" in out and "soft" in out and "beginner" in out


@pytest.mark.parametrize(
    "n, seats, rules",
    [
        (4, (EPS1, "greedy", "greedy:eps", "greedy"), {}),
        (3, (SOFT, "careful", "soft:temp=3"), {"claim_turn": "jump"}),
        (2, ("greedy:eps=0.5", SOFT), {"trade_pick": "seen", "last_discard_wins": True}),
    ],
)
def test_level_moves_replay_legally_through_the_reference(monkeypatch, n, seats, rules):
    """Every traced decision of both levels is an option of the reference (protocol §7)."""
    for s in seats:
        if LEVELS.handles(s):
            monkeypatch.setitem(ta.IDS, s, LEVELS.id(s))
    for g in range(4):
        assert ta.disagreement(8, g, n, seats, rules) is None


def test_eps1_plays_at_random_and_differs_from_greedy():
    """eps=1: every decision a uniform legal move (the reference accepts them, above); its
    choices differ from greedy's on the same deals and match random's frequency of ATLAS kept."""
    greedy = ENGINE.play_chunk(RunConfig("atlas", 4, ("greedy",) * 4, {}, 5, 40), 0, 40)[0]
    eps1 = ENGINE.play_chunk(RunConfig("atlas", 4, (EPS1,) * 4, {}, 5, 40), 0, 40)[0]
    assert not greedy.equals(eps1)
    assert eps1["turns"].mean() > greedy["turns"].mean()  # random play takes longer


def test_soft_at_a_low_temperature_is_greedy():
    """soft's scores are greedy's: at temp 0.01 its pick is greedy's pick or one that greedy
    rates as good (a TRADE target: one with as few cards; a meld: one as large) (moved to the front of the options, greedy then picks it: ties apart, greedy
    takes the first best option)."""
    sids = np.full(4, GREEDY, np.int64)
    sid = LEVELS.id("soft:temp=0.01")
    rng = np.empty(4, np.uint64)
    same = total = 0
    for seed in (6, 7):
        tr = D.run_trace(seed, 0, 4, sids, rules_array({}), snap_at=-2)
        for k, row in enumerate(tr.snapshot):
            S, p = row[:S_LEN].copy(), int(row[S_LEN])
            dt, n = int(row[S_LEN + 1]), int(row[S_LEN + 2])
            if n < 2:
                continue
            opts = np.zeros(D.SEARCH_BUF_SIZE, np.int32)
            opts[:n] = row[S_LEN + 4 : S_LEN + 4 + n]
            seed_stream(rng, seed, k, 2)
            g = choose_in_state(S, p, GREEDY, dt, opts, n, rng)
            s = choose_level(S, p, sid, dt, opts, n, rng)
            total += 1
            if s == g:
                same += 1
                continue
            if dt == DT_TARGET:  # the seat-order tie-break is 1/64 of a step: same hand size
                size = [S[P_SIZES + opts[i] - TARGET] for i in (g, s)]
                assert size[0] == size[1], (opts[:n], g, s)
                continue
            if dt in (DT_CLAIM, DT_SELF):  # ATLAS cards used: 1/100 of a step: same meld size
                kind = [(c == 0, c == PAIR, c & 3) for c in (opts[g], opts[s])]
                assert kind[0] == kind[1], (opts[:n], g, s)
                continue
            front = opts.copy()
            front[0], front[s] = opts[s], opts[0]
            assert choose_in_state(S, p, GREEDY, dt, front, n, rng) == 0, (dt, opts[:n], g, s)
    assert total > 60 and same > 0.7 * total


@pytest.mark.parametrize("seats", [(EPS1, "greedy") * 2, ("soft", "greedy:eps") * 2])
def test_levels_reproducible_and_chunk_independent(seats):
    cfg = RunConfig("atlas", 4, seats, {}, 9, 12)
    whole, wseats = ENGINE.play_chunk(cfg, 0, 12)
    parts = [ENGINE.play_chunk(cfg, a, 6) for a in (0, 6)]
    assert whole.equals(pl.concat([p[0] for p in parts]))
    assert wseats.equals(pl.concat([p[1] for p in parts]))
    assert whole.equals(ENGINE.play_chunk(cfg, 0, 12)[0])


def _edge(a: str, b: str, deals: int, seed: int = 3) -> dict:
    from cardsim.analysis.compare import pairwise

    engine = DuplicateEngine(ENGINE)
    cfg = build_compare_config(ENGINE, [a, b], games=deals, seed=seed)
    _games, seats = engine.play_chunk(cfg, 0, deals)
    row = pairwise(seats).table.row(0, named=True)
    assert {row["a"], row["b"]} == {a, b}
    if row["a"] == a:
        return row
    return {**row, "diff": -row["diff"], "lo": -row["hi"], "hi": -row["lo"]}


@pytest.mark.parametrize(
    "strong, weak, deals",
    [("greedy", "greedy:eps", 300), ("greedy:eps", "random", 100)],
)
def test_strength_order_on_duplicate_deals(strong, weak, deals):
    """Paired duplicate comparison (4 players, every rotation): the stronger level's win-rate
    edge has a 95 % interval above 0."""
    row = _edge(strong, weak, deals)
    assert row["lo"] > 0, row
