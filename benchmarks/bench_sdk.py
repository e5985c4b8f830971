"""Strategy SDK benchmark (not a test): the worked examples compiled vs plain Python (py:).

    .venv/bin/python benchmarks/bench_sdk.py [--matches N] [--py-matches M] [--repeats R]

Times, on one thread, the median of ``--repeats`` calls (the first call — compilation or cache
load — is not timed):

- the compiled example (``examples/yuanzi_strategy.py``) in every seat, through the kernel's
  user-strategy driver: matches/s and decisions/s;
- its plain-Python twin (``py:examples/yuanzi_strategy_py.py``) in every seat, on the reference
  engine with the kernel mirror (``sim/games/<game>/adapter.py``): matches/s and decisions/s;
- the ratio, and the wall time of a whole ``cardsim strategy check`` of each (300 / 100 games);
- the same for ATLAS (``examples/atlas_strategy.py`` and its twin, 4 players): rounds/s, turns/s.
"""

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
from cardsim.kernels.yuanzi import driver as drv  # noqa: E402
from cardsim.sim.game import RunConfig  # noqa: E402
from cardsim.sim.games import get_engine  # noqa: E402
from cardsim.sim.games.atlas import adapter as atlas_adapter  # noqa: E402
from cardsim.sim.games.yuanzi import adapter as yuanzi_adapter  # noqa: E402

from cardsim.workflows.strategy_check import check  # noqa: E402

NUMBA = f"{ROOT / 'examples' / 'yuanzi_strategy.py'}:choose"
PY = f"py:{ROOT / 'examples' / 'yuanzi_strategy_py.py'}:choose"
AT_NUMBA = f"{ROOT / 'examples' / 'atlas_strategy.py'}:choose"
AT_PY = f"py:{ROOT / 'examples' / 'atlas_strategy_py.py'}:choose"


def decisions(g):
    return sum(int(g[:, drv.G_HALF * h + drv.H_DECISIONS].clip(0).sum()) for h in (0, 1))


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20000)
    ap.add_argument("--py-matches", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    numba.set_num_threads(1)
    engine = get_engine("yuanzi")
    rules = engine.rule_options.resolve({})

    def cfg(spec):
        return RunConfig(game="yuanzi", players=4, seats=(spec,) * 4, rules=rules, seed=1)

    sids, users = engine.strategy_ids(cfg(NUMBA).seats)
    driver = engine._driver(users, "simulate_part")
    arr = engine.rules_array(rules)
    drv.run_games(1, 0, 10, sids, arr, driver)  # load
    t_k, (g_k, _) = median_time(
        lambda: drv.run_games(1, 0, args.matches, sids, arr, driver), args.repeats
    )
    yuanzi_adapter.play_yuanzi(cfg(PY), 0, 2)  # load the mirror's kernels
    t_p, (g_p, _) = median_time(
        lambda: yuanzi_adapter.play_yuanzi(cfg(PY), 0, args.py_matches), args.repeats
    )
    k_rate, p_rate = args.matches / t_k, args.py_matches / t_p
    print(f"compiled example, every seat, 1 thread: {args.matches:,} matches in {t_k:.3f} s = "
          f"{k_rate:,.0f} matches/s, {decisions(g_k) / t_k:,.0f} decisions/s")  # fmt: skip
    print(f"py: twin on the reference engine, 1 thread: {args.py_matches:,} matches in "
          f"{t_p:.3f} s = {p_rate:,.1f} matches/s, {decisions(g_p) / t_p:,.0f} decisions/s")  # fmt: skip
    print(f"ratio compiled / py: {k_rate / p_rate:,.0f}x")
    for spec, games in ((NUMBA, 300), (PY, 100)):
        sink = io.StringIO()
        t = time.perf_counter()
        with contextlib.redirect_stdout(sink):
            check("yuanzi", spec, games=games, seed=0, threads=1, echo=print)
        label = "py:" if spec.startswith("py:") else "compiled"
        print(f"cardsim strategy check ({label}, {games} games, driver cached): "
              f"{time.perf_counter() - t:.1f} s wall")  # fmt: skip
    bench_atlas(args)


def bench_atlas(args) -> None:
    import numpy as np
    from cardsim.kernels.atlas import driver as adrv

    engine = get_engine("atlas")
    rules = engine.rule_options.resolve({})

    def cfg(spec):
        return RunConfig(game="atlas", players=4, seats=(spec,) * 4, rules=rules, seed=1)

    ids, mod = engine.seat_ids(cfg(AT_NUMBA))
    arr = engine.rule_options.array(rules)

    def kernel(count):
        g = np.zeros(count, adrv.GAMES_DTYPE)
        s = np.zeros(count * 4, adrv.SEATS_DTYPE)
        mod.simulate(np.uint64(1), 0, count, 4, ids, arr, g, s)
        return g

    kernel(10)
    t_k, g_k = median_time(lambda: kernel(args.matches), args.repeats)
    atlas_adapter.play_atlas(cfg(AT_PY), 0, 2)
    t_p, (g_p, _) = median_time(
        lambda: atlas_adapter.play_atlas(cfg(AT_PY), 0, args.py_matches), args.repeats
    )
    k_rate, p_rate = args.matches / t_k, args.py_matches / t_p
    print(f"ATLAS compiled example, every seat, 1 thread: {args.matches:,} rounds in {t_k:.3f} s "
          f"= {k_rate:,.0f} rounds/s, {int(g_k['turns'].sum()) / t_k:,.0f} turns/s")  # fmt: skip
    print(f"ATLAS py: twin, 1 thread: {args.py_matches:,} rounds in {t_p:.3f} s = "
          f"{p_rate:,.1f} rounds/s, {int(g_p['turns'].sum()) / t_p:,.0f} turns/s")  # fmt: skip
    print(f"ATLAS ratio compiled / py: {k_rate / p_rate:,.0f}x")


if __name__ == "__main__":
    main()
