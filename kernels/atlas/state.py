"""ATLAS kernel state: one flat ``int32`` array per game with named offsets (STYLE).

The array ``S`` starts with the **public block** ``S[:PUB_LEN]``, exactly what AT-26 lets every
strategy see; a strategy gets that slice and its own hand ``S[HANDS + 64*p : HANDS + 64*p + 64]``
and nothing else. Everything after the public block is hidden (hands, cell counts, draw pile) or
bookkeeping (round counters, per-seat counters).

Public block (offsets ``P_*``):

===============  ====  ==========================================================
offset           size  meaning
===============  ====  ==========================================================
P_N              1     players
P_DIR            1     direction, +1 clockwise / -1 (AT-04, AT-16)
P_DRAW           1     cards in the draw pile
P_NDISC          1     cards in the face-up discard pile
P_SEAT           1     the seat deciding now (the viewer)
P_TURN           1     the seat whose turn it is
P_DISCARDER      1     discarder of the card under claim (-1 outside a claim window)
P_CARD           1     the card under claim (-1 outside a claim window)
P_TAKEN          1     TRADE: the card the viewer took (during its GIVE decision), else -1
P_TARGET         1     TRADE: the target seat while trading, else -1
P_ROUND          1     round index in the match
P_TURNS          1     turns played so far in the round
P_SIZES          10    hand size of every seat
P_MELDED         64    per card type: cards shown in melds this round: claims (the claimed
                       discard included), and self-melds only with ``self_melds_shown``
P_DISCC          64    per card type: cards in the face-up discard pile
P_TARGET_HAND    64    TRADE with ``trade_pick=seen``: the target's hand, only during TAKE
P_DISCSEQ        228   the face-up discard pile in order, oldest first (``P_NDISC`` used);
                       ``MAX_CARDS`` long, the largest deck (AT-D2, AT-D3)
P_RULES          32    the rule options in force: ``P_RULES + R_*`` is the rule array
                       (``cardsim.kernels.atlas.rules.R_*``); unused slots are 0
P_FD_MELDS       10    per seat: self-melds laid face down this round (AT-26, default
                       ``self_melds_shown=false``; 0 when they are shown)
P_FD_CARDS       10    per seat: cards in those face-down self-melds
P_FD_SIZES       30    per seat ``q`` and size ``k`` (3, 4, 5): its face-down self-melds of k
                       cards, at ``P_FD_SIZES + 3 * q + k - 3``
P_HAND_SIZE      1     cards dealt to each seat (design parameter AT-D1, default 13)
P_DECK           4     copies of ATLAS, SKIP, REVERSE, TRADE in the deck (AT-D2, AT-D3;
                       default 6 each; the 60 species always have 3)
P_VALUES         3     hand values of an ATLAS, an action card, a matching card (AT-D4,
                       default 3, 2, 1), read by scoring (AT-24)
P_STANDING       10    the match standing: every seat's points from the earlier rounds of
                       the match (AT-25; public, AT-26 revised 2026-12-06); 0 in round 1
===============  ====  ==========================================================

The design block (``P_HAND_SIZE`` … ``P_VALUES``) is public: the rules are common knowledge.
``reset_round`` fills it with the defaults (so hand-built states play the printed game);
``cardsim.kernels.atlas.rules.set_design`` writes the run's values before the deal.

Hidden / bookkeeping: ``HANDS`` (10 x 64 counts), ``CELLS`` (10 x 20 natural counts per
(continent, class) cell), ``PILE`` (``MAX_CARDS`` = 228 card ids, draw from ``H_PILE_POS`` to ``H_PILE_END``),
``H_FACE_DOWN`` (64 counts: the cards of face-down self-melds, AT-26 — hidden from everyone),
round counters ``ST_*`` (the §6 outcome keys), the turn engine's block ``E_*`` (the phase of
the round and the claim window in progress, ``kernels/atlas/turn.py``), per-seat counters
``SEAT_*``, ``SUMMARY``, the built-in strategies' scratch, and ``SEAT_GIFT``, what each seat
knows of the card it gave in its last TRADE (AT-19; read by ``pimc`` for that seat only), and
``SEAT_FD``, the cards of each seat's own face-down self-melds (AT-26 revised 2026-12-06: the
seat laid them; read by ``pimc`` for that seat only).
"""

