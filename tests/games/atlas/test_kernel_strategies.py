"""Built-in strategies: AT-26 information (hidden cards never change a choice) and behaviour."""

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas import strategies as SG
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    GIVE,
    NONE,
    QUAD,
    SKIP,
    TARGET,
    TRIPLE,
    pack_meld,
)
from cardsim.kernels.atlas.pimc import PIMC_BASE
from cardsim.kernels.rng import new_stream
from cardsim.sim.games.atlas import ENGINE, rules_array

from tests.games.atlas.test_kernel_rules import make_state, sp


def perturb_hidden(S, p, gen):
    """Redeal every card ``p`` cannot see: other hands (same sizes), the draw pile order and the
    cards of face-down self-melds (AT-26: only their number is public)."""
    T = S.copy()
    n = S[ST.P_N]
    others = [q for q in range(n) if q != p]
    pool = []
    for q in others:
        h = S[ST.HANDS + 64 * q : ST.HANDS + 64 * q + 64]
        pool += [t for t in range(64) for _ in range(h[t])]
    a, b = S[ST.H_PILE_POS], S[ST.H_PILE_END]
    pool += list(S[ST.PILE + a : ST.PILE + b])
    fd = S[ST.H_FACE_DOWN : ST.H_FACE_DOWN + 64]
    pool += [t for t in range(64) for _ in range(fd[t])]
    pool = gen.permutation(np.array(pool, np.int32))
    i = 0
    for q in others:
        T[ST.HANDS + 64 * q : ST.HANDS + 64 * q + 64] = 0
        T[ST.CELLS + 20 * q : ST.CELLS + 20 * q + 20] = 0
        size = S[ST.P_SIZES + q]
        T[ST.P_SIZES + q] = 0
        for t in pool[i : i + size]:
            ST.add_card(T, q, t)
        i += size
    n_fd = int(fd.sum())
    T[ST.H_FACE_DOWN : ST.H_FACE_DOWN + 64] = np.bincount(pool[i : i + n_fd], minlength=64)
    T[ST.PILE + a : ST.PILE + b] = pool[i + n_fd :]
    return T


@pytest.mark.parametrize("sid", [SG.RANDOM, SG.GREEDY, SG.CAREFUL])
@pytest.mark.parametrize(
    "n,rule", [(3, {}), (4, {"trade_pick": "seen"}), (6, {}), (4, {"self_melds_shown": True})]
)
def test_at26_hidden_cards_never_change_a_choice(sid, n, rule):
    """Redealing what a seat cannot see never changes its choice, face-down self-melds (AT-26
    default) included: their cards are redealt with the other hidden cards. (``P_MELDED`` counts
    shown cards only; test_revised_rulings checks it against the reference View.)"""
    gen = np.random.default_rng(5)
    R = rules_array(rule)
    sids = np.full(n, sid, np.int64)
    changed = checked = 0
    for gi in range(4):
        tr = D.run_trace(3, gi, n, sids, R, level=1, snap_at=-2)
        for k in range(0, len(tr.decisions)):
            row = tr.snapshot[k]
            S = row[: ST.S_LEN].copy()
            p, dtype, m = (int(v) for v in row[ST.S_LEN : ST.S_LEN + 3])
            if m < 2:
                continue
            opts = row[ST.S_LEN + 4 : ST.S_LEN + 4 + m].copy()
            if dtype == SG.DT_TAKE:  # under `seen` the target's hand is part of the view
                continue
            rng = new_stream(np.uint64(k), gi, 2)
            want = SG.choose_in_state(S, p, sid, dtype, opts, m, rng.copy())
            for _ in range(2):
                T = perturb_hidden(S, p, gen)
                changed += not np.array_equal(T, S)
                assert SG.choose_in_state(T, p, sid, dtype, opts, m, rng.copy()) == want
            checked += 1
    assert checked > 50 and changed > checked


def test_strategy_ids_and_descriptions():
    names = [(s.name, s.id) for s in ENGINE.strategies[:3]]
    assert names == [("random", 0), ("greedy", 1), ("careful", 2)]
    # the levels (kernels/levels.py), then the searches (kernels/atlas/pimc.py, ismcts.py)
    names = [s.name for s in ENGINE.strategies[3:]]
    assert names == ["greedy:eps", "soft", "learned", "pimc", "ismcts"]
    assert PIMC_BASE <= ENGINE.strategies[6].id < ENGINE.strategies[7].id < ENGINE.strategies[3].id
    assert ENGINE.strategies[5].id == -1  # learned: its id is its weights' row, given on use
    assert all(len(s.description) > 20 for s in ENGINE.strategies)


