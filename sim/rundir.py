"""The run directory, in one place: layout, manifest, part files, atomic writes and the lock.

Layout::

    DIR/manifest.json              format marker, configuration, per-chunk status, rows, sha256
    DIR/.lock                      the writer's lock (``fcntl.flock``; holds the writer's pid)
    DIR/games/part-NNNNN.parquet   one row per game (per round for ATLAS)
    DIR/seats/part-NNNNN.parquet   one row per game x seat

Guarantees (docs/cli.md, "What a run directory guarantees"):

- **Recognised by content.** A directory is a cardsim run when its ``manifest.json`` carries the
  format marker and passes :class:`Manifest` validation; a file that merely has that name is not.
- **One writer.** A writer holds an exclusive ``flock`` on ``DIR/.lock`` for the whole run; a
  second writer is refused and never touches the first one's files. Readers can ask
  :func:`writer_pid` whether a run is being written. ``study``, ``ladder`` and ``tune`` hold
  the same lock on their output folder (:func:`hold_folder`).
- **Never through a link.** A linked ``games/`` or ``seats/`` is refused (:func:`check_tables`).
- **Crash safety.** Every file is written to a temporary name, synced and renamed into place; a
  new directory is born with a valid manifest (made in a temporary sibling and renamed). A
  directory that holds only cardsim's own temporaries is *vacant* and may be reused as if empty.
- **Self-describing parts.** Every Parquet part carries key-value metadata (:func:`part_metadata`):
  cardsim version, game, seed, rules, chunk index/first/count, schema version; readers check
  it against the manifest (:func:`chunk_problems`), ``cardsim verify`` the sha256 too.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import inspect
import io
import itertools
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

import polars as pl
from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.schema import SCHEMA_VERSION
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, model_validator
from pydantic import ValidationError as _ValidationError

F = TypeVar("F", bound=Callable[..., Any])
FORMAT = "cardsim-run"
MANIFEST_VERSION = 2  # version of the manifest layout (1: cardsim 0.1, no format marker)
#: Version of the output tables' schema (docs/schema-v2.md), written into every part.
TABLE_SCHEMA_VERSION = SCHEMA_VERSION
MANIFEST = "manifest.json"
LOCK = ".lock"
TABLES = ("games", "seats")
PART_RE = re.compile(r"^part-\d{5,}\.parquet$")
#: Names of cardsim's own temporary files (a crashed writer may leave them behind).
#: a temporary's name ends in its writer's pid, then (since issue 45) thread id and call counter
TEMP_RE = re.compile(r"^\.(manifest\.json|part-\d{5,}\.parquet|write-test)\.tmp-\d+(-\d+-\d+)?$")
_CALLS = itertools.count()


def unique_suffix() -> str:
    """``PID-THREAD-N``: a temporary name no other call, thread or process uses at the same
    time (issue 45 item 12: two threads of one process once shared ``tmp-PID``)."""
    return f"{os.getpid()}-{threading.get_ident()}-{next(_CALLS)}"


# --- manifest schema -----------------------------------------------------------------------


class Chunk(BaseModel):
    """One chunk of the plan: games ``first .. first+count-1``, and what was written of it."""

    model_config = ConfigDict(extra="allow")

    index: StrictInt = Field(ge=0)
    first: StrictInt = Field(ge=0)
    count: StrictInt = Field(gt=0)
    status: Literal["pending", "done"]
    rows: dict[str, StrictInt] | None = None
    sha256: dict[str, StrictStr] | None = None
    seconds: float | None = None
    #: Games written when a stop rule ended the run inside this chunk (fewer than ``count``).
    played: StrictInt | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _done_has_files(self) -> Chunk:
        if self.status == "done":
            for name, value in (("rows", self.rows), ("sha256", self.sha256)):
                if value is None or set(value) != set(TABLES):
                    raise ValueError(f"a done chunk needs {name} for {' and '.join(TABLES)}")
        if self.played is not None and self.played > self.count:
            raise ValueError("played is more than count")
        return self


RuleValue = StrictBool | StrictInt | StrictStr


class Manifest(BaseModel):
    """``manifest.json``: validated on every read (a damaged or foreign file is one line)."""

    model_config = ConfigDict(extra="allow")

    format: Literal["cardsim-run"] | None = None  # None: a cardsim 0.1 manifest
    manifest_version: StrictInt | None = None
    cardsim_version: StrictStr | None = None
    game: StrictStr
    players: StrictInt = Field(ge=1)
    seats: list[StrictStr] = Field(min_length=1)
    rules: dict[str, RuleValue]
    seed: StrictInt = Field(ge=0)
    games: StrictInt = Field(gt=0)
    assignments: list[list[StrictStr]] | None = None
    strategy_files: dict[str, StrictStr] | None = None
    stop: dict[str, Any] | None = None
    chunk_size: StrictInt = Field(gt=0)
    status: Literal["running", "complete"]
    stopped_by: StrictStr | None = None
    chunks: list[Chunk]

    @model_validator(mode="after")
    def _consistent(self) -> Manifest:
        if len(self.seats) != self.players:
            raise ValueError(f"{len(self.seats)} seats for {self.players} players")
        for i, c in enumerate(self.chunks):
            if c.index != i:
                raise ValueError(f"chunk {i} has index {c.index}")
        return self


def _first_error(e: _ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ())) or "manifest"
    return f"{where}: {err.get('msg', 'invalid')}"


def validate_manifest(data: object, where: Path | str) -> dict:
    """``data`` if it is a valid cardsim manifest; :class:`CardsimError` (one line) if not."""
    if not isinstance(data, dict):
        raise CardsimError(f"{where}: not a cardsim manifest (a JSON object is expected)")
    try:
        Manifest.model_validate(data)
    except _ValidationError as e:
        raise CardsimError(f"{where}: not a cardsim manifest ({_first_error(e)})") from None
    return data


def plan_chunks(games: int, chunk_size: int) -> list[dict]:
    """Cut ``range(games)`` into chunks of ``chunk_size`` (the last one shorter)."""
    return [
        {"index": i, "first": first, "count": min(chunk_size, games - first), "status": "pending"}
        for i, first in enumerate(range(0, games, chunk_size))
    ]


def check_plan(manifest: dict, where: Path | str) -> None:
    """The manifest's chunks must be exactly the plan of its ``games`` and ``chunk_size``."""
    want = plan_chunks(int(manifest["games"]), int(manifest["chunk_size"]))
    have = manifest["chunks"]
    if len(have) != len(want):
        raise CardsimError(
            f"{where}: the chunk plan does not match the run ({len(have)} chunks recorded, "
            f"{len(want)} for {manifest['games']:,} games in chunks of {manifest['chunk_size']:,}); "
            "the manifest was edited or damaged — start afresh with --force"
        )
    for h, w in zip(have, want, strict=True):
        if (h["index"], h["first"], h["count"]) != (w["index"], w["first"], w["count"]):
            raise CardsimError(
                f"{where}: chunk {w['index']} records games {h['first']}+{h['count']}, the plan "
                f"says {w['first']}+{w['count']}; the manifest was edited or damaged — start "
                "afresh with --force"
            )


