"""Numba kernels: array state, legal moves, strategies and drivers for each game."""
