"""Where a greedy decision's time goes (not a test): the per-decision breakdown of
docs/performance.md, for 原子.

    .venv/bin/python benchmarks/profile_decisions.py [--matches 400] [--repeats 5]

Plays ``--matches`` greedy matches (first halves) with the kernel's own rules functions and
keeps a snapshot of every decision (hands, played cards, public state, the code played). Then
it times, over all snapshots, on one thread: restoring a snapshot (the baseline, subtracted
from the rest), the legal-move generator, greedy's choice on the generated list, the
follow shortcut (``greedy_fast_code``, the driver's path for greedy when it applies) and
applying the move. Figures are nanoseconds per decision, medians of the repeats, split by
leading and following decisions. The whole decision, as the driver plays it, is timed by
``bench_yuanzi.py``; these parts are measured out of the driver's loop.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from cardsim.kernels.jit import kernel  # noqa: E402
from cardsim.kernels.rng import STREAM_DEAL, STREAM_STRATEGY, seed_stream  # noqa: E402
from cardsim.kernels.yuanzi.encoding import MAX_MOVES, N_CARDS, N_TYPES  # noqa: E402
from cardsim.kernels.yuanzi.rules import (  # noqa: E402
    apply_move,
    begin_half,
    draw_half_deck,
    legal_moves,
)
from cardsim.kernels.yuanzi.state import (  # noqa: E402
    N_INFO,
    N_RULES,
    N_ST,
    ST_ACTOR,
    ST_RULES,
    ST_TOP,
    rules_array,
)
from cardsim.kernels.yuanzi.strategies import (  # noqa: E402
    NO_SHORTCUT,
    choose_greedy,
    greedy_fast_code,
)

ROW = 2 * 4 * N_TYPES + N_ST + 1  # hands, played, st, code


@kernel
def collect(root, matches, rules, snaps):
    """Greedy first halves; every decision's state into ``snaps``; returns the count."""
    deck = np.empty(N_CARDS, np.uint8)
    spare = np.empty(N_CARDS, np.uint8)
    hands = np.empty((4, N_TYPES), np.uint8)
    played = np.empty((4, N_TYPES), np.uint8)
    st = np.empty(N_ST, np.int64)
    info = np.empty((4, N_INFO), np.int64)
    buf = np.empty(MAX_MOVES, np.int32)
    rd = np.empty(4, np.uint64)
    rs = np.empty(4, np.uint64)
    k = 0
    for g in range(matches):
        seed_stream(rd, root, g, STREAM_DEAL)
        p = draw_half_deck(rd, deck, rules[0] * 0)
        draw_half_deck(rd, spare, 0)
        seed_stream(rs, root, g, STREAM_STRATEGY)
        begin_half(0, deck, p, 0, hands, played, st, info)
        for i in range(N_RULES):
            st[ST_RULES + i] = rules[i]
        while k < snaps.shape[0]:
            code = greedy_fast_code(hands, st, rules)
            if code == NO_SHORTCUT:
                n = legal_moves(hands, st, rules, buf)
                code = buf[choose_greedy(hands[st[ST_ACTOR]], played, st, buf, n, rs)]
            _save(snaps[k], hands, played, st, code)
            k += 1
            if apply_move(code, hands, played, st, rules) == 1:
                break
    return k


@kernel
def _save(row, hands, played, st, code):
    j = 0
    for s in range(4):
        for t in range(N_TYPES):
            row[j] = hands[s, t]
            row[j + 4 * N_TYPES] = played[s, t]
            j += 1
    for i in range(N_ST):
        row[8 * N_TYPES + i] = st[i]
    row[ROW - 1] = code


@kernel
def _load(row, hands, played, st):
    j = 0
    for s in range(4):
        for t in range(N_TYPES):
            hands[s, t] = row[j]
            played[s, t] = row[j + 4 * N_TYPES]
            j += 1
    for i in range(N_ST):
        st[i] = row[8 * N_TYPES + i]


