"""First-run kernel compilation: say what is compiled and how long it takes, then compile.

Numba compiles each game's kernels on first use and caches them on disk (``kernels/jit.py``);
later runs load them in seconds. Compilation holds the interpreter lock, so two games compile
at once only in separate processes: :func:`start` compiles the first game here and every other
game in a process of its own (``python -m cardsim.sim.warmup GAME``), and :meth:`Compiling.wait` waits
for a game's process before that game is first played. Before compiling it prints one notice
naming what is compiled and roughly how long it takes. A game compiled here may split its run
kernels over two processes (``Warmup.split``, :func:`compile_split`): a second core then
compiles some of the driver's callees while this process compiles others.

A user strategy (``path/file.py:function``) compiles alone, in seconds, and plays in the
driver's user variant, compiled once for every user strategy and cached on disk too
(``sim/user_strategies.py``); that module gives the notice of that compile itself, only when it
happens, so nothing here announces user drivers.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cardsim.sim.game import RunConfig, user_strategy_files


def _warmup(game: str):
    """The game's :class:`cardsim.sim.game.Warmup` declaration, or None (nothing to compile
    ahead: a game plugged in with ``register_engine`` without one, or an unknown game)."""
    from cardsim.sim.errors import CardsimError
    from cardsim.sim.games import get_engine

    try:
        return getattr(get_engine(game), "warmup", None)
    except CardsimError:
        return None


def entry_point(game: str, purpose: str) -> tuple[str, str]:
    """(module, function) of ``game``'s ``purpose`` kernel entry point (its engine declares
    them, ``Warmup.entry_points``): their on-disk cache index exists once the whole call tree
    below them is compiled and saved."""
    return _warmup(game).entry_points[purpose]


def compile_seconds(game: str, purpose: str) -> float:
    """The seconds ``game``'s engine quotes for compiling its ``purpose`` kernels."""
    w = _warmup(game)
    return float(w.compile_seconds[purpose]) if w is not None else 0.0


def display_name(game: str) -> str:
    w = _warmup(game)
    return w.name if w is not None else game


#: Strategy names (before any ``:params``) called through a driver's search table
#: (``cardsim.kernels.call_tables``): a game's "search" entry point is its pimc function.
SEARCH_STRATEGIES = ("pimc", "ismcts")


def _dispatcher(game: str, purpose: str):
    return _function(entry_point(game, purpose))


def _function(where: tuple[str, str]) -> Callable:
    """The object ``(module, name)`` names (an entry point, or a split's compile function)."""
    module, name = where
    return getattr(importlib.import_module(module), name)


def searches(config: RunConfig) -> bool:
    """Whether a seat of ``config`` plays a search strategy (its run needs the search table)."""
    return any(str(s).split(":", 1)[0] in SEARCH_STRATEGIES for s in config.seats)


def purposes_of(config: RunConfig, purpose: str = "run") -> tuple[str, ...]:
    """The kernels ``config`` runs for ``purpose``: a run with a search seat also needs the
    search strategies ("search"), which compile apart from the driver."""
    return (purpose, "search") if purpose == "run" and searches(config) else (purpose,)


def is_cached(game: str, purpose: str = "run") -> bool:
    """Whether the on-disk cache holds ``game``'s compiled ``purpose`` kernels (run/replay).

    A game without known entry points (one plugged in with ``register_engine``) counts as
    cached: there is nothing this module knows how to compile for it.
    """
    if _warmup(game) is None:
        return True
    disp = _dispatcher(game, purpose)
    try:  # the cache index numba itself loads: empty if missing or stale (numba >= 0.59)
        return bool(disp._cache._cache_file._load_index())
    except AttributeError:  # another numba: any index of the entry point
        from cardsim.kernels.jit import CACHE_DIR

        qual = disp.py_func.__qualname__
        module = entry_point(game, purpose)[0].rsplit(".", 1)[1]
        return any(CACHE_DIR.glob(f"{game}_*/{module}.{qual}-*.nbi"))


def estimate_seconds(jobs: list[tuple[str, str]], cores: int | None = None) -> float:
    """Rough wall time of compiling ``jobs`` ((game, purpose), one process each) on ``cores``.

    Examples
    --------
    >>> estimate_seconds([("yuanzi", "run"), ("atlas", "run")], cores=2)
    60.0
    >>> estimate_seconds([("yuanzi", "run"), ("atlas", "run")], cores=1)
    95.0
    """
    cores = max(1, cores or os.cpu_count() or 1)
    times = sorted((compile_seconds(g, p) for g, p in jobs), reverse=True)
    if not times:
        return 0.0
    return max(times[0], sum(times) / min(cores, len(times)))


