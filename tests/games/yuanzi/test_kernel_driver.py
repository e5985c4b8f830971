"""Kernel driver: the deal (YZ-05 … YZ-08), the match (YZ-25, YZ-26), tables, determinism,
trace mode and user strategies."""

import numba
import numpy as np
import polars as pl
import pytest
from cardsim.kernels.rng import bounded, new_stream, shuffle
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi.encoding import RANK_VALUE, canonical_deck, move_set_hash
from cardsim.kernels.yuanzi.strategies import LEVEL_BASE
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE
from cardsim.sim.games.yuanzi.reference import half as ref_half
from cardsim.sim.games.yuanzi.reference import rules as ref
from polars.testing import assert_frame_equal

from tests.schema_v1 import to_v1

SEATS = ("greedy", "random", "points", "planner")


def config(seats=SEATS, seed=11, **rules):
    return RunConfig("yuanzi", 4, tuple(seats), dict(rules), seed, 1000)


def python_deal(root, g, redraw=False):
    """Protocol §1 recomputed from cardsim.kernels.rng alone: [(deck, p)] for both halves."""
    state = new_stream(root, g, 0)
    out = []
    for _ in range(2):
        deck = canonical_deck()
        shuffle(state, deck, 162)
        p = bounded(state, 162)
        while redraw and deck[p] >= 52:
            p = bounded(state, 162)
        out.append((deck, p))
    return out


@pytest.fixture(scope="module")
def tables():
    return play(config(), 0, 400)


def play(cfg, first, count):
    """The engine's v2 tables in v1 form (tests.schema_v1): these tests check v1 codes."""
    games, seats = ENGINE.play_chunk(cfg, first, count)
    return to_v1("yuanzi", "games", games), to_v1("yuanzi", "seats", seats)


