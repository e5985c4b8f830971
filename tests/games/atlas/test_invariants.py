"""Invariant harness on random kernel playouts (2, 3, 4, 6, 10 players, every rule variant).

The kernel copies its state at every decision (trace ``snap_at=-2``); each copy is checked:
every card of the deck accounted for by type (the deck adapts to the design parameters AT-D2,
AT-D3: 204 cards by default; the dealt hand to AT-D1), hand sizes agree with the per-seat
draw / discard / meld / trade accounting, the public counts agree with the piles, and consecutive turns follow SKIP and
REVERSE exactly (AT-17, AT-18). The output rows are checked for AT-24 scoring.
"""

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.encoding import ATLAS, DISCARD, HAND_VALUE, REVERSE, SKIP
from cardsim.sim.games.atlas import rules_array

DESIGN = {"hand_size": 16, "atlas_cards": 12, "skip_cards": 0, "reverse_cards": 2,
          "atlas_value": 0, "action_value": 9, "matching_value": 4}  # fmt: skip

CASES = [
    (2, {}, (0, 0)),
    (2, {"reverse_two_players": "none", "trade_pick": "seen"}, (0, 1)),
    (3, {}, (0, 0, 0)),
    (3, {"claim_turn": "jump", "forced_claims": True}, (0, 2, 0)),
    (4, {}, (0, 0, 0, 0)),
    (4, {"self_melds": "after_claim_only", "all_wild_melds": True}, (0, 1, 0, 2)),
    (4, {"last_discard_wins": True, "exhausted": "no_winner"}, (0, 0, 1, 0)),
    (6, {"rounds": 3, "turn_cap": 60}, (0,) * 6),
    (6, {"trade_pick": "seen", "claim_turn": "jump"}, (0, 0, 0, 1, 2, 0)),
    (10, {}, (0,) * 10),
    (10, {"all_wild_melds": True, "forced_claims": True, "rounds": 2}, (0, 1) * 5),
    (5, {**DESIGN, "claim_turn": "jump"}, (0, 1, 2, 0, 1)),  # AT-D1 … AT-D4
]


def copies(S):
    """Copies of each card type in the state's deck: 3 per species, the specials from the
    design block (AT-D2, AT-D3)."""
    return np.array([3] * 60 + [int(S[ST.P_DECK + j]) for j in range(4)])


def check_state(S, where):
    n = S[ST.P_N]
    hands = S[ST.HANDS : ST.HANDS + 64 * n].reshape(n, 64)
    assert (hands >= 0).all(), where
    pile = S[ST.PILE + S[ST.H_PILE_POS] : ST.PILE + S[ST.H_PILE_END]]
    assert len(pile) == S[ST.P_DRAW], where
    disc = S[ST.P_DISCSEQ : ST.P_DISCSEQ + S[ST.P_NDISC]]
    dc = np.bincount(disc, minlength=64)
    assert (dc == S[ST.P_DISCC : ST.P_DISCC + 64]).all(), where
    total = hands.sum(0) + np.bincount(pile, minlength=64) + dc + S[ST.P_MELDED : ST.P_MELDED + 64]
    total += S[ST.H_FACE_DOWN : ST.H_FACE_DOWN + 64]  # AT-26: face-down self-melds (hidden)
    assert (
        S[ST.H_FACE_DOWN : ST.H_FACE_DOWN + 64].sum() == S[ST.P_FD_CARDS : ST.P_FD_CARDS + n].sum()
    )
    if S[ST.P_CARD] >= 0:  # a discard under claim is in flight (§4)
        total[S[ST.P_CARD]] += 1
    deck = copies(S)
    assert (total == deck).all(), (where, np.nonzero(total != deck))
    assert total.sum() == 180 + S[ST.P_DECK : ST.P_DECK + 4].sum()
    for p in range(n):
        size = S[ST.P_SIZES + p]
        assert size == hands[p].sum(), where
        cells = hands[p, :60].reshape(20, 3).sum(1)
        assert (cells == S[ST.CELLS + 20 * p : ST.CELLS + 20 * p + 20]).all(), where
        acct = (
            S[ST.P_HAND_SIZE] + S[ST.SEAT_DRAWN + p] - S[ST.SEAT_DISCARDED + p] - S[ST.SEAT_MELDED + p]
            + S[ST.SEAT_TRADE_NET + p]
        )  # fmt: skip
        assert size == acct, (where, p, size, acct)
        if p != S[ST.P_TARGET]:  # a TRADE target may be empty until it is given a card
            assert size >= 1, where  # nobody holding 0 cards is still playing (AT-20)


