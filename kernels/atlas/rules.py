"""ATLAS rules in the kernel: rule array layout, meld options, applying melds, claim keys, scoring.

Rule options travel as a small ``int64`` array (STYLE), offsets ``R_*`` taken from the one
option table ``kernels/atlas/options.py``:

==================  ====================================  ==========================
offset              option (ruling)                       values
==================  ====================================  ==========================
R_SELF_MELDS        ``self_melds`` (AT-07)                0 any, 1 after_claim_only
R_ALL_WILD          ``all_wild_melds`` (AT-11)            0 / 1
R_FORCED            ``forced_claims`` (AT-12)             0 / 1 (default 1)
R_CLAIM_TURN        ``claim_turn`` (AT-15)                0 stay, 1 jump
R_REVERSE_2P        ``reverse_two_players`` (AT-18)       0 skip, 1 none
R_TRADE_PICK        ``trade_pick`` (AT-19)                0 blind, 1 seen
R_LAST_DISCARD      ``last_discard_wins`` (AT-22)         0 / 1
R_EXHAUSTED         ``exhausted`` (AT-23)                 0 reshuffle, 1 no_winner
R_TURN_CAP          ``turn_cap`` (AT-23)                  int, default 2000
R_ROUNDS            ``rounds`` (AT-25)                    int, default 1
R_CLAIM_PRIORITY    ``claim_priority`` (AT-14)            0 text, 1 nearest_win
R_SELF_MELDS_SHOWN  ``self_melds_shown`` (AT-26)          0 / 1
R_HAND_SIZE         ``hand_size`` (AT-D1)                 int 7..20, default 13
R_ATLAS_CARDS       ``atlas_cards`` (AT-D2)               int 0..12, default 6
R_SKIP_CARDS        ``skip_cards`` (AT-D3)                int 0..12, default 6
R_REVERSE_CARDS     ``reverse_cards`` (AT-D3)             int 0..12, default 6
R_TRADE_CARDS       ``trade_cards`` (AT-D3)               int 0..12, default 6
R_ATLAS_VALUE       ``atlas_value`` (AT-D4)               int 0..20, default 3
R_ACTION_VALUE      ``action_value`` (AT-D4)              int 0..20, default 2
R_MATCHING_VALUE    ``matching_value`` (AT-D4)            int 0..20, default 1
==================  ====================================  ==========================

The design parameters (AT-D1 … AT-D4) reach the deal and the score through the public design
block of the state (``set_design``), so that every function reading a state — the pimc
rollouts included — plays with them without a rule array.
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    FIVE,
    N_CELLS,
    N_TYPES,
    PAIR,
    QUAD,
    REVERSE,
    SKIP,
    TRADE,
    TRIPLE,
)
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CELLS,
    CLASS_OF,
    CONT_OF,
    H_FACE_DOWN,
    HANDS,
    P_DECK,
    P_DIR,
    P_FD_CARDS,
    P_FD_MELDS,
    P_FD_SIZES,
    P_HAND_SIZE,
    P_MELDED,
    P_N,
    P_SIZES,
    P_VALUES,
    SEAT_FD,
    SEAT_MELDED,
    ST_ATLAS,
    ST_FIVES,
    ST_QUADS,
    ST_TRIPLES,
    hot_kernel,
    inline_kernel,
    remove_card,
    wrap_seat,
)

# Rule-array offsets, from the one option table (kernels/atlas/options.py).
R_SELF_MELDS = OPTIONS.offset("self_melds")
R_ALL_WILD = OPTIONS.offset("all_wild_melds")
R_FORCED = OPTIONS.offset("forced_claims")
R_CLAIM_TURN = OPTIONS.offset("claim_turn")
R_REVERSE_2P = OPTIONS.offset("reverse_two_players")
R_TRADE_PICK = OPTIONS.offset("trade_pick")
R_LAST_DISCARD = OPTIONS.offset("last_discard_wins")
R_EXHAUSTED = OPTIONS.offset("exhausted")
R_TURN_CAP = OPTIONS.offset("turn_cap")
R_ROUNDS = OPTIONS.offset("rounds")
R_CLAIM_PRIORITY = OPTIONS.offset("claim_priority")
R_SELF_MELDS_SHOWN = OPTIONS.offset("self_melds_shown")
R_HAND_SIZE = OPTIONS.offset("hand_size")
R_ATLAS_CARDS = OPTIONS.offset("atlas_cards")
R_SKIP_CARDS = OPTIONS.offset("skip_cards")
R_REVERSE_CARDS = OPTIONS.offset("reverse_cards")
R_TRADE_CARDS = OPTIONS.offset("trade_cards")
R_ATLAS_VALUE = OPTIONS.offset("atlas_value")
R_ACTION_VALUE = OPTIONS.offset("action_value")
R_MATCHING_VALUE = OPTIONS.offset("matching_value")
N_RULES = len(OPTIONS)

#: Defaults in array form.
DEFAULT_RULES = OPTIONS.array()

POPC = np.array([bin(i).count("1") for i in range(32)], dtype=np.int32)


@hot_kernel
def set_design(S, R):
    """The design parameters of rule array ``R`` into the state's public design block (after
    ``reset_round``, before ``deal``): hand size (AT-D1), the specials' copies in card-id order
    (AT-D2, AT-D3), the hand values (AT-D4)."""
    S[P_HAND_SIZE] = R[R_HAND_SIZE]
    S[P_DECK] = R[R_ATLAS_CARDS]
    S[P_DECK + 1] = R[R_SKIP_CARDS]
    S[P_DECK + 2] = R[R_REVERSE_CARDS]
    S[P_DECK + 3] = R[R_TRADE_CARDS]
    S[P_VALUES] = R[R_ATLAS_VALUE]
    S[P_VALUES + 1] = R[R_ACTION_VALUE]
    S[P_VALUES + 2] = R[R_MATCHING_VALUE]


@hot_kernel
def _code(kind, loc, wild):
    return np.int32(kind | (loc << 2) | (wild << 7))


@hot_kernel
def pairs(a, b):
    """AT-21: two cards pair (same species; an ATLAS pairs any matching card; ATLAS+ATLAS never)."""
    if a < ATLAS and b < ATLAS:
        return a == b
    if a == ATLAS and b < ATLAS:
        return True
    return b == ATLAS and a < ATLAS


#: ``_emit_masks``'s callers pass kind, universe and extra as int64, not literals: one compiled
#: function instead of twelve specializations (3.7 s of compile)
I64 = np.int64


@hot_kernel
def _emit_masks(kind, loc, avail, universe, wilds_avail, extra, opts, k):
    """Emit ``(kind, loc, mask)`` for masks ⊆ ``universe`` covering every slot missing from
    ``avail``, non-empty when ``extra`` (a wild discard) and with ``popc(mask) - extra <= wilds``.
    The full mask (all-wild) is never emitted here."""
    missing = universe & ~avail
    if POPC[missing] - extra > wilds_avail:
        return k
    full = 15 if kind == QUAD else 31
    sub = avail & universe
    while True:
        m = missing | sub
        if m != full and POPC[m] - extra <= wilds_avail and (extra == 0 or m != 0):
            opts[k] = _code(kind, loc, m)
            k += 1
        if sub == 0:
            break
        sub = (sub - 1) & avail & universe
    return k


@inline_kernel
def self_meld_options(S, p, all_wild, opts, k):
    """Protocol §2: every self-meld code ``p``'s hand can lay, written from ``opts[k]``; new k."""
    c0 = CELLS + p * N_CELLS
    cells = S[c0 : c0 + N_CELLS]  # a view: read by loop indices, no negative-index wrap
    W = S[HANDS + p * N_TYPES + ATLAS]
    # triples (AT-10): 3 - w naturals + w ATLAS, at least one natural. A cell that can lay one
    # (cnt >= 1, cnt + W >= 3) is rare, so that test predicts well; within it, branch-free: every
    # code is written, ``k`` only advances for the layable ones (slots past ``k`` are scratch).
    for cell in range(20):
        cnt = cells[cell]
        if cnt >= 1 and cnt + W >= 3:
            for w in range(3):
                opts[k] = _code(TRIPLE, cell, w)
                k += (3 - w <= cnt) & (w <= W)
    if all_wild and W >= 3:
        opts[k] = _code(TRIPLE, 0, 3)
        k += 1
    for cont in range(5):  # quads: one per class of a continent
        avail = 0
        for cl in range(4):  # branch-free (held cells mispredict)
            avail |= np.int64(cells[cont * 4 + cl] > 0) << cl
        if avail != 0:
            k = _emit_masks(I64(QUAD), cont, avail, I64(15), W, I64(0), opts, k)
    if all_wild and W >= 4:
        opts[k] = _code(QUAD, 0, 15)
        k += 1
    for cl in range(4):  # fives: one per continent of a class
        avail = 0
        for cont in range(5):
            avail |= np.int64(cells[cont * 4 + cl] > 0) << cont
        if avail != 0:
            k = _emit_masks(I64(FIVE), cl, avail, I64(31), W, I64(0), opts, k)
    if all_wild and W >= 5:
        opts[k] = _code(FIVE, 0, 31)
        k += 1
    return k