def chunk_games(chunk: dict) -> int:
    """Games a finished chunk holds (fewer than planned when a stop rule ended it)."""
    return int(chunk.get("played") or chunk["count"])


def games_done(manifest: dict) -> int:
    return sum(chunk_games(c) for c in manifest["chunks"] if c.get("status") == "done")


# --- reading -------------------------------------------------------------------------------


def read_manifest(path: Path | str) -> dict:
    """The validated manifest of run directory ``path``; :class:`CardsimError` if not a run."""
    path = Path(path)
    try:
        if not path.exists():
            raise CardsimError(f"{path}: no such directory")
        if not path.is_dir():
            raise CardsimError(f"{path}: not a directory (give a run directory made by cardsim)")
        mpath = path / MANIFEST
        if not mpath.is_file():
            if is_vacant(path):
                raise CardsimError(
                    f"{path}: the directory is empty (no run has been written there)"
                )
            raise CardsimError(f"{path}: not a cardsim run directory (no {MANIFEST})")
        data = json.loads(mpath.read_text(encoding="utf-8"))
    except OSError as e:
        raise os_error(e, path, "cannot read") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CardsimError(f"{path / MANIFEST}: unreadable manifest ({e})") from None
    return validate_manifest(data, path / MANIFEST)


def part_path(out: Path | str, table: str, chunk: int) -> Path:
    return Path(out) / table / f"part-{chunk:05d}.parquet"


