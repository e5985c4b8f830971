"""The game-agnostic runner: chunks → engine → Parquet parts + manifest, resumable.

The run directory's layout, manifest, part files, atomic writes and lock live in
:mod:`cardsim.sim.rundir`. A chunk is a pure function ``(config, first index, count) -> tables``; the
tables of a run depend only on its :class:`~cardsim.sim.game.RunConfig`, never on thread count, chunk
size, worker or interruption.

How a run proceeds (docs/cli.md, "What a run directory guarantees"):

1. everything that can fail before the first game is checked with nothing written: the
   options, the directory (a run is recognised by its validated manifest), the output's
   writability, the Dask scheduler (importable, reachable), the kernels and user strategies
   (compiled by playing one game);
2. the directory is locked (one writer) and created atomically, born with its manifest;
3. each chunk is played in *sub-chunks* of about a second in a worker thread, so the main
   thread answers Ctrl-C / SIGTERM within about a second at any moment, progress advances per
   sub-chunk and a stop rule (``--test``) is evaluated deal by deal within a chunk; the chunk's
   part is the concatenation of its sub-chunks (the same rows as one call);
4. each finished chunk's parts are written atomically, then the manifest records them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
from cardsim.sim import __version__, rundir
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine, RunConfig
from cardsim.sim.games import config_warnings, get_engine
from cardsim.sim.progress import Progress
from cardsim.sim.rundir import (  # noqa: F401  (re-exported: the runner's public names of 0.1)
    MANIFEST,
    TABLES,
    chunk_is_intact,
    part_path,
    plan_chunks,
    read_manifest,
    sha256_of,
    write_manifest,
)

DEFAULT_CHUNK_SIZE = 20_000
MAX_CHUNK_SIZE = 5_000_000  # rows of one chunk are held in memory
MAX_CHUNKS = 1_000_000
#: ``--scheduler local:N``: at most this many worker processes per core (os.cpu_count()).
LOCAL_WORKERS_PER_CORE = 2
#: Seconds of play a sub-chunk aims at (the longest wait for Ctrl-C is one sub-chunk's
#: bookkeeping, not its play: play runs in a worker thread).
SUB_CHUNK_SECONDS = 1.0
FIRST_SUB_CHUNK = 256
#: A sub-chunk with a user strategy that plays this long gets a notice (it may be stuck).
STUCK_NOTICE_SECONDS = 60.0
#: Manifest fields that must match for ``--resume`` (RunConfig.identity() and the stop rule).
IDENTITY_KEYS = (
    "game", "players", "seats", "rules", "seed", "games", "assignments", "strategy_files", "stop",
)  # fmt: skip

#: Called after each finished chunk with the manifest; returns a reason to stop early or None.
#: A rule may also have ``start(out, manifest, before)`` and ``batch(games, seats)`` methods:
#: ``batch`` sees every sub-chunk's rows in game order and returns ``(deals to keep, reason)``
#: at the first deal where it decides (the rest of the chunk is not written), else None.
StopRule = Callable[[dict, Path], str | None]


@dataclass
class RunResult:
    """What a finished (or stopped) run reports back."""

    out: Path
    manifest: dict
    games_done: int  # finished games in the directory
    seconds: float
    compiled_seconds: float = 0.0
    stopped_by: str = "games"
    played: int = 0  # games played by this call (the rest were already done)

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        return html_of(self, f"cardsim run: {self.games_done:,} games", skip=("manifest",))


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a run; the directory is left resumable."""

    def __init__(self, message: str, signum: int = signal.SIGINT) -> None:
        super().__init__(message)
        self.message, self.signum = message, signum


# --- planning ----------------------------------------------------------------------------------


def new_manifest(config: RunConfig, chunk_size: int, extra: dict | None = None) -> dict:
    return {
        "format": rundir.FORMAT,
        "manifest_version": rundir.MANIFEST_VERSION,
        "cardsim_version": __version__,
        **config.identity(),
        "chunk_size": chunk_size,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "status": "running",
        "stopped_by": None,
        **(extra or {}),
        "chunks": plan_chunks(config.games, chunk_size),
    }


