"""Invariant harness on random playouts of the 原子 kernel, stepped from Python.

Each step uses the kernel's own functions (deal, decide, apply_move), so every state in between
can be checked: cards conserved, legal sets inside the mover's hand, the half ending exactly when
YZ-20 says, 300 points per half (YZ-24), zero-sum match scores, 41-card hands (YZ-07); and that no
built-in strategy's choice depends on the other seats' hidden cards (YZ-28).
"""

import numpy as np
import pytest
from cardsim.kernels.rng import new_stream
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import engine
from cardsim.kernels.yuanzi import rules as R
from cardsim.kernels.yuanzi.encoding import MAX_MOVES, PASS
from cardsim.kernels.yuanzi.state import (
    N_INFO,
    N_ST,
    ST_ACTOR,
    ST_COUNT,
    ST_FIRST_RECV,
    ST_OUT,
    ST_POINTS,
    ST_TEAM_PTS,
    ST_TOP,
    rules_array,
)
from cardsim.kernels.yuanzi.strategies import N_BUILTIN
from cardsim.sim.games.yuanzi import ENGINE

from tests.schema_v1 import to_v1

VARIANTS = [
    {},
    {"joker_indicator": "redraw", "pass_only_if_unable": True},
    {"pass_is_final": True, "lead_after_out": "partner"},
    {"dao_bomb": "same_count_only", "dao_bomb_beats_dao_basic": False},
    {"one_two_settlement": "hand_only", "shuangjia": "upstream_team"},
]


def half_over_by_rule(counts):
    """YZ-20 from the card counts alone."""
    out = [s for s in range(4) if counts[s] == 0]
    return len(out) >= 3 or (len(out) == 2 and out[0] % 2 == out[1] % 2)


def check_state(hands, played, st):
    # YZ-01: every one of the 162 cards is in a hand or played, 3 copies of each type
    assert (hands.astype(int).sum(0) + played.astype(int).sum(0) == 3).all()
    assert [int(hands[s].sum()) for s in range(4)] == list(st[ST_COUNT : ST_COUNT + 4])


