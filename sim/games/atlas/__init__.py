"""ATLAS game engine: rule options, strategies, and the pure chunk function over the Numba kernel.

User strategies
---------------
A seat may name ``path/to/file.py:function`` instead of a built-in strategy. The function must be
Numba-compilable (``@numba.njit`` or plain Python that ``njit`` accepts) with the signature of the
built-in strategies (``cardsim.kernels.atlas.strategies``)::

    def choose(dtype, hand, pub, options, n, rng) -> int:
        # dtype   decision type: 0 claim, 1 self-meld, 2 discard, 3 trade target,
        #         4 trade take (trade_pick=seen), 5 trade give
        # hand    int32[64]: the deciding seat's card counts (ids: cardsim.kernels.atlas.encoding)
        # pub     int32[PUB_LEN]: the public state (offsets P_* in cardsim.kernels.atlas.state);
        #         pub[P_SEAT] is the deciding seat
        # options int32[n]: the legal decision codes; rng: uint64[4], the strategy stream
        # returns an index into options (0 <= index < n)

It sees exactly what AT-26 allows, as private copies. It is compiled into a variant of the driver
that is cached per version of the file (``sim/user_strategies.py``). See
``examples/atlas_strategy.py``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from cardsim.kernels.atlas import driver as _driver
from cardsim.kernels.atlas import ismcts as _ismcts
from cardsim.kernels.atlas import pimc as _pimc
from cardsim.kernels.atlas import rules as _rules
from cardsim.kernels.atlas.options import OPTIONS, deck_size
from cardsim.kernels.atlas.strategies import BUILTINS, LEVEL_BASE, MAX_USER, USER_BASE
from cardsim.kernels.errors import did_you_mean
from cardsim.sim import python_strategies, user_strategies
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import (
    GameFacts,
    Measure,
    RunConfig,
    StrategyInfo,
    Warmup,
    column,
    first_side_wins,
    no_winner,
)
from cardsim.sim.games.atlas import adapter, tables
from cardsim.sim.schema import build_frame, context_for
from cardsim.sim.strategy_params import (
    IsmctsStrategy,
    LevelStrategies,
    PimcStrategy,
    parse_builtin,
)


def resolve_rules(rules: dict | None, players: int | None = None) -> dict:
    """Every rule option with its value (defaults filled in, text parsed); raises on bad input
    (with ``players``, also a deal the deck cannot make: AT-D1)."""
    return OPTIONS.resolve(rules, players)


def rules_array(rules: dict | None, players: int | None = None) -> np.ndarray:
    """The kernel's rule array (offsets ``cardsim.kernels.atlas.rules.R_*``) of a rules dict."""
    return OPTIONS.array(rules, players)


#: the one compile of the driver's user variant (every user strategy then compiles only itself)
USER_DRIVER_COMPILE = "about 15 s"
#: (samples, cap, rollout, z) of the plain name ``pimc``: chosen so that a 1,000-deal duplicate
#: comparison with greedy takes under 10 minutes on 2 cores (benchmarks/bench_pimc.py).
PIMC_DEFAULT = (48, 4, 0, 2.0)
#: ``pimc`` (kernels/atlas/pimc.py; docs/strategies.md)
PIMC = PimcStrategy(
    _pimc,
    PIMC_DEFAULT,
    "candidate options searched (greedy's pick, then greedy's order of preference)",
    "search: perfect-information Monte Carlo for discards and its own TRADE (target, card "
    "given) — samples the other hands, face-down melds and stock order from the unseen cards "
    "(AT-26), plays greedy's top candidates to the end of the round with greedy rollouts, "
    "leaves greedy's pick only for one whose mean gain (result and score) passes z standard "
    "errors; greedy elsewhere; pimc:samples=N,cap=K,rollout=greedy|random,z=Z",
)
PIMC_INFO = PIMC.info
pimc_id = PIMC.id
#: (iters, cap, rollout, c, z, drop index) of the plain name ``ismcts``: at most 320
#: determinizations x 4 candidates, paired, racing with drop=0 (a challenger whose mean gain is
#: not above 0 at iteration 8, 16, ... is played no more) plus the tree: about pimc's CPU per
#: decision, and beats pimc head to head (docs/strategies.md)
ISMCTS_DEFAULT = (320, 4, 0, 0.7, 1.0, 1)
#: ``ismcts`` (kernels/atlas/ismcts.py; docs/strategies.md)
ISMCTS = IsmctsStrategy(
    _ismcts,
    ISMCTS_DEFAULT,
    "options considered per own decision (pimc's candidates: greedy's order of preference)",
    "search: single-observer information-set MCTS at the decisions pimc searches — every "
    "candidate on every determinization (AT-26, paired), a tree with UCB over its own later "
    "decisions, racing (a candidate not ahead of greedy's pick is dropped), greedy rollouts, "
    "pimc's objective; ismcts:iters=N,c=C,rollout=greedy|random,cap=K,z=Z,drop=off|0..3",
)
#: ``greedy:eps=E`` and ``soft:temp=T`` (kernels/levels.py; docs/strategies.md, "Levels")
LEVELS = LevelStrategies(
    LEVEL_BASE,
    "a keep point (discard, give, take), a meld size (claim, self-meld), a card of the TRADE target's hand",
)


