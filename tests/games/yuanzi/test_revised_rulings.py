"""原子: YZ-28 as revised on 2026-12-01 (the first half's result and the rule options are known
in the second half) and the joker give-up rule of docs/yuanzi-protocol.md §2 (a move that uses
jokers as wild keeps a joker atom the hand could still play), reference and kernel alike."""

from pathlib import Path

import numpy as np
import pytest
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import rules as KR
from cardsim.kernels.yuanzi import state as KS
from cardsim.kernels.yuanzi.encoding import BIG_JOKER, N_TYPES, SMALL_JOKER
from cardsim.sim.games.yuanzi.reference import rules as ref
from cardsim.sim.games.yuanzi.reference.moves import ATOM, BOMB, PAIR, SINGLE, TRIPLE, cards_text

R3, RQ = 0, 9
ATOM_SJ = ref.pack(ATOM, 13, 3)
ATOM_BJ = ref.pack(ATOM, 14, 3)


# ---- the joker give-up rule (protocol §2) ----------------------------------------------------
def test_protocol_jokers_given_up_keep_the_small_joker_atom():
    # 北 holds SJ SJ SJ BJ and plays the bomb QH QH QS + one joker: with BJ it keeps 小王原子
    hand = "QH QH QS SJ SJ SJ BJ"
    bomb = ref.pack(BOMB, RQ, 4, 1)
    assert bomb in ref.legal_moves(hand, None, "2")
    assert cards_text(ref.cards_given_up(hand, bomb)) == "QH QH QS BJ"
    left = ref.parse_hand(hand)
    for c in ref.cards_given_up(hand, bomb):
        left[c] -= 1
    assert ref.hand_text(left) == "SJ SJ SJ" and ATOM_SJ in ref.legal_moves(left, None, "2")
    # kernel: the same cards leave the hand
    k = np.array(ref.parse_hand(hand), np.uint8)
    played = np.zeros(N_TYPES, np.uint8)
    KR.remove_cards(k, played, np.int32(bomb))
    assert list(k) == left and played[BIG_JOKER] == 1 and played[SMALL_JOKER] == 0


@pytest.mark.parametrize(
    "small,big,jokers,want",
    [
        (3, 1, 1, 0),  # keep 小王原子: give the BJ
        (3, 2, 2, 0),  # two wilds: both BJ
        (3, 1, 2, 2),  # one BJ only: the atom cannot be kept, small first (SJ SJ)
        (1, 3, 1, 1),  # keep 大王原子: the SJ goes (small first anyway)
        (2, 3, 1, 1),
        (0, 3, 1, 0),  # only big jokers
        (3, 3, 1, 1),  # one atom must break: small first (keeps 大王原子)
        (3, 3, 3, 3),  # three wilds: one atom kept, small first: the three SJ
        (2, 1, 2, 2),  # no atom possible before: small first, as before
        (2, 2, 3, 2),
    ],
)
def test_protocol_wild_joker_choice_reference_and_kernel(small, big, jokers, want):
    assert ref.wild_small_jokers(small, big, jokers) == want
    assert KR.wild_small_jokers(small, big, jokers) == want


@pytest.mark.parametrize(
    "hand,code,given",
    [
        ("7S SJ SJ SJ BJ", ref.pack(PAIR, 4, 2, 1), "7S BJ"),
        ("7S SJ SJ SJ BJ BJ", ref.pack(TRIPLE, 4, 3, 2), "7S BJ BJ"),
        ("7S SJ BJ BJ BJ", ref.pack(PAIR, 4, 2, 1), "7S SJ"),
        ("SJ SJ SJ BJ", ref.pack(SINGLE, R3, 1, 1), "BJ"),  # a joker-only single
        ("SJ SJ BJ", ref.pack(SINGLE, R3, 1, 1), "SJ"),  # no atom: small first
    ],
)
def test_protocol_cards_given_up_keep_joker_atoms(hand, code, given):
    assert cards_text(ref.cards_given_up(hand, code)) == given
    k = np.array(ref.parse_hand(hand), np.uint8)
    played = np.zeros(N_TYPES, np.uint8)
    KR.remove_cards(k, played, np.int32(code))
    assert cards_text([t for t in range(N_TYPES) for _ in range(played[t])]) == given