def finished_parts(out: Path | str, manifest: dict, table: str) -> list[Path]:
    """The part files of ``table`` of every chunk the manifest marks done, in chunk order."""
    return [
        part_path(out, table, c["index"]) for c in manifest["chunks"] if c.get("status") == "done"
    ]


def scan_finished(out: Path | str, table: str, manifest: dict) -> pl.LazyFrame:
    """One lazy scan of ``table`` over the run's finished chunks (as ``manifest`` says)."""
    return pl.scan_parquet(finished_parts(out, manifest, table))


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parquet_rows(path: Path) -> int:
    return int(pl.scan_parquet(path).select(pl.len()).collect().item())


def chunk_is_intact(out: Path, chunk: dict, manifest: dict | None = None) -> bool:
    """A finished chunk whose part files exist with the recorded rows and checksums (and,
    given the ``manifest``, whose own metadata names this run and this chunk)."""
    if chunk.get("status") != "done":
        return False
    if manifest is None:
        manifest = {"format": None}  # rows and checksums only
    elif manifest.get("format") != FORMAT:
        return False  # a cardsim 0.1 part (schema v1) is never mixed into a schema-v2 run
    return not chunk_problems(out, manifest, chunk, sha256=True)


def expected_metadata(manifest: dict, table: str, chunk: dict) -> dict[str, Any]:
    """What a part of ``chunk`` must say about itself (:func:`part_metadata`, decoded)."""
    want = {
        "schema_version": TABLE_SCHEMA_VERSION, "table": table, "game": manifest["game"],
        "seed": manifest["seed"], "players": manifest["players"], "seats": manifest["seats"],
        "rules": manifest["rules"], "chunk_index": chunk["index"], "chunk_first": chunk["first"],
        "chunk_count": chunk_games(chunk),
    }  # fmt: skip
    if manifest.get("assignments"):
        want["assignments"] = manifest["assignments"]
    return want


def _shown(value: Any) -> str:
    text = jsonio.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def chunk_problems(out: Path | str, manifest: dict, chunk: dict, *, sha256: bool) -> list[str]:
    """What is wrong with the parts of finished ``chunk`` (empty: nothing): a missing file,
    rows other than the manifest records, metadata naming another run or chunk, and with
    ``sha256`` a checksum other than the recorded one. Without ``sha256`` only the Parquet
    footers are read (metadata and row counts), never the data. A cardsim 0.1 run (no format
    marker) has no part metadata: rows (and checksums) only."""
    problems = []
    for table in TABLES:
        path = part_path(out, table, chunk["index"])
        name = f"{table}/{path.name}"
        try:
            if not path.is_file():
                problems.append(f"{name} is missing")
                continue
            rows = parquet_rows(path)
            if rows != (chunk.get("rows") or {}).get(table):
                problems.append(
                    f"{name} has {rows:,} rows, the manifest records "
                    f"{(chunk.get('rows') or {}).get(table)}"
                )
            foreign = _foreign(path, manifest, table, chunk)
            if foreign:
                problems.append(f"{name} does not match the manifest ({foreign})")
                continue  # its checksum says nothing more
            if sha256 and sha256_of(path) != (chunk.get("sha256") or {}).get(table):
                problems.append(f"{name}: its sha256 differs from the one the manifest records")
        except (OSError, pl.exceptions.PolarsError) as e:
            problems.append(f"{name} is unreadable ({str(e).splitlines()[0][:120]})")
    return problems


def _foreign(path: Path, manifest: dict, table: str, chunk: dict) -> str | None:
    """How a part's own metadata differs from what ``manifest`` expects of it, or None
    (a cardsim 0.1 run's parts carry none: never foreign)."""
    if manifest.get("format") != FORMAT:
        return None
    meta = read_part_metadata(path)
    for key, want in expected_metadata(manifest, table, chunk).items():
        if meta.get(key) != want:
            have = "nothing" if key not in meta else _shown(meta[key])
            return f"its {key} is {have}, the manifest says {_shown(want)}"
    return None


