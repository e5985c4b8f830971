"""ATLAS search determinizations and objective, issue 45 items 5 and 6.

Item 5: every face-down self-meld a determinization samples splits into valid melds of its
recorded sizes (AT-10, AT-11: naturals of the meld's cells and ATLAS, at least one natural,
never an action card). Item 6: a seat knows the cards of its own face-down self-melds and the
match standing (AT-26, revised 2026-12-06 in docs/RULES-atlas.md): ``determinize`` keeps its
own face-down cards and never deals them to another seat, and with ``rounds`` > 1 the search
objective is the match result in force (AT-25).
"""

from functools import cache

import numpy as np
import pytest
from cardsim.kernels.atlas import pimc
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.driver import run_trace
from cardsim.kernels.atlas.encoding import ATLAS, N_SPECIES, N_TYPES, REVERSE, SKIP, TRADE
from cardsim.kernels.atlas.rules import R_ROUNDS
from cardsim.kernels.atlas.strategies import GREEDY
from cardsim.kernels.rng import seed_stream
from cardsim.sim.games.atlas import rules_array
from cardsim.sim.games.atlas.reference import rules as atlas

from tests.games.atlas.test_pimc import _permute_hidden

S_LEN = ST.S_LEN


def _shapes(k: int) -> list[list[int]]:
    """The cells of every meld of ``k`` cards (AT-10): triple, quad, five."""
    if k == 3:
        return [[c, c, c] for c in range(20)]
    if k == 4:
        return [[cont * 4 + cl for cl in range(4)] for cont in range(5)]
    return [[cont * 4 + cl for cont in range(5)] for cl in range(4)]


@cache
def splits(counts: tuple[int, ...], sizes: tuple[int, ...]) -> bool:
    """``counts`` (per card type) split into valid melds of exactly ``sizes`` (AT-10, AT-11;
    the all-ATLAS melds of ``all_wild_melds`` excluded: the runs here use the default)."""
    if not sizes:
        return not any(counts)
    k, rest = sizes[0], sizes[1:]

    def fill(c: list[int], slots: list[int], nat: int) -> bool:
        if not slots:
            return nat > 0 and splits(tuple(c), rest)
        cell = slots[0]
        for t in [*range(3 * cell, 3 * cell + 3), ATLAS]:
            if c[t] > 0:
                c[t] -= 1
                ok = fill(c, slots[1:], nat + (t != ATLAS))
                c[t] += 1
                if ok:
                    return True
        return False

    return any(fill(list(counts), shape, 0) for shape in _shapes(k))


def _sizes(S: np.ndarray, q: int) -> tuple[int, ...]:
    at = ST.P_FD_SIZES + 3 * q
    return tuple(k for k in (5, 4, 3) for _ in range(int(S[at + k - 3])))


def _snapshots(players: int, rules: dict, games: int):
    """(state, deciding seat) of every decision of ``games`` greedy games."""
    sids = np.full(players, GREEDY, np.int64)
    for g in range(games):
        tr = run_trace(11, g, players, sids, rules_array(rules, players), level=1, snap_at=-2)
        for row in tr.snapshot:
            yield row[:S_LEN].copy(), int(row[S_LEN])


def _hidden_of_others(S: np.ndarray, me: int) -> np.ndarray:
    """Per card type: the other seats' hands, their face-down self-melds and the draw pile."""
    n = int(S[ST.P_N])
    out = np.zeros(N_TYPES, np.int64)
    for s in range(n):
        if s != me:
            out += S[ST.HANDS + s * N_TYPES : ST.HANDS + (s + 1) * N_TYPES]
            out += S[ST.SEAT_FD + s * N_TYPES : ST.SEAT_FD + (s + 1) * N_TYPES]
    pos, end = int(S[ST.H_PILE_POS]), int(S[ST.H_PILE_END])
    out += np.bincount(S[ST.PILE + pos : ST.PILE + end], minlength=N_TYPES)
    return out


@pytest.mark.parametrize(
    "players, rules, games",
    [(4, {}, 10), (6, {"self_melds": "any"}, 4)],
    ids=["default-4", "any-6"],
)
def test_issue45_item5_sampled_face_down_melds_are_valid_and_item6_own_ones_kept(
    players, rules, games
):
    """Issue 45 items 5 and 6 (AT-10, AT-11, AT-26): over many determinizations of real
    snapshots, every other seat's sampled face-down cards split into valid melds of its
    recorded sizes and hold no action card; the viewer's own face-down cards are its true ones;
    and the other seats' hands, face-down melds and draw pile together hold exactly the true
    unseen cards (the viewer's own face-down cards are never dealt to another seat)."""
    pool, Dm = np.zeros(256, np.int32), np.zeros(S_LEN, np.int32)
    rng = np.empty(4, np.uint64)
    seed_stream(rng, 2, 0, 2)
    sampled = own = 0
    for S, me in _snapshots(players, rules, games):
        n = int(S[ST.P_N])
        fd_others = sum(int(S[ST.P_FD_CARDS + q]) for q in range(n) if q != me)
        mine = int(S[ST.P_FD_CARDS + me])
        if fd_others == 0 and mine == 0:
            continue
        truth = _hidden_of_others(S, me)
        for _ in range(4):
            assert pimc.determinize(S, me, pool, Dm, rng)
            fd_all = Dm[ST.H_FACE_DOWN : ST.H_FACE_DOWN + N_TYPES]
            assert fd_all[SKIP] == fd_all[REVERSE] == fd_all[TRADE] == 0
            for q in range(n):
                cards = Dm[ST.SEAT_FD + q * N_TYPES : ST.SEAT_FD + (q + 1) * N_TYPES]
                assert cards.sum() == S[ST.P_FD_CARDS + q]
                assert splits(tuple(int(c) for c in cards), _sizes(S, q)), (q, cards.nonzero())
            own_fd = slice(ST.SEAT_FD + me * N_TYPES, ST.SEAT_FD + (me + 1) * N_TYPES)
            assert np.array_equal(Dm[own_fd], S[own_fd])
            assert np.array_equal(_hidden_of_others(Dm, me), truth)
            sampled += fd_others > 0
            own += mine > 0
    assert sampled > 40 and own > 10


