"""ATLAS rule options (the variants of RULINGS.md) and their validation."""

from __future__ import annotations

from collections.abc import Mapping

#: Every rule option with its default (the reading the simulator uses out of the box).
RULE_DEFAULTS: dict[str, str | bool | int] = {
    "self_melds": "any",  # AT-07
    "all_wild_melds": False,  # AT-11
    "forced_claims": True,  # AT-12 (revised 2026-12-01: the text says claimants must announce)
    "claim_priority": "text",  # AT-14
    "claim_turn": "stay",  # AT-15
    "reverse_two_players": "skip",  # AT-18
    "trade_pick": "blind",  # AT-19
    "self_melds_shown": False,  # AT-26
    "last_discard_wins": False,  # AT-22
    "exhausted": "reshuffle",  # AT-23
    "turn_cap": 2000,  # AT-23
    "rounds": 1,  # AT-25
}

#: Allowed values of the string options.
RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "self_melds": ("any", "after_claim_only"),
    "claim_priority": ("text", "nearest_win"),
    "claim_turn": ("stay", "jump"),
    "reverse_two_players": ("skip", "none"),
    "trade_pick": ("blind", "seen"),
    "exhausted": ("reshuffle", "no_winner"),
}

#: The ruling that defines each option.
RULE_RULINGS: dict[str, str] = {
    "self_melds": "AT-07",
    "all_wild_melds": "AT-11",
    "forced_claims": "AT-12",
    "claim_priority": "AT-14",
    "claim_turn": "AT-15",
    "reverse_two_players": "AT-18",
    "trade_pick": "AT-19",
    "self_melds_shown": "AT-26",
    "last_discard_wins": "AT-22",
    "exhausted": "AT-23",
    "turn_cap": "AT-23",
    "rounds": "AT-25",
}


def check_rules(rules: Mapping[str, str | bool | int] | None = None) -> dict:
    """All rule options, defaults filled in; unknown names or bad values raise ``ValueError``.

    Parameters
    ----------
    rules
        Options to change (``None`` or ``{}`` = all defaults).

    Returns
    -------
    dict
        Every option of :data:`RULE_DEFAULTS` with its value.

    Examples
    --------
    >>> check_rules({"claim_turn": "jump"})["claim_turn"], check_rules()["turn_cap"]
    ('jump', 2000)
    >>> check_rules({"claim_turn": "fly"})
    Traceback (most recent call last):
    ...
    ValueError: rule option claim_turn: invalid value 'fly' (allowed: stay, jump)
    """
    out = dict(RULE_DEFAULTS)
    for key, value in (rules or {}).items():
        if key not in RULE_DEFAULTS:
            raise ValueError(
                f"unknown ATLAS rule option {key!r} (known: {', '.join(RULE_DEFAULTS)})"
            )
        default = RULE_DEFAULTS[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(
                    f"rule option {key}: invalid value {value!r} (allowed: True, False)"
                )
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"rule option {key}: invalid value {value!r} (allowed: integer >= 1)"
                )
        elif value not in RULE_CHOICES[key]:
            allowed = ", ".join(RULE_CHOICES[key])
            raise ValueError(f"rule option {key}: invalid value {value!r} (allowed: {allowed})")
        out[key] = value
    return out