@kernel
def run_part(part, snaps, rules, leading):
    """Time-free loop over the snapshots of one kind (``leading`` 1/0) doing ``part``:
    0 restore only, 1 + legal moves, 2 + greedy's choice, 3 + follow shortcut, 4 + apply."""
    hands = np.empty((4, N_TYPES), np.uint8)
    played = np.empty((4, N_TYPES), np.uint8)
    st = np.empty(N_ST, np.int64)
    buf = np.empty(MAX_MOVES, np.int32)
    rs = np.zeros(4, np.uint64)
    acc = 0
    moves = 0
    for k in range(snaps.shape[0]):
        if (snaps[k, 8 * N_TYPES + ST_TOP] == 0) != (leading == 1):
            continue
        _load(snaps[k], hands, played, st)
        if part == 1 or part == 2:
            n = legal_moves(hands, st, rules, buf)
            moves += n
            if part == 2:
                acc += choose_greedy(hands[st[ST_ACTOR]], played, st, buf, n, rs)
        elif part == 3:
            c = greedy_fast_code(hands, st, rules)
            moves += c == NO_SHORTCUT
            acc += c
        elif part == 4:
            acc += apply_move(np.int32(snaps[k, ROW - 1]), hands, played, st, rules)
        acc += st[0]
    return acc, moves


def timed(fn, repeats):
    out = []
    for _ in range(repeats):
        c = time.process_time()
        fn()
        out.append(time.process_time() - c)
    return statistics.median(out)


def whole(matches, repeats):
    """ns per decision of the driver itself (``run_games``, greedy, one thread, both halves)."""
    import numba
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.strategies import GREEDY

    numba.set_num_threads(1)
    sids = np.full(4, GREEDY, np.int64)
    rules = rules_array()
    drv.run_games(1, 0, 16, sids, rules)
    g, _ = drv.run_games(1, 0, matches, sids, rules)
    d = int(g[:, drv.H_DECISIONS].sum() + np.maximum(g[:, drv.G_HALF + drv.H_DECISIONS], 0).sum())
    t = timed(lambda: drv.run_games(1, 0, matches, sids, rules), repeats)
    return t / d * 1e9, d / matches


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    rules = rules_array()
    snaps = np.zeros((a.matches * 200, ROW), np.int64)
    k = collect(np.uint64(7), a.matches, rules, snaps)
    snaps = snaps[:k]
    lead = int((snaps[:, 8 * N_TYPES + ST_TOP] == 0).sum())
    print(f"原子 greedy, {a.matches} first halves: {k:,} decisions ({lead:,} leading)")
    print("ns per decision, CPU time, medians of the repeats (restore subtracted):")
    names = ("restore", "legal moves", "legal + greedy choice", "follow shortcut", "apply")
    for leading, label in ((1, "leading"), (0, "following")):
        count = lead if leading else k - lead
        for part in range(5):
            run_part(part, snaps[:50], rules, leading)  # compile / warm
        base = timed(lambda lead_=leading: run_part(0, snaps, rules, lead_), a.repeats)
        _, moves = run_part(1, snaps, rules, leading)
        _, declined = run_part(3, snaps, rules, leading)
        print(
            f"  {label} ({count:,} decisions, {moves / max(count, 1):.1f} legal moves each; the "
            f"shortcut declines {declined / max(count, 1):.0%}):"
        )
        for part in range(5):
            t = timed(lambda p=part, lead_=leading: run_part(p, snaps, rules, lead_), a.repeats)
            ns = (t if part == 0 else t - base) / max(count, 1) * 1e9
            print(f"    {names[part]:24s} {ns:8.1f}")
    ns, per = whole(a.matches * 4, a.repeats)
    print(
        f"the driver (run_games, greedy, whole matches): {ns:.1f} ns per decision, {per:.0f} per match"
    )


if __name__ == "__main__":
    main()
