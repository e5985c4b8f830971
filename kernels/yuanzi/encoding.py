"""原子 card and move encoding, shared by the reference rules and the kernel.

Card types (54), ``card = rank * 4 + suit`` for natural cards:

=========  =====================================================================
rank idx   0  1  2  3  4  5  6  7   8  9  10 11 12   (natural order, low to high)
rank       3  4  5  6  7  8  9  10  J  Q  K  A  2
value      3  4  5  6  7  8  9  10  11 12 13 1  2    (YZ-07, for the mod-4 rule)
points     0  0  5  0  0  0  0  10  0  0  10 0  0    (YZ-03)
=========  =====================================================================

suit idx 0..3 = ♦ D, ♣ C, ♥ H, ♠ S (higher index = stronger in atoms, YZ-16).
Card 52 = small joker ``SJ``, 53 = big joker ``BJ``. Three copies of each type (YZ-01):
a hand is ``uint8[54]`` counts. A physical deck is 162 card ids, type ``t`` at 3t..3t+2
before shuffling (``canonical_deck``).

Moves are int32 codes (0 = PASS), see docs/yuanzi-protocol.md; read and build them only through
:func:`pack_move` and the ``move_*`` accessors (inlined into the hot loops at Numba IR level):

    code = kind | rank << 3 | size << 7 | jokers << 12 | suit << 15

kind 1..6 = single, pair, triple, bomb, atom, hydrogen. ``rank`` is the natural rank idx
(joker-only plays use rank 0, i.e. "3", with ``jokers == size``); atoms use rank 13 for the
small-joker atom and 14 for the big-joker atom. ``jokers`` = jokers used as wild cards.
``suit`` is only set for ordinary atoms.
"""

import numpy as np
from cardsim.kernels.jit import inline_kernel, kernel
from cardsim.kernels.rng import code_set_hash

N_RANKS = 13
N_TYPES = 54
COPIES = 3
N_CARDS = N_TYPES * COPIES  # 162
SMALL_JOKER = 52
BIG_JOKER = 53

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_NAMES = ("D", "C", "H", "S")
#: YZ-07 values (A = 1 … K = 13) per rank idx.
RANK_VALUE = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2], dtype=np.int64)
#: YZ-03 point values per rank idx.
RANK_POINTS = np.array([0, 0, 5, 0, 0, 0, 0, 10, 0, 0, 10, 0, 0], dtype=np.int64)
#: rank idx of 5, 10 and K: the point ranks (YZ-06 second-half fallback).
POINT_RANKS = (2, 7, 10)

PASS = 0
SINGLE, PAIR, TRIPLE, BOMB, ATOM, HYDROGEN = 1, 2, 3, 4, 5, 6
KIND_NAMES = ("pass", "single", "pair", "triple", "bomb", "atom", "hydrogen")
ATOM_SMALL_JOKER_RANK = 13
ATOM_BIG_JOKER_RANK = 14
#: Capacity of a legal-move buffer (far above the most moves a 41-card hand can have).
MAX_MOVES = 2048


@inline_kernel
def pack_move(kind, rank, size, jokers, suit):
    """Pack a move into its int32 code."""
    return np.int32(kind | (rank << 3) | (size << 7) | (jokers << 12) | (suit << 15))


@inline_kernel
def move_kind(code):
    """Kind of a move code: 0 pass, 1 single, 2 pair, 3 triple, 4 bomb, 5 atom, 6 hydrogen."""
    return code & 7


@inline_kernel
def move_rank(code):
    """Rank idx of a move code (0 = "3" … 12 = "2"; atoms 13/14 = small/big-joker atom)."""
    return (code >> 3) & 15


@inline_kernel
def move_size(code):
    """Cards a move code plays (jokers included)."""
    return (code >> 7) & 31


@inline_kernel
def move_jokers(code):
    """Jokers a move code uses as wild cards."""
    return (code >> 12) & 7


@inline_kernel
def move_suit(code):
    """Suit idx of an ordinary atom (0 ♦ … 3 ♠; 0 for other kinds)."""
    return (code >> 15) & 3


@kernel
def card_rank(card):
    """Rank idx of a natural card id (jokers have no natural rank: -1)."""
    return card // 4 if card < 52 else -1


@kernel
def card_points(card):
    """YZ-03 points of a card id (5 → 5, 10 and K → 10, else 0)."""
    return RANK_POINTS[card // 4] if card < 52 else 0


#: Order-independent hash of a set of codes (``cardsim.kernels.rng.code_set_hash``), as traced.
move_set_hash = code_set_hash


def canonical_deck() -> np.ndarray:
    """The 162-card deck before shuffling: each type id three times, ascending."""
    return np.repeat(np.arange(N_TYPES, dtype=np.uint8), COPIES)


def card_name(card: int) -> str:
    """Human notation (rank then suit, ``SJ``/``BJ`` for jokers): 46 -> ``"AH"``."""
    if card == SMALL_JOKER:
        return "SJ"
    if card == BIG_JOKER:
        return "BJ"
    return RANK_NAMES[card // 4] + SUIT_NAMES[card % 4]


def parse_card(text: str) -> int:
    """Inverse of :func:`card_name` (case-insensitive); raises ``ValueError`` on bad input."""
    t = text.strip().upper()
    if t == "SJ":
        return SMALL_JOKER
    if t == "BJ":
        return BIG_JOKER
    if len(t) < 2 or t[:-1] not in RANK_NAMES or t[-1] not in SUIT_NAMES:
        raise ValueError(
            f"not a 原子 card: {text!r} (ranks 3..10 J Q K A 2, suits S H C D, SJ, BJ)"
        )
    return RANK_NAMES.index(t[:-1]) * 4 + SUIT_NAMES.index(t[-1])
