"""Kernel rule cases on hand-built states, one ruling per test (AT-nn in the name).

Cards: species s = continent * 12 + class * 3 + i (encoding.py); cell = s // 3.
"""

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import rules as RL
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas import turn as T
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    FIVE,
    GIVE,
    HAND_VALUE,
    NONE,
    PAIR,
    QUAD,
    REVERSE,
    SKIP,
    TAKE,
    TARGET,
    TRADE,
    TRIPLE,
    pack_meld,
)
from cardsim.kernels.rng import bounded, new_stream, shuffle

GREEDY = 1


def sp(cont, cls, i=0):
    """Species id of (continent, class, i)."""
    return cont * 12 + cls * 3 + i


def make_state(n, hands, pile=(), discards=(), direction=1):
    """A round state: ``hands`` seat -> card list, draw pile front first, discard pile oldest first."""
    S = ST.new_state()
    ST.reset_round(S, n, 0)
    S[ST.P_DIR] = direction
    for p, cards in hands.items():
        for t in cards:
            ST.add_card(S, p, t)
    for i, t in enumerate(pile):
        S[ST.PILE + i] = t
    S[ST.H_PILE_POS] = 0
    S[ST.H_PILE_END] = len(pile)
    S[ST.P_DRAW] = len(pile)
    for t in discards:
        ST.push_discard(S, t)
    return S


def rules(**kw):
    r = RL.DEFAULT_RULES.copy()
    idx = {
        "self_melds": RL.R_SELF_MELDS,
        "all_wild": RL.R_ALL_WILD,
        "forced": RL.R_FORCED,
        "jump": RL.R_CLAIM_TURN,
        "reverse_none": RL.R_REVERSE_2P,
        "seen": RL.R_TRADE_PICK,
        "last_discard": RL.R_LAST_DISCARD,
        "no_winner": RL.R_EXHAUSTED,
        "turn_cap": RL.R_TURN_CAP,
        "rounds": RL.R_ROUNDS,
        "nearest_win": RL.R_CLAIM_PRIORITY,
        "shown": RL.R_SELF_MELDS_SHOWN,
    }
    for k, v in kw.items():
        r[idx[k]] = int(v)
    return r


def rngs(seed=1):
    out = np.empty((3, 4), np.uint64)
    for k in range(3):
        out[k] = new_stream(np.uint64(seed), 0, k)
    return out


def sids(n, sid=GREEDY):
    return np.full(n, sid, np.int64)


def hand(S, p):
    h = S[ST.HANDS + 64 * p : ST.HANDS + 64 * p + 64]
    return sorted(t for t in range(64) for _ in range(h[t]))


def self_opts(S, p, all_wild=0):
    opts = np.zeros(512, np.int32)
    k = RL.self_meld_options(S, p, all_wild, opts, 0)
    return sorted(int(c) for c in opts[:k])


def claim_opts(S, q, x, all_wild=0):
    opts = np.zeros(512, np.int32)
    k = RL.claim_meld_options(S, q, x, all_wild, opts, 0)
    return sorted(int(c) for c in opts[:k])


def M(kind, loc, wild):
    return int(pack_meld(kind, loc, wild))


def _play(S, R, seat_ids, seed, phase, p, one_turn, d=-1, x=-1):
    """The driver's ``play_on`` from ``phase`` of seat ``p`` (or the claim window on ``x``
    discarded by ``d``) of hand-built ``S`` under rules ``R``; trace level 2. ``one_turn``: the
    round stops where the next turn would start (a turn cap of the turns played so far, lifted
    afterwards: that turn has not begun). Returns (the next turn's seat or -1, trace)."""
    tr = D.scratch(level=2)
    R = np.asarray(R, np.int64).copy()
    if one_turn:
        R[RL.R_TURN_CAP] = S[ST.P_TURNS]
    T.set_rules(S, R)
    if phase == T.PH_CLAIM:
        T.open_window(S, d, x)
    else:
        T.begin(S, phase, p)
    seat_ids = seat_ids if seat_ids is not None else sids(S[0])
    D.play_on(S, R, seat_ids, rngs(seed), np.zeros(512, np.int32), *tr)
    nxt = -1
    if one_turn and S[ST.ST_END] == ST.END_TURN_CAP:
        nxt = int(S[ST.E_CUR])
        S[ST.ST_END] = -1
        T.begin(S, T.PH_TURN, nxt)
        S[ST.P_RULES + RL.R_TURN_CAP] = RL.DEFAULT_RULES[RL.R_TURN_CAP]
    return nxt, tr


