"""The game facts the analyses read, so that shared analysis code never tests a game's name.

The facts come from the engine (``cardsim.sim.games.get_engine(game).facts``, a ``cardsim.sim.game.GameFacts``:
title, what one row is, the sides that win, the first player's side, the columns that depend
only on the deal, how ``compare`` seats the strategies).

Per-game analysis modules (``yuanzi_dao``, ``atlas_end`` …) are not chosen by name tests
either: each declares the game it belongs to (``FOR_GAME``) and :func:`game_modules` collects
the modules registered for a run's game (:func:`register` adds one from outside, e.g. a test
engine's own analysis).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameFacts


def engine(game: str):
    """The engine of ``game``; :class:`CardsimError` for an unknown game."""
    from cardsim.sim.games import get_engine

    return get_engine(game)


def facts(game: str) -> GameFacts:
    """The facts of ``game`` (``engine.facts``); an unknown game, or an engine without facts,
    is a :class:`CardsimError`."""
    f = getattr(engine(game), "facts", None)
    if f is None:
        raise CardsimError(f"game {game!r}: its engine declares no game facts; cannot analyse it")
    return f


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
    import cardsim.analysis

    found = []
    for info in pkgutil.iter_modules(cardsim.analysis.__path__):
        if info.name in _SHARED:
            continue
        mod = importlib.import_module(f"{__package__}.{info.name}")
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
