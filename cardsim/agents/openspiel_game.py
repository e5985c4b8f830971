"""OpenSpiel games over each game's match engine: ``cardsim_<game>`` (issue 46 item 4).

Importing this module registers ``cardsim_<game>`` with ``pyspiel.register_game`` for every
built-in game; :func:`register` adds a game registered later (``register_engine``). Only the
match contract (:class:`cardsim.sim.engine.Match`) is used, so every game works alike.

Parameters: ``players`` (the game's default), ``rules`` (options that differ from the defaults,
as in ``cardsim run --rule``: ``"option=value,option=value"`` in a parameter dict;
``"option:value;option:value"`` also parses, the form the game writes into its own game string,
since OpenSpiel's game-string parser splits at ``,`` and ``=``), ``seed`` (the root seed,
0 .. 2**31 - 1: OpenSpiel's integers are 32-bit) and ``deals`` (K, default 1000).

Chance: every deal, draw and blind choice of a match comes from its own seeded streams, so the
one chance event is the choice of the deal. The game is EXPLICIT_STOCHASTIC with a single chance
node at the start: outcome *i* (uniform over 0 .. K-1) deals game *i* of root seed ``seed`` —
the deal of game *i* of ``cardsim run --seed seed --games K`` with the same players and rules.
After it, the match is deterministic given the players' actions.

Observations: ``observation_tensor(p)`` is ``Match.observation(p)`` (exactly what seat p may
know, AT-26 / YZ-28); the information state is that same observation
(``information_state_tensor`` equals ``observation_tensor``: the match's view carries what the
seat remembers, not a full action history), and the strings list the tensor's nonzero entries
(indices, then values). Rewards are terminal: each seat's match score (``Match.returns``). The
match contract states no bounds, so the game declares generous ones (:data:`MAX_UTILITY`,
:data:`MAX_GAME_LENGTH`) and raises rather than report a value outside them. Utility:
general-sum (the contract does not say whether a game's scores sum to zero).

Determinization (issue 48 item 5): where the game's match offers ``resample_hidden(seat, seed)``
(a copy with what ``seat`` cannot see dealt anew, consistent with its view), the state's
``resample_from_infostate(player, sampler)`` returns a state over it, so OpenSpiel's
information-set searches (``ISMCTSBot``) run on the game; ``sampler()`` (a float in [0, 1))
gives the seed. Other games keep OpenSpiel's default (not implemented).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from cardsim.agents import MatchSpec, canonical_rules, match_spec
from cardsim.sim.engine import Match
from cardsim.sim.errors import CardsimError
from cardsim.sim.games import GAMES, get_engine

#: |a match score| the games declare to OpenSpiel (the contract states none)
MAX_UTILITY = 10_000.0
#: moves of one match the games declare to OpenSpiel (the contract states none)
MAX_GAME_LENGTH = 100_000
DEFAULT_DEALS = 1000
MAX_DEALS = 1_000_000
MAX_OPENSPIEL_SEED = 2**31 - 1


def short_name(game: str) -> str:
    """The OpenSpiel name of ``game``: ``cardsim_<game>``."""
    return f"cardsim_{game}"


def register(game: str) -> str:
    """Register ``cardsim_<game>`` with OpenSpiel (once per process); returns the short name."""
    name = short_name(game)
    if name in pyspiel.registered_names():
        return name
    engine = get_engine(game)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"cardsim {game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(engine.player_counts),
        min_num_players=min(engine.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": engine.default_players,
            "rules": "",
            "seed": 0,
            "deals": DEFAULT_DEALS,
        },
    )

    # a class per game, as OpenSpiel's own Python games register (a plain function as the
    # factory is freed after the interpreter's shutdown and aborts it)
    factory = type(f"CardsimGame_{game}", (CardsimGame,), {"game": game, "game_type": game_type})
    pyspiel.register_game(game_type, factory)
    return name


def _count(params: dict, key: str, top: int) -> int:
    value = params[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise CardsimError(
            f"OpenSpiel parameter {key} must be an integer in 0..{top}, got {value!r}"
        )
    return value


class CardsimGame(pyspiel.Game):
    """``cardsim_<game>`` with its parameters checked (see the module docstring); :func:`register`
    makes a subclass per game that sets ``game`` and ``game_type``."""

    game: str
    game_type: pyspiel.GameType

    def __init__(self, params: dict | None = None) -> None:
        game_type = self.game_type
        full = {**game_type.parameter_specification, **(params or {})}
        self.spec = match_spec(self.game, full["players"], full["rules"])
        self.seed = _count(full, "seed", MAX_OPENSPIEL_SEED)
        self.deals = _count(full, "deals", MAX_DEALS)
        if self.deals < 1:
            raise CardsimError("OpenSpiel parameter deals must be at least 1")
        probe = self.spec.new_match(self.seed, 0)
        self.observation_size = probe.observation_size
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=self.deals,
            num_players=self.spec.players,
            min_utility=-MAX_UTILITY,
            max_utility=MAX_UTILITY,
            max_game_length=MAX_GAME_LENGTH,
        )
        canonical = {**full, "players": self.spec.players, "rules": canonical_rules(self.spec)}
        super().__init__(game_type, info, canonical)

    def new_initial_state(self) -> CardsimState:
        return CardsimState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> CardsimObserver:
        """The observer of both the observation and the information state: they are equal."""
        del iig_obs_type  # every observation type (perfect recall or not) is the seat's view
        if params:
            raise CardsimError(f"cardsim observers take no parameters, got {params!r}")
        return CardsimObserver(self.observation_size)


class _Held:
    """The match of a state. Copies clone it (``Match.clone``); pickles (OpenSpiel's
    serialisation) replay it from the deal and the actions."""

    def __init__(self, spec: MatchSpec, seed: int, game_index: int) -> None:
        self.spec, self.seed, self.game_index = spec, seed, game_index
        self.match: Match = spec.new_match(seed, game_index)
        self.actions: list[int] = []
        self.resampled = False  # a determinization: not the deal's own match (no replay)

    def apply(self, action: int) -> None:
        if len(self.actions) >= MAX_GAME_LENGTH:
            raise CardsimError(
                f"a match ran past the {MAX_GAME_LENGTH} moves declared to OpenSpiel"
            )
        self.match.apply(action)
        self.actions.append(action)

    def __deepcopy__(self, memo: dict) -> _Held:
        del memo  # nothing inside is shared with other copies
        copy = _Held.__new__(_Held)
        copy.spec, copy.seed, copy.game_index = self.spec, self.seed, self.game_index
        copy.match, copy.actions = self.match.clone(), list(self.actions)
        copy.resampled = self.resampled
        return copy

    def __reduce__(self):
        if self.resampled:
            raise CardsimError("a resampled state (a determinization) cannot be serialised")
        spec = self.spec
        text = canonical_rules(spec)
        return (_replay, (spec.engine.name, spec.players, text, self.seed, self.game_index,
                          list(self.actions)))  # fmt: skip


def _replay(
    game: str, players: int, rules: str, seed: int, game_index: int, actions: list
) -> _Held:
    held = _Held(match_spec(game, players, rules), seed, game_index)
    for action in actions:
        held.apply(action)
    return held


class CardsimState(pyspiel.State):
    """A match of ``cardsim_<game>``: first the chance node (which deal), then the seats' moves."""

    def __init__(self, game: CardsimGame) -> None:
        super().__init__(game)
        self._spec, self._seed, self._deals = game.spec, game.seed, game.deals
        self.held: _Held | None = None

    def current_player(self) -> int:
        if self.held is None:
            return pyspiel.PlayerId.CHANCE
        if self.held.match.is_over():
            return pyspiel.PlayerId.TERMINAL
        return int(self.held.match.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        if self.held is None or player != self.current_player():
            return []
        return [int(a) for a in self.held.match.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self._deals
        return [(i, p) for i in range(self._deals)]

    def _apply_action(self, action: int) -> None:
        if self.held is None:
            self.held = _Held(self._spec, self._seed, int(action))
        else:
            self.held.apply(int(action))

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CardsimState:
        """A state ``player_id`` cannot tell from this one, its hidden cards dealt anew by the
        match's ``resample_hidden`` (seed from ``probability_sampler()``, a float in [0, 1));
        before the deal, a copy. Games whose match has no ``resample_hidden``: OpenSpiel's
        default."""
        if self.held is None:
            return self.clone()
        resample = getattr(self.held.match, "resample_hidden", None)
        if resample is None:
            return super().resample_from_infostate(player_id, probability_sampler)
        seed = int(float(probability_sampler()) * 2**53)
        state = self.clone()
        state.held.match = resample(int(player_id), seed)
        state.held.resampled = True
        return state

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal game {action} of root seed {self._seed}"
        if self.held is None:
            return f"action {action}"
        return self.held.match.action_text(int(action))

    def is_terminal(self) -> bool:
        return self.held is not None and bool(self.held.match.is_over())

    def returns(self) -> list[float]:
        if self.held is None:
            return [0.0] * self._spec.players
        out = [float(r) for r in self.held.match.returns()]
        if any(abs(r) > MAX_UTILITY for r in out):
            raise CardsimError(
                f"match returns {out} exceed the ±{MAX_UTILITY:g} declared to OpenSpiel"
            )
        return out

    def observation(self, player: int) -> np.ndarray:
        """Seat ``player``'s view (zeros before the deal)."""
        if self.held is None:
            return np.zeros(self.get_game().observation_size, np.float32)
        return np.asarray(self.held.match.observation(player), np.float32)

    def __str__(self) -> str:
        if self.held is None:
            return "not dealt"
        held = self.held
        moves = " ".join(map(str, held.actions))
        return f"game {held.game_index} of root seed {held.seed}; moves: {moves}"


class CardsimObserver:
    """OpenSpiel's PyObserver: ``tensor`` (and ``dict["observation"]``) is the seat's view."""

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardsimState, player: int) -> None:
        self.tensor[:] = state.observation(player)

    def string_from(self, state: CardsimState, player: int) -> str:
        view = state.observation(player)
        nonzero = np.flatnonzero(view)
        return f"p{player} at {nonzero.tolist()} values {view[nonzero].tolist()}"


for _game in GAMES:
    register(_game)