def window(S, d, x, R, seat_ids=None, seed=1):
    """The claim window on ``x`` discarded by ``d`` (§4): (winning seat or -1, its code, trace);
    the round then goes on to the next turn's start."""
    _, tr = _play(S, R, seat_ids, seed, T.PH_CLAIM, d, True, d, x)
    tc, twin = tr[0], tr[3]
    assert tc[D.T_NWIN] >= 1 and twin[0, 1] == d and twin[0, 2] == x
    return int(twin[0, 3]), int(twin[0, 4]), tr


def discard(S, p, R, seat_ids=None, seed=1):
    """Seat ``p``'s discard phase (§3 steps 5–6, §4, AT-15 jump turns): (the next turn's seat
    or -1 once the round is won, trace)."""
    return _play(S, R, seat_ids, seed, T.PH_DISCARD, p, True)


def play(S, p, R, seat_ids=None, seed=1):
    """Turns from the start of seat ``p``'s turn until the round ends; the trace."""
    return _play(S, R, seat_ids, seed, T.PH_TURN, p, False)[1]


def decisions(tr):
    tc, tdec = tr[0], tr[1]
    return [tuple(int(v) for v in row[:5]) for row in tdec[: tc[D.T_NDEC]]]


def options_of(tr, i):
    tdec, topt = tr[1], tr[4]
    o, n = int(tdec[i, 5]), int(tdec[i, 3])
    return sorted(int(c) for c in topt[o : o + n])


# --- state layout ---------------------------------------------------------------------------


def test_state_layout_offsets_follow_the_table():
    off = 0
    for name, size in ST.LAYOUT:
        assert getattr(ST, name) == off, name
        off += size
    assert ST.PUB_LEN < ST.HANDS  # hands are not in the public block (AT-26)


@pytest.mark.parametrize(
    "design",
    [{}, {"hand_size": 20, "atlas_cards": 0, "skip_cards": 12, "trade_cards": 1}],
)
def test_at04_deal_follows_protocol_stream0(design):
    """Protocol §1 deal; it adapts to the deck composition and hand size of the design
    parameters (AT-D1 … AT-D3): the printed 204-card deck and 13 each, and a 199-card deck
    (no ATLAS, 12 SKIP, 1 TRADE) dealt 20 each."""
    from cardsim.kernels.atlas.encoding import canonical_deck
    from cardsim.kernels.atlas.options import OPTIONS, deck_size
    from cardsim.sim.games.atlas.reference.options import specials

    values = OPTIONS.resolve(design)
    size, hs = deck_size(values), values["hand_size"]
    for n in (2, 4, 9):
        S = ST.new_state()
        ST.reset_round(S, n, 0)
        RL.set_design(S, OPTIONS.array(design, n))
        st = new_stream(np.uint64(9), 3, 0)
        ST.deal(S, st, n)
        deck = canonical_deck(specials(values)).astype(np.int64)
        assert len(deck) == size
        ref = new_stream(np.uint64(9), 3, 0)
        shuffle(ref, deck, size)
        for p in range(n):
            assert hand(S, p) == sorted(deck[p : hs * n : n].tolist())
        assert S[ST.P_DRAW] == size - hs * n and S[ST.H_PILE_END] == size
        assert S[ST.PILE + S[ST.H_PILE_POS]] == deck[hs * n]  # drawn from the front


# --- melds (AT-10, AT-11) -------------------------------------------------------------------


