"""ATLAS's hooks for ``cardsim strategy check`` (``cardsim/workflows/strategy_check.py``)."""

from __future__ import annotations

import time

import numpy as np
from cardsim.sim.game import RunConfig, SelfPlay, StrategyCheck
from cardsim.sim.games.atlas import adapter
from cardsim.sim.python_strategies import BadAnswer, StrategyRaised, is_python_strategy, raised
from cardsim.sim.python_strategies import collect_until_exception as stop


def _user_argtypes() -> tuple:
    from cardsim.kernels.atlas import driver

    return driver.USER_ARGTYPES


def selfplay(config: RunConfig, name: str, max_replayed: int) -> SelfPlay:
    """Every seat plays ``name``: time, turns, the games with an illegal answer (found by the
    kernel one game at a time, the first ``max_replayed`` located on the reference engine)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.options import OPTIONS
    from cardsim.kernels.atlas.rules import R_ROUNDS
    from cardsim.sim.games.atlas.seats import seat_ids

    found: list[BadAnswer] = []
    if is_python_strategy(name):
        t = time.perf_counter()
        try:
            games, _s = adapter.play_atlas(config, 0, config.games, on_bad=stop(found))
        except StrategyRaised as e:
            return raised(e, time.perf_counter() - t, "turns")
        seconds = time.perf_counter() - t
        bad_games = len({b.game for b in found})
        return SelfPlay(
            seconds, int(games["turns"].sum()), "turns", found, bad_games,
            f"illegal answers in {bad_games} game(s)",
        )  # fmt: skip
    ids, mod = seat_ids(config)
    arr = OPTIONS.array(config.rules)
    n, count = config.players, config.games
    rounds = int(arr[R_ROUNDS])
    games = np.zeros(count * rounds, drv.GAMES_DTYPE)
    seats = np.zeros(count * rounds * n, drv.SEATS_DTYPE)
    mod.simulate(np.uint64(config.seed), 0, 1, n, ids, arr, games[:rounds], seats[: rounds * n])
    t = time.perf_counter()
    err = mod.simulate(np.uint64(config.seed), 0, count, n, ids, arr, games, seats)
    seconds = time.perf_counter() - t
    bad_games = 0
    if err:  # which games: one kernel call per game; where: the Python engine (same choices)
        one_g = np.zeros(rounds, drv.GAMES_DTYPE)
        one_s = np.zeros(rounds * n, drv.SEATS_DTYPE)
        for game in range(count):
            if mod.simulate(np.uint64(config.seed), game, 1, n, ids, arr, one_g, one_s):
                bad_games += 1
                if bad_games <= max_replayed:
                    adapter.play_atlas(config, game, 1, on_bad=found.append)
    return SelfPlay(
        seconds, int(games["turns"].sum()), "turns", found, bad_games,
        f"illegal answers in {bad_games} game(s)",
    )  # fmt: skip


CHECK = StrategyCheck(("view", "dtype", "options"), _user_argtypes, selfplay)
