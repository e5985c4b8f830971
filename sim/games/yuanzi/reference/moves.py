"""原子 (yuanzi) reference rules, part 1: cards, combinations, legal moves and beats.

Written from ``RULINGS.md`` (YZ-09 … YZ-18) and ``docs/yuanzi-protocol.md`` §2–§4 only; the
kernel is a separate implementation. From ``kernels/`` this imports only the shared encoding
(card ids, move-code layout, names). Everything here is plain Python on lists of 54 counts.

A *hand* is a list of 54 counts (card type id -> copies, 0..3) or a card string such as
``"7S 7S 7H SJ"``. A *move* is an int code laid out as ``encoding.pack_move`` lays it out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral

from cardsim.kernels.yuanzi import encoding as enc
from cardsim.kernels.yuanzi.options import OPTIONS

N_TYPES = enc.N_TYPES
SJ = enc.SMALL_JOKER
BJ = enc.BIG_JOKER
PASS = enc.PASS
SINGLE, PAIR, TRIPLE, BOMB, ATOM, HYDROGEN = (
    enc.SINGLE,
    enc.PAIR,
    enc.TRIPLE,
    enc.BOMB,
    enc.ATOM,
    enc.HYDROGEN,
)
KIND_NAMES = enc.KIND_NAMES
RANK_NAMES = enc.RANK_NAMES
SUIT_NAMES = enc.SUIT_NAMES
ATOM_SJ_RANK = enc.ATOM_SMALL_JOKER_RANK
ATOM_BJ_RANK = enc.ATOM_BIG_JOKER_RANK
RANK_POINTS = tuple(int(p) for p in enc.RANK_POINTS)
RANK_VALUE = tuple(int(v) for v in enc.RANK_VALUE)

# ---------------------------------------------------------------------------------------------
# Rule options (RULINGS.md): name -> default, and the allowed values.
# ---------------------------------------------------------------------------------------------

# The one option table (kernels/yuanzi/options.py) is the source; these are its views.
#: Every 原子 rule option and its default (YZ-06, YZ-14, YZ-15, YZ-18, YZ-19, YZ-23, YZ-25;
#: the design parameters YZ-D1 … YZ-D3).
RULE_DEFAULTS: dict[str, str | bool | int] = OPTIONS.defaults()
#: Allowed values per option (bool options: ``True`` / ``False``; integers: min..max by step).
RULE_CHOICES: dict[str, tuple[str | bool | int, ...]] = {o.name: o.values() for o in OPTIONS}
#: The ruling that defines each option.
RULE_RULINGS: dict[str, str] = {o.name: o.ruling for o in OPTIONS}


def resolve_rules(rules: Mapping[str, str | bool] | None = None, **rule_options) -> dict:
    """Every rule option resolved: defaults, overridden by ``rules``, then by ``rule_options``.

    Raises ``ValueError`` (:class:`cardsim.kernels.options.RuleOptionError`) for an unknown option name
    or a value outside its choices.

    Examples
    --------
    >>> resolve_rules(pass_is_final=True)["pass_is_final"]
    True
    >>> resolve_rules({"dao_bomb": "same_count_only"})["dao_bomb"]
    'same_count_only'
    """
    return OPTIONS.resolve({**(rules or {}), **rule_options})


# ---------------------------------------------------------------------------------------------
# Cards and hands (YZ-01, YZ-03)
# ---------------------------------------------------------------------------------------------


def _count_cards(cards: str) -> list[int]:
    """Counts per card type of a card string, without the three-copies check."""
    counts = [0] * N_TYPES
    for token in cards.split():
        counts[enc.parse_card(token)] += 1
    return counts


def parse_hand(hand: str | Sequence[int]) -> list[int]:
    """A hand as a fresh list of 54 counts, from a card string or a sequence of counts.

    Raises ``ValueError`` if a card type appears more than 3 times (three packs, YZ-01).

    Examples
    --------
    >>> counts = parse_hand("7S 7S SJ")
    >>> counts[4 * 4 + 3], counts[52]  # 7 is rank idx 4
    (2, 1)
    """
    if isinstance(hand, str):
        counts = _count_cards(hand)
    else:
        counts = [int(c) for c in hand]
        if len(counts) != N_TYPES:
            raise ValueError(f"a hand of counts needs {N_TYPES} entries, got {len(counts)}")
    for t, c in enumerate(counts):
        if not 0 <= c <= 3:
            raise ValueError(f"{c} copies of {enc.card_name(t)}: three packs hold 3 (YZ-01)")
    return counts


def cards_text(cards: Sequence[int]) -> str:
    """Card ids as a sorted card string: ``[52, 31, 31] -> "7S 7S SJ"``."""
    return " ".join(enc.card_name(c) for c in sorted(cards))


def hand_text(counts: Sequence[int]) -> str:
    """A hand of 54 counts as a sorted card string (low rank first, ♦ first, jokers last)."""
    return cards_text([t for t in range(N_TYPES) for _ in range(counts[t])])


def card_points(card: int) -> int:
    """YZ-03: 5 -> 5, 10 -> 10, K -> 10, any other card (jokers too) -> 0."""
    return RANK_POINTS[card // 4] if card < 52 else 0


def hand_points(counts: Sequence[int]) -> int:
    """Point value of all cards in a hand of counts (YZ-03)."""
    return sum(counts[r * 4 + s] * RANK_POINTS[r] for r in range(13) for s in range(4))


def dao_index(dao: str | int) -> int:
    """The 刀 rank as a rank idx: a rank string (``"7"``) or an int rank idx (0 = "3" … 12 = "2")."""
    if isinstance(dao, str):
        name = dao.strip().upper()
        if name not in RANK_NAMES:
            raise ValueError(f"not a 原子 rank: {dao!r} (3..10 J Q K A 2)")
        return RANK_NAMES.index(name)
    idx = int(dao)
    if not 0 <= idx < 13:
        raise ValueError(f"刀 rank idx must be 0..12, got {dao!r}")
    return idx


# ---------------------------------------------------------------------------------------------
# Move codes (same bit layout as encoding.pack_move; pure Python for speed)
# ---------------------------------------------------------------------------------------------


def pack(kind: int, rank: int, size: int, jokers: int = 0, suit: int = 0) -> int:
    """A move code, bit for bit ``encoding.pack_move`` (a test checks they agree)."""
    return kind | (rank << 3) | (size << 7) | (jokers << 12) | (suit << 15)


def kind_of(code: int) -> int:
    """Kind of a move code: 0 pass, 1 single, 2 pair, 3 triple, 4 bomb, 5 atom, 6 hydrogen."""
    return code & 7


def rank_of(code: int) -> int:
    """Rank idx of a move code (0 = "3" … 12 = "2"; atoms 13/14 = small/big-joker atom)."""
    return (code >> 3) & 15


def size_of(code: int) -> int:
    """Cards a move code plays (jokers included)."""
    return (code >> 7) & 31


def jokers_of(code: int) -> int:
    """Jokers a move code uses as wild cards."""
    return (code >> 12) & 7


def suit_of(code: int) -> int:
    """Suit idx of an ordinary atom (0 ♦ … 3 ♠)."""
    return (code >> 15) & 3


def _basic_kind(size: int) -> int:
    """YZ-10: 1 card single, 2 pair, 3 triple, 4 or more bomb."""
    return (SINGLE, PAIR, TRIPLE)[size - 1] if size <= 3 else BOMB


def is_joker_only(code: int) -> bool:
    """A single/pair/triple/bomb made of jokers alone (YZ-11; rank 3, never 刀)."""
    return kind_of(code) in (SINGLE, PAIR, TRIPLE, BOMB) and jokers_of(code) == size_of(code)


def is_dao_move(code: int, dao: int) -> bool:
    """Protocol §2: a code is 刀 iff its rank is the 刀, it holds no jokers, not joker-only.

    Joker atoms use ranks 13/14 and are never 刀; joker-only plays hold jokers, so neither are they.
    """
    if code == PASS:
        return False
    return rank_of(code) == dao and jokers_of(code) == 0 and rank_of(code) < 13


def power(code: int, dao: int) -> int:
    """Rank power of a single/pair/triple/bomb/hydrogen code (YZ-09, YZ-11).

    Joker-only: -1 when 3 is the 刀 (jokers rank below 4), else 0 (rank 3). A 刀 play: 13
    (above 2 = 12). Otherwise the natural rank idx.
    """
    if is_joker_only(code):
        return -1 if dao == 0 else 0
    return 13 if rank_of(code) == dao else rank_of(code)


def atom_strength(code: int, dao: int) -> int:
    """YZ-16: 刀原子 (by suit) > 大王原子 > 小王原子 > ordinary atoms by rank, then suit."""
    rank, suit = rank_of(code), suit_of(code)
    if rank == dao:
        return 100 + suit
    if rank == ATOM_BJ_RANK:
        return 90
    if rank == ATOM_SJ_RANK:
        return 80
    return rank * 4 + suit


# ---------------------------------------------------------------------------------------------
# What beats what (YZ-13 … YZ-17), protocol §3
# ---------------------------------------------------------------------------------------------


def beats_code(play: int, top: int, dao: int, rules: Mapping) -> bool:
    """True iff move ``play`` beats move ``top`` (codes; ``rules`` already resolved)."""
    kp, kt = kind_of(play), kind_of(top)
    if play == PASS or top == PASS:
        raise ValueError("PASS neither beats nor is beaten")
    if kt in (SINGLE, PAIR, TRIPLE):
        return _beats_basic(play, top, kp, kt, dao, rules)
    if kt == BOMB:
        if kp in (ATOM, HYDROGEN):  # YZ-15: hydrogen > atom > bomb
            return True
        return kp == BOMB and _bomb_beats_bomb(play, top, dao, rules)
    if kt == ATOM:
        if kp == HYDROGEN:  # YZ-15
            return True
        return kp == ATOM and atom_strength(play, dao) > atom_strength(top, dao)  # YZ-16
    if kt == HYDROGEN:  # YZ-17: 刀氢弹 (power 13) over ordinary ones, otherwise by rank
        return kp == HYDROGEN and power(play, dao) > power(top, dao)
    raise ValueError(f"not a move code: {top}")


def _beats_basic(play: int, top: int, kp: int, kt: int, dao: int, rules: Mapping) -> bool:
    """``play`` (of kind ``kp``) beats the basic play ``top`` (single, pair or triple)."""
    if kp == kt:  # YZ-13: same type (hence same count), higher rank; equal does not beat
        return power(play, dao) > power(top, dao)
    if kp in (ATOM, HYDROGEN):  # YZ-13/YZ-14: atoms and hydrogen beat every basic play
        return True
    if kp == BOMB:
        if is_dao_move(top, dao):  # YZ-14: a 刀 basic play falls only to 刀 bombs (option)
            return bool(rules["dao_bomb_beats_dao_basic"]) and is_dao_move(play, dao)
        return True
    return False


def _bomb_beats_bomb(play: int, top: int, dao: int, rules: Mapping) -> bool:
    """Bomb ``play`` beats bomb ``top``: size, 刀 and rank, in the order of ``dao_bomb``."""
    dp, dt = is_dao_move(play, dao), is_dao_move(top, dao)
    sp, st = size_of(play), size_of(top)
    if rules["dao_bomb"] == "over_all":  # YZ-15 default: 刀 bombs over every ordinary bomb
        if dp != dt:
            return dp
        return sp > st or (sp == st and power(play, dao) > power(top, dao))
    # YZ-15 variant same_count_only: size first; 刀 wins only among equal sizes
    if sp != st:
        return sp > st
    if dp != dt:
        return dp
    return power(play, dao) > power(top, dao)


# ---------------------------------------------------------------------------------------------
# Combinations a hand holds (YZ-10 … YZ-12), protocol §2
# ---------------------------------------------------------------------------------------------


def combinations(counts: Sequence[int], dao: int) -> list[int]:
    """Every distinct move code the hand can play (no PASS), ascending.

    Examples
    --------
    >>> [describe_move(c, "7S 7S 7S") for c in combinations(parse_hand("7S 7S 7S"), 0)]
    ['single 7S (1 card)', 'pair 7S 7S (2 cards)', 'triple 7S 7S 7S (3 cards)', 'atom 7S 7S 7S (3 cards)']
    """
    codes: list[int] = []
    jokers_total = counts[SJ] + counts[BJ]
    for r in range(13):
        natural = counts[r * 4 : r * 4 + 4]
        n = sum(natural)
        if n == 0:
            continue
        wild = 0 if r == dao else jokers_total  # YZ-11: jokers never join 刀 cards
        for size in range(1, n + wild + 1):  # YZ-10/YZ-11: k naturals + (size - k) jokers
            kind = _basic_kind(size)
            for k in range(max(1, size - wild), min(n, size) + 1):
                codes.append(pack(kind, r, size, size - k))
        for suit in range(4):  # YZ-10: atom = the three copies of one exact card
            if natural[suit] == 3:
                codes.append(pack(ATOM, r, 3, 0, suit))
        if min(natural) >= 2:  # YZ-10: hydrogen = 2 of each suit
            codes.append(pack(HYDROGEN, r, 8))
    for size in range(1, jokers_total + 1):  # YZ-11: joker-only plays rank 3
        codes.append(pack(_basic_kind(size), 0, size, size))
    if counts[SJ] == 3:  # YZ-10: 小王原子 / 大王原子
        codes.append(pack(ATOM, ATOM_SJ_RANK, 3))
    if counts[BJ] == 3:
        codes.append(pack(ATOM, ATOM_BJ_RANK, 3))
    return sorted(codes)


def legal_codes(counts: Sequence[int], top: int, dao: int, rules: Mapping) -> list[int]:
    """Protocol §4 legal set for resolved ``rules``; ``top == 0`` means leading. Ascending."""
    combos = combinations(counts, dao)
    if top == PASS:  # YZ-18: the leader plays any combination and may not pass
        return combos
    beating = [c for c in combos if beats_code(c, top, dao, rules)]
    if beating and rules["pass_only_if_unable"]:  # YZ-18 variant
        return beating
    return [PASS, *beating]  # YZ-18 default: passing is always allowed


def wild_small_jokers(small: int, big: int, jokers: int) -> int:
    """How many of a move's ``jokers`` wild jokers are small jokers (protocol §2).

    Every joker atom (小王原子 = 3 SJ, 大王原子 = 3 BJ) that the hand could still play before the
    move stays playable when some choice of jokers allows it (as many of them as possible);
    among the choices that keep the most, small jokers are given up first.

    Examples
    --------
    >>> wild_small_jokers(3, 1, 1)  # SJ SJ SJ BJ, one wild joker: give BJ, keep the 小王原子
    0
    >>> wild_small_jokers(2, 1, 1), wild_small_jokers(3, 3, 1)  # no atom to keep / keep one
    (1, 1)
    """
    lo, hi = max(0, jokers - big), min(jokers, small)
    if lo > hi:
        raise ValueError(f"{jokers} wild jokers from {small} small and {big} big")

    def kept(s: int) -> int:  # joker atoms still possible after giving up s small jokers
        return (small >= 3 and small - s >= 3) + (big >= 3 and big - (jokers - s) >= 3)

    return max(range(lo, hi + 1), key=lambda s: (kept(s), s))


def cards_given_up(hand: str | Sequence[int], code: int) -> list[int]:
    """The physical cards (ids) that move ``code`` takes from ``hand`` (protocol §2).

    Wild jokers: :func:`wild_small_jokers` (keep joker atoms, then small jokers first). Natural cards of a single/pair/triple/bomb: one
    at a time from the suit with the fewest remaining copies (> 0), ties to the lowest suit idx.
    Atoms give their three copies, hydrogen two of each suit. ``ValueError`` if not in hand.

    Examples
    --------
    >>> cards_text(cards_given_up("7D 7H 7H 7S 7S 7S", pack(PAIR, 4, 2)))
    '7D 7H'
    """
    counts = parse_hand(hand)
    work = list(counts)
    kind, rank, size, jokers = kind_of(code), rank_of(code), size_of(code), jokers_of(code)
    taken: list[int] = []
    if kind == ATOM:
        card = {ATOM_SJ_RANK: SJ, ATOM_BJ_RANK: BJ}.get(rank, rank * 4 + suit_of(code))
        taken = [card] * 3
    elif kind == HYDROGEN:
        taken = [rank * 4 + s for s in range(4) for _ in range(2)]
    elif kind in (SINGLE, PAIR, TRIPLE, BOMB):
        small = wild_small_jokers(work[SJ], work[BJ], jokers)
        taken = [SJ] * small + [BJ] * (jokers - small)
        for _ in range(size - jokers):
            suits = [s for s in range(4) if work[rank * 4 + s] > 0]
            if not suits:
                break
            best = min(suits, key=lambda s: (work[rank * 4 + s], s))
            work[rank * 4 + best] -= 1
            taken.append(rank * 4 + best)
    else:
        raise ValueError(f"move {code} gives up no cards")
    need = [0] * N_TYPES
    for card in taken:
        need[card] += 1
    if len(taken) != size or any(need[t] > counts[t] for t in range(N_TYPES)):
        raise ValueError(f"move {code} ({describe_code(code)}) is not in hand {hand_text(counts)}")
    return taken


def is_move_code(code: object) -> bool:
    """Whether ``code`` is a move code at all (``encoding.pack_move``'s layout, fields in
    range) — not whether it is legal anywhere. What a strategy returns is checked with this
    before it is described.

    Examples
    --------
    >>> is_move_code(PASS), is_move_code(pack(BOMB, 4, 4)), is_move_code(pack(ATOM, 13, 2))
    (True, True, True)
    >>> is_move_code(-1), is_move_code(999999), is_move_code(7), is_move_code(pack(PAIR, 13, 2))
    (False, False, False, False)
    """
    if isinstance(code, bool) or not isinstance(code, Integral):
        return False
    code = int(code)
    if code == PASS:
        return True
    if not 0 < code < 1 << 17:
        return False
    kind, rank, size, jokers = kind_of(code), rank_of(code), size_of(code), jokers_of(code)
    top_rank = ATOM_BJ_RANK if kind == ATOM else len(RANK_NAMES) - 1
    return SINGLE <= kind <= HYDROGEN and rank <= top_rank and size >= 1 and jokers <= size


def describe_code(code: int, dao: int | None = None) -> str:
    """A move code without a hand: ``"bomb of 7 (4 cards, 1 joker)"``, ``"atom 7S"``, ``"pass"``.

    Raises ``ValueError`` for a number that is not a move code (:func:`is_move_code`)."""
    if code == PASS:
        return "pass"
    if not is_move_code(code):
        raise ValueError(f"{code!r} is not a 原子 move code")
    kind, rank, size, jokers = kind_of(code), rank_of(code), size_of(code), jokers_of(code)
    prefix = "dao " if dao is not None and is_dao_move(code, dao) else ""
    if kind == ATOM:
        name = {ATOM_SJ_RANK: "SJ", ATOM_BJ_RANK: "BJ"}.get(rank)
        return f"{prefix}atom {name or RANK_NAMES[rank] + SUIT_NAMES[suit_of(code)]}"
    what = "jokers" if jokers == size else RANK_NAMES[rank]
    extra = f", {jokers} joker{'s' * (jokers > 1)}" if 0 < jokers < size else ""
    return f"{prefix}{KIND_NAMES[kind]} of {what} ({size} card{'s' * (size != 1)}{extra})"


def describe_move(code: int, hand: str | Sequence[int], dao: str | int | None = None) -> str:
    """A move as readable text with the actual cards it gives up from ``hand``.

    ``dao`` (optional) marks 刀 moves with ``"dao "``.

    Examples
    --------
    >>> describe_move(pack(BOMB, 4, 4), "7D 7C 7H 7S 8S")
    'bomb 7D 7C 7H 7S (4 cards)'
    >>> describe_move(pack(SINGLE, 4, 1), "7S", dao="7")
    'dao single 7S (1 card)'
    >>> describe_move(PASS, "7S")
    'pass'
    """
    if code == PASS:
        return "pass"
    cards = cards_given_up(hand, code)
    prefix = "dao " if dao is not None and is_dao_move(code, dao_index(dao)) else ""
    n = len(cards)
    return f"{prefix}{KIND_NAMES[kind_of(code)]} {cards_text(cards)} ({n} card{'s' * (n > 1)})"


# ---------------------------------------------------------------------------------------------
# Public string API: classify, beats, legal_moves
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Combination:
    """What a set of cards is, read as its strongest combination (YZ-10, YZ-12).

    ``rank`` is the natural rank string, ``"3"`` for joker-only plays and ``"SJ"``/``"BJ"``
    for the joker atoms; ``suit`` is set for ordinary and 刀 atoms only.
    """

    kind: str
    size: int
    rank: str
    is_dao: bool
    suit: str | None
    jokers: int
    code: int


def combination_of(code: int, dao: str | int) -> Combination:
    """The :class:`Combination` of a move code (not PASS) under the given 刀."""
    d = dao_index(dao)
    kind, rank = kind_of(code), rank_of(code)
    suit = None
    if kind == ATOM and rank in (ATOM_SJ_RANK, ATOM_BJ_RANK):
        rank_name = "SJ" if rank == ATOM_SJ_RANK else "BJ"
    else:
        rank_name = RANK_NAMES[rank]
        if kind == ATOM:
            suit = SUIT_NAMES[suit_of(code)]
    return Combination(
        KIND_NAMES[kind],
        size_of(code),
        rank_name,
        is_dao_move(code, d),
        suit,
        jokers_of(code),
        code,
    )


def classify(cards: str, dao: str | int) -> Combination | None:
    """The strongest combination ``cards`` form under 刀 rank ``dao``, or ``None``.

    Strongest reading first (YZ-12, YZ-15): hydrogen > atom > bomb > single/pair/triple.
    ``None`` when the cards form no combination: mixed natural ranks, jokers with 刀 cards
    (YZ-11), no cards, or a multiset impossible with three packs (four ``7S``).

    Examples
    --------
    >>> classify("7S 7S 7S", dao="2").kind
    'atom'
    >>> c = classify("7S 7H SJ BJ", dao="2"); (c.kind, c.size, c.rank, c.jokers)
    ('bomb', 4, '7', 2)
    >>> classify("2S 2H SJ", dao="2") is None
    True
    """
    counts = _count_cards(cards)
    if any(c > 3 for c in counts) or sum(counts) == 0:
        return None
    d = dao_index(dao)
    jokers = counts[SJ] + counts[BJ]
    ranks = [r for r in range(13) if sum(counts[r * 4 : r * 4 + 4]) > 0]
    if len(ranks) > 1:
        return None
    if not ranks:  # YZ-10/YZ-11: joker atoms, else joker-only plays of rank 3
        if counts[SJ] == 3 and counts[BJ] == 0:
            return combination_of(pack(ATOM, ATOM_SJ_RANK, 3), d)
        if counts[BJ] == 3 and counts[SJ] == 0:
            return combination_of(pack(ATOM, ATOM_BJ_RANK, 3), d)
        return combination_of(pack(_basic_kind(jokers), 0, jokers, jokers), d)
    r = ranks[0]
    if r == d and jokers:  # YZ-11: jokers never combine with 刀 cards
        return None
    natural = counts[r * 4 : r * 4 + 4]
    size = sum(natural) + jokers
    if size == 8 and jokers == 0 and natural == [2, 2, 2, 2]:  # YZ-10 hydrogen
        return combination_of(pack(HYDROGEN, r, 8), d)
    if size == 3 and jokers == 0 and 3 in natural:  # YZ-10 atom
        return combination_of(pack(ATOM, r, 3, 0, natural.index(3)), d)
    return combination_of(pack(_basic_kind(size), r, size, jokers), d)


def _top_code(top: int | str | None, dao: int) -> int:
    if top is None or top == "" or top == PASS:
        return PASS
    if isinstance(top, str):
        combo = classify(top, dao)
        if combo is None:
            raise ValueError(f"top play {top!r} is not a 原子 combination")
        return combo.code
    return int(top)


def beats(
    play: str, top: str, dao: str | int, rules: Mapping | None = None, **rule_options
) -> bool:
    """True iff the cards ``play`` beat the cards ``top`` (each read as its strongest combination).

    Raises ``ValueError`` if either is not a combination.

    Examples
    --------
    >>> beats("7S 7S 7S 7H", "2S", dao="2")        # YZ-14: ordinary bomb on a 刀 single
    False
    >>> beats("2S 2H 2C 2D", "2S", dao="2")        # a 刀 bomb does beat it
    True
    >>> beats("2S 2H 2C 2D", "2S", dao="2", dao_bomb_beats_dao_basic=False)
    False
    """
    resolved = resolve_rules(rules, **rule_options)
    d = dao_index(dao)
    p = classify(play, d)
    if p is None:
        raise ValueError(f"play {play!r} is not a 原子 combination")
    return beats_code(p.code, _top_code(top, d), d, resolved)


def legal_moves(
    hand: str | Sequence[int],
    top: int | str | None,
    dao: str | int,
    rules: Mapping | None = None,
    **rule_options,
) -> list[int]:
    """Every distinct legal move code for ``hand`` facing ``top`` (protocol §2/§4), ascending.

    ``top`` is ``None`` / ``0`` / ``""`` when leading (no PASS then), a move code, or a card
    string read as its strongest combination. PASS (0) is included when a follower may pass.

    Examples
    --------
    >>> [describe_move(c, "7S 8S") for c in legal_moves("7S 8S", "6H", dao="2")]
    ['pass', 'single 7S (1 card)', 'single 8S (1 card)']
    >>> legal_moves("7S 8S", "6H", dao="2", pass_only_if_unable=True) == legal_moves(
    ...     "7S 8S", "6H", dao="2")[1:]
    True
    """
    resolved = resolve_rules(rules, **rule_options)
    d = dao_index(dao)
    counts = parse_hand(hand)
    return legal_codes(counts, _top_code(top, d), d, resolved)