def _choose(sid, dtype, S, p, opts):
    opts = np.array(opts, np.int32)
    S[ST.P_SEAT] = p
    return SG.choose_in_state(S, p, sid, dtype, opts, len(opts), new_stream(np.uint64(1), 0, 2))


@pytest.mark.parametrize("sid", [SG.GREEDY, SG.CAREFUL])
def test_greedy_melds_largest_first_and_keeps_atlas(sid):
    S = make_state(3, {0: [ATLAS, 1, 2, 3], 1: [5], 2: [6]})
    tri = int(pack_meld(TRIPLE, 0, 1))
    quad = int(pack_meld(QUAD, 0, 1))
    quad_nat = int(pack_meld(QUAD, 0, 0))
    assert _choose(sid, SG.DT_SELF, S, 0, [NONE, tri, quad, quad_nat]) == 3
    assert _choose(sid, SG.DT_CLAIM, S, 0, [NONE, tri]) == 1
    # discard: never the ATLAS while a matching card can go
    hand = [ATLAS, 1, 2, 40]
    S = make_state(3, {0: hand, 1: [5], 2: [6]})
    opts = [DISCARD + t for t in sorted(set(hand))]
    assert opts[_choose(sid, SG.DT_DISCARD, S, 0, opts)] == DISCARD + 40


@pytest.mark.parametrize("sid", [SG.GREEDY, SG.CAREFUL])
def test_greedy_aims_actions_at_the_player_closest_to_winning(sid):
    # next seat (1) holds 2 cards, the others more: SKIP it
    S = make_state(4, {0: [SKIP, 1, 2, 40, 41], 1: [7, 8], 2: [9, 10, 11], 3: [12, 13, 14]})
    opts = [DISCARD + t for t in (1, 2, 40, 41, SKIP)]
    assert opts[_choose(sid, SG.DT_DISCARD, S, 0, opts)] == DISCARD + SKIP
    # TRADE target: the opponent with the fewest cards
    S = make_state(4, {0: [1, 2], 1: [7, 8, 9], 2: [9], 3: [12, 13, 14]})
    opts = [NONE] + [TARGET + s for s in (1, 2, 3)]
    assert opts[_choose(sid, SG.DT_TARGET, S, 0, opts)] == TARGET + 2
    # never give away the ATLAS
    S = make_state(4, {0: [ATLAS, 1, 44], 1: [7, 8, 9], 2: [9], 3: [12, 13, 14]})
    opts = [GIVE + t for t in (1, 44, ATLAS)]
    assert opts[_choose(sid, SG.DT_GIVE, S, 0, opts)] != GIVE + ATLAS


def test_careful_avoids_feeding_a_last_card_player():
    # seat 1 holds one card; the species of card a is unseen (could pair), card b's copies are all
    # visible (two melded, one in our hand): careful discards b, greedy has no reason to prefer it
    a, b = sp(0, 0, 0), sp(3, 2, 1)
    S = make_state(3, {0: [a, b, 50], 1: [30], 2: [6, 7, 8, 9]})
    S[ST.P_MELDED + b] = 2
    S[ST.P_MELDED + 50] = 2
    opts = [DISCARD + t for t in (a, b, 50)]
    assert opts[_choose(SG.CAREFUL, SG.DT_DISCARD, S, 0, opts)] in (DISCARD + b, DISCARD + 50)
    assert _choose(SG.CAREFUL, SG.DT_DISCARD, S, 0, opts) != 0


def test_strategies_differ_in_results():
    from cardsim.sim.game import RunConfig

    wins = {}
    for seats in (
        ("greedy", "random", "random", "random"),
        ("careful", "random", "random", "random"),
    ):
        g, s = ENGINE.play_chunk(RunConfig("atlas", 4, seats, {}, 1, 400), 0, 400)
        wins[seats[0]] = s.filter(s["seat"] == 0)["won"].mean()
    assert wins["greedy"] > 0.4 and wins["careful"] > 0.4  # far above random's 1/4
