"""ATLAS turn engine: one round (§3, §4) as a resumable state machine, its phase kept in ``S``.

Everything that happens in a round lives here, once; the match around it (AT-25 rounds, the
next first player, the standing) is the match engine's (``kernels/atlas/engine.py``), through
which the driver (``kernels/atlas/driver.py``) plays with the seats' strategies and traces it.
pimc's rollouts (``kernels/atlas/pimc.py``) play the round on with a built-in policy on
determinizations. Both are the same loop::

    new_round(S, n, r, first, R, deal_rng)         # §1 deal; the rule options into P_RULES
    while True:
        seat, kind, n = legal_moves(S, buf, ev)     # automatic steps, then the next decision
        if n == 0:
            break                                   # round over: ST_WINNER, ST_END
        apply_move(buf[choose(seat, kind, buf, n)], S)

(原子's engine has the same two names, ``kernels/yuanzi/rules.py``.) The rule options are read
from the state's public block (``P_RULES + R_*``), never from an argument, so a determinized
copy of the public block plays by the same rules.

``legal_moves`` plays every step that is no decision (the turn cap, AT-21's last action card and
drawn pair, the draw with an AT-23 reshuffle, AT-22, the closing and resolution of a claim
window, a blind TRADE pick) — the only random events, drawn from the events stream ``ev`` — up
to the next decision; it writes its options into ``buf`` (room for ``MAX_OPTIONS``), sets
``P_SEAT`` to the deciding seat and returns ``(seat, kind, n)``, ``kind`` a ``DT_*`` of
``cardsim.kernels.atlas.encoding``, and ``n = 0`` once the round is over. At a pending decision it
changes nothing but ``buf`` (calling it again gives the same options). ``apply_move`` applies
the deciding seat's choice, one of those options, and draws nothing.

Phases (``S[E_PHASE]``; the decision phases are ``1 + DT_*``):

============  ======================================================================
PH_TURN       seat ``E_CUR``'s turn starts (§3 steps 1–3: cap, AT-21, draw, AT-07)
PH_CLAIM      claim window on discard ``P_CARD`` of ``P_DISCARDER`` (AT-12 … AT-14, §4): the
              seats in turn order from ``E_Q``, ``E_LEFT`` still to ask, every one that can
              claim decides (the best claim so far in ``E_BKEY``, ``E_BQ``, ``E_BCODE``)
PH_SELF       ``E_CUR`` self-melds or stops (AT-07, §3 step 4)
PH_DISCARD    ``E_CUR`` discards (§3 steps 5–6; AT-22 first)
PH_TARGET     ``E_CUR``'s TRADE: the target, or none (AT-19)
PH_TAKE       the card taken from ``P_TARGET`` (``trade_pick=seen``)
PH_GIVE       the card given back
PH_PICK       the blind pick (``trade_pick=blind``, events stream)
PH_OVER       the round is over
============  ======================================================================

A state fresh from ``reset_round`` is at PH_TURN of seat 0. The engine allocates nothing and
calls no strategy: it imports only the ATLAS encoding, rules and state modules.
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    DT_CLAIM,
    DT_DISCARD,
    DT_GIVE,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GIVE,
    N_TYPES,
    NONE,
    PAIR,
    REVERSE,
    SKIP,
    TAKE,
    TARGET,
    TRADE,
)
from cardsim.kernels.atlas.rules import (
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
    pairs,
    same_species_claim,
    self_meld_options,
    set_design,
)
from cardsim.kernels.atlas.state import (
    E_BCODE,
    E_BKEY,
    E_BQ,
    E_CLOSED,
    E_CUR,
    E_LEFT,
    E_PHASE,
    E_Q,
    E_WIN,
    END_ACTION_CARD,
    END_CLAIM,
    END_LAST_CARD_CLAIM,
    END_LAST_CARD_DRAW,
    END_LAST_DISCARD,
    END_NO_WINNER,
    END_SELF_MELD,
    END_TURN_CAP,
    H_FIRST,
    HANDS,
    P_CARD,
    P_DIR,
    P_DISCARDER,
    P_DISCC,
    P_DRAW,
    P_FD_CARDS,
    P_MELDED,
    P_N,
    P_NDISC,
    P_RULES,
    P_SEAT,
    P_SIZES,
    P_TAKEN,
    P_TARGET,
    P_TARGET_HAND,
    P_TURN,
    P_TURNS,
    SEAT_CLAIMS,
    SEAT_DISCARDED,
    SEAT_GIFT,
    SEAT_MELDED,
    SEAT_MELDS,
    SEAT_TRADE_NET,
    ST_CLAIMS,
    ST_DIRCH,
    ST_END,
    ST_LCP,
    ST_MELD_OK,
    ST_RESHUFFLES,
    ST_REVERSES,
    ST_SELF,
    ST_SKIPS,
    ST_TRADES,
    ST_WINNER,
    ST_YOUXIAN,
    add_card,
    deal,
    draw_card,
    held_mask,
    hot_kernel,
    inline_kernel,
    lowest_type,
    next_seat,
    only_card,
    push_discard,
    remove_card,
    reset_round,
    reshuffle,
)
from cardsim.kernels.rng import bounded

PH_TURN = 0
PH_CLAIM = 1 + DT_CLAIM
PH_SELF = 1 + DT_SELF
PH_DISCARD = 1 + DT_DISCARD
PH_TARGET = 1 + DT_TARGET
PH_TAKE = 1 + DT_TAKE
PH_GIVE = 1 + DT_GIVE
PH_PICK = 7
PH_OVER = 8
#: Phase names by code (tests, messages).
PHASES = ("turn", "claim", "self_meld", "discard", "target", "take", "give", "pick", "over")
_NO_KEY = 1 << 30  # above every AT-14 priority key


# --- setting a phase -------------------------------------------------------------------------


@hot_kernel
def set_rules(S, R):
    """The rule options of array ``R`` into the public block (``P_RULES + R_*``, issue 12)."""
    for i in range(R.shape[0]):
        S[P_RULES + i] = R[i]


@hot_kernel
def new_round(S, n, r, first, R, deal_rng):
    """Round ``r`` (§3) of ``n`` players from a fresh deal (§1, ``deal_rng``), rules ``R``:
    at the start of seat ``first``'s turn. From round 2 the match standing (``P_STANDING``) is
    kept; the match engine (``kernels/atlas/engine.py``) chooses ``r`` and ``first`` and adds
    the finished round's points to the standing (AT-25)."""
    reset_round(S, n, r)
    set_rules(S, R)  # the rule options in force are public (P_RULES)
    S[H_FIRST] = first
    set_design(S, R)  # AT-D1 … AT-D4: the deck, the hand size and the values of this run
    deal(S, deal_rng, n)
    begin(S, PH_TURN, first)


