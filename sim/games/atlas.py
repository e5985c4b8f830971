"""ATLAS game engine: rule options, strategies, and the pure chunk function over the Numba kernel.

User strategies
---------------
A seat may name ``path/to/file.py:function`` instead of a built-in strategy. The function must be
Numba-compilable (``@numba.njit`` or plain Python that ``njit`` accepts) with the signature of the
built-in strategies (``kernels.atlas.strategies``)::

    def choose(dtype, hand, pub, options, n, rng) -> int:
        # dtype   decision type: 0 claim, 1 self-meld, 2 discard, 3 trade target,
        #         4 trade take (trade_pick=seen), 5 trade give
        # hand    int32[64]: the deciding seat's card counts (ids: kernels.atlas.encoding)
        # pub     int32[PUB_LEN]: the public state (offsets P_* in kernels.atlas.state);
        #         pub[P_SEAT] is the deciding seat
        # options int32[n]: the legal decision codes; rng: uint64[4], the strategy stream
        # returns an index into options (0 <= index < n)

It sees exactly what AT-26 allows. The function is compiled into an uncached copy of the driver
(first use in a process takes a while). See ``examples/atlas_strategy.py``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import polars as pl
from numba import njit
from numba.core.registry import CPUDispatcher

from kernels.atlas import driver as _driver
from kernels.atlas import pimc as _pimc
from kernels.atlas import rules as _rules
from kernels.atlas.options import OPTIONS
from kernels.atlas.strategies import BUILTINS, MAX_USER, USER_BASE
from sim.errors import CardsimError
from sim.game import GameFacts, Measure, RunConfig, StrategyInfo
from sim.games import atlas_tables as tables
from sim.schema import build_frame, context_for
from sim.strategy_params import Param, parse_params

_USER_DRIVERS: dict[tuple, object] = {}


def resolve_rules(rules: dict | None) -> dict:
    """Every rule option with its value (defaults filled in, text parsed); raises on bad input."""
    return OPTIONS.resolve(rules)


def rules_array(rules: dict | None) -> np.ndarray:
    """The kernel's rule array (offsets ``kernels.atlas.rules.R_*``) of a rules dict."""
    return OPTIONS.array(rules)


def _load_user(spec: str):
    path, _, fn_name = spec.rpartition(":")
    if not path or not fn_name or not path.endswith(".py"):
        raise CardsimError(f"bad user strategy {spec!r}: use path/to/file.py:function")
    p = Path(path)
    if not p.is_file():
        raise CardsimError(f"user strategy file not found: {path}")
    mod_spec = importlib.util.spec_from_file_location(f"atlas_user_{abs(hash(str(p)))}", p)
    module = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(module)
    except Exception as exc:  # the user's file: report, do not crash the runner
        raise CardsimError(f"cannot load user strategy {spec!r}: {exc}") from exc
    fn = getattr(module, fn_name, None)
    if fn is None or not callable(fn):
        raise CardsimError(f"user strategy {spec!r}: no function {fn_name!r} in {path}")
    if not isinstance(fn, CPUDispatcher):
        fn = njit(cache=False)(fn)
    return fn


#: (samples, cap, rollout, z) of the plain name ``pimc``: chosen so that a 1,000-deal duplicate
#: comparison with greedy takes under 10 minutes on 2 cores (benchmarks/bench_pimc.py).
PIMC_DEFAULT = (24, 6, 0, 2.0)
#: parameters of ``pimc`` (kernels/atlas/pimc.py; docs/strategies.md)
PIMC_PARAMS = (
    Param("samples", PIMC_DEFAULT[0], "determinizations per decision", 1, _pimc.MAX_SAMPLES),
    Param("cap", PIMC_DEFAULT[1], "candidate discards searched (greedy's first)", 2, _pimc.MAX_CAP),
    Param("rollout", _pimc.ROLLOUTS[PIMC_DEFAULT[2]], "rollout policy", choices=_pimc.ROLLOUTS),
    Param(
        "z",
        PIMC_DEFAULT[3],
        "standard errors a gain over greedy's pick must pass",
        0,
        6,
        decimals=1,
    ),
)
PIMC_INFO = StrategyInfo(
    "pimc",
    _pimc.encode(*PIMC_DEFAULT),
    "search: perfect-information Monte Carlo for discards — samples the other hands, face-down "
    "melds and stock order from the unseen cards (AT-26), plays each candidate to the end of the "
    "round with greedy rollouts, leaves greedy's pick only for a discard whose mean gain (result "
    "and score) passes z standard errors; greedy elsewhere; "
    "pimc:samples=N,cap=K,rollout=greedy|random,z=Z",
)


