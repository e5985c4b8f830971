"""Learned-play benchmark (not a test; issue 48 done-when): decisions per CPU-second of
``greedy``, ``learned`` and ``ismcts`` in whole self-play matches, both games.

    .venv/bin/python benchmarks/bench_learned.py [--game yuanzi|atlas|both] [--matches 2000]
        [--search-matches 6] [--repeats 3] [--players 4] [--strategies greedy,learned,ismcts]

Every seat plays the strategy. The matches are played by the engine's ``play_chunk`` (the
driver a run uses; greedy keeps its fast paths) and timed in CPU seconds of this process
(``time.process_time``: the fair per-core figure on a shared machine), medians of the repeats
after a warm-up. Decisions per match — every decision with two or more legal moves, the ones a
strategy is asked — are counted by stepping ``--count-matches`` matches of the same deals
through the Python match (``Match.strategy_action``), so the figure is decisions per CPU-second
of the driver. A search strategy plays ``--search-matches`` matches.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def decisions_per_match(engine, name: str, players: int, matches: int) -> float:
    """Mean decisions with a choice per match, stepping matches 0.. through the Match."""
    from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream

    rng = np.empty(4, np.uint64)
    total = 0
    for g in range(matches):
        m = engine.new_match(players, {}, 1, g)
        seed_stream(rng, np.uint64(1), np.uint64(g), STREAM_STRATEGY)
        while not m.is_over():
            legal = m.legal_actions()
            if len(legal) > 1:
                total += 1
                m.apply(m.strategy_action(name, rng))
            else:
                m.apply(int(legal[0]))
    return total / matches


def matches_per_cpu_s(engine, name: str, players: int, matches: int, repeats: int) -> float:
    from cardsim.sim.config import build_config

    config = build_config(engine, games=matches, seed=1, players=players, strategy=name)
    engine.play_chunk(config, 0, min(matches, 2))  # compile / load
    cpu = []
    for _ in range(repeats):
        c = time.process_time()
        engine.play_chunk(config, 0, matches)
        cpu.append(time.process_time() - c)
    return matches / statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("yuanzi", "atlas", "both"), default="both")
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--search-matches", type=int, default=6)
    ap.add_argument("--count-matches", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategies", default="greedy,learned,ismcts")
    a = ap.parse_args()
    from cardsim.sim.games import get_engine
    from cardsim.sim.warmup import SEARCH_STRATEGIES

    games = ("yuanzi", "atlas") if a.game == "both" else (a.game,)
    for game in games:
        engine = get_engine(game)
        rates = {}
        for name in a.strategies.split(","):
            search = name.partition(":")[0] in SEARCH_STRATEGIES
            n = a.search_matches if search else a.matches
            per = decisions_per_match(engine, name, a.players, a.count_matches)
            mps = matches_per_cpu_s(engine, name, a.players, n, 1 if search else a.repeats)
            rates[name] = per * mps
            print(f"{game:7s} {name:28s} {mps:10.1f} matches/CPU-s x {per:7.1f} decisions/match "
                  f"= {rates[name]:12.0f} decisions/CPU-s")  # fmt: skip
        names = list(rates)
        for other in names[1:]:
            print(f"{game:7s} {names[0]} / {other}: {rates[names[0]] / rates[other]:.2f}")
        if "learned" in rates:
            for other in names:
                if other != "learned":
                    print(f"{game:7s} learned / {other}: {rates['learned'] / rates[other]:.2f}")


if __name__ == "__main__":
    main()
