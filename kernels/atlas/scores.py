"""greedy's scores of ATLAS options, shared by the built-in strategies (``strategies.py``:
greedy, careful, ``soft``) and the learned policies' features (``learned.py``, feature 0):
the hand summary, the keep value of a card, the score of a meld and the key of a TRADE target,
and ``option_score``, soft's noise-free score of any option in its units. Written once here;
both modules import it (no import circle between them).
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    DT_CLAIM,
    DT_DISCARD,
    DT_SELF,
    DT_TAKE,
    DT_TARGET,
    GIVE,
    MAX_CARDS,
    N_CELLS,
    N_CLASSES,
    N_CONTINENTS,
    PAIR,
    REVERSE,
    SKIP,
    SPECIES_COPIES,
    SPECIES_PER_CELL,
    TAKE,
    TARGET,
)
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CLASS_OF,
    CONT_OF,
    P_DISCC,
    P_MELDED,
    P_N,
    P_SEAT,
    P_SIZES,
    hot_kernel,
    inline_kernel,
    wrap_seat,
)

#: soft's score units (one step of greedy's preference): a keep point (discard, give, take),
#: a meld size (claim, self-meld: 100 in ``_pick_meld``), a card of the target's hand (64).
U_CARD, U_MELD, U_TARGET = 1.0, 100.0, 64.0

# Hand summary layout (``hand_summary`` fills it once per decision):
SM_CELL = 0  # [20] cards held per (continent, class) cell
SM_UNSEEN = 20  # [20] unseen naturals per cell (careful only)
SM_CONT_CLASSES = 40  # [5] bitmask of the classes held, per continent
SM_CLASS_CONTS = 45  # [4] bitmask of the continents held, per class
SM_SMALLEST = 49  # the smallest opponent hand
SUMMARY_LEN = 50
POPC = np.array([bin(i).count("1") for i in range(1 << N_CONTINENTS)], dtype=np.int32)
_CELL_NATURALS = SPECIES_PER_CELL * SPECIES_COPIES  # a cell's natural cards in the deck: 9


@hot_kernel
def _unseen_cell(hand, pub, cell):
    """Copies of ``cell``'s 9 naturals not in ``hand``, not melded, not on the discard pile."""
    u = _CELL_NATURALS
    for s in range(SPECIES_PER_CELL * cell, SPECIES_PER_CELL * (cell + 1)):
        u -= hand[s] + pub[P_MELDED + s] + pub[P_DISCC + s]
    return u


@inline_kernel
def hand_summary(hand, pub, careful, out):
    """Per decision, once, the ``SM_*`` layout above (cell counts, unseen naturals, class and
    continent bitmasks, the smallest opponent hand)."""
    # The held cells as one bit mask in a register (bit 4·continent + class), spread into the two
    # mask rows at the end: or-ing into the rows per cell chained the loop on memory.
    held = 0
    for cell in range(N_CELLS):
        s0 = SPECIES_PER_CELL * cell
        cc = hand[s0] + hand[s0 + 1] + hand[s0 + 2]
        out[SM_CELL + cell] = cc
        held |= np.int64(cc > 0) << cell  # branch-free: whether a cell is held mispredicts
        if careful:
            out[SM_UNSEEN + cell] = _unseen_cell(hand, pub, cell)
    for k in range(N_CONTINENTS):
        out[SM_CONT_CLASSES + k] = (held >> (N_CLASSES * k)) & ((1 << N_CLASSES) - 1)
    for c in range(N_CLASSES):
        x = held >> c  # class c's cells sit 4 bits apart: gather them into bits 0 … 4
        out[SM_CLASS_CONTS + c] = (
            (x & 1) | ((x >> 3) & 2) | ((x >> 6) & 4) | ((x >> 9) & 8) | ((x >> 12) & 16)
        )
    n = pub[P_N]
    me = pub[P_SEAT]
    ms = 1 << 20
    for s in range(n):
        if s != me and pub[P_SIZES + s] < ms:
            ms = pub[P_SIZES + s]
    out[SM_SMALLEST] = ms


@inline_kernel
def _keep_value(hand, pub, sm, t, mode, careful, nn, nxt, prv):
    """Keep value of card ``t`` (``mode`` as in ``_best_card_t``): ATLAS 100, an action card
    ``_action_keep``, a matching card ``_meld_potential`` plus, for ``careful`` when discarding
    and when giving (not when taking), ``_claim_danger``."""
    if t == ATLAS:
        return 100.0
    ms = sm[SM_SMALLEST]
    if t > ATLAS:
        return _action_keep(pub, t, mode, nn, nxt, prv, ms)
    v = _meld_potential(hand, sm, t, mode, careful)
    if careful and mode < 2:
        v += _claim_danger(hand, pub, sm, t, ms)  # summed apart first: rounding decides near-ties
    return v


@inline_kernel
def _action_keep(pub, t, mode, nn, nxt, prv, ms):
    """Keep value of action card ``t``: taken 0.5; given 6 (it can win as the target's last
    card, AT-21); discarded, SKIP -2 when it hits the opponent closest to winning (the next seat,
    AT-16, AT-17; REVERSE too with 2 players, AT-18), REVERSE -2 when that is the next seat and
    not the previous one, else 2.5; TRADE -1."""
    if mode == 2:
        return 0.5
    if mode == 1:
        return 6.0
    if t == SKIP or (t == REVERSE and nn == 2):
        return -2.0 if pub[P_SIZES + nxt] == ms else 2.5
    if t == REVERSE:
        return -2.0 if (pub[P_SIZES + nxt] == ms and pub[P_SIZES + prv] > ms) else 2.5
    return -1.0