def read_part_metadata(path: Path | str) -> dict[str, Any]:
    """The cardsim key-value metadata of one part, decoded (JSON values parsed)."""
    raw = pl.read_parquet_metadata(path)
    out: dict[str, Any] = {}
    for k, v in raw.items():
        if k.startswith("cardsim."):
            try:
                out[k.removeprefix("cardsim.")] = json.loads(v)
            except json.JSONDecodeError:
                out[k.removeprefix("cardsim.")] = v
    return out


def find_runs(folder: Path | str) -> list[Path]:
    """The run directories in ``folder``: itself if it is one, else every run below it (a
    study's scenarios, a ladder's levels and rating, a tune's rungs and verify study), sorted,
    never through a link and never inside a run."""
    folder = Path(folder)
    if _is_run_dir(folder):
        return [folder]
    runs: list[Path] = []
    with contextlib.suppress(OSError):
        for child in sorted(folder.iterdir()):
            if child.is_dir() and not child.is_symlink() and child.name not in TABLES:
                runs += find_runs(child)
    return runs


def verify(out: Path | str) -> tuple[bool, str]:
    """``cardsim verify``: every finished part against the manifest — present, the recorded
    sha256 and rows, its own metadata naming this run and chunk — and the chunk plan.

    Returns (intact, the one-line verdict); :class:`CardsimError` if ``out`` is not a run.
    """
    out = Path(out)
    manifest = read_manifest(out)
    problems: list[str] = []
    fix = "cardsim run … --resume redoes such chunks, --force starts afresh"
    try:
        check_plan(manifest, MANIFEST)
    except CardsimError as e:
        problems.append(str(e).split("; the manifest was edited")[0])
        fix = "the manifest was edited or damaged: --force starts afresh"
    chunks = manifest["chunks"]
    done = [c for c in chunks if c.get("status") == "done"]
    for c in done:
        problems += chunk_problems(out, manifest, c, sha256=True)
    writer = writer_pid(out)
    busy = f"; a cardsim process (pid {writer}) is writing it now" if writer else ""
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return False, (f"{out}: DAMAGED: {problems[0]}{more}{busy}; {fix}")
    games = sum(chunk_games(c) for c in done)
    what = f"{len(done):,} of {len(chunks):,} chunks, {games:,} of {int(manifest['games']):,} games"
    if len(done) < len(chunks) and manifest.get("status") != "complete":
        what += " (unfinished: complete it with --resume)"
    elif len(done) < len(chunks):
        what += f" (stopped early by {manifest.get('stopped_by')})"
    return True, (
        f"{out}: ok: {what}; every part matches the manifest (sha256, rows, metadata){busy}"
    )


# --- writing -------------------------------------------------------------------------------


_ERRNO_HINT = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file is larger than allowed (ulimit -f?)",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted (immutable or protected file?)",
    errno.ENAMETOOLONG: "the file name is too long",
}


