"""The ATLAS :class:`~cardsim.sim.engine.Match`: one match stepped move by move over the kernel's
match engine (``kernels/atlas/engine.py``).

Every rule is the kernel's: this class holds the engine's state array, its streams and the
pending decision, and calls the engine's Numba functions (``new_match``, ``legal``, ``apply``,
``is_over``, ``returns``, ``view``, ``action_id`` / ``action_of``) with numpy arrays. The same
functions play ``cardsim run`` (the driver), so game *i* of root seed *s* is dealt and played
as game *i* of a run. Action ids, the observation's layout and the move texts:
docs/atlas-protocol.md section 10.
"""

from __future__ import annotations

import functools

import numpy as np
from cardsim.kernels.atlas import engine as E
from cardsim.kernels.atlas.encoding import DT_CLAIM, MAX_CARDS, MAX_OPTIONS, NONE, PAIR
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.atlas.state import (
    CELLS,
    H_FACE_DOWN,
    HANDS,
    MAX_PLAYERS,
    N_CELLS,
    N_TYPES,
    P_CARD,
    P_SEAT,
    PILE,
    PUB_LEN,
    S_LEN,
    SEAT_FD,
    SEAT_GIFT,
)
from cardsim.sim.engine import IllegalMove
from cardsim.sim.errors import CardsimError


