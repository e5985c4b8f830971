"""The game facts the analyses read, so that shared analysis code never tests a game's name.

The facts come from the engine (``sim.games.get_engine(game).facts``, a ``sim.game.GameFacts``:
title, what one row is, the sides that win, the first player's side, the columns that depend
only on the deal, how ``compare`` seats the strategies). Engines without ``facts`` (tables of
schema v1, written before the restructuring of issue 9) get :data:`_V1` below, the same facts
spelled in the v1 column names.

Per-game analysis modules (``yuanzi_dao``, ``atlas_end`` …) are not chosen by name tests
either: each declares the game it belongs to (``FOR_GAME``) and :func:`game_modules` collects
the modules registered for a run's game (:func:`register` adds one from outside, e.g. a test
engine's own analysis).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import polars as pl

from sim.errors import CardsimError


@dataclass(frozen=True)
class Facts:
    """The subset of ``sim.game.GameFacts`` the analyses use (see docs/report.md, "Units")."""

    title: str
    row_unit: str  # what one games row is: "match" / "round"
    seat_row_unit: str  # what one seats row is: "seat-match" / "seat-round"
    side: str  # what wins: "team" / "seat"
    side_column: str  # the seats table's column naming the side
    sides_fn: Callable[[int], int]
    first_player_label: str
    first_side_fn: Callable[[], pl.Expr]
    winner_side_fn: Callable[[], pl.Expr]
    deal_columns_games: tuple[str, ...]
    deal_columns_seats: tuple[str, ...]
    comparison_layout: str  # "team_swap" / "rotation"

    def sides(self, players: int) -> int:
        return self.sides_fn(players)

    def fair_share(self, players: int) -> float:
        return 1.0 / self.sides(players)

    def first_side(self) -> pl.Expr:
        return self.first_side_fn()

    def winner_side(self) -> pl.Expr:
        return self.winner_side_fn()


def _v1_winner(col: str, none: int | None) -> Callable[[], pl.Expr]:
    def expr() -> pl.Expr:
        c = pl.col(col).cast(pl.Int64)
        return c if none is None else pl.when(c == none).then(None).otherwise(c)

    return expr


#: Facts of the two built-in games for tables of schema v1 (engines without ``facts``).
_V1: dict[str, Facts] = {
    "yuanzi": Facts(
        title="原子 (yuanzi)",
        row_unit="match",
        seat_row_unit="seat-match",
        side="team",
        side_column="team",
        sides_fn=lambda players: 2,
        first_player_label="first leader's team",
        first_side_fn=lambda: pl.col("first_leader_0").cast(pl.Int64) % 2,
        winner_side_fn=_v1_winner("winner_team", None),
        deal_columns_games=(
            "dao_0",
            "indicator_0",
            "dao_fallback_0",
            "first_receiver_0",
            "first_leader_0",
        ),
        deal_columns_seats=("cards_0", "long_hand_0", "dao_cards_0", "jokers_0"),
        comparison_layout="team_swap",
    ),
    "atlas": Facts(
        title="ATLAS",
        row_unit="round",
        seat_row_unit="seat-round",
        side="seat",
        side_column="seat",
        sides_fn=lambda players: players,
        first_player_label="first player",
        first_side_fn=lambda: pl.col("first_player").cast(pl.Int64),
        winner_side_fn=_v1_winner("winner", -1),
        deal_columns_games=(),
        deal_columns_seats=("atlas_dealt", "skip_dealt", "reverse_dealt", "trade_dealt"),
        comparison_layout="rotation",
    ),
}


def engine(game: str):
    """The engine of ``game``; :class:`CardsimError` for an unknown game."""
    from sim.games import get_engine

    return get_engine(game)


def facts(game: str) -> Facts:
    """The facts of ``game`` (the engine's, else the v1 spelling); unknown game: an error."""
    eng = engine(game)
    f = getattr(eng, "facts", None)
    if f is not None:
        return f
    key = getattr(eng, "name", game)
    if key not in _V1:
        raise CardsimError(f"game {game!r}: its engine declares no game facts; cannot analyse it")
    return _V1[key]


# --- per-game analysis modules ------------------------------------------------------------------

_EXTRA: dict[str, list[ModuleType]] = {}


def register(game: str, module: ModuleType) -> None:
    """Add ``module`` (with ``KEY``, ``queries(run)``, ``section(items)``) to ``game``'s report."""
    mods = _EXTRA.setdefault(game, [])
    if module not in mods:
        mods.append(module)


def game_modules(game: str) -> tuple[ModuleType, ...]:
    """The analysis modules registered for ``game``: those of this package whose ``FOR_GAME``
    is ``game`` (in name order), then those added with :func:`register`."""
    import analysis

    found = []
    for info in pkgutil.iter_modules(analysis.__path__):
        if info.name in _SHARED:
            continue
        mod = importlib.import_module(f"analysis.{info.name}")
        if getattr(mod, "FOR_GAME", None) == game:
            found.append(mod)
    found.sort(key=lambda m: (getattr(m, "ORDER", 50), m.__name__))
    return (*found, *_EXTRA.get(game, ()))


#: shared modules (never a game's own; not imported when looking for registrations)
_SHARED = {
    "facts", "report", "render", "study_report", "model", "stats", "exprs", "io", "plots",
    "stopping", "compare", "duplicate", "seats", "length", "scores", "strategy", "verdicts",
    "answers",
}  # fmt: skip


def hook(game: str, name: str, default=None):
    """The attribute ``name`` of the first module registered for ``game`` that has it (how a
    game supplies its length and score measures to the shared sections), else ``default``."""
    for mod in game_modules(game):
        if hasattr(mod, name):
            return getattr(mod, name)
    return default