@inline_kernel
def claim_meld_options(S, q, x, all_wild, opts, k):
    """Protocol §2: the claim-meld codes with which ``q`` can claim discard ``x``, from ``opts[k]``."""
    c0 = CELLS + q * N_CELLS
    cells = S[c0 : c0 + N_CELLS]
    W = S[HANDS + q * N_TYPES + ATLAS]
    if x < ATLAS:
        cell = CELL_OF[x]
        cont = CONT_OF[x]
        cl = CLASS_OF[x]
        cnt = cells[cell]
        for w in range(3):  # x is one of the 3 - w naturals; branch-free as above
            opts[k] = _code(TRIPLE, cell, w)
            k += (2 - w <= cnt) & (w <= W)
        avail = 0
        for c in range(4):
            avail |= np.int64(cells[cont * 4 + c] > 0) << c
        k = _emit_masks(I64(QUAD), cont, avail, I64(15 & ~(1 << cl)), W, I64(0), opts, k)
        avail = 0
        for t in range(5):
            avail |= np.int64(cells[t * 4 + cl] > 0) << t
        k = _emit_masks(I64(FIVE), cl, avail, I64(31 & ~(1 << cont)), W, I64(0), opts, k)
        return k
    # x is an ATLAS: it fills one wild slot, the hand provides the other wilds and the naturals
    for cell in range(20):
        cnt = cells[cell]
        for w in range(1, 3):
            if 3 - w <= cnt and w - 1 <= W:
                opts[k] = _code(TRIPLE, cell, w)
                k += 1
    if all_wild and W >= 2:
        opts[k] = _code(TRIPLE, 0, 3)
        k += 1
    for cont in range(5):
        avail = 0
        for c in range(4):
            avail |= np.int64(cells[cont * 4 + c] > 0) << c
        if avail != 0:
            k = _emit_masks(I64(QUAD), cont, avail, I64(15), W, I64(1), opts, k)
    if all_wild and W >= 3:
        opts[k] = _code(QUAD, 0, 15)
        k += 1
    for cl in range(4):
        avail = 0
        for t in range(5):
            avail |= np.int64(cells[t * 4 + cl] > 0) << t
        if avail != 0:
            k = _emit_masks(I64(FIVE), cl, avail, I64(31), W, I64(1), opts, k)
    if all_wild and W >= 4:
        opts[k] = _code(FIVE, 0, 31)
        k += 1
    return k