def os_error(e: OSError, path: Path | str, doing: str = "cannot write") -> CardsimError:
    """An OS error as one line naming the path and the cause."""
    where = e.filename if getattr(e, "filename", None) else path
    cause = e.strerror or str(e)
    code = errno.errorcode.get(e.errno or 0, "")
    hint = _ERRNO_HINT.get(e.errno or -1)
    text = f"{doing} {where}: {cause}" + (f" [{code}]" if code else "")
    if hint and hint.lower() != cause.lower():
        text += f" ({hint})"
    return CardsimError(text)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, fsync and a rename.

    On any OS error the temporary file is removed and the old ``path`` (if any) is untouched;
    the error is a :class:`CardsimError` naming the path and the cause.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{unique_suffix()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise os_error(e, path) from None
    _fsync_dir(path.parent)


def manifest_bytes(manifest: dict) -> bytes:
    return jsonio.dump_bytes(manifest, indent=2)


def write_manifest(out: Path, manifest: dict) -> None:
    atomic_write_bytes(Path(out) / MANIFEST, manifest_bytes(manifest))


def part_metadata(manifest: dict, table: str, chunk: dict, games: int) -> dict[str, str]:
    """What a part says about itself: enough to know its run and place without the manifest."""
    meta = {
        "cardsim.version": manifest.get("cardsim_version") or "",
        "cardsim.schema_version": str(TABLE_SCHEMA_VERSION),
        "cardsim.table": table,
        "cardsim.game": manifest["game"],
        "cardsim.seed": str(manifest["seed"]),
        "cardsim.players": str(manifest["players"]),
        "cardsim.seats": jsonio.dumps(manifest["seats"]),
        "cardsim.rules": jsonio.dumps(dict(sorted(manifest["rules"].items()))),
        "cardsim.chunk_index": str(chunk["index"]),
        "cardsim.chunk_first": str(chunk["first"]),
        "cardsim.chunk_count": str(games),
    }
    if manifest.get("assignments"):
        meta["cardsim.assignments"] = jsonio.dumps(manifest["assignments"])
    return meta


def parquet_bytes(df: pl.DataFrame, metadata: dict[str, str] | None = None) -> bytes:
    """A DataFrame as Parquet bytes (written in memory: file errors stay Python OSErrors)."""
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", statistics=True, metadata=metadata)
    return buf.getvalue()


def write_part(path: Path, data: bytes) -> str:
    """Write one part atomically; returns its sha256."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise os_error(e, path.parent) from None
    atomic_write_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


# --- vacancy, creation, clearing -----------------------------------------------------------


def _is_temp(name: str) -> bool:
    return bool(TEMP_RE.match(name))


def is_vacant(path: Path) -> bool:
    """An empty directory, or one holding only cardsim's lock and temporaries (a writer that
    crashed before its first manifest): safe to start a new run in without ``--force``."""
    try:
        for child in path.iterdir():
            if child.name == LOCK or _is_temp(child.name):
                continue
            if (
                child.name in TABLES
                and child.is_dir()
                and all(_is_temp(p.name) for p in child.iterdir())
            ):
                continue
            return False
    except OSError:
        return False
    return True


def clean_temporaries(out: Path) -> None:
    """Remove temporaries left by crashed writers (call it holding the lock)."""
    for d in (out, *(out / t for t in TABLES)):
        if d.is_dir() and not d.is_symlink():
            for p in d.iterdir():
                if _is_temp(p.name):
                    with contextlib.suppress(OSError):
                        p.unlink()


def clear_run(out: Path) -> None:
    """What ``--force`` deletes once a new manifest is in place: the part files of the old run
    (``games/part-*.parquet``, ``seats/part-*.parquet``) and cardsim's temporaries — nothing
    else; ``games/`` and ``seats/`` are removed only if nothing else is left in them."""
    clean_temporaries(out)
    for t in TABLES:
        d = out / t
        if d.is_symlink() or not d.is_dir():  # never through a link (check_tables refuses it)
            continue
        try:
            for p in d.iterdir():
                if PART_RE.match(p.name) and p.is_file():
                    p.unlink()
            if not any(d.iterdir()):
                d.rmdir()
        except OSError as e:
            raise os_error(e, d, "cannot delete the old run's parts in") from None


def refuse_link(path: Path, writes: str, doing: str = "") -> None:
    """Refuse ``path`` if it is a symbolic link, in one line: ``writes`` says what is written
    and deleted only inside cardsim's own folders (``--force`` and resuming never follow a link)."""
    if path.is_symlink():
        target = os.readlink(path)
        lead = f"{doing}: " if doing else ""
        raise CardsimError(
            f"{lead}{path} is a symbolic link (to {target}); {writes}, never through a link: "
            f"remove the link (rm {path}; {target} is left as it is) or use another --out"
        )


def check_tables(out: Path, doing: str) -> None:
    """Refuse a run directory whose ``games/`` or ``seats/`` is a symbolic link or not a
    folder: cardsim writes and deletes parts only inside the run directory, never through a
    link (``--force`` would delete another run's parts, ``--resume`` overwrite them)."""
    for t in TABLES:
        d = Path(out) / t
        try:
            refuse_link(
                d, "cardsim writes and deletes a run's parts only inside its directory", doing
            )
            if d.exists() and not d.is_dir():
                raise CardsimError(f"{doing}: {d} is not a directory; move it away")
        except OSError as e:
            raise os_error(e, d, "cannot use") from None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sibling(out: Path) -> Path:
    return out.with_name(f".{out.name}.new-{unique_suffix()}")


