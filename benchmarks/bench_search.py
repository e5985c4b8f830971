"""Search benchmark (not a test): decisions per CPU-second of ``pimc`` and ``ismcts`` at their
documented defaults (or given ids), in both games, on the same positions.

    .venv/bin/python benchmarks/bench_search.py [--game yuanzi|atlas|both] [--positions N]
        [--repeats 3] [--pimc pimc:samples=24] [--ismcts ismcts:iters=64]

Positions come from greedy self-play (bench_pimc.py's: 原子, every decision with a choice;
ATLAS, 4 players, every discard decision); each strategy decides every one of them on one
thread. Figures are decisions per CPU-second of this process (the fair per-core figure on a
shared machine), medians of the repeats.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from bench_pimc import atlas_positions, yuanzi_positions  # noqa: E402
from cardsim.kernels.rng import seed_stream  # noqa: E402
from numba import njit  # noqa: E402


def cpu_median(fn, repeats):
    cpu = []
    for _ in range(repeats):
        c = time.process_time()
        fn()
        cpu.append(time.process_time() - c)
    return statistics.median(cpu)


def bench_yuanzi(positions, repeats, names):
    from cardsim.kernels.yuanzi import ismcts, pimc
    from cardsim.sim.games.yuanzi import ENGINE

    rules, own, played, st, legal, n = yuanzi_positions(positions)
    wide = np.zeros((legal.shape[0], ismcts.BUF_SIZE), np.int32)
    wide[:, : legal.shape[1]] = legal

    @njit
    def decide_all(sid, own, played, st, legal, n, rules, search):
        rng = np.empty(4, np.uint64)
        buf = np.empty(legal.shape[1], np.int32)
        acc = 0
        for i in range(n.shape[0]):
            seed_stream(rng, 5, i, 2)
            buf[:] = legal[i]
            if search == 0:
                acc += pimc.choose_pimc(sid, own[i], played[i], st[i], rules, buf, n[i], rng)
            else:
                acc += ismcts.choose_ismcts(sid, own[i], played[i], st[i], rules, buf, n[i], rng)
        return acc

    out = {}
    for name in names:
        sid = int(ENGINE.strategy_ids([name] * 4)[0][0])
        search = int(name.startswith("ismcts"))
        args = (own, played, st, wide, n, rules, search)
        decide_all(sid, *(a[:2] for a in args[:5]), rules, search)  # compile / load
        out[name] = len(n) / cpu_median(lambda: decide_all(sid, *args), repeats)  # noqa: B023
    return out


def bench_atlas(positions, repeats, names):
    from cardsim.kernels.atlas import ismcts, pimc
    from cardsim.kernels.atlas.state import S_LEN
    from cardsim.kernels.atlas.strategies import DT_DISCARD
    from cardsim.sim.games.atlas import ENGINE, ISMCTS, PIMC

    snaps = atlas_positions(positions)

    @njit
    def decide_all(sid, snaps, slen, dt, search):
        rng = np.empty(4, np.uint64)
        S = np.empty(slen, np.int32)
        opts = np.empty(ismcts.BUF_SIZE, np.int32)
        acc = 0
        for i in range(snaps.shape[0]):
            seed_stream(rng, 5, i, 2)
            for j in range(slen):
                S[j] = snaps[i, j]
            p = snaps[i, slen]
            n = snaps[i, slen + 2]
            for j in range(n):
                opts[j] = snaps[i, slen + 4 + j]
            if search == 0:
                acc += pimc.choose_pimc(S, p, sid, dt, opts, n, rng)
            else:
                acc += ismcts.choose_ismcts(S, p, sid, dt, opts, n, rng)
        return acc

    del ENGINE
    out = {}
    for name in names:
        search = int(name.startswith("ismcts"))
        sid = ISMCTS.id(name) if search else PIMC.id(name)
        decide_all(sid, snaps[:2], S_LEN, DT_DISCARD, search)
        cpu = cpu_median(lambda: decide_all(sid, snaps, S_LEN, DT_DISCARD, search), repeats)  # noqa: B023
        out[name] = len(snaps) / cpu
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("yuanzi", "atlas", "both"), default="both")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pimc", default="pimc")
    ap.add_argument("--ismcts", default="ismcts")
    a = ap.parse_args()
    names = (a.pimc, a.ismcts)
    games = ("yuanzi", "atlas") if a.game == "both" else (a.game,)
    for game in games:
        fn = bench_yuanzi if game == "yuanzi" else bench_atlas
        res = fn(a.positions, a.repeats, names)
        for name, rate in res.items():
            print(f"{game:7s} {name:32s} {rate:9.1f} decisions / CPU-s")
        print(f"{game:7s} ismcts / pimc CPU per decision: {res[names[0]] / res[names[1]]:.2f}")


if __name__ == "__main__":
    main()
