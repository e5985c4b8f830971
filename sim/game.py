"""What a game engine gives the runner: rule options, strategies, and pure chunk functions.

Every game plugs in through a :class:`GameEngine` (see ``sim/games/``). The runner is
game-agnostic: it validates a :class:`RunConfig`, cuts ``range(games)`` into chunks and calls
``engine.play_chunk(config, first, count)``, which must be a pure function of its arguments —
the same tables for any chunking, thread count, worker or interruption.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import polars as pl
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.sim.engine import Match

__all__ = [
    "GameEngine",
    "GameFacts",
    "Measure",
    "RuleOption",
    "RunConfig",
    "SelfPlay",
    "StrategyCheck",
    "StrategyInfo",
    "Warmup",
]


@dataclass(frozen=True)
class Measure:
    """A headline balance measure of a game (what the report's Answers speak about), declared
    once in the game's package: how to read it off a games table and how the factorial study
    and the skill ladder read it.

    ``value`` (with ``kind``) is the per-row definition: a function of the game's facts that
    returns a polars expression over the games table, a 0/1 outcome (``kind="binary"``: a rate,
    logistic in the factorial) or a number (``"continuous"``: a mean, linear). A measure without
    ``value`` is the report's only (the game's analysis sections read it). ``margin`` is its
    equivalence margin (None: the default of its kind, ``analysis/factorial.py``).
    ``ladder``: "value" (the ladder reads ``value``: a rate or a mean per level), "first_excess"
    (the first side's excess over the fair share), "none", or "hook:NAME" (the game's analysis
    registry, ``analysis/games/<game>/``, supplies ``ladder_measures[NAME]``).
    """

    name: str
    label: str
    unit: str  # the independent unit it is counted in: "deal", "match", "round", "seat-round", ...
    kind: str | None = None  # "binary" / "continuous"; None: no per-row value
    value: Callable[[GameFacts], pl.Expr] | None = None
    topic: str = ""  # what the Answers line calls it: "first-player advantage", "length", ...
    margin: float | None = None
    ladder: str = "value"
    factorial: bool = True  # whether a factorial study fits it (needs ``value``)

    def __post_init__(self) -> None:
        if (self.kind is None) != (self.value is None):
            raise ValueError(f"measure {self.name!r}: kind and value go together")
        if self.kind not in (None, "binary", "continuous"):
            raise ValueError(f"measure {self.name!r}: kind {self.kind!r}")


def first_side_wins(facts: GameFacts) -> pl.Expr:
    """The first side's win, 0/1 per row (no winner counts as not won)."""
    return (facts.winner_side() == facts.first_side()).fill_null(False)


def no_winner(facts: GameFacts) -> pl.Expr:
    """Whether a row ended without a winner."""
    return facts.winner_side().is_null()


def column(name: str) -> Callable[[GameFacts], pl.Expr]:
    """The value of games-table column ``name`` as a float."""
    return lambda facts: pl.col(name).cast(pl.Float64)


@dataclass(frozen=True)
class GameFacts:
    """What shared code (runner, compare, stopping, analysis, report) may know about a game.

    Shared code reads these facts and never tests a game's name.
    """

    title: str  # for reports: "原子 (yuanzi)"
    row_unit: str  # what one games-table row is: "match" / "round"
    side: str  # who wins: "team" / "seat"
    side_column: str  # seats-table column that names the side
    sides_of: Callable[[int], int]  # players -> number of sides
    first_player_label: str  # "first leader's team" / "first player"
    #: games-table expression: the side of the first player (first leader's team / seat)
    first_side: Callable[[], pl.Expr]
    #: games-table expression: the winning side (null: nobody won)
    winner_side: Callable[[], pl.Expr]
    #: games- and seats-table columns that depend only on the deal (count once per deal)
    deal_columns_games: tuple[str, ...]
    deal_columns_seats: tuple[str, ...]
    #: how ``compare`` puts strategies on seats: "team_swap" (two teams) / "rotation"
    comparison_layout: str
    headline: tuple[Measure, ...] = ()
    #: rule options that change the cards dealt (ATLAS AT-D1..D3: the deck or the hand size):
    #: runs that differ in one share the deal stream but not the cards, so they are not paired
    deal_options: tuple[str, ...] = ()

    def sides(self, players: int) -> int:
        return self.sides_of(players)

    def fair_share(self, players: int) -> float:
        """The win share of one side if the game were fair: 1 / sides."""
        return 1.0 / self.sides_of(players)


