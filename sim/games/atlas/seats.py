"""ATLAS's strategies and seats: the built-in, level and search strategy declarations, and the
kernel id of every seat of a configuration (with the driver module to run them).

Its own module (not the package ``__init__``) so that the ``py:`` adapter, the strategy-check
hooks and the Python Match read the strategies without importing the package that imports
them (issue 46: no import circle).
"""

from __future__ import annotations

import numpy as np
from cardsim.kernels.atlas import driver as _driver
from cardsim.kernels.atlas import ismcts as _ismcts
from cardsim.kernels.atlas import pimc as _pimc
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.atlas.state import MAX_PLAYERS
from cardsim.kernels.atlas.strategies import BUILTINS, LEVEL_BASE, USER_BASE
from cardsim.kernels.errors import did_you_mean
from cardsim.sim import user_strategies
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig, StrategyInfo
from cardsim.sim.learned import LearnedStrategies
from cardsim.sim.strategy_params import (
    IsmctsStrategy,
    LevelStrategies,
    PimcStrategy,
    parse_builtin,
)

#: players of a match (AT-03)
PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))


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
#: ``learned``, ``learned:FILE.npz``, ``,temp=T`` (sim/learned.py; docs/strategies.md, "Learned")
LEARNED = LearnedStrategies("atlas", LEVEL_BASE)


#: every strategy a seat may name without a file: built-ins, levels, the searches
STRATEGIES = (
    *(StrategyInfo(name, sid, desc) for name, sid, desc in BUILTINS),
    *LEVELS.infos,
    LEARNED.info,
    PIMC_INFO,
    ISMCTS.info,
)


def parse_strategy(name: str) -> str:
    """A built-in strategy with parameters (``pimc:samples=16``, ``greedy:eps=0.1``), checked;
    CardsimError."""
    return parse_builtin(name, PIMC, ISMCTS, LEVELS, LEARNED)


def seat_ids(config: RunConfig, entry: str = "simulate_part"):
    """Strategy id per seat and the driver module to run (the user-strategy variant if any
    seat is a user strategy; ``entry``: the driver function about to be called)."""
    n = config.players
    if n not in PLAYER_COUNTS:
        raise CardsimError(f"ATLAS players: {n} (allowed: 2..10)")
    if len(config.seats) != n:
        raise CardsimError(f"{len(config.seats)} seat strategies for {n} players")
    resolve_rules(config.rules, n)  # AT-D1: the deck deals every seat (before any kernel)
    builtin = {s.name: s.id for s in STRATEGIES}
    ids, users = [], []
    for name in config.seats:
        if LEARNED.handles(name):  # before the names: its id depends on the weights' row
            ids.append(LEARNED.id(name))
        elif name in builtin:
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