class AtlasMatch:
    """One ATLAS match (:class:`cardsim.sim.engine.Match`); build it with ``ENGINE.new_match``."""

    num_actions: int = E.N_ACTIONS
    observation_size: int = E.VIEW_LEN

    def __init__(self, players: int, rules: dict, seed: int, game_index: int) -> None:
        """``rules``: every option resolved (``OPTIONS.resolve``); use :func:`new_match`."""
        self.players = int(players)
        self._claim_priority = str(rules["claim_priority"])  # AT-14: how a claim's text reads
        self._rules = np.ascontiguousarray(OPTIONS.array(rules), dtype=np.int64)
        self._S = np.zeros(S_LEN, np.int32)
        self._rngs = np.empty((2, 4), np.uint64)  # the engine's deal and events streams
        self._opts = np.zeros(MAX_OPTIONS, np.int32)
        E.new_match(
            self._S, np.int64(players), self._rules, np.uint64(seed), np.int64(game_index),
            self._rngs,
        )  # fmt: skip
        self._moved(E.legal(self._S, self._rules, self._opts, self._rngs))

    # -- the pending decision ----------------------------------------------------------------
    def _moved(self, got) -> None:
        """Keep the engine's next decision; at a round's end (``k`` 0) the engine deals the next
        round (AT-25) unless the match is over."""
        seat, kind, k = (int(v) for v in got)
        while k == 0 and not E.is_over(self._S):
            seat, kind, k = (int(v) for v in E.legal(self._S, self._rules, self._opts, self._rngs))
        self._seat, self._kind, self._k = (seat, kind, k) if k > 0 else (-1, -1, 0)
        ids = np.empty(self._k, np.int64)
        if self._k:
            E.action_ids(np.int64(self._kind), self._opts, np.int64(self._k), ids)
        self._codes = {int(a): int(c) for a, c in zip(ids, self._opts[: self._k], strict=True)}
        self._legal = np.sort(ids)

    def current_player(self) -> int:
        """The seat to act, or -1 once the match is over."""
        return self._seat

    def legal_actions(self) -> np.ndarray:
        """Sorted int64 action ids legal for the seat to act (empty once over)."""
        return self._legal.copy()

    def apply(self, action: int) -> None:
        """Play ``action`` for the seat to act; :class:`IllegalMove` (the match unchanged) if it
        is not legal now."""
        whole = isinstance(action, int | np.integer) and not isinstance(action, bool)
        code = self._codes.get(int(action)) if whole else None
        if code is None:
            raise IllegalMove(self._illegal(action))
        self._moved(E.apply(np.int64(code), self._S, self._opts, self._rngs))

    def _illegal(self, action: object) -> str:
        if self._k == 0:
            return f"action {action!r}: the match is over"
        return (
            f"action {action!r} is not legal for seat {self._seat} now (legal: "
            f"{', '.join(str(int(a)) for a in self._legal)})"
        )

    def is_over(self) -> bool:
        """Whether the match's last round (AT-25) is over."""
        return self._k == 0

    def returns(self) -> np.ndarray:
        """float64 [players]: each seat's match score, the sum of its AT-24 points over the rounds
        (the seats table's ``points``); zeros until the match is over."""
        out = np.zeros(self.players, np.float64)
        if self.is_over():
            E.returns(self._S, out)
        return out

    def observation(self, seat: int) -> np.ndarray:
        """float32 [observation_size]: the engine's ``view`` of ``seat`` (AT-26; layout in
        docs/atlas-protocol.md)."""
        if not isinstance(seat, int | np.integer) or not 0 <= int(seat) < self.players:
            raise CardsimError(f"seat {seat!r}: seats are 0..{self.players - 1}")
        out = np.empty(E.VIEW_LEN, np.int32)
        E.view(self._S, np.int64(seat), out)
        return out.astype(np.float32)

    def action_text(self, action: int) -> str:
        """The move as replays write it: with the cards a meld gives up when ``action`` is legal
        now (the deciding seat's hand), else the option alone."""
        from cardsim.sim.games.atlas.reference.melds import meld_title
        from cardsim.sim.games.atlas.reference.round import describe

        a = int(action)
        if not 0 <= a < E.N_ACTIONS:
            raise CardsimError(f"action {action!r}: ATLAS action ids are 0..{E.N_ACTIONS - 1}")
        kind, code = (int(v) for v in E.action_of(np.int64(a)))
        claim = kind == DT_CLAIM
        if a in self._codes:
            h = HANDS + self._seat * N_TYPES
            hand = [t for t in range(N_TYPES) for _ in range(int(self._S[h + t]))]
            x = int(self._S[P_CARD]) if claim else None
            return describe(code, hand, x, claim_priority=self._claim_priority)
        if code == NONE:
            return "no claim" if claim else "none"
        if code < PAIR:
            return f"{'claim with' if claim else 'self-meld'} {meld_title(code)}"
        return describe(code)

    def clone(self) -> AtlasMatch:
        """An independent copy: the state, the streams and the pending decision."""
        other = object.__new__(AtlasMatch)
        other.__dict__.update(self.__dict__)
        for name in ("_S", "_rngs", "_opts", "_legal"):
            setattr(other, name, getattr(self, name).copy())
        other._codes = dict(self._codes)
        return other

    # -- beyond the contract: a built-in strategy's move and the learned policies' features ----
    def _seat_view(self) -> np.ndarray:
        """A copy of the state with what the seat to act may not know (AT-26) zeroed: the
        other hands (and their cell counts), the draw pile, the face-down self-melds' cards,
        the other seats' TRADE gifts and own face-down cards. ``P_SEAT`` is the seat."""
        S = self._S.copy()
        me = self._seat
        for q in range(MAX_PLAYERS):
            if q != me:
                S[HANDS + q * N_TYPES : HANDS + (q + 1) * N_TYPES] = 0
                S[CELLS + q * N_CELLS : CELLS + (q + 1) * N_CELLS] = 0
                S[SEAT_GIFT + q * 6 : SEAT_GIFT + (q + 1) * 6] = 0
                S[SEAT_FD + q * N_TYPES : SEAT_FD + (q + 1) * N_TYPES] = 0
        S[PILE : PILE + MAX_CARDS] = 0
        S[H_FACE_DOWN : H_FACE_DOWN + N_TYPES] = 0
        S[P_SEAT] = me
        return S

    def strategy_action(self, strategy: str, rng: np.ndarray) -> int:
        """The action id the built-in strategy ``strategy`` (a name as ``cardsim run
        --strategy`` takes it: ``greedy``, ``soft:temp=0.5``, ``pimc:samples=8`` …) picks for
        the seat to act, through the driver's own decision (``driver.decide``: the entry every
        run calls, on the engine's options in its order). The strategy is given the seat's view
        only (AT-26): a copy of the state with the other hands, the draw pile and the
        face-down cards zeroed. ``rng`` is its stream (uint64[4], e.g. ``seed_stream(rng,
        seed, game, STREAM_STRATEGY)``: then a match stepped this way plays game ``game`` of a
        run), advanced in place. User strategies (files) are refused."""
        if self.is_over():
            raise CardsimError("the match is over: no seat is to act")
        sids, driver = _strategy_seats(strategy, self.players)
        from cardsim.kernels.atlas.ismcts import BUF_SIZE

        S = self._seat_view()
        tc, tdec, thash, _twin, topt, snap = driver.scratch(level=0, cap=1)
        opts = np.zeros(BUF_SIZE, np.int32)  # the options, then pimc's / ismcts's scratch
        opts[: self._k] = self._opts[: self._k]
        code = int(
            driver.decide(
                S, np.int64(self._seat), np.int64(self._kind), opts,
                np.int64(self._k), sids, rng, tc, tdec, thash, topt, snap,
            )
        )  # fmt: skip
        for a, c in self._codes.items():
            if c == code:
                return a
        raise CardsimError(f"internal error: {strategy} answered option {code}, not legal now")

    def decision_features(self) -> np.ndarray:
        """float64 [len(legal_actions()), N_FEATURES]: row k is the learned policies' feature
        vector φ (``kernels/atlas/learned.py``, docs/strategies.md "Learned features: ATLAS")
        of the k-th action of ``legal_actions()``, computed from the seat to act's view only
        (its hand, the public block, the options: what the driver gives a strategy, AT-26)."""
        from cardsim.kernels.atlas.learned import features_matrix

        if self.is_over():
            raise CardsimError("the match is over: no decision to describe")
        pub = self._S[:PUB_LEN].copy()
        pub[P_SEAT] = self._seat
        h = HANDS + self._seat * N_TYPES
        hand = self._S[h : h + N_TYPES].copy()
        opts = self._opts[: self._k].copy()
        rows = features_matrix(np.int64(self._kind), hand, pub, opts, np.int64(self._k))
        ids = np.empty(self._k, np.int64)
        E.action_ids(np.int64(self._kind), opts, np.int64(self._k), ids)
        return rows[np.argsort(ids, kind="stable")]


