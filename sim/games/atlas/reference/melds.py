"""ATLAS melds (AT-10, AT-11): kinds, canonical codes, the cards a code gives up, text.

A meld code is ``kind | loc << 2 | wild << 7`` (``cardsim.kernels.atlas.encoding.pack_meld``):

- triple ``(1, cell, w)``: 3 − w natural cards of one (continent, class) cell and w ATLAS;
- quad ``(2, continent, mask)``: one card per class of one continent, ``mask`` = class slots
  filled by ATLAS;
- five ``(3, class, mask)``: one card per continent of one class, ``mask`` = continent slots
  filled by ATLAS.

An all-wild meld (only with ``all_wild_melds``) has ``loc = 0``. Which physical cards a code
gives up is fixed (docs/atlas-protocol.md §2): for each natural slot in slot order, the species of
that slot's cell with the fewest copies in hand (> 0), ties to the lowest id, recounting after
each card; then the ATLAS cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference.cards import ATLAS, Card, card, hand_counts

TRIPLE, QUAD, FIVE = enc.TRIPLE, enc.QUAD, enc.FIVE
KIND_NAMES = {TRIPLE: "triple", QUAD: "quad", FIVE: "five"}


@dataclass(frozen=True)
class MeldSpec:
    """One canonical meld: its code and the cells of its natural slots, in slot order."""

    code: int
    kind: int
    loc: int
    wild: int  # count (triple) or slot mask (quad, five)
    n_wild: int  # ATLAS cards in the meld
    slots: tuple[int, ...]  # natural slots: the cell each one needs, in slot order
    need: tuple[tuple[int, int], ...]  # (cell, natural cards needed from it)

    @property
    def size(self) -> int:
        return self.n_wild + len(self.slots)


def _all_specs() -> tuple[MeldSpec, ...]:
    """Every canonical meld code (AT-10, AT-11), all-wild ones last."""
    specs: list[MeldSpec] = []

    def add(kind: int, loc: int, wild: int, n_wild: int, slots: list[int]) -> None:
        code = int(enc.pack_meld(kind, loc, wild))
        need = tuple((c, slots.count(c)) for c in sorted(set(slots)))
        specs.append(MeldSpec(code, kind, loc, wild, n_wild, tuple(slots), need))

    # AT-10 triple: 3 cards of one continent and class; w ATLAS (AT-11), >= 1 natural
    for c in range(enc.N_CELLS):
        for w in range(3):
            add(TRIPLE, c, w, w, [c] * (3 - w))
    # AT-10 quad: one continent, one card of each class; mask = class slots filled by ATLAS
    for k in range(enc.N_CONTINENTS):
        for mask in range(15):
            slots = [k * 4 + j for j in range(4) if not mask >> j & 1]
            add(QUAD, k, mask, bin(mask).count("1"), slots)
    # AT-10 five: one class, one card of each continent; mask = continent slots filled by ATLAS
    for j in range(enc.N_CLASSES):
        for mask in range(31):
            slots = [k * 4 + j for k in range(5) if not mask >> k & 1]
            add(FIVE, j, mask, bin(mask).count("1"), slots)
    # AT-11 variant all_wild_melds: one all-ATLAS code per kind, loc = 0
    add(TRIPLE, 0, 3, 3, [])
    add(QUAD, 0, 15, 4, [])
    add(FIVE, 0, 31, 5, [])
    return tuple(specs)


SPECS = _all_specs()
SPEC_BY_CODE = {s.code: s for s in SPECS}
#: Index for speed only: the specs with w ATLAS; the specs with a natural slot in cell c.
_BY_WILD = [[s for s in SPECS if s.n_wild == w] for w in range(6)]
_BY_CELL = [[s for s in SPECS if c in s.slots] for c in range(enc.N_CELLS)]


def spec(code: int) -> MeldSpec:
    """The meld of a code; ``ValueError`` if the code is not a meld."""
    try:
        return SPEC_BY_CODE[int(code)]
    except KeyError:
        raise ValueError(f"not an ATLAS meld code: {code}") from None


def _cell_counts(counts: Sequence[int]) -> list[int]:
    return [counts[3 * c] + counts[3 * c + 1] + counts[3 * c + 2] for c in range(enc.N_CELLS)]


def _fillable(s: MeldSpec, cells: list[int]) -> bool:
    return all(cells[c] >= k for c, k in s.need)


def self_meld_codes(counts: Sequence[int], all_wild_melds: bool = False) -> list[int]:
    """Codes of every self-meld a hand (64 counts) can lay (AT-07, AT-10, AT-11), ascending.

    Every code whose natural slots the hand can fill and whose ATLAS count the hand holds.
    """
    cells = _cell_counts(counts)
    out = []
    for w in range(min(counts[ATLAS], 5) + 1):
        for s in _BY_WILD[w]:
            if not s.slots and not all_wild_melds:
                continue  # AT-11: a meld needs one natural card unless all_wild_melds
            if _fillable(s, cells):
                out.append(s.code)
    return sorted(out)


def claim_meld_codes(counts: Sequence[int], x: int, all_wild_melds: bool = False) -> list[int]:
    """Codes of every meld that claims discard ``x`` with cards of the hand (AT-12), ascending.

    A matching ``x`` fills its own slot (a natural slot of its cell); an ATLAS ``x`` fills one
    wild slot. Action cards are never claimed (AT-11).
    """
    if x >= enc.N_SPECIES and x != ATLAS:
        return []
    cells = _cell_counts(counts)
    w = counts[ATLAS]
    out = []
    if x == ATLAS:
        # the ATLAS discard fills one wild slot; the hand gives the other wilds and naturals
        for n_wild in range(1, min(w + 1, 5) + 1):
            for s in _BY_WILD[n_wild]:
                if not s.slots and not all_wild_melds:
                    continue  # AT-11: a meld needs one natural card unless all_wild_melds
                if _fillable(s, cells):
                    out.append(s.code)
    else:
        # the matching discard fills a natural slot of its own cell; the hand gives the rest
        cx = x // 3
        cells[cx] += 1  # count the discard as if in hand: it fills one slot of its cell
        for s in _BY_CELL[cx]:
            if s.n_wild <= w and _fillable(s, cells):
                out.append(s.code)
    return sorted(out)


def given_up(
    counts: Sequence[int], code: int, x: int | None = None, same_species: bool = False
) -> list[int]:
    """The cards of the hand a meld code gives up (protocol §2), in slot order, ATLAS last.

    Parameters
    ----------
    counts
        The hand, 64 counts (not changed).
    code
        A meld code the hand can lay (self-meld) or claim ``x`` with.
    x
        The claimed discard, or ``None`` for a self-meld.
    same_species
        The claim is the 優先配 same-species triple (AT-14, ``claim_priority=text``): it gives up
        two cards of ``x``'s species (protocol §4), whatever the fewest-copies rule would take.

    Examples
    --------
    >>> from cardsim.sim.games.atlas.reference.cards import card, hand_counts, names
    >>> h = hand_counts(["Giant Panda", "Giant Panda", "Tiger", "ATLAS"])
    >>> names(given_up(h, int(enc.pack_meld(1, 8, 0))))  # fewest copies first: Tiger
    'Tiger, Giant Panda ×2'
    """
    s = spec(code)
    if same_species:
        if x is None or x >= enc.N_SPECIES or counts[x] < 2 or (s.kind, s.n_wild) != (TRIPLE, 0):
            raise ValueError(f"meld code {code} is not a same-species triple of card {x}")
        return [x, x]  # AT-14 優先配: the two cards of the discard's species
    left = list(counts)
    slots = list(s.slots)
    n_wild = s.n_wild
    if x is not None:
        if x == ATLAS:
            n_wild -= 1  # the discard fills one wild slot
        else:
            slots.remove(x // 3)  # the discard fills its own slot
    out: list[int] = []
    for c in slots:
        cands = [t for t in range(3 * c, 3 * c + 3) if left[t] > 0]
        if not cands:
            raise ValueError(f"the hand cannot lay meld code {code}")
        t = min(cands, key=lambda t: (left[t], t))  # fewest copies, then lowest id
        left[t] -= 1
        out.append(t)
    if left[ATLAS] < n_wild:
        raise ValueError(f"the hand cannot lay meld code {code}: too few ATLAS")
    out += [ATLAS] * n_wild
    return out


def meld_kind(cards: Sequence[Card], all_wild_melds: bool = False) -> str | None:
    """Kind of meld a set of cards forms: ``"triple"``, ``"quad"``, ``"five"`` or ``None``.

    AT-10: triple = 3 cards of one continent and class; quad = 4 cards of one continent, one per
    class; five = 5 cards of one class, one per continent. AT-11: ATLAS stands for any matching
    card, a meld needs one natural card unless ``all_wild_melds``; action cards never meld.

    Examples
    --------
    >>> meld_kind(["Giant Panda", "Tiger", "ATLAS"])
    'triple'
    >>> meld_kind(["Maple", "Lotus", "Kauri Tree", "Acacia", "Europe Plant 1"])
    'five'
    >>> meld_kind(["ATLAS", "ATLAS", "ATLAS"]), meld_kind(["ATLAS"] * 3, all_wild_melds=True)
    (None, 'triple')
    """
    ids = [card(c) for c in cards]
    if any(i > ATLAS for i in ids):
        return None  # AT-11: action cards are never in a meld
    nat = [i for i in ids if i != ATLAS]
    if not nat and not all_wild_melds:
        return None
    n = len(ids)
    conts = [i // 12 for i in nat]
    classes = [(i % 12) // 3 for i in nat]
    if n == 3 and len({i // 3 for i in nat}) <= 1:
        return "triple"
    if n == 4 and len(set(conts)) <= 1 and len(set(classes)) == len(classes):
        return "quad"
    if n == 5 and len(set(classes)) <= 1 and len(set(conts)) == len(conts):
        return "five"
    return None


def meld_title(code: int) -> str:
    """Short name of a meld code: ``"triple Asia Land"``, ``"quad Asia"``, ``"five Plant"``."""
    s = spec(code)
    if not s.slots:
        return f"all-wild {KIND_NAMES[s.kind]}"
    if s.kind == TRIPLE:
        return f"triple {enc.CONTINENTS[s.loc // 4]} {enc.CLASSES[s.loc % 4]}"
    if s.kind == QUAD:
        return f"quad {enc.CONTINENTS[s.loc]}"
    return f"five {enc.CLASSES[s.loc]}"


def meld_from_cards(hand: Sequence[Card], code: int, discard: Card | None = None) -> list[int]:
    """:func:`given_up` for a hand given as card names or ids."""
    return given_up(hand_counts(hand), code, None if discard is None else card(discard))
