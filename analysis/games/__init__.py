"""Per-game analysis registry: what a game adds to the shared report, ladder and factorial.

Each built-in game has a module here named after it (``analysis/games/<game>.py``, the same
name as its engine package ``sim/games/<game>/``) that declares ``ANALYSIS``, a
:class:`GameAnalysis`: its own report sections (modules with ``KEY``, ``queries(run)``,
``section(items)``), its length and score measures for the shared Length and Scores sections,
and its ladder readings of the headline measures that are not a plain rate or mean. Shared code
reads these fields; it never tests a game's name nor looks an attribute up by a string.

A game plugged in with ``cardsim.sim.games.register_engine`` (a plug-in, the tests' fake game)
registers its own with :func:`register`; a game with neither gets the empty declaration (the
shared sections only).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType

__all__ = ["GameAnalysis", "analysis_of", "register"]


@dataclass(frozen=True)
class GameAnalysis:
    """What one game adds to the analyses (every field optional)."""

    #: the game's own report sections, in report order (after the shared ones)
    sections: tuple[ModuleType, ...] = ()
    #: Length section: ``length_values(games) -> LazyFrame[measure, value]``, the measure the
    #: histogram and the finding speak about, the section's intro, extra figures
    length_values: Callable | None = None
    length_main: str = ""
    length_intro: str = ""
    length_figures: Callable | None = None
    #: Scores section: ``score_values(games, seats) -> LazyFrame[measure, value]``, extra
    #: queries ``score_queries(run)``, intro, the means fixed by the rules (no interval), the
    #: game's part of the section ``score_section(sec, items, hist)``, and a note on the unit
    score_values: Callable | None = None
    score_queries: Callable | None = None
    score_intro: str = ""
    score_fixed_means: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    score_section: Callable | None = None
    score_unit_note: str = ""
    #: the ladder's readings of headline measures declared ``ladder="hook:NAME"``:
    #: ``ladder_measures[NAME](measure, facts) -> list[cardsim.analysis.ladder.LadderMeasure]``
    ladder_measures: Mapping[str, Callable] = field(default_factory=lambda: MappingProxyType({}))
    #: the game's CJK words and their romanisation, for plot text without a CJK font
    plot_words: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


_REGISTERED: dict[str, GameAnalysis] = {}
EMPTY = GameAnalysis()


def register(game: str, analysis: GameAnalysis) -> None:
    """Declare ``analysis`` for ``game`` in this process (a plug-in or test game)."""
    _REGISTERED[game] = analysis


def analysis_of(game: str) -> GameAnalysis:
    """The analysis declaration of ``game``: registered, else the built-in module
    ``cardsim.analysis.games.<game>`` of a built-in game, else :data:`EMPTY`."""
    if game in _REGISTERED:
        return _REGISTERED[game]
    from cardsim.sim.games import GAMES

    if game not in GAMES:
        return EMPTY
    return importlib.import_module(f"{__name__}.{game}").ANALYSIS
