"""The untraced driver may take shortcuts (e.g. greedy's follow shortcut); its outcomes must
equal the traced driver's, whose every decision the agreement test checks against the
reference."""

import numpy as np
import pytest
from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, bounded, seed_stream
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi.encoding import MAX_MOVES, N_CARDS, N_TYPES, PASS
from cardsim.kernels.yuanzi.engine import CONTINUE
from cardsim.kernels.yuanzi.pimc import apply_call, greedy_call
from cardsim.kernels.yuanzi.rules import (
    begin_half,
    draw_half_deck,
    lead_code_row,
    lead_count_row,
    legal_call,
)
from cardsim.kernels.yuanzi.state import (
    N_INFO,
    N_RULES,
    N_ST,
    ST_ACTOR,
    ST_DAO,
    ST_RULES,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
)
from cardsim.kernels.yuanzi.strategies import (
    DANGER_CARDS,
    NO_SHORTCUT,
    greedy_fast_code,
    opponent_min_count,
)
from cardsim.sim.config import build_config
from cardsim.sim.games.yuanzi import ENGINE
from numba import njit


@pytest.mark.parametrize(
    "strategies, rules",
    [
        (("greedy",) * 4, []),
        (("greedy", "random", "greedy", "points"), [("pass_is_final", "true")]),
        (("greedy", "bomber", "greedy", "planner"), [("lead_after_out", "partner")]),
        (("greedy",) * 4, [("dao_bomb", "same_count_only"), ("joker_indicator", "redraw")]),
        (("random",) * 4, []),  # random's lead shortcut at every seat
        (("random", "greedy", "random", "planner"), [("joker_indicator", "redraw")]),
    ],
)
def test_untraced_outcomes_equal_traced_outcomes(strategies, rules):
    cfg = build_config(
        ENGINE, games=300, seed=31, rules=rules, seat_strategies=list(enumerate(strategies))
    )
    sids, _ = ENGINE.strategy_ids(cfg.seats)
    arr = ENGINE.rules_array(cfg.rules)
    fast_games, fast_seats = drv.run_games(cfg.seed, 0, 300, sids, arr)[:2]
    traced_games, traced_seats = ENGINE.trace(cfg, 0, 300)[:2]
    assert np.array_equal(fast_games, traced_games)
    assert np.array_equal(fast_seats, traced_seats)


# legal moves, greedy and the engine's apply through pimc's called forms (compiled once, cached
# by the search warm-up): inlined here they made this test-local kernel a 30 s compile
@njit(cache=True)
def _shortcut_vs_greedy(root, matches, rules, random_seats):
    """Plays matches' first halves (greedy seats, and random at ``random_seats``) and asks, at
    every decision, both the shortcut and ``choose_greedy`` on the full legal set.
    Returns (disagreements, leads, leads taken, follows, follows taken, bombless passes: PASS
    taken where bombs were allowed, not to the partner, the hand holding no bomb-class code)."""
    deck = np.empty(N_CARDS, np.uint8)
    hands = np.empty((4, N_TYPES), np.uint8)
    played = np.empty((4, N_TYPES), np.uint8)
    st = np.empty(N_ST, np.int64)
    info = np.empty((4, N_INFO), np.int64)
    buf = np.empty(MAX_MOVES, np.int32)
    rd = np.empty(4, np.uint64)
    rs = np.empty(4, np.uint64)
    out = np.zeros(6, np.int64)
    for g in range(matches):
        seed_stream(rd, root, g, STREAM_DEAL)
        p = draw_half_deck(rd, deck, 0)
        seed_stream(rs, root, g, STREAM_STRATEGY)
        begin_half(0, deck, p, 0, hands, played, st, info)
        for i in range(N_RULES):
            st[ST_RULES + i] = rules[i]
        while True:
            q = st[ST_ACTOR]
            n = legal_call(hands, st, rules, buf)
            want = buf[greedy_call(hands[q], played, st, buf, n, rs)]
            fast = greedy_fast_code(hands, st, rules)
            lead = st[ST_TOP] == 0
            out[1 if lead else 3] += 1
            if fast != NO_SHORTCUT:
                out[2 if lead else 4] += 1
                rich = st[ST_TRICK_PTS] >= 20 or opponent_min_count(st, q) <= DANGER_CARDS
                if fast == PASS and not lead and rich and st[ST_TOP_SEAT] != (q + 2) % 4:
                    out[5] += 1
                if fast != want:
                    out[0] += 1
            code = buf[bounded(rs, n)] if random_seats[q] else want
            if apply_call(code, hands, played, st, rules) != CONTINUE:  # the half is over
                break
    return out