@hot_kernel
def begin(S, phase, p):
    """Put the round at ``phase`` of seat ``p`` (PH_TURN, PH_SELF, PH_DISCARD; also for
    hand-built states)."""
    S[E_CUR] = p
    S[E_PHASE] = phase


@hot_kernel
def open_window(S, d, x):
    """The claim window on card ``x`` just discarded by ``d`` (§4): every other seat, in turn
    order from the next one, is asked."""
    S[E_CUR] = d
    S[P_DISCARDER] = d
    S[P_CARD] = x
    S[E_Q] = next_seat(S, d)
    S[E_LEFT] = S[P_N] - 1
    S[E_BKEY] = _NO_KEY
    S[E_BQ] = -1
    S[E_BCODE] = 0
    S[E_PHASE] = PH_CLAIM


@hot_kernel
def _win(S, p, end):
    S[ST_WINNER] = p
    S[ST_END] = end
    S[E_PHASE] = PH_OVER


@hot_kernel
def _over(S, end):
    S[ST_END] = end
    S[E_PHASE] = PH_OVER


@hot_kernel
def _ask(S, p, phase, k):
    """The decision of seat ``p`` in ``phase`` with ``k`` options (already in the buffer)."""
    S[P_SEAT] = p
    return np.int64(p), np.int64(phase - 1), np.int64(k)


