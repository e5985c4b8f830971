"""Registry of game engines; each module defines ``ENGINE`` (a :class:`sim.game.GameEngine`)."""

from __future__ import annotations

import importlib

from sim.errors import CardsimError
from sim.game import GameEngine

GAMES = ("yuanzi", "atlas")


def get_engine(name: str) -> GameEngine:
    """Return the engine of game ``name``; raises :class:`CardsimError` for an unknown game."""
    if name not in GAMES:
        raise CardsimError(f"unknown game {name!r} (allowed: {', '.join(GAMES)})")
    return importlib.import_module(f"sim.games.{name}").ENGINE