@pytest.mark.parametrize(
    "rules",
    [
        [],
        [("pass_is_final", "true")],
        [("pass_only_if_unable", "true")],
        [("dao_bomb", "same_count_only"), ("dao_bomb_beats_dao_basic", "false")],
        [("lead_after_out", "partner")],
    ],
)
def test_the_greedy_shortcut_picks_what_greedy_picks(rules):
    cfg = build_config(ENGINE, games=1, seed=5, rules=rules)
    arr = ENGINE.rules_array(cfg.rules)
    for random_seats in ([0, 0, 0, 0], [0, 1, 0, 1], [1, 0, 0, 0]):
        out = _shortcut_vs_greedy(np.uint64(17), 150, arr, np.array(random_seats, np.int64))
        bad, leads, leads_taken, follows, follows_taken, bombless = (int(x) for x in out)
        assert bad == 0
        assert leads > 500 and follows > 5_000  # the positions are there
        if ("pass_only_if_unable", "true") not in rules:  # there it declines every follow
            assert follows_taken > follows // 3, (follows_taken, follows)
            assert bombless > 50, bombless  # the bombless pass is taken, and checked
        assert leads_taken > leads // 2, (leads_taken, leads)


@njit(cache=True)
def _lead_count_and_pick_vs_legal_moves(seed, hands_n, rules):
    """Random hands (rich in jokers, atoms and hydrogen bombs) leading, each rank as 刀: the
    disagreements of ``lead_count_row`` / ``lead_code_row`` with ``legal_moves``, and the
    longest list seen."""
    rng = np.empty(4, np.uint64)
    seed_stream(rng, seed, 0, STREAM_DEAL)
    hands = np.zeros((1, N_TYPES), np.uint8)
    st = np.zeros(N_ST, np.int64)
    buf = np.empty(MAX_MOVES, np.int32)
    scratch = np.empty(MAX_MOVES, np.int32)
    bad = 0
    longest = 0
    for _ in range(hands_n):
        for t in range(N_TYPES):
            hands[0, t] = 0
        for _ in range(bounded(rng, 40)):
            hands[0, bounded(rng, N_TYPES)] += 1
        for t in range(52):
            if bounded(rng, 6) == 0:
                hands[0, t] = 3  # atoms (YZ-16) need three of one suit and rank
            hands[0, t] = min(hands[0, t], 3)  # three decks: at most 3 of a card
        hands[0, 52] = min(hands[0, 52], 3)
        hands[0, 53] = min(hands[0, 53], 3)
        for dao in range(13):
            st[ST_DAO] = dao
            n = legal_call(hands, st, rules, buf)  # called: inlined it is a long compile
            longest = max(longest, n)
            if lead_count_row(hands, 0, dao) != n:  # an empty hand too: 0
                bad += 1
            for i in range(n):
                if lead_code_row(hands, 0, dao, i, scratch) != buf[i]:
                    bad += 1
    return bad, longest


def test_the_lead_count_and_pick_equal_the_legal_set():
    """random's lead shortcut (``strategies.random_fast_code``) counts the leader's legal set
    (YZ-18: any combination; YZ-11: no joker with 刀 cards; YZ-16 atoms, YZ-17 hydrogen bombs)
    and builds only the rank of its pick: count and code at every index equal ``legal_moves``."""
    rules = ENGINE.rules_array(build_config(ENGINE, games=1, seed=0).rules)
    bad, longest = _lead_count_and_pick_vs_legal_moves(np.uint64(3), 2_000, rules)
    assert bad == 0
    assert longest > 150  # long lists (many jokers) are among them