@hot_kernel
def held_options(S, p, base, opts):
    """``base + t`` for every card type ``t`` that ``p`` holds, ascending, into ``opts``; returns
    how many. The held types as one 64-bit mask first (``held_mask``), then one store per set
    bit: a branch per type mispredicted, and a count advanced per type chained
    all 64 stores on it (this loop was the hottest spot of the greedy ATLAS profile)."""
    m = held_mask(S, p)
    k = 0
    while m:
        opts[k] = base + lowest_type(m)
        k += 1
        m &= m - np.uint64(1)
    return k


# --- the automatic steps ---------------------------------------------------------------------


@inline_kernel
def _turn_start(S, ev):
    """§3 steps 1–3 of seat ``E_CUR``'s turn: AT-23 turn cap, AT-21 last action card, the draw
    (AT-06, AT-23 reshuffle or no winner), AT-21 last card drawn; then its self-melds when AT-07
    allows them, else its discard."""
    p = S[E_CUR]
    if S[P_TURNS] >= S[P_RULES + R_TURN_CAP]:  # AT-23 turn cap
        _over(S, END_TURN_CAP)
        return
    S[P_TURNS] += 1
    S[P_TURN] = p
    held = S[P_SIZES + p]
    h = only_card(S, p) if held == 1 else -1
    if held == 1 and h > ATLAS:  # AT-21: a last action card is played and wins
        remove_card(S, p, h)
        S[SEAT_DISCARDED + p] += 1
        push_discard(S, h)
        _win(S, p, END_ACTION_CARD)
        return
    if S[P_DRAW] == 0:  # AT-23
        if S[P_RULES + R_EXHAUSTED] == 0 and S[P_NDISC] > 0:
            reshuffle(S, ev)
        else:
            _over(S, END_NO_WINNER)
            return
    y = draw_card(S, p)
    if held == 1 and pairs(h, y):  # AT-21 last card drawn
        remove_card(S, p, h)
        remove_card(S, p, y)
        S[SEAT_MELDED + p] += 2
        S[P_MELDED + h] += 1
        S[P_MELDED + y] += 1
        S[ST_LCP] += 1
        _win(S, p, END_LAST_CARD_DRAW)
        return
    allowed = S[P_RULES + R_SELF_MELDS] == 0 or S[ST_MELD_OK] == p
    S[ST_MELD_OK] = -1
    S[E_PHASE] = PH_SELF if allowed else PH_DISCARD


@hot_kernel
def _last_card(S, cur):
    """AT-22: ``cur`` holds one card at its discard: it wins by discarding it
    (``last_discard_wins``) or keeps it, and the next seat's turn starts."""
    if S[P_RULES + R_LAST_DISCARD]:
        t = only_card(S, cur)
        remove_card(S, cur, t)
        S[SEAT_DISCARDED + cur] += 1
        push_discard(S, t)
        _win(S, cur, END_LAST_DISCARD)
    else:
        begin(S, PH_TURN, next_seat(S, cur))


@inline_kernel
def _close_window(S):
    """§4: the window is over; the best claim (AT-14) takes the card, or it stays on the pile.
    Its result is kept in ``E_WIN`` (``E_CLOSED`` = 1) for the driver's trace."""
    d = S[P_DISCARDER]
    x = S[P_CARD]
    q = S[E_BQ]
    code = S[E_BCODE]
    S[P_DISCARDER] = -1
    S[P_CARD] = -1
    S[E_CLOSED] = 1
    S[E_WIN] = d
    S[E_WIN + 1] = x
    S[E_WIN + 2] = q
    S[E_WIN + 3] = code
    if q < 0:
        push_discard(S, x)
        begin(S, PH_TURN, next_seat(S, d))
        return
    S[ST_CLAIMS] += 1
    S[SEAT_CLAIMS + q] += 1
    if code == PAIR:  # AT-21: the last-card pair wins at once
        remove_card(S, q, only_card(S, q))
        S[SEAT_MELDED + q] += 1
        S[ST_LCP] += 1
        _win(S, q, END_LAST_CARD_CLAIM)
        return
    priority = S[P_RULES + R_CLAIM_PRIORITY]
    same = same_species_claim(S, q, x, code, priority)
    if priority == 0:  # protocol §6: 優先配 claims won (text: the triple)
        S[ST_YOUXIAN] += 1 if same else 0
    elif x < ATLAS and S[HANDS + q * N_TYPES + x] >= 2:  # nearest_win: holding two
        S[ST_YOUXIAN] += 1
    apply_meld(S, q, code, x, np.int32(1), same)  # AT-26: a claim is shown (int32: one compile)
    S[SEAT_MELDS + q] += 1
    if S[P_SIZES + q] == 0:  # AT-20
        _win(S, q, END_CLAIM)
        return
    if S[P_RULES + R_CLAIM_TURN] == 0:  # AT-15 stay
        nx = next_seat(S, d)
        if nx == q:
            S[ST_MELD_OK] = q
        begin(S, PH_TURN, nx)
        return
    # AT-15 jump: q plays steps 4-6 at once, without drawing; it counts as a turn
    S[P_TURNS] += 1
    S[P_TURN] = q
    begin(S, PH_SELF, q)


