"""The match contract every game's engine offers (issue 46): one match, stepped move by move.

Each game package provides ``new_match`` on its :class:`~cardsim.sim.game.GameEngine`; the
returned :class:`Match` drives the game's one match engine (``kernels/<game>/engine.py``), the
same code the fast driver, the search strategies and replays run. Environments for other
people's agents (:mod:`cardsim.env`: PettingZoo, OpenSpiel) and the conformance tests use only
this contract, so they work for every registered game.

Actions are dense ids ``0 .. num_actions - 1`` (a game maps them to its move codes);
an observation is a fixed-length float32 vector holding exactly what one seat may know (its own
hand, the public record and the rule options in force: AT-26 / YZ-28 of docs/RULES-*.md).
Rounds (ATLAS) and halves (原子) are phases inside one match: ``apply`` moves on to the next
phase by itself, and ``returns`` is the match score per seat once ``is_over``.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from cardsim.sim.errors import CardsimError


class IllegalMove(CardsimError):
    """``Match.apply`` was given an action that is not legal now (the match is unchanged)."""


class Match(Protocol):
    """One match in play. Deterministic: the same (rules, seed, game index) and the same actions
    give the same match; chance (deals, draws, a blind TRADE) comes from the match's own seeded
    streams, as in ``cardsim run`` (game *i* of root seed *s* deals as game *i* of a run)."""

    players: int
    num_actions: int  # size of the action space (dense ids)
    observation_size: int  # length of ``observation(seat)``

    def current_player(self) -> int:
        """The seat to act, or -1 once the match is over."""
        ...

    def legal_actions(self) -> np.ndarray:
        """Sorted int64 action ids legal for the seat to act (empty once over)."""
        ...

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; raises :class:`IllegalMove` if it is not legal."""
        ...

    def is_over(self) -> bool:
        """Whether the match has ended (every round / half played)."""
        ...

    def returns(self) -> np.ndarray:
        """float64 [players]: each seat's match score (0 until the match is over)."""
        ...

    def observation(self, seat: int) -> np.ndarray:
        """float32 [observation_size]: what ``seat`` may know now, nothing more."""
        ...

    def action_text(self, action: int) -> str:
        """A readable name of ``action`` (as replays write moves)."""
        ...

    def clone(self) -> Match:
        """An independent copy (search, tests)."""
        ...