@hot_kernel
def meld_size(code):
    """Cards in a meld: triple 3, quad 4, five 5."""
    return (code & 3) + 2


@hot_kernel
def meld_atlas(code):
    """ATLAS cards in a meld (claimed ATLAS included)."""
    kind = code & 3
    wild = (code >> 7) & 31
    if kind == TRIPLE:
        return wild
    return POPC[wild]


@hot_kernel
def _take_fewest(S, p, cell, shown):
    """Protocol §2: give up the species of ``cell`` with the fewest copies (> 0), ties lowest id."""
    h = HANDS + p * N_TYPES
    best = -1
    for s in range(3 * cell, 3 * cell + 3):
        c = S[h + s]
        if c > 0 and (best < 0 or c < S[h + best]):
            best = s
    remove_card(S, p, best)
    S[P_MELDED + best] += shown
    S[H_FACE_DOWN + best] += 1 - shown  # AT-26: a face-down card is in no public count
    S[SEAT_FD + p * N_TYPES + best] += 1 - shown  # AT-26: its own seat knows it
    return best


@hot_kernel
def same_species_claim(S, q, x, code, priority):
    """AT-14 ``text`` 優先配: ``q`` holds two natural ``x`` and claims with the ATLAS-free triple
    of ``x``'s cell (the same-species triple; it gives up those two cards). ``nearest_win``
    (``priority`` 1) has no such claim: its 優先配 is holding the two (:func:`claim_key`)."""
    return (
        priority == 0
        and x < ATLAS
        and S[HANDS + q * N_TYPES + x] >= 2
        and code == _code(TRIPLE, CELL_OF[x], 0)
    )