# ---- YZ-28: the reference View in the second half --------------------------------------------
def test_yz28_reference_view_shows_the_first_half_result_and_the_rules():
    views = []
    pick = ref.random_chooser(3)

    def choose(view, legal):
        views.append(view)
        return pick(view, legal)

    for g in range(12):
        views.clear()
        rules = {"pass_is_final": True}
        m = ref.play_match(ref.deal_from_seed(5, g, rules), choose, rules)
        h0 = m.halves[0]
        for v in views:
            assert v.rules["pass_is_final"] is True and v.rules["shuangjia"] == "both_out_team"
            if v.half == 0:
                assert (v.first_half_team_points, v.first_half_upstream, v.first_half_out) == (
                    None,
                    None,
                    None,
                )
            else:
                assert v.first_half_team_points == tuple(h0.team_points)
                assert v.first_half_upstream == h0.out[0] and v.first_half_out == tuple(h0.out)
        if m.outcome["second_half"]:
            assert any(v.half == 1 for v in views)


# ---- YZ-28: kernel strategies read the match block -------------------------------------------
def _reference_choice(view, legal):
    high = False
    if view.half == 1:
        team = view.seat % 2
        pts = view.first_half_team_points
        high = pts[team] < pts[1 - team]
    return max(legal) if high else min(legal)


YZ28_FILE = Path(__file__).resolve().parents[2] / "user_strategy_files" / "yz28_strategies.py"


@pytest.fixture(scope="module")
def user_driver():
    """The user variant of the driver (sim/user_strategies.py) and the strategy ids of
    behind_aware and checker."""
    from cardsim.sim.games.yuanzi import ENGINE

    specs = (f"{YZ28_FILE}:behind_aware", f"{YZ28_FILE}:checker")
    ids, _users = ENGINE.strategy_ids(specs * 2)
    return ENGINE._driver(specs, "simulate_trace"), int(ids[0]), int(ids[1])


def test_yz28_kernel_strategy_reads_the_first_half_score(user_driver):
    driver, behind_aware, checker = user_driver
    rules = KS.rules_array({"pass_is_final": True})
    sids = np.array([behind_aware, checker, behind_aware, checker], np.int64)
    count = 24
    games, _s, tr, _h, _l = drv.run_trace(9, 0, count, sids, rules, driver=driver)
    assert (games[:, drv.G_BAD] == 0).all()  # the checker found the match block right
    starts = np.searchsorted(tr[:, drv.T_GAME], np.arange(count + 1))
    high_moves = second_halves = 0
    for g in range(count):
        chosen = [int(c) for c in tr[starts[g] : starts[g + 1], drv.T_CHOSEN]]
        it = iter(chosen)

        def feed(view, legal, it=it, g=g):
            code = next(it)
            if view.seat % 2 == 0 and len(legal) > 1:  # the behind-aware seats
                assert code == _reference_choice(view, legal), (g, view.half, view.seat)
            return code

        m = ref.play_match(ref.deal_from_seed(9, g), feed, {"pass_is_final": True})
        if m.outcome["second_half"]:
            second_halves += 1
            pts = m.outcome["team_points_0"]
            high_moves += pts[0] < pts[1]  # team 0 (seats 0, 2) plays high in half 1
    assert second_halves >= 5 and 0 < high_moves < second_halves


def test_yz28_kernel_rules_block_follows_the_options(user_driver):
    driver, _behind_aware, checker = user_driver
    sids = np.array([checker] * 4, np.int64)
    games, _ = drv.run_games(4, 0, 8, sids, KS.rules_array({"pass_is_final": True}), driver)
    assert (games[:, drv.G_BAD] == 0).all()
    games, _ = drv.run_games(4, 0, 8, sids, KS.rules_array({}), driver)
    assert (games[:, drv.G_BAD] > 0).all()  # pass_is_final is 0 in the block: the checker sees it


def test_yz28_state_layout_documents_the_match_block():
    assert KS.ST_MATCH == KS.ST_H0_TEAM_PTS == KS.ST_LAST + 1
    assert KS.ST_H0_UPSTREAM == KS.ST_H0_TEAM_PTS + 2
    assert KS.ST_H0_OUT == KS.ST_H0_NOUT + 1 and KS.ST_RULES == KS.ST_H0_OUT + 4
    assert KS.N_ST == KS.ST_RULES + KS.N_RULES
    doc = KS.__doc__
    assert "ST_H0_*" in doc and "ST_RULES" in doc
