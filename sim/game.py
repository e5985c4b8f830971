"""What a game engine gives the runner: rule options, strategies, and pure chunk functions.

Every game plugs in through a :class:`GameEngine` (see ``sim/games/``). The runner is
game-agnostic: it validates a :class:`RunConfig`, cuts ``range(games)`` into chunks and calls
``engine.play_chunk(config, first, count)``, which must be a pure function of its arguments —
the same tables for any chunking, thread count, worker or interruption.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import polars as pl

from sim.errors import CardsimError


@dataclass(frozen=True)
class RuleOption:
    """One rule option (``--rule name=value``), tied to the ruling that defines it."""

    name: str
    default: str | int | bool
    ruling: str
    help: str
    choices: tuple[str, ...] = ()  # for string options
    min: int | None = None  # for int options
    max: int | None = None

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
            return f"integer {self.min}..{self.max}"
        return ", ".join(self.choices)

    def parse(self, text: str) -> str | int | bool:
        """Parse and validate a command-line value; raises :class:`CardsimError`."""
        t = str(text).strip()
        if self.kind == "bool":
            low = t.lower()
            if low in ("true", "1", "yes", "on"):
                return True
            if low in ("false", "0", "no", "off"):
                return False
        elif self.kind == "int":
            try:
                v = int(t)
            except ValueError:
                v = None
            if (
                v is not None
                and (self.min is None or v >= self.min)
                and (self.max is None or v <= self.max)
            ):
                return v
        elif t in self.choices:
            return t
        raise CardsimError(
            f"rule option {self.name}: invalid value {text!r} (allowed: {self.allowed()})"
        )


@dataclass(frozen=True)
class StrategyInfo:
    """A built-in strategy: its name, kernel id and one-line description."""

    name: str
    id: int
    description: str


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's tables (threads and chunk size do not)."""

    game: str
    players: int
    seats: tuple[str, ...]  # strategy per seat: built-in name or "path/file.py:function"
    rules: dict[str, str | int | bool] = field(default_factory=dict)  # every option, resolved
    seed: int = 0
    games: int = 1000
    #: Duplicate-deal comparisons (``cardsim compare``): every deal is played once per seat
    #: assignment (a strategy per seat). Empty for a plain run, which plays ``seats``.
    assignments: tuple[tuple[str, ...], ...] = ()

    def identity(self) -> dict:
        """The fields that must match for ``--resume`` (and that every manifest records)."""
        ident = {
            "game": self.game,
            "players": self.players,
            "seats": list(self.seats),
            "rules": dict(sorted(self.rules.items())),
            "seed": self.seed,
            "games": self.games,
        }
        if self.assignments:
            ident["assignments"] = [list(a) for a in self.assignments]
        files = user_strategy_files(self)
        if files:  # an edited strategy file is a different run
            ident["strategy_files"] = files
        return ident


def user_strategy_files(config: RunConfig) -> dict[str, str]:
    """sha256 of every user-written strategy file a configuration uses, by path."""
    import hashlib

    from sim.user_strategies import is_user_strategy

    out = {}
    for seats in (config.seats, *config.assignments):
        for name in seats:
            base = name.rsplit("@", 1)[0]
            path = base.rsplit(":", 1)[0] if is_user_strategy(base) else None
            if path and path not in out:
                try:
                    out[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except OSError:
                    out[path] = "missing"
    return dict(sorted(out.items()))


class GameEngine(Protocol):
    """The interface each game module in ``sim/games/`` provides as ``ENGINE``."""

    name: str
    player_counts: tuple[int, ...]
    default_players: int
    rule_options: tuple[RuleOption, ...]
    strategies: tuple[StrategyInfo, ...]

    def play_chunk(
        self, config: RunConfig, first: int, count: int
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Play games ``first .. first+count-1``; return (games table, seats table)."""
        ...

    def replay(self, config: RunConfig, game_index: int) -> str:
        """A readable event log of one game of a run (same deal, same choices)."""
        ...
