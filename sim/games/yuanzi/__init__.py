"""原子 (yuanzi) engine: rule options, strategies and the chunk function over the Numba kernel.

Tables are documented column by column in docs/yuanzi-columns.md.

User strategies: a seat may name ``path/to/file.py:function`` instead of a built-in. The function
must be Numba-compilable (``@numba.njit`` or plain, it is jitted here) with the signature of the
built-in strategies (see ``kernels/yuanzi/strategies.py``)::

    def choose(own, played, pub, legal, n_legal, rng) -> int

``own`` uint8[54] own hand counts, ``played`` uint8[4, 54] cards played this half per seat,
``pub`` int64 public state row (offsets ``cardsim.kernels.yuanzi.state.ST_*``), ``legal`` int32 codes
(``cardsim.kernels.yuanzi.encoding``), ``rng`` uint64[4] (``cardsim.kernels.rng.bounded(rng, n)``); it returns
an index in ``0 .. n_legal - 1``. It is called only when there is a choice (n_legal >= 2), on
private copies of its inputs. Loading, compiling and caching: ``sim/user_strategies.py``.
See examples/yuanzi_strategy.py.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi.options import OPTIONS
from cardsim.kernels.yuanzi.strategies import N_BUILTIN
from cardsim.sim import python_strategies, user_strategies
from cardsim.sim.game import (
    GameFacts,
    Measure,
    RunConfig,
    Warmup,
    first_side_wins,
)
from cardsim.sim.games.yuanzi import adapter, match, tables
from cardsim.sim.games.yuanzi import seats as seats_mod
from cardsim.sim.games.yuanzi.check import CHECK
from cardsim.sim.games.yuanzi.seats import (
    ISMCTS,
    ISMCTS_DEFAULT,
    LEVELS,
    PIMC,
    PIMC_DEFAULT,
    PIMC_INFO,
    STRATEGIES,
    USER_DRIVER_COMPILE,
    pimc_id,
)
from cardsim.sim.schema import build_frame, context_for
from cardsim.sim.strategy_params import parse_builtin

#: re-exported from ``seats`` (tests, benchmarks and tools read them here)
__all__ = [
    "ENGINE",
    "ISMCTS",
    "ISMCTS_DEFAULT",
    "LEVELS",
    "PIMC",
    "PIMC_DEFAULT",
    "PIMC_INFO",
    "USER_DRIVER_COMPILE",
    "WARMUP",
    "YuanziEngine",
    "pimc_id",
]


def _first_leader_team() -> pl.Expr:
    return (
        (pl.col("h1_first_leader") % 2)
        .replace_strict(dict(enumerate(tables.TEAMS)), return_dtype=pl.String)
        .cast(pl.Enum(list(tables.TEAMS)))
    )


def _tricks(facts: GameFacts) -> pl.Expr:
    """Tricks per match (a match that ends after the first half has no second-half tricks)."""
    return pl.col("h1_tricks").cast(pl.Float64) + pl.col("h2_tricks").cast(pl.Float64).fill_null(
        0.0
    )


FACTS = GameFacts(
    title="原子 (yuanzi)",
    row_unit="match",
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
        Measure("first_side_wins", "first leader's team wins the match", "match", "binary",
                first_side_wins, "first-player advantage", ladder="first_excess"),
        Measure("shuangjia", "match ends in 双夹", "match", "binary",
                lambda f: pl.col("shuangjia"), "双夹 rate"),
        # depends only on the deal: the ladder reads the 刀 cards and jokers dealt instead
        Measure("dao_rank", "刀 rank of the first half", "deal", ladder="hook:dealt"),
        Measure("bombs", "bombs per half", "half", ladder="hook:bombs"),
        Measure("tricks", "tricks per match", "match", "continuous", _tricks, "length"),
    ),
)  # fmt: skip


class YuanziEngine:
    """The 原子 :class:`cardsim.sim.game.GameEngine` (kernel: kernels/yuanzi)."""

    name = "yuanzi"
    facts = FACTS
    player_counts = (4,)
    default_players = 4
    rule_options = OPTIONS
    strategies = STRATEGIES

    # -- configuration ------------------------------------------------------------------
    def parse_strategy(self, name: str) -> str:
        """A built-in strategy with parameters (``pimc:samples=16``, ``greedy:eps=0.1``),
        checked; CardsimError."""
        return parse_builtin(name, PIMC, ISMCTS, LEVELS, seats_mod.LEARNED)

    def rules_array(self, rules: dict) -> np.ndarray:
        """The kernel's rule array for a dict of option values (strings are parsed)."""
        return OPTIONS.array(rules)

    def strategy_ids(self, seats) -> tuple[np.ndarray, tuple[str, ...]]:
        """Kernel ids per seat and the user strategy specs (``seats.strategy_ids``)."""
        return seats_mod.strategy_ids(seats)

    def _driver(self, users: tuple[str, ...], entry: str):
        """The driver module to run: the built-in one (None), or its user variant."""
        return seats_mod.driver_for(users, entry)

    def _run(self, config: RunConfig, first: int, count: int):
        sids, users = self.strategy_ids(config.seats)
        rules = self.rules_array(config.rules)
        driver = self._driver(users, "simulate_part")
        g, s = drv.run_games(config.seed, first, count, sids, rules, driver)
        bad = g[:, drv.G_BAD] if count else g[:0, 0]
        if bad.any():  # a user strategy raised or answered out of range: replay one such game
            game = first + int(np.argmax(bad > 0))

            def rerun(slot):
                raising = sids + drv.MAX_USER * ((sids >= N_BUILTIN) & (sids < pimc.PIMC_BASE))
                if slot is not None:
                    mine = sids[list(config.seats).index(users[slot])]
                    raising = np.where(sids == mine, raising, sids)
                again = self._driver(users, "simulate_trace")
                tg = drv.run_trace(config.seed, game, 1, raising, rules, False, again)[0]
                return bool(tg[0, drv.G_BAD])

            names = user_strategies.labels(users)
            raise user_strategies.failure(names, rerun, f"game {game}, seed {config.seed}")
        return g, s

    # -- GameEngine ---------------------------------------------------------------------
    def play_chunk(self, config: RunConfig, first: int, count: int):
        """Play matches ``first .. first+count-1``: (games, seats) tables, docs/yuanzi-columns.md."""
        if python_strategies.uses_python(config.seats):  # py: seats play on the reference
            g, s = adapter.play_yuanzi(config, first, count)
        else:
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
        driver = self._driver(users, "simulate_trace")
        return drv.run_trace(config.seed, first, count, sids, rules, keep_legal, driver)

    def new_match(
        self, players: int, rules: dict, seed: int, game_index: int = 0
    ) -> match.YuanziMatch:
        """One match to step move by move (:class:`cardsim.sim.engine.Match`), dealt as game
        ``game_index`` of a run with root seed ``seed`` (sim/games/yuanzi/match.py)."""
        return match.new_match(players, rules, seed, game_index)

    def replay(self, config: RunConfig, game_index: int) -> str:
        """Readable log of one match: the kernel's choices replayed through the reference."""
        from cardsim.sim.games.yuanzi.reference import rules as ref

        if python_strategies.uses_python(config.seats):
            return adapter.replay_yuanzi(config, game_index)

        _g, _s, tr, _h, _l = self.trace(config, game_index, 1)
        chosen = [int(c) for c in tr[:, drv.T_CHOSEN]]
        rules = dict(config.rules)
        deal = ref.deal_from_seed(config.seed, game_index, rules)
        match = ref.replay_trace(deal, chosen, rules)
        log = match.log.splitlines() if isinstance(match.log, str) else list(match.log)
        # the deal (YZ-07): each half's four hands, under the half's setup line
        setups = [ref.setup_half(deal.deck0, deal.p0, 0)]
        if len(match.halves) > 1:
            setups.append(ref.setup_half(deal.deck1, deal.p1, 1, match.halves[0].out[0]))
        lines = []
        for line in log:
            lines.append(line)
            for s in setups:
                if line.startswith(f"half {s.half}:"):
                    lines += [
                        f"  {ref.seat_label(seat)} holds {sum(h)}: {ref.hand_text(h)}"
                        for seat, h in enumerate(s.hands)
                    ]
        return "\n".join(lines)


#: ``sim/warmup.py``: the entry points compiled ahead of play, and how long they take (measured
#: on the 2-core reference machine with one core each; the lean driver of issue 21 in "run";
#: "search" is pimc and ismcts, compiled alone for the search table (``load_search``), pimc
#: last; docs/performance.md; replays estimated)
WARMUP = Warmup(
    "原子",
    entry_points={"run": ("cardsim.kernels.yuanzi.driver", "simulate_part"),
                  "replay": ("cardsim.kernels.yuanzi.driver", "simulate_trace"),
                  "search": ("cardsim.kernels.yuanzi.pimc", "choose_pimc")},
    compile_seconds={"run": 60, "replay": 70, "search": 35},
    split=(("cardsim.kernels.yuanzi.driver", "compile_side"),
           ("cardsim.kernels.yuanzi.driver", "compile_own")),
)  # fmt: skip

ENGINE = YuanziEngine()

ENGINE.strategy_check = CHECK
ENGINE.warmup = WARMUP
