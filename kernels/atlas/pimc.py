"""ATLAS search strategy ``pimc``: perfect-information Monte Carlo over determinizations.

At a **discard** decision (AT-08, the decision that shapes a round most) and at the decisions of
its own TRADE (AT-19: the target, the card to give) the strategy

1. keeps a few *candidate* options: greedy's pick first, then greedy's next choices in its
   order of preference (``ranked``) — at most ``cap``;
2. draws ``samples`` *determinizations* from what AT-26 lets it know: the unseen cards (the
   deck — 204 by default, AT-D2, AT-D3 — minus its own hand, every card shown in melds and
   every face-up discard) are shuffled and dealt to the other seats' hands (their public
   sizes), then to the draw pile (its public size, in a sampled order); whatever is left lies
   in face-down self-melds (AT-26 as revised: their cards are unseen too, so the sample covers
   them);
3. plays every candidate on every determinization (the same ones: common random numbers) and
   the rest of the round with the rollout policy (``greedy`` or ``random`` for every seat); the
   rollout's own random events (reshuffles, blind TRADE picks, AT-19, AT-23) come from a
   stream seeded from the strategy stream, never from the game's events stream (its future is
   hidden);
4. keeps greedy's pick unless another candidate beats it on the same samples by a paired mean
   gain of more than ``z`` standard errors (without this test a search of 8–16 samples chose
   worse than greedy: the round's outcome is noisy); among those, the largest mean gain
   (``kernels/pimc_common.py``).

Every other decision (claims, self-melds, the TRADE take with ``trade_pick=seen``) is greedy's.
Under the default rules (``forced_claims=true``, AT-12) a claim is no choice but the meld.

Objective of the viewer (AT-24): the round result and score —
``1000 * (n - 1) + winner points`` when it wins, ``-1000 - own hand value`` when another seat
wins (AT-05 values it hands over), 0 when nobody wins.

The strategy call carries no rule array, so the strategy id of a pimc seat carries the rule
options the rollouts need with its parameters (``encode`` / ``bind_rules`` / ``decode``).

Scratch memory: the turn loop runs without NRT and may not allocate, so the search works in
the tail of the options buffer, which the driver allocates ``BUF_SIZE`` long. Given a shorter
buffer, ``choose_pimc`` falls back to greedy's pick.
"""

import numpy as np

from kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    GIVE,
    MAX_OPTIONS,
    N_CELLS,
    N_SPECIES,
    N_TYPES,
    NONE,
    PAIR,
    REVERSE,
    SKIP,
    TAKE,
    TARGET,
    TRADE,
)
from kernels.atlas.rules import (
    R_ALL_WILD,
    R_CLAIM_PRIORITY,
    R_CLAIM_TURN,
    R_EXHAUSTED,
    R_FORCED,
    R_LAST_DISCARD,
    R_REVERSE_2P,
    R_SELF_MELDS,
    R_SELF_MELDS_SHOWN,
    R_TRADE_PICK,
    R_TURN_CAP,
    apply_meld,
    claim_key,
    claim_meld_options,
    claim_wins,
    hand_value,
    pairs,
    same_species_claim,
    self_meld_options,
)
from kernels.atlas.state import (
    CELL_OF,
    CELLS,
    H_FIRST,
    H_PILE_END,
    H_PILE_POS,
    HANDS,
    P_CARD,
    P_DECK,
    P_DIR,
    P_DISCARDER,
    P_DISCC,
    P_DRAW,
    P_MELDED,
    P_N,
    P_NDISC,
    P_SEAT,
    P_SIZES,
    P_TAKEN,
    P_TARGET,
    P_TARGET_HAND,
    P_TURN,
    P_TURNS,
    PILE,
    PUB_LEN,
    S_LEN,
    ST_END,
    ST_MELD_OK,
    ST_WINNER,
    add_card,
    draw_card,
    hot_kernel,
    next_seat,
    only_card,
    push_discard,
    remove_card,
    reshuffle,
)
from kernels.atlas.strategies import (
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GREEDY,
    RANDOM,
    choose_in_state,
)
from kernels.pimc_common import (
    MAX_SAMPLES,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    ROLLOUT_GREEDY,
    ROLLOUTS,  # noqa: F401 (re-exported: sim/strategy_params.py reads the kernel module)
    add_paired,
    check_params,
    clear_scores,
    select,
)
from kernels.rng import bounded, next_u64, shuffle

