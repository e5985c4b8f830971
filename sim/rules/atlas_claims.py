"""ATLAS claims on a discard (AT-12 … AT-16, AT-21): the options and who wins the window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernels.atlas import encoding as enc
from sim.rules.atlas_cards import ATLAS, Card, card, hand_counts, pairs
from sim.rules.atlas_melds import claim_meld_codes, self_meld_codes, spec
from sim.rules.atlas_options import check_rules

NONE = enc.NONE
PAIR = enc.PAIR

#: Reasons :func:`resolve_claims` gives, one per AT-14 step (plus "only" and "none").
REASONS = ("none", "only", "win", "優先配", "distance", "direction")


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
        Codes in ascending order: NONE (0, unless ``forced_claims``) and the meld codes, or
        NONE and PAIR for a one-card hand that pairs the discard. ``[]`` when no claim is
        possible (the decision is not asked).

    Examples
    --------
    >>> claim_options(["Giant Panda", "Tiger"], "Orangutan")  # NONE, triple Asia Land
    [0, 33]
    >>> claim_options(["Lion"], "ATLAS")  # NONE, PAIR
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
    """AT-14 (2) 優先配: two natural cards of the discard's species (never for an ATLAS discard)."""
    return x < enc.N_SPECIES and counts[x] >= 2


def claim_key(
    q: int, d: int, direction: int, n: int, wins: bool, youxian: bool
) -> tuple[int, int, int, int]:
    """AT-14 priority key of claimant ``q`` on a discard by ``d``: smallest wins (protocol §4).

    Examples
    --------
    >>> claim_key(3, 0, 1, 4, False, False)  # distance 1 anticlockwise, 3 steps clockwise
    (1, 1, 1, 3)
    """
    return (
        0 if wins else 1,  # (1) a claim that wins the round
        0 if (not wins and youxian) else 1,  # (2) 優先配
        min((q - d) % n, (d - q) % n),  # (3) nearest seat to the discarder
        ((q - d) * direction) % n,  # (4) next in the current direction (AT-16)
    )


def resolve_counts(
    x: int, d: int, direction: int, hands: Sequence[Sequence[int]], claims: Mapping[int, int]
) -> tuple[int | None, str]:
    """:func:`resolve_claims` on hands of 64 counts and a discard id."""
    n = len(hands)
    keys = {
        q: claim_key(q, d, direction, n, claim_wins(hands[q], c), holds_youxian(hands[q], x))
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
    return winner, ("win", "優先配", "distance", "direction")[step]


def resolve_claims(
    discard: Card,
    discarder: int,
    direction: int,
    hands: Sequence[Sequence[Card]],
    claims: Mapping[int, int],
    n_players: int | None = None,
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

    Returns
    -------
    tuple
        ``(seat or None, reason)``, reason one of "none" (no claim), "only" (one claimant),
        "win" (AT-14 (1), incl. the last-card pair), "優先配" (2), "distance" (3),
        "direction" (4).

    Examples
    --------
    >>> hands = [[], ["Tiger", "Orangutan", "Lion"], [], ["Giant Panda", "Giant Panda", "Lion"]]
    >>> resolve_claims("Giant Panda", 0, 1, hands, {1: 33, 3: 33})  # seat 3 holds two pandas
    (3, '優先配')
    """
    n = len(hands) if n_players is None else n_players
    if n != len(hands):
        raise ValueError(f"{len(hands)} hands for {n} players")
    if discarder in claims and claims[discarder] != NONE:
        raise ValueError("the discarder cannot claim its own discard (AT-12)")
    return resolve_counts(
        card(discard), discarder, direction, [hand_counts(h) for h in hands], claims
    )