def config_from_manifest(manifest: dict) -> RunConfig:
    """Rebuild the :class:`RunConfig` a manifest was written for."""
    try:
        return RunConfig(
            game=manifest["game"],
            players=int(manifest["players"]),
            seats=tuple(manifest["seats"]),
            rules=dict(manifest["rules"]),
            seed=int(manifest["seed"]),
            games=int(manifest["games"]),
            assignments=tuple(tuple(a) for a in manifest.get("assignments") or ()),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise CardsimError(f"manifest is missing or has a bad field: {e}") from None


def _describe_mismatch(old: dict, new: dict) -> str:
    diffs = [k for k in {**old, **new} if old.get(k) != new.get(k)]
    parts = [f"{k}: run has {old.get(k)!r}, you asked for {new.get(k)!r}" for k in diffs]
    return "; ".join(parts)


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def same_run(manifest: dict, config: RunConfig, extra: dict | None) -> dict:
    """(have, want) of the identity fields; equal when ``manifest`` is ``config``'s run."""
    ident = {**config.identity(), "stop": (extra or {}).get("stop")}
    want = {k: ident.get(k) for k in IDENTITY_KEYS}
    have = {k: manifest.get(k) for k in IDENTITY_KEYS}
    return {"have": have, "want": want}


def _again(command: str) -> str:
    if command == "tune":  # tune has no --resume: the same command resumes (issue 19)
        return "run the same cardsim tune command again: finished rungs are reused"
    if command in ("study", "ladder"):  # the study's or the ladder's own sub-run
        return f"run the {command} again"
    return "use --resume"


def check_directory(
    out: Path,
    config: RunConfig,
    chunk_size: int | None,
    *,
    resume: bool,
    force: bool,
    extra: dict | None = None,
    command: str = "run",
) -> tuple[dict, str]:
    """Check ``out`` without writing anything.

    Returns (the manifest to work from, mode): ``"new"`` (no run there: ``out`` is missing or
    vacant), ``"resume"`` (the same run, to complete) or ``"replace"`` (``force`` over a run).
    """
    out = Path(out)
    occupied = _occupied(out, resume, force)
    if occupied and (resume or force) and not (out / MANIFEST).is_file():
        raise CardsimError(
            f"{'--force' if force else '--resume'}: {out} is not a cardsim run directory "
            f"(no {MANIFEST}); refusing to touch anything there"
        )
    if occupied and resume:
        return _resume_manifest(out, config, chunk_size, extra), "resume"
    if occupied and not force:
        raise CardsimError(
            f"--out {out} is not empty; {_again(command)} to complete that run or --force "
            "to replace it"
        )
    if occupied:  # --force: only over a directory that really is a cardsim run
        try:  # a validated manifest (a 0.1 one, without the format marker, too)
            read_manifest(out)
        except CardsimError as e:
            raise CardsimError(f"--force: {e}; refusing to delete anything there") from None
    _check_writable(out)
    mode = "replace" if occupied else "new"
    return new_manifest(config, chunk_size or DEFAULT_CHUNK_SIZE, extra), mode


def _occupied(out: Path, resume: bool, force: bool) -> bool:
    """``out`` holds something (it is a directory, with no linked tables, and not vacant)."""
    try:
        if out.exists() and not out.is_dir():
            raise CardsimError(f"--out {out}: exists and is not a directory")
        if out.is_dir():  # never through a linked games/ or seats/ (docs/cli.md)
            rundir.check_tables(out, "--force" if force else "--resume" if resume else "--out")
        return out.is_dir() and not rundir.is_vacant(out)
    except OSError as e:
        raise rundir.os_error(e, out, "cannot use") from None


def _resume_manifest(out: Path, config: RunConfig, chunk_size: int | None, extra) -> dict:
    """The manifest of the run in ``out``, checked to be ``config``'s run and completable."""
    manifest = read_manifest(out)
    if manifest.get("format") != rundir.FORMAT:
        raise CardsimError(
            f"--resume: {out} was written by cardsim {manifest.get('cardsim_version') or '0.1'}"
            " (output schema v1), which this version cannot complete; use --force to run it "
            "afresh"
        )
    ident = same_run(manifest, config, extra)
    if ident["have"] != ident["want"]:
        raise CardsimError(
            f"--resume: {out} holds a different run "
            f"({_describe_mismatch(ident['have'], ident['want'])})"
        )
    if chunk_size is not None and manifest.get("chunk_size") != chunk_size:
        raise CardsimError(
            f"--resume: {out} was run with --chunk-size {manifest.get('chunk_size')}, "
            f"not {chunk_size}"
        )
    rundir.check_plan(manifest, out / MANIFEST)
    return manifest


def _check_writable(out: Path) -> None:
    """``out``, or its nearest existing parent, is a directory this process may write in."""
    base = out if out.is_dir() else _nearest_existing(out)
    if not base.is_dir():
        raise CardsimError(f"--out {out}: cannot write there ({base} is not a directory)")
    if not os.access(base, os.W_OK | os.X_OK):
        raise CardsimError(f"--out {out}: cannot write there (permission denied on {base})")


# --- the kernel thread -------------------------------------------------------------------------


class KernelThread:
    """Runs engine calls in one long-lived daemon thread, so the main thread can react to
    Ctrl-C / SIGTERM while a (nogil) Numba kernel runs, and a hung user strategy can be left
    behind when the process exits."""

    def __init__(self, threads: int) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.busy_since: float | None = None
        self.what = ""
        self._thread = threading.Thread(
            target=self._loop, args=(threads,), name="cardsim-kernel", daemon=True
        )
        self._thread.start()

    def _loop(self, threads: int) -> None:
        import numba

        numba.set_num_threads(threads)  # thread-local in Numba: set it where kernels run
        while True:
            job = self.jobs.get()
            if job is None:
                return
            fn, args, box, done = job
            try:
                box["value"] = fn(*args)
            except BaseException as e:  # handed to the main thread
                box["error"] = e
            finally:
                done.set()

    def call(self, what: str, fn, *args, slow: tuple[float, Callable[[float], None]] | None = None):
        """``fn(*args)`` in the kernel thread; ``slow = (seconds, notify)`` calls
        ``notify(elapsed)`` once if the call takes longer than that."""
        box: dict = {}
        done = threading.Event()
        self.busy_since, self.what = time.monotonic(), what
        self.jobs.put((fn, args, box, done))
        while not done.wait(0.05):  # the main thread stays responsive to signals
            if slow is not None and time.monotonic() - self.busy_since > slow[0]:
                slow[1](time.monotonic() - self.busy_since)
                slow = None
        self.busy_since = None
        if "error" in box:
            raise box["error"]
        return box["value"]

    def close(self) -> None:
        if self.busy_since is None:
            self.jobs.put(None)


_ACTIVE: list[KernelThread] = []


@contextlib.contextmanager
def kernel_thread(threads: int) -> Iterator[KernelThread]:
    """A :class:`KernelThread` for the calls of a command other than ``run`` (``strategy
    check``): Ctrl-C reaches the main thread while a kernel, or a user strategy that never
    returns, plays (issue 45 item 12); the CLI then exits without waiting for it."""
    kernel = KernelThread(threads)
    _ACTIVE.append(kernel)
    try:
        yield kernel
    finally:
        _release(kernel)


def _release(kernel: KernelThread) -> None:
    """Close ``kernel``'s thread; one still busy (a strategy stuck in a loop after Ctrl-C)
    stays in ``_ACTIVE``, so that :func:`kernel_busy` tells the CLI not to wait for it."""
    kernel.close()
    if kernel.busy_since is None:
        _ACTIVE.remove(kernel)


def kernel_busy() -> bool:
    """True while a kernel thread of this process is still playing (e.g. after Ctrl-C)."""
    return any(k.busy_since is not None for k in _ACTIVE)


def _users(config: RunConfig) -> list[str]:
    from cardsim.sim.config import is_user_strategy

    return sorted(
        {
            s.rsplit("@", 1)[0] if "@" in s.rsplit(":", 1)[-1] else s
            for a in (config.assignments or (config.seats,))
            for s in a
            if is_user_strategy(s.rsplit("@", 1)[0])
        }
    )


def _innermost(e: BaseException) -> BaseException:
    """The exception a user raised, under Numba/CPython wrappers ("returned a result with an
    exception set")."""
    seen, cur, best = set(), e, e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if not (isinstance(cur, SystemError) and "exception set" in str(cur)):
            best = cur
        cur = cur.__cause__ or cur.__context__
    return best


def _lost_message(e: BaseException) -> bool:
    """Whether the chain hides a user's exception under "returned a result with an exception
    set" (a CardsimError the engine made from it carries that text instead of the user's)."""
    seen, cur = set(), e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, SystemError) and "exception set" in str(cur):
            return _innermost(e) is not e
        cur = cur.__cause__ or cur.__context__
    return False


