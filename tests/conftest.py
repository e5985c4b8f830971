"""Session set-up: compile both games' built-in kernels into the cache once, in parallel.

Numba compiles each game's kernels on first use (about a minute of one core per game). Left to
the tests, the first test of each game compiles them in its own process, one after the other —
and with ``pytest -n 2`` (pytest-xdist) both workers would compile the same kernels. So the main
process compiles them first, one process per job (``python -m cardsim.sim.warmup GAME
PURPOSE`` for each game's run kernels, search strategies and replay kernels, ``python -m
tests.warm_user_variants GAME`` for its user variant), as many at once as cores, and every test
process loads them from the on-disk cache (``kernels/jit.py``). Without
``-n`` nothing is done here: a single test file compiles only what it plays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _warm_kernels(purposes: tuple[str, ...]) -> None:
    from cardsim.sim import warmup
    from cardsim.sim.games import GAMES

    # one process per job, as many at once as cores, longest first where the order allows:
    # both games' run kernels first; a game's search strategies (compiled apart from any
    # driver: kernels/call_tables.py), user variant (tests/warm_user_variants.py) and replay
    # kernels after its run kernels, whose callees (the legal-move generator, the rules) they
    # load from the cache instead of compiling them a second time (原子's search job: 128 s
    # beside its run job, less than half after it)
    warm = [sys.executable, "-m", "cardsim.sim.warmup"]
    user = [sys.executable, "-m", "tests.warm_user_variants"]
    order = [("yuanzi", "run"), ("atlas", "run"), ("yuanzi", "search"), ("atlas", "search"),
             ("yuanzi", "user"), ("atlas", "user"), ("yuanzi", "replay"), ("atlas", "replay")]  # fmt: skip
    order += [
        (g, p) for g in GAMES for p in ("run", "search", "user", "replay") if (g, p) not in order
    ]
    jobs = [  # (game, purpose, command): all but a run job wait for the game's run job
        (g, p, [*user, g] if p == "user" else [*warm, g, p])
        for g, p in order
        if g in GAMES and p in purposes and not warmup.is_cached(g, "run" if p == "user" else p)
    ]
    width = max(1, os.cpu_count() or 1)
    running: dict[subprocess.Popen, tuple[str, str, float]] = {}
    started, took = time.perf_counter(), []

    def ready(game: str, purpose: str) -> bool:
        if purpose == "run":
            return True
        return all((g, p) != (game, "run") for g, p, _ in (*jobs, *running.values()))

    while jobs or running:
        while len(running) < width and (job := next((j for j in jobs if ready(*j[:2])), None)):
            jobs.remove(job)
            running[subprocess.Popen(job[2], cwd=ROOT)] = (*job[:2], time.perf_counter())
        time.sleep(0.5)
        for proc in [p for p in running if p.poll() is not None]:
            game, purpose, t0 = running.pop(proc)
            took.append(f"{game} {purpose} {time.perf_counter() - t0:.0f} s")
            _reap(proc)
    if took:
        WARM_UP.append(f"{len(took)} jobs on {width} cores in {time.perf_counter() - started:.0f} s"
                       f" ({', '.join(took)})")  # fmt: skip


def _reap(proc: subprocess.Popen) -> None:
    if proc.wait() != 0:  # the tests themselves then compile and report the error
        print(f"conftest: kernel warm-up exited {proc.returncode}", file=sys.stderr)


#: what the session's kernel warm-up did (said in the terminal summary: where CI's time goes)
WARM_UP: list[str] = []


def pytest_terminal_summary(terminalreporter) -> None:
    if WARM_UP:
        terminalreporter.write_line(f"kernel warm-up (compiling, before the tests): {WARM_UP[0]}")


def pytest_sessionstart(session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    if not getattr(session.config.option, "numprocesses", None):
        return  # one process (no -n): each game compiles when a test first plays it
    _warm_kernels(PURPOSES)


#: What the warm-up compiles for each game: what the fast tier plays (its search smoke and
#: hygiene tests play pimc and ismcts on a few deals) and so what the heavy tier plays too.
PURPOSES = ("run", "search", "user", "replay")


#: Modules that compile kernels of their own (standalone rule functions, ``@njit`` helpers, user
#: strategies): with ``-n`` one worker runs each whole, so that each compiles once per run.
COMPILES_OWN_KERNELS = (
    "tests/games/yuanzi/test_kernel_rules.py",
    "tests/games/yuanzi/test_fast_path.py",
    "tests/test_sdk.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's ``load`` scheduling, except that each module of :data:`COMPILES_OWN_KERNELS` is one
    unit of work (``xdist_group`` marks cannot do it: pytest 9.2 drops the worker's group suffix,
    pytest-xdist issue 1386)."""
    if config.getvalue("dist") != "load":
        return None  # the user chose a scheduler
    from xdist.scheduler import LoadScopeScheduling

    class ModulesCompilingOnce(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in COMPILES_OWN_KERNELS else nodeid

    return ModulesCompilingOnce(config, log)


#: Tests that take 15 s or more on a warm cache (``pytest --durations``): started first, so that
#: with ``-n`` none of them is left running alone at the end while the other worker idles.
LONG_FIRST = (
    # the heavy tier (-m heavy)
    "tests/games/atlas/test_pimc.py::test_pimc_beats_greedy_on_duplicate_deals",
    "tests/test_user_labels.py::test_a_user_strategy_goes_through_every_command",
    "tests/test_documented_commands.py::test_documented_commands_run_in_order",
    "tests/test_cluster_workflows.py::test_study_on_a_dask_scheduler_equals_a_local_study",
    "tests/test_reliability.py::test_3_kill_9_at_the_moment_of_creation",
    # the fast tier
    "tests/test_cli.py::test_resume_after_kill_9_equals_an_uninterrupted_run",
    "tests/test_user_labels.py::test_a_user_strategy_runs_through_run_and_compare",
    "tests/test_conformance.py::test_run_compare_report",
)


def pytest_collection_modifyitems(config, items) -> None:
    def rank(item) -> int:
        base = item.nodeid.split("[", 1)[0]
        return LONG_FIRST.index(base) if base in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: every other test keeps its order