import numpy as np
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DEFAULT_SPECIAL,
    HAND_SIZE,
    HAND_VALUE,
    MAX_CARDS,
    N_CELLS,
    N_CLASSES,
    N_SPECIALS,
    N_SPECIES,
    N_TYPES,
    SPECIES_COPIES,
    SPECIES_PER_CELL,
)
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.jit import hot_kernel, inline_kernel  # noqa: F401 (re-exported: ismcts, turn, rules)
from cardsim.kernels.rng import shuffle
from numba.cpython.unsafe.numbers import trailing_zeros

MAX_PLAYERS = 10
#: Slots of the public rule block ``P_RULES`` (room for options added later).
RULE_SLOTS = 32
assert len(OPTIONS) <= RULE_SLOTS, "raise RULE_SLOTS in kernels/atlas/state.py"


#: AT-05 values of an ATLAS, an action card, a matching card: the defaults of AT-D4.
_DEFAULT_VALUES = (int(HAND_VALUE[ATLAS]), int(HAND_VALUE[ATLAS + 1]), int(HAND_VALUE[0]))

#: Lookup tables (integer division is slow in the hot loops): cell, continent and class of a
#: card type (-1 for ATLAS and the action cards).
_PER_CONT = SPECIES_PER_CELL * N_CLASSES  # species of a continent (AT-02)
CELL_OF = np.array(
    [t // SPECIES_PER_CELL for t in range(N_SPECIES)] + [-1] * N_SPECIALS, dtype=np.int64
)
CONT_OF = np.array([t // _PER_CONT for t in range(N_SPECIES)] + [-1] * N_SPECIALS, dtype=np.int64)
CLASS_OF = np.array(
    [(t % _PER_CONT) // SPECIES_PER_CELL for t in range(N_SPECIES)] + [-1] * N_SPECIALS,
    dtype=np.int64,
)

#: (name, size) of every field, in order; the constants below are its running offsets
#: (tests/games/atlas/test_kernel_rules.py checks them).
LAYOUT: tuple[tuple[str, int], ...] = (
    ("P_N", 1),
    ("P_DIR", 1),
    ("P_DRAW", 1),
    ("P_NDISC", 1),
    ("P_SEAT", 1),
    ("P_TURN", 1),
    ("P_DISCARDER", 1),
    ("P_CARD", 1),
    ("P_TAKEN", 1),
    ("P_TARGET", 1),
    ("P_ROUND", 1),
    ("P_TURNS", 1),
    ("P_SIZES", MAX_PLAYERS),
    ("P_MELDED", N_TYPES),
    ("P_DISCC", N_TYPES),
    ("P_TARGET_HAND", N_TYPES),
    ("P_DISCSEQ", MAX_CARDS),
    ("P_RULES", RULE_SLOTS),
    ("P_FD_MELDS", MAX_PLAYERS),
    ("P_FD_CARDS", MAX_PLAYERS),
    ("P_FD_SIZES", 3 * MAX_PLAYERS),
    ("P_HAND_SIZE", 1),  # design parameters (AT-D1 … AT-D4): public, like every rule
    ("P_DECK", N_SPECIALS),
    ("P_VALUES", 3),
    ("P_STANDING", MAX_PLAYERS),  # AT-25, AT-26: every seat's points from earlier rounds
    ("PUB_LEN", 0),
    # hidden
    ("H_PILE_POS", 1),
    ("H_PILE_END", 1),
    ("H_FIRST", 1),
    ("H_FACE_DOWN", N_TYPES),  # per card type: cards in face-down self-melds (hidden, AT-26)
    # round counters (protocol §6 names)
    ("ST_WINNER", 1),
    ("ST_END", 1),
    ("ST_RESHUFFLES", 1),
    ("ST_DIRCH", 1),
    ("ST_TRIPLES", 1),
    ("ST_QUADS", 1),
    ("ST_FIVES", 1),
    ("ST_YOUXIAN", 1),
    ("ST_LCP", 1),
    ("ST_CLAIMS", 1),
    ("ST_SELF", 1),
    ("ST_SKIPS", 1),
    ("ST_REVERSES", 1),
    ("ST_TRADES", 1),
    ("ST_ATLAS", 1),
    ("ST_MELD_OK", 1),  # seat allowed to self-meld next turn under after_claim_only (AT-07)
    ("ST_ERR", 1),  # a strategy returned an index outside [0, n)
    ("ST_DEC", 1),  # decisions taken so far in the game (all rounds)
    # the turn engine (kernels/atlas/turn.py): the phase of the round and the claim window
    ("E_PHASE", 1),  # PH_* of kernels/atlas/turn.py (0: a turn starts)
    ("E_CUR", 1),  # the seat whose phase it is (the turn's player, a jump claimant, a trader)
    ("E_Q", 1),  # claim window: the seat asked next
    ("E_LEFT", 1),  # claim window: seats still to ask
    ("E_BKEY", 1),  # claim window: priority key of the best claim so far (AT-14)
    ("E_BQ", 1),  # claim window: its seat, -1 none
    ("E_BCODE", 1),  # claim window: its code
    ("E_CLOSED", 1),  # 1 once a claim window closed (cleared by the driver's trace)
    ("E_WIN", 4),  # the last closed window: discarder, card, winning seat or -1, its code
    ("SEAT_MELDS", MAX_PLAYERS),
    ("SEAT_CLAIMS", MAX_PLAYERS),
    ("SEAT_DEALT", MAX_PLAYERS * N_SPECIALS),  # per seat: ATLAS, SKIP, REVERSE, TRADE dealt
    # per-seat card accounting (checked by tests/games/atlas/test_invariants.py)
    ("SEAT_DRAWN", MAX_PLAYERS),
    ("SEAT_DISCARDED", MAX_PLAYERS),
    ("SEAT_MELDED", MAX_PLAYERS),  # cards given up from the hand into melds and pairs
    ("SEAT_TRADE_NET", MAX_PLAYERS),  # cards received minus cards handed over in TRADEs
    ("HANDS", MAX_PLAYERS * N_TYPES),
    ("CELLS", MAX_PLAYERS * N_CELLS),
    ("PILE", MAX_CARDS),
    # scratch of the built-in strategies: their per-decision summary of the viewer's hand and
    # the public block (written before it is read in every decision, so it carries nothing)
    ("SUMMARY", 50),
    # per seat p, its last TRADE gift (AT-19: the giver knows the card until it may have left):
    # target + 1 (0: none), the card g, then: g's shown copies (P_DISCC + P_MELDED), the
    # target's P_FD_CARDS, ST_TRADES, ST_RESHUFFLES
    ("SEAT_GIFT", MAX_PLAYERS * 6),
    # per seat p, the cards of its own face-down self-melds this round (AT-26, revised
    # 2026-12-06: the seat laid them, so it knows them; read by pimc for that seat only)
    ("SEAT_FD", MAX_PLAYERS * N_TYPES),
    ("S_LEN", 0),
)


P_N = 0
P_DIR = 1
P_DRAW = 2
P_NDISC = 3
P_SEAT = 4
P_TURN = 5
P_DISCARDER = 6
P_CARD = 7
P_TAKEN = 8
P_TARGET = 9
P_ROUND = 10
P_TURNS = 11
P_SIZES = 12
P_MELDED = 22
P_DISCC = 86
P_TARGET_HAND = 150
P_DISCSEQ = 214
P_RULES = 442
P_FD_MELDS = 474
P_FD_CARDS = 484
P_FD_SIZES = 494
P_HAND_SIZE = 524
P_DECK = 525
P_VALUES = 529
P_STANDING = 532
PUB_LEN = 542
H_PILE_POS = 542
H_PILE_END = 543
H_FIRST = 544
H_FACE_DOWN = 545
ST_WINNER = 609
ST_END = 610
ST_RESHUFFLES = 611
ST_DIRCH = 612
ST_TRIPLES = 613
ST_QUADS = 614
ST_FIVES = 615
ST_YOUXIAN = 616
ST_LCP = 617
ST_CLAIMS = 618
ST_SELF = 619
ST_SKIPS = 620
ST_REVERSES = 621
ST_TRADES = 622
ST_ATLAS = 623
ST_MELD_OK = 624
ST_ERR = 625
ST_DEC = 626
E_PHASE = 627
E_CUR = 628
E_Q = 629
E_LEFT = 630
E_BKEY = 631
E_BQ = 632
E_BCODE = 633
E_CLOSED = 634
E_WIN = 635
SEAT_MELDS = 639
SEAT_CLAIMS = 649
SEAT_DEALT = 659
SEAT_DRAWN = 699
SEAT_DISCARDED = 709
SEAT_MELDED = 719
SEAT_TRADE_NET = 729
HANDS = 739
CELLS = 1379
PILE = 1579
SUMMARY = 1807
SEAT_GIFT = 1857
SEAT_FD = 1917
S_LEN = 2557
#: The turn engine's block ``E_PHASE .. E_END`` (exclusive).
E_END = E_WIN + 4

#: Round end categories (protocol §6 ``end``).
END_CLAIM, END_SELF_MELD, END_LAST_CARD_DRAW, END_LAST_CARD_CLAIM = 0, 1, 2, 3
END_ACTION_CARD, END_NO_WINNER, END_TURN_CAP, END_LAST_DISCARD = 4, 5, 6, 7


def new_state() -> np.ndarray:
    """A zeroed game state (Python side; kernels allocate their own)."""
    return np.zeros(S_LEN, np.int32)


@hot_kernel
def next_seat(S, p):
    """The next seat in the current direction (AT-16)."""
    q = p + S[P_DIR]
    if q >= S[P_N]:
        return 0
    if q < 0:
        return S[P_N] - 1
    return q


@hot_kernel
def add_card(S, p, t):
    """Put one card of type ``t`` into seat ``p``'s hand."""
    S[HANDS + p * N_TYPES + t] += 1
    if t < N_SPECIES:
        S[CELLS + p * N_CELLS + CELL_OF[t]] += 1
    S[P_SIZES + p] += 1


@hot_kernel
def remove_card(S, p, t):
    """Take one card of type ``t`` out of seat ``p``'s hand."""
    S[HANDS + p * N_TYPES + t] -= 1
    if t < N_SPECIES:
        S[CELLS + p * N_CELLS + CELL_OF[t]] -= 1
    S[P_SIZES + p] -= 1


@hot_kernel
def wrap_seat(s, n):
    """``s % n`` for ``-n <= s < 2n`` (a seat one step away, or a difference of two seats),
    without a division."""
    if s < 0:
        return s + n
    return s - n if s >= n else s


@hot_kernel
def held_mask(S, p):
    """The card types ``p`` holds as the bits of one ``uint64`` (bit ``t``: type ``t``), built
    branch-free (the compiler vectorizes the loop; a branch per type mispredicts). The loop
    reads a view of the hand by the loop index, which is known not to be negative: ``S[h + t]``
    made Numba wrap every negative index apart, at twice the time."""
    hand = S[HANDS + p * N_TYPES : HANDS + (p + 1) * N_TYPES]
    m = np.uint64(0)
    for t in range(N_TYPES):
        m |= np.uint64(hand[t] > 0) << np.uint64(t)
    return m


@hot_kernel
def lowest_type(m):
    """The lowest card type in a non-empty ``held_mask`` (its lowest set bit)."""
    return np.int64(trailing_zeros(m))


@hot_kernel
def only_card(S, p):
    """The type of the first card held by ``p`` (its only card when it holds one), -1 if none."""
    m = held_mask(S, p)
    return lowest_type(m) if m != 0 else np.int64(-1)


@hot_kernel
def push_discard(S, t):
    """Put card ``t`` face up on the discard pile (AT-09)."""
    k = S[P_NDISC]
    S[P_DISCSEQ + k] = t
    S[P_NDISC] = k + 1
    S[P_DISCC + t] += 1


@hot_kernel
def draw_card(S, p):
    """Move the top of the draw pile into ``p``'s hand and return it (AT-06); pile not empty."""
    pos = S[H_PILE_POS]
    t = S[PILE + pos]
    S[H_PILE_POS] = pos + 1
    S[P_DRAW] -= 1
    S[SEAT_DRAWN + p] += 1
    add_card(S, p, t)
    return t


@hot_kernel
def reshuffle(S, ev_rng):
    """AT-23: the discard pile (oldest first) is shuffled by the events stream into the draw pile."""
    m = S[P_NDISC]
    for i in range(m):
        t = S[P_DISCSEQ + i]
        S[PILE + i] = t
        S[P_DISCC + t] -= 1
    shuffle(ev_rng, S[PILE : PILE + m], m)
    S[H_PILE_POS] = 0
    S[H_PILE_END] = m
    S[P_DRAW] = m
    S[P_NDISC] = 0
    S[ST_RESHUFFLES] += 1


@hot_kernel
def reset_round(S, n, r):
    """Zero everything but the decision counter and, from round 2 (``r > 0``), the match
    standing (``P_STANDING``, AT-25), ready for round ``r``; the design block at its defaults
    (AT-D1 … AT-D4: 13 cards, 6 of each special, values 3 / 2 / 1)."""
    dec = S[ST_DEC]
    S[:P_STANDING] = 0
    if r == 0:
        S[P_STANDING:PUB_LEN] = 0
    S[PUB_LEN:] = 0
    S[ST_DEC] = dec
    S[P_HAND_SIZE] = HAND_SIZE
    for j in range(N_SPECIALS):
        S[P_DECK + j] = DEFAULT_SPECIAL  # AT-01: 6 of each special
    S[P_VALUES] = _DEFAULT_VALUES[0]
    S[P_VALUES + 1] = _DEFAULT_VALUES[1]
    S[P_VALUES + 2] = _DEFAULT_VALUES[2]
    S[P_N] = n
    S[P_DIR] = 1
    S[P_DISCARDER] = -1
    S[P_CARD] = -1
    S[P_TAKEN] = -1
    S[P_TARGET] = -1
    S[P_ROUND] = r
    S[ST_WINNER] = -1
    S[ST_END] = -1
    S[ST_MELD_OK] = -1


@hot_kernel
def deal(S, deal_rng, n):
    """Protocol §1: shuffle the canonical deck of the design block (``P_DECK``: 180 matching
    cards, then the specials by id) with stream 0; card i < ``P_HAND_SIZE``·n goes to seat i % n
    (AT-03, AT-D1 … AT-D3). The defaults are the 204-card deck and 13 cards each."""
    m = SPECIES_COPIES * N_SPECIES
    for i in range(m):
        S[PILE + i] = i // SPECIES_COPIES
    for j in range(N_SPECIALS):
        for _ in range(S[P_DECK + j]):
            S[PILE + m] = ATLAS + j
            m += 1
    shuffle(deal_rng, S[PILE : PILE + m], m)
    dealt = S[P_HAND_SIZE] * n
    p = 0  # i % n, counted without a division per card
    for i in range(dealt):
        t = S[PILE + i]
        add_card(S, p, t)
        if t >= ATLAS:
            S[SEAT_DEALT + N_SPECIALS * p + t - ATLAS] += 1
        p = p + 1 if p + 1 < n else 0
    S[H_PILE_POS] = dealt
    S[H_PILE_END] = m
    S[P_DRAW] = m - dealt
