"""Plain-Python strategies for prototyping: ``py:path/to/file.py:function`` (docs/strategies.md).

A seat named ``py:bots/mine.py:choose`` runs a plain Python function written against a game's
readable reference View — no Numba, no offsets. It goes through the same commands as every
strategy (``cardsim run``, ``compare``, ``strategy check``, ``replay``). A configuration with a
``py:`` seat plays every game on the game's reference engine, with the same deals and the same
strategy stream as the kernel; the other seats are mirrored in the kernel's own state arrays.

This module holds what every game's adapter shares (loading a ``py:`` file, the record of an
illegal answer); each game's adapter is ``cardsim.sim.games.<game>.adapter`` (``play``,
``replay``), reached through its engine (``engine.play_python``, ``engine.replay_python``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardsim.sim import user_strategies as us
from cardsim.sim.errors import CardsimError

if TYPE_CHECKING:
    from cardsim.sim.game import SelfPlay

__all__ = [
    "BadAnswer", "PythonStrategy", "Seat", "StrategyRaised", "collect_until_exception", "raised",
    "is_python_strategy", "load", "uses_python",
]  # fmt: skip

is_python_strategy = us.is_python_strategy


def uses_python(seats: Sequence[str]) -> bool:
    """Whether any seat is a plain-Python strategy (``py:``)."""
    return any(is_python_strategy(s) for s in seats)


@dataclass(frozen=True)
class PythonStrategy:
    """A loaded ``py:`` strategy: ``choose(view, legal[, rng]) -> code``."""

    spec: str
    label: str
    function: Callable
    takes_rng: bool

    def __call__(self, *args) -> int:
        """The game's arguments, then ``rng`` (dropped for a function without it)."""
        return self.function(*args) if self.takes_rng else self.function(*args[:-1])


def load(spec: str, args: tuple[str, ...] = ("view", "legal")) -> PythonStrategy:
    """Import a ``py:path/file.py:function`` strategy (one-line errors: missing file or function,
    an exception on import, a Numba function, a wrong signature). ``args``: the arguments
    before the optional ``rng`` (each game's adapter names its own)."""
    strategy = us.parse(us._split_suffix(spec)[0])
    module = us.import_file(strategy)
    fn = getattr(module, strategy.function, None)
    where = f"python strategy {strategy.label} ({strategy.path})"
    if fn is None:
        raise CardsimError(f"{where}: no function {strategy.function!r} in the file")
    if hasattr(fn, "py_func"):
        raise CardsimError(
            f"{where} is a Numba function: drop the 'py:' prefix to run it compiled, or remove "
            "@njit to run it on the reference engine"
        )
    if not callable(fn):
        raise CardsimError(f"{where}: {strategy.function!r} is not a function")
    try:
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        params = []
    k = len(args)
    if len(params) not in (k, k + 1):
        sig = ", ".join(args)
        raise CardsimError(
            f"{where}: a Python strategy is choose({sig}) or choose({sig}, rng), "
            f"not one of {len(params)} arguments"
        )
    return PythonStrategy(spec, strategy.label, fn, len(params) == k + 1)


@dataclass
class BadAnswer:
    """An illegal answer of a strategy: where it happened and what was legal."""

    strategy: str  # label
    game: int
    decision: int  # index of the decision in the match (trace order, from 0)
    seat: int
    position: str  # a readable summary of what the seat could see
    returned: str  # what the strategy returned (or the exception it raised)
    legal: list[str] = field(default_factory=list)

    def text(self) -> str:
        return (
            f"{self.strategy}: game {self.game}, decision {self.decision} (seat {self.seat}): "
            f"{self.position}; returned {self.returned}; legal: {', '.join(self.legal)}"
        )


OnBad = Callable[[BadAnswer], None]


class StrategyRaised(Exception):
    """The first exception of a ``py:`` strategy in ``strategy check`` self-play (it stops
    there: the same code raises at every later decision of that kind, issue 45 item 10)."""

    def __init__(self, record: BadAnswer) -> None:
        super().__init__(record.text())
        self.record = record


def collect_until_exception(found: list[BadAnswer]) -> OnBad:
    """An ``on_bad`` that keeps every illegal answer in ``found`` and raises
    :class:`StrategyRaised` at the first one that is an exception."""

    def on_bad(record: BadAnswer) -> None:
        found.append(record)
        if record.returned.startswith(EXCEPTION):
            raise StrategyRaised(record)

    return on_bad


#: how an adapter's :class:`BadAnswer` ``returned`` starts when the strategy raised
EXCEPTION = "an exception: "


def raised(e: StrategyRaised, seconds: float, work_unit: str) -> SelfPlay:
    """The :class:`~cardsim.sim.game.SelfPlay` of a self-play stopped at the first exception."""
    from cardsim.sim.game import SelfPlay

    r = e.record
    where = f"game {r.game}, decision {r.decision} (seat {r.seat}): {r.position}"
    return SelfPlay(seconds, 0, work_unit, [r], 1, "an exception", stopped=where)


@dataclass
class Seat:
    """How one seat decides in a ``py:`` configuration (each game's adapter builds these)."""

    kind: str  # "builtin", "pimc", "ismcts", "level", "numba", "python"
    label: str
    sid: int = 0
    fn: object = None