def pimc_id(name: str) -> int:
    """Kernel id of ``pimc`` / ``pimc:samples=..,cap=..,rollout=..`` (CardsimError if invalid)."""
    v = parse_params(name, "pimc", PIMC_PARAMS)
    rollout = _pimc.ROLLOUTS.index(str(v["rollout"]))
    return _pimc.encode(int(v["samples"]), int(v["cap"]), rollout, float(v["z"]))


FACTS = GameFacts(
    title="ATLAS",
    row_unit="round",
    seat_row_unit="seat-round",
    side="seat",
    side_column="seat",
    sides_of=lambda players: players,
    first_player_label="first player",
    first_side=lambda: pl.col("first_player"),
    winner_side=lambda: pl.col("winner"),
    deal_columns_games=("players",),
    deal_columns_seats=("atlas_dealt", "skip_dealt", "reverse_dealt", "trade_dealt"),
    comparison_layout="rotation",
    headline=(
        Measure("first_side_wins", "first player wins the round", "round"),
        Measure("no_winner", "round ends without a winner", "round"),
        Measure("turns", "turns per round", "round"),
        Measure("winner_points", "winner's points", "round"),
    ),
)


class AtlasEngine:
    """The ATLAS :class:`sim.game.GameEngine` (2–10 players, AT-03)."""

    name = "atlas"
    facts = FACTS
    player_counts = tuple(range(2, 11))
    default_players = 4
    rule_options = OPTIONS
    strategies = (*(StrategyInfo(name, sid, desc) for name, sid, desc in BUILTINS), PIMC_INFO)

    def parse_strategy(self, name: str) -> str:
        """A built-in strategy with parameters (``pimc:samples=16``), checked; CardsimError."""
        pimc_id(name)
        return name.replace(" ", "")

    # -- seats -------------------------------------------------------------------------------
    def seat_ids(self, config: RunConfig):
        """Strategy id per seat and the driver module to run (uncached if user strategies)."""
        n = config.players
        if n not in self.player_counts:
            raise CardsimError(f"ATLAS players: {n} (allowed: 2..10)")
        if len(config.seats) != n:
            raise CardsimError(f"{len(config.seats)} seat strategies for {n} players")
        builtin = {s.name: s.id for s in self.strategies}
        ids, users = [], []
        for name in config.seats:
            if name in builtin:
                ids.append(builtin[name])
            elif name.startswith("pimc:"):
                ids.append(pimc_id(name))
            elif ":" in name and ".py" in name:
                if name not in users:
                    users.append(name)
                ids.append(USER_BASE + users.index(name))
            else:
                raise CardsimError(
                    f"unknown ATLAS strategy {name!r} (allowed: {', '.join(builtin)}, "
                    "or path/to/file.py:function)"
                )
        ids = _pimc.bind_rules(np.array(ids, np.int64), rules_array(config.rules))
        if not users:
            return ids, _driver
        if len(users) > MAX_USER:
            raise CardsimError(f"at most {MAX_USER} different user strategies in one run")
        key = tuple((u, os.path.getmtime(u.rpartition(":")[0])) if os.path.exists(
            u.rpartition(":")[0]) else (u, 0) for u in users)  # fmt: skip
        if key not in _USER_DRIVERS:
            fns = [_load_user(u) for u in users]
            _USER_DRIVERS[key] = _driver.build_user_driver(fns)
        return ids, _USER_DRIVERS[key]

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
                raise CardsimError(
                    f"a user strategy returned an option index outside [0, n) in {err} round(s)"
                )
        return games, seats

    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play games ``first .. first+count-1``: (games, seats) tables, docs/atlas-columns.md."""
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

    # -- replay ------------------------------------------------------------------------------
    def trace(self, config: RunConfig, game_index: int, level: int = 1):
        """The kernel trace of one game (``kernels.atlas.driver.Trace``)."""
        ids, mod = self.seat_ids(config)
        return _driver.run_trace(
            config.seed, game_index, config.players, ids, rules_array(config.rules), level, sim=mod
        )

    def replay(self, config: RunConfig, game_index: int) -> str:
        """A readable log of one game: the kernel's choices replayed by the reference rules."""
        from sim.rules import atlas as reference

        tr = self.trace(config, game_index)
        result = reference.replay_trace(
            config.seed, game_index, config.players, tr.chosen(), resolve_rules(config.rules)
        )
        return "\n".join(result.log)


ENGINE = AtlasEngine()
