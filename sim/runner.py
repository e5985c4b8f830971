"""The game-agnostic runner: chunks → engine → Parquet parts + manifest, resumable.

Layout of a run directory::

    DIR/manifest.json              configuration, per-chunk status, rows, sha256, seconds
    DIR/games/part-NNNNN.parquet   one row per game (per round for ATLAS)
    DIR/seats/part-NNNNN.parquet   one row per game x seat

A chunk is a pure function ``(config, first index, count) -> tables``; the tables of a run
depend only on its :class:`~sim.game.RunConfig`, never on thread count, chunk size, worker or
interruption. Every file is written to a temporary name and renamed into place, so a killed
run leaves only complete parts, which ``--resume`` verifies (rows + sha256) and keeps.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from sim import __version__
from sim.errors import CardsimError
from sim.game import GameEngine, RunConfig
from sim.games import get_engine
from sim.progress import Progress

MANIFEST = "manifest.json"
TABLES = ("games", "seats")
DEFAULT_CHUNK_SIZE = 20_000
MAX_CHUNK_SIZE = 5_000_000  # rows of one chunk are held in memory
MAX_CHUNKS = 1_000_000
#: Manifest fields that must match for ``--resume`` (RunConfig.identity() and the stop rule).
IDENTITY_KEYS = (
    "game", "players", "seats", "rules", "seed", "games", "assignments", "strategy_files", "stop",
)  # fmt: skip

#: Called after each finished chunk with the manifest; returns a reason to stop early or None.
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


# --- files -------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def atomic_write_parquet(df: pl.DataFrame, path: Path) -> None:
    """Write a Parquet file atomically (temporary file + rename)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    df.write_parquet(tmp, compression="zstd", statistics=True)
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def write_manifest(out: Path, manifest: dict) -> None:
    atomic_write_bytes(out / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False).encode())


def read_manifest(out: Path) -> dict:
    """Load ``DIR/manifest.json``; raises :class:`CardsimError` if missing or unreadable."""
    path = Path(out) / MANIFEST
    if not path.is_file():
        raise CardsimError(f"{out}: not a cardsim run directory (no {MANIFEST})")
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CardsimError(f"{path}: unreadable manifest ({e})") from None


def part_path(out: Path, table: str, chunk: int) -> Path:
    return out / table / f"part-{chunk:05d}.parquet"


def parquet_rows(path: Path) -> int:
    return int(pl.scan_parquet(path).select(pl.len()).collect().item())


# --- planning ----------------------------------------------------------------------------------


def plan_chunks(games: int, chunk_size: int) -> list[dict]:
    """Cut ``range(games)`` into chunks of ``chunk_size`` (the last one shorter)."""
    return [
        {"index": i, "first": first, "count": min(chunk_size, games - first), "status": "pending"}
        for i, first in enumerate(range(0, games, chunk_size))
    ]


