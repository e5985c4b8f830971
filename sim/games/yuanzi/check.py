"""原子's hooks for ``cardsim strategy check`` (``cardsim/workflows/strategy_check.py``)."""

from __future__ import annotations

import time

import numpy as np
from cardsim.sim.game import RunConfig, SelfPlay, StrategyCheck
from cardsim.sim.games.yuanzi import adapter, seats
from cardsim.sim.python_strategies import BadAnswer, StrategyRaised, is_python_strategy, raised
from cardsim.sim.python_strategies import collect_until_exception as stop


def _user_argtypes() -> tuple:
    from cardsim.kernels.yuanzi import driver

    return driver.USER_ARGTYPES


def selfplay(config: RunConfig, name: str, max_replayed: int) -> SelfPlay:
    """Every seat plays ``name``: time, decisions, illegal answers (counted by the kernel, the
    first ``max_replayed`` games located on the reference engine)."""
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.options import OPTIONS

    count = config.games
    found: list[BadAnswer] = []
    if is_python_strategy(name):
        t = time.perf_counter()
        try:
            g, _s = adapter.play_yuanzi(config, 0, count, on_bad=stop(found))
        except StrategyRaised as e:
            return raised(e, time.perf_counter() - t, "decisions")
        seconds = time.perf_counter() - t
        counted = len(found)
    else:
        sids, users = seats.strategy_ids(config.seats)
        rules = OPTIONS.array(config.rules)
        driver = seats.driver_for(users, "simulate_part")
        drv.run_games(config.seed, 0, 1, sids, rules, driver)  # load / warm up
        t = time.perf_counter()
        g, _s = drv.run_games(config.seed, 0, count, sids, rules, driver)
        seconds = time.perf_counter() - t
        for game in np.flatnonzero(g[:, drv.G_BAD] > 0)[:max_replayed]:  # called from Python
            adapter.play_yuanzi(config, int(game), 1, on_bad=found.append)
        counted = int(g[:, drv.G_BAD].sum())
    return SelfPlay(
        seconds, _decisions(g), "decisions", found, counted, f"{counted} illegal answer(s)"
    )


def _decisions(g: np.ndarray) -> int:
    from cardsim.kernels.yuanzi import driver as drv

    total = 0
    for h in (0, 1):
        col = g[:, drv.G_HALF * h + drv.H_DECISIONS]
        total += int(col[col > 0].sum())
    return total


CHECK = StrategyCheck(("view", "legal"), _user_argtypes, selfplay)
