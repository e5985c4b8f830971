"""Where a greedy or random decision's time goes (not a test): the per-decision breakdowns of
docs/performance.md, for 原子 and ATLAS.

    .venv/bin/python benchmarks/profile_decisions.py [--matches 400] [--repeats 5]
    .venv/bin/python benchmarks/profile_decisions.py --game atlas [--players 4] [--matches 400]
    .venv/bin/python benchmarks/profile_decisions.py [--game atlas] --strategy random

``--strategy random`` (:func:`random_main`): restoring a snapshot costs more than a whole
random decision, so random play is timed in loops of the rules functions alone, one part
added per decision (its cost is the paired difference). Greedy, below: snapshots.

ATLAS (:func:`atlas_main`): the driver's own trace snapshots every decision of ``--matches``
greedy matches (the state, the seat, the decision kind and its options); over all snapshots of
one kind, on one thread: restoring the state (the baseline), the turn engine's
``legal_moves`` at the decision (its options again: generating them) and greedy's choice
(``choose_in_state``), each repeated 8 times per restore; the rest of the driver's time per
decision (``apply_move``, the automatic steps, the records) is the driver's whole decision
(``simulate``) less those two. For discards also greedy's ``hand_summary`` alone.

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
from cardsim.kernels.atlas.encoding import N_TYPES as N_TYPES_AT  # noqa: E402
from cardsim.kernels.atlas.engine import next_round as at_next_round  # noqa: E402
from cardsim.kernels.atlas.rules import R_ROUNDS as R_ROUNDS_AT  # noqa: E402
from cardsim.kernels.atlas.state import HANDS as HANDS_AT  # noqa: E402
from cardsim.kernels.atlas.state import PUB_LEN as PUB_LEN_AT  # noqa: E402
from cardsim.kernels.atlas.state import S_LEN as S_LEN_AT  # noqa: E402
from cardsim.kernels.atlas.state import ST_WINNER as ST_WINNER_AT  # noqa: E402
from cardsim.kernels.atlas.state import SUMMARY as SUMMARY_AT  # noqa: E402
from cardsim.kernels.atlas.strategies import GREEDY as AT_GREEDY  # noqa: E402
from cardsim.kernels.atlas.strategies import NOT_CAREFUL, choose_in_state, hand_summary  # noqa: E402
from cardsim.kernels.atlas.strategies import SUMMARY_LEN as SUMMARY_LEN_AT  # noqa: E402
from cardsim.kernels.atlas.turn import apply_move as at_apply  # noqa: E402
from cardsim.kernels.atlas.turn import legal_moves as at_legal  # noqa: E402
from cardsim.kernels.atlas.turn import new_round as at_new_round  # noqa: E402
from cardsim.kernels.jit import kernel  # noqa: E402
from cardsim.kernels.rng import (  # noqa: E402
    STREAM_DEAL,
    STREAM_EVENTS,
    STREAM_STRATEGY,
    bounded,
    seed_stream,
)
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


def whole(matches, repeats, sid=None):
    """ns per decision of the driver itself (``run_games``, strategy ``sid`` in every seat,
    greedy by default, one thread, both halves)."""
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.strategies import GREEDY

    numba_one_thread()
    sids = np.full(4, GREEDY if sid is None else sid, np.int64)
    rules = rules_array()
    drv.run_games(1, 0, 16, sids, rules)
    g, _ = drv.run_games(1, 0, matches, sids, rules)
    d = int(g[:, drv.H_DECISIONS].sum() + np.maximum(g[:, drv.G_HALF + drv.H_DECISIONS], 0).sum())
    t = timed(lambda: drv.run_games(1, 0, matches, sids, rules), repeats)
    return t / d * 1e9, d / matches


@kernel
def atlas_part(part, snaps, kind, ev0, slen, reps):
    """ATLAS: the loop over the snapshots of decision ``kind`` doing ``part`` after restoring
    the state: 0 nothing, 1 ``legal_moves`` at the decision ``reps`` times (it regenerates the
    decision's options: idempotent there), 2 it once then greedy's choice ``reps`` times, 3 both
    once then ``apply_move``, 4 those then the next ``legal_moves``, 5 greedy's
    ``hand_summary`` alone ``reps`` times. Returns a checksum and the decisions whose
    regenerated options differ from the snapshot's (must be 0)."""
    S = np.empty(slen, np.int32)
    opts = np.empty(512, np.int32)
    ev = np.empty(4, np.uint64)
    rs = np.zeros(4, np.uint64)
    acc = 0
    bad = 0
    for k in range(snaps.shape[0]):
        if snaps[k, slen + 1] != kind:
            continue
        for j in range(slen):
            S[j] = snaps[k, j]
        for j in range(4):
            ev[j] = ev0[j]
        if part == 1:
            for _ in range(reps):
                acc += at_legal(S, opts, ev)[2]
        elif part == 5:
            h0 = HANDS_AT + snaps[k, slen] * N_TYPES_AT
            sm = S[SUMMARY_AT : SUMMARY_AT + SUMMARY_LEN_AT]
            for _ in range(reps):
                hand_summary(S[h0 : h0 + N_TYPES_AT], S[:PUB_LEN_AT], NOT_CAREFUL, sm)
                acc += sm[3]
        elif part >= 2:
            p, d, n = at_legal(S, opts, ev)
            if n != snaps[k, slen + 2] or opts[0] != snaps[k, slen + 4]:
                bad += 1
            i = 0
            for _ in range(reps if part == 2 else 1):
                i = choose_in_state(S, p, AT_GREEDY, d, opts, n, rs)
                acc += i
            if part >= 3:
                at_apply(opts[i], S)
                if part >= 4:
                    acc += at_legal(S, opts, ev)[2]
        acc += S[0]
    return acc, bad


@kernel
def yz_random_loop(root, matches, rules, extra):
    """原子 random first halves played by the rules functions alone (no driver): deal, then
    per decision ``legal_moves``, random's draw, ``apply_move``. ``extra`` adds one part per
    decision, so that its cost is the difference (no snapshot restored): 1 ``legal_moves``
    again (pure: the options only), 2 a second draw (on a side stream, so the game does not
    change), 3 only the deals (no decision played). Returns (checksum, decisions)."""
    deck = np.empty(N_CARDS, np.uint8)
    hands = np.empty((4, N_TYPES), np.uint8)
    played = np.empty((4, N_TYPES), np.uint8)
    st = np.empty(N_ST, np.int64)
    info = np.empty((4, N_INFO), np.int64)
    buf = np.empty(MAX_MOVES, np.int32)
    rd = np.empty(4, np.uint64)
    rs = np.empty(4, np.uint64)
    side = np.empty(4, np.uint64)
    seed_stream(side, root, 0, STREAM_DEAL)
    acc = 0
    dec = 0
    for g in range(matches):
        seed_stream(rd, root, g, STREAM_DEAL)
        seed_stream(rs, root, g, STREAM_STRATEGY)
        p = draw_half_deck(rd, deck, 0)
        begin_half(0, deck, p, 0, hands, played, st, info)
        for i in range(N_RULES):
            st[ST_RULES + i] = rules[i]
        if extra == 3:
            acc += st[ST_ACTOR]
            continue
        while True:
            n = legal_moves(hands, st, rules, buf)
            if extra == 1:
                n = legal_moves(hands, st, rules, buf)
            i = bounded(rs, n)
            if extra == 2:
                acc += bounded(side, n)
            dec += 1
            if apply_move(buf[i], hands, played, st, rules) == 1:
                break
    return acc, dec


@kernel
def at_random_loop(root, matches, n_players, R, extra):
    """ATLAS random rounds played by the turn engine alone (no driver): ``new_round``, then per
    decision ``legal_moves`` (the automatic steps, then the options), random's draw,
    ``apply_move``, the next round by the match engine's ``next_round``, the driver's games
    exactly (its streams, its first seats: checked by the
    winners' sum, returned for ``extra`` 0). ``extra`` as :func:`yz_random_loop`'s (1:
    ``legal_moves`` again at the decision, which only regenerates its options)."""
    S = np.zeros(S_LEN_AT, np.int32)
    opts = np.empty(512, np.int32)
    rd = np.empty(4, np.uint64)
    ev = np.empty(4, np.uint64)
    rs = np.empty(4, np.uint64)
    side = np.empty(4, np.uint64)
    seed_stream(side, root, 0, STREAM_DEAL)
    acc = 0
    dec = 0
    for g in range(matches):
        seed_stream(rd, root, g, STREAM_DEAL)
        seed_stream(ev, root, g, STREAM_EVENTS)
        seed_stream(rs, root, g, STREAM_STRATEGY)
        for r in range(R[R_ROUNDS_AT]):
            if r == 0:
                at_new_round(S, n_players, 0, 0, R, rd)
            else:  # the match engine's next round (AT-25: first player, standing)
                at_next_round(S, R, rd)
            if extra == 3:
                acc += S[0]
                continue
            while True:
                p, d, n = at_legal(S, opts, ev)
                if n == 0:
                    break
                if extra == 1:
                    p, d, n = at_legal(S, opts, ev)
                i = 0 if n == 1 else bounded(rs, n)  # the driver draws only for a choice
                if extra == 2:
                    acc += bounded(side, n)
                dec += 1
                at_apply(opts[i], S)
            w = S[ST_WINNER_AT]
            acc += w if extra == 0 else 0
    return acc, dec


def random_main(a) -> None:
    """Random play's breakdown, both games: the in-loop differences of the two loops above."""
    from cardsim.kernels.atlas import driver as at_drv
    from cardsim.kernels.atlas.options import OPTIONS
    from cardsim.kernels.atlas.strategies import RANDOM as AT_RANDOM
    from cardsim.kernels.yuanzi.strategies import RANDOM

    if a.game == "atlas":
        R = OPTIONS.array(OPTIONS.resolve({}))
        loop = lambda m, x: at_random_loop(np.uint64(7), m, a.players, R, x)  # noqa: E731
        label = f"ATLAS random, {a.players} players, {a.matches} matches"
        parts = ("the options (legal_moves again at the decision)", "random's draw",
                 "the automatic steps and apply_move", "the round's deal (new_round)")  # fmt: skip
    else:
        rules = rules_array()
        loop = lambda m, x: yz_random_loop(np.uint64(7), m, rules, x)  # noqa: E731
        label = f"原子 random, {a.matches} first halves"
        parts = ("the options (legal_moves)", "random's draw", "apply_move",
                 "the half's deal (begin_half)")  # fmt: skip
    for x in range(4):
        loop(4, x)  # compile / warm
    wins, dec = loop(a.matches, 0)
    rows = []  # the four loops back to back in every repeat; medians of the paired differences
    for _ in range(a.repeats):
        rows.append([timed(lambda x=x: loop(a.matches, x), 1) / dec * 1e9 for x in range(4)])
    t = [statistics.median(r[x] for r in rows) for x in range(4)]
    legal = statistics.median(r[1] - r[0] for r in rows)
    draw = statistics.median(r[2] - r[0] for r in rows)
    deal = t[3]
    print(f"{label}: {dec:,} decisions; ns per decision, CPU time, medians of {a.repeats} rounds")
    print(f"  the loop alone (deal, options, draw, apply): {t[0]:7.1f}")
    for name, v in zip(parts, (legal, draw, t[0] - legal - draw - deal, deal), strict=True):
        print(f"    {name:50s} {v:7.1f}")
    numba_one_thread()
    if a.game == "atlas":
        sids = np.full(a.players, AT_RANDOM, np.int64)
        games = a.matches
        out_g = np.zeros(games * int(R[R_ROUNDS_AT]), at_drv.GAMES_DTYPE)
        out_s = np.zeros(len(out_g) * a.players, at_drv.SEATS_DTYPE)
        run = lambda: at_drv.simulate(np.uint64(7), 0, games, a.players, sids, R, out_g, out_s)  # noqa: E731
        run()
        assert int(out_g["winner"].astype(np.int64).sum()) == wins, "the loop plays other games"
        per = timed(run, a.repeats) / dec * 1e9
        print(f"  the driver's whole decision (simulate, the same games): {per:7.1f}; the "
              f"driver's own part (decide, the trace checks, records) {per - t[0]:7.1f}")  # fmt: skip
    else:  # whole matches: the second half too, so not the loop's decisions
        per, _ = whole(a.matches * 4, a.repeats, RANDOM)
        print(f"  the driver's whole decision (run_games, whole matches, both halves): {per:7.1f}")


def numba_one_thread() -> None:
    import numba

    numba.set_num_threads(1)


def atlas_main(a) -> None:
    """The ATLAS breakdown (module docstring)."""
    from cardsim.kernels.atlas import driver as drv
    from cardsim.kernels.atlas.encoding import DT_CLAIM, DT_DISCARD, DT_GIVE, DT_SELF, DT_TARGET
    from cardsim.kernels.atlas.options import OPTIONS
    from cardsim.kernels.atlas.rules import R_ROUNDS
    from cardsim.kernels.atlas.state import S_LEN
    from cardsim.kernels.atlas.strategies import GREEDY
    from cardsim.kernels.rng import STREAM_EVENTS, new_stream

    rules = OPTIONS.array(OPTIONS.resolve({}))
    sids = np.full(a.players, GREEDY, np.int64)
    snaps = np.concatenate(
        [drv.run_trace(7, g, a.players, sids, rules, snap_at=-2).snapshot for g in range(a.matches)]
    )
    ev0 = new_stream(np.uint64(7), np.uint64(0), STREAM_EVENTS)
    kinds = ((DT_CLAIM, "claim"), (DT_SELF, "self-meld"), (DT_DISCARD, "discard"),
             (DT_TARGET, "TRADE target"), (DT_GIVE, "TRADE give"))  # fmt: skip
    print(f"ATLAS greedy, {a.players} players, {a.matches} matches: {len(snaps):,} decisions")
    print("ns per decision, CPU time, medians of the repeats (one thread; each part timed 8")
    print("times per restore of the state, the restore taken out):")
    reps = 8
    whole_parts = 0.0
    for kind, label in kinds:
        mine = np.ascontiguousarray(snaps[snaps[:, S_LEN + 1] == kind])
        count = len(mine)
        if count == 0:
            continue
        for part in range(3):
            atlas_part(part, mine[:50], kind, ev0, S_LEN, reps)  # compile / warm
        bad = atlas_part(2, mine, kind, ev0, S_LEN, 1)[1]
        assert bad == 0, f"{bad} {label} decisions regenerate other options"
        t = [
            timed(lambda p=p, m=mine, k=kind: atlas_part(p, m, k, ev0, S_LEN, reps), a.repeats)
            / count
            for p in range(3)
        ]
        legal = (t[1] - t[0]) / reps
        choice = (t[2] - t[0] - legal) / reps
        whole_parts += (legal + choice) * count
        opts = mine[:, S_LEN + 2].mean()
        print(
            f"  {label:13s} {count:7,} decisions ({100 * count / len(snaps):4.1f} %), "
            f"{opts:4.1f} options: legal_moves {legal * 1e9:6.1f}, greedy's choice "
            f"{choice * 1e9:6.1f}"
        )
        if kind == DT_DISCARD:  # its hand summary alone, paired with the restore in each round
            atlas_part(5, mine[:50], kind, ev0, S_LEN, reps)
            sm_ns = statistics.median(
                timed(lambda m=mine: atlas_part(5, m, DT_DISCARD, ev0, S_LEN, reps), 1)
                - timed(lambda m=mine: atlas_part(0, m, DT_DISCARD, ev0, S_LEN, reps), 1)
                for _ in range(a.repeats)
            )
            print(f"{'':16s}of greedy's discard choice, hand_summary alone: "
                  f"{sm_ns / reps / count * 1e9:6.1f}")  # fmt: skip
    numba_one_thread()
    cfg_games = a.matches * 4
    out_g = np.zeros(cfg_games * int(rules[R_ROUNDS]), drv.GAMES_DTYPE)
    out_s = np.zeros(len(out_g) * a.players, drv.SEATS_DTYPE)
    drv.simulate(np.uint64(1), 0, 16, a.players, sids, rules, out_g, out_s)
    t = timed(lambda: drv.simulate(np.uint64(1), 0, cfg_games, a.players, sids, rules, out_g, out_s),
              a.repeats)  # fmt: skip
    dec = sum(len(drv.run_trace(1, g, a.players, sids, rules).decisions) for g in range(200))
    per = dec / 200 / int(rules[R_ROUNDS])
    drv_ns = t / (cfg_games * per) * 1e9
    parts_ns = whole_parts / len(snaps) * 1e9
    print(f"the driver (simulate, greedy, whole rounds): {drv_ns:.1f} ns per decision, "
          f"{per:.0f} decisions per round; of it the options and the choice (above, weighted) "
          f"{parts_ns:.1f}, the rest (apply_move, the automatic steps — draws, claim windows "
          f"closing, the round's deal — and the driver's records) {drv_ns - parts_ns:.1f}")  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("yuanzi", "atlas"), default="yuanzi")
    ap.add_argument("--players", type=int, default=4, help="ATLAS: players")
    ap.add_argument("--matches", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--strategy", choices=("greedy", "random"), default="greedy")
    a = ap.parse_args()
    if a.strategy == "random":
        random_main(a)
        return
    if a.game == "atlas":
        atlas_main(a)
        return
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
