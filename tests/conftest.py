"""Session set-up: compile both games' built-in kernels into the cache once, in parallel.

Numba compiles each game's kernels on first use (about a minute of one core per game). Left to
the tests, the first test of each game compiles them in its own process, one after the other —
and with ``pytest -n 2`` (pytest-xdist) both workers would compile the same kernels. So the main
process compiles them first, one process per job (``python -m cardsim.sim.warmup GAME
PURPOSE``, longest first, as many at once as cores: each game's run kernels, search strategies
and replay kernels, and the user variants, ``tests/warm_user_variants.py``), and every test
process loads them from the on-disk cache (``kernels/jit.py``). Without
``-n`` nothing is done here: a single test file compiles only what it plays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _warm_kernels() -> None:
    from cardsim.sim import warmup
    from cardsim.sim.games import GAMES

    # one process per job, longest first, as many at once as cores: 原子's search strategies
    # (compiled apart from any driver, kernels/call_tables.py) and run kernels, ATLAS's run
    # kernels; then, on the cores those free, the user variants every user strategy plays in
    # (tests/warm_user_variants.py), ATLAS's search strategies and both games' replay kernels
    # (these reuse the callees the run kernels cached)
    def missing(game: str, purpose: str) -> list[str]:
        return [] if warmup.is_cached(game, purpose) else [purpose]

    warm = [sys.executable, "-m", "cardsim.sim.warmup"]
    order = [("yuanzi", "search"), ("yuanzi", "run"), ("atlas", "run"), ("atlas", "search"),
             ("yuanzi", "replay"), ("atlas", "replay")]  # fmt: skip
    order += [(g, p) for g in GAMES for p in ("run", "search", "replay") if (g, p) not in order]
    jobs = [[*warm, g, *todo] for g, p in order if g in GAMES and (todo := missing(g, p))]
    if jobs:  # after the run kernels, whose callees the user variants reuse
        jobs.insert(min(3, len(jobs)), [sys.executable, "-m", "tests.warm_user_variants"])
    width = max(1, os.cpu_count() or 1)
    running: list[subprocess.Popen] = []
    while jobs or running:
        while jobs and len(running) < width:
            running.append(subprocess.Popen(jobs.pop(0), cwd=ROOT))
        time.sleep(0.5)
        for proc in [p for p in running if p.poll() is not None]:
            running.remove(proc)
            _reap(proc)


def _reap(proc: subprocess.Popen) -> None:
    if proc.wait() != 0:  # the tests themselves then compile and report the error
        print(f"conftest: kernel warm-up exited {proc.returncode}", file=sys.stderr)


def pytest_sessionstart(session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    if not getattr(session.config.option, "numprocesses", None):
        return  # one process (no -n): each game compiles when a test first plays it
    _warm_kernels()