def test_issue45_item5_fd_meld_never_takes_an_action_card():
    """Issue 45 item 5 (AT-11): ``_fd_meld`` draws only naturals of the meld's cells and ATLAS,
    and answers -1 when no meld of the size fits (the old code let SKIP / REVERSE / TRADE
    stand in for an ATLAS and fell back to any ``k`` cards)."""
    rng = np.empty(4, np.uint64)
    actions = [SKIP] * 5 + [REVERSE] * 4 + [TRADE] * 4
    for i in range(50):
        seed_stream(rng, 3, i, 2)
        pool = np.array(actions + [0, 1, ATLAS, 40] + [0] * 10, np.int32)
        m = len(actions) + 4
        left = pimc._fd_meld(pool, m, 3, rng)  # the one triple: species 0, 1 (cell 0) + ATLAS
        assert left == m - 3 and sorted(pool[left:m]) == [0, 1, ATLAS]
        pool = np.array(actions + [0, 40] + [0] * 10, np.int32)
        for k in (3, 4, 5):  # no meld fits two naturals of different cells without ATLAS
            assert pimc._fd_meld(pool, len(actions) + 2, k, rng) == -1


def test_issue45_item6_determinize_reads_no_other_hidden_cards():
    """Issue 45 item 6, AT-26 hygiene: scrambling what the viewer may not know — the other
    hands and the draw pile (``_permute_hidden``), the other seats' face-down cards
    (``SEAT_FD``) and the face-down total (``H_FACE_DOWN``) — leaves every determinization
    unchanged; the viewer's own face-down cards are read."""
    pool, D1, D2 = np.zeros(256, np.int32), np.zeros(S_LEN, np.int32), np.zeros(S_LEN, np.int32)
    shuffler = np.random.default_rng(7)
    checked = 0
    rules = {"self_melds": "any"}
    for S, me in _snapshots(4, rules, 3):
        if S[ST.P_FD_CARDS + me] == 0 or S[ST.E_PHASE] == 0:
            continue
        T = _permute_hidden(S, me, shuffler)
        for q in range(4):
            if q != me:
                at = ST.SEAT_FD + q * N_TYPES
                T[at : at + N_TYPES] = shuffler.integers(0, 3, N_TYPES)
        T[ST.H_FACE_DOWN : ST.H_FACE_DOWN + N_TYPES] = shuffler.integers(0, 3, N_TYPES)
        for i in range(3):
            r1, r2 = np.empty(4, np.uint64), np.empty(4, np.uint64)
            seed_stream(r1, 4, checked * 3 + i, 2)
            seed_stream(r2, 4, checked * 3 + i, 2)
            assert pimc.determinize(S, me, pool, D1, r1) and pimc.determinize(T, me, pool, D2, r2)
            assert np.array_equal(D1, D2)
        checked += 1
        if checked >= 40:
            break
    assert checked >= 20
    # the own face-down cards are read: swap one of them with a card of another seat's hand
    # (every count unchanged) and every sample keeps the viewer's new face-down cards, and
    # deals the swapped-out card among the unseen instead
    U = S.copy()
    own = ST.SEAT_FD + me * N_TYPES
    t = int(np.flatnonzero(U[own : own + N_TYPES])[0])
    q = next(
        q
        for q in range(4)
        if q != me and U[ST.HANDS + q * N_TYPES : ST.HANDS + (q + 1) * N_TYPES].sum()
    )
    hand = ST.HANDS + q * N_TYPES
    t2 = int(next(x for x in np.flatnonzero(U[hand : hand + N_TYPES]) if x != t))
    U[own + t] -= 1
    U[own + t2] += 1
    U[hand + t2] -= 1
    U[hand + t] += 1
    for i in range(5):
        r1 = np.empty(4, np.uint64)
        seed_stream(r1, 4, i, 2)
        assert pimc.determinize(U, me, pool, D1, r1)
        assert np.array_equal(D1[own : own + N_TYPES], U[own : own + N_TYPES])
        # the others' hidden cards in the sample are exactly the true ones: t among them, one
        # t2 fewer (it lies face down with the viewer)
        assert np.array_equal(_hidden_of_others(D1, me), _hidden_of_others(U, me))
        assert D1[own + t2] == U[own + t2] and D1[own + t] == U[own + t]


