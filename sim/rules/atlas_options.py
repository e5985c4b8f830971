"""ATLAS rule options for the reference rules: views of the one table kernels/atlas/options.py."""

from __future__ import annotations

from collections.abc import Mapping

from kernels.atlas.options import OPTIONS

#: Every rule option with its default (the reading the simulator uses out of the box).
RULE_DEFAULTS: dict[str, str | bool | int] = OPTIONS.defaults()
#: Allowed values of the string options.
RULE_CHOICES: dict[str, tuple[str, ...]] = {o.name: o.choices for o in OPTIONS if o.choices}
#: The ruling that defines each option.
RULE_RULINGS: dict[str, str] = {o.name: o.ruling for o in OPTIONS}


def check_rules(rules: Mapping[str, str | bool | int] | None = None) -> dict:
    """All rule options, defaults filled in; unknown names or bad values raise ``ValueError``.

    Examples
    --------
    >>> check_rules({"claim_turn": "jump"})["claim_turn"], check_rules()["turn_cap"]
    ('jump', 2000)
    >>> check_rules({"claim_turn": "fly"})
    Traceback (most recent call last):
    ...
    kernels.options.RuleOptionError: rule option claim_turn: invalid value 'fly' (allowed: stay, jump)
    """
    return OPTIONS.resolve(rules)
