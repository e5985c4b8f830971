"""The rulings revised on 2026-12-01, reference and kernel alike: AT-12 (forced claims by
default), AT-14 (last-card absolute priority; 優先配 = the same-species triple; variant
``claim_priority=nearest_win``) and AT-26 (self-melds face down; variant ``self_melds_shown``).

Kernel cases use hand-built states (``tests/games/atlas/test_kernel_rules.py`` helpers); species
ids: Orangutan 24, Giant Panda 25, Tiger 26 (Asia Land, cell 8).
"""

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.encoding import DISCARD, NONE, PAIR, QUAD, TRIPLE
from cardsim.sim.games.atlas import ENGINE, resolve_rules, rules_array
from cardsim.sim.games.atlas.reference import rules as atlas

from tests.games.atlas.test_kernel_rules import M, discard, make_state, play, rules, sp, window
from tests.games.atlas.test_rules_play import QUIET, QUIET_PILE, Script

ORANGUTAN, PANDA, TIGER = 24, 25, 26
ASIA_LAND = M(TRIPLE, 8, 0)  # 33
NW = {"claim_priority": "nearest_win"}
FILLER = [sp(3, 3, 0), sp(0, 2, 1), sp(1, 3, 2)]  # three cards in distinct cells


# ---- AT-12: forced claims by default ------------------------------------------------------
def test_at12_forced_claims_is_the_default_everywhere():
    assert atlas.RULE_DEFAULTS["forced_claims"] is True
    opt = {o.name: o for o in ENGINE.rule_options}["forced_claims"]
    assert opt.default is True and opt.ruling == "AT-12"
    assert rules_array({})[2] == 1  # R_FORCED
    # kernel: NONE is not offered by default, offered with forced_claims=false
    S = make_state(3, {0: [0], 1: [sp(0, 0, 1), sp(0, 0, 2), 50], 2: [40]})
    _, _, tr = window(S, 0, sp(0, 0, 0), rules_array({}))
    assert NONE not in [int(c) for c in tr[4][: tr[1][0, 3]]]
    S = make_state(3, {0: [0], 1: [sp(0, 0, 1), sp(0, 0, 2), 50], 2: [40]})
    _, _, tr = window(S, 0, sp(0, 0, 0), rules_array({"forced_claims": False}))
    assert sorted(int(c) for c in tr[4][: tr[1][0, 3]]) == [NONE, M(TRIPLE, 0, 0)]


# ---- AT-14: the examples, reference and kernel ------------------------------------
def kernel_winner(hands, x, priority=None, n=None, d=0):
    """Seat and code the kernel's claim window gives on discard ``x`` by ``d`` (greedy claims)."""
    n = n or len(hands)
    S = make_state(n, dict(enumerate(hands)))
    q, code, _ = window(S, d, x, rules_array(priority or {}))
    return q, code


def test_at14_last_card_holder_beats_a_nearer_winning_claim():
    # 5 players, discarder 0, Giant Panda discarded; seat 1 would win with Tiger + Orangutan,
    # seat 3 holds a lone Panda: text gives seat 3; nearest_win gives (1, 'distance')
    names = [["Lion"], ["Tiger", "Orangutan"], ["Lion"], ["Giant Panda"], ["Lion"]]
    claims = {1: ASIA_LAND, 3: PAIR}
    assert atlas.resolve_claims("Giant Panda", 0, 1, names, claims) == (3, "last card")
    assert atlas.resolve_claims("Giant Panda", 0, 1, names, claims, rules=NW) == (1, "distance")
    hands = [[2], [TIGER, ORANGUTAN], [2], [PANDA], [2]]
    assert kernel_winner(hands, PANDA) == (3, PAIR)
    assert kernel_winner(hands, PANDA, NW) == (1, ASIA_LAND)


def test_at14_youxianpei_triple_beats_a_nearer_plain_claim():
    # seat 1 (distance 1) claims with Tiger + Orangutan (not winning); seat 3 (distance 2 of 5)
    # holds two Pandas: the same-species triple (優先配) wins in both readings
    hands = [[2], [TIGER, ORANGUTAN] + FILLER, [2], [PANDA, PANDA] + FILLER, [2]]
    names = [atlas.names(h).split(", ") for h in hands]
    assert atlas.resolve_claims(PANDA, 0, 1, hands, {1: ASIA_LAND, 3: ASIA_LAND}) == (3, "優先配")
    assert kernel_winner(hands, PANDA) == (3, ASIA_LAND)
    assert kernel_winner(hands, PANDA, NW) == (3, ASIA_LAND)
    assert names[3][0] == "Giant Panda ×2"


