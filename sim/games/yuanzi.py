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
from kernels.yuanzi.state import RULE_LAYOUT, rules_array
from kernels.yuanzi.strategies import BUILTIN, N_BUILTIN
from sim.errors import CardsimError
from sim.game import RuleOption, RunConfig, StrategyInfo
from sim.strategy_params import Param, parse_params

_HELP = {
    "joker_indicator": "a joker turned up as 刀 indicator makes 3 the 刀 (three) or is redrawn (redraw)",
    "dao_bomb_beats_dao_basic": "a 刀 bomb beats 刀 singles/pairs/triples",
    "dao_bomb": "a 刀 bomb beats every ordinary bomb (over_all) or only those of its size",
    "pass_only_if_unable": "a seat may pass only when it cannot beat the top play",
    "pass_is_final": "a seat that passed stays out of the trick",
    "lead_after_out": "when the trick winner is out, the next seat (next) or the partner leads",
    "one_two_settlement": "1-2 finish: losers give captured and hand points (all) or hand points only",
    "shuangjia": "双夹 is judged on the team with both out (both_out_team) or without the 上游",
}


def _option(name, ruling, default, values) -> RuleOption:
    if isinstance(default, bool):
        return RuleOption(name, default, ruling, _HELP[name])
    return RuleOption(name, default, ruling, _HELP[name], choices=tuple(values))


GAME_FIELDS: list[tuple[str, str]] = [("game", "i8")]
for _h in (0, 1):
    GAME_FIELDS += [
        (f"dao_{_h}", "i1"),
        (f"indicator_{_h}", "i2"),
        (f"dao_fallback_{_h}", "i1"),
        (f"first_receiver_{_h}", "i1"),
        (f"first_leader_{_h}", "i1"),
    ]
    GAME_FIELDS += [(f"finish_{_h}_s{s}", "i1") for s in range(4)]
    GAME_FIELDS += [(f"points_{_h}_s{s}", "i2") for s in range(4)]
    GAME_FIELDS += [(f"team_points_{_h}_t{t}", "i2") for t in range(2)]
    GAME_FIELDS += [
        (f"{k}_{_h}", "i2")
        for k in ("tricks", "plays", "bombs", "dao_bombs", "atoms", "hydrogens", "decisions")
    ]
GAME_FIELDS += [("second_half", "?"), ("shuangjia", "?"), ("winner_team", "i1")]
GAME_FIELDS += [(f"delta_{s}", "i1") for s in range(4)]
#: matrix column of each game field (after ``game``), in GAME_FIELDS order
_GAME_COLS = [drv.G_HALF * h + c for h in (0, 1) for c in range(drv.G_HALF)]
_GAME_COLS += [drv.G_SECOND, drv.G_SHUANGJIA, drv.G_WINNER] + [drv.G_DELTA + s for s in range(4)]

SEAT_FIELDS: list[tuple[str, str]] = [("game", "i8"), ("seat", "i1"), ("team", "i1")]
for _h in (0, 1):
    SEAT_FIELDS += [
        (f"cards_{_h}", "i1"),
        (f"long_hand_{_h}", "?"),
        (f"dao_cards_{_h}", "i1"),
        (f"jokers_{_h}", "i1"),
        (f"finish_{_h}", "i1"),
        (f"points_{_h}", "i2"),
    ]
SEAT_FIELDS += [("delta", "i1"), ("won", "?")]


def games_table(mat: np.ndarray, first: int) -> np.ndarray:
    """Structured games array from the kernel's games matrix."""
    out = np.empty(len(mat), dtype=GAME_FIELDS)
    out["game"] = first + np.arange(len(mat), dtype=np.int64)
    for (name, typ), col in zip(GAME_FIELDS[1:], _GAME_COLS, strict=True):
        out[name] = mat[:, col] if typ != "?" else mat[:, col] == 1
    return out


def seats_table(mat: np.ndarray, first: int) -> np.ndarray:
    """Structured seats array from the kernel's seats matrix (4 rows per match)."""
    n = len(mat)
    out = np.empty(n, dtype=SEAT_FIELDS)
    out["game"] = first + np.arange(n, dtype=np.int64) // 4
    out["seat"] = np.arange(n) % 4
    out["team"] = mat[:, drv.S_TEAM]
    for h in (0, 1):
        b = drv.S_HALF0 + drv.S_HALF * h
        out[f"cards_{h}"] = mat[:, b + drv.SH_CARDS]
        out[f"long_hand_{h}"] = mat[:, b + drv.SH_CARDS] == 41
        out[f"dao_cards_{h}"] = mat[:, b + drv.SH_DAO_CARDS]
        out[f"jokers_{h}"] = mat[:, b + drv.SH_JOKERS]
        out[f"finish_{h}"] = mat[:, b + drv.SH_FINISH]
        out[f"points_{h}"] = mat[:, b + drv.SH_POINTS]
    out["delta"] = mat[:, drv.S_DELTA]
    out["won"] = mat[:, drv.S_WON] == 1
    return out


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


class YuanziEngine:
    """The 原子 :class:`sim.game.GameEngine` (kernel: kernels/yuanzi)."""

    name = "yuanzi"
    player_counts = (4,)
    default_players = 4
    rule_options = tuple(_option(*row) for row in RULE_LAYOUT)
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
        known = {o.name: o for o in self.rule_options}
        unknown = sorted(set(rules) - set(known))
        if unknown:
            raise CardsimError(
                f"unknown rule option {unknown[0]!r} for yuanzi (allowed: {', '.join(known)})"
            )
        values = {}
        for name, value in rules.items():
            opt = known[name]
            if isinstance(value, str) or (opt.kind == "bool") != isinstance(value, bool):
                value = opt.parse(str(value))
            values[name] = value
        return rules_array(values)

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
        """Play matches ``first .. first+count-1``; returns (games, seats) polars tables."""
        g, s = self._run(config, first, count)
        games = pl.from_numpy(games_table(g, first))
        seats = pl.from_numpy(seats_table(s, first))
        strat = [pl.lit(config.seats[i], pl.String).alias(f"strategy_{i}") for i in range(4)]
        games = games.with_columns(strat).select(
            "game", *[f"strategy_{i}" for i in range(4)], *games.columns[1:]
        )
        seat_names = pl.Series("strategy", [config.seats[i] for i in range(4)] * count, pl.String)
        seats = seats.with_columns(seat_names).select(
            "game", "seat", "team", "strategy", *seats.columns[3:]
        )
        return games, seats

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