@functools.cache
def _strategy_seats(strategy: str, players: int):
    """(kernel ids for every seat of ``strategy``, the driver that runs them) — checked once."""
    from cardsim.sim import user_strategies
    from cardsim.sim.game import RunConfig
    from cardsim.sim.games.atlas.seats import seat_ids

    if not isinstance(strategy, str) or user_strategies.is_user_strategy(strategy):
        raise CardsimError(f"strategy must name a built-in strategy, got {strategy!r}")
    return seat_ids(RunConfig("atlas", players, (strategy,) * players))


def new_match(players: int, rules: dict | None, seed: int, game_index: int = 0) -> AtlasMatch:
    """The match dealt as game ``game_index`` of a run with root seed ``seed`` (2–10 players,
    AT-03); ``rules`` validated as a run's (the option table's ``resolve``, as
    :func:`cardsim.sim.config.resolve_rules`: unknown options, bad values, a deal the deck
    cannot make, AT-D1) — bad input raises :class:`CardsimError`."""
    from cardsim.sim.config import MAX_SEED
    from cardsim.sim.games.atlas.seats import PLAYER_COUNTS

    if not isinstance(players, int) or isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise CardsimError(f"atlas is played by 2..10 players, got {players!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    if not isinstance(game_index, int) or isinstance(game_index, bool) or game_index < 0:
        raise CardsimError(f"game_index must be a non-negative integer, got {game_index!r}")
    resolved = OPTIONS.resolve(dict(rules or {}), players)  # the one validator, as a run's
    return AtlasMatch(players, resolved, seed, game_index)
