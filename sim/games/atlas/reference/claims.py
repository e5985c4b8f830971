"""ATLAS claims on a discard (AT-12 … AT-16, AT-21): the options and who wins the window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference.cards import ATLAS, Card, card, hand_counts, pairs
from cardsim.sim.games.atlas.reference.melds import claim_meld_codes, self_meld_codes, spec
from cardsim.sim.games.atlas.reference.options import check_rules

NONE = enc.NONE
PAIR = enc.PAIR

#: Reasons :func:`resolve_claims` gives, one per AT-14 step (plus "only" and "none").
REASONS = ("none", "only", "last card", "win", "優先配", "distance", "direction")


def claim_option_set(counts: Sequence[int], x: int, rules: Mapping) -> list[int]:
    """The claim decision of a hand (64 counts) on discard ``x`` (protocol §4), ascending.

    ``[]`` means the decision is not asked (nothing but NONE is possible).
    """
    if x > ATLAS:
        return []  # AT-11: action cards are never claimed
    if sum(counts) == 1:
        held = next(t for t in range(enc.N_TYPES) if counts[t])
        codes = [PAIR] if pairs(held, x) else []  # AT-21 last-card pair
    else:
        codes = claim_meld_codes(counts, x, rules["all_wild_melds"])  # AT-12
    if not codes:
        return []
    return codes if rules["forced_claims"] else [NONE, *codes]  # AT-12 forced_claims


def self_meld_option_set(counts: Sequence[int], rules: Mapping) -> list[int]:
    """The self-meld decision {NONE} ∪ codes (AT-07), ascending; ``[]`` = not asked."""
    codes = self_meld_codes(counts, rules["all_wild_melds"])
    return [NONE, *codes] if codes else []


def claim_options(hand: Sequence[Card], discard: Card, rules: Mapping | None = None) -> list[int]:
    """Options of the claim decision of a hand on a discard (AT-12, AT-21, protocol §4).

    Parameters
    ----------
    hand
        The claimant's cards (names or ids).
    discard
        The discarded card.
    rules
        Rule options (``all_wild_melds``, ``forced_claims`` matter); ``None`` = defaults.

    Returns
    -------
    list[int]
        Codes in ascending order: NONE (0, only with ``forced_claims=false``) and the meld
        codes, or (NONE and) PAIR for a one-card hand that pairs the discard. ``[]`` when no claim is
        possible (the decision is not asked).

    Examples
    --------
    >>> claim_options(["Giant Panda", "Tiger"], "Orangutan")  # forced (AT-12): triple Asia Land
    [33]
    >>> claim_options(["Lion"], "ATLAS", {"forced_claims": False})  # NONE, PAIR
    [0, 4096]
    >>> claim_options(["Lion", "Tiger"], "SKIP")
    []
    """
    return claim_option_set(hand_counts(hand), card(discard), check_rules(rules))


def self_meld_options(hand: Sequence[Card], rules: Mapping | None = None) -> list[int]:
    """Options of the self-meld decision of a hand (AT-07, AT-10, AT-11).

    Returns
    -------
    list[int]
        NONE (stop melding) and every self-meld code, ascending; ``[]`` when no meld is
        possible (the decision is not asked).

    Examples
    --------
    >>> self_meld_options(["Giant Panda", "Tiger", "Orangutan", "Lion"])
    [0, 33]
    >>> self_meld_options(["ATLAS", "ATLAS", "ATLAS"], {"all_wild_melds": True})
    [0, 385]
    """
    return self_meld_option_set(hand_counts(hand), check_rules(rules))


def claim_wins(counts: Sequence[int], code: int) -> bool:
    """AT-14 (1) / AT-20: the claim empties the hand (PAIR, or a meld using every card)."""
    if code == PAIR:
        return True
    return spec(code).size - 1 == sum(counts)


def holds_youxian(counts: Sequence[int], x: int) -> bool:
    """Two natural cards of the discard's species in hand (never for an ATLAS discard)."""
    return x < enc.N_SPECIES and counts[x] >= 2


