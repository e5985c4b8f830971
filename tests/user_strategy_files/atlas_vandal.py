"""An ATLAS strategy that writes into every input (tests/test_user_strategies.py).

Seats 0 and 2: play like the built-in ``random`` (``bounded(rng, n)``), then zero the hand and
the public block and sort the options. Seat 1: answers out of range. Seat 3: raises.
"""

from cardsim.kernels.rng import bounded
from numba import njit

P_SEAT = 4  # = cardsim.kernels.atlas.state.P_SEAT


@njit
def choose(dtype, hand, pub, options, n, rng):
    seat = pub[P_SEAT]
    if seat == 3:
        raise ValueError("the vandal refuses to play seat 3")
    if seat == 1:
        return n
    pick = bounded(rng, n)
    hand[:] = 0
    pub[:] = 0
    options.sort()
    return pick