@hot_kernel
def _take(S, p, t, c):
    """AT-19: ``p`` takes card ``c`` from the target ``t``; it gives one back next."""
    remove_card(S, t, c)
    add_card(S, p, c)
    S[SEAT_TRADE_NET + p] += 1
    S[SEAT_TRADE_NET + t] -= 1
    S[P_TAKEN] = c
    S[E_PHASE] = PH_GIVE


# --- the two calls ---------------------------------------------------------------------------


@hot_kernel
def legal_moves(S, opts, ev):
    """Play the automatic steps up to the next decision (random events from ``ev``), write its
    options into ``opts``; ``(seat, kind, n)``, ``n = 0`` once the round is over (module doc)."""
    while True:
        ph = S[E_PHASE]
        if ph == PH_CLAIM:
            x = S[P_CARD]
            q = S[E_Q]
            left = S[E_LEFT]
            while left > 0:
                opts[0] = NONE
                k = 1
                if S[P_SIZES + q] == 1:
                    if pairs(only_card(S, q), x):  # AT-21 last-card pair
                        opts[1] = PAIR
                        k = 2
                else:
                    k = claim_meld_options(S, q, x, S[P_RULES + R_ALL_WILD], opts, 1)
                if k > 1:
                    if S[P_RULES + R_FORCED]:  # AT-12 variant: NONE is not offered
                        opts[0] = opts[k - 1]
                        k -= 1
                    S[E_Q] = q
                    S[E_LEFT] = left
                    return _ask(S, q, PH_CLAIM, k)
                q = next_seat(S, q)
                left -= 1
            S[E_LEFT] = 0
            _close_window(S)
        elif ph == PH_TURN:
            _turn_start(S, ev)
        elif ph == PH_SELF:
            p = S[E_CUR]
            opts[0] = NONE
            k = self_meld_options(S, p, S[P_RULES + R_ALL_WILD], opts, 1)
            if k > 1:
                return _ask(S, p, PH_SELF, k)
            S[E_PHASE] = PH_DISCARD
        elif ph == PH_DISCARD:
            cur = S[E_CUR]
            if S[P_SIZES + cur] == 1:  # AT-22
                _last_card(S, cur)
            else:
                return _ask(S, cur, PH_DISCARD, held_options(S, cur, DISCARD, opts))
        elif ph == PH_TARGET:
            p = S[E_CUR]
            opts[0] = NONE
            k = 1
            for s in range(S[P_N]):
                if s != p and S[P_SIZES + s] > 0:
                    opts[k] = TARGET + s
                    k += 1
            return _ask(S, p, PH_TARGET, k)
        elif ph == PH_PICK:  # AT-19 blind: the k-th card by type id ascending (§1)
            t = S[P_TARGET]
            ht = HANDS + t * N_TYPES
            kk = bounded(ev, S[P_SIZES + t])
            c = -1
            for ty in range(N_TYPES):
                kk -= S[ht + ty]
                if kk < 0:
                    c = ty
                    break
            _take(S, S[E_CUR], t, c)
        elif ph == PH_TAKE:
            ht = HANDS + S[P_TARGET] * N_TYPES
            k = 0
            for ty in range(N_TYPES):
                S[P_TARGET_HAND + ty] = S[ht + ty]
                if S[ht + ty] > 0:
                    opts[k] = TAKE + ty
                    k += 1
            return _ask(S, S[E_CUR], PH_TAKE, k)
        elif ph == PH_GIVE:
            cur = S[E_CUR]
            return _ask(S, cur, PH_GIVE, held_options(S, cur, GIVE, opts))
        else:
            return np.int64(-1), np.int64(-1), np.int64(0)