def _clean_stale_siblings(out: Path) -> None:
    pattern = re.compile(rf"^\.{re.escape(out.name)}\.new-(\d+)(-\d+-\d+)?$")
    with contextlib.suppress(OSError):
        for p in out.parent.iterdir():
            m = pattern.match(p.name)
            if m and int(m.group(1)) != os.getpid() and not _pid_alive(int(m.group(1))):
                shutil.rmtree(p, ignore_errors=True)


class RunLock:
    """The writer's exclusive lock on a run directory (``flock`` on ``DIR/.lock``)."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd, self.path = fd, path

    @classmethod
    def acquire(
        cls, out: Path, kind: str = "run directory", again: str = "use --resume"
    ) -> RunLock:
        """Lock ``out`` (``kind``/``again``: how the refusal names it and what to do next).
        A folder inside one another writer holds, or inside a run, is refused first."""
        refuse_inside_another(out)
        lock = out / LOCK
        for _ in range(5):  # the lock file may be removed meanwhile (hold_folder): take it anew
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise os_error(e, lock, f"cannot lock the {kind}:") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _read_pid(fd)
                os.close(fd)
                who = f" (pid {pid})" if pid else ""
                raise CardsimError(
                    f"{out} is being written by another cardsim process{who}; one writer per "
                    f"{kind}: wait for it to finish, or stop it and {again}"
                ) from None
            except OSError as e:
                os.close(fd)
                raise os_error(e, lock, f"cannot lock the {kind}:") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(lock).st_ino
            except OSError:
                same = False
            if same:
                break
            os.close(fd)
        else:
            raise CardsimError(f"cannot lock the {kind} {out}: its lock file keeps changing")
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd, out)

    def release(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


#: Output folders each thread holds (resolved path -> [lock, depth]): hold_folder nests only
#: within one thread (issue 45 item 12: a second thread's command is another writer).
_LOCAL = threading.local()


def _held() -> dict[Path, list]:
    held = getattr(_LOCAL, "held", None)
    if held is None:
        held = _LOCAL.held = {}
    return held


def _is_run_dir(path: Path) -> bool:
    """``path`` holds a cardsim run's manifest (any format version)."""
    try:
        doc = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    if not isinstance(doc, dict):
        return False
    # cardsim 0.1's manifests had no format marker: their own keys, not any tool's "chunks"
    return doc.get("format") == FORMAT or {"chunks", "game", "seed", "seats"} <= set(doc)


#: What marks a folder as each command's product (one folder, one product: issue 45 item 12).
PRODUCT_MARKERS = {
    "study": (".cardsim-study",),
    "ladder": ("ladder-looks.json", "ladder.json"),
    "tune": ("tune-manifest.json",),
    "exploit": ("exploit.json", "restricted.json"),
    "train": ("train-plan.json",),  # OUT.npz.parts of cardsim train
}


def refuse_other_product(out: Path, command: str) -> None:
    """Refuse ``out`` when it holds another command's product (a run, a study, a ladder or a
    tune): ``--force`` replaces only a product of the same command, never mixes two."""
    if _is_run_dir(out):
        found = ("run", MANIFEST)
    else:
        found = next(
            (
                (other, marker)
                for other, markers in PRODUCT_MARKERS.items()
                if other != command
                for marker in markers
                if (out / marker).exists()
            ),
            None,
        )
    if found:
        other, marker = found
        raise CardsimError(
            f"--out {out} holds a cardsim {other} ({marker}); a {command} writes only into its "
            f"own folder (--force replaces a {command}, never another command's): use another --out"
        )


def refuse_inside_another(out: Path | str) -> None:
    """Refuse an output folder inside a folder another writer holds (a study, ladder or tune
    folder, or a run, of another process or thread), or inside a run directory: a command's
    sub-runs and reports stay its own (issue 45 items 10 and 12). A folder this thread holds
    (the command's own sub-runs) is fine."""
    try:
        here = Path(out).resolve()
    except (OSError, RuntimeError):
        return  # the lock or mkdir that follows names the problem
    held = _held()
    for parent in here.parents:
        if parent in held:
            return
        if _is_run_dir(parent):
            raise CardsimError(
                f"--out {out} is inside the run directory {parent}: a run's folder holds only "
                "its own files; use an --out outside it"
            )
        if (parent / LOCK).exists():
            pid = writer_pid(parent)
            if pid is not None:
                who = "this process" if pid == os.getpid() else f"pid {pid}"
                raise CardsimError(
                    f"--out {out} is inside {parent}, which another cardsim command ({who}) is "
                    "writing now; its sub-runs and reports stay its own: wait for it to finish "
                    "or use another --out"
                )