def _about(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(10, round(seconds / 10) * 10):.0f} s"
    return f"about {seconds / 60:.0f} min"


def notice(
    jobs: list[tuple[str, str]], cores: int | None = None, here: tuple[str, str] | None = None
) -> str:
    """The one line said before compiling ``jobs``; ``here`` is the job compiled in this process
    (default: the first), whose split run compile (:func:`compile_split`) adds a side process.

    Examples
    --------
    >>> notice([("yuanzi", "run"), ("atlas", "run")], cores=2)  # doctest: +NORMALIZE_WHITESPACE
    'compiling the kernels of 原子 and ATLAS (first run only; cached for later runs), 3
     processes at once: about 60 s'
    >>> notice([("atlas", "run"), ("yuanzi", "run")], cores=2)  # doctest: +NORMALIZE_WHITESPACE
    'compiling the kernels of ATLAS and 原子 (first run only; cached for later runs), 2
     processes at once: about 60 s'
    """
    kinds = {p for _, p in jobs}
    names = " and ".join(dict.fromkeys(display_name(g) for g, _ in jobs))
    what = {"replay": "replay kernels", "search": "search strategies (pimc, ismcts)"}.get(
        next(iter(kinds)) if len(kinds) == 1 else "", "kernels"
    )
    first = "first replay" if kinds == {"replay"} else "first run"
    here = here or (jobs[0] if jobs else None)
    split = here is not None and here[1] == "run" and getattr(_warmup(here[0]), "split", None)
    processes = len(jobs) + (1 if split else 0)
    at_once = f", {processes} processes at once" if processes > 1 else ""
    return (
        f"compiling the {what} of {names} ({first} only; cached for later runs){at_once}: "
        f"{_about(estimate_seconds(jobs, cores))}"
    )


def notice_for(config: RunConfig, purpose: str = "run") -> str | None:
    """The notice to give before ``config``'s kernels compile, or None if they are cached.

    None for a configuration with user strategies: ``py:`` seats play on the reference engine,
    and a Numba one plays in the driver's user variant, cached once for every user strategy, whose
    compile ``cardsim.sim.user_strategies.driver_for`` announces when (and only when) it happens.
    """
    if user_strategy_files(config):
        return None
    jobs = [(config.game, p) for p in purposes_of(config, purpose) if not is_cached(config.game, p)]
    return notice(jobs) if jobs else None


def compile_here(game: str, purpose: str = "run") -> float:
    """Compile (or load) ``game``'s ``purpose`` kernels in this process; returns seconds."""
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    t = time.perf_counter()
    if purpose == "search":  # the search strategies alone, for the run driver's search table
        importlib.import_module(entry_point(game, "run")[0]).load_search()
        return time.perf_counter() - t
    if purpose == "side":  # the side share of a split first compile (compile_split)
        split = _warmup(game).split
        if split is not None:
            _function(split[0])()
        return time.perf_counter() - t
    engine = get_engine(game)
    config = build_config(engine, games=1, seed=0)
    if purpose == "run":
        engine.play_chunk(config, 0, 1)
    else:
        engine.replay(config, 0)
    return time.perf_counter() - t


def _command(game: str, purpose: str) -> list[str]:
    return [sys.executable, "-m", "cardsim.sim.warmup", game, purpose]


#: How long the driver's process waits for a split compile's side process at most.
SIDE_TIMEOUT_S = 900.0