def test_at14_youxianpei_breaks_the_tie_between_winning_claims():
    # both claims empty the hand: seat 3's same-species triple beats the nearer seat 1 (text);
    # nearest_win orders winning claims by distance only
    hands = [[2], [TIGER, ORANGUTAN], [2], [PANDA, PANDA], [2]]
    claims = {1: ASIA_LAND, 3: ASIA_LAND}
    assert atlas.resolve_claims(PANDA, 0, 1, hands, claims) == (3, "優先配")
    assert atlas.resolve_claims(PANDA, 0, 1, hands, claims, rules=NW) == (1, "distance")
    assert kernel_winner(hands, PANDA) == (3, ASIA_LAND)
    assert kernel_winner(hands, PANDA, NW) == (1, ASIA_LAND)


def test_at14_holder_of_two_pandas_claiming_with_a_quad_has_no_priority():
    # seat 3 holds Panda ×2 + Pearl Gourami, Parrot, Lotus and offers only the quad Asia (it
    # cannot make the triple: forced claims, one option per kind is offered, greedy takes the
    # largest meld); the quad is no 優先配 under text, it is under nearest_win
    quad_asia = M(QUAD, 2, 0)
    seat3 = [PANDA, PANDA, 27, 31, 34]  # Pearl Gourami, Parrot, Lotus
    hands = [[2], [TIGER, ORANGUTAN] + FILLER, [2], seat3, [2]]
    claims = {1: ASIA_LAND, 3: quad_asia}
    assert atlas.resolve_claims(PANDA, 0, 1, hands, claims) == (1, "distance")
    assert atlas.resolve_claims(PANDA, 0, 1, hands, claims, rules=NW) == (3, "優先配")
    # kernel: greedy claims with the largest meld (the quad) for seat 3
    assert kernel_winner(hands, PANDA) == (1, ASIA_LAND)
    assert kernel_winner(hands, PANDA, NW) == (3, quad_asia)


def test_at14_same_species_triple_gives_up_the_two_of_the_species():
    # seat 1 holds Panda ×2 + Tiger: the 優先配 triple gives up both Pandas and keeps Tiger
    # (text); nearest_win keeps the protocol §2 fewest-copies rule (Tiger, then a Panda)
    hands = [["Giant Panda", "Whale"], ["Giant Panda"] * 2 + ["Tiger", "Kiwi Bird"], QUIET[2]]
    steps = [(0, atlas.DISCARD, DISCARD + PANDA), (1, atlas.CLAIM, ASIA_LAND)]
    for rules_, kept, meld in [
        ({}, [TIGER], (PANDA, PANDA, PANDA)),
        (NW, [PANDA], (PANDA, PANDA, TIGER)),
    ]:
        s = Script(*steps)
        r = atlas.play_round(hands, QUIET_PILE, s, {"turn_cap": 1, **rules_})
        s.done()
        assert r.melds == [(1, meld)]
        assert [c for c in r.hands[1] if c in (PANDA, TIGER)] == kept
        assert r.outcome["youxian_claims"] == 1
        # the kernel gives up the same cards
        S = make_state(3, {0: [PANDA, 60], 1: [PANDA, PANDA, TIGER, 43], 2: [13, 33, 37]})
        S2 = S.copy()
        discard(S2, 0, rules(nearest_win=bool(rules_)))
        left = S2[ST.HANDS + 64 : ST.HANDS + 128]
        assert [t for t in (PANDA, TIGER) for _ in range(left[t])] == kept
        assert S2[ST.ST_YOUXIAN] == 1


def test_at14_youxian_claims_counts_only_the_same_species_triple_under_text():
    # a quad claim won by a holder of two Pandas counts under nearest_win only
    for rules_, want in [({}, 0), (NW, 1)]:
        S = make_state(3, {0: [PANDA, 60], 1: [PANDA, PANDA, 27, 31, 34], 2: [13, 33, 37]})
        discard(S, 0, rules(nearest_win=bool(rules_)))
        assert S[ST.ST_CLAIMS] == 1 and S[ST.ST_QUADS] == 1 and S[ST.ST_YOUXIAN] == want


# ---- AT-26: self-melds lie face down ------------------------------------------------------
SELF_HANDS = [["Elephant", "Giraffe", "Lion", "Whale", "Kiwi Bird"], QUIET[1], QUIET[2]]