def same_species_triple(x: int) -> int:
    """The code of the triple of discard ``x``'s cell without ATLAS (protocol §4: 優先配)."""
    return int(enc.pack_meld(enc.TRIPLE, x // 3, 0))


def is_youxian(counts: Sequence[int], x: int, code: int, priority: str = "text") -> bool:
    """AT-14 (2) 優先配 of a claim with ``code`` on discard ``x`` by a hand of 64 counts.

    ``text`` (default): the claim is the same-species triple: the hand holds two natural cards
    of ``x``'s species and claims with the ATLAS-free triple of ``x``'s cell, which then gives up
    those two cards (:func:`cardsim.sim.games.atlas.reference.melds.given_up`). ``nearest_win``: any claim by a
    holder of two natural cards of the species. Never for an ATLAS discard, never for PAIR.

    Examples
    --------
    >>> from cardsim.sim.games.atlas.reference.cards import hand_counts
    >>> h = hand_counts(["Giant Panda"] * 2 + ["Pearl Gourami", "Parrot", "Lotus"])
    >>> x = card("Giant Panda")
    >>> is_youxian(h, x, same_species_triple(x)), is_youxian(h, x, 2 | 2 << 2)  # triple, quad
    (True, False)
    >>> is_youxian(h, x, 2 | 2 << 2, "nearest_win")
    True
    """
    if code == PAIR or not holds_youxian(counts, x):
        return False
    return priority == "nearest_win" or code == same_species_triple(x)


def claim_key(
    q: int,
    d: int,
    direction: int,
    n: int,
    wins: bool,
    youxian: bool,
    last_card: bool = False,
    priority: str = "text",
) -> tuple[int, int, int, int]:
    """AT-14 priority key of claimant ``q`` on a discard by ``d``: smallest wins (protocol §4).

    ``text``: ``(0 last-card pair / 1 other winning claim / 2 other claim, 0 if 優先配 else 1,
    distance, next in direction)``; 優先配 also breaks ties between winning claims.
    ``nearest_win``: ``(0 winning claim incl. the pair / 1 other, 0 if 優先配 and not winning
    else 1, distance, next in direction)``.

    Examples
    --------
    >>> claim_key(3, 0, 1, 4, False, False)  # distance 1 anticlockwise, 3 steps clockwise
    (2, 1, 1, 3)
    >>> claim_key(3, 0, 1, 4, False, False, priority="nearest_win")
    (1, 1, 1, 3)
    """
    if priority == "nearest_win":
        klass = 0 if wins else 1  # (1) every winning claim, the last-card pair included
        yx = 0 if (not wins and youxian) else 1  # (2) 優先配 among non-winning claims only
    else:
        klass = 0 if last_card else (1 if wins else 2)  # (0) last-card pair, (1) winning claim
        yx = 0 if youxian else 1  # (2) 優先配, also between winning claims
    return (
        klass,
        yx,
        min((q - d) % n, (d - q) % n),  # (3) nearest seat to the discarder
        ((q - d) * direction) % n,  # (4) next in the current direction (AT-16)
    )


def resolve_counts(
    x: int,
    d: int,
    direction: int,
    hands: Sequence[Sequence[int]],
    claims: Mapping[int, int],
    priority: str = "text",
) -> tuple[int | None, str]:
    """:func:`resolve_claims` on hands of 64 counts and a discard id."""
    n = len(hands)
    keys = {
        q: claim_key(
            q,
            d,
            direction,
            n,
            claim_wins(hands[q], c),
            is_youxian(hands[q], x, c, priority),
            c == PAIR,
            priority,
        )
        for q, c in claims.items()
        if c != NONE
    }
    if not keys:
        return None, "none"
    ranked = sorted(keys, key=keys.get)
    winner = ranked[0]
    if len(ranked) == 1:
        return winner, "only"
    first, second = keys[winner], keys[ranked[1]]
    step = next(i for i in range(4) if first[i] != second[i])
    if step == 0 and priority == "text" and claims[winner] == PAIR:
        return winner, "last card"
    return winner, ("win", "優先配", "distance", "direction")[step]


def resolve_claims(
    discard: Card,
    discarder: int,
    direction: int,
    hands: Sequence[Sequence[Card]],
    claims: Mapping[int, int],
    n_players: int | None = None,
    rules: Mapping | None = None,
) -> tuple[int | None, str]:
    """The claimant who gets a discard, and the AT-14 step that decided (AT-13, AT-14, AT-21).

    Parameters
    ----------
    discard
        The discarded card (matching or ATLAS).
    discarder
        Its seat.
    direction
        +1 clockwise, −1 anticlockwise (AT-16).
    hands
        Every seat's cards (names or ids) before the claim.
    claims
        Seat → claim code (NONE entries are ignored).
    n_players
        Number of seats (defaults to ``len(hands)``).
    rules
        Rule options; ``claim_priority`` matters (``None`` = defaults: ``text``).

    Returns
    -------
    tuple
        ``(seat or None, reason)``, reason one of "none" (no claim), "only" (one claimant),
        "last card" (AT-14 (0), ``text`` only), "win" (AT-14 (1); under ``nearest_win`` the
        last-card pair included), "優先配" (2), "distance" (3), "direction" (4).

    Examples
    --------
    >>> hands = [[], ["Tiger", "Orangutan", "Lion"], [], ["Giant Panda", "Giant Panda", "Lion"]]
    >>> resolve_claims("Giant Panda", 0, 1, hands, {1: 33, 3: 33})  # seat 3: same-species triple
    (3, '優先配')
    >>> hands = [[], ["Tiger", "Orangutan"], [], ["Giant Panda"], []]
    >>> resolve_claims("Giant Panda", 0, 1, hands, {1: 33, 3: PAIR})  # AT-14 (0) last card
    (3, 'last card')
    >>> resolve_claims("Giant Panda", 0, 1, hands, {1: 33, 3: PAIR}, rules={
    ...     "claim_priority": "nearest_win"})
    (1, 'distance')
    """
    n = len(hands) if n_players is None else n_players
    if n != len(hands):
        raise ValueError(f"{len(hands)} hands for {n} players")
    if discarder in claims and claims[discarder] != NONE:
        raise ValueError("the discarder cannot claim its own discard (AT-12)")
    priority = check_rules(rules)["claim_priority"]
    return resolve_counts(
        card(discard), discarder, direction, [hand_counts(h) for h in hands], claims, priority
    )
