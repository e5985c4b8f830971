"""ATLAS kernel throughput: rounds/s and turns/s, and the deal-only floor. Not a test.

Usage: ``.venv/bin/python benchmarks/bench_atlas.py [--games N] [--repeats R] [--rules K=V,...]``

Prints one line per measurement (median of R repeats after a warm-up), for 2, 4 and 10 players
with greedy and random seats on 1 thread and on all threads, the deal-only floor (seed the
streams, shuffle 204, deal, with the kernel's own RNG) on 1 thread, and the ratios.
"""

import argparse
import statistics
import time

import numba
import numpy as np
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import rules as RL
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.jit import kernel
from cardsim.kernels.rng import seed_stream


@kernel
def deal_only(root, first, count, n):
    """The floor: per game, seed the three streams, shuffle the 204 cards and deal 13 each."""
    S = np.zeros(ST.S_LEN, np.int32)
    rngs = np.empty((3, 4), np.uint64)
    acc = 0
    for i in range(count):
        for k in range(3):
            seed_stream(rngs[k], root, first + i, k)
        ST.reset_round(S, n, 0)
        ST.deal(S, rngs[0], n)
        acc += S[ST.PILE + 13 * n]
    return acc


def timed(fn, repeats):
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def bench_play(n, sid, games, threads, repeats, rules=None):
    numba.set_num_threads(threads)
    R = RL.DEFAULT_RULES.copy() if rules is None else rules.copy()
    sids = np.full(n, sid, np.int64)
    g = np.zeros(games, D.GAMES_DTYPE)
    s = np.zeros(games * n, D.SEATS_DTYPE)
    D.simulate(np.uint64(1), 0, min(games, 100), n, sids, R, g, s)  # warm-up / compile
    sec = timed(lambda: D.simulate(np.uint64(1), 0, games, n, sids, R, g, s), repeats)
    return games / sec, g["turns"].sum() / sec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--rules",
        default="",
        help="rule options KEY=VALUE,... (e.g. self_melds=any: the pre-AT-07-revision default, "
        "to pair with an older commit on the same games)",
    )
    args = ap.parse_args()
    pairs = [kv.split("=", 1) for kv in args.rules.split(",") if kv]
    rules = RL.OPTIONS.array(dict(pairs)) if pairs else None
    all_threads = numba.config.NUMBA_NUM_THREADS
    deal_only(np.uint64(1), 0, 10, 4)
    floor = {}
    for n in (2, 4, 10):
        games = args.games * 5
        sec = timed(lambda n=n, games=games: deal_only(np.uint64(1), 0, games, n), args.repeats)
        floor[n] = games / sec
        print(f"deal-only floor   n={n:2d} threads=1   {floor[n]:12,.0f} rounds/s")
    res = {}
    for n in (2, 4, 10):
        for name, sid in (("greedy", 1), ("random", 0)):
            for threads in sorted({1, all_threads}):
                rps, tps = bench_play(n, sid, args.games, threads, args.repeats, rules)
                res[(n, name, threads)] = rps
                print(
                    f"play {name:7s}   n={n:2d} threads={threads:<3d} {rps:12,.0f} rounds/s "
                    f"{tps:14,.0f} turns/s   floor/play {floor[n] / rps:6.1f}"
                )
    for n in (2, 4, 10):
        for name in ("greedy", "random"):
            one, many = res[(n, name, 1)], res[(n, name, all_threads)]
            print(
                f"scaling {name:7s} n={n:2d} {all_threads} threads / 1 thread: {many / one:5.2f}x"
            )
    target = res[(4, "greedy", 1)]
    print(
        f"target: 4-player greedy on 1 thread {target:,.0f} rounds/s "
        f"(goal >= 50,000 and >= floor/60 = {floor[4] / 60:,.0f}): "
        f"{'met' if target >= 50_000 and target >= floor[4] / 60 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