def _strategy_error(e: BaseException, users: list[str], when: str) -> CardsimError:
    inner = _innermost(e)
    if isinstance(inner, SystemExit):
        return CardsimError(
            f"user strategy {', '.join(users)} called sys.exit({inner.code!r}) {when}"
        )
    text = str(inner).strip() or "(no message)"
    # the CLI shows the first line and the place in the user's file (cardsim.cli.one_line)
    return CardsimError(
        f"user strategy {', '.join(users)} failed {when}: {type(inner).__name__}: {text}"
    )


# --- Dask --------------------------------------------------------------------------------------


def remote_chunk(
    game: str, duplicate: bool, config: RunConfig, first: int, count: int
) -> tuple[pl.DataFrame, pl.DataFrame, float]:
    """What a Dask worker runs: the same pure chunk function, with the engine looked up there."""
    engine = get_engine(game)
    if duplicate:
        from cardsim.sim.compare import DuplicateEngine

        engine = DuplicateEngine(engine)
    start = time.perf_counter()
    games, seats = engine.play_chunk(config, first, count)
    return games, seats, time.perf_counter() - start


def check_scheduler(scheduler: str | None) -> None:
    """Reject a malformed ``--scheduler`` before anything is written."""
    if scheduler is None:
        return
    if scheduler.startswith("local:"):
        n = scheduler.split(":", 1)[1]
        if not (n.isascii() and n.isdigit()) or int(n) < 1:
            raise CardsimError(f"--scheduler {scheduler}: expected local:N with N >= 1 workers")
        cores = os.cpu_count() or 1
        if int(n) > LOCAL_WORKERS_PER_CORE * cores:
            raise CardsimError(
                f"--scheduler {scheduler}: at most {LOCAL_WORKERS_PER_CORE * cores} local workers "
                f"on this machine ({LOCAL_WORKERS_PER_CORE} per core, {cores} cores); more only "
                "compete for the cores and memory (one worker plays one chunk at a time)"
            )
    elif "://" not in scheduler and ":" not in scheduler:
        raise CardsimError(
            f"--scheduler {scheduler}: expected local:N or a scheduler address like tcp://host:8786"
        )