@pytest.mark.parametrize("shown", [False, True])
def test_at26_reference_view_of_a_self_meld(shown):
    s = Script((0, 1, M(TRIPLE, 0, 0)))  # seat 0 self-melds Elephant, Giraffe, Lion
    rules_ = {"turn_cap": 2, "self_melds_shown": shown, "self_melds": "any"}  # AT-07 variant
    r = atlas.play_round(SELF_HANDS, QUIET_PILE, s, rules_)
    s.done()
    assert r.melds == [(0, (0, 1, 2))]  # the round's record keeps the cards
    seat1 = next(v for v in s.views if v.seat == 1)
    if shown:
        assert seat1.melds == ((0, (0, 1, 2)),) and seat1.face_down == ()
    else:  # only that seat 0 laid a meld and its size
        assert seat1.melds == () and seat1.face_down == ((0, 3),)
        assert not {0, 1, 2} & {c for _, cards in seat1.melds for c in cards}


@pytest.mark.parametrize("shown", [False, True])
def test_at26_kernel_public_state_of_a_self_meld(shown):
    S = make_state(
        3, {0: [0, 1, 2, 17, 43], 1: [3, 18, 34], 2: [6, 21, 37]}, pile=[48, 47, 40, 43, 51]
    )
    play(S, 0, rules(turn_cap=1, shown=int(shown), self_melds=0))  # AT-07 variant any
    assert S[ST.P_SIZES] == 5 - 3 + 1 - 1  # drew one, melded three, discarded one
    melded = [t for t in (0, 1, 2) if S[ST.P_MELDED + t]]
    if shown:
        assert melded == [0, 1, 2] and S[ST.P_FD_MELDS] == 0 and S[ST.P_FD_CARDS] == 0
    else:
        assert melded == [] and S[ST.P_FD_MELDS] == 1 and S[ST.P_FD_CARDS] == 3
        assert list(S[ST.P_FD_SIZES : ST.P_FD_SIZES + 3]) == [1, 0, 0]  # seat 0: one triple
        assert S[ST.P_MELDED : ST.P_MELDED + 64].sum() == 0
        assert list(S[ST.H_FACE_DOWN : ST.H_FACE_DOWN + 3]) == [1, 1, 1]  # hidden: after PUB_LEN
        assert ST.H_FACE_DOWN >= ST.PUB_LEN
    assert ST.P_FD_SIZES + 30 <= ST.PUB_LEN  # the counts are public (the design block follows)


VARIANTS = [{}, {"self_melds_shown": True}, {"claim_priority": "nearest_win"}]


def recorded_views(root, gi, n, chosen, rule):
    """The reference's View at every decision of a replayed kernel trace."""
    views = []
    codes = iter(chosen)

    def feed(view, dtype, options):
        views.append(view)
        return next(codes)

    atlas.play_match(root, gi, n, feed, resolve_rules(rule))
    return views


@pytest.mark.parametrize("rule", VARIANTS)
def test_at26_kernel_public_melds_are_exactly_the_reference_view(rule):
    """At every decision the kernel's public meld counts show the reference View's melds
    (claims; self-melds only when shown) and the face-down counts its face-down sizes."""
    checked = face_down = 0
    for gi in range(24):
        n = 3 + gi % 3
        sid = np.array([1, 2, 0, 1, 2][:n], np.int64)
        tr = D.run_trace(11, gi, n, sid, rules_array(rule), level=1, snap_at=-2)
        views = recorded_views(11, gi, n, tr.chosen(), rule)
        assert len(views) == len(tr.decisions) <= len(tr.snapshot)
        for k, view in enumerate(views):
            S = tr.snapshot[k]
            shown = np.zeros(64, np.int64)
            for _, cards in view.melds:
                for c in cards:
                    shown[c] += 1
            assert np.array_equal(S[ST.P_MELDED : ST.P_MELDED + 64], shown), (gi, k)
            fd = [0] * 10
            for seat, size in view.face_down:
                fd[seat] += size
            assert list(S[ST.P_FD_CARDS : ST.P_FD_CARDS + 10]) == fd
            counts = [sum(1 for s_, _ in view.face_down if s_ == q) for q in range(10)]
            assert list(S[ST.P_FD_MELDS : ST.P_FD_MELDS + 10]) == counts
            sizes = [0] * 30
            for seat, size in view.face_down:
                sizes[3 * seat + size - 3] += 1
            assert list(S[ST.P_FD_SIZES : ST.P_FD_SIZES + 30]) == sizes
            face_down += len(view.face_down)
            checked += 1
    assert checked > 1000
    assert (face_down > 0) == (rule.get("self_melds_shown") is not True)
