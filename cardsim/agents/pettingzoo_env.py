"""A PettingZoo AEC environment over one game's match engine (:func:`cardsim.env`).

Only the match contract (:class:`cardsim.sim.engine.Match`) is used, so every registered game
works. Agents ``player_0 .. player_{n-1}`` are the seats; the agent to act is the match's
``current_player()``. An observation is ``{"observation": float32[observation_size],
"action_mask": int8[num_actions]}`` (the seat's ``Match.observation``: exactly what it may
know; the mask is all zeros for a seat that is not to act). Actions are the match's dense action
ids. Rewards come only at the end: each seat's match score (``Match.returns``).

Seeds as in cardsim: ``reset(seed=s)`` deals game 0 of root seed ``s``, each ``reset()``
without a seed the next game (1, 2, …) of the same root seed; game *i* of root seed *s* is the
deal of game *i* of ``cardsim run --seed s`` with the same players and rules.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardsim.agents import MatchSpec, check_seed, match_spec
from cardsim.sim.engine import IllegalMove
from cardsim.sim.errors import CardsimError


class CardsimAEC(AECEnv):
    """One game's matches as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, spec: MatchSpec, seed: int = 0, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise CardsimError(f"render_mode is None or 'ansi', got {render_mode!r}")
        self.spec, self.render_mode = spec, render_mode
        self.metadata = {**self.metadata, "name": f"cardsim_{spec.engine.name}_v0"}
        self.root_seed, self.game_index = check_seed(seed), -1  # the first reset() deals game 0
        probe = spec.new_match(self.root_seed, 0)
        self.num_actions, self.observation_size = probe.num_actions, probe.observation_size
        self.possible_agents = [f"player_{i}" for i in range(spec.players)]
        box = spaces.Box(-np.inf, np.inf, (self.observation_size,), np.float32)
        mask = spaces.Box(0, 1, (self.num_actions,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.match = probe
        self.moves: list[str] = []  # with render_mode "ansi": the moves so far, in words

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal game 0 of root seed ``seed``, or (no seed) the next game of the same root seed."""
        if seed is not None:
            self.root_seed, self.game_index = check_seed(seed), 0
        else:
            self.game_index += 1
        self.match = self.spec.new_match(self.root_seed, self.game_index)
        self.moves = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        """Point ``agent_selection`` at the seat to act; at the end, hand out the returns."""
        if not self.match.is_over():
            self.agent_selection = self.possible_agents[self.match.current_player()]
            return
        returns = self.match.returns()
        for i, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(returns[i])
            self.terminations[agent] = True
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.num_actions, np.int8)
        if not self.match.is_over() and self.match.current_player() == seat:
            mask[self.match.legal_actions()] = 1
        obs = np.asarray(self.match.observation(seat), dtype=np.float32)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play ``action`` (a dense action id) for ``agent_selection``; raises
        :class:`~cardsim.sim.engine.IllegalMove` (a CardsimError) if it is not legal now."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalMove(f"an action is an integer 0..{self.num_actions - 1}, got {action!r}")
        text = self.match.action_text(int(action)) if self.render_mode else ""
        self.match.apply(int(action))
        if self.render_mode:
            self.moves.append(f"{agent}: {text}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._select()

    def render(self) -> str | None:
        """The match so far in words (``render_mode="ansi"``): one line per move played."""
        if self.render_mode is None:
            return None
        lines = [f"game {self.game_index} of root seed {self.root_seed}"]
        return "\n".join(lines + self.moves)

    def close(self) -> None:
        """Nothing to release (matches hold no files or windows)."""


def make_env(
    game: str,
    players: int | None = None,
    rules: Mapping[str, object] | str | None = None,
    seed: int = 0,
    render_mode: str | None = None,
) -> CardsimAEC:
    """A PettingZoo AEC environment of ``game`` (see :func:`cardsim.env`)."""
    return CardsimAEC(match_spec(game, players, rules), seed, render_mode)
