"""原子 (yuanzi) engine: rule options, strategies and the chunk function over the Numba kernel.

Tables are documented column by column in docs/yuanzi-columns.md.

User strategies: a seat may name ``path/to/file.py:function`` instead of a built-in. The function
must be Numba-compilable (``@numba.njit`` or plain, it is jitted here) with the signature of the
built-in strategies (see ``kernels/yuanzi/strategies.py``)::

    def choose(own, played, pub, legal, n_legal, rng) -> int

``own`` uint8[54] own hand counts, ``played`` uint8[4, 54] cards played this half per seat,
``pub`` int64 public state row (offsets ``kernels.yuanzi.state.ST_*``), ``legal`` int32 codes
(``kernels.yuanzi.encoding``), ``rng`` uint64[4] (``kernels.rng.bounded(rng, n)``); it returns
an index in ``0 .. n_legal - 1``. It is called only when there is a choice (n_legal >= 2), on
private copies of its inputs. Loading, compiling and caching: ``sim/user_strategies.py``.
See examples/yuanzi_strategy.py.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from kernels.yuanzi import driver as drv
from kernels.yuanzi.state import RULE_LAYOUT, rules_array
from kernels.yuanzi.strategies import BUILTIN, N_BUILTIN
from sim import user_strategies
from sim.errors import CardsimError
from sim.game import RuleOption, RunConfig, StrategyInfo

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


class YuanziEngine:
    """The 原子 :class:`sim.game.GameEngine` (kernel: kernels/yuanzi)."""

    name = "yuanzi"
    player_counts = (4,)
    default_players = 4
    rule_options = tuple(_option(*row) for row in RULE_LAYOUT)
    strategies = tuple(StrategyInfo(n, i, d) for n, i, d in BUILTIN)

    # -- configuration ------------------------------------------------------------------
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
            elif user_strategies.is_user_strategy(seat):
                if seat not in users:
                    users.append(seat)
                ids.append(N_BUILTIN + users.index(seat))
            else:
                raise CardsimError(
                    f"unknown yuanzi strategy {seat!r} "
                    f"(allowed: {', '.join(names)}, or path/to/file.py:function)"
                )
        return np.array(ids, np.int64), tuple(users)

    def _driver(self, users: tuple[str, ...], entry: str):
        """The driver module to run: the built-in one, or the user-strategy variant."""
        if not users:
            return None
        return user_strategies.driver_for(
            "yuanzi", drv, users, drv.USER_ARGTYPES, entry, "原子", "about 1-2 minutes"
        )

    def _run(self, config: RunConfig, first: int, count: int):
        sids, users = self.strategy_ids(config.seats)
        rules = self.rules_array(config.rules)
        driver = self._driver(users, "simulate")
        g, s = drv.run_games(config.seed, first, count, sids, rules, driver)
        bad = g[:, drv.G_BAD] if count else g[:0, 0]
        if bad.any():  # a user strategy raised or answered out of range: replay one such game
            game = first + int(np.argmax(bad > 0))

            def rerun(slot):
                raising = sids + drv.MAX_USER * (sids >= N_BUILTIN)
                if slot is not None:
                    raising = np.where(sids == N_BUILTIN + slot, raising, sids)
                again = self._driver(users, "simulate_trace")
                tg = drv.run_trace(config.seed, game, 1, raising, rules, False, again)[0]
                return bool(tg[0, drv.G_BAD])

            names = user_strategies.labels(users)
            raise user_strategies.failure(names, rerun, f"game {game}, seed {config.seed}")
        return g, s

    # -- GameEngine ---------------------------------------------------------------------
    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play matches ``first .. first+count-1``; returns (games, seats) polars tables."""
        g, s = self._run(config, first, count)
        games = pl.from_numpy(games_table(g, first))
        seats = pl.from_numpy(seats_table(s, first))
        names = user_strategies.labels(config.seats)  # a user strategy as stem:function
        strat = [pl.lit(names[i], pl.String).alias(f"strategy_{i}") for i in range(4)]
        games = games.with_columns(strat).select(
            "game", *[f"strategy_{i}" for i in range(4)], *games.columns[1:]
        )
        seat_names = pl.Series("strategy", names * count, pl.String)
        seats = seats.with_columns(seat_names).select(
            "game", "seat", "team", "strategy", *seats.columns[3:]
        )
        return games, seats

    def trace(self, config: RunConfig, first: int, count: int, keep_legal: bool = False):
        """Trace mode: (games matrix, seats matrix, trace rows, hashes, legal codes)."""
        sids, users = self.strategy_ids(config.seats)
        rules = self.rules_array(config.rules)
        driver = self._driver(users, "simulate_trace")
        return drv.run_trace(config.seed, first, count, sids, rules, keep_legal, driver)

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
