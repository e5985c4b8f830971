"""Numba settings for every kernel, in one place (STYLE: cache on, fastmath off).

Every compiled function takes its options from here: :func:`kernel` (ordinary),
:func:`parallel_kernel` (drivers with ``prange``), :func:`hot_kernel` (the per-decision loop:
no NRT), :func:`inline_kernel` (small helpers inlined at Numba IR level) and
:func:`user_kernel` (a user strategy given as a plain function).

The on-disk cache lives in a folder named after a fingerprint of every kernel source file (and
the Numba version). Numba itself only checks the file of the function it loads, so a cached
driver would keep running stale code after an edit to a helper in another file; a new
fingerprint after any edit makes every kernel compile afresh instead.
"""

import hashlib
import os
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
#: Options for the outer drivers that run games with ``prange``.
JIT_PARALLEL = {**JIT, "parallel": True}
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


def parallel_kernel(fn):
    """Decorate a cached driver that runs games in parallel with ``prange``."""
    return njit(**JIT_PARALLEL)(fn)


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
