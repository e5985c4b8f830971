"""原子 weak levels ``greedy:eps=E`` and ``soft:temp=T`` (kernels/levels.py,
docs/strategies.md "Levels"): names, legality, reproducibility, strength order."""

import numpy as np
import polars as pl
import pytest
from cardsim.kernels import levels
from cardsim.kernels.yuanzi.strategies import GREEDY, LEVEL_BASE
from cardsim.sim.compare import DuplicateEngine, build_compare_config
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE, LEVELS
from cardsim.sim.strategy_params import EPS_DEFAULT, TEMP_DEFAULT, split_strategies

from cardsim.cli import main
from tests.games.yuanzi.test_agreement import agree

EPS1, SOFT = "greedy:eps=1", "soft:temp=0.5"


def test_level_names_defaults_and_ids():
    assert LEVELS.id("greedy:eps") == levels.encode(LEVEL_BASE, levels.KIND_EPS, 20)
    assert LEVELS.id("greedy:eps") == LEVELS.id(f"greedy:eps={EPS_DEFAULT}")
    assert LEVELS.id("soft") == LEVELS.id(f"soft:temp={TEMP_DEFAULT}")
    assert levels.decode(LEVEL_BASE, LEVELS.id("soft:temp=100")) == (levels.KIND_SOFT, 10000)
    ids, users = ENGINE.strategy_ids(("greedy:eps=0.5", "greedy", "soft", "random"))
    assert ids[1] == GREEDY and min(ids[0], ids[2]) >= LEVEL_BASE and users == ()
    assert split_strategies("greedy:eps=0.2,soft:temp=2,random") == [
        "greedy:eps=0.2",
        "soft:temp=2",
        "random",
    ]
    assert build_config(ENGINE, games=4, seed=1, strategy="soft").seats == ("soft",) * 4


