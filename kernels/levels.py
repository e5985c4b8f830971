"""The weak, human-like levels of both games' greedy (docs/strategies.md, "Levels").

``greedy:eps=E``: with probability E a uniformly random legal move, else greedy's move.
``soft:temp=T``: greedy's own score of every option plus T times Gumbel noise, the best taken —
option i with probability ∝ exp(score_i / T) (the Gumbel-max trick: one pass, no storage). The
score is in the game's unit of one step of greedy's preference (docs/strategies.md).

``learned[:temp=T]`` (kernels/learned.py, kernels/<game>/learned.py): the move of highest
``w · φ`` (T = 0), or softmax at temperature T by the same Gumbel-max trick.

All draw from the strategy stream (``cardsim.kernels.rng``, stream 2) only, so a game's moves depend on
(seed, game index) alone. Kernel id: ``base + (kind << 32) + hundredths`` (``base``: the game's
``LEVEL_BASE``; kind 0 eps, 1 soft; E or T in hundredths); a learned policy's is
``base + (2 << 32) + (slot << 16) + T in hundredths`` (``slot``: its row of the weight table).
"""

import math

import numpy as np
from cardsim.kernels.jit import hot_kernel
from cardsim.kernels.rng import mix64, next_u64

KIND_EPS, KIND_SOFT, KIND_LEARNED = 0, 1, 2
#: E in hundredths: 1..100; T in hundredths: 1..MAX_TEMP100.
MAX_TEMP100 = 10000
_INV53 = 1.0 / 9007199254740992.0


def encode(base: int, kind: int, hundredths: int) -> int:
    """The kernel id of a level (``kind`` KIND_EPS / KIND_SOFT, E or T in hundredths)."""
    hi = 100 if kind == KIND_EPS else MAX_TEMP100
    if kind not in (KIND_EPS, KIND_SOFT) or not 1 <= hundredths <= hi:
        raise ValueError(f"level kind {kind}, value {hundredths}/100 out of range")
    return base + (kind << 32) + hundredths


def encode_learned(base: int, slot: int, temp100: int) -> int:
    """The kernel id of a learned policy: weight-table row ``slot``, temperature in hundredths
    (0: argmax)."""
    if not 0 <= slot < 1 << 16 or not 0 <= temp100 <= MAX_TEMP100:
        raise ValueError(f"learned slot {slot}, temperature {temp100}/100 out of range")
    return base + (KIND_LEARNED << 32) + (slot << 16) + temp100


_hot = hot_kernel


@_hot
def decode(base, sid):
    """(kind, hundredths) of a level id."""
    p = sid - base
    return p >> 32, p & 0xFFFFFFFF


@_hot
def draw_key(rng):
    """One strategy-stream draw per decision: the key of that decision's Gumbel noise."""
    return next_u64(rng)


@_hot
def gumbel(key, i):
    """Standard Gumbel noise of option ``i`` under decision key ``key`` (-log(-log u))."""
    z = mix64(key + np.uint64(i))
    u = (np.float64(z >> np.uint64(11)) + 0.5) * _INV53
    return -math.log(-math.log(u))