def new_manifest(config: RunConfig, chunk_size: int, extra: dict | None = None) -> dict:
    return {
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
            assignments=tuple(tuple(a) for a in manifest.get("assignments", ())),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise CardsimError(f"manifest is missing or has a bad field: {e}") from None


def chunk_is_intact(out: Path, chunk: dict) -> bool:
    """A finished chunk whose part files exist with the recorded rows and checksums."""
    if chunk.get("status") != "done":
        return False
    for table in TABLES:
        path = part_path(out, table, chunk["index"])
        try:
            if sha256_of(path) != chunk["sha256"][table]:
                return False
            if parquet_rows(path) != chunk["rows"][table]:
                return False
        except (OSError, KeyError, pl.exceptions.PolarsError):
            return False
    return True


def _describe_mismatch(old: dict, new: dict) -> str:
    diffs = [k for k in {**old, **new} if old.get(k) != new.get(k)]
    parts = [f"{k}: run has {old.get(k)!r}, you asked for {new.get(k)!r}" for k in diffs]
    return "; ".join(parts)


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_directory(
    out: Path,
    config: RunConfig,
    chunk_size: int,
    *,
    resume: bool,
    force: bool,
    extra: dict | None = None,
) -> tuple[dict, bool]:
    """Check ``out`` without writing anything; returns (manifest to work from, is it new)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CardsimError(f"--out {out}: exists and is not a directory")
    nonempty = out.is_dir() and any(out.iterdir())
    if resume and nonempty:
        manifest = read_manifest(out)
        ident = {**config.identity(), "stop": (extra or {}).get("stop")}
        want = {k: ident.get(k) for k in IDENTITY_KEYS}
        have = {k: manifest.get(k) for k in IDENTITY_KEYS}
        if have != want:
            raise CardsimError(
                f"--resume: {out} holds a different run ({_describe_mismatch(have, want)})"
            )
        if chunk_size is not None and manifest.get("chunk_size") != chunk_size:
            raise CardsimError(
                f"--resume: {out} was run with --chunk-size {manifest.get('chunk_size')}, "
                f"not {chunk_size}"
            )
        return manifest, False
    if nonempty and not force:
        raise CardsimError(
            f"--out {out} is not empty; use --resume to complete that run or --force to replace it"
        )
    if nonempty and not (out / MANIFEST).is_file():
        raise CardsimError(
            f"--force: {out} is not a cardsim run directory (no {MANIFEST}); "
            "refusing to delete anything there"
        )
    base = _nearest_existing(out)
    if not base.is_dir():
        raise CardsimError(f"--out {out}: cannot write there ({base} is not a directory)")
    if not os.access(base, os.W_OK | os.X_OK):
        raise CardsimError(f"--out {out}: cannot write there (permission denied on {base})")
    return new_manifest(config, chunk_size or DEFAULT_CHUNK_SIZE, extra), True


def create_directory(out: Path, *, clear: bool) -> None:
    """Create ``out`` (for a new run), removing an old run's files when ``clear``."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise CardsimError(f"--out {out}: cannot write there ({e.strerror or e})") from None
    if clear:
        for child in (MANIFEST, *TABLES):
            p = out / child
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()


# --- running -----------------------------------------------------------------------------------


def write_chunk(
    out: Path, chunk: dict, games: pl.DataFrame, seats: pl.DataFrame, seconds: float
) -> dict:
    """Write one chunk's parts atomically; returns the chunk's finished manifest entry."""
    entry = {**chunk, "rows": {}, "sha256": {}}
    for table, df in zip(TABLES, (games, seats), strict=True):
        path = part_path(out, table, chunk["index"])
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_parquet(df, path)
        entry["rows"][table] = df.height
        entry["sha256"][table] = sha256_of(path)
    entry["status"] = "done"
    entry["seconds"] = round(seconds, 3)
    return entry


def _timed_chunk(engine: GameEngine, config: RunConfig, first: int, count: int):
    start = time.perf_counter()
    games, seats = engine.play_chunk(config, first, count)
    return games, seats, time.perf_counter() - start


def remote_chunk(
    game: str, duplicate: bool, config: RunConfig, first: int, count: int
) -> tuple[pl.DataFrame, pl.DataFrame, float]:
    """What a Dask worker runs: the same pure chunk function, with the engine looked up there."""
    engine = get_engine(game)
    if duplicate:
        from sim.compare import DuplicateEngine

        engine = DuplicateEngine(engine)
    return _timed_chunk(engine, config, first, count)


def _local_results(engine, config, todo):
    for chunk in todo:
        yield chunk, _timed_chunk(engine, config, chunk["first"], chunk["count"])


def check_scheduler(scheduler: str | None) -> None:
    """Reject a malformed ``--scheduler`` before anything is written."""
    if scheduler is None:
        return
    if scheduler.startswith("local:"):
        n = scheduler.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise CardsimError(f"--scheduler {scheduler}: expected local:N with N >= 1 workers")
    elif "://" not in scheduler and ":" not in scheduler:
        raise CardsimError(
            f"--scheduler {scheduler}: expected local:N or a scheduler address like tcp://host:8786"
        )


def _cluster_results(engine, config, todo, scheduler: str):
    """Chunks run on a Dask cluster, yielded in chunk order (so stopping is reproducible)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise CardsimError(
            "--scheduler needs dask.distributed: pip install 'cardsim[cluster]'"
        ) from None
    cluster = None
    if scheduler.startswith("local:"):
        workers = int(scheduler.split(":", 1)[1])
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout=10)
        except (OSError, TimeoutError) as e:
            raise CardsimError(f"--scheduler {scheduler}: cannot connect ({e})") from None
    from sim.compare import DuplicateEngine

    duplicate = isinstance(engine, DuplicateEngine)
    window = max(2, 2 * len(client.scheduler_info().get("workers", {})))
    try:
        pending = {}
        next_submit = 0
        for i, chunk in enumerate(todo):
            while next_submit < len(todo) and next_submit < i + window:
                c = todo[next_submit]
                pending[next_submit] = client.submit(
                    remote_chunk,
                    config.game,
                    duplicate,
                    config,
                    c["first"],
                    c["count"],
                    pure=False,
                )
                next_submit += 1
            yield chunk, pending.pop(i).result()
    finally:
        for f in pending.values():
            f.cancel()
        client.close()
        if cluster is not None:
            cluster.close()


def _clean_temporaries(out: Path) -> None:
    for table in TABLES:
        d = out / table
        if d.is_dir():
            for p in d.glob(".part-*.tmp-*"):
                p.unlink(missing_ok=True)


def set_threads(threads: int | None) -> int:
    """Set Numba's thread count (``None``: all cores); returns the count in use."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = limit
    if not 1 <= threads <= limit:
        raise CardsimError(f"--threads must be 1..{limit} on this machine, got {threads}")
    numba.set_num_threads(threads)
    return threads


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
    scheduler: str | None = None,
) -> RunResult:
    """Play ``config`` into the run directory ``out``.

    ``scheduler``: ``None`` plays chunks here; ``"local:N"`` starts a Dask cluster of N worker
    processes; any other value is the address of a running Dask scheduler. The tables are the
    same in every case: chunks are committed in order. ``chunk_size`` defaults to
    ``DEFAULT_CHUNK_SIZE`` for a new run and to the manifest's for ``resume``. With a
    ``stop_rule``, ``extra_manifest["stop"]`` should describe it: ``--resume`` checks it.

    Examples
    --------
    >>> from sim.config import build_config
    >>> from sim.games import get_engine
    >>> cfg = build_config(get_engine("yuanzi"), games=1000, seed=1)
    >>> result = run(cfg, "runs/demo", progress=False)  # doctest: +SKIP
    """
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
    engine = engine or get_engine(config.game)
    out = Path(out)
    n_threads = set_threads(threads)
    check_scheduler(scheduler)
    manifest, fresh = check_directory(
        out, config, chunk_size, resume=resume, force=force, extra=extra_manifest
    )
    chunks = manifest["chunks"]
    todo = chunks if fresh else [c for c in chunks if not chunk_is_intact(out, c)]
    todo_ids = {c["index"] for c in todo}
    done_games = sum(c["count"] for c in chunks if c["index"] not in todo_ids)
    if (
        not fresh
        and manifest.get("status") == "complete"
        and (not todo or manifest.get("stopped_by") not in (None, "games"))
    ):  # finished (or stopped by its rule): nothing to do
        return RunResult(
            out, manifest, done_games, 0.0, stopped_by=manifest.get("stopped_by") or "games"
        )
    unit = "deals" if config.assignments else "games"  # a comparison counts deals
    bar = Progress(config.games, done_games, config.game, progress, unit)
    result = RunResult(out, manifest, done_games, 0.0)
    if todo:  # compile here (a broken user strategy fails now) before anything is written
        result.compiled_seconds = _warm_up(engine, config, bar)
        bar.t0 = time.perf_counter()  # the rate and ETA count play, not compilation
    if fresh:
        create_directory(out, clear=force)
    _clean_temporaries(out)
    manifest["status"] = "running"
    manifest["threads"] = n_threads
    write_manifest(out, manifest)
    t0 = time.perf_counter()
    source = (
        _local_results(engine, config, todo)
        if scheduler is None
        else _cluster_results(engine, config, todo, scheduler)
    )
    stopped_by = "games"
    try:
        for chunk, (games, seats, seconds) in source:
            entry = write_chunk(out, chunk, games, seats, seconds)
            chunks[chunk["index"]] = entry
            reason = stop_rule(manifest, out) if stop_rule is not None else None
            if reason:  # recorded in the same manifest write as the chunk (no window)
                stopped_by = reason
                manifest["status"], manifest["stopped_by"] = "complete", reason
            write_manifest(out, manifest)
            bar.advance(entry["count"])
            result.games_done += entry["count"]
            result.played += entry["count"]
            if reason:
                break
    finally:
        source.close()
        bar.close()
    finished = all(c.get("status") == "done" for c in chunks)
    manifest["status"] = "complete" if finished or stopped_by != "games" else "running"
    manifest["stopped_by"] = stopped_by
    manifest["games_done"] = sum(c["count"] for c in chunks if c.get("status") == "done")
    write_manifest(out, manifest)
    result.seconds = time.perf_counter() - t0
    result.stopped_by = stopped_by
    return result


def kernels_cached(game: str) -> bool:
    """Whether Numba's on-disk cache already holds compiled kernels of ``game``."""
    from kernels.jit import CACHE_DIR

    return any(CACHE_DIR.glob(f"{game}_*/*.nbi"))


def _warm_up(engine: GameEngine, config: RunConfig, bar: Progress) -> float:
    """Play one game so kernels compile (or load from cache) before the timed chunks."""
    from sim.warmup import notice_for

    text = notice_for(config)  # what compiles and roughly how long, once, before compiling
    if text:
        bar.message(text)
    t = time.perf_counter()
    try:
        engine.play_chunk(config, 0, 1)
    except CardsimError:
        raise
    except Exception as e:
        from sim.config import is_user_strategy

        users = sorted(
            {
                s
                for a in (config.assignments or (config.seats,))
                for s in a
                if is_user_strategy(s.rsplit("@", 1)[0])
            }
        )
        if not users:
            raise
        # the CLI shows the first line and the place in the user's file (sim.cli.one_line)
        raise CardsimError(f"user strategy {', '.join(users)} failed: {e}") from None
    seconds = time.perf_counter() - t
    if seconds > 2.0:
        bar.message(f"kernels ready in {seconds:.1f} s")
    return seconds
