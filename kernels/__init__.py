"""Numba kernels: array state, legal moves, strategies and drivers for each game."""

from cardsim.kernels import jit as _jit  # noqa: F401  (sets the fingerprinted cache folder first)
