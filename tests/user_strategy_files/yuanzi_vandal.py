"""A 原子 strategy that writes into every input (tests/test_user_strategies.py).

Seats 0 and 2: play like the built-in ``random`` (``bounded(rng, n_legal)``), then zero the hand,
the played cards and the public state and sort the legal list. Seat 1: answers out of range.
Seat 3: raises.
"""

from cardsim.kernels.rng import bounded
from numba import njit

ST_ACTOR = 2  # = cardsim.kernels.yuanzi.state.ST_ACTOR


@njit
def choose(own, played, pub, legal, n_legal, rng):
    seat = pub[ST_ACTOR]
    if seat == 3:
        raise ValueError("the vandal refuses to play seat 3")
    if seat == 1:
        return n_legal
    pick = bounded(rng, n_legal)
    own[:] = 0
    played[:, :] = 0
    pub[:] = 0
    legal.sort()
    return pick
