"""ATLAS search strategy ``pimc``: perfect-information Monte Carlo over determinizations.

At a **discard** decision (AT-08, the decision that shapes a round most), at the decisions of
its own TRADE (AT-19: the target, the card to give), at a **self-meld** decision (AT-07: which
meld, or none) and, with ``forced_claims=false`` (AT-12), at a **claim** decision (which meld,
or pass) the strategy

1. keeps a few *candidate* options: greedy's pick first, then greedy's next choices in its
   order of preference (``ranked``) — at most ``cap``;
2. draws ``samples`` *determinizations* from what AT-26 lets it know (``determinize``): the
   unseen cards (the deck — 204 by default, AT-D2, AT-D3 — minus its own hand and its own
   face-down self-melds, every card shown in melds and every face-up discard), which must
   number exactly the other hands, the draw pile and the other seats' face-down self-melds
   (``P_FD_CARDS``); every such meld is drawn from them in a valid shape of its recorded size
   (``P_FD_SIZES``; naturals and ATLAS only, AT-11), the card the seat gave in
   its last TRADE goes to the target's hand while the seat knows it is there (AT-19,
   ``gift``), and the rest is shuffled and dealt to the other seats' hands (their public
   sizes) and the draw pile (its public size, in a sampled order);
3. plays every candidate on every determinization (the same ones: common random numbers) and
   the rest of the round with the rollout policy (``greedy`` or ``random`` for every seat); the
   rollout's own random events (reshuffles, blind TRADE picks, AT-19, AT-23) come from a
   stream seeded from the strategy stream, never from the game's events stream (its future is
   hidden);
4. keeps greedy's pick unless another candidate beats it on the same samples by a paired mean
   gain of more than ``z`` standard errors (without this test a search of 8–16 samples chose
   worse than greedy: the round's outcome is noisy); among those, the largest mean gain
   (``kernels/pimc_common.py``).

Every other decision (the TRADE take with ``trade_pick=seen``; a claim under the default
``forced_claims=true``, AT-12, where the meld must be laid) is greedy's.

Objective of the viewer (``objective``): the round result in force (AT-24) — win, nobody
wins, loss — or, with ``rounds`` > 1, the match result in force on the public match standing
(AT-25, AT-26 revised 2026-12-06), with the AT-05 points as a tie-breaker scaled from the AT-D4
hand values of the design block, so that one step of result outweighs any points whatever the
values.

The rollouts are the turn engine's round (``kernels/atlas/turn.py``: ``legal_moves`` and
``apply_move``, the driver's own), so they play by the rule options in force, which the engine
reads from the state's public block (``P_RULES``) that every determinization copies: this
module reads no rule option. The strategy id carries only the parameters (``encode`` /
``decode``).

Scratch memory: the turn loop runs without NRT and may not allocate, so the search works in
the tail of the options buffer, which the driver allocates ``BUF_SIZE`` long. Given a shorter
buffer, ``choose_pimc`` falls back to greedy's pick.
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TARGET,
    MAX_OPTIONS,
    N_CELLS,
    N_SPECIES,
    N_TYPES,
    NONE,
)
from cardsim.kernels.atlas.engine import (
    gift,
    match_rounds,
    match_total,
    top_total,
    winner_points,
)
from cardsim.kernels.atlas.rules import hand_value
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CELLS,
    E_BCODE,
    E_BKEY,
    E_BQ,
    E_END,
    E_PHASE,
    H_FACE_DOWN,
    H_FIRST,
    H_PILE_END,
    H_PILE_POS,
    HANDS,
    P_CARD,
    P_DECK,
    P_DISCC,
    P_DRAW,
    P_FD_CARDS,
    P_FD_SIZES,
    P_MELDED,
    P_N,
    P_SIZES,
    P_VALUES,
    PILE,
    PUB_LEN,
    S_LEN,
    SEAT_FD,
    ST_END,
    ST_MELD_OK,
    ST_WINNER,
    hot_kernel,
)
from cardsim.kernels.atlas.strategies import GREEDY, RANDOM, choose_in_state
from cardsim.kernels.atlas.turn import _NO_KEY, apply_move, legal_moves
from cardsim.kernels.pimc_common import (
    MAX_SAMPLES,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    ROLLOUT_GREEDY,
    ROLLOUTS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    add_paired,
    check_params,
    clear_scores,
    select,
)
from cardsim.kernels.rng import bounded, next_u64, shuffle

#: Strategy ids at and above this are ``pimc`` (its parameters in the low bits).
PIMC_BASE = 1 << 56
MAX_CAP = 63


# scratch layout in int32 words after MAX_OPTIONS (int64 views start at even offsets)
_SC_CAND = 0  # int32[64] candidate indices
_SC_SCORE = 64  # int64[64]
_SC_SQ = _SC_SCORE + 128  # int64[64] summed squares
_SC_EV = _SC_SQ + 128  # uint64[4] rollout events stream, uint64[4] its seed per sample
_SC_POOL = _SC_EV + 16  # int32[256] unseen cards
_SC_D = _SC_POOL + 256  # int32[S_LEN] the determinized state
_SC_W = _SC_D + S_LEN + (S_LEN & 1)  # int32[S_LEN] the rollout state
_SC_OPTS = _SC_W + S_LEN + (S_LEN & 1)  # int32[MAX_OPTIONS] rollout options
_SC_IDX = _SC_OPTS + MAX_OPTIONS  # int32[64] option indices (candidate ranking)
SCRATCH = _SC_IDX + 64
#: length the driver gives the options buffer so that ``pimc`` can run
BUF_SIZE = MAX_OPTIONS + SCRATCH


def encode(samples: int, cap: int, rollout: int, z: float) -> int:
    """The id of ``pimc`` with these parameters."""
    z10 = check_params(samples, cap, rollout, z, MAX_CAP)
    return PIMC_BASE + samples + (cap << 10) + (rollout << 16) + (z10 << 17)


@hot_kernel
def decode(sid):
    """(samples, cap, rollout, 10 z) of a pimc id."""
    p = sid - PIMC_BASE
    return p & 1023, (p >> 10) & 63, (p >> 16) & 1, (p >> 17) & 63


# --- the rollout: the turn engine's loop with the rollout policy at every seat ----------------


@hot_kernel
def rollout(W, sid, rng, ev, opts, log):
    """Play the round on from ``W`` (in place) to its end, every seat by built-in strategy
    ``sid`` (``rng``: its stream; ``ev``: the rollout's events stream): the turn engine's
    ``legal_moves`` → pick → ``apply_move``, as the driver's ``play_on`` with the strategy of
    every seat. The moves go into ``log`` while it has room (pimc passes an empty one); returns
    how many were played."""
    m = 0
    while True:
        q, kind, n = legal_moves(W, opts, ev)
        if n == 0:
            return m
        code = opts[0] if n == 1 else opts[choose_in_state(W, q, sid, kind, opts, n, rng)]
        if m < log.shape[0]:
            log[m] = code
        m += 1
        apply_move(code, W)


@hot_kernel
def objective(W, me):
    """The result in force for seat ``me`` in a finished rollout, points as tie-breaker.

    One round (``rounds`` 1): the round result (AT-24) — ``(n - 1) * R`` for a win, ``-R`` for
    a loss (another seat went out), 0 when nobody wins (a round is zero-sum: the winner against
    ``n - 1`` seats). A match (``rounds`` > 1, AT-25; the standing is public, AT-26 revised
    2026-12-06): the match result in force after this round, on the standing of the earlier
    rounds (``P_STANDING``) plus this round's points — ``(n - k) * R / k`` when ``me`` is one
    of the ``k`` seats with the highest total (a shared title shares the pot), ``-R``
    otherwise; in the last round that is the match result, in an earlier one the later rounds
    are unknown and the standing they start from stands in for it (with no points yet it is
    the round result). The tie-breaker in both: the AT-05 points (the won hands' values, minus
    the own hand's value on a loss) weighed ``3`` per point, with ``R = 1000 * v`` and ``v``
    the largest AT-D4 hand value of the design block (``P_VALUES``, at least 1). A round's
    cards hold at most ``228 * v`` points, so the tie-breaker spans less than ``0.7 R``: one
    step of result outweighs any points (whatever the AT-D4 values; in a match, between titles
    shared by many seats the steps are smaller), and under the default values (3, 2, 1) a
    round's objective is ``3 * (1000 * (n - 1) + points)``.
    """
    w = W[ST_WINNER]
    n = W[P_N]
    r = 1000 * max(W[P_VALUES], W[P_VALUES + 1], W[P_VALUES + 2], 1)
    tie = 3 * winner_points(W) if w == me else (-3 * hand_value(W, me) if w >= 0 else 0)
    if match_rounds(W) <= 1:
        if w < 0:
            return 0
        return r * (n - 1) + tie if w == me else -r + tie
    best, k = top_total(W)  # AT-25: the totals after this round and how many share the highest
    if match_total(W, me) == best:
        return r * (n - k) // k + tie
    return -r + tie


# --- the search ------------------------------------------------------------------------------


@hot_kernel
def _is(t, cell):
    """Card ``t`` fills a slot of ``cell``: a natural of that cell, or (``cell`` -1) an ATLAS.
    An action card (SKIP, REVERSE, TRADE) never does (AT-11: never in a meld)."""
    return (t == ATLAS) if cell < 0 else (CELL_OF[t] == cell)


@hot_kernel
def _take(pool, m, cell, rng):
    """Move a random card of ``cell`` (-1: an ATLAS) from ``pool[:m]`` to ``pool[m - 1]``;
    False when ``pool[:m]`` holds none."""
    c = 0
    for i in range(m):
        c += _is(pool[i], cell)
    if c == 0:
        return False
    r = bounded(rng, c)
    for i in range(m):
        t = pool[i]
        if _is(t, cell):
            if r == 0:
                pool[i] = pool[m - 1]
                pool[m - 1] = t
                return True
            r -= 1
    return False


@hot_kernel
def _slot_cell(k, loc, j):
    """The cell of slot ``j`` of the meld of ``k`` cards at ``loc`` (AT-10: a triple's cell, a
    quad's continent, a five's class)."""
    if k == 3:
        return loc
    if k == 4:
        return loc * 4 + j
    return j * 4 + loc


@hot_kernel
def _fits(pool, m, k, loc):
    """``pool[:m]`` holds the meld of ``k`` cards at ``loc``: at least one natural (AT-11) and
    an ATLAS for every slot without one (a triple's three slots share one cell)."""
    nat = 0
    wild = 0
    for i in range(m):
        wild += pool[i] == ATLAS
    if k == 3:
        have = 0
        for i in range(m):
            have += CELL_OF[pool[i]] == loc
        nat = min(have, 3)
        return nat > 0 and 3 - nat <= wild
    missing = 0
    for j in range(k):
        cell = _slot_cell(k, loc, j)
        found = False
        for i in range(m):
            if CELL_OF[pool[i]] == cell:
                found = True
                break
        if found:
            nat += 1
        else:
            missing += 1
    return nat > 0 and missing <= wild


@hot_kernel
def _fd_meld(pool, m, k, rng):
    """Take a face-down self-meld of ``k`` cards (AT-10 shapes: a triple of one cell, a quad of
    one continent's four classes, a five of one class's five continents; an ATLAS stands in for
    a missing natural, at least one natural, never an action card: AT-11; the all-ATLAS melds
    of ``all_wild_melds`` are not sampled, pimc reads no rule option) from ``pool[:m]`` to its
    end; returns the new ``m``, or -1 when no shape fits ``pool[:m]``. A random shape among
    those that fit (rejection, 32 tries), else the first that fits from a random start."""
    ns = 20 if k == 3 else (5 if k == 4 else 4)
    loc = -1
    for _ in range(32):
        c = bounded(rng, ns)
        if _fits(pool, m, k, c):
            loc = c
            break
    if loc < 0:
        c = bounded(rng, ns)
        for _ in range(ns):
            if _fits(pool, m, k, c):
                loc = c
                break
            c = c + 1 if c + 1 < ns else 0
    if loc < 0:
        return -1
    left = m
    for j in range(k):  # a natural when one is left, else an ATLAS (_fits: enough of them)
        if not _take(pool, left, _slot_cell(k, loc, j), rng):
            _take(pool, left, -1, rng)
        left -= 1
    return left


@hot_kernel
def _fd_melds(S, me, pool, m, D, rng):
    """The other seats' face-down self-melds (``P_FD_SIZES``: how many of 3, 4, 5 cards) drawn
    from ``pool[:m]`` to its end in valid shapes (``_fd_meld``) and written into ``D``
    (``H_FACE_DOWN``, ``SEAT_FD``); ``me``'s own are known and not drawn. Redrawn from the
    start (up to 16 times) when an earlier meld took cards a later one needed; returns the new
    ``m``, or -1 when no draw fits (the sample is then not taken)."""
    n = S[P_N]
    left = -1
    for _try in range(16):
        left = m
        for q in range(n):
            if q == me:
                continue
            for k in range(3, 6):
                for _meld in range(S[P_FD_SIZES + 3 * q + k - 3]):
                    if left >= 0:
                        left = _fd_meld(pool, left, k, rng)
        if left >= 0:
            break
    if left < 0:
        return -1
    at = m
    for q in range(n):  # the cards were taken seat by seat, meld by meld, from the end
        if q == me:
            continue
        for _ in range(S[P_FD_CARDS + q]):
            at -= 1
            t = pool[at]
            D[H_FACE_DOWN + t] += 1
            D[SEAT_FD + q * N_TYPES + t] += 1
    return left


@hot_kernel
def determinize(S, me, pool, D, rng):
    """A sample of the hidden state into ``D`` from seat ``me``'s view of ``S`` (AT-26 only).

    ``D`` gets the public block (the rule options in force and the match standing included,
    ``P_RULES``, ``P_STANDING``), ``me``'s hand and the cards of ``me``'s own face-down
    self-melds (``SEAT_FD``: it laid them, AT-26 revised 2026-12-06), the seat allowed to
    self-meld next (public: who claimed), the first player and the turn engine's block (the
    phase: whose decision of which kind) — at a claim decision with the best claim so far
    cleared (the window is simultaneous, §4: ``me`` has not seen the earlier seats' answers, so
    the sample treats them as passes). The unseen cards (the deck less ``me``'s hand, ``me``'s
    face-down melds, the shown melds, the face-up discards and a claim window's card) must
    number exactly the other hands, the draw pile and the other seats' face-down self-melds
    (``P_FD_CARDS``), and ``me``'s own face-down cards its ``P_FD_CARDS``, else no sample
    (False). First every other seat's face-down self-meld
    (``P_FD_SIZES``: how many of 3, 4, 5 cards) is drawn from them in a valid shape
    (``_fd_melds``; into ``H_FACE_DOWN``), then the rest is shuffled and dealt to the other
    hands (their public sizes) and the draw pile (its size, in a sampled order). Nothing else
    of ``S`` is read but ``gift`` (what ``me`` knows of the card it gave in a TRADE, AT-19):
    that card goes to the target's hand before the deal. ``me``'s own face-down cards are
    never dealt to another seat.
    """
    n = S[P_N]
    for j in range(S_LEN):
        D[j] = 0
    for j in range(PUB_LEN):
        D[j] = S[j]
    D[ST_WINNER] = -1
    D[ST_END] = -1
    D[ST_MELD_OK] = S[ST_MELD_OK]
    D[H_FIRST] = S[H_FIRST]
    for j in range(E_PHASE, E_END):
        D[j] = S[j]
    if S[P_CARD] >= 0:  # a claim window is simultaneous: the earlier claims are not seen
        D[E_BKEY] = _NO_KEY
        D[E_BQ] = -1
        D[E_BCODE] = 0
    h = HANDS + me * N_TYPES
    fd = SEAT_FD + me * N_TYPES
    m = 0
    for t in range(N_TYPES):
        mine = S[h + t]
        D[h + t] = mine
        if t < N_SPECIES and mine > 0:
            D[CELLS + me * N_CELLS + CELL_OF[t]] += mine
        own = S[fd + t]  # AT-26: me laid its face-down melds, it knows their cards
        D[fd + t] = own
        D[H_FACE_DOWN + t] += own
        # copies in the deck: 3 per species; the specials' from the design block (AT-D2, AT-D3)
        copies = 3 if t < N_SPECIES else S[P_DECK + t - ATLAS]
        u = copies - mine - own - S[P_MELDED + t] - S[P_DISCC + t]
        u -= 1 if t == S[P_CARD] else 0  # a claim window's discard is seen, in no pile yet
        for _ in range(u):
            pool[m] = t
            m += 1
    need = S[P_DRAW]
    for s in range(n):
        if s != me:
            need += S[P_FD_CARDS + s] + S[P_SIZES + s]
    owned = 0
    for t in range(N_TYPES):
        owned += S[fd + t]
    if need != m or owned != S[P_FD_CARDS + me]:
        return False
    left = m
    gt, gc = gift(S, me)
    if gt >= 0:  # AT-19: the card me gave is still in the target's hand
        for i in range(m):
            if pool[i] == gc:
                pool[i] = pool[m - 1]
                pool[m - 1] = gc
                left = m - 1
                break
        if left == m:
            gt = -1  # not among the unseen cards (never happens): no constraint
    left = _fd_melds(S, me, pool, left, D, rng)  # AT-26: the others', of their recorded sizes
    if left < 0:
        return False
    if gt >= 0:
        D[HANDS + gt * N_TYPES + gc] += 1
        if gc < N_SPECIES:
            D[CELLS + gt * N_CELLS + CELL_OF[gc]] += 1
    shuffle(rng, pool, left)  # Fisher-Yates on the strategy stream
    at = 0
    for s in range(n):
        if s == me:
            continue
        for _ in range(S[P_SIZES + s] - (1 if s == gt else 0)):
            t = pool[at]
            at += 1
            D[HANDS + s * N_TYPES + t] += 1
            if t < N_SPECIES:
                D[CELLS + s * N_CELLS + CELL_OF[t]] += 1
    nd = S[P_DRAW]
    for i in range(nd):
        D[PILE + i] = pool[at]
        at += 1
    D[H_PILE_POS] = 0
    D[H_PILE_END] = nd
    return True


@hot_kernel
def draw_sample(S, me, pool, D, ev0, rng):
    """One determinization ``D`` of what seat ``me`` may know (``determinize``) and the seed
    ``ev0`` of its rule-events stream; False when the public counts do not add up."""
    if not determinize(S, me, pool, D, rng):
        return False
    for i in range(4):
        ev0[i] = next_u64(rng)
    ev0[0] |= np.uint64(1)  # never the all-zero xoshiro state
    return True


@hot_kernel
def restart(W, D, ev, ev0):
    """The working state ``W`` and events stream ``ev`` back at the sample's start (every
    candidate is played on the same sample and the same events: paired)."""
    for j in range(S_LEN):
        W[j] = D[j]
    for i in range(4):
        ev[i] = ev0[i]


@hot_kernel
def ranked(S, p, dtype, opts, n, g, cap, cand, rest, idx, rng):
    """Up to ``cap`` candidate indices into ``opts[:n]``: greedy's pick ``g``, then greedy's
    next choices once the earlier ones are taken away (its order of preference)."""
    cand[0] = g
    k = 1
    m = 0
    for i in range(n):
        if i != g:
            rest[m] = opts[i]
            idx[m] = i
            m += 1
    while k < cap and m > 0:
        j = choose_in_state(S, p, GREEDY, dtype, rest, m, rng) if m > 1 else 0
        cand[k] = idx[j]
        k += 1
        for a in range(j, m - 1):  # keep the order: greedy breaks ties by position
            rest[a] = rest[a + 1]
            idx[a] = idx[a + 1]
        m -= 1
    return k


@hot_kernel
def choose_pimc(S, p, sid, dtype, opts, n, rng):
    """pimc at seat ``p``'s decision: searched for discards, self-melds, the TRADE target and
    give, and claims when they are optional (``forced_claims=false``); greedy's pick otherwise.

    Reads of ``S`` only what AT-26 lets ``p`` know (``determinize``); returns an index into
    ``opts[:n]``.
    """
    g = choose_in_state(S, p, GREEDY, dtype, opts, n, rng)
    # a claim is searched when it may be passed (NONE offered: forced_claims=false, AT-12)
    searched = dtype in (DT_DISCARD, DT_TARGET, DT_GIVE, DT_SELF) or (
        dtype == DT_CLAIM and opts[0] == NONE
    )
    if opts.shape[0] < BUF_SIZE or not searched:
        return g
    sc = opts[MAX_OPTIONS:]
    cand = sc[_SC_CAND : _SC_CAND + 64]
    score = sc[_SC_SCORE : _SC_SCORE + 128].view(np.int64)
    sq = sc[_SC_SQ : _SC_SQ + 128].view(np.int64)
    ev = sc[_SC_EV : _SC_EV + 8].view(np.uint64)
    ev0 = sc[_SC_EV + 8 : _SC_EV + 16].view(np.uint64)
    pool = sc[_SC_POOL : _SC_POOL + 256]
    D = sc[_SC_D : _SC_D + S_LEN]
    W = sc[_SC_W : _SC_W + S_LEN]
    ropts = sc[_SC_OPTS : _SC_OPTS + MAX_OPTIONS]
    idx = sc[_SC_IDX : _SC_IDX + 64]
    log = sc[0:0]  # the rollouts' moves are not kept
    samples, cap, policy, z10 = decode(sid)
    rsid = GREEDY if policy == ROLLOUT_GREEDY else RANDOM
    k = ranked(S, p, dtype, opts, n, g, cap, cand, ropts, idx, rng)
    clear_scores(score, sq, k)
    for _ in range(samples):
        if not draw_sample(S, p, pool, D, ev0, rng):
            return g  # the public counts do not add up (never seen): no search
        v0 = 0
        for c in range(k):
            restart(W, D, ev, ev0)
            apply_move(opts[cand[c]], W)  # the candidate, then the round to its end
            rollout(W, rsid, rng, ev, ropts, log)
            v = objective(W, p)
            if c == 0:
                v0 = v
            else:  # paired with greedy's pick on the same sample
                add_paired(score, sq, c, v, v0)
    return cand[select(score, sq, k, samples, z10)]