#: Strategy ids at and above this are ``pimc`` (parameters and rule options in the low bits).
PIMC_BASE = 1 << 56
MAX_CAP = 63
N_FLAGS = 8  # rule options R_SELF_MELDS .. R_EXHAUSTED, each 0 / 1
MAX_TURN_CAP = (1 << 20) - 1
_RULE_SHIFT = 17
_CAP_SHIFT = _RULE_SHIFT + N_FLAGS
_Z_SHIFT = _CAP_SHIFT + 20
#: rule options after the 10 first (AT-14 claim_priority, AT-26 self_melds_shown), each 0 / 1
_EXTRA_FLAGS = (R_CLAIM_PRIORITY, R_SELF_MELDS_SHOWN)
_X_SHIFT = _Z_SHIFT + 6


# scratch layout in int32 words after MAX_OPTIONS (int64 views start at even offsets)
_SC_CAND = 0  # int32[64] candidate indices
_SC_SCORE = 64  # int64[64]
_SC_SQ = _SC_SCORE + 128  # int64[64] summed squares
_SC_EV = _SC_SQ + 128  # uint64[4] rollout events stream, uint64[4] its seed per sample
_SC_R = _SC_EV + 16  # int64[16] the rule options (from the id)
_SC_POOL = _SC_R + 32  # int32[256] unseen cards
_SC_D = _SC_POOL + 256  # int32[S_LEN] the determinized state
_SC_W = _SC_D + S_LEN + (S_LEN & 1)  # int32[S_LEN] the rollout state
_SC_OPTS = _SC_W + S_LEN + (S_LEN & 1)  # int32[MAX_OPTIONS] rollout options
_SC_IDX = _SC_OPTS + MAX_OPTIONS  # int32[64] option indices (candidate ranking)
SCRATCH = _SC_IDX + 64
#: length the driver gives the options buffer so that ``pimc`` can run
BUF_SIZE = MAX_OPTIONS + SCRATCH


def encode(samples: int, cap: int, rollout: int, z: float) -> int:
    """The id of ``pimc`` with these parameters (rule options bound later: ``bind_rules``)."""
    z10 = check_params(samples, cap, rollout, z, MAX_CAP)
    return PIMC_BASE + samples + (cap << 10) + (rollout << 16) + (z10 << _Z_SHIFT)


def bind_rules(sids: np.ndarray, rules_arr: np.ndarray) -> np.ndarray:
    """``sids`` with the rule options the rollouts need written into every pimc id."""
    out = np.asarray(sids, np.int64).copy()
    flags = sum(int(rules_arr[i] != 0) << i for i in range(N_FLAGS))
    extra = sum(int(rules_arr[r] != 0) << i for i, r in enumerate(_EXTRA_FLAGS))
    tcap = min(int(rules_arr[R_TURN_CAP]), MAX_TURN_CAP)
    low = (1 << _RULE_SHIFT) - 1
    for i, sid in enumerate(out):
        if sid >= PIMC_BASE:
            z = ((int(sid) - PIMC_BASE) >> _Z_SHIFT) & 63
            out[i] = (
                PIMC_BASE
                + (int(sid) & low)
                + (flags << _RULE_SHIFT)
                + (tcap << _CAP_SHIFT)
                + (z << _Z_SHIFT)
                + (extra << _X_SHIFT)
            )
    return out


@hot_kernel
def decode(sid, R):
    """(samples, cap, rollout, 10 z) of a pimc id; its rule options into ``R`` (int64[>= 9])."""
    p = sid - PIMC_BASE
    for i in range(N_FLAGS):
        R[i] = (p >> (_RULE_SHIFT + i)) & 1
    R[R_TURN_CAP] = (p >> _CAP_SHIFT) & MAX_TURN_CAP
    R[R_CLAIM_PRIORITY] = (p >> _X_SHIFT) & 1
    R[R_SELF_MELDS_SHOWN] = (p >> (_X_SHIFT + 1)) & 1
    return p & 1023, (p >> 10) & 63, (p >> 16) & 1, (p >> _Z_SHIFT) & 63