FACTS = GameFacts(
    title="ATLAS",
    row_unit="round",
    side="seat",
    side_column="seat",
    sides_of=lambda players: players,
    first_player_label="first player",
    first_side=lambda: pl.col("first_player"),
    winner_side=lambda: pl.col("winner"),
    deal_columns_games=("players",),
    deal_columns_seats=("atlas_dealt", "skip_dealt", "reverse_dealt", "trade_dealt"),
    comparison_layout="rotation",
    deal_options=("hand_size", "atlas_cards", "skip_cards", "reverse_cards", "trade_cards"),
    headline=(
        Measure("first_side_wins", "first player wins the round", "round", "binary",
                first_side_wins, "first-player advantage", ladder="first_excess"),
        Measure("no_winner", "round ends without a winner", "round", "binary", no_winner,
                "no-winner rate"),
        Measure("turns", "turns per round", "round", "continuous", column("turns"), "length"),
        Measure("winner_points", "winner's points", "round", "continuous",
                column("winner_points"), "winner's points"),
    ),
)  # fmt: skip


#: AT-D1: under this many cards of stock per player after the deal, warn (docs/RULES-atlas.md
#: table: 15 % or more of the rounds end without a winner there under the default rules)
THIN_STOCK = 6


class AtlasEngine:
    """The ATLAS :class:`cardsim.sim.game.GameEngine` (2–10 players, AT-03)."""

    name = "atlas"
    facts = FACTS
    player_counts = tuple(range(2, 11))
    default_players = 4
    rule_options = OPTIONS
    strategies = (
        *(StrategyInfo(name, sid, desc) for name, sid, desc in BUILTINS),
        *LEVELS.infos,
        PIMC_INFO,
        ISMCTS.info,
    )

    def parse_strategy(self, name: str) -> str:
        """A built-in strategy with parameters (``pimc:samples=16``, ``greedy:eps=0.1``),
        checked; CardsimError."""
        return parse_builtin(name, PIMC, ISMCTS, LEVELS)

    def config_warnings(self, config: RunConfig) -> list[str]:
        """AT-D1: a deal that leaves under ``THIN_STOCK`` cards per player to draw is legal but
        degenerate (15 % to all rounds end without a winner; the measured table in
        docs/RULES-atlas.md). One line each."""
        values = resolve_rules(config.rules, config.players)
        n, hand, deck = config.players, int(values["hand_size"]), deck_size(values)
        stock = deck - hand * n
        if stock >= THIN_STOCK * n:
            return []
        return [
            f"hand_size {hand} × {n} players leaves {stock} of the deck's {deck} cards to draw, "
            f"under {THIN_STOCK} per player: expect many rounds to end without a winner (AT-D1, "
            f"docs/RULES-atlas.md; hand_size {(deck - THIN_STOCK * n) // n} or less leaves "
            f"{THIN_STOCK} per player)"
        ]

    # -- seats -------------------------------------------------------------------------------
    def seat_ids(self, config: RunConfig, entry: str = "simulate_part"):
        """Strategy id per seat and the driver module to run (the user-strategy variant if any
        seat is a user strategy; ``entry``: the driver function about to be called)."""
        n = config.players
        if n not in self.player_counts:
            raise CardsimError(f"ATLAS players: {n} (allowed: 2..10)")
        if len(config.seats) != n:
            raise CardsimError(f"{len(config.seats)} seat strategies for {n} players")
        resolve_rules(config.rules, n)  # AT-D1: the deck deals every seat (before any kernel)
        builtin = {s.name: s.id for s in self.strategies}
        ids, users = [], []
        for name in config.seats:
            if name in builtin:
                ids.append(builtin[name])
            elif name.startswith("pimc:"):
                ids.append(pimc_id(name))
            elif name.startswith("ismcts:"):
                ids.append(ISMCTS.id(name))
            elif LEVELS.handles(name):
                ids.append(LEVELS.id(name))
            elif user_strategies.is_python_strategy(name):  # played by play_chunk / replay
                raise CardsimError(f"{name}: a py: strategy has no kernel driver")
            elif user_strategies.is_user_strategy(name):
                if name not in users:
                    users.append(name)
                ids.append(USER_BASE + user_strategies.entry(name, _driver))
            else:
                raise CardsimError(
                    f"unknown ATLAS strategy {name!r}{did_you_mean(name, builtin)} "
                    f"(allowed: {', '.join(builtin)}, "
                    "or path/to/file.py:function)"
                )
        sids = np.array(ids, np.int64)
        if not users:
            return sids, _driver.for_seats(sids)  # the built-in driver (search table filled)
        mod = user_strategies.driver_for(_driver, users, entry, "ATLAS", USER_DRIVER_COMPILE)
        return sids, _driver.for_seats(sids, mod)

    # -- play --------------------------------------------------------------------------------
    def play_arrays(self, config: RunConfig, first: int, count: int):
        """The raw structured arrays (GAMES_DTYPE, SEATS_DTYPE) of games first..first+count-1."""
        ids, mod = self.seat_ids(config)
        arr = rules_array(config.rules)
        rounds = int(arr[_rules.R_ROUNDS])
        n = config.players
        games = np.zeros(count * rounds, _driver.GAMES_DTYPE)
        seats = np.zeros(count * rounds * n, _driver.SEATS_DTYPE)
        if count > 0:
            err = mod.simulate(np.uint64(config.seed), first, count, n, ids, arr, games, seats)
            if err:
                raise self._user_failure(config, ids, arr, first, count)
        return games, seats

    def _user_failure(self, config, ids, arr, first, count) -> CardsimError:
        """A user strategy raised or answered out of range: find the first such game (one
        thread, raise mode) and say what happened there."""
        _ids, mod = self.seat_ids(config, "trace_match")
        user = (ids >= USER_BASE) & (ids < _pimc.PIMC_BASE)  # pimc ids are not user slots
        n = config.players

        def play(game, sids):
            return _driver.run_trace(config.seed, game, n, sids, arr, 0, sim=mod).errors

        raising = np.where(user, ids + MAX_USER, ids)
        game = first
        for game in range(first, first + count):
            try:
                if play(game, raising):
                    break
            except Exception:
                break

        labels = user_strategies.labels(config.seats)
        mine = dict(zip(labels, ids, strict=True))  # a user strategy's label -> its id
        users = list(dict.fromkeys(x for x, u in zip(labels, user, strict=True) if u))

        def rerun(slot):
            only = raising if slot is None else np.where(ids == mine[users[slot]], raising, ids)
            return bool(play(game, only))

        return user_strategies.failure(users, rerun, f"game {game}, seed {config.seed}")

    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play games ``first .. first+count-1``: (games, seats) tables, docs/atlas-columns.md."""
        if python_strategies.uses_python(config.seats):  # py: seats play on the reference
            games, seats = adapter.play_atlas(config, first, count)
        else:
            games, seats = self.play_arrays(config, first, count)
        return self.frames(games, seats, config.seats)

    @staticmethod
    def frames(
        games: np.ndarray, seats: np.ndarray, seat_names
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The published tables of the kernel's records."""
        ctx = context_for(len(seat_names), seat_names)
        return (
            build_frame(games, tables.GAMES, ctx),
            build_frame(seats, tables.SEATS, ctx),
        )

    # -- one match, move by move --------------------------------------------------------------
    def new_match(self, players: int, rules: dict, seed: int, game_index: int = 0):
        """One match to step move by move (``sim/games/atlas/match.py``: the kernel's match
        engine), dealt as game ``game_index`` of a run with root seed ``seed``."""
        from cardsim.sim.games.atlas.match import new_match

        return new_match(players, rules, seed, game_index)

    # -- replay ------------------------------------------------------------------------------
    def trace(self, config: RunConfig, game_index: int, level: int = 1):
        """The kernel trace of one game (``cardsim.kernels.atlas.driver.Trace``)."""
        ids, mod = self.seat_ids(config, "trace_match")
        return _driver.run_trace(
            config.seed, game_index, config.players, ids, rules_array(config.rules), level, sim=mod
        )

    def replay(self, config: RunConfig, game_index: int) -> str:
        """A readable log of one game: the kernel's choices replayed by the reference rules."""
        from cardsim.sim.games.atlas.reference import rules as reference

        if python_strategies.uses_python(config.seats):
            return adapter.replay_atlas(config, game_index)
        tr = self.trace(config, game_index)
        result = reference.replay_trace(
            config.seed, game_index, config.players, tr.chosen(), resolve_rules(config.rules)
        )
        return "\n".join(result.log)


#: ``sim/warmup.py``: the entry points compiled ahead of play, and how long they take (measured
#: on the 2-core reference machine with one core each; the lean driver of issue 21 in "run";
#: "search" is pimc and ismcts, compiled alone for the search table (``load_search``), pimc
#: last; docs/performance.md; replays estimated)
WARMUP = Warmup(
    "ATLAS",
    entry_points={"run": ("cardsim.kernels.atlas.driver", "simulate_part"),
                  "replay": ("cardsim.kernels.atlas.driver", "trace_match"),
                  "search": ("cardsim.kernels.atlas.pimc", "choose_pimc")},
    compile_seconds={"run": 35, "replay": 40, "search": 40},
)  # fmt: skip

ENGINE = AtlasEngine()

from cardsim.sim.games.atlas.check import CHECK as _CHECK  # noqa: E402  (imports this package)

ENGINE.strategy_check = _CHECK
ENGINE.warmup = WARMUP