def test_at10_triple_needs_three_of_a_cell():
    S = make_state(2, {0: [sp(1, 2, 0), sp(1, 2, 1), sp(1, 2, 2), sp(0, 0)], 1: [0]})
    assert self_opts(S, 0) == [M(TRIPLE, 6, 0)]
    S = make_state(2, {0: [sp(1, 2, 0), sp(1, 2, 0), sp(0, 0)], 1: [0]})
    assert self_opts(S, 0) == []  # two cards are no meld (AT-10)


def test_at11_atlas_fills_triple_slots_and_needs_one_natural():
    S = make_state(2, {0: [sp(1, 2, 0), sp(1, 2, 1), ATLAS], 1: [0]})
    assert self_opts(S, 0) == [M(TRIPLE, 6, 1)]
    S = make_state(2, {0: [sp(3, 1), ATLAS, ATLAS], 1: [0]})
    assert self_opts(S, 0) == [M(TRIPLE, 13, 2)]
    S = make_state(2, {0: [ATLAS, ATLAS, ATLAS], 1: [0]})
    assert self_opts(S, 0) == []


def test_at11_all_wild_melds_variant():
    S = make_state(2, {0: [ATLAS] * 5, 1: [0]})
    assert self_opts(S, 0, all_wild=1) == sorted([M(TRIPLE, 0, 3), M(QUAD, 0, 15), M(FIVE, 0, 31)])
    assert self_opts(S, 0, all_wild=0) == []


def test_at10_quad_one_of_each_class_of_a_continent():
    S = make_state(2, {0: [sp(2, 0), sp(2, 1), sp(2, 2), sp(2, 3)], 1: [0]})
    assert self_opts(S, 0) == [M(QUAD, 2, 0)]
    # one class missing: an ATLAS fills that slot, or any slot whose natural it replaces
    S = make_state(2, {0: [sp(2, 0), sp(2, 1), sp(2, 3), ATLAS], 1: [0]})
    assert self_opts(S, 0) == [M(QUAD, 2, 0b0100)]


def test_at10_five_one_per_continent_of_a_class():
    cards = [sp(k, 3) for k in range(5)]
    S = make_state(2, {0: cards, 1: [0]})
    assert self_opts(S, 0) == [M(FIVE, 3, 0)]
    S = make_state(2, {0: cards + [ATLAS], 1: [0]})
    got = self_opts(S, 0)
    assert got == sorted([M(FIVE, 3, 0)] + [M(FIVE, 3, 1 << k) for k in range(5)])


def test_protocol_meld_gives_up_fewest_copies_lowest_id():
    a, b, c = sp(0, 1, 0), sp(0, 1, 1), sp(0, 1, 2)
    S = make_state(2, {0: [a, a, b, c], 1: [0]})
    RL.apply_meld(S, 0, M(TRIPLE, 1, 0), -1, 1, False)  # a shown meld (AT-26)
    assert hand(S, 0) == [a]  # b (1 copy, lower id than c), then c, then a
    assert S[ST.P_MELDED + a] == 1 and S[ST.P_MELDED + b] == 1 and S[ST.P_MELDED + c] == 1
    S = make_state(2, {0: [a, a, b, c], 1: [0]})
    RL.apply_meld(S, 0, M(TRIPLE, 1, 0), -1, 0, False)  # face down (AT-26 default)
    assert hand(S, 0) == [a] and S[ST.P_MELDED : ST.P_MELDED + 64].sum() == 0
    assert S[ST.P_FD_MELDS] == 1 and S[ST.P_FD_CARDS] == 3
    assert S[ST.H_FACE_DOWN + a] == S[ST.H_FACE_DOWN + b] == S[ST.H_FACE_DOWN + c] == 1