@pytest.mark.parametrize(
    "bad, why",
    [
        ("greedy:eps=0", "outside 0.01..1"),  # eps=0 is refused: it would be greedy itself
        ("greedy:eps=2", "outside 0.01..1"),
        ("soft:temp=0", "outside 0.01..100"),
        ("soft:eps=0.1", "unknown parameter 'eps'"),
        ("greedy:", "no parameters"),
    ],
)
def test_bad_level_parameters_are_one_line_errors(capsys, tmp_path, bad, why):
    with pytest.raises(CardsimError, match=why):
        build_config(ENGINE, games=10, seed=1, strategy=bad)
    with pytest.raises(SystemExit) as e:
        main(
            [
                "compare",
                "yuanzi",
                "--strategies",
                f"greedy,{bad}",
                "--games",
                "5",
                "--out",
                str(tmp_path / "r"),
            ]
        )
    err = capsys.readouterr().err.strip()
    assert not (tmp_path / "r").exists()  # nothing written
    assert e.value.code != 0 and why.split("'")[0] in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_strategies_command_lists_the_levels(capsys):
    with pytest.raises(SystemExit) as e:
        main(["strategies", "yuanzi"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "greedy:eps" in out and "soft" in out and "casual" in out


@pytest.mark.parametrize(
    "seats, rules",
    [
        ((EPS1, "greedy", "greedy:eps", "soft"), {}),
        ((SOFT, "soft:temp=4", "greedy", "greedy:eps=0.5"), {"pass_is_final": True}),
    ],
)
def test_level_moves_replay_legally_through_the_reference(seats, rules):
    """Every traced move of both levels is in the reference's legal set (protocol §8)."""
    cfg = RunConfig("yuanzi", 4, seats, rules, 5, 3)
    assert agree(cfg, 0, 3) > 200


def test_eps1_differs_from_greedy():
    greedy = ENGINE.play_chunk(RunConfig("yuanzi", 4, ("greedy",) * 4, {}, 5, 30), 0, 30)[0]
    eps1 = ENGINE.play_chunk(RunConfig("yuanzi", 4, (EPS1,) * 4, {}, 5, 30), 0, 30)[0]
    assert not greedy.equals(eps1)


@pytest.mark.parametrize("seats", [(EPS1, "greedy") * 2, ("soft", "greedy:eps") * 2])
def test_levels_reproducible_and_chunk_independent(seats):
    cfg = RunConfig("yuanzi", 4, seats, {}, 9, 10)
    whole, wseats = ENGINE.play_chunk(cfg, 0, 10)
    parts = [ENGINE.play_chunk(cfg, a, 5) for a in (0, 5)]
    assert whole.equals(pl.concat([p[0] for p in parts]))
    assert wseats.equals(pl.concat([p[1] for p in parts]))
    assert whole.equals(ENGINE.play_chunk(cfg, 0, 10)[0])


@pytest.mark.parametrize(
    "strong, weak, deals", [("greedy", "greedy:eps", 100), ("greedy:eps", "random", 100)]
)
def test_strength_order_on_duplicate_deals(strong, weak, deals):
    """Paired duplicate comparison (cardsim.sim.compare): the stronger level's win-rate edge has a 95 %
    interval above 0."""
    from cardsim.analysis.compare import pairwise

    engine = DuplicateEngine(ENGINE)
    cfg = build_compare_config(ENGINE, [strong, weak], games=deals, seed=3)
    _games, seats = engine.play_chunk(cfg, 0, deals)
    row = pairwise(seats).table.row(0, named=True)
    assert {row["a"], row["b"]} == {strong, weak}
    edge_lo = row["lo"] if row["a"] == strong else -row["hi"]
    assert edge_lo > 0, row


def test_levels_play_beside_a_py_seat_as_in_the_kernel():
    """With a ``py:`` seat the match runs on the Python mirror (sim/games/yuanzi/adapter.py): the
    levels there are the kernel's (not pimc, whose id range theirs lies above) — the mirror's
    tables equal the kernel's for the same seats."""
    from cardsim.sim.games.yuanzi import adapter

    seats = ("greedy:eps=0.5", "soft", "greedy", "soft:temp=3")
    cfg = RunConfig("yuanzi", 4, seats, ENGINE.rule_options.resolve({}), 4, 6)
    kernel = ENGINE._run(cfg, 0, 6)
    mirror = adapter.play_yuanzi(cfg, 0, 6)
    for k, m in zip(kernel, mirror, strict=True):
        assert np.array_equal(k, m)


def test_soft_at_a_low_temperature_is_greedy():
    """soft's scores are greedy's: at temp 0.01, over first halves played by greedy, soft picks
    greedy's move or one that greedy rates as good (moved to the front of the legal list, greedy
    then picks it: ties apart, greedy takes the first cheapest move)."""
    from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi import pimc
    from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES
    from cardsim.kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck
    from cardsim.kernels.yuanzi.state import N_INFO, N_ST, ST_ACTOR, rules_array
    from cardsim.kernels.yuanzi.strategies import choose_greedy, choose_level

    rules = rules_array()
    sid = LEVELS.id("soft:temp=0.01")
    sids = np.full(4, GREEDY, np.int64)
    total = same = 0
    for g in range(4):
        deck = np.empty(N_CARDS, np.uint8)
        rng_deal, rng = np.empty(4, np.uint64), np.empty(4, np.uint64)
        seed_stream(rng_deal, 3, g, STREAM_DEAL)
        seed_stream(rng, 3, g, STREAM_STRATEGY)
        p = draw_half_deck(rng_deal, deck, rules[0])
        hands, played = np.zeros((4, N_TYPES), np.uint8), np.zeros((4, N_TYPES), np.uint8)
        st, info = np.zeros(N_ST, np.int64), np.zeros((4, N_INFO), np.int64)
        begin_half(0, deck, p, 0, hands, played, st, info)
        buf = np.zeros(pimc.BUF_SIZE, np.int32)
        while True:
            seat = st[ST_ACTOR]
            n, idx, _bad = drv.decide_turn(hands, played, st, rules, sids, buf, rng)
            if n > 1:
                s = choose_level(sid, hands[seat], played, st, buf, n, rng.copy())
                total += 1
                same += s == idx
                if s != idx:
                    front = buf[:n].copy()
                    front[0], front[s] = buf[s], buf[0]
                    got = choose_greedy(hands[seat], played, st, front, n, rng)
                    assert got == 0, (buf[:n], idx, s)
            if apply_move(int(buf[idx]), hands, played, st, rules) == 1:
                break
    assert total > 200 and same > 0.9 * total