def _end_state(n: int, winner: int, hands: list[list[int]], standing, rounds: int):
    S = ST.new_state()
    ST.reset_round(S, n, 0)
    S[ST.P_RULES : ST.P_RULES + len(rules_array({}, n))] = rules_array({"rounds": rounds}, n)
    S[ST.P_STANDING : ST.P_STANDING + n] = standing
    S[ST.ST_WINNER] = winner
    for s, cards in enumerate(hands):
        h = np.bincount(np.asarray(cards, np.int64), minlength=N_TYPES)
        S[ST.HANDS + s * N_TYPES : ST.HANDS + (s + 1) * N_TYPES] = h
        S[ST.P_SIZES + s] = len(cards)
    return S


def test_issue45_item6_objective_plays_for_the_match_result_in_force():
    """Issue 45 item 6 (AT-25, AT-26 revised 2026-12-06): with ``rounds`` > 1 the objective is
    the match result in force on the public standing plus the round's points; with one round,
    or no points yet, it is the round result, as before."""
    R = 3000  # 1000 * the largest default hand value
    small = [0, 1]  # 2 points left in a hand
    hands = [[], small, small, small]
    win = R * 3 + 3 * 6
    assert pimc.objective(_end_state(4, 0, hands, [0, 0, 0, 0], 1), 0) == win
    assert pimc.objective(_end_state(4, 0, hands, [0, 0, 0, 0], 3), 0) == win  # no points yet
    # seat 1 leads by 100: seat 0's round win (6 points) leaves it behind — a match loss
    assert pimc.objective(_end_state(4, 0, hands, [0, 100, 0, 0], 1), 0) == win
    assert pimc.objective(_end_state(4, 0, hands, [0, 100, 0, 0], 3), 0) == -R + 3 * 6
    # seat 0 leads by 100 and seat 1 wins the round with 4 points: seat 0 keeps the title
    h2 = [small, [], small, [0]]
    lost = -R - 3 * 2
    assert pimc.objective(_end_state(4, 1, h2, [100, 0, 0, 0], 1), 0) == lost
    assert pimc.objective(_end_state(4, 1, h2, [100, 0, 0, 0], 3), 0) == R * 3 - 3 * 2
    # a title shared by two seats: half the pot of the other two
    assert pimc.objective(_end_state(4, 1, h2, [5, 0, 0, 0], 3), 0) == R * 2 // 2 - 3 * 2
    # nobody wins: the standing decides
    assert pimc.objective(_end_state(4, -1, [small] * 4, [0, 0, 0, 0], 3), 0) == 0
    assert pimc.objective(_end_state(4, -1, [small] * 4, [0, 9, 0, 0], 3), 0) == -R


def test_issue45_item6_match_standing_is_public_in_kernel_and_reference():
    """AT-25, AT-26 (revised 2026-12-06): from round 2 the kernel's public block carries every
    seat's points from the earlier rounds (``P_STANDING``), and the reference's ``View`` the
    same ``standing``; round 1 starts at 0."""
    rules = {"rounds": 4}
    sids = np.full(3, GREEDY, np.int64)
    tr = run_trace(5, 2, 3, sids, rules_array(rules, 3), level=1, snap_at=-2)
    pts = tr.seats["points"].reshape(4, 3)
    seen = set()
    for row in tr.snapshot:
        r = int(row[ST.P_ROUND])
        assert list(row[ST.P_STANDING : ST.P_STANDING + 3]) == list(pts[:r].sum(0))
        assert not row[ST.P_STANDING + 3 : ST.PUB_LEN].any()
        seen.add(r)
    assert seen == {0, 1, 2, 3} and pts.sum() > 0
    views: list = []
    rand = atlas.random_chooser(3)

    def chooser(view, dtype, options):
        views.append(view)
        return rand(view, dtype, options)

    m = atlas.play_match(5, 2, 3, chooser, rules)
    for v in views:
        done = m.rounds[: v.round]
        assert v.standing == tuple(sum(o["points"][p] for o in done) for p in range(3))
    assert any(any(v.standing) for v in views)
    assert rules_array(rules, 3)[R_ROUNDS] == 4


def test_issue45_item6_reference_view_shows_own_face_down_cards():
    """AT-26 (revised 2026-12-06): the reference ``View`` of a seat lists the cards of its own
    face-down self-melds, and only its own."""
    views: list = []

    def chooser(view, dtype, options):
        views.append(view)
        return options[-1] if dtype == 1 else options[0]  # lay a self-meld when offered

    atlas.play_match(3, 1, 4, chooser, {"self_melds": "any"})
    laid = [v for v in views if v.own_face_down]
    assert laid
    for v in laid:
        mine = sum(size for q, size in v.face_down if q == v.seat)
        assert len(v.own_face_down) == mine
        assert all(c < N_SPECIES or c == ATLAS for c in v.own_face_down)
