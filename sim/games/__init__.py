"""Registry of game engines; each game package ``sim/games/<game>/`` defines ``ENGINE`` (a
:class:`cardsim.sim.game.GameEngine`) and owns everything about its game (docs/architecture.md).

The built-in games are imported on first use; :func:`register_engine` adds another engine (a
plug-in, or the tests' fake game) under its ``name``. Shared code finds a game only here and
learns about it only from its engine (``engine.facts``), never from its name.
"""

from __future__ import annotations

import importlib

from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine, RunConfig

#: The built-in games (packages ``cardsim.sim.games.<name>``): the one list of them.
GAMES = ("yuanzi", "atlas")
_REGISTERED: dict[str, GameEngine] = {}


def register_engine(engine: GameEngine) -> None:
    """Make ``engine`` available as ``get_engine(engine.name)`` in this process."""
    if engine.name in GAMES:
        raise CardsimError(f"game {engine.name!r} is built in")
    _REGISTERED[engine.name] = engine


def game_names() -> tuple[str, ...]:
    """Every game this process knows: the built-ins, then registered ones."""
    return (*GAMES, *_REGISTERED)


def get_engine(name: str) -> GameEngine:
    """Return the engine of game ``name``; raises :class:`CardsimError` for an unknown game."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in GAMES:
        raise CardsimError(f"unknown game {name!r} (allowed: {', '.join(game_names())})")
    return importlib.import_module(f"cardsim.sim.games.{name}").ENGINE


def config_warnings(config: RunConfig) -> list[str]:
    """Warnings (one line each) for a legal but degenerate configuration, from the game's own
    optional hook ``engine.config_warnings(config)``; shared code knows no game's rules."""
    try:
        hook = getattr(get_engine(config.game), "config_warnings", None)
    except CardsimError:  # an engine that is not registered (tests) has no hook
        return []
    return list(hook(config)) if hook is not None else []
