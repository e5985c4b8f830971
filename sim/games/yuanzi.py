"""原子 (yuanzi) engine: rule options, strategies and the chunk function over the Numba kernel.

Tables are documented column by column in docs/yuanzi-columns.md.

User strategies: a seat may name ``path/to/file.py:function`` instead of a built-in. The function
must be Numba-compilable (``@numba.njit`` or plain, it is jitted here) with the signature of the
built-in strategies (see ``kernels/yuanzi/strategies.py``)::

    def choose(own, played, pub, legal, n_legal, rng) -> int

``own`` uint8[54] own hand counts, ``played`` uint8[4, 54] cards played this half per seat,
``pub`` int64 public state row (offsets ``kernels.yuanzi.state.ST_*``), ``legal`` int32 codes
(``kernels.yuanzi.encoding``), ``rng`` uint64[4] (``kernels.rng.bounded(rng, n)``); it returns
an index in ``0 .. n_legal - 1``. It is called only when there is a choice (n_legal >= 2).
See examples/yuanzi_strategy.py.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import polars as pl

from kernels.yuanzi import driver as drv
from kernels.yuanzi import pimc
from kernels.yuanzi.options import OPTIONS
from kernels.yuanzi.strategies import BUILTIN, N_BUILTIN
from sim.errors import CardsimError
from sim.game import GameFacts, Measure, RunConfig, StrategyInfo
from sim.games import yuanzi_tables as tables
from sim.schema import build_frame, context_for
from sim.strategy_params import Param, parse_params

# --- user strategies -------------------------------------------------------------------------
_USER_CACHE: dict = {}


def _load_user(spec: str):
    """Load and jit ``path/to/file.py:function``; raises CardsimError with the reason."""
    path, _, fname = spec.rpartition(":")
    if not os.path.isfile(path):
        raise CardsimError(f"user strategy {spec!r}: file {path!r} not found")
    key = (os.path.abspath(path), os.path.getmtime(path), fname)
    if key in _USER_CACHE:
        return _USER_CACHE[key]
    modname = f"cardsim_user_strategy_{len(_USER_CACHE)}"
    mspec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(mspec)
    try:
        mspec.loader.exec_module(module)
    except Exception as exc:  # the user's file: report any failure as a domain error
        raise CardsimError(f"user strategy {spec!r}: cannot load {path}: {exc}") from exc
    fn = getattr(module, fname, None)
    if fn is None or not callable(fn):
        raise CardsimError(f"user strategy {spec!r}: no function {fname!r} in {path}")
    if not hasattr(fn, "py_func"):
        from numba import njit

        fn = njit(cache=False)(fn)
    _USER_CACHE[key] = fn
    return fn


#: (samples, cap, rollout, z) of the plain name ``pimc``: chosen so that a 1,000-deal duplicate
#: comparison with greedy takes under 10 minutes on 2 cores (benchmarks/bench_pimc.py).
PIMC_DEFAULT = (24, 4, 0, 2.0)
#: parameters of ``pimc`` (kernels/yuanzi/pimc.py; docs/strategies.md)
PIMC_PARAMS = (
    Param("samples", PIMC_DEFAULT[0], "determinizations per decision", 1, pimc.MAX_SAMPLES),
    Param(
        "cap", PIMC_DEFAULT[1], "candidate moves searched (greedy's pick first)", 2, pimc.MAX_CAP
    ),
    Param("rollout", pimc.ROLLOUTS[PIMC_DEFAULT[2]], "rollout policy", choices=pimc.ROLLOUTS),
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
    pimc.encode(*PIMC_DEFAULT),
    "search: perfect-information Monte Carlo — samples the other hands from the unseen cards "
    "(YZ-28), plays each candidate to the end of the half with greedy rollouts, leaves greedy's "
    "pick only for a candidate whose mean gain (result, points as tie-break) passes z standard "
    "errors; pimc:samples=N,cap=K,rollout=greedy|random,z=Z",
)


def pimc_id(name: str) -> int:
    """Kernel id of ``pimc`` / ``pimc:samples=..,cap=..,rollout=..`` (CardsimError if invalid)."""
    v = parse_params(name, "pimc", PIMC_PARAMS)
    rollout = pimc.ROLLOUTS.index(str(v["rollout"]))
    return pimc.encode(int(v["samples"]), int(v["cap"]), rollout, float(v["z"]))


def _first_leader_team() -> pl.Expr:
    return (
        (pl.col("h1_first_leader") % 2)
        .replace_strict(dict(enumerate(tables.TEAMS)), return_dtype=pl.String)
        .cast(pl.Enum(list(tables.TEAMS)))
    )


FACTS = GameFacts(
    title="原子 (yuanzi)",
    row_unit="match",
    seat_row_unit="seat-match",
    side="team",
    side_column="team",
    sides_of=lambda players: 2,
    first_player_label="first leader's team",
    first_side=_first_leader_team,
    winner_side=lambda: pl.col("winner_team"),
    deal_columns_games=(
        "h1_dao", "h1_indicator", "h1_dao_fallback", "h1_first_receiver", "h1_first_leader",
    ),
    deal_columns_seats=("h1_cards", "h1_long_hand", "h1_dao_cards", "h1_jokers"),
    comparison_layout="team_swap",
    headline=(
        Measure("first_side_wins", "first leader's team wins the match", "match"),
        Measure("shuangjia", "match ends in 双夹", "match"),
        Measure("dao_rank", "刀 rank of the first half", "deal"),
        Measure("bombs", "bombs per half", "half"),
        Measure("tricks", "tricks per match", "match"),
    ),
)  # fmt: skip


class YuanziEngine:
    """The 原子 :class:`sim.game.GameEngine` (kernel: kernels/yuanzi)."""

    name = "yuanzi"
    facts = FACTS
    player_counts = (4,)
    default_players = 4
    rule_options = OPTIONS
    strategies = (*(StrategyInfo(n, i, d) for n, i, d in BUILTIN), PIMC_INFO)

    def __init__(self):
        self._dispatch: dict = {}

    # -- configuration ------------------------------------------------------------------
    def parse_strategy(self, name: str) -> str:
        """A built-in strategy with parameters (``pimc:samples=16``), checked; CardsimError."""
        pimc_id(name)
        return name.replace(" ", "")

    def rules_array(self, rules: dict) -> np.ndarray:
        """The kernel's rule array for a dict of option values (strings are parsed)."""
        return OPTIONS.array(rules)

    def strategy_ids(self, seats) -> tuple[np.ndarray, tuple[str, ...]]:
        """Kernel ids per seat and the user strategy specs (ids N_BUILTIN + k)."""
        if len(seats) != 4:
            raise CardsimError(f"yuanzi needs 4 seats, got {len(seats)}")
        names = {s.name: s.id for s in self.strategies}
        users: list[str] = []
        ids = []
        for seat in seats:
            if seat in names:
                ids.append(names[seat])
            elif seat.startswith("pimc:"):
                ids.append(pimc_id(seat))
            elif ".py:" in seat:
                if seat not in users:
                    users.append(seat)
                ids.append(N_BUILTIN + users.index(seat))
            else:
                raise CardsimError(
                    f"unknown yuanzi strategy {seat!r} "
                    f"(allowed: {', '.join(names)}, or path/to/file.py:function)"
                )
        return np.array(ids, np.int64), tuple(users)

    def _dispatch_for(self, users: tuple[str, ...]):
        if not users:
            return None
        fns = tuple(_load_user(u) for u in users)
        if fns not in self._dispatch:
            self._dispatch[fns] = drv.make_user_driver(drv.make_dispatch(fns))
        return self._dispatch[fns]

    def _run(self, config: RunConfig, first: int, count: int):
        sids, users = self.strategy_ids(config.seats)
        rules = self.rules_array(config.rules)
        dispatch = self._dispatch_for(users)
        try:
            g, s = drv.run_games(config.seed, first, count, sids, rules, dispatch)
        except CardsimError:
            raise
        except Exception as exc:
            if users:
                raise CardsimError(f"user strategy {', '.join(users)} failed: {exc}") from exc
            raise
        bad = int(g[:, drv.G_BAD].sum()) if count else 0
        if bad:
            raise CardsimError(
                f"user strategy {', '.join(users)} returned {bad} index(es) outside 0..n_legal-1"
            )
        return g, s

    # -- GameEngine ---------------------------------------------------------------------
    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play matches ``first .. first+count-1``: (games, seats) tables, docs/yuanzi-columns.md."""
        g, s = self._run(config, first, count)
        ctx = context_for(4, config.seats)
        return (
            build_frame(tables.raw_games(g, first), tables.GAMES, ctx),
            build_frame(tables.raw_seats(s, first), tables.SEATS, ctx),
        )

    def trace(self, config: RunConfig, first: int, count: int, keep_legal: bool = False):
        """Trace mode: (games matrix, seats matrix, trace rows, hashes, legal codes)."""
        sids, users = self.strategy_ids(config.seats)
        rules = self.rules_array(config.rules)
        return drv.run_trace(
            config.seed, first, count, sids, rules, keep_legal, self._dispatch_for(users)
        )

    def replay(self, config: RunConfig, game_index: int) -> str:
        """Readable log of one match: the kernel's choices replayed through the reference."""
        from sim.rules import yuanzi as ref

        _g, _s, tr, _h, _l = self.trace(config, game_index, 1)
        chosen = [int(c) for c in tr[:, drv.T_CHOSEN]]
        rules = dict(config.rules)
        deal = ref.deal_from_seed(config.seed, game_index, rules)
        log = ref.replay_trace(deal, chosen, rules).log
        return log if isinstance(log, str) else "\n".join(log)


ENGINE = YuanziEngine()
