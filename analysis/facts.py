"""The game facts the analyses read, so that shared analysis code never tests a game's name.

The facts come from the engine (``cardsim.sim.games.get_engine(game).facts``, a ``cardsim.sim.game.GameFacts``:
title, what one row is, the sides that win, the first player's side, the columns that depend
only on the deal, how ``compare`` seats the strategies).

What a game adds to the analyses (its own report sections, its length and score measures, its
ladder readings) is its analysis declaration, ``cardsim.analysis.games.analysis_of(game)``.
"""

from __future__ import annotations

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