@hot_kernel
def apply_move(code, S):
    """The deciding seat's choice ``code`` (one of the options ``legal_moves`` wrote)."""
    ph = S[E_PHASE]
    if ph == PH_CLAIM:
        q = S[E_Q]
        if code != NONE:
            d = S[P_DISCARDER]
            x = S[P_CARD]
            pri = S[P_RULES + R_CLAIM_PRIORITY]
            key = claim_key(S, q, d, x, code, claim_wins(S, q, code), pri)
            if key < S[E_BKEY]:
                S[E_BKEY] = key
                S[E_BQ] = q
                S[E_BCODE] = code
        S[E_Q] = next_seat(S, q)
        S[E_LEFT] -= 1
    elif ph == PH_DISCARD:
        _discard(S, S[E_CUR], code - DISCARD)
    elif ph == PH_SELF:
        p = S[E_CUR]
        if code == NONE:
            S[E_PHASE] = PH_DISCARD
            return
        # AT-26: face down by default
        apply_meld(S, p, code, np.int32(-1), S[P_RULES + R_SELF_MELDS_SHOWN], np.bool_(False))
        S[ST_SELF] += 1
        S[SEAT_MELDS + p] += 1
        if S[P_SIZES + p] == 0:  # AT-20
            _win(S, p, END_SELF_MELD)
    elif ph == PH_TARGET:
        if code == NONE:
            begin(S, PH_TURN, next_seat(S, S[E_CUR]))
            return
        S[P_TARGET] = code - TARGET
        S[E_PHASE] = PH_TAKE if S[P_RULES + R_TRADE_PICK] else PH_PICK
    elif ph == PH_TAKE:
        for ty in range(N_TYPES):
            S[P_TARGET_HAND + ty] = 0
        _take(S, S[E_CUR], S[P_TARGET], code - TAKE)
    elif ph == PH_GIVE:
        p = S[E_CUR]
        t = S[P_TARGET]
        g = code - GIVE
        remove_card(S, p, g)
        add_card(S, t, g)
        S[SEAT_TRADE_NET + p] -= 1
        S[SEAT_TRADE_NET + t] += 1
        # AT-19: p knows t holds g until a g is shown or t melds face down or a TRADE or a
        # reshuffle happens (read by pimc, kernels/atlas/pimc.py gift)
        S[SEAT_GIFT + 6 * p] = t + 1
        S[SEAT_GIFT + 6 * p + 1] = g
        S[SEAT_GIFT + 6 * p + 2] = S[P_DISCC + g] + S[P_MELDED + g]
        S[SEAT_GIFT + 6 * p + 3] = S[P_FD_CARDS + t]
        S[SEAT_GIFT + 6 * p + 4] = S[ST_TRADES]
        S[SEAT_GIFT + 6 * p + 5] = S[ST_RESHUFFLES]
        S[P_TAKEN] = -1
        S[P_TARGET] = -1
        begin(S, PH_TURN, next_seat(S, p))


@inline_kernel
def _discard(S, cur, x):
    """§3 step 6: ``cur`` discards ``x``: AT-17 … AT-19 for an action card, else the window."""
    remove_card(S, cur, x)
    S[SEAT_DISCARDED + cur] += 1
    if x == SKIP:  # AT-17
        push_discard(S, x)
        S[ST_SKIPS] += 1
        begin(S, PH_TURN, next_seat(S, next_seat(S, cur)))
    elif x == REVERSE:  # AT-18
        push_discard(S, x)
        S[ST_REVERSES] += 1
        if S[P_N] == 2:
            begin(S, PH_TURN, cur if S[P_RULES + R_REVERSE_2P] == 0 else next_seat(S, cur))
        else:
            S[P_DIR] = -S[P_DIR]
            S[ST_DIRCH] += 1
            begin(S, PH_TURN, next_seat(S, cur))
    elif x == TRADE:  # AT-19
        push_discard(S, x)
        S[ST_TRADES] += 1
        S[E_PHASE] = PH_TARGET
    else:
        open_window(S, cur, x)