@dataclass(frozen=True)
class Warmup:
    """What ``sim/warmup.py`` needs to compile a game's kernels ahead of play."""

    name: str  # what the notice calls the game: "ATLAS"
    #: the kernel entry points by purpose ("run", "replay", "search"): (module, function); their
    #: on-disk cache index exists once the whole call tree below them is compiled and saved.
    #: The "run" module's ``load_search()`` compiles the search strategies ("search") alone.
    entry_points: dict[str, tuple[str, str]]
    #: seconds to compile each purpose on the 2-core reference machine (what the notice quotes)
    compile_seconds: dict[str, float]
    #: the run kernels' first compile split over two processes (optional): ``(side, own)``, each
    #: the (module, function) of a function compiling some of the driver's callees with their
    #: exact types. ``side`` runs in a process of its own while ``own`` runs in the process that
    #: then compiles the driver, which loads the side's kernels from the on-disk cache.
    split: tuple[tuple[str, str], tuple[str, str]] | None = None


@dataclass
class SelfPlay:
    """What a game's strategy-check self-play found (``cardsim strategy check``)."""

    seconds: float
    work: int  # decisions or turns played
    work_unit: str  # "decisions" / "turns"
    found: list  # the illegal answers located (``cardsim.sim.python_strategies.BadAnswer``)
    counted: int
    counted_text: str  # "3 illegal answer(s)" / "illegal answers in 2 game(s)"
    #: set when self-play stopped at the strategy's first exception (a ``py:`` strategy that
    #: raises raises again at every decision of that kind): where, in words (issue 45 item 10)
    stopped: str = ""


@dataclass(frozen=True)
class StrategyCheck:
    """A game's hooks for ``cardsim strategy check``."""

    #: arguments of a ``py:`` strategy before the optional ``rng``
    python_args: tuple[str, ...]
    #: the Numba argument types the driver passes a user strategy
    user_argtypes: Callable[[], tuple]
    #: ``selfplay(config, name, max_replayed) -> SelfPlay``: every seat plays ``name``
    selfplay: Callable[[RunConfig, str, int], SelfPlay]


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
    """sha256 of every user-written strategy file and learned weights file a configuration
    uses, by path."""
    import hashlib

    from cardsim.sim.learned_names import split as split_learned
    from cardsim.sim.user_strategies import file_of, is_user_strategy

    out = {}
    for seats in (config.seats, *config.assignments):
        for name in seats:
            base = name.rsplit("@", 1)[0]
            if base.startswith("learned:"):  # a weights file (issue 48): its bytes name the run
                path = split_learned(base)[0]
            else:
                path = file_of(base) if is_user_strategy(base) else None
            if path and path not in out:
                try:
                    out[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except OSError:
                    out[path] = "missing"
    return dict(sorted(out.items()))


class GameEngine(Protocol):
    """The interface each game package in ``sim/games/`` provides as ``ENGINE``.

    Optional: ``config_warnings(config) -> list[str]``, one line per reason a legal
    configuration is degenerate (printed by ``run``, ``compare``, ``study`` and ``tune``);
    ``warmup`` (a :class:`Warmup`: kernels compiled ahead of play) and ``strategy_check`` (a
    :class:`StrategyCheck`); a game without them has nothing to compile ahead and no
    ``cardsim strategy check``."""

    name: str
    player_counts: tuple[int, ...]
    default_players: int
    rule_options: OptionTable
    facts: GameFacts
    strategies: tuple[StrategyInfo, ...]

    def play_chunk(
        self, config: RunConfig, first: int, count: int
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Play games ``first .. first+count-1``; return (games table, seats table)."""
        ...

    def replay(self, config: RunConfig, game_index: int) -> str:
        """A readable event log of one game of a run (same deal, same choices)."""
        ...

    def new_match(self, players: int, rules: dict, seed: int, game_index: int = 0) -> Match:
        """One match to step move by move (:class:`cardsim.sim.engine.Match`), dealt as game
        ``game_index`` of a run with root seed ``seed``; ``rules`` as ``RunConfig.rules``
        (validated: bad values raise :class:`CardsimError`)."""
        ...