# --- a round played on by the rollout policy (the driver's turn loop, without tracing) -----


@hot_kernel
def _pick(W, q, dtype, opts, k, sid, rng):
    """The rollout policy's option for seat ``q`` (what the driver's ``decide`` asks)."""
    W[P_SEAT] = q
    if k == 1:
        return opts[0]
    return opts[choose_in_state(W, q, sid, dtype, opts, k, rng)]


@hot_kernel
def _held(W, p, base, opts):
    k = 0
    h = HANDS + p * N_TYPES
    for t in range(N_TYPES):
        if W[h + t] > 0:
            opts[k] = base + t
            k += 1
    return k


@hot_kernel
def _self_melds(W, p, R, sid, rng, opts):
    """AT-07: {NONE} ∪ self-melds until NONE; True when a meld empties the hand (AT-20)."""
    while True:
        opts[0] = NONE
        k = self_meld_options(W, p, R[R_ALL_WILD], opts, 1)
        if k == 1:
            return False
        code = _pick(W, p, DT_SELF, opts, k, sid, rng)
        if code == NONE:
            return False
        apply_meld(W, p, code, -1, R[R_SELF_MELDS_SHOWN], False)  # AT-26 as in the driver
        if W[P_SIZES + p] == 0:
            W[ST_WINNER] = p
            return True


@hot_kernel
def _claims(W, d, x, R, sid, rng, opts):
    """AT-12..14: the claim window on discard ``x`` of seat ``d``; (seat, code) or (-1, 0)."""
    n = W[P_N]
    W[P_DISCARDER] = d
    W[P_CARD] = x
    bkey = 1 << 30
    bq = -1
    bcode = 0
    q = next_seat(W, d)
    for _ in range(n - 1):
        opts[0] = NONE
        k = 1
        if W[P_SIZES + q] == 1:
            if pairs(only_card(W, q), x):
                opts[1] = PAIR
                k = 2
        else:
            k = claim_meld_options(W, q, x, R[R_ALL_WILD], opts, 1)
        if k > 1:
            if R[R_FORCED]:
                opts[0] = opts[k - 1]
                k -= 1
            code = _pick(W, q, DT_CLAIM, opts, k, sid, rng)
            if code != NONE:
                key = claim_key(W, q, d, x, code, claim_wins(W, q, code), R[R_CLAIM_PRIORITY])
                if key < bkey:
                    bkey = key
                    bq = q
                    bcode = code
        q = next_seat(W, q)
    W[P_DISCARDER] = -1
    W[P_CARD] = -1
    return bq, bcode


@hot_kernel
def _trade(W, p, R, sid, rng, ev, opts):
    """AT-19 (blind picks from the rollout's events stream ``ev``)."""
    n = W[P_N]
    opts[0] = NONE
    k = 1
    for s in range(n):
        if s != p and W[P_SIZES + s] > 0:
            opts[k] = TARGET + s
            k += 1
    code = _pick(W, p, DT_TARGET, opts, k, sid, rng)
    _trade_with(W, p, code, R, sid, rng, ev, opts)


@hot_kernel
def _trade_with(W, p, code, R, sid, rng, ev, opts):
    """AT-19 after the target decision ``code`` (NONE: no trade): the take and the give."""
    if code == NONE:
        return
    t = code - TARGET
    W[P_TARGET] = t
    ht = HANDS + t * N_TYPES
    c = -1
    if R[R_TRADE_PICK] == 0:
        kk = bounded(ev, W[P_SIZES + t])
        for ty in range(N_TYPES):
            kk -= W[ht + ty]
            if kk < 0:
                c = ty
                break
    else:
        k = 0
        for ty in range(N_TYPES):
            W[P_TARGET_HAND + ty] = W[ht + ty]
            if W[ht + ty] > 0:
                opts[k] = TAKE + ty
                k += 1
        c = _pick(W, p, DT_TAKE, opts, k, sid, rng) - TAKE
        for ty in range(N_TYPES):
            W[P_TARGET_HAND + ty] = 0
    remove_card(W, t, c)
    add_card(W, p, c)
    W[P_TAKEN] = c
    k = _held(W, p, GIVE, opts)
    _give(W, p, t, _pick(W, p, DT_GIVE, opts, k, sid, rng) - GIVE)


