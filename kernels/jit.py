"""Numba settings for every kernel, in one place (STYLE: cache on, fastmath off).

Every compiled function takes its options from here: :func:`kernel` (ordinary),
:func:`hot_kernel` (the per-decision loop: no NRT), :func:`inline_kernel` (small helpers inlined
at Numba IR level) and :func:`user_kernel` (a user strategy given as a plain function);
:func:`run_split` runs a driver's games on several threads.

The on-disk cache lives in a folder named after a fingerprint of every kernel source file (and
the Numba version). Numba itself only checks the file of the function it loads, so a cached
driver would keep running stale code after an edit to a helper in another file; a new
fingerprint after any edit makes every kernel compile afresh instead.
"""

import hashlib
import os
import threading
from pathlib import Path

import numba
from numba import njit

_ROOT = Path(__file__).resolve().parent


def source_fingerprint() -> str:
    """Hash of the kernel sources and the Numba version: the name of the cache folder."""
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_ROOT.rglob("*.py")):
        if "__pycache__" in path.parts:  # generated files (user-strategy drivers) live there
            continue
        h.update(path.relative_to(_ROOT).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        base = Path(os.environ["NUMBA_CACHE_DIR"])
    elif os.access(_ROOT, os.W_OK):
        base = _ROOT / "__pycache__"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cardsim"
    return base / f"numba-{source_fingerprint()}"


def _drop_stale(current: Path, max_age_s: float = 3600.0) -> None:
    """Remove caches of older kernel sources (untouched for an hour) beside ``current``."""
    import shutil
    import time

    for old in current.parent.glob("numba-*"):
        try:
            if old != current and time.time() - old.stat().st_mtime > max_age_s:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


#: Where compiled kernels are cached (set before any kernel is decorated).
CACHE_DIR = _cache_dir()
numba.config.CACHE_DIR = str(CACHE_DIR)
_drop_stale(CACHE_DIR)

#: Options for ordinary kernel functions: cached on disk, exact arithmetic.
JIT = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}
#: Options of the hot-path kernels (rules, strategies, the turn loop, pimc's helpers): they
#: never allocate, so they are compiled without NRT. With NRT on, Numba updates the (atomic)
#: reference count of each array argument on entry to and exit from every call, and of many
#: aliases its IR inlining creates (measured at about a third of a greedy 原子 match; half the
#: time of ATLAS's turn loop). The caller owns (and keeps alive) every array passed in; such a
#: kernel must not allocate or return an array — Numba refuses to compile one that does. Only
#: the outer drivers that allocate (``simulate``, ``trace_match``) keep NRT.
JIT_HOT = {**JIT, "_nrt": False}
#: Options of a small hot helper inlined into its callers at Numba IR level.
JIT_INLINE = {**JIT, "inline": "always"}


def kernel(fn):
    """Decorate a cached, non-parallel kernel function."""
    return njit(**JIT)(fn)


def hot_kernel(fn):
    """Decorate a cached hot-path kernel that never allocates (NRT off, :data:`JIT_HOT`)."""
    return njit(**JIT_HOT)(fn)


def inline_kernel(fn):
    """A small hot helper, inlined into its callers at Numba IR level (cached like ``kernel``).

    Inlining lets the few-instruction helpers of the legal-move generator fold into their
    callers' loops (their arguments then need no call boundary). The disk cache stays right
    after edits: its folder is named after a fingerprint of every kernel source.
    """
    return njit(**JIT_INLINE)(fn)


def user_kernel(fn):
    """A user strategy written as a plain function, jitted with Numba's defaults (it is compiled
    into a driver variant of its own, cached per version of the file: ``sim/user_strategies.py``)."""
    return njit(fn)


def run_split(fn, count: int, block: int, *args) -> int:
    """``fn(lo, hi, *args)`` over games ``0 .. count-1`` on ``numba.get_num_threads()`` threads
    (set per thread by ``numba.set_num_threads``); returns the sum of the answers.

    The games are cut into contiguous parts at multiples of ``block``, one per thread, as a
    static ``prange`` schedule would; ``fn`` is a nogil kernel, so the parts run at once. Each
    game's outcome depends only on its index (its RNG streams), never on the cut. Threads
    replace ``prange`` because Numba's parallel lowering cost 8 s (原子) and 13 s (ATLAS) of
    every first compile (docs/performance.md). Parts after the first run on daemon threads (a
    hung user strategy cannot keep the process alive); an exception in any is raised here.
    """
    nblocks = (count + block - 1) // block
    parts = max(1, min(numba.get_num_threads(), nblocks))
    cuts = [min(count, block * (nblocks * k // parts)) for k in range(parts + 1)]
    answers = [0] * parts
    errors: list[BaseException] = []

    def part(k: int) -> None:
        try:
            answers[k] = fn(cuts[k], cuts[k + 1], *args)
        except BaseException as e:  # re-raised in the calling thread
            errors.append(e)

    threads = [threading.Thread(target=part, args=(k,), daemon=True) for k in range(1, parts)]
    for t in threads:
        t.start()
    part(0)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return int(sum(answers))