@inline_kernel
def _meld_potential(hand, sm, t, mode, careful):
    """Meld potential of matching card ``t`` (AT-10): ``3·(cell mates) + (classes of its
    continent held) + 0.8·(continents of its class held) + (1 if paired, AT-21)``, the taken
    card counted in when taking (mode 2); ``careful`` drops the parts the unseen cards and the
    ATLAS held (AT-11) can no longer complete."""
    extra = 1 if mode == 2 else 0
    atl = hand[ATLAS]
    cell = CELL_OF[t]
    cont = CONT_OF[t]
    cl = CLASS_OF[t]
    tri = sm[SM_CELL + cell] + extra - 1
    cm = sm[SM_CONT_CLASSES + cont] & ~(1 << cl)
    km = sm[SM_CLASS_CONTS + cl] & ~(1 << cont)
    quad = POPC[cm]
    five = POPC[km]
    if careful:
        if tri + sm[SM_UNSEEN + cell] + atl < 2:
            tri = 0
        if atl == 0:
            if _a_missing_cell_is_dead(sm, cm, cl, cont * N_CLASSES, 1, N_CLASSES):
                quad = 0
            if _a_missing_cell_is_dead(sm, km, cont, cl, N_CLASSES, N_CONTINENTS):
                five = 0
    return 3.0 * tri + quad + 0.8 * five + (hand[t] + extra >= 2)


@inline_kernel
def _a_missing_cell_is_dead(sm, held, own, first, step, count):
    """Whether one of the ``count`` cells ``first + j·step`` that a quad or five still lacks (bit
    ``j`` not in ``held``, ``j`` not ``own``) has no unseen natural left (careful, AT-26)."""
    for j in range(count):
        if j != own and (held >> j) & 1 == 0 and sm[SM_UNSEEN + first + j * step] == 0:
            return True
    return False


@inline_kernel
def _claim_danger(hand, pub, sm, t, ms):
    """Careful's danger of feeding a claim (AT-12) with matching card ``t``: its unseen copies
    and its cell's unseen naturals (AT-26), the copies weighted more when an opponent holds one
    card (its last-card pair, AT-21)."""
    sp = SPECIES_COPIES - hand[t] - pub[P_MELDED + t] - pub[P_DISCC + t]
    dg = 0.6 * sp + 0.25 * sm[SM_UNSEEN + CELL_OF[t]]
    if ms == 1:
        dg += 2.0 * sp
    return dg


@inline_kernel
def meld_score(c):
    """greedy's score of meld option ``c`` (claim, self-meld): NONE 0, PAIR 1000, else 100 per
    meld size (3, 4, 5 cards) less 1 per ATLAS it uses."""
    if c == 0:
        s = 0
    elif c == PAIR:
        s = 1000
    else:
        wild = (c >> 7) & 31
        nw = wild if (c & 3) == 1 else bin_count(wild)
        s = 100 * ((c & 3) + 2) - nw
    return np.float64(s)


@hot_kernel
def bin_count(x):
    c = 0
    while x:
        c += x & 1
        x >>= 1
    return c


@inline_kernel
def target_key(pub, s, nn, me, d):
    """greedy's key of TRADE target seat ``s`` (lowest wins): 64 per card of its hand plus its
    distance from ``me`` in the direction ``d`` (the tie-break)."""
    return np.float64(pub[P_SIZES + s] * 64 + wrap_seat((s - me) * d, nn))


#: ``option_score`` of TRADE on nobody: below every target's (greedy never picks it).
NO_TARGET_SCORE = -(MAX_CARDS + 1.0)


@inline_kernel
def option_score(dtype, c, hand, pub, sm, nn, me, d, nxt, prv):
    """soft's noise-free score of option code ``c`` in its units (``U_*``; docs/strategies.md,
    "What T means"), the higher the more greedy prefers it: greedy's meld score / ``U_MELD``,
    minus its target key / ``U_TARGET`` (nobody: ``NO_TARGET_SCORE``), minus the keep value of
    the card discarded or given, plus that of the card taken (``U_CARD``). ``sm`` holds
    ``hand_summary(hand, pub, NOT_CAREFUL, sm)``; ``nxt`` / ``prv``: the seats after and before
    ``me`` in direction ``d``. greedy's pick is the first option of the highest score."""
    if dtype in (DT_CLAIM, DT_SELF):
        return meld_score(c) / U_MELD
    if dtype == DT_TARGET:
        if c < TARGET:
            return NO_TARGET_SCORE
        return -target_key(pub, c - TARGET, nn, me, d) / U_TARGET
    if dtype == DT_DISCARD:
        return -_keep_value(hand, pub, sm, c - DISCARD, 0, NOT_CAREFUL, nn, nxt, prv) / U_CARD
    if dtype == DT_TAKE:
        return _keep_value(hand, pub, sm, c - TAKE, 2, NOT_CAREFUL, nn, nxt, prv) / U_CARD
    return -_keep_value(hand, pub, sm, c - GIVE, 1, NOT_CAREFUL, nn, nxt, prv) / U_CARD


#: ``careful`` off as a run-time bool: a literal ``False`` would compile ``_best_card_t`` (and
#: the summary inlined in it) a second time (the type ``choose`` passes is ``bool``).
NOT_CAREFUL = np.bool_(False)