def compile_split(game: str, command: Callable[[str, str], list[str]] = _command) -> float:
    """Compile ``game``'s run kernels over two processes where its engine declares a split
    (``Warmup.split``) and they are not cached: the side share in a process of its own (purpose
    "side") while this one compiles its own share, then wait for it; the driver compiled next
    loads the side's kernels from the on-disk cache. Returns seconds (0.0: nothing to split).
    A failed side process costs only time: the driver compiles what it did not save."""
    w = _warmup(game)
    if w is None or w.split is None or is_cached(game, "run"):
        return 0.0
    t = time.perf_counter()
    proc = subprocess.Popen(
        command(game, "side"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=Path(__file__).resolve().parents[1],
    )
    stop = functools.partial(_stop, proc)
    atexit.register(stop)  # an interrupted run leaves no compiling process behind
    try:
        _function(w.split[1])()
        proc.wait(timeout=SIDE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pass  # stopped below: the driver compiles what the side did not save
    finally:
        _stop(proc)
        atexit.unregister(stop)
    return time.perf_counter() - t


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Compiling:
    """Kernels being compiled: the first game here (on :meth:`wait`), others in processes."""

    here: list[tuple[str, str]] = field(default_factory=list)
    processes: dict[tuple[str, str], subprocess.Popen] = field(default_factory=dict)
    failed: dict[tuple[str, str], str] = field(default_factory=dict)  # why, per (game, purpose)
    logs: dict = field(default_factory=dict)  # stderr of each process (a temporary file)
    command: Callable[[str, str], list[str]] = _command

    def wait(self, game: str, purpose: str = "run") -> None:
        """Return once ``game``'s ``purpose`` kernels are compiled (compiling them here if due);
        "run" also waits for the game's search strategies, if a configuration needs them."""
        for p in (purpose, "search") if purpose == "run" else (purpose,):
            self._wait(game, p)

    def _wait(self, game: str, purpose: str) -> None:
        key = (game, purpose)
        if key in self.here:
            self.here.remove(key)
            if purpose == "run":
                compile_split(game, self.command)
            compile_here(game, purpose)
        proc = self.processes.pop(key, None)
        if proc is not None:
            proc.wait()
            log = self.logs.pop(key)
            log.seek(0)
            err = log.read()
            log.close()
            if proc.returncode != 0:  # then the runner compiles here, and shows any error itself
                text = err.decode(errors="replace").strip().splitlines()
                self.failed[key] = text[-1] if text else f"exit code {proc.returncode}"

    def close(self) -> None:
        """Stop processes still compiling (an interrupted or failed study)."""
        for proc in self.processes.values():
            _stop(proc)
        self.processes.clear()
        self.here.clear()
        for log in self.logs.values():
            log.close()
        self.logs.clear()

    def __enter__(self) -> Compiling:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start(
    configs: Iterable[RunConfig],
    *,
    purpose: str = "run",
    say: Callable[[str], None] | None = None,
    command: Callable[[str, str], list[str]] = _command,
    cores: int | None = None,
) -> Compiling:
    """Start compiling the uncached built-in kernels ``configs`` need, in the order given.

    The first job of the game of the first configuration compiles here when
    :meth:`Compiling.wait` asks for it; every other job (another game, or the search strategies)
    at once, in a process of its own. ``say`` gets the one notice, before anything compiles.
    Configurations with user strategies use uncached drivers and are left to the runner.
    """
    configs_list = list(configs)
    jobs: list[tuple[str, str]] = []
    for config in configs_list:
        for key in ((config.game, p) for p in purposes_of(config, purpose)):
            if key not in jobs and not user_strategy_files(config) and not is_cached(*key):
                jobs.append(key)
    compiling = Compiling(command=command)
    if not jobs:
        return compiling
    first = next(iter(c.game for c in configs_list))  # the game played first compiles here
    if say is not None:
        here = next((job for job in jobs if job[0] == first), ("", ""))  # ("", ""): none here
        say(notice(jobs, cores, here))
    if len(jobs) > 1 or jobs[0][0] != first:
        atexit.register(compiling.close)  # never leave a compiling process behind
    for game, what in jobs:
        if game == first and not compiling.here:
            compiling.here.append((game, what))
            continue
        # stderr to a file, not a pipe (a chatty compiler must never block); closed by wait/close
        log = tempfile.TemporaryFile()  # noqa: SIM115
        compiling.logs[(game, what)] = log
        compiling.processes[(game, what)] = subprocess.Popen(
            command(game, what),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            cwd=Path(__file__).resolve().parents[1],
        )
    return compiling


def main(argv: list[str] | None = None) -> int:
    """``python -m cardsim.sim.warmup GAME [run|replay|search|side ...]``: compile one game's
    kernels into the cache, the purposes one after another in this process (the later ones reuse
    what the earlier compiled: a game's replay after its run costs a fraction of a separate one;
    "side" is the side share of a split run compile, :func:`compile_split`)."""
    args = sys.argv[1:] if argv is None else argv
    from cardsim.sim.games import GAMES

    if not args or args[0] not in GAMES:
        games = "|".join(GAMES)
        print(
            f"usage: python -m cardsim.sim.warmup {{{games}}} [run|replay|search|side ...]",
            file=sys.stderr,
        )
        return 2
    purposes = args[1:] or ["run"]
    if any(p not in ("run", "replay", "search", "side") for p in purposes):
        print("purpose must be run, replay, search or side", file=sys.stderr)
        return 2
    for purpose in purposes:
        compile_here(args[0], purpose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
