"""ATLAS card and decision encoding, shared by the reference rules and the kernel.

Card types (64). Matching species ``s = continent * 12 + cls * 3 + i`` (AT-02), so the
(continent, class) cell is ``s // 3`` = ``continent * 4 + cls``:

=====  ===========================  =====  ======================
id     card                         copies  hand value (AT-05)
=====  ===========================  =====  ======================
0..59  matching species               3      1
60     ATLAS (wild, AT-11)            6      3
61     SKIP (action, AT-17)           6      2
62     REVERSE (action, AT-18)        6      2
63     TRADE (action, AT-19)          6      2
=====  ===========================  =====  ======================

The copies of the four special cards (0..12 each), the hand size (7..20) and the hand values are
design parameters (AT-D1 … AT-D4, ``kernels/atlas/options.py``); the table gives their defaults.
Arrays sized by the deck use ``MAX_CARDS`` (every special at its maximum).

Continents 0..4 = Africa, America, Asia, Australia & New Zealand, Europe; classes 0..3 = Land,
Water, Bird, Plant. A hand is ``uint8[64]`` counts. Deck before shuffling: ``canonical_deck()``.

Decision codes (int32), see docs/atlas-protocol.md:

==========  ===========================================================
NONE = 0    decline a claim / stop self-melding / play TRADE on nobody
meld        ``kind | loc << 2 | wild << 7`` (< 4096): kind 1 triple, 2 quad, 3 five
PAIR        4096: the last-card pair claim (AT-21)
DISCARD+t   8192 + card type
TARGET+s    16384 + seat (TRADE target)
TAKE+t      24576 + card type (TRADE with ``trade_pick=seen``)
GIVE+t      32768 + card type (TRADE: the card given back)
==========  ===========================================================
"""

import numpy as np
from cardsim.kernels.jit import kernel
from cardsim.kernels.rng import code_set_hash

N_SPECIES = 60
N_TYPES = 64
ATLAS = 60
SKIP = 61
REVERSE = 62
TRADE = 63
HAND_SIZE = 13  # the default hand (AT-03); AT-D1 changes it
SPECIES_COPIES = 3  # copies of every matching species in the deck (AT-02)
SPECIES_PER_CELL = 3  # species in each (continent, class) cell (AT-02)
N_SPECIALS = 4  # the special cards ATLAS, SKIP, REVERSE, TRADE (ids ATLAS .. ATLAS + 3)
DEFAULT_SPECIAL = 6  # copies of each special in the printed deck (AT-01; AT-D2, AT-D3 default)
MAX_SPECIAL = 12  # most copies of each special card (AT-D2, AT-D3)
MAX_HAND_SIZE = 20  # largest hand dealt (AT-D1)
MAX_CARDS = SPECIES_COPIES * N_SPECIES + N_SPECIALS * MAX_SPECIAL  # the largest deck: 228 cards
#: the default deck (AT-01): 204 cards; AT-D2, AT-D3 change it
N_CARDS = SPECIES_COPIES * N_SPECIES + N_SPECIALS * DEFAULT_SPECIAL
N_CONTINENTS = 5
N_CLASSES = 4
N_CELLS = 20

CONTINENTS = ("Africa", "America", "Asia", "Australia & New Zealand", "Europe")
CLASSES = ("Land", "Water", "Bird", "Plant")
#: Species names in id order (AT-02). The rule text does not name the European species:
#: they are placeholders, marked as such.
SPECIES = (
    # Africa
    "Elephant", "Giraffe", "Lion",
    "Crocodile", "Needlefish", "Teardrop Butterflyfish",
    "Flamingo", "Ibis", "Ostrich",
    "Acacia", "Bird of Paradise", "Dragon Blood Tree",
    # America
    "Alpaca", "Bison", "Squirrel",
    "Silver Salmon", "Bluefin Tuna", "Whale",
    "Albatross", "Bald Eagle", "Toucan",
    "Maple", "Passion Flower", "Jacaranda",
    # Asia
    "Orangutan", "Giant Panda", "Tiger",
    "Pearl Gourami", "Seahorse", "Sea Turtle",
    "Laughing Thrush", "Parrot", "Peacock",
    "Cherry Blossom", "Lotus", "Persian Ironwood",
    # Australia & New Zealand
    "Red Kangaroo", "Koala", "Tasmanian Devil",
    "Clownfish", "Great White Shark", "Stingray",
    "Kingfisher", "Kiwi Bird", "Kookaburra",
    "Coolabah Tree", "Kangaroo Paw Flower", "Kauri Tree",
    # Europe: placeholders (the rule text omits them, AT-02)
    "Europe Land 1", "Europe Land 2", "Europe Land 3",
    "Europe Water 1", "Europe Water 2", "Europe Water 3",
    "Europe Bird 1", "Europe Bird 2", "Europe Bird 3",
    "Europe Plant 1", "Europe Plant 2", "Europe Plant 3",
)  # fmt: skip
CARD_NAMES = SPECIES + ("ATLAS", "SKIP", "REVERSE", "TRADE")

