"""ATLAS cards for the reference rules: names, continents, classes, hands (AT-01 … AT-05).

A card is named by its English name (case-insensitive, see ``cardsim.kernels.atlas.encoding.CARD_NAMES``)
or given by its type id 0..63. Inside the reference a hand is a list of 64 counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cardsim.kernels.atlas import encoding as enc

Card = str | int

ATLAS = enc.ATLAS
SKIP = enc.SKIP
REVERSE = enc.REVERSE
TRADE = enc.TRADE
ACTIONS = (SKIP, REVERSE, TRADE)

#: AT-05 hand values per card type, as plain ints (ATLAS 3, action 2, matching 1).
VALUE = [int(v) for v in enc.HAND_VALUE]


def card(c: Card) -> int:
    """Type id of a card name or id.

    Examples
    --------
    >>> card("giant panda"), card("ATLAS"), card(61)
    (25, 60, 61)
    """
    if isinstance(c, str):
        return enc.card_id(c)
    i = int(c)
    if not 0 <= i < enc.N_TYPES:
        raise ValueError(f"not an ATLAS card id: {c!r}")
    return i


def name(c: Card) -> str:
    """English name of a card (``name(25) == "Giant Panda"``)."""
    return enc.CARD_NAMES[card(c)]


def is_matching(c: Card) -> bool:
    """True for the 60 matching species (AT-02)."""
    return card(c) < enc.N_SPECIES


def is_wild(c: Card) -> bool:
    """True for ATLAS (AT-11)."""
    return card(c) == ATLAS


def is_action(c: Card) -> bool:
    """True for SKIP, REVERSE and TRADE (AT-01).

    Examples
    --------
    >>> is_action("Trade"), is_action("ATLAS"), is_action("Lion")
    (True, False, False)
    """
    return card(c) in ACTIONS


def continent(c: Card) -> str | None:
    """Continent of a matching card; ``None`` for ATLAS and action cards (AT-02).

    Examples
    --------
    >>> continent("Giant Panda"), continent("Kauri Tree"), continent("ATLAS")
    ('Asia', 'Australia & New Zealand', None)
    """
    i = card(c)
    return enc.CONTINENTS[i // 12] if i < enc.N_SPECIES else None


def card_class(c: Card) -> str | None:
    """Class (Land, Water, Bird, Plant) of a matching card; ``None`` otherwise (AT-02).

    Examples
    --------
    >>> card_class("Giant Panda"), card_class("Europe Bird 2"), card_class("SKIP")
    ('Land', 'Bird', None)
    """
    i = card(c)
    return enc.CLASSES[(i % 12) // 3] if i < enc.N_SPECIES else None


def cell(species: int) -> int:
    """(continent, class) cell 0..19 of a species id: ``continent * 4 + class``."""
    return species // 3


def hand_counts(cards: Iterable[Card]) -> list[int]:
    """64 counts of a list of cards (names or ids).

    Examples
    --------
    >>> hand_counts(["Lion", "lion", "ATLAS"])[2], hand_counts(["ATLAS"])[60]
    (2, 1)
    """
    counts = [0] * enc.N_TYPES
    for c in cards:
        counts[card(c)] += 1
    return counts


def hand_cards(counts: Sequence[int]) -> list[int]:
    """The cards of a 64-count hand, type id ascending, each repeated by its count."""
    return [t for t in range(enc.N_TYPES) for _ in range(counts[t])]


def hand_value(counts: Sequence[int], values: tuple[int, int, int] | None = None) -> int:
    """AT-05 value of a hand of counts: ATLAS 3, action 2, matching 1, or ``values`` = the
    (ATLAS, action, matching) values of design parameter AT-D4.

    Examples
    --------
    >>> hand_value(hand_counts(["ATLAS", "SKIP", "Lion"]))  # 3 + 2 + 1
    6
    >>> hand_value(hand_counts(["ATLAS", "SKIP", "Lion"]), (10, 0, 5))  # 10 + 0 + 5
    15
    """
    if values is None:
        return sum(VALUE[t] * n for t, n in enumerate(counts))
    wild, action, matching = values
    per = [matching] * enc.N_SPECIES + [wild, action, action, action]
    return sum(per[t] * n for t, n in enumerate(counts))


def names(cards: Iterable[int]) -> str:
    """Readable list of cards: ``"Giant Panda ×2, ATLAS"`` (in the order given, grouped)."""
    out: list[str] = []
    seen: dict[int, int] = {}
    for c in cards:
        seen[c] = seen.get(c, 0) + 1
    for c, k in seen.items():
        out.append(enc.CARD_NAMES[c] + (f" ×{k}" if k > 1 else ""))
    return ", ".join(out) if out else "nothing"


def pairs(held: int, other: int) -> bool:
    """AT-21 last-card pair: same species; ATLAS pairs any matching card; two ATLAS never pair.

    Examples
    --------
    >>> pairs(card("Lion"), card("Lion")), pairs(card("ATLAS"), card("Lion"))
    (True, True)
    >>> pairs(card("ATLAS"), card("ATLAS")), pairs(card("SKIP"), card("SKIP"))
    (False, False)
    """
    if held in ACTIONS or other in ACTIONS:
        return False
    if held == ATLAS and other == ATLAS:
        return False
    return ATLAS in (held, other) or held == other