def expected_next(p, x, d, n, reverse_none):
    if x == SKIP:
        return (p + 2 * d) % n
    if x == REVERSE:
        if n == 2:
            return (p + d) % n if reverse_none else p
        return (p - d) % n
    return (p + d) % n


@pytest.mark.parametrize("n,rule,seats", CASES)
def test_invariants_random_playouts(n, rule, seats):
    R = rules_array(rule, n)
    sids = np.array(seats, np.int64)
    jump = rule.get("claim_turn") == "jump"
    rev_none = rule.get("reverse_two_players") == "none"
    checked = turns_checked = 0
    for gi in range(6):
        tr = D.run_trace(11, gi, n, sids, R, level=1, snap_at=-2)
        snaps, decs = tr.snapshot, tr.decisions
        assert len(snaps) == len(decs)
        for k in range(len(decs)):
            S = snaps[k, : ST.S_LEN]
            check_state(S, (n, rule, gi, k))
            assert snaps[k, ST.S_LEN] == decs[k, 1] and snaps[k, ST.S_LEN + 1] == decs[k, 2]
            opts = snaps[k, ST.S_LEN + 4 : ST.S_LEN + 4 + decs[k, 3]]
            assert decs[k, 4] in opts
            if decs[k, 2] == 2:  # a discard: one option per card type held (§3.6)
                held = np.nonzero(S[ST.HANDS + 64 * decs[k, 1] : ST.HANDS + 64 * decs[k, 1] + 64])
                assert sorted(opts - DISCARD) == held[0].tolist()
            checked += 1
        if jump:
            continue
        for k in np.nonzero(decs[:, 2] == 2)[0]:  # AT-16..18: who plays next
            S = snaps[k]
            later = [
                j for j in range(k + 1, len(decs))
                if decs[j, 0] == decs[k, 0] and snaps[j, ST.P_TURNS] > S[ST.P_TURNS]
            ]  # fmt: skip
            if not later:
                continue
            S2 = snaps[later[0]]
            assert S2[ST.P_TURNS] == S[ST.P_TURNS] + 1  # every unfinished turn has a decision
            x = decs[k, 4] - DISCARD
            d = S[ST.P_DIR]
            assert S2[ST.P_TURN] == expected_next(decs[k, 1], x, d, n, rev_none), (gi, k)
            flipped = x == REVERSE and n > 2
            assert S2[ST.P_DIR] == (-d if flipped else d)
            turns_checked += 1
        g, s = tr.games, tr.seats.reshape(len(tr.games), n)
        for r in range(len(g)):
            w = g["winner"][r]
            hv = s["hand_value"][r]
            if w >= 0:  # AT-24
                assert g["winner_points"][r] == hv.sum() - hv[w]
                assert s["cards_left"][r][w] == 0 and s["points"][r][w] == g["winner_points"][r]
                assert s["won"][r].sum() == 1 and g["end"][r] not in (5, 6)
            else:
                assert g["winner_points"][r] == 0 and (s["points"][r] == 0).all()
                assert g["end"][r] in (5, 6)
            values = (rule.get("atlas_value", 3), rule.get("action_value", 2),
                      rule.get("matching_value", 1))  # fmt: skip
            assert (s["hand_value"][r] >= min(values) * s["cards_left"][r]).all()  # AT-D4
            assert (s["hand_value"][r] <= max(values) * s["cards_left"][r]).all()
    assert checked > 100
    assert jump or turns_checked > 20


def test_design_case_leaves_the_printed_deck():
    S = ST.new_state()
    ST.reset_round(S, 5, 0)
    from cardsim.kernels.atlas.rules import set_design

    set_design(S, rules_array(DESIGN, 5))
    assert copies(S)[60:].tolist() == [12, 0, 2, 6] and S[ST.P_HAND_SIZE] == 16


def test_hand_values_table_matches_at05():
    assert HAND_VALUE[ATLAS] == 3 and HAND_VALUE[SKIP] == 2 and HAND_VALUE[0] == 1
