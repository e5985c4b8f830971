"""Numba settings for every kernel, in one place (STYLE: cache on, fastmath off).

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


def kernel(fn):
    """Decorate a cached, non-parallel kernel function."""
    return njit(**JIT)(fn)


def parallel_kernel(fn):
    """Decorate a cached driver that runs games in parallel with ``prange``."""
    return njit(**JIT_PARALLEL)(fn)