@hot_kernel
def _give(W, p, t, g):
    """AT-19: ``p`` gives card ``g`` to the target ``t``; the trade is over."""
    remove_card(W, p, g)
    add_card(W, t, g)
    W[P_TAKEN] = -1
    W[P_TARGET] = -1


@hot_kernel
def _discard_on(W, p, x, R, sid, rng, ev, opts):
    """Seat ``p`` discards ``x`` (or, with ``x < 0``, chooses one): the rest of the driver's
    discard phase (AT-17..22, §4, ``jump`` turns); returns the next seat, -1 once won."""
    n = W[P_N]
    cur = p
    while True:
        if x < 0:
            if W[P_SIZES + cur] == 1:  # AT-22
                if R[R_LAST_DISCARD]:
                    t = only_card(W, cur)
                    remove_card(W, cur, t)
                    push_discard(W, t)
                    W[ST_WINNER] = cur
                    return -1
                return next_seat(W, cur)
            k = _held(W, cur, DISCARD, opts)
            x = _pick(W, cur, DT_DISCARD, opts, k, sid, rng) - DISCARD
        remove_card(W, cur, x)
        if x == SKIP:
            push_discard(W, x)
            return next_seat(W, next_seat(W, cur))
        if x == REVERSE:
            push_discard(W, x)
            if n == 2:
                return cur if R[R_REVERSE_2P] == 0 else next_seat(W, cur)
            W[P_DIR] = -W[P_DIR]
            return next_seat(W, cur)
        if x == TRADE:
            push_discard(W, x)
            _trade(W, cur, R, sid, rng, ev, opts)
            return next_seat(W, cur)
        q, code = _claims(W, cur, x, R, sid, rng, opts)
        if q < 0:
            push_discard(W, x)
            return next_seat(W, cur)
        if code == PAIR:
            remove_card(W, q, only_card(W, q))
            W[ST_WINNER] = q
            return -1
        apply_meld(W, q, code, x, 1, same_species_claim(W, q, x, code, R[R_CLAIM_PRIORITY]))
        if W[P_SIZES + q] == 0:
            W[ST_WINNER] = q
            return -1
        if R[R_CLAIM_TURN] == 0:
            nx = next_seat(W, cur)
            if nx == q:
                W[ST_MELD_OK] = q
            return nx
        W[P_TURNS] += 1
        W[P_TURN] = q
        if _self_melds(W, q, R, sid, rng, opts):
            return -1
        cur = q
        x = -1


@hot_kernel
def _play_on(W, p, R, sid, rng, ev, opts):
    """Turns (§3) from seat ``p``'s turn until the round ends (winner in ``W[ST_WINNER]``)."""
    cap = R[R_TURN_CAP]
    while p >= 0:
        if W[P_TURNS] >= cap:
            return
        W[P_TURNS] += 1
        W[P_TURN] = p
        held = W[P_SIZES + p]
        h = only_card(W, p) if held == 1 else -1
        if held == 1 and h > ATLAS:  # AT-21
            W[ST_WINNER] = p
            return
        if W[P_DRAW] == 0:  # AT-23
            if R[R_EXHAUSTED] == 0 and W[P_NDISC] > 0:
                reshuffle(W, ev)
            else:
                return
        y = draw_card(W, p)
        if held == 1 and pairs(h, y):
            W[ST_WINNER] = p
            return
        allowed = R[R_SELF_MELDS] == 0 or W[ST_MELD_OK] == p
        W[ST_MELD_OK] = -1
        if allowed and _self_melds(W, p, R, sid, rng, opts):
            return
        p = _discard_on(W, p, -1, R, sid, rng, ev, opts)


