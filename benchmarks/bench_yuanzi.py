"""原子 kernel benchmark (not a test): matches/s and decisions/s, deal-only floor, ratios.

    .venv/bin/python benchmarks/bench_yuanzi.py [--matches N] [--repeats R] [--thread-pairs P]

A decision is one play or pass (forced passes included). Every figure is the median of the
repeats; the first call of each kernel (compilation / cache load) is not timed.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from cardsim.kernels.jit import JIT  # noqa: E402
from cardsim.kernels.rng import STREAM_DEAL, seed_stream  # noqa: E402
from cardsim.kernels.yuanzi import driver as drv  # noqa: E402
from cardsim.kernels.yuanzi.rules import begin_half, draw_half_deck  # noqa: E402
from cardsim.kernels.yuanzi.state import N_INFO, N_ST, rules_array  # noqa: E402
from cardsim.kernels.yuanzi.strategies import GREEDY, RANDOM  # noqa: E402


@numba.njit(**JIT, parallel=True)  # the floor only: the drivers use threads (jit.run_split)
def deal_only(root, first, count, out):
    """The floor: per match seed stream 0, shuffle + indicator for both halves, deal half 0."""
    for i in numba.prange(count):
        state = np.empty(4, np.uint64)
        deck0 = np.empty(162, np.uint8)
        deck1 = np.empty(162, np.uint8)
        hands = np.empty((4, 54), np.uint8)
        played = np.empty((4, 54), np.uint8)
        st = np.empty(N_ST, np.int64)
        info = np.empty((4, N_INFO), np.int64)
        seed_stream(state, root, first + i, STREAM_DEAL)
        p0 = draw_half_deck(state, deck0, 0)
        p1 = draw_half_deck(state, deck1, 0)
        begin_half(0, deck0, p0, 0, hands, played, st, info)
        out[i] = hands[0, 0] + p1


def timed(fn, repeats):
    """Median wall time and median CPU time (all threads) of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def bench_matches(sid, matches, repeats, threads):
    numba.set_num_threads(threads)
    rules = rules_array()
    sids = np.full(4, sid, np.int64)
    g, _ = drv.run_games(1, 0, 64, sids, rules)  # warm-up (cache load)
    decisions = []

    def run():
        g, _ = drv.run_games(1, 0, matches, sids, rules)
        decisions.append(
            int(
                g[:, drv.H_DECISIONS].sum()
                + np.maximum(g[:, drv.G_HALF + drv.H_DECISIONS], 0).sum()
            )
        )

    t, c = timed(run, repeats)
    return matches / t, decisions[-1] / t, matches / c


def thread_pairs(sid, matches, pairs, threads):
    """Wall-time ratios 1 thread / ``threads`` threads of ``pairs`` alternating pairs of runs:
    pairs a second apart see the same machine, separate tables minutes apart do not."""
    rules = rules_array()
    sids = np.full(4, sid, np.int64)
    ratios = []
    for i in range(pairs):
        wall = {}
        for th in (1, threads) if i % 2 == 0 else (threads, 1):
            numba.set_num_threads(th)
            t = time.perf_counter()
            drv.run_games(1, 0, matches, sids, rules)
            wall[th] = time.perf_counter() - t
        ratios.append(wall[1] / wall[threads])
    return ratios


def bench_deal(matches, repeats):
    numba.set_num_threads(1)
    out = np.empty(matches, np.int64)
    deal_only(np.uint64(1), np.int64(0), np.int64(64), out)
    t, c = timed(lambda: deal_only(np.uint64(1), np.int64(0), np.int64(matches), out), repeats)
    return matches / t, matches / c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--thread-pairs",
        type=int,
        default=15,
        help="alternating 1 / all-thread pairs (0: none; at least 2)",
    )
    a = ap.parse_args()
    if a.thread_pairs == 1:
        ap.error("--thread-pairs: 0 (none) or at least 2 (the quartiles need two pairs)")
    all_threads = numba.config.NUMBA_NUM_THREADS
    print(
        f"yuanzi kernel, numba {numba.__version__}, {all_threads} threads available, "
        f"{os.cpu_count()} CPUs; {a.matches} matches x {a.repeats} repeats (median)"
    )
    print("(wall = elapsed time; cpu = per CPU-second of this process, i.e. per busy core —")
    print(" the fairer per-core figure on a shared machine)")
    deal, deal_cpu = bench_deal(a.matches * 10, a.repeats)
    print(f"deal-only floor      1 thread : {deal:12,.0f} matches/s wall  {deal_cpu:10,.0f} /cpu-s")
    res, cpu = {}, {}
    for name, sid in (("greedy", GREEDY), ("random", RANDOM)):
        for threads in sorted({1, all_threads}):
            m, d, mc = bench_matches(sid, a.matches, a.repeats, threads)
            res[name, threads] = m
            cpu[name, threads] = mc
            print(
                f"{name:8s} {threads:2d} thread(s)     : {m:12,.0f} matches/s wall  {mc:10,.0f} /cpu-s"
                f" {d:12,.0f} decisions/s ({d / m:.0f} decisions/match)"
            )
    g1 = res["greedy", 1]
    print(f"ratio greedy(1 thread, cpu) / deal floor (cpu): 1/{deal_cpu / cpu['greedy', 1]:.1f}")
    print(f"ratio greedy(1 thread) / deal floor : 1/{deal / g1:.1f}  (target: >= 1/150)")
    g1c = cpu["greedy", 1]
    print(
        f"target 20,000 matches/s per core with greedy: {'met' if g1c >= 20000 else 'NOT met'}"
        f" ({g1:,.0f} wall, {g1c:,.0f} per cpu-s)"
    )
    for name in ("greedy", "random"):
        print(
            f"ratio {name} {all_threads} threads / 1 thread : {res[name, all_threads] / res[name, 1]:.2f}"
        )
    if all_threads > 1 and a.thread_pairs >= 2:
        r = thread_pairs(GREEDY, a.matches, a.thread_pairs, all_threads)
        q = statistics.quantiles(r, n=4)
        print(
            f"ratio greedy {all_threads} threads / 1 thread, {len(r)} alternating pairs: median"
            f" {statistics.median(r):.2f} (quartiles {q[0]:.2f} .. {q[2]:.2f})"
        )


if __name__ == "__main__":
    main()
