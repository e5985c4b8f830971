"""An example user strategy for ATLAS: ``cardsim run atlas --seat examples/atlas_strategy.py:choose``.

The function has the signature of the built-in strategies (see ``sim/games/atlas.py``) and must
be Numba-compilable: plain loops over the integer arrays it is given, no Python objects.

This one always claims and melds (preferring the first meld offered), discards action cards
first, then the matching card with the fewest companions in its (continent, class) cell, never
an ATLAS, and trades with the opponent holding the fewest cards.
"""

from numba import njit

# Offsets into ``pub`` (kernels.atlas.state) and decision codes (kernels.atlas.encoding),
# written out here so that the example has no import beyond numba.
P_N, P_SEAT, P_SIZES = 0, 4, 12
DISCARD, TARGET, GIVE = 8192, 16384, 32768
ATLAS = 60


@njit
def _keep(hand, t):
    if t == ATLAS:
        return 1000
    if t > ATLAS:
        return -1  # action cards go first
    cell = t // 3
    return hand[3 * cell] + hand[3 * cell + 1] + hand[3 * cell + 2]


@njit
def choose(dtype, hand, pub, options, n, rng):
    if dtype == 0 or dtype == 1:  # claim / self-meld: the last option is never NONE
        return n - 1
    if dtype == 2 or dtype == 5:  # discard / give: the least useful card
        base = DISCARD if dtype == 2 else GIVE
        best, bv = 0, 1 << 30
        for i in range(n):
            v = _keep(hand, options[i] - base)
            if v < bv:
                best, bv = i, v
        return best
    if dtype == 3:  # trade target: fewest cards
        best, bv = 0, 1 << 30
        for i in range(n):
            if options[i] >= TARGET:
                v = pub[P_SIZES + options[i] - TARGET]
                if v < bv:
                    best, bv = i, v
        return best
    return 0  # trade take (seen): the first card type offered