@contextlib.contextmanager
def hold_folder(out: Path | str, command: str) -> Iterator[Path]:
    """Hold the exclusive lock on the output folder of ``study``, ``ladder`` or ``tune`` for
    the whole command: the same ``flock`` on ``DIR/.lock`` as a run directory's writer, so a
    second writer of any kind is refused before it reads or touches anything there. Nests in
    one thread (``ladder`` runs a study in its folder); another thread is another writer. A lock file made here is removed at
    the end, and so is a folder made here and left empty (the command failed before writing)."""
    out = Path(out)
    refuse_inside_another(out)
    try:
        if out.exists() and not out.is_dir():
            raise CardsimError(f"--out {out}: exists and is not a directory")
        created = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
        key = out.resolve()
    except OSError as e:
        raise os_error(e, out, "cannot create") from None
    held = _held()
    if key in held:
        held[key][1] += 1
        try:
            yield out
        finally:
            held[key][1] -= 1
        return
    again = (
        f"run the {command} again" if command in ("study", "ladder") else "run the command again"
    )
    made = not (out / LOCK).exists()
    try:
        lock = RunLock.acquire(out, "output folder", again)
        try:
            refuse_other_product(out, command)
        except BaseException:
            if made:
                with contextlib.suppress(OSError):
                    (out / LOCK).unlink()
            lock.release()
            raise
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    held[key] = [lock, 1]
    try:
        yield out
    finally:
        del held[key]
        with contextlib.suppress(OSError):  # leave the folder as found, but for the results
            if made:
                (out / LOCK).unlink()  # still held: a waiting writer takes a fresh lock file
            if created and not any(out.iterdir()):
                out.rmdir()
        lock.release()


def holding_out(command: str) -> Callable[[F], F]:
    """Decorate a command function whose parameter ``out`` is its output folder: the call
    holds :func:`hold_folder` on it from start to end."""

    def wrap(fn: F) -> F:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def held(*args: Any, **kwargs: Any) -> Any:
            out = sig.bind(*args, **kwargs).arguments["out"]
            with hold_folder(out, command):
                return fn(*args, **kwargs)

        return held  # type: ignore[return-value]

    return wrap


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None


def writer_pid(out: Path | str) -> int | None:
    """The pid of the process writing ``out`` now (it holds the lock), or None."""
    lock = Path(out) / LOCK
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_pid(fd) or -1
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def create(out: Path, manifest: dict) -> RunLock:
    """Make the run directory ``out`` for a new run, locked, born with ``manifest``.

    A missing ``out`` is made as a temporary sibling (lock, manifest) and renamed into place, so
    it never exists without a valid manifest. An existing vacant ``out`` is locked first and
    then gets the manifest (until then it stays vacant, so a crash leaves it reusable).
    """
    out = Path(out)
    refuse_inside_another(out)
    if out.is_dir():
        lock = RunLock.acquire(out)
        try:
            if not is_vacant(out):
                raise CardsimError(f"--out {out}: another process wrote there meanwhile")
            clean_temporaries(out)
            write_manifest(out, manifest)
        except BaseException:
            lock.release()
            raise
        return lock
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise os_error(e, out.parent, "cannot create") from None
    _clean_stale_siblings(out)
    tmp = _sibling(out)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
    except OSError as e:
        raise os_error(e, out, "cannot create") from None
    lock = None
    try:
        lock = RunLock.acquire(tmp)
        write_manifest(tmp, manifest)
        try:
            os.rename(tmp, out)
        except OSError as e:
            if e.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise CardsimError(
                    f"--out {out}: another process created it meanwhile (one writer per run "
                    "directory)"
                ) from None
            raise os_error(e, out, "cannot create") from None
        _fsync_dir(out.parent)
        lock.path = out
    except BaseException:
        if lock is not None:
            lock.release()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return lock
