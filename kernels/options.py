"""Rule options: one table per game (``kernels/<game>/options.py``) that every layer reads.

A :class:`RuleOption` row names the option, the ruling that defines it (docs/RULES-*.md), its
default, its allowed values, a help line and its role (:data:`ROLES`: a reading of the rule text,
a design parameter, or a run setting). The row's position in its :class:`OptionTable` is
its offset in the kernel's int64 rule array, and the array holds the value's index among the
choices (bools 0/1, ints as themselves). The engine, the reference rules, the CLI, ``cardsim
rules``, the docs test and the tests all read the same table; there is one validator
(:meth:`OptionTable.resolve`). The tables live under ``kernels/`` so that an edit to a table
changes the kernel source fingerprint (kernels/jit.py) and no stale compiled offsets can run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from cardsim.kernels.errors import CardsimError, did_you_mean

Value = str | int | bool


#: What a rule option is (``RuleOption.role``, issue 47 item 3):
#: - ``reading``: a variant of a judgment-call ruling the texts leave open (AT-nn / YZ-nn choices
#:   and yes/no options); ``cardsim screen`` plays every variant of every reading;
#: - ``design``: a design parameter (AT-Dn / YZ-Dn, numeric): a number a designer turns;
#: - ``setting``: a run setting, not a reading of the text (ATLAS ``turn_cap``, ``rounds``).
ROLES = ("reading", "design", "setting")


class RuleOptionError(CardsimError, ValueError):
    """An unknown rule option or a value outside its allowed set."""


@dataclass(frozen=True)
class RuleOption:
    """One rule option (``--rule name=value``), tied to the ruling that defines it."""

    name: str
    ruling: str
    default: Value
    help: str
    choices: tuple[str, ...] = ()  # for choice options, in kernel-array order
    min: int | None = None  # for int options
    max: int | None = None
    step: int | None = None  # for int options: allowed values are min, min + step, … (None: 1)
    role: str | None = None  # one of ROLES (every row of a game's table sets it; None: unmarked)

    def __post_init__(self) -> None:
        if self.role is not None and self.role not in ROLES:
            raise ValueError(
                f"rule option {self.name}: role {self.role!r} is not one of {', '.join(ROLES)}"
            )
        # a malformed table row is a programming error, said in one line at import time
        if self.step is not None and (
            self.kind != "int" or self.min is None or self.max is None or self.step < 1
        ):
            raise ValueError(
                f"rule option {self.name}: step needs an int option with min and max and a "
                f"step >= 1 (got step={self.step!r})"
            )
        if self.kind == "int" and not self._in_range(int(self.default)):
            raise ValueError(
                f"rule option {self.name}: default {self.default} is not {self.allowed()}"
            )

    @property
    def kind(self) -> str:
        if isinstance(self.default, bool):
            return "bool"
        if isinstance(self.default, int):
            return "int"
        return "choice"

    def allowed(self) -> str:
        """Human description of the allowed values."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "int":
            step = f" in steps of {self.step}" if self.step not in (None, 1) else ""
            return f"integer {self.min}..{self.max}{step}"
        return ", ".join(self.choices)

    def values(self) -> tuple[Value, ...]:
        """Every allowed value in order (an int option needs a ``min`` and a ``max``)."""
        if self.kind == "bool":
            return (False, True)
        if self.kind == "choice":
            return self.choices
        if self.min is None or self.max is None:
            raise ValueError(f"rule option {self.name}: an unbounded integer range")
        return tuple(range(self.min, self.max + 1, self.step or 1))

    def check(self, value: object) -> Value:
        """``value`` as this option's type, parsed if it is text; raises :class:`RuleOptionError`."""
        if isinstance(value, str):
            parsed = self._parse(value.strip())
            if parsed is not None:
                return parsed
        elif self.kind == "bool" and isinstance(value, bool | np.bool_):
            return bool(value)
        elif (
            self.kind == "int"
            and isinstance(value, int | np.integer)
            and not isinstance(value, bool)
            and self._in_range(int(value))
        ):
            return int(value)
        raise RuleOptionError(
            f"rule option {self.name}: invalid value {value!r} (allowed: {self.allowed()})"
        )

    def _parse(self, text: str) -> Value | None:
        if self.kind == "bool":
            low = text.lower()
            if low in ("true", "1", "yes", "on"):
                return True
            return False if low in ("false", "0", "no", "off") else None
        if self.kind == "int":
            # ASCII digits only (no '_', no full-width digits), like every integer option
            digits = text[1:] if text.startswith("-") else text
            if digits.isascii() and digits.isdigit() and self._in_range(int(text)):
                return int(text)
            return None
        return text if text in self.choices else None

    def _in_range(self, v: int) -> bool:
        """Within min..max and, with a step, on the lattice min, min + step, …"""
        if self.step is not None and (v - self.min) % self.step != 0:
            return False
        return (self.min is None or v >= self.min) and (self.max is None or v <= self.max)

    def encode(self, value: Value) -> int:
        """The kernel-array entry of a checked value."""
        if self.kind == "choice":
            return self.choices.index(value)
        return int(value)


#: A per-game check of option values together (and with the player count, when known): it
#: raises :class:`RuleOptionError` with a one-line message when the combination cannot be played.
CrossCheck = Callable[[Mapping[str, Value], "int | None"], None]


class OptionTable:
    """The rule options of one game, in kernel-array order.

    ``check`` is the game's cross-option check (e.g. ATLAS: the deck must deal ``hand_size`` cards
    to every player, AT-D1), run by :meth:`resolve` after each value has been checked alone.
    """

    def __init__(
        self, game: str, options: tuple[RuleOption, ...], check: CrossCheck | None = None
    ) -> None:
        self.game = game
        self.options = options
        self.check = check
        self._by_name = {o.name: o for o in options}
        if len(self._by_name) != len(options):
            raise ValueError(f"duplicate rule option in the {game} table")

    def __iter__(self) -> Iterator[RuleOption]:
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def __getitem__(self, name: str) -> RuleOption:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def offset(self, name: str) -> int:
        """The option's offset in the kernel's rule array."""
        return self.options.index(self._by_name[name])

    def defaults(self) -> dict[str, Value]:
        return {o.name: o.default for o in self.options}

    def resolve(
        self, rules: Mapping[str, object] | None = None, players: int | None = None
    ) -> dict[str, Value]:
        """Every option with its value: defaults, overridden by ``rules`` (checked, text parsed).

        The values together (and with ``players``, when given) pass the table's cross-option
        check, if it has one.

        >>> from cardsim.kernels.yuanzi.options import OPTIONS
        >>> OPTIONS.resolve({"pass_is_final": "true"})["pass_is_final"]
        True
        """
        out = self.defaults()
        for name, value in (rules or {}).items():
            if name not in self._by_name:
                raise RuleOptionError(
                    f"unknown {self.game} rule option {name!r}{did_you_mean(name, self._by_name)} "
                    f"(allowed: {', '.join(self._by_name)})"
                )
            out[name] = self._by_name[name].check(value)
        if self.check is not None:
            self.check(out, players)
        return out

    def array(
        self, rules: Mapping[str, object] | None = None, players: int | None = None
    ) -> np.ndarray:
        """The kernel's int64 rule array of ``rules`` (defaults filled in, checked)."""
        values = self.resolve(rules, players)
        return np.array([o.encode(values[o.name]) for o in self.options], np.int64)
