"""ATLAS match engine: the one place where a match (AT-25 rounds) is played, over the turn engine.

The round is the turn engine's (``kernels/atlas/turn.py``: the pending decision, its options, the
move and the automatic steps up to the next decision). This module adds the match once, and
every caller plays through it: the driver (``kernels/atlas/driver.py`` ``play_match``, also
for replays), the ``py:`` adapter's kernel mirror (``sim/games/atlas/adapter.py``), the Python
:class:`~cardsim.sim.engine.Match` (``sim/games/atlas/match.py``) and the search strategies'
objective (``kernels/atlas/pimc.py``: the match standing). The match state lives in the state
array ``S`` (round ``P_ROUND``, its first player ``H_FIRST``, the standing ``P_STANDING``, the
rule options ``P_RULES``) and in the match's streams ``rngs`` (rows ``DEAL`` and ``EVENTS``:
streams 0 and 1 of (root seed, game index), as in ``cardsim run``)::

    new_match(S, n, R, root, game_index, rngs)      # round 0 dealt, seat 0 moves first
    seat, kind, k = legal(S, R, opts, rngs)         # the pending decision: opts[:k]
    while True:
        if k == 0:                                  # a round is over: its outcome is in S
            record(S)                               # (optional: the driver's tables)
            if is_over(S):
                break                               # returns(S, out): the match score
            seat, kind, k = legal(S, R, opts, rngs) # deals the next round (AT-25)
            continue
        seat, kind, k = apply(opts[i], S, opts, rngs)

``apply`` plays the chosen option and the automatic steps up to the next decision; ``k = 0``
is its status "the round is over" (``round_over``), when its outcome (``ST_*``, ``ST_WINNER``,
``winner_points``) can be read before ``legal`` deals the next round with the next first
player and the finished round's points in the standing (``next_round``). The rule options
array ``R`` is needed only to deal.

What a seat may know (AT-26, revised 2026-12-06) is ``view``: the public block (the
discards, the shown melds, the face-down melds' counts and sizes, hand sizes, direction, the
draw pile's size, the match standing, the rule options in force), its own hand, the cards of
its own face-down self-melds and of its last TRADE gift while it knows where it is (AT-19) —
never another seat's hand or face-down melds, never the order of the draw pile.

Action ids (``action_id`` / ``action_of``): one dense id per (decision kind, option code), the
same whatever the state (docs/atlas-protocol.md, "Action ids").
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    DISCARD,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    FIVE,
    GIVE,
    N_CELLS,
    N_CLASSES,
    N_CONTINENTS,
    N_TYPES,
    NONE,
    PAIR,
    QUAD,
    TAKE,
    TARGET,
    TRIPLE,
)
from cardsim.kernels.atlas.rules import R_ROUNDS, hand_value
from cardsim.kernels.atlas.state import (
    E_CUR,
    E_PHASE,
    H_FIRST,
    HANDS,
    MAX_PLAYERS,
    P_DISCC,
    P_FD_CARDS,
    P_MELDED,
    P_N,
    P_ROUND,
    P_RULES,
    P_STANDING,
    P_TAKEN,
    P_TARGET,
    P_TARGET_HAND,
    PUB_LEN,
    SEAT_FD,
    SEAT_GIFT,
    ST_DEC,
    ST_END,
    ST_MELD_OK,
    ST_RESHUFFLES,
    ST_TRADES,
    ST_WINNER,
    hot_kernel,
    inline_kernel,
)
from cardsim.kernels.atlas.turn import PH_OVER, PH_TAKE, apply_move, legal_moves, new_round
from cardsim.kernels.rng import STREAM_DEAL, STREAM_EVENTS, seed_stream

#: Rows of the match's streams ``rngs`` (uint64[2 or more, 4]): the deal and the events stream.
DEAL = STREAM_DEAL
EVENTS = STREAM_EVENTS

# The turn engine's two calls inlined into ``legal`` / ``apply``, which the driver inlines in
# turn into its loop (``inline_kernel(legal.py_func)``: a call per decision with its array
# arguments costs more than its share of a greedy decision, docs/performance.md). Only ever
# inlined: they share their Python function, and so Numba's cache entries, with
# turn.legal_moves / apply_move.
_legal_moves = inline_kernel(legal_moves.py_func)
_apply_move = inline_kernel(apply_move.py_func)


# --- the match level (AT-24, AT-25) ----------------------------------------------------------


@hot_kernel
def match_rounds(S):
    """The rounds of the match in force (AT-25; public, ``P_RULES``)."""
    return S[P_RULES + R_ROUNDS]


@hot_kernel
def winner_points(S):
    """AT-24: the points the round's winner receives (the other hands' AT-05 values); 0 when
    nobody won (or the round is still on)."""
    w = S[ST_WINNER]
    pts = 0
    if w >= 0:
        for s in range(S[P_N]):
            if s != w:
                pts += hand_value(S, s)
    return pts


@hot_kernel
def round_score(S, s):
    """AT-24: seat ``s``'s points of the round in ``S``: ``winner_points`` for the winner, else 0
    (the tables' ``points``)."""
    return winner_points(S) if s == S[ST_WINNER] else 0


@hot_kernel
def standing(pub, s):
    """AT-25: seat ``s``'s points from the earlier rounds of the match (public, AT-26: a
    strategy's ``pub`` block holds them)."""
    return pub[P_STANDING + s]


@hot_kernel
def match_total(S, s):
    """AT-25: seat ``s``'s match total so far: the standing of the earlier rounds plus this
    round's points (``round_score``; 0 while the round is on)."""
    return standing(S, s) + round_score(S, s)


@hot_kernel
def top_total(S):
    """AT-25: the highest ``match_total`` and how many seats share it (equal totals share the
    title)."""
    best = -(1 << 30)
    k = 0
    for s in range(S[P_N]):
        t = match_total(S, s)
        if t > best:
            best = t
            k = 1
        elif t == best:
            k += 1
    return best, k


@hot_kernel
def next_first(S):
    """AT-25: the first player of the round after the one in ``S``: its winner, or after a round
    without a winner the seat after its first player."""
    w = S[ST_WINNER]
    if w >= 0:
        return np.int64(w)
    f = S[H_FIRST] + 1
    return np.int64(0 if f >= S[P_N] else f)


@hot_kernel
def round_over(S):
    """Whether the round in ``S`` is over (``apply`` / ``legal`` answered no decision)."""
    return S[E_PHASE] == PH_OVER


@hot_kernel
def is_over(S):
    """Whether the match is over: its last round (AT-25) is over."""
    return S[E_PHASE] == PH_OVER and S[P_ROUND] + 1 >= match_rounds(S)


@hot_kernel
def next_round(S, R, deal_rng):
    """AT-25: after a finished round that is not the match's last, the next one, dealt from the
    deal stream and begun by ``next_first``; the finished round's points join the standing
    (``P_STANDING``, public: AT-26 revised 2026-12-06)."""
    w = S[ST_WINNER]
    pts = winner_points(S)
    new_round(S, np.int64(S[P_N]), np.int64(S[P_ROUND] + 1), next_first(S), R, deal_rng)
    if w >= 0:
        S[P_STANDING + w] += pts


# --- the contract ----------------------------------------------------------------------------


@hot_kernel
def new_match(S, n, R, root, game_index, rngs):
    """Match ``game_index`` of a run with root seed ``root``: ``n`` players, rule options ``R``
    (``cardsim.kernels.atlas.rules.R_*``); the deal and events streams seeded into ``rngs``, round
    0 dealt (§1) and begun by seat 0. Every other word of ``S`` is reset (``ST_DEC`` too)."""
    seed_stream(rngs[DEAL], root, game_index, STREAM_DEAL)
    seed_stream(rngs[EVENTS], root, game_index, STREAM_EVENTS)
    S[ST_DEC] = 0
    new_round(S, n, np.int64(0), np.int64(0), R, rngs[DEAL])  # int64: one compile of new_round


@hot_kernel
def legal(S, R, opts, rngs):
    """The pending decision ``(seat, kind, k)``, its options in ``opts[:k]``: the automatic steps
    up to it (events stream); at a finished round that is not the match's last, the next round
    is dealt first (``next_round``). ``k = 0``: the round is over (and the match, ``is_over``).
    At a pending decision it changes nothing but ``opts``."""
    if S[E_PHASE] == PH_OVER and S[P_ROUND] + 1 < match_rounds(S):
        next_round(S, R, rngs[DEAL])
    return _legal_moves(S, opts, rngs[EVENTS])


@hot_kernel
def apply(code, S, opts, rngs):
    """The deciding seat's choice ``code`` (one of ``legal``'s options), then the automatic steps
    up to the next decision, as ``legal``'s ``(seat, kind, k)``; ``k = 0`` is the status "the
    round is over": its outcome stays in ``S`` until ``legal`` deals the next round."""
    _apply_move(code, S)
    return _legal_moves(S, opts, rngs[EVENTS])


@hot_kernel
def returns(S, out):
    """The match score per seat into ``out[:n]`` (float64): every seat's points over the rounds
    played (AT-24, AT-25: the sum of the tables' ``points``), the round in ``S`` included."""
    for s in range(S[P_N]):
        out[s] = match_total(S, s)


# --- what a seat may know (AT-26) ------------------------------------------------------------


@hot_kernel
def gift(S, me):
    """(target, card) of the card ``me`` gave in its last TRADE this round while ``me`` knows
    the target still holds it (AT-19): since then no copy of that card was shown (discarded or
    melded face up, by anyone), the target laid no face-down meld, and no TRADE and no
    reshuffle happened (``SEAT_GIFT``, written by the turn engine); (-1, -1) otherwise."""
    g = SEAT_GIFT + 6 * me
    t = S[g] - 1
    c = S[g + 1]
    if t < 0 or t == me or S[P_DISCC + c] + S[P_MELDED + c] != S[g + 2]:
        return -1, -1
    if S[P_FD_CARDS + t] != S[g + 3] or S[ST_TRADES] != S[g + 4] or S[ST_RESHUFFLES] != S[g + 5]:
        return -1, -1
    return t, c


#: ``view``'s layout after the public block (int32 words; docs/atlas-protocol.md)
V_SEAT = PUB_LEN  # the viewing seat
V_HAND = V_SEAT + 1  # its hand: 64 counts by card type
V_OWN_FD = V_HAND + N_TYPES  # the cards of its own face-down self-melds: 64 counts
V_GIFT = V_OWN_FD + N_TYPES  # its last TRADE gift while known (AT-19): target, card, or -1, -1
V_PHASE = V_GIFT + 2  # the turn engine's phase (PH_* of kernels/atlas/turn.py)
V_CUR = V_PHASE + 1  # the seat whose phase it is
V_FIRST = V_CUR + 1  # the round's first player
V_MELD_OK = V_FIRST + 1  # the seat allowed to self-meld next under after_claim_only, or -1
V_WINNER = V_MELD_OK + 1  # the round's winner once it is over, else -1
V_END = V_WINNER + 1  # how it ended (END_*), -1 while it is on
VIEW_LEN = V_END + 1


@hot_kernel
def view(S, seat, out):
    """What ``seat`` may know now (AT-26, revised 2026-12-06) into ``out[:VIEW_LEN]`` (int32).

    The public block, except a TRADE's secrets: the target's hand of a ``trade_pick=seen``
    TAKE (``P_TARGET_HAND``) only for the trader, the card taken (``P_TAKEN``) only for the
    trader and its target; then the seat, its hand, its own face-down self-melds' cards, its
    TRADE gift while known (``gift``), the phase, whose phase, the first player, the seat
    allowed to self-meld next, and the round's winner and end. Nothing else of ``S``: no other
    hand or face-down meld, not the draw pile's order."""
    for j in range(PUB_LEN):
        out[j] = S[j]
    cur = S[E_CUR]
    if S[E_PHASE] != PH_TAKE or seat != cur:
        for t in range(N_TYPES):
            out[P_TARGET_HAND + t] = 0
    if seat != cur and seat != S[P_TARGET]:
        out[P_TAKEN] = -1
    out[V_SEAT] = seat
    h = HANDS + seat * N_TYPES
    fd = SEAT_FD + seat * N_TYPES
    for t in range(N_TYPES):
        out[V_HAND + t] = S[h + t]
        out[V_OWN_FD + t] = S[fd + t]
    gt, gc = gift(S, seat)
    out[V_GIFT] = gt
    out[V_GIFT + 1] = gc
    out[V_PHASE] = S[E_PHASE]
    out[V_CUR] = cur
    out[V_FIRST] = S[H_FIRST]
    out[V_MELD_OK] = S[ST_MELD_OK]
    out[V_WINNER] = S[ST_WINNER]
    out[V_END] = S[ST_END]


# --- action ids ------------------------------------------------------------------------------

#: Meld codes (``kind | loc << 2 | wild << 7``, encoding.py) by dense index: triples (20 cells
#: × ATLAS count 0..3), quads (5 continents × 16 wild masks), fives (4 classes × 32 masks).
_TRIPLE_WILDS = 4  # a triple's ATLAS count: 0..2, or 3 (all-wild, AT-11 ``all_wild_melds``)
_QUAD_WILDS = 1 << N_CLASSES  # a quad's wild mask: one bit per class
_FIVE_WILDS = 1 << N_CONTINENTS  # a five's wild mask: one bit per continent
_TRIPLE_IDS = N_CELLS * _TRIPLE_WILDS
_QUAD_IDS = N_CONTINENTS * _QUAD_WILDS
_FIVE_IDS = N_CLASSES * _FIVE_WILDS
N_MELD_IDS = _TRIPLE_IDS + _QUAD_IDS + _FIVE_IDS
#: First action id of each decision kind (``DT_*`` order) and the size of the space: a claim
#: (NONE, every meld, PAIR), a self-meld (NONE, every meld), a discard (a card type), a TRADE
#: target (NONE, a seat), a TRADE take and give (a card type).
A_CLAIM = 0
A_SELF = A_CLAIM + 1 + N_MELD_IDS + 1
A_DISCARD = A_SELF + 1 + N_MELD_IDS
A_TARGET = A_DISCARD + N_TYPES
A_TAKE = A_TARGET + 1 + MAX_PLAYERS
A_GIVE = A_TAKE + N_TYPES
N_ACTIONS = A_GIVE + N_TYPES


@hot_kernel
def _meld_index(code):
    kind = code & 3
    loc = (code >> 2) & 31
    wild = (code >> 7) & 31
    if kind == TRIPLE:
        return loc * _TRIPLE_WILDS + wild
    if kind == QUAD:
        return _TRIPLE_IDS + loc * _QUAD_WILDS + wild
    return _TRIPLE_IDS + _QUAD_IDS + loc * _FIVE_WILDS + wild


@hot_kernel
def _meld_code(i):
    if i < _TRIPLE_IDS:
        kind, loc, wild = TRIPLE, i // _TRIPLE_WILDS, i % _TRIPLE_WILDS
    elif i < _TRIPLE_IDS + _QUAD_IDS:
        i -= _TRIPLE_IDS
        kind, loc, wild = QUAD, i // _QUAD_WILDS, i % _QUAD_WILDS
    else:
        i -= _TRIPLE_IDS + _QUAD_IDS
        kind, loc, wild = FIVE, i // _FIVE_WILDS, i % _FIVE_WILDS
    return np.int64(kind | (loc << 2) | (wild << 7))


@hot_kernel
def action_id(kind, code):
    """The dense action id of option ``code`` of a decision of ``kind`` (``DT_*``)."""
    if kind == DT_CLAIM:
        if code == NONE:
            return np.int64(A_CLAIM)
        if code == PAIR:
            return np.int64(A_CLAIM + 1 + N_MELD_IDS)
        return np.int64(A_CLAIM + 1 + _meld_index(code))
    if kind == DT_SELF:
        return np.int64(A_SELF if code == NONE else A_SELF + 1 + _meld_index(code))
    if kind == DT_DISCARD:
        return np.int64(A_DISCARD + code - DISCARD)
    if kind == DT_TARGET:
        return np.int64(A_TARGET if code == NONE else A_TARGET + 1 + code - TARGET)
    if kind == DT_TAKE:
        return np.int64(A_TAKE + code - TAKE)
    return np.int64(A_GIVE + code - GIVE)


@hot_kernel
def action_of(a):
    """(decision kind, option code) of action id ``a`` (``action_id``'s inverse)."""
    if a < A_SELF:
        i = a - A_CLAIM
        if i == 0:
            return np.int64(DT_CLAIM), np.int64(NONE)
        if i == 1 + N_MELD_IDS:
            return np.int64(DT_CLAIM), np.int64(PAIR)
        return np.int64(DT_CLAIM), _meld_code(i - 1)
    if a < A_DISCARD:
        i = a - A_SELF
        return np.int64(DT_SELF), (np.int64(NONE) if i == 0 else _meld_code(i - 1))
    if a < A_TARGET:
        return np.int64(DT_DISCARD), np.int64(DISCARD + a - A_DISCARD)
    if a < A_TAKE:
        i = a - A_TARGET
        return np.int64(DT_TARGET), np.int64(NONE if i == 0 else TARGET + i - 1)
    if a < A_GIVE:
        return np.int64(DT_TAKE), np.int64(TAKE + a - A_TAKE)
    return np.int64(DT_GIVE), np.int64(GIVE + a - A_GIVE)


@hot_kernel
def action_ids(kind, opts, k, out):
    """The action ids of ``opts[:k]`` (options of a decision of ``kind``) into ``out[:k]``."""
    for i in range(k):
        out[i] = action_id(kind, opts[i])
