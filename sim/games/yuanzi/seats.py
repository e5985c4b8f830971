"""原子 seats: the strategies a seat may name and the kernel ids they run as.

Shared by the engine (the package ``__init__``), the ``py:`` adapter and the strategy check,
which import this module rather than the package: the package imports them, so their reading
its ``ENGINE`` back made an import circle (issue 46 item 3).
"""

from __future__ import annotations

import numpy as np
from cardsim.kernels.errors import did_you_mean
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import ismcts, pimc
from cardsim.kernels.yuanzi.strategies import BUILTIN, LEVEL_BASE, N_BUILTIN
from cardsim.sim import user_strategies
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import StrategyInfo
from cardsim.sim.learned import LearnedStrategies
from cardsim.sim.strategy_params import IsmctsStrategy, LevelStrategies, PimcStrategy

#: the one compile of the driver's user variant (every user strategy then compiles only itself)
USER_DRIVER_COMPILE = "about 20 s"
#: (samples, cap, rollout, z) of the plain name ``pimc``: chosen so that a 1,000-deal duplicate
#: comparison with greedy takes under 10 minutes on 2 cores (benchmarks/bench_pimc.py).
PIMC_DEFAULT = (24, 4, 0, 2.0)
#: ``pimc`` (kernels/yuanzi/pimc.py; docs/strategies.md)
PIMC = PimcStrategy(
    pimc,
    PIMC_DEFAULT,
    "candidate moves searched (greedy's pick first)",
    "search: perfect-information Monte Carlo — samples the other hands from the unseen cards "
    "(YZ-28), plays each candidate to the end of the half with greedy rollouts, leaves greedy's "
    "pick only for a candidate whose mean gain (result, points as tie-break) passes z standard "
    "errors; pimc:samples=N,cap=K,rollout=greedy|random,z=Z",
)
PIMC_INFO = PIMC.info
pimc_id = PIMC.id
#: (iters, cap, rollout, c, z, drop index) of the plain name ``ismcts``: at most 64
#: determinizations x 4 candidates, paired, racing with drop=0 (a challenger whose mean gain is
#: not above 0 at iteration 8, 16, ... is played no more) plus the tree: 1.13 x pimc's CPU per
#: decision, and beats pimc head to head (docs/strategies.md)
ISMCTS_DEFAULT = (64, 4, 0, 0.7, 2.0, 1)
#: ``ismcts`` (kernels/yuanzi/ismcts.py; docs/strategies.md)
ISMCTS = IsmctsStrategy(
    ismcts,
    ISMCTS_DEFAULT,
    "moves considered per own decision (pimc's candidates: greedy's pick, PASS, cheapest)",
    "search: single-observer information-set MCTS — every candidate on every determinization "
    "(YZ-28, paired; racing drops a candidate not ahead of greedy's pick), a tree with UCB "
    "over its own later decisions, greedy rollouts, pimc's objective; "
    "ismcts:iters=N,c=C,rollout=greedy|random,cap=K,z=Z,drop=off|0..3",
)
#: ``greedy:eps=E`` and ``soft:temp=T`` (kernels/levels.py; docs/strategies.md, "Levels")
LEVELS = LevelStrategies(LEVEL_BASE, "a rank of power in greedy's cost of a play")
#: ``learned``, ``learned:FILE.npz``, ``,temp=T`` (sim/learned.py; docs/strategies.md, "Learned")
LEARNED = LearnedStrategies("yuanzi", LEVEL_BASE)


#: every built-in strategy a seat may name (``YuanziEngine.strategies``)
STRATEGIES = (
    *(StrategyInfo(n, i, d) for n, i, d in BUILTIN),
    *LEVELS.infos,
    LEARNED.info,
    PIMC_INFO,
    ISMCTS.info,
)


def strategy_ids(seats) -> tuple[np.ndarray, tuple[str, ...]]:
    """Kernel ids per seat and the user strategy specs (a user seat's id is ``N_BUILTIN +``
    its entry in the user table, ``cardsim.sim.user_strategies.entry``: compiled here)."""
    if len(seats) != 4:
        raise CardsimError(f"yuanzi needs 4 seats, got {len(seats)}")
    names = {s.name: s.id for s in STRATEGIES}
    users: list[str] = []
    ids = []
    for seat in seats:
        if LEARNED.handles(seat):  # before the names: its id depends on the weights' row
            ids.append(LEARNED.id(seat))
        elif seat in names:
            ids.append(names[seat])
        elif seat.startswith("pimc:"):
            ids.append(pimc_id(seat))
        elif seat.startswith("ismcts:"):
            ids.append(ISMCTS.id(seat))
        elif LEVELS.handles(seat):
            ids.append(LEVELS.id(seat))
        elif user_strategies.is_user_strategy(seat):
            if seat not in users:
                users.append(seat)
            ids.append(N_BUILTIN + user_strategies.entry(seat, drv))
        else:
            raise CardsimError(
                f"unknown yuanzi strategy {seat!r}{did_you_mean(seat, names)} "
                f"(allowed: {', '.join(names)}, or path/to/file.py:function)"
            )
    return np.array(ids, np.int64), tuple(users)


def driver_for(users: tuple[str, ...], entry: str):
    """The driver module to run: the built-in one (None), or its user variant."""
    if not users:
        return None
    return user_strategies.driver_for(drv, users, entry, "原子", USER_DRIVER_COMPILE)