def playout(root, g, sids, rules, on_decision=None):
    """One match stepped from Python; returns (per-half (st, hands) at the end, delta)."""
    rng_deal = new_stream(root, g, 0)
    decks = [np.empty(162, np.uint8), np.empty(162, np.uint8)]
    ps = [R.draw_half_deck(rng_deal, decks[h], rules[0]) for h in (0, 1)]
    rng = new_stream(root, g, 2)
    hands = np.zeros((4, 54), np.uint8)
    played = np.zeros((4, 54), np.uint8)
    st = np.zeros(N_ST, np.int64)
    info = np.zeros((4, N_INFO), np.int64)
    buf = np.zeros(MAX_MOVES, np.int32)
    halves = []
    up0 = 0
    for h in (0, 1):
        R.begin_half(h, decks[h], ps[h], up0, hands, played, st, info)
        fr = st[ST_FIRST_RECV]
        assert [int(hands[(fr + i) % 4].sum()) for i in range(4)] == [41, 41, 40, 40]  # YZ-07
        while True:
            check_state(hands, played, st)
            assert not half_over_by_rule(st[ST_COUNT : ST_COUNT + 4])
            if on_decision is not None:
                on_decision(hands, played, st, rules, sids, rng)
            n, idx, bad = drv.decide_turn(hands, played, st, rules, sids, buf, rng)
            assert n >= 1 and bad == 0 and 0 <= idx < n
            seat = st[ST_ACTOR]
            assert hands[seat].sum() > 0
            codes = buf[:n].copy()
            if st[ST_TOP] == 0:
                assert PASS not in codes  # YZ-18
            for c in codes:  # every legal move can be paid from the mover's hand
                if c != PASS:
                    scratch = hands[seat].astype(np.int64).copy()
                    h8 = hands[seat].copy()
                    R.remove_cards(h8, np.zeros(54, np.uint8), c)
                    assert (scratch - h8.astype(np.int64) >= 0).all()
                    assert scratch.sum() - h8.astype(np.int64).sum() == (c >> 7) & 31
            done = R.apply_move(codes[idx], hands, played, st, rules)
            check_state(hands, played, st)
            if done:
                break
        # the half ends exactly when YZ-20 says
        assert half_over_by_rule(st[ST_COUNT : ST_COUNT + 4])
        assert st[ST_POINTS : ST_POINTS + 4].sum() == 300  # YZ-24
        assert st[ST_TEAM_PTS] + st[ST_TEAM_PTS + 1] == 300
        halves.append((st.copy(), hands.copy()))
        up0 = st[ST_OUT]
        sj, _winner = engine.first_half_judgement(halves[0][0], rules)  # YZ-25
        if h == 0 and sj:
            break
    return halves


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_invariants_random_playouts(variant):
    rules = rules_array(VARIANTS[variant])
    games = 0
    for g in range(8):
        sids = np.array([(g + s + variant) % N_BUILTIN for s in range(4)], np.int64)
        halves = playout(1000 + variant, g, sids, rules)
        games += 1
        # the Python-stepped match equals the compiled driver's row
        mat, _ = drv.run_games(1000 + variant, g, 1, sids, rules)
        for h, (st, _hands) in enumerate(halves):
            b = drv.G_HALF * h
            assert list(mat[0, b + drv.H_POINTS : b + drv.H_POINTS + 4]) == list(
                st[ST_POINTS : ST_POINTS + 4]
            )
        assert (len(halves) == 2) == bool(mat[0, drv.G_SECOND])
    assert games == 8


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_table_invariants_many_matches(variant):
    seats = ("random", "greedy", "points", "bomber") if variant % 2 else ("planner",) * 4
    from cardsim.sim.game import RunConfig

    cfg = RunConfig("yuanzi", 4, seats, VARIANTS[variant], 77 + variant, 3000)
    games, tab = ENGINE.play_chunk(cfg, 0, 3000)
    games, tab = to_v1("yuanzi", "games", games), to_v1("yuanzi", "seats", tab)  # v1 codes
    for h in (0, 1):
        played = games.filter(games["second_half"]) if h else games
        pts = sum(played[f"points_{h}_s{s}"] for s in range(4))
        assert (pts == 300).all()
        assert ((played[f"team_points_{h}_t0"] + played[f"team_points_{h}_t1"]) == 300).all()
        fin = np.stack([played[f"finish_{h}_s{s}"].to_numpy() for s in range(4)], 1)
        assert (
            (np.sort(fin, 1) == [1, 2, 3, 4]).all(1) | (np.sort(fin, 1) == [1, 2, 4, 4]).all(1)
        ).all()
    deltas = sum(games[f"delta_{s}"] for s in range(4))
    assert (deltas == 0).all()  # the match is zero-sum
    assert (tab["cards_0"].is_in([40, 41])).all()
    assert games["shuangjia"].sum() > 0 and games["second_half"].sum() > 0


def test_yz28_strategies_never_see_hidden_cards():
    """Re-dealing the other three seats' cards (same counts, same public history) never changes
    a built-in strategy's choice."""
    rules = rules_array()
    shuffler = np.random.default_rng(3)
    checked = []

    def on_decision(hands, played, st, rules, sids, rng):
        seat = st[ST_ACTOR]
        buf = np.zeros(MAX_MOVES, np.int32)
        n, idx, _ = drv.decide_turn(hands, played, st, rules, sids, buf, rng.copy())
        code = buf[idx]
        others = [s for s in range(4) if s != seat]
        pool = np.repeat(np.arange(54), hands[others].astype(int).sum(0))
        for _ in range(3):
            alt = hands.copy()
            shuffler.shuffle(pool)
            at = 0
            for s in others:
                k = int(hands[s].sum())
                alt[s] = np.bincount(pool[at : at + k], minlength=54)
                at += k
            alt_buf = np.zeros(MAX_MOVES, np.int32)
            n2, idx2, _ = drv.decide_turn(alt, played, st.copy(), rules, sids, alt_buf, rng.copy())
            assert (n2, alt_buf[idx2]) == (n, code)
        checked.append(n)

    for g in range(3):
        for sid in range(N_BUILTIN):
            playout(5, g, np.array([sid] * 4, np.int64), rules, on_decision)
    assert sum(1 for n in checked if n > 1) > 500