NONE = 0
TRIPLE, QUAD, FIVE = 1, 2, 3
PAIR = 4096
DISCARD = 8192
TARGET = 16384
TAKE = 24576
GIVE = 32768
#: Decision kinds (the ``dtype`` a strategy gets): claim, self-meld, discard, TRADE target,
#: TRADE take (``trade_pick=seen``), TRADE give.
DT_CLAIM, DT_SELF, DT_DISCARD, DT_TARGET, DT_TAKE, DT_GIVE = 0, 1, 2, 3, 4, 5
#: Capacity of a decision buffer (far above the most options any decision can have).
MAX_OPTIONS = 512

#: How a round ends (protocol §6 ``end``), by code.
END_NAMES = (
    "claim",
    "self_meld",
    "last_card_draw",
    "last_card_claim",
    "action_card",
    "no_winner",
    "turn_cap",
    "last_discard",
)

#: AT-05 hand values per card type: the defaults of AT-D4 (``atlas_value``, ``action_value``,
#: ``matching_value``).
HAND_VALUE = np.array([1] * N_SPECIES + [3, 2, 2, 2], dtype=np.int64)


@kernel
def pack_meld(kind, loc, wild):
    """Meld code: ``kind`` 1..3, ``loc`` (cell / continent / class), ``wild`` (count or mask)."""
    return np.int32(kind | (loc << 2) | (wild << 7))


@kernel
def meld_kind_of(code):
    """Kind of a meld code: 1 triple, 2 quad, 3 five."""
    return code & 3


@kernel
def meld_loc(code):
    """Where a meld lies: its cell (triple), continent (quad) or class (five)."""
    return (code >> 2) & 31


@kernel
def meld_wild(code):
    """ATLAS cards of a triple; the bitmask of the ATLAS-filled slots of a quad / five."""
    return (code >> 7) & 31


@kernel
def continent_of(species):
    """Continent 0..4 of a species id (AT-02)."""
    return species // 12


@kernel
def class_of(species):
    """Class 0..3 of a species id (Land, Water, Bird, Plant)."""
    return (species % 12) // 3


@kernel
def cell_of(species):
    """(continent, class) cell of a species id: continent * 4 + class."""
    return species // 3


#: Order-independent hash of a set of codes (``cardsim.kernels.rng.code_set_hash``), as traced.
option_set_hash = code_set_hash


def canonical_deck(
    specials: tuple[int, int, int, int] = (DEFAULT_SPECIAL,) * N_SPECIALS,
) -> np.ndarray:
    """The deck before shuffling: species 0..59 three times each, then ``specials[j]`` copies of
    ATLAS, SKIP, REVERSE, TRADE in that order (AT-01; the counts are AT-D2, AT-D3). The default
    is the 204-card deck.

    >>> len(canonical_deck()), len(canonical_deck((0, 6, 6, 6))), int(canonical_deck((0, 1, 0, 0))[-1])
    (204, 198, 61)
    """
    return np.concatenate(
        [
            np.repeat(np.arange(N_SPECIES, dtype=np.uint8), SPECIES_COPIES),
            np.repeat(
                np.arange(ATLAS, N_TYPES, dtype=np.uint8), np.asarray(specials, dtype=np.int64)
            ),
        ]
    )


def card_id(name: str) -> int:
    """Card type id of a name (case-insensitive): ``card_id("giant panda") == 25``."""
    key = " ".join(name.strip().lower().split())
    for i, n in enumerate(CARD_NAMES):
        if n.lower() == key:
            return i
    raise ValueError(f"not an ATLAS card name: {name!r}")
