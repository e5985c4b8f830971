"""Numba settings for every kernel, in one place (STYLE: cache on, fastmath off)."""

from numba import njit

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
