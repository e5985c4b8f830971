"""pimc benchmark (not a test): decisions/s and rollouts/s per core, and the time of a
1,000-deal duplicate comparison of the default ``pimc`` against ``greedy``.

    .venv/bin/python benchmarks/bench_pimc.py [--game yuanzi|atlas|both] [--positions N]
        [--deals 1000] [--threads 2] [--no-compare] [--atlas-rules K=V,...]

Part 1 (per core): positions are collected from greedy self-play (原子: every decision with a
choice; ATLAS, 4 players: every discard decision), then the default ``pimc`` decides each of
them on one thread; a *decision* is one call of the strategy, a *rollout* one candidate played
to the end of the half / round on one determinization (candidates = min(cap, legal moves); a
原子 move that goes out is taken without search). Figures are per CPU-second of this process
(the fair per-core figure on a shared machine) and per wall second; medians of the repeats.

Part 2: ``cardsim compare GAME --strategies pimc,greedy --games DEALS --threads T`` in a
temporary run directory, timed end to end (compilation excluded: a warm-up run comes first);
prints its wall time, its CPU time (the child process: on a shared machine CPU-s / threads is
the wall time it takes on that many free cores) and its paired win-rate difference with the
95 % interval.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream  # noqa: E402
from numba import njit  # noqa: E402


def timed(fn, repeats):
    """Median wall time and median CPU time of ``repeats`` calls."""
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


# --- 原子 ------------------------------------------------------------------------------------


def yuanzi_positions(count):
    """Up to ``count`` decisions with a choice from greedy self-play (first halves)."""
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi import pimc
    from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES
    from cardsim.kernels.yuanzi.rules import apply_move, begin_half, draw_half_deck
    from cardsim.kernels.yuanzi.state import N_INFO, N_ST, ST_ACTOR, rules_array

    rules = rules_array()
    sids = np.ones(4, np.int64)
    hands_l, played_l, st_l, legal_l, n_l = [], [], [], [], []
    g = 0
    while len(n_l) < count:
        deck = np.empty(N_CARDS, np.uint8)
        rd = np.empty(4, np.uint64)
        rng = np.empty(4, np.uint64)
        seed_stream(rd, 99, g, STREAM_DEAL)
        seed_stream(rng, 99, g, STREAM_STRATEGY)
        p = draw_half_deck(rd, deck, 0)
        hands = np.zeros((4, N_TYPES), np.uint8)
        played = np.zeros((4, N_TYPES), np.uint8)
        st = np.zeros(N_ST, np.int64)
        info = np.zeros((4, N_INFO), np.int64)
        begin_half(0, deck, p, 0, hands, played, st, info)
        buf = np.zeros(pimc.BUF_SIZE, np.int32)
        while True:
            n, idx, _ = drv.decide_turn(hands, played, st, rules, sids, buf, rng)
            if n > 1 and len(n_l) < count:
                hands_l.append(hands[st[ST_ACTOR]].copy())
                played_l.append(played.copy())
                st_l.append(st.copy())
                legal_l.append(buf[: pimc.BUF_SIZE].copy())
                n_l.append(n)
            if apply_move(int(buf[idx]), hands, played, st, rules) == 1:
                break
        g += 1
    return (
        rules,
        np.array(hands_l),
        np.array(played_l),
        np.array(st_l),
        np.array(legal_l),
        np.array(n_l, np.int64),
    )


def bench_yuanzi(positions, repeats, rules=None):
    from cardsim.kernels.yuanzi import pimc
    from cardsim.kernels.yuanzi.state import ST_ACTOR, ST_COUNT
    from cardsim.kernels.yuanzi.strategies import goes_out

    rules, own, played, st, legal, n = yuanzi_positions(positions)
    from cardsim.sim.games.yuanzi import PIMC_DEFAULT

    sid = pimc.encode(*PIMC_DEFAULT)
    samples, cap, _, _ = PIMC_DEFAULT

    @njit
    def decide_all(sid, own, played, st, legal, n, rules):
        rng = np.empty(4, np.uint64)
        buf = np.empty(legal.shape[1], np.int32)
        acc = 0
        for i in range(n.shape[0]):
            seed_stream(rng, 5, i, 2)
            buf[:] = legal[i]
            acc += pimc.choose_pimc(sid, own[i], played[i], st[i], rules, buf, n[i], rng)
        return acc

    rollouts = 0
    for i in range(len(n)):
        seat = st[i, ST_ACTOR]
        if any(goes_out(st[i, ST_COUNT + seat], int(c)) for c in legal[i, : n[i]]):
            continue
        rollouts += samples * min(cap, int(n[i]))
    decide_all(sid, own[:2], played[:2], st[:2], legal[:2], n[:2], rules)  # compile / load
    wall, cpu = timed(lambda: decide_all(sid, own, played, st, legal, n, rules), repeats)
    return len(n), rollouts, wall, cpu


# --- ATLAS -----------------------------------------------------------------------------------


def atlas_positions(count, players=4, rules=None):
    """Up to ``count`` discard decisions (snapshots) from greedy self-play (the snapshot's
    public block carries the rule options, so pimc plays under ``rules`` too)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.rules import OPTIONS
    from cardsim.kernels.atlas.state import S_LEN
    from cardsim.kernels.atlas.strategies import DT_DISCARD, GREEDY

    sids = np.full(players, GREEDY, np.int64)
    snaps = []
    g = 0
    while len(snaps) < count:
        tr = drv.run_trace(99, g, players, sids, OPTIONS.array(rules), level=1, snap_at=-2)
        for row in tr.snapshot:
            if row[S_LEN] >= 0 and row[S_LEN + 1] == DT_DISCARD and row[S_LEN + 2] > 1:
                snaps.append(row.copy())
        g += 1
    return np.array(snaps[:count])


