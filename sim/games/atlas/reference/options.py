"""ATLAS rule options for the reference rules: views of the one table kernels/atlas/options.py.

The design parameters (AT-D1 … AT-D4) are rows of the same table: ``hand_size``, the copies of
each special card (:data:`SPECIAL_COUNTS`) and the hand values (:func:`hand_values`).
"""

from __future__ import annotations

from collections.abc import Mapping

from cardsim.kernels.atlas.options import OPTIONS, SPECIAL_COUNTS, deck_size

__all__ = [
    "RULE_CHOICES", "RULE_DEFAULTS", "RULE_RULINGS", "SPECIAL_COUNTS", "check_rules",
    "deck_size", "hand_values", "specials",
]  # fmt: skip

#: Every rule option with its default (the reading the simulator uses out of the box).
RULE_DEFAULTS: dict[str, str | bool | int] = OPTIONS.defaults()
#: Allowed values of the string options.
RULE_CHOICES: dict[str, tuple[str, ...]] = {o.name: o.choices for o in OPTIONS if o.choices}
#: The ruling that defines each option.
RULE_RULINGS: dict[str, str] = {o.name: o.ruling for o in OPTIONS}


def check_rules(
    rules: Mapping[str, str | bool | int] | None = None, players: int | None = None
) -> dict:
    """All rule options, defaults filled in; unknown names or bad values raise ``ValueError``
    (with ``players``, so does a deal the deck cannot make, AT-D1).

    Examples
    --------
    >>> check_rules({"claim_turn": "jump"})["claim_turn"], check_rules()["turn_cap"]
    ('jump', 2000)
    >>> check_rules({"claim_turn": "fly"})
    Traceback (most recent call last):
    ...
    cardsim.kernels.options.RuleOptionError: rule option claim_turn: invalid value 'fly' (allowed: stay, jump)
    """
    return OPTIONS.resolve(rules, players)


def specials(rules: Mapping) -> tuple[int, int, int, int]:
    """AT-D2, AT-D3: copies of ATLAS, SKIP, REVERSE, TRADE in the deck of resolved ``rules``.

    >>> specials(check_rules({"atlas_cards": 0}))
    (0, 6, 6, 6)
    """
    a, s, r, t = (int(rules[k]) for k in SPECIAL_COUNTS)
    return a, s, r, t


def hand_values(rules: Mapping) -> tuple[int, int, int]:
    """AT-D4: hand values of an ATLAS, an action card and a matching card (default 3, 2, 1).

    >>> hand_values(check_rules())
    (3, 2, 1)
    """
    return int(rules["atlas_value"]), int(rules["action_value"]), int(rules["matching_value"])