def test_yz05_yz07_yz08_first_half_deal(tables):
    games, seats = tables
    for row in games.head(60).iter_rows(named=True):
        (deck, p), _ = python_deal(11, row["game"])
        card = int(deck[p])
        assert row["indicator_0"] == card
        fr = 3 if card >= 52 else RANK_VALUE[card // 4] % 4  # YZ-07 (joker counts 3)
        assert row["first_receiver_0"] == fr
        assert row["first_leader_0"] == (fr + p) % 4  # YZ-08: the seat dealt the indicator
        dao = 3 if card >= 52 else RANK_VALUE[card // 4]
        assert row["dao_0"] == dao and row["dao_fallback_0"] == (1 if card >= 52 else 0)
    # YZ-07: the first receiver and the next seat hold 41 cards
    s = seats.join(games.select("game", "first_receiver_0"), on="game")
    big = s.filter(pl.col("cards_0") == 41)
    assert len(big) == 2 * len(games) and big["long_hand_0"].all()
    assert ((big["seat"] - big["first_receiver_0"]) % 4 <= 1).all()
    assert s.filter(pl.col("cards_0") == 40).height == 2 * len(games)


def test_yz06_second_half_fallbacks_and_yz07_yz08_upstream_deals_and_leads(tables):
    games, _ = tables
    second = games.filter(pl.col("second_half"))
    assert second.height > 50
    for row in second.iter_rows(named=True):
        _, (deck, p) = python_deal(11, row["game"])
        card = int(deck[p])
        assert row["indicator_1"] == card
        if card >= 52:
            assert (row["dao_1"], row["dao_fallback_1"]) == (3, 1)
        elif card // 4 in (2, 7, 10):  # 5, 10, K → 3 in the second half
            assert (row["dao_1"], row["dao_fallback_1"]) == (3, 2)
        else:
            assert (row["dao_1"], row["dao_fallback_1"]) == (RANK_VALUE[card // 4], 0)
        up = [s for s in range(4) if row[f"finish_0_s{s}"] == 1][0]
        assert row["first_receiver_1"] == up and row["first_leader_1"] == up
    first = games.filter(pl.col("dao_fallback_0") != 0)
    assert (first["dao_fallback_0"] == 1).all()  # no point-rank fallback in the first half


def test_yz06_redraw_never_uses_a_joker():
    games, _ = play(config(joker_indicator="redraw"), 0, 600)
    assert (games["indicator_0"] < 52).all() and (games["dao_fallback_0"] == 0).all()
    assert (games["dao_fallback_1"] != 1).all()
    for row in games.head(20).iter_rows(named=True):
        (deck, p), _ = python_deal(11, row["game"], redraw=True)
        assert row["indicator_0"] == deck[p]


def _check_match(games, rules):
    """The kernel's match results (YZ-25, YZ-26, YZ-D1 … YZ-D3) against the reference rules
    (``sim/games/yuanzi/reference``, the independent oracle) on each match's first-half and
    second-half outcome as the tables record them (issue 46: no copy of the rule here)."""
    resolved = ref.resolve_rules(rules)
    for row in games.iter_rows(named=True):
        finish = [row[f"finish_0_s{s}"] for s in range(4)]
        out = sorted((f, s) for s, f in enumerate(finish) if f < 4)
        team = [row["team_points_0_t0"], row["team_points_0_t1"]]
        half0 = ref_half.HalfResult(0, [s for _, s in out], len(out) == 2, finish, [], [], [], team)
        sj, win = ref.shuangjia(half0, resolved)
        assert row["shuangjia"] == sj and row["second_half"] == (not sj)
        if not sj:
            second = [row["team_points_1_t0"], row["team_points_1_t1"]]
            win = ref.match_winner(team, second, out[0][1])
        assert row["winner_team"] == win
        unit = resolved["match_points_shuangjia" if sj else "match_points_win"]
        assert [row[f"delta_{s}"] for s in range(4)] == [
            unit if s % 2 == win else -unit for s in range(4)
        ]


def test_yz25_yz26_shuangjia_both_out_team(tables):
    _check_match(tables[0], {})


def test_yz25_shuangjia_upstream_team():
    games, _ = play(config(shuangjia="upstream_team"), 0, 400)
    _check_match(games, {"shuangjia": "upstream_team"})


def test_seats_table_matches_games_table(tables):
    games, seats = tables
    assert seats.height == 4 * games.height
    for s in range(4):
        one = seats.filter(pl.col("seat") == s).join(games, on="game")
        for h in (0, 1):
            assert (one[f"points_{h}"] == one[f"points_{h}_s{s}"]).all()
            assert (one[f"finish_{h}"] == one[f"finish_{h}_s{s}"]).all()
        assert (one["delta"] == one[f"delta_{s}"]).all()
    assert (seats["won"] == (seats["delta"] > 0)).all()
    assert (seats["team"] == seats["seat"] % 2).all()
    assert seats["strategy"].to_list()[:4] == list(SEATS)
    per_game = seats.group_by("game").agg(pl.col("jokers_0").sum(), pl.col("dao_cards_0").sum())
    assert (per_game["jokers_0"] == 6).all() and (per_game["dao_cards_0"] == 12).all()
    unplayed = seats.join(games.filter(~pl.col("second_half")), on="game")
    assert (unplayed["cards_1"] == -1).all() and (~unplayed["long_hand_1"]).all()


def test_determinism_across_chunkings_and_threads():
    cfg = config(seats=("random", "greedy", "bomber", "points"), seed=123)
    whole = ENGINE.play_chunk(cfg, 5, 150)
    parts = [ENGINE.play_chunk(cfg, a, b) for a, b in ((5, 17), (22, 100), (122, 33))]
    for i in range(2):
        assert_frame_equal(whole[i], pl.concat([p[i] for p in parts]))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = ENGINE.play_chunk(cfg, 5, 150)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = ENGINE.play_chunk(cfg, 5, 150)
    finally:
        numba.set_num_threads(before)
    for i in range(2):
        assert_frame_equal(one[i], whole[i])
        assert_frame_equal(two[i], whole[i])


def test_trace_mode_records_every_decision_and_matches_simulate():
    cfg = config(seats=("random", "greedy", "bomber", "planner"))
    g, s = drv.run_games(
        cfg.seed, 40, 30, ENGINE.strategy_ids(cfg.seats)[0], ENGINE.rules_array({})
    )
    tg, ts, tr, th, leg = ENGINE.trace(cfg, 40, 30, keep_legal=True)
    assert np.array_equal(g, tg) and np.array_equal(s, ts)
    dec = g[:, drv.H_DECISIONS] + np.maximum(g[:, drv.G_HALF + drv.H_DECISIONS], 0)
    assert len(tr) == dec.sum()
    assert np.array_equal(np.bincount(tr[:, drv.T_GAME] - 40, minlength=30), dec)
    for k in range(0, len(tr), 7):
        at, n = tr[k, drv.T_LEGAL_AT], tr[k, drv.T_NLEGAL]
        codes = leg[at : at + n]
        assert move_set_hash(codes, n) == th[k]
        assert tr[k, drv.T_CHOSEN] in codes
    plays = (tr[:, drv.T_CHOSEN] != 0).sum()
    assert plays == g[:, drv.H_PLAYS].sum() + np.maximum(g[:, drv.G_HALF + drv.H_PLAYS], 0).sum()


def test_strategy_names_are_checked():
    with pytest.raises(CardsimError, match="allowed: random, greedy, points, bomber, planner"):
        ENGINE.play_chunk(config(seats=("greedy", "smart", "greedy", "greedy")), 0, 2)
    with pytest.raises(CardsimError, match="not found"):
        ENGINE.play_chunk(config(seats=("nope.py:f", "greedy", "greedy", "greedy")), 0, 2)
    with pytest.raises(CardsimError, match="no function"):
        ENGINE.play_chunk(
            config(seats=("examples/yuanzi_strategy.py:nothing", "greedy", "greedy", "greedy")),
            0,
            2,
        )
    with pytest.raises(CardsimError, match="dao_bomb"):
        ENGINE.play_chunk(config(dao_bomb="sometimes"), 0, 2)


def test_user_strategy_example_runs_in_the_user_driver():
    user = "examples/yuanzi_strategy.py:choose"
    cfg = config(seats=(user, "greedy", user, "greedy"))
    games, seats = ENGINE.play_chunk(cfg, 0, 200)
    assert games.height == 200 and games["strategy_s0"][0] == "yuanzi_strategy:choose"
    again = ENGINE.play_chunk(cfg, 100, 100)
    assert_frame_equal(games.slice(100), again[0])
    # greedy beats the example's "lead the biggest, follow with the smallest" most of the time
    assert (games["winner_team"].cast(pl.String) == "东西").mean() > 0.6  # team 1: greedy's


def test_strategies_have_kernel_ids_and_descriptions():
    assert [s.name for s in ENGINE.strategies] == [
        "random",
        "greedy",
        "points",
        "bomber",
        "planner",
        "greedy:eps",
        "soft",
        "learned",
        "pimc",
        "ismcts",
    ]
    assert [s.id for s in ENGINE.strategies[:5]] == list(range(5))
    assert ENGINE.strategies[5].id >= LEVEL_BASE  # the levels (kernels/levels.py), then pimc
    assert ENGINE.strategies[7].id == -1  # learned: its id is its weights' row, given on use
    assert ENGINE.strategies[8].id >= pimc.PIMC_BASE  # parameters in its id
    assert all(len(s.description) > 20 for s in ENGINE.strategies)
    names = {o.name for o in ENGINE.rule_options}
    assert names == {
        "joker_indicator",
        "dao_bomb_beats_dao_basic",
        "dao_bomb",
        "pass_only_if_unable",
        "pass_is_final",
        "lead_after_out",
        "one_two_settlement",
        "shuangjia",
        "shuangjia_threshold",  # design parameters YZ-D1 … YZ-D3
        "match_points_win",
        "match_points_shuangjia",
    }


def test_replay_feeds_the_kernel_choices_to_the_reference():
    cfg = config(seats=("greedy", "bomber", "points", "random"), pass_is_final=True)
    log = ENGINE.replay(cfg, 12)
    games, _ = play(cfg, 12, 1)
    assert isinstance(log, str) and log.startswith("half 0:")
    deltas = [games[f"delta_{s}"][0] for s in range(4)]
    assert log.rstrip().splitlines()[-1] == f"delta per seat {deltas}"


def test_issue46_match_results_follow_the_reference_with_the_design_options():
    """Issue 46 item 1: the engine's 双夹 threshold (YZ-D1) and match scores (YZ-D2, YZ-D3) as
    the reference rules settle them."""
    opts = {"shuangjia_threshold": 100, "match_points_win": 3, "match_points_shuangjia": 5}
    games, _ = play(config(**opts), 0, 200)
    _check_match(games, opts)
