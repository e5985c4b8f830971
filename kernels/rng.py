"""Explicit-state random numbers for kernels: splitmix64-seeded xoshiro256**.

Every game's streams are derived from ``(root seed, game index, stream id)`` alone, so a
game's deal and play never depend on thread count, chunk size, worker or interruption.
A state is a ``uint64[4]`` array owned by one game; nothing here is global.

Stream ids used by the games (keep them stable: they define every published result):

======  ==========================================================
stream  use
======  ==========================================================
0       the deal: shuffles and indicator cards
1       game events that are random by rule (reshuffles, blind TRADE picks)
2       the strategies' own randomness (``random`` strategy, tie-breaks)
======  ==========================================================
"""

import numpy as np
from cardsim.kernels.jit import kernel

STREAM_DEAL = 0
STREAM_EVENTS = 1
STREAM_STRATEGY = 2

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STREAM_MUL = np.uint64(0xD1B54A32D192ED03)
_MASK32 = np.uint64(0xFFFFFFFF)


@kernel
def splitmix64(x):
    """One splitmix64 step: returns (next counter, output)."""
    x = x + _GOLDEN
    z = x
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return x, z


@kernel
def seed_stream(state, root, index, stream):
    """Fill ``state`` (uint64[4]) for game ``index`` and ``stream`` of a run with ``root`` seed."""
    x, a = splitmix64(np.uint64(root))
    x, b = splitmix64(a ^ np.uint64(index))
    x, c = splitmix64(b ^ (np.uint64(stream) * _STREAM_MUL))
    x = c
    for i in range(4):
        x, z = splitmix64(x)
        state[i] = z
    if state[0] == 0 and state[1] == 0 and state[2] == 0 and state[3] == 0:
        state[0] = _GOLDEN  # xoshiro must not start from all zeros


@kernel
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel
def next_u64(state):
    """Next 64-bit output of xoshiro256** (advances ``state`` in place)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@kernel
def bounded(state, n):
    """Unbiased integer in ``[0, n)`` for ``1 <= n < 2**32`` (Lemire's method with rejection)."""
    nn = np.uint64(n)
    m = (next_u64(state) >> np.uint64(32)) * nn
    low = m & _MASK32
    if low < nn:
        threshold = (np.uint64(1 << 32) - nn) % nn
        while low < threshold:
            m = (next_u64(state) >> np.uint64(32)) * nn
            low = m & _MASK32
    return np.int64(m >> np.uint64(32))


@kernel
def shuffle(state, arr, n):
    """Fisher–Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = bounded(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@kernel
def new_stream(root, index, stream):
    """Return a fresh state for ``(root, index, stream)``."""
    state = np.empty(4, np.uint64)
    seed_stream(state, root, index, stream)
    return state


@kernel
def mix64(x):
    """splitmix64's finaliser of ``x * golden``: a well-mixed 64-bit hash of an integer."""
    z = np.uint64(x) * _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def code_set_hash(codes, n):
    """Order-independent hash of the integer codes ``codes[:n]`` (sum of mixed codes mod 2**64).

    The traces of both games record it per decision; the reference rules recompute it.
    """
    h = np.uint64(0)
    for i in range(n):
        h += mix64(codes[i] + 1)
    return h
