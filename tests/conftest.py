"""Session set-up: compile both games' built-in kernels into the cache once, in parallel.

Numba compiles each game's kernels on first use (about a minute of one core per game). Left to
the tests, the first test of each game compiles them in its own process, one after the other —
and with ``pytest -n 2`` (pytest-xdist) both workers would compile the same kernels. So the main
process compiles them first, one process per game (its run and search kernels in turn:
``python -m cardsim.sim.warmup GAME run search``), then, on the cores the first finished games
free, each game's replay kernels and user variant (``tests/warm_user_variants.py``), and every
test process loads them from the on-disk cache (``kernels/jit.py``). Without
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

    # one process per game for its run and search kernels in turn (the search reuses the
    # callees the run compiled in that process), then, on the cores the first finished games
    # free, each game's replay kernels (loading those callees from the cache) and the user
    # variants every user strategy plays in (tests/warm_user_variants.py): 原子's search takes
    # minutes longer than ATLAS's whole warm-up, so the long process is run + search alone
    def missing(game: str, purposes: tuple[str, ...]) -> list[str]:
        return [p for p in purposes if not warmup.is_cached(game, p)]

    warm = [sys.executable, "-m", "cardsim.sim.warmup"]
    jobs = [[*warm, g, *todo] for g in GAMES if (todo := missing(g, ("run", "search")))]
    jobs += [[*warm, g, *todo] for g in GAMES if (todo := missing(g, ("replay",)))]
    if jobs:
        jobs.append([sys.executable, "-m", "tests.warm_user_variants"])
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