def bench_atlas(positions, repeats, rules=None):
    from cardsim.kernels.atlas import pimc
    from cardsim.kernels.atlas.state import S_LEN
    from cardsim.kernels.atlas.strategies import DT_DISCARD

    snaps = atlas_positions(positions, rules=rules)
    from cardsim.sim.games.atlas import PIMC_DEFAULT

    sid = pimc.encode(*PIMC_DEFAULT)
    samples, cap, _, _ = PIMC_DEFAULT

    @njit
    def decide_all(sid, snaps, slen, dt):
        rng = np.empty(4, np.uint64)
        S = np.empty(slen, np.int32)
        opts = np.empty(pimc.BUF_SIZE, np.int32)
        acc = 0
        for i in range(snaps.shape[0]):
            seed_stream(rng, 5, i, 2)
            for j in range(slen):
                S[j] = snaps[i, j]
            p = snaps[i, slen]
            n = snaps[i, slen + 2]
            for j in range(n):
                opts[j] = snaps[i, slen + 4 + j]
            acc += pimc.choose_pimc(S, p, sid, dt, opts, n, rng)
        return acc

    n = snaps[:, S_LEN + 2]
    rollouts = int(sum(samples * min(cap, int(k)) for k in n))
    decide_all(sid, snaps[:2], S_LEN, DT_DISCARD)
    wall, cpu = timed(lambda: decide_all(sid, snaps, S_LEN, DT_DISCARD), repeats)
    return len(n), rollouts, wall, cpu


# --- the comparison --------------------------------------------------------------------------


def compare(game, deals, threads):
    """Time ``cardsim compare GAME --strategies pimc,greedy``: (wall s, CPU s, output)."""
    cmd = [sys.executable, "-m", "cardsim", "compare", game, "--strategies", "pimc,greedy"]
    with tempfile.TemporaryDirectory() as tmp:
        warm = [*cmd, "--games", "4", "--out", f"{tmp}/warm", "--quiet"]
        subprocess.run(warm, check=True, cwd=ROOT, capture_output=True)
        run = [*cmd, "--games", str(deals), "--out", f"{tmp}/cmp", "--threads", str(threads)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        out = subprocess.run(run, cwd=ROOT, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"{' '.join(run)} failed ({out.returncode}):\n{out.stderr}")
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return wall, cpu, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("yuanzi", "atlas", "both"), default="both")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument(
        "--atlas-rules",
        default="",
        help="ATLAS rule options KEY=VALUE,... for the positions (e.g. self_melds=any, the "
        "pre-AT-07-revision default, to pair with an older commit on the same positions)",
    )
    a = ap.parse_args()
    atlas_rules = dict(kv.split("=", 1) for kv in a.atlas_rules.split(",") if kv)
    numba.set_num_threads(1)
    games = ("yuanzi", "atlas") if a.game == "both" else (a.game,)
    for game in games:
        mod = __import__(f"cardsim.sim.games.{game}", fromlist=["PIMC_DEFAULT"])
        fn = bench_yuanzi if game == "yuanzi" else bench_atlas
        n, rollouts, wall, cpu = fn(
            a.positions, a.repeats, atlas_rules if game == "atlas" else None
        )
        print(
            f"{game}: default pimc (samples, cap, rollout, z) = {mod.PIMC_DEFAULT}; {n} positions, "
            f"{rollouts:,} rollouts"
        )
        print(
            f"  per core: {n / cpu:10,.1f} decisions/cpu-s  {rollouts / cpu:12,.0f} rollouts/cpu-s"
            f"   (wall: {n / wall:,.1f} decisions/s, {rollouts / wall:,.0f} rollouts/s)"
        )
        if not a.no_compare:
            secs, cpu_s, out = compare(game, a.deals, a.threads)
            verdict = "under" if secs < 600 else "NOT under"
            print(
                f"  cardsim compare {game} --strategies pimc,greedy --games {a.deals} "
                f"--threads {a.threads}: {secs:,.0f} s wall ({verdict} 10 minutes), "
                f"{cpu_s:,.0f} CPU-s (= {cpu_s / a.threads:,.0f} s on {a.threads} free cores)"
            )
            for line in out.splitlines():
                if "pimc" in line or "deals" in line:
                    print("   ", line.strip())


if __name__ == "__main__":
    main()