@hot_kernel
def objective(W, me):
    """AT-24/AT-05 value of a finished rollout for seat ``me`` (module docstring)."""
    w = W[ST_WINNER]
    if w < 0:
        return 0
    if w == me:
        pts = 0
        for s in range(W[P_N]):
            if s != me:
                pts += hand_value(W, s)
        return 1000 * (W[P_N] - 1) + pts
    return -1000 - hand_value(W, me)


# --- the search ------------------------------------------------------------------------------


@hot_kernel
def determinize(S, me, pool, D, rng):
    """A sample of the hidden state into ``D`` from seat ``me``'s view of ``S`` (AT-26 only).

    ``D`` gets the public block, ``me``'s hand, the seat allowed to self-meld next (public: who
    claimed) and the first player; every other hand, the draw pile and its order are dealt from
    the shuffled unseen cards. Nothing else of ``S`` is read.
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
    h = HANDS + me * N_TYPES
    m = 0
    for t in range(N_TYPES):
        mine = S[h + t]
        D[h + t] = mine
        if t < N_SPECIES and mine > 0:
            D[CELLS + me * N_CELLS + CELL_OF[t]] += mine
        # copies in the deck: 3 per species; the specials' from the design block (AT-D2, AT-D3)
        copies = 3 if t < N_SPECIES else S[P_DECK + t - ATLAS]
        u = copies - mine - S[P_MELDED + t] - S[P_DISCC + t]
        for _ in range(u):
            pool[m] = t
            m += 1
    shuffle(rng, pool, m)  # Fisher-Yates on the strategy stream
    at = 0
    for s in range(n):
        if s == me:
            continue
        if at + S[P_SIZES + s] > m:
            return False
        for _ in range(S[P_SIZES + s]):
            t = pool[at]
            at += 1
            D[HANDS + s * N_TYPES + t] += 1
            if t < N_SPECIES:
                D[CELLS + s * N_CELLS + CELL_OF[t]] += 1
    nd = S[P_DRAW]
    if at + nd > m:
        return False
    for i in range(nd):
        D[PILE + i] = pool[at]
        at += 1
    D[H_PILE_POS] = 0
    D[H_PILE_END] = nd
    return at <= m  # the rest of the pool lies in face-down self-melds


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
    """pimc at seat ``p``'s decision: searched for discards (and the TRADE target and give),
    greedy's pick otherwise.

    Reads of ``S`` only what AT-26 lets ``p`` know (``determinize``); returns an index into
    ``opts[:n]``.
    """
    g = choose_in_state(S, p, GREEDY, dtype, opts, n, rng)
    searched = dtype in (DT_DISCARD, DT_TARGET, DT_GIVE)
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
    R = sc[_SC_R : _SC_R + 32].view(np.int64)
    samples, cap, policy, z10 = decode(sid, R)
    rsid = GREEDY if policy == ROLLOUT_GREEDY else RANDOM
    k = ranked(S, p, dtype, opts, n, g, cap, cand, ropts, idx, rng)
    clear_scores(score, sq, k)
    for _ in range(samples):
        if not determinize(S, p, pool, D, rng):
            return g  # the public counts do not add up (never seen): no search
        for i in range(4):
            ev0[i] = next_u64(rng)
        ev0[0] |= np.uint64(1)  # never the all-zero xoshiro state
        v0 = 0
        for c in range(k):
            for j in range(S_LEN):
                W[j] = D[j]
            for i in range(4):
                ev[i] = ev0[i]
            code = opts[cand[c]]
            if dtype == DT_DISCARD:
                nxt = _discard_on(W, p, code - DISCARD, R, rsid, rng, ev, ropts)
            else:  # AT-19: the rest of the trade, then the next seat's turn
                if dtype == DT_TARGET:
                    _trade_with(W, p, code, R, rsid, rng, ev, ropts)
                else:
                    _give(W, p, W[P_TARGET], code - GIVE)
                nxt = next_seat(W, p)
            if nxt >= 0:
                _play_on(W, nxt, R, rsid, rng, ev, ropts)
            v = objective(W, p)
            if c == 0:
                v0 = v
            else:  # paired with greedy's pick on the same sample
                add_paired(score, sq, c, v, v0)
    return cand[select(score, sq, k, samples, z10)]