def test_at12_claim_options_matching_discard_fills_its_slot():
    x = sp(4, 1, 2)  # Europe water
    S = make_state(2, {0: [sp(4, 0), sp(4, 2), sp(4, 3)], 1: [0]})
    assert claim_opts(S, 0, x) == [M(QUAD, 4, 0)]
    S = make_state(2, {0: [ATLAS, ATLAS, ATLAS], 1: [0]})
    got = claim_opts(S, 0, x)
    assert M(TRIPLE, x // 3, 2) in got and M(QUAD, 4, 0b1101) in got
    assert all((c >> 7) & (1 << 1) == 0 for c in got if c & 3 == QUAD)  # x's slot is natural
    assert not any(c & 3 == FIVE for c in got)  # a five would need 4 ATLAS
    S = make_state(2, {0: [ATLAS] * 4, 1: [0]})
    fives = [c for c in claim_opts(S, 0, x) if c & 3 == FIVE]
    assert fives == [M(FIVE, 1, 0b01111)]


def test_at11_claim_an_atlas_discard_fills_a_wild_slot():
    S = make_state(2, {0: [sp(1, 0, 0), sp(1, 0, 1)], 1: [0]})
    assert claim_opts(S, 0, ATLAS) == [M(TRIPLE, 4, 1)]
    S = make_state(2, {0: [sp(1, 0, 0), ATLAS], 1: [0]})
    assert claim_opts(S, 0, ATLAS) == [M(TRIPLE, 4, 2)]
    S = make_state(2, {0: [ATLAS, ATLAS], 1: [0]})
    assert claim_opts(S, 0, ATLAS) == []
    assert claim_opts(S, 0, ATLAS, all_wild=1) == [M(TRIPLE, 0, 3)]


def test_at11_claimed_atlas_meld_counts_atlas_used():
    S = make_state(2, {0: [sp(1, 0, 0), ATLAS], 1: [0]})
    RL.apply_meld(S, 0, M(TRIPLE, 4, 2), ATLAS, 1, False)
    assert hand(S, 0) == [] and S[ST.ST_ATLAS] == 2 and S[ST.ST_TRIPLES] == 1


# --- claims (AT-12 .. AT-15, AT-21) ---------------------------------------------------------


def test_at21_pairs_atlas_is_any_species_but_not_atlas():
    assert RL.pairs(5, 5) and not RL.pairs(5, 6)
    assert RL.pairs(ATLAS, 7) and RL.pairs(7, ATLAS)
    assert not RL.pairs(ATLAS, ATLAS)
    assert not RL.pairs(SKIP, SKIP) and not RL.pairs(ATLAS, TRADE)


def test_at14_priority_winning_claim_first():
    x = sp(0, 0, 0)
    filler = [sp(3, 3, 0), sp(2, 2, 1), sp(1, 1, 2)]
    S = make_state(
        4,
        {
            0: [0, 0],
            1: [sp(0, 0, 1), sp(0, 0, 2)] + filler,
            2: filler,
            3: [sp(0, 0, 1), sp(0, 0, 2)],
        },
    )
    q, code, _ = window(S, 0, x, rules())
    assert (q, code) == (3, M(TRIPLE, 0, 0))  # seat 3's claim empties its hand (AT-14 (1))


def test_at14_youxian_beats_distance():
    x = sp(1, 1, 0)
    filler = [sp(3, 3, 0), sp(2, 2, 1), sp(1, 3, 2)]
    S = make_state(
        4, {0: [0, 0], 1: [sp(1, 1, 1), sp(1, 1, 2)] + filler, 2: [x, x] + filler, 3: filler}
    )
    q, code, _ = window(S, 0, x, rules())
    assert q == 2  # two naturals of x's species (優先配, AT-14 (2)) beat the nearer seat 1


@pytest.mark.parametrize("direction,winner", [(1, 1), (-1, 3)])
def test_at14_equal_distance_next_in_direction(direction, winner):
    x = sp(2, 0, 0)
    filler = [sp(3, 3, 0), sp(0, 2, 1), sp(1, 3, 2)]
    pair = [sp(2, 0, 1), sp(2, 0, 2)]
    S = make_state(
        4, {0: [0], 1: pair + filler, 2: pair + filler, 3: pair + filler}, direction=direction
    )
    q, _, _ = window(S, 0, x, rules())
    assert q == winner  # seats 1 and 3 both at distance 1 (AT-14 (3)-(4))


def test_at14_meld_size_gives_no_priority():
    x = sp(2, 1, 0)
    filler = [sp(3, 3, 0), sp(0, 2, 1), sp(1, 3, 2), sp(1, 3, 2)]
    S = make_state(
        5,
        {0: [0], 1: [0, 0] + filler, 2: [sp(k, 1) for k in (0, 1, 3, 4)] + filler,
         3: [44], 4: [sp(2, 1, 1), sp(2, 1, 2)] + filler},
    )  # fmt: skip
    q, code, _ = window(S, 0, x, rules())
    assert (q, code) == (4, M(TRIPLE, x // 3, 0))  # the five of seat 2 is farther (distance 2)


def test_at21_last_card_pair_claim_is_absolute():
    x = sp(1, 1, 0)
    S = make_state(4, {0: [0], 1: [x, x, 0, 1], 2: [ATLAS], 3: [x]})
    q, code, _ = window(S, 0, x, rules())
    # seat 1's 優先配 loses to any pair; seat 3 (distance 1) beats seat 2 (distance 2)
    assert (q, code) == (3, PAIR)


def test_at21_last_card_pair_nearest_of_two():
    x = sp(1, 1, 0)
    S = make_state(5, {0: [0], 1: [x, x, 0, 1], 2: [ATLAS], 3: [x], 4: [5]})
    q, code, tr = window(S, 0, x, rules(forced=0))
    assert (q, code) == (2, PAIR)  # seats 2 and 3 both at distance 2: 2 comes next clockwise
    offered = {row[1]: options_of(tr, i) for i, row in enumerate(decisions(tr))}
    assert offered[2] == [NONE, PAIR] and offered[3] == [NONE, PAIR] and 4 not in offered


def test_at12_forced_claims_remove_none():
    x = sp(0, 0, 0)
    S = make_state(3, {0: [0], 1: [sp(0, 0, 1), sp(0, 0, 2), 50], 2: [40]})
    _, _, tr = window(S, 0, x, rules(forced=1))
    assert [options_of(tr, i) for i in range(len(decisions(tr)))] == [[M(TRIPLE, 0, 0)]]
    S = make_state(3, {0: [0], 1: [sp(0, 0, 1), sp(0, 0, 2), 50], 2: [40]})
    _, _, tr = window(S, 0, x, rules(forced=0))
    assert options_of(tr, 0) == [NONE, M(TRIPLE, 0, 0)]


def test_at12_claim_is_a_strategy_choice_random_may_decline():
    x = sp(0, 0, 0)
    declined = 0
    for seed in range(40):
        S = make_state(3, {0: [0], 1: [sp(0, 0, 1), sp(0, 0, 2), 50], 2: [40]})
        q, _, _ = window(S, 0, x, rules(forced=0), seat_ids=sids(3, 0), seed=seed)
        declined += q < 0
    assert 5 < declined < 35


def test_at15_stay_claimant_not_next_does_nothing_else():
    x = sp(0, 0, 0)
    S = make_state(
        4, {0: [x, x], 1: [20, 21, 33], 2: [sp(0, 0, 1), sp(0, 0, 2), 50, 51], 3: [40, 41, 45]}
    )
    nxt, _ = discard(S, 0, rules())
    assert nxt == 1 and hand(S, 2) == [50, 51] and S[ST.P_SIZES + 1] == 3  # AT-15 stay
    assert S[ST.ST_CLAIMS] == 1 and S[ST.SEAT_CLAIMS + 2] == 1 and S[ST.ST_MELD_OK] == -1
    assert S[ST.P_NDISC] == 0  # the claimed card did not stay on the pile (AT-09)


def test_at15_stay_next_player_claims_then_takes_its_turn_with_melds():
    x = sp(0, 0, 0)
    S = make_state(3, {0: [x, x], 1: [sp(0, 0, 1), sp(0, 0, 2), 50, 51], 2: [40, 41, 45]})
    nxt, _ = discard(S, 0, rules(self_melds=1))
    assert nxt == 1 and S[ST.ST_MELD_OK] == 1  # its turn allows self-melds (AT-07 variant)


def test_at15_jump_claimant_discards_at_once():
    x = sp(0, 0, 0)
    S = make_state(
        4, {0: [x, x], 1: [20, 21, 33], 2: [sp(0, 0, 1), sp(0, 0, 2), 51, 51], 3: [40, 41, 45]}
    )
    S[ST.P_TURNS] = 5
    nxt, tr = discard(S, 0, rules(jump=1))
    assert nxt == 3 and S[ST.P_SIZES + 2] == 1 and S[ST.P_TURNS] == 6  # discarded one 51
    assert decisions(tr)[-1][:3] == (0, 2, 2)  # its discard decision


# --- action cards (AT-17 .. AT-19) ----------------------------------------------------------


def test_at17_skip_next_player_loses_turn():
    S = make_state(4, {0: [SKIP, SKIP], 1: [1], 2: [2], 3: [3]})
    nxt, _ = discard(S, 0, rules())
    assert nxt == 2 and S[ST.ST_SKIPS] == 1 and S[ST.P_DISCSEQ] == SKIP and S[ST.P_NDISC] == 1


def test_at17_skip_two_players_goes_again():
    S = make_state(2, {0: [SKIP, SKIP], 1: [1]})
    assert discard(S, 0, rules())[0] == 0


def test_at18_reverse_flips_direction():
    S = make_state(4, {0: [REVERSE, REVERSE], 1: [1], 2: [2], 3: [3]})
    nxt, _ = discard(S, 0, rules())
    assert nxt == 3 and S[ST.P_DIR] == -1 and S[ST.ST_DIRCH] == 1 and S[ST.ST_REVERSES] == 1
    S = make_state(4, {2: [REVERSE, REVERSE], 1: [1], 0: [0], 3: [3]}, direction=-1)
    assert discard(S, 2, rules())[0] == 3 and S[ST.P_DIR] == 1


@pytest.mark.parametrize("variant,expected", [(0, 0), (1, 1)])
def test_at18_reverse_two_players_variants(variant, expected):
    S = make_state(2, {0: [REVERSE, REVERSE], 1: [1]})
    assert discard(S, 0, rules(reverse_none=variant))[0] == expected
    assert S[ST.P_DIR] == 1 and S[ST.ST_DIRCH] == 0


def test_at19_trade_blind_takes_kth_card_from_events_stream():
    S = make_state(3, {0: [TRADE, TRADE, 5], 1: [10, 11, 12, 13], 2: [20, 30]})
    ev = rngs(4)[1].copy()  # the events stream the driver gets
    nxt, tr = discard(S, 0, rules(), seed=4)
    assert nxt == 1
    k = bounded(ev, 2)  # greedy targets seat 2 (fewest cards)
    taken = [20, 30][k]
    ds = decisions(tr)
    assert [d[2] for d in ds] == [2, 3, 5]  # discard, target, give (no take under blind)
    assert ds[1][4] == TARGET + 2
    assert options_of(tr, 2) == sorted(GIVE + t for t in set([TRADE, 5, taken]))
    given = ds[2][4] - GIVE
    assert sorted(hand(S, 0) + hand(S, 2)) == sorted([TRADE, 5, 20, 30])
    assert given in hand(S, 2) and S[ST.P_SIZES + 0] == 2 and S[ST.P_SIZES + 2] == 2
    assert S[ST.ST_TRADES] == 1 and S[ST.P_TAKEN] == -1


def test_at19_trade_seen_offers_the_targets_types():
    S = make_state(3, {0: [TRADE, TRADE, 5], 1: [10, 11, 12, 13], 2: [20, 20, ATLAS]})
    nxt, tr = discard(S, 0, rules(seen=1))
    ds = decisions(tr)
    assert [d[2] for d in ds] == [2, 3, 4, 5]
    assert options_of(tr, 2) == [TAKE + 20, TAKE + ATLAS]
    assert ds[2][4] == TAKE + ATLAS  # greedy takes the ATLAS
    assert ATLAS in hand(S, 0)


def test_at19_trade_target_may_be_declined_and_lists_all_others():
    S = make_state(4, {0: [TRADE, TRADE], 1: [1], 2: [2], 3: [3]})
    _, tr = discard(S, 0, rules())
    assert options_of(tr, 1) == [NONE, TARGET + 1, TARGET + 2, TARGET + 3]


# --- turns, last card, exhaustion (AT-06, AT-20 .. AT-23) -----------------------------------


def test_at21_last_action_card_wins_without_drawing():
    S = make_state(3, {0: [SKIP], 1: [1, 2], 2: [3, 4]}, pile=[5, 6])
    play(S, 0, rules())
    assert S[ST.ST_WINNER] == 0 and S[ST.ST_END] == ST.END_ACTION_CARD and S[ST.P_DRAW] == 2


@pytest.mark.parametrize("held,drawn", [(7, 7), (7, ATLAS), (ATLAS, 7)])
def test_at21_last_card_wins_by_drawing_a_pair(held, drawn):
    S = make_state(3, {0: [held], 1: [1, 2], 2: [3, 4]}, pile=[drawn, 6])
    play(S, 0, rules())
    assert S[ST.ST_WINNER] == 0 and S[ST.ST_END] == ST.END_LAST_CARD_DRAW
    assert S[ST.ST_LCP] == 1


def test_at21_two_atlas_never_pair_and_the_player_discards():
    S = make_state(3, {0: [ATLAS], 1: [1, 2, 40], 2: [3, 4, 41]}, pile=[ATLAS, 6, 9, 10, 11])
    tr = play(S, 0, rules(turn_cap=1))
    ds = decisions(tr)
    assert ds[0][:3] == (0, 0, 2) and options_of(tr, 0) == [DISCARD + ATLAS]


def test_at22_self_melds_leaving_one_card_keep_it():
    cell = [sp(1, 0, 0), sp(1, 0, 1)]
    S = make_state(3, {0: cell + [9], 1: [1, 2, 40], 2: [3, 4, 41]}, pile=[sp(1, 0, 2)] + [30] * 5)
    tr = play(S, 0, rules(turn_cap=1, self_melds=0))  # AT-07 variant any
    assert hand(S, 0) == [9] and S[ST.P_NDISC] == 0 and S[ST.ST_SELF] == 1
    assert [d[2] for d in decisions(tr)] == [1]  # one self-meld decision, no discard


def test_at22_last_discard_wins_variant():
    cell = [sp(1, 0, 0), sp(1, 0, 1)]
    S = make_state(3, {0: cell + [9], 1: [1, 2, 40], 2: [3, 4, 41]}, pile=[sp(1, 0, 2)] + [30] * 5)
    play(S, 0, rules(turn_cap=1, last_discard=1, self_melds=0))
    assert S[ST.ST_WINNER] == 0 and S[ST.ST_END] == ST.END_LAST_DISCARD
    assert S[ST.P_NDISC] == 1 and S[ST.P_DISCSEQ] == 9


def test_at20_self_meld_emptying_the_hand_wins():
    cell = [sp(1, 0, 0), sp(1, 0, 1)]
    S = make_state(3, {0: cell, 1: [1, 2, 40], 2: [3, 4, 41]}, pile=[sp(1, 0, 2)])
    play(S, 0, rules(self_melds=0))  # AT-07 variant any: an ordinary turn's self-meld
    assert S[ST.ST_WINNER] == 0 and S[ST.ST_END] == ST.END_SELF_MELD


def test_at07_after_claim_only_offers_no_self_melds():
    cell = [sp(1, 0, 0), sp(1, 0, 1)]
    S = make_state(
        3, {0: cell + [9, 9], 1: [1, 2, 40], 2: [3, 4, 41]}, pile=[sp(1, 0, 2)] + [30] * 5
    )
    tr = play(S, 0, rules(turn_cap=1, self_melds=1))
    assert [d[2] for d in decisions(tr)] == [2]


def test_at20_claim_emptying_the_hand_wins():
    x = sp(0, 0, 0)
    S = make_state(3, {0: [x, x], 1: [50, 51, 52], 2: [sp(0, 0, 1), sp(0, 0, 2)]})
    assert discard(S, 0, rules())[0] == -1
    assert S[ST.ST_WINNER] == 2 and S[ST.ST_END] == ST.END_CLAIM


def test_at23_reshuffle_discards_with_events_stream():
    disc = [5, 9, 13, 40, 41]
    S = make_state(3, {0: [1, 2], 1: [3, 4], 2: [6, 7]}, discards=disc)
    ev = rngs(2)[1].copy()  # the events stream the driver gets
    play(S, 0, rules(turn_cap=1), seed=2)
    expect = np.array(disc, np.int64)
    shuffle(ev, expect, len(disc))
    assert S[ST.ST_RESHUFFLES] == 1
    assert list(S[ST.PILE : ST.PILE + 5]) == list(expect) and S[ST.H_PILE_POS] == 1


@pytest.mark.parametrize("variant", [0, 1])
def test_at23_no_winner_when_pile_and_discards_are_exhausted(variant):
    disc = [] if variant == 0 else [5, 9]
    S = make_state(3, {0: [1, 2], 1: [3, 4], 2: [6, 7]}, discards=disc)
    play(S, 0, rules(no_winner=variant))
    assert S[ST.ST_WINNER] == -1 and S[ST.ST_END] == ST.END_NO_WINNER


def test_at23_turn_cap_ends_without_winner():
    # every card in its own cell: no meld, no claim, no pair is possible
    S = make_state(3, {0: [0, 3], 1: [6, 9], 2: [12, 15]}, pile=[18, 21, 24, 27, 30])
    play(S, 0, rules(turn_cap=3))
    assert S[ST.P_TURNS] == 3 and S[ST.ST_END] == ST.END_TURN_CAP and S[ST.ST_WINNER] == -1


# --- score and match (AT-24, AT-25) ---------------------------------------------------------


def test_at24_winner_takes_the_sum_of_the_other_hands():
    S = make_state(3, {0: [], 1: [ATLAS, SKIP, 5], 2: [TRADE, 7, 7]})
    S[ST.ST_WINNER] = 0
    S[ST.H_FIRST] = 2
    g = np.zeros(1, D.GAMES_DTYPE)
    s = np.zeros(3, D.SEATS_DTYPE)
    D._record(S, 3, 11, sids(3), g, 0, s, 0)
    assert g["winner_points"][0] == (3 + 2 + 1) + (2 + 1 + 1)
    assert list(s["points"]) == [10, 0, 0] and list(s["won"]) == [True, False, False]
    assert list(s["hand_value"]) == [0, 6, 4] and list(s["position"]) == [1, 2, 0]
    assert HAND_VALUE[ATLAS] == 3


def test_at24_no_winner_scores_nothing():
    S = make_state(3, {0: [1], 1: [ATLAS, SKIP, 5], 2: [TRADE, 7, 7]})
    g = np.zeros(1, D.GAMES_DTYPE)
    s = np.zeros(3, D.SEATS_DTYPE)
    D._record(S, 3, 11, sids(3), g, 0, s, 0)
    assert g["winner_points"][0] == 0 and list(s["points"]) == [0, 0, 0] and not s["won"].any()


def test_at25_next_round_first_player():
    for n in (2, 5):
        R = rules(rounds=6, turn_cap=40, self_melds=0)  # AT-07 any: rounds end within the cap
        g = np.zeros(30 * 6, D.GAMES_DTYPE)
        s = np.zeros(30 * 6 * n, D.SEATS_DTYPE)
        D.simulate(np.uint64(3), 0, 30, n, sids(n, 0), R, g, s)
        g = g.reshape(30, 6)
        assert (g["first_player"][:, 0] == 0).all()
        for r in range(1, 6):
            prev = g[:, r - 1]
            want = np.where(prev["winner"] >= 0, prev["winner"], (prev["first_player"] + 1) % n)
            assert (g["first_player"][:, r] == want).all()
        assert (g["end"] == ST.END_TURN_CAP).any() and (g["winner"] >= 0).any()