@hot_kernel
def apply_meld(S, p, code, x, shown, same):
    """Lay meld ``code`` from ``p``'s hand; ``x`` is the claimed discard or -1 (self-meld).

    ``shown`` (0/1): the meld's cards join the public ``P_MELDED`` counts (a claim, or a self-meld
    with ``self_melds_shown``); otherwise it lies face down and only ``P_FD_MELDS`` /
    ``P_FD_CARDS`` of seat ``p`` count it (AT-26). ``same``: the 優先配 same-species triple
    (:func:`same_species_claim`), which gives up two cards of ``x``'s species.
    """
    kind = code & 3
    loc = (code >> 2) & 31
    wild = (code >> 7) & 31
    xcell = CELL_OF[x] if x >= 0 else -1
    if not shown:
        S[P_FD_MELDS + p] += 1
        S[P_FD_CARDS + p] += meld_size(code)
        S[P_FD_SIZES + 3 * p + meld_size(code) - 3] += 1
    if kind == TRIPLE:
        nat = 3 - wild
        if xcell >= 0:
            nat -= 1
        if same:
            remove_card(S, p, x)
            remove_card(S, p, x)
            S[P_MELDED + x] += 2 * shown
            S[H_FACE_DOWN + x] += 2 * (1 - shown)
            S[SEAT_FD + p * N_TYPES + x] += 2 * (1 - shown)
        else:
            for _ in range(nat):
                _take_fewest(S, p, loc, shown)
        S[ST_TRIPLES] += 1
    elif kind == QUAD:
        if wild != 15:
            for cl in range(4):
                if (wild >> cl) & 1 == 0 and loc * 4 + cl != xcell:
                    _take_fewest(S, p, loc * 4 + cl, shown)
        S[ST_QUADS] += 1
    else:
        if wild != 31:
            for cont in range(5):
                if (wild >> cont) & 1 == 0 and cont * 4 + loc != xcell:
                    _take_fewest(S, p, cont * 4 + loc, shown)
        S[ST_FIVES] += 1
    wilds = meld_atlas(code)
    from_hand = wilds - 1 if x == ATLAS else wilds
    for _ in range(from_hand):
        remove_card(S, p, ATLAS)
    S[P_MELDED + ATLAS] += from_hand * shown
    S[H_FACE_DOWN + ATLAS] += from_hand * (1 - shown)
    S[SEAT_FD + p * N_TYPES + ATLAS] += from_hand * (1 - shown)
    if x >= 0:
        S[P_MELDED + x] += 1
    S[ST_ATLAS] += wilds
    S[SEAT_MELDED + p] += meld_size(code) - (1 if x >= 0 else 0)


@hot_kernel
def claim_wins(S, q, code):
    """AT-14 (1): a claim wins when it is PAIR or its meld uses every card of ``q``'s hand."""
    if code == PAIR:
        return True
    return meld_size(code) - 1 == S[P_SIZES + q]


@hot_kernel
def claim_key(S, q, d, x, code, wins, priority):
    """Protocol §4 priority key as one integer (smaller = higher priority), AT-14.

    ``priority`` 0 (``text``): class 0 the last-card pair, 1 another winning claim, 2 any other;
    then 優先配 (the same-species triple, winning or not); then distance, then direction.
    1 (``nearest_win``): class 0 every winning claim (the pair included), 1 the others; 優先配
    (holding two naturals of ``x``) only among non-winning claims; distance; direction.
    """
    n = S[P_N]
    dirv = S[P_DIR]
    if priority == 0:
        klass = 0 if code == PAIR else (1 if wins else 2)
        yx = same_species_claim(S, q, x, code, 0)
    else:
        klass = 0 if wins else 1
        yx = (not wins) and x < ATLAS and S[HANDS + q * N_TYPES + x] >= 2
    a = wrap_seat(q - d, n)
    b = wrap_seat(d - q, n)
    dist = a if a < b else b
    along = wrap_seat((q - d) * dirv, n)
    return klass * 4096 + (0 if yx else 1) * 1024 + dist * 32 + along


@hot_kernel
def hand_value(S, p):
    """AT-05 value of ``p``'s hand with the state's AT-D4 values (``P_VALUES``: ATLAS, action,
    matching; default 3, 2, 1)."""
    h = HANDS + p * N_TYPES
    wild = S[h + ATLAS]
    action = S[h + SKIP] + S[h + REVERSE] + S[h + TRADE]
    matching = S[P_SIZES + p] - wild - action
    return wild * S[P_VALUES] + action * S[P_VALUES + 1] + matching * S[P_VALUES + 2]