def connect(scheduler: str):
    """A Dask client (and the LocalCluster it owns, or None): checked before anything is
    written, so a missing dask or an unreachable scheduler leaves nothing behind."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise CardsimError(
            "--scheduler needs dask.distributed: pip install 'cardsim[cluster]'"
        ) from None
    if scheduler.startswith("local:"):
        workers = int(scheduler.split(":", 1)[1])
        try:
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                silence_logs=logging.CRITICAL,  # no worker log lines when a stop closes the cluster
                # the scheduler's HTTP server on a free port: on 8787 (distributed's default) a
                # busy port printed a "Port 8787 is already in use" warning into cardsim's stderr
                scheduler_kwargs={"dashboard_address": ":0"},
            )  # fmt: skip
        except Exception as e:
            raise CardsimError(f"--scheduler {scheduler}: cannot start the cluster ({e})") from None
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout=10), None
    except (OSError, TimeoutError, ValueError) as e:
        raise CardsimError(f"--scheduler {scheduler}: cannot connect ({e})") from None


class ClusterSession:
    """One open ``--scheduler`` shared by several runs (a study's scenarios, a ladder's
    sub-runs, a tune's rungs): one connection, one LocalCluster for ``local:N``. Made by
    :func:`cluster_session`; :func:`run` takes it as its ``scheduler`` and leaves it open."""

    def __init__(self, scheduler: str, client, cluster) -> None:
        self.scheduler, self.client, self.cluster = scheduler, client, cluster

    def close(self) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                with contextlib.suppress(Exception):
                    thing.close()


@contextlib.contextmanager
def cluster_session(scheduler: str | ClusterSession | None) -> Iterator[ClusterSession | None]:
    """``--scheduler`` opened once for several runs (checked and connected before anything is
    written, as :func:`run` does for one run); ``None`` yields ``None`` (play here), an open
    session is passed through (and left open)."""
    if scheduler is None or isinstance(scheduler, ClusterSession):
        yield scheduler
        return
    check_scheduler(scheduler)
    with _signals_interrupt(), _signals_wait_for_cluster():
        client, cluster = connect(scheduler)
    session = ClusterSession(scheduler, client, cluster)
    try:
        yield session
    finally:
        session.close()


#: Set while a LocalCluster starts: its worker processes ignore SIGINT (sim/__init__.py).
CLUSTER_WORKER_ENV = "CARDSIM_CLUSTER_WORKER"


@contextlib.contextmanager
def _signals_wait_for_cluster():
    """While a Dask cluster starts, Ctrl-C and SIGTERM wait (a few seconds) and are answered
    once it exists, so it is closed rather than left half-started (a traceback at exit; a
    second signal does not wait). The worker processes started now ignore SIGINT: a
    terminal's Ctrl-C reaches the whole process group, and this process stops them itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []

    def held(signum, frame):
        got.append(signum)
        if len(got) > 1:  # pressed again: do not wait for a cluster that may never start
            raise RunInterrupted("interrupted while the Dask cluster started", got[0])

    old = {s: signal.signal(s, held) for s in (signal.SIGINT, signal.SIGTERM)}
    os.environ[CLUSTER_WORKER_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(CLUSTER_WORKER_ENV, None)
        for s, handler in old.items():
            signal.signal(s, handler)
    if got:
        raise RunInterrupted("terminated" if got[0] == signal.SIGTERM else "interrupted", got[0])


def _cluster_results(engine, config, todo, client) -> Iterator:
    """Chunks run on a Dask cluster, yielded in chunk order (so stopping is reproducible)."""
    from cardsim.sim.compare import DuplicateEngine

    duplicate = isinstance(engine, DuplicateEngine)
    window = max(2, 2 * len(client.scheduler_info().get("workers", {})))
    pending: dict = {}
    next_submit = 0
    try:
        for i, chunk in enumerate(todo):
            while next_submit < len(todo) and next_submit < i + window:
                c = todo[next_submit]
                pending[next_submit] = client.submit(
                    remote_chunk, config.game, duplicate, config, c["first"], c["count"],
                    pure=False,
                )  # fmt: skip
                next_submit += 1
            future = pending.pop(i)
            # poll done() (a local check), so Ctrl-C is answered while the cluster works;
            # result(timeout=...) can end in distributed's own UnboundLocalError under load
            while not future.done():
                time.sleep(0.05)
            games, seats, seconds = future.result()
            yield chunk, [(chunk["first"], chunk["count"], games, seats)], seconds
    finally:
        for f in pending.values():
            f.cancel()


# --- playing -----------------------------------------------------------------------------------


def _local_results(engine, config, todo, kernel: KernelThread, bar) -> Iterator:
    """Chunks played here in sub-chunks (each about SUB_CHUNK_SECONDS of play)."""
    sub = FIRST_SUB_CHUNK
    users = _users(config)
    for chunk in todo:
        first, end = chunk["first"], chunk["first"] + chunk["count"]
        pieces, seconds = [], 0.0
        at = first
        while at < end:
            n = min(sub, end - at)
            t = time.perf_counter()
            slow = None
            if users:  # a sub-chunk is about a second of play: a minute means a stuck strategy

                def notify(elapsed, at=at, n=n):
                    bar.message(
                        f"games {at}..{at + n - 1} have been playing for {elapsed:.0f} s (about "
                        f"{SUB_CHUNK_SECONDS:.0f} s expected) with user strategy "
                        f"{', '.join(users)}; if it never returns, press Ctrl-C (the run resumes)"
                    )

                slow = (STUCK_NOTICE_SECONDS, notify)
            games, seats = kernel.call(
                f"games {at}..{at + n - 1}", engine.play_chunk, config, at, n, slow=slow
            )
            dt = time.perf_counter() - t
            seconds += dt
            pieces.append((at, n, games, seats))
            at += n
            yield_piece = yield ("piece", chunk, pieces[-1])
            if yield_piece == "stop":
                break
            sub = max(16, min(MAX_CHUNK_SIZE, int(n * SUB_CHUNK_SECONDS / max(dt, 1e-3))))
        yield ("chunk", chunk, pieces, seconds)


def _concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    df = frames[0] if len(frames) == 1 else pl.concat(frames)
    if len(frames) > 1 and "assignment" in df.columns:  # a comparison's chunk is assignment-major
        df = df.sort("assignment", maintain_order=True)
    return df


def write_chunk(
    out: Path,
    manifest: dict,
    chunk: dict,
    games: pl.DataFrame,
    seats: pl.DataFrame,
    seconds: float,
    played: int | None = None,
) -> dict:
    """Write one chunk's parts atomically; returns the chunk's finished manifest entry."""
    entry = {**chunk, "rows": {}, "sha256": {}}
    entry.pop("played", None)
    n = played if played is not None else chunk["count"]
    for table, df in zip(TABLES, (games, seats), strict=True):
        data = rundir.parquet_bytes(df, rundir.part_metadata(manifest, table, chunk, n))
        entry["sha256"][table] = rundir.write_part(part_path(out, table, chunk["index"]), data)
        entry["rows"][table] = df.height
    if played is not None and played < chunk["count"]:
        entry["played"] = played
    entry["status"] = "done"
    entry["seconds"] = round(seconds, 3)
    return entry


def set_threads(threads: int | None) -> int:
    """Check Numba's thread count (``None``: all cores); returns the count to use."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = limit
    if not 1 <= threads <= limit:
        raise CardsimError(f"--threads must be 1..{limit} on this machine, got {threads}")
    numba.set_num_threads(threads)
    return threads


def make_progress(total: int, done: int, label: str, enabled: bool, unit: str = "games"):
    """The progress display (cardsim.sim.progress) counting ``unit`` (games, or deals for comparisons)."""
    return Progress(total, done, label, enabled, unit=unit)


@contextlib.contextmanager
def _signals_interrupt():
    """SIGTERM raises :class:`RunInterrupted` in the main thread (as Ctrl-C does)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        raise RunInterrupted("terminated", signal.SIGTERM)

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run(
    config: RunConfig,
    out: Path | str,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    stop_rule: StopRule | None = None,
    extra_manifest: dict | None = None,
    engine: GameEngine | None = None,
    scheduler: str | ClusterSession | None = None,
    unit: str | None = None,
    command: str = "run",
) -> RunResult:
    """Play ``config`` into the run directory ``out``.

    ``scheduler``: ``None`` plays chunks here; ``"local:N"`` starts a Dask cluster of N worker
    processes; any other value is the address of a running Dask scheduler; a
    :class:`ClusterSession` (:func:`cluster_session`) is an open one, shared with other runs. The tables are the
    same in every case: chunks are committed in order. ``chunk_size`` defaults to
    ``DEFAULT_CHUNK_SIZE`` for a new run and to the manifest's for ``resume``. With a
    ``stop_rule``, ``extra_manifest["stop"]`` should describe it: ``--resume`` checks it.
    ``unit`` names what the progress display counts (default ``games``, ``deals`` for a
    comparison).

    Examples
    --------
    >>> from cardsim.sim.config import build_config
    >>> from cardsim.sim.games import get_engine
    >>> cfg = build_config(get_engine("yuanzi"), games=1000, seed=1)
    >>> result = run(cfg, "runs/demo", progress=False)  # doctest: +SKIP
    """
    _check_chunking(config, chunk_size)
    if resume and force:  # issue 45 item 12: the pair silently resumed
        raise CardsimError(
            "--force and --resume do not go together: --resume completes the run in --out, "
            "--force replaces it; give one"
        )
    engine = engine or get_engine(config.game)
    out = Path(out)
    n_threads = set_threads(threads)
    shared = scheduler if isinstance(scheduler, ClusterSession) else None
    if shared is None:
        check_scheduler(scheduler)
    kw = {"resume": resume, "force": force, "extra": extra_manifest, "command": command}
    manifest, mode = check_directory(out, config, chunk_size, **kw)
    for text in config_warnings(config) if progress else ():  # the game's hook (AT-D1, …)
        print(f"cardsim: warning: {text}", file=sys.stderr, flush=True)
    if mode == "resume" and _nothing_to_do(out, manifest):
        return RunResult(
            out, manifest, rundir.games_done(manifest), 0.0,
            stopped_by=manifest.get("stopped_by") or "games",
        )  # fmt: skip
    with _signals_interrupt():
        client = cluster = None
        kernel = KernelThread(n_threads)
        _ACTIVE.append(kernel)
        lock = None
        try:
            if shared is not None:  # opened by the caller (cluster_session), left open
                client = shared.client
            elif scheduler is not None:  # reachable before anything is written
                with _signals_wait_for_cluster():
                    client, cluster = connect(scheduler)
            compiled = _warm_up(engine, config, _Messages(progress), kernel)
            lock, manifest = _take_directory(out, config, chunk_size, mode, kw)
            unit = unit or ("deals" if config.assignments else "games")  # a comparison: deals
            bar = (config.games, config.game, progress, unit)
            return _play(
                out, manifest, config, engine, kernel, client, bar, stop_rule, n_threads, compiled
            )
        except KeyboardInterrupt as e:
            raise _interrupted(e, config, kernel, out, lock is not None, command) from None
        finally:
            _let_go(lock, kernel, client if shared is None else None, cluster)


def _check_chunking(config: RunConfig, chunk_size: int | None) -> None:
    """``chunk_size`` is a positive integer of at most MAX_CHUNK_SIZE, and the run has at most
    MAX_CHUNKS chunks."""
    if chunk_size is not None and (
        not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size <= 0
    ):
        raise CardsimError(f"--chunk-size must be a positive integer, got {chunk_size!r}")
    if chunk_size is not None and chunk_size > MAX_CHUNK_SIZE:
        raise CardsimError(f"--chunk-size must be at most {MAX_CHUNK_SIZE:,}, got {chunk_size:,}")
    size = chunk_size or DEFAULT_CHUNK_SIZE
    if -(-config.games // size) > MAX_CHUNKS:
        raise CardsimError(
            f"--games {config.games:,} in chunks of {size:,} makes more than {MAX_CHUNKS:,} "
            "chunks; raise --chunk-size"
        )


def _interrupted(
    e: KeyboardInterrupt, config: RunConfig, kernel: KernelThread, out: Path, locked: bool,
    command: str,
) -> RunInterrupted:  # fmt: skip
    """The message of a run stopped by a signal: what was playing, and what is left in ``out``."""
    users = _users(config)
    what = f" while playing {kernel.what}" if kernel.busy_since is not None else ""
    hint = ""
    if users and kernel.busy_since is not None:
        hint = (
            f" with user strategy {', '.join(users)} (busy for "
            f"{time.monotonic() - kernel.busy_since:.0f} s: if it never returns, "
            "it may be stuck in a loop)"
        )
    signum = e.signum if isinstance(e, RunInterrupted) else signal.SIGINT
    state = f"{out} is resumable ({_again(command)})" if locked else f"nothing was written to {out}"
    return RunInterrupted(
        f"{'terminated' if signum == signal.SIGTERM else 'interrupted'}{what}{hint}; {state}",
        signum,
    )


def _let_go(lock, kernel: KernelThread, client, cluster) -> None:
    """Release the run's lock, kernel thread, and the client and cluster it opened itself."""
    if lock is not None:
        lock.release()
    _release(kernel)
    if client is not None:
        with contextlib.suppress(Exception):
            client.close()
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close()


class _Messages:
    """Progress-style messages before the progress display exists (while compiling)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def message(self, text: str) -> None:
        if self.enabled:
            print(f"cardsim: {text}", file=sys.stderr, flush=True)


def finished_and_intact(out: Path, manifest: dict) -> bool:
    """A finished run (or one stopped by its rule) whose manifest matches its plan and whose
    finished parts are all intact (rows + sha256): what ``--resume`` and a study's reuse
    accept without playing."""
    if manifest.get("status") != "complete":
        return False
    try:
        rundir.check_plan(manifest, Path(out) / MANIFEST)
    except CardsimError:
        return False
    return all(
        chunk_is_intact(out, c, manifest) for c in manifest["chunks"] if c.get("status") == "done"
    )


def extend_run(out: Path | str, games: int) -> dict:
    """Grow a finished run to ``games`` games: the manifest plans the chunks of games
    ``manifest["games"] .. games - 1`` (pending) after the finished ones, so that
    :func:`run` with ``resume`` plays only those. The grown run is the run of ``games`` games
    from scratch (each game depends only on the root seed and its index; parts do not record
    the total): the old games must fill whole chunks (a multiple of ``chunk_size``). Used by
    ``cardsim ladder --until-decided`` (each look a new range of game indices). Returns the
    new manifest; a run already of ``games`` games is left as it is."""
    out = Path(out)
    manifest = read_manifest(out)
    have, size = int(manifest["games"]), int(manifest["chunk_size"])
    if games == have:
        return manifest
    if games < have:
        raise CardsimError(f"{out}: holds {have:,} games, more than the {games:,} asked for")
    if not finished_and_intact(out, manifest) or manifest.get("stopped_by") not in (None, "games"):
        raise CardsimError(f"{out}: only a finished, intact run can be extended; run it again")
    if have % size:
        raise CardsimError(
            f"{out}: {have:,} games are not whole chunks of {size:,}; cannot extend it"
        )
    lock = rundir.RunLock.acquire(out)
    try:
        plan = plan_chunks(games, size)
        manifest = {
            **manifest, "games": games, "status": "running", "stopped_by": None,
            "chunks": [*manifest["chunks"], *plan[len(manifest["chunks"]) :]],
        }  # fmt: skip
        rundir.check_plan(manifest, out / MANIFEST)
        write_manifest(out, manifest)
    finally:
        lock.release()
    return manifest


def _nothing_to_do(out: Path, manifest: dict) -> bool:
    if not finished_and_intact(out, manifest):
        return False
    stopped = manifest.get("stopped_by") not in (None, "games")
    return stopped or all(c.get("status") == "done" for c in manifest["chunks"])


def _take_directory(out: Path, config: RunConfig, chunk_size, mode: str, kw: dict):
    """Lock ``out`` (creating it for a new run) and return (lock, manifest to work from)."""
    if mode == "new":
        manifest, _ = check_directory(out, config, chunk_size, **kw)
        return rundir.create(out, manifest), manifest
    lock = rundir.RunLock.acquire(out)
    try:  # check again under the lock: another writer may have finished meanwhile
        manifest, mode_now = check_directory(out, config, chunk_size, **kw)
        if mode_now != mode:
            raise CardsimError(f"--out {out}: another process changed it meanwhile")
        rundir.clean_temporaries(out)
        if mode == "replace":  # the new manifest first: a crash now leaves a resumable run
            rundir.write_manifest(out, manifest)
            rundir.clear_run(out)
    except BaseException:
        lock.release()
        raise
    return lock, manifest


def _play(out, manifest, config, engine, kernel, client, bar, stop_rule, n_threads, compiled):
    """Play the chunks still to play into ``out``, committing each in order (until the stop
    rule decides); the manifest says the run's state after each."""
    chunks = manifest["chunks"]
    within = stop_rule is not None and hasattr(stop_rule, "batch")
    todo, done_before = _chunks_to_play(out, manifest, stop_rule, within)
    result = RunResult(out, manifest, done_before, 0.0, compiled_seconds=compiled)
    total, label, enabled, unit = bar
    bar = make_progress(
        total, done_before, label, enabled, unit
    )  # after compiling: rates count play
    manifest["status"], manifest["stopped_by"] = "running", None
    manifest["threads"] = n_threads
    write_manifest(out, manifest)
    t0 = time.perf_counter()
    commit = functools.partial(_commit, out, manifest, stop_rule=stop_rule, result=result)
    try:
        with _user_strategy_errors(config):
            if client is None:
                source = _local_results(engine, config, todo, kernel, bar)
                stopped_by = _commit_local(source, commit, bar, stop_rule if within else None)
                source.close()
            else:
                source = _cluster_results(engine, config, todo, client)
                stopped_by = _commit_cluster(source, commit, bar, stop_rule if within else None)
    finally:
        bar.close()
    finished = all(c.get("status") == "done" for c in chunks)
    manifest["status"] = "complete" if finished or stopped_by != "games" else "running"
    manifest["stopped_by"] = stopped_by
    manifest["games_done"] = rundir.games_done(manifest)
    write_manifest(out, manifest)
    result.seconds = time.perf_counter() - t0
    result.stopped_by = stopped_by
    return result


def _chunks_to_play(out: Path, manifest: dict, stop_rule, within: bool) -> tuple[list, int]:
    """(the chunks to play, games done in the others); the chunks to play are marked pending.
    A rule ``within`` chunks starts on the games before the first chunk to play."""
    chunks = manifest["chunks"]
    intact = [chunk_is_intact(out, c, manifest) for c in chunks]
    if within:  # a sequential rule sees deals in order: redo everything after the first gap
        gap = next((i for i, ok in enumerate(intact) if not ok), len(chunks))
        todo = chunks[gap:]
        stop_rule.start(out, manifest, chunks[:gap])
    else:
        todo = [c for c, ok in zip(chunks, intact, strict=True) if not ok]
    todo_ids = {c["index"] for c in todo}
    done_before = sum(rundir.chunk_games(c) for c in chunks if c["index"] not in todo_ids)
    for c in todo:  # the manifest says only what is on disk
        chunks[c["index"]] = {k: c[k] for k in ("index", "first", "count")} | {"status": "pending"}
    return todo, done_before


@contextlib.contextmanager
def _user_strategy_errors(config: RunConfig) -> Iterator[None]:
    """An error while playing names the user strategies that may have caused it."""
    try:
        yield
    except CardsimError as e:
        users = _users(config)
        if users and _lost_message(e):
            raise _strategy_error(e, users, "while playing") from None
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as e:
        users = _users(config)
        if users:
            raise _strategy_error(e, users, "while playing") from None
        raise


def _cut(piece: tuple, keep: int) -> tuple:
    """A played piece (first game, count, games, seats) cut to its first ``keep`` games."""
    at, _, games, seats = piece
    end = at + keep
    return at, keep, games.filter(pl.col("game") < end), seats.filter(pl.col("game") < end)


def _commit_local(source, commit, bar, rule) -> str:
    """Commit the chunks a local player yields (pieces as they finish, then each chunk); a
    sequential ``rule`` sees every piece and may stop the run inside one. The stop reason
    (the caller closes ``source``)."""
    event = next(source, None)
    while event is not None:
        if event[0] == "piece":
            _, chunk, (_, n, games, seats) = event
            decided = rule.batch(games, seats) if rule is not None else None
            if decided:
                keep, reason = decided
                _, chunk, pieces, seconds = source.send("stop")
                pieces[-1] = _cut(pieces[-1], keep)
                bar.advance(keep)
                commit(chunk, pieces, seconds, decided=reason)
                return reason
            bar.advance(n)
        else:
            _, chunk, pieces, seconds = event
            reason = commit(chunk, pieces, seconds, decided=None)
            if reason:
                return reason
        event = next(source, None)
    return "games"


def _commit_cluster(source, commit, bar, rule) -> str:
    """Commit the chunks a cluster returns, in order; a sequential ``rule`` sees each chunk
    (one piece) and may stop the run inside it. The stop reason."""
    try:
        for chunk, pieces, seconds in source:
            if rule is not None:
                _, _, games, seats = pieces[0]
                decided = rule.batch(games, seats)
                if decided:
                    keep, reason = decided
                    bar.advance(keep)
                    commit(chunk, [_cut(pieces[0], keep)], seconds, decided=reason)
                    return reason
            bar.advance(chunk["count"])
            reason = commit(chunk, pieces, seconds, decided=None)
            if reason:
                return reason
        return "games"
    finally:  # now, while the client is open: it cancels the futures still pending
        source.close()


def _commit(out, manifest, chunk, pieces, seconds, *, stop_rule, result, decided) -> str | None:
    """Write a chunk's parts, then record it (and a stop) in one manifest write."""
    games = _concat([p[2] for p in pieces])
    seats = _concat([p[3] for p in pieces])
    played = sum(p[1] for p in pieces)
    entry = write_chunk(out, manifest, chunk, games, seats, seconds, played)
    manifest["chunks"][chunk["index"]] = entry
    reason = stop_rule(manifest, out) if stop_rule is not None else None
    reason = decided or reason
    if reason:  # recorded in the same manifest write as the chunk (no window)
        manifest["status"], manifest["stopped_by"] = "complete", reason
        manifest["games_done"] = rundir.games_done(manifest)
    write_manifest(out, manifest)
    result.games_done += played
    result.played += played
    return reason


def _warm_up(engine: GameEngine, config: RunConfig, bar, kernel: KernelThread) -> float:
    """Play one game so kernels compile (or load from cache) before anything is written."""
    from cardsim.sim.warmup import compile_split, notice_for

    text = notice_for(config)  # what compiles and roughly how long, once, before compiling
    if text:
        bar.message(text)
    t = time.perf_counter()
    try:
        if text:  # part of the driver's callees on a second core, where the game splits them
            kernel.call("compiling", compile_split, config.game)
        kernel.call("game 0 (compiling and playing it)", engine.play_chunk, config, 0, 1)
    except KeyboardInterrupt:
        raise
    except CardsimError as e:
        users = _users(config)
        if users and _lost_message(e):
            raise _strategy_error(e, users, "in game 0") from None
        raise
    except BaseException as e:
        users = _users(config)
        if not users:
            raise
        raise _strategy_error(e, users, "to compile or run") from None
    seconds = time.perf_counter() - t
    if seconds > 2.0:
        bar.message(f"kernels ready in {seconds:.1f} s")
    return seconds
