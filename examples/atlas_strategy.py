"""An example user strategy for ATLAS: ``cardsim run atlas --seat 0=examples/atlas_strategy.py:choose``.

The function has the built-in strategies' signature and is compiled with Numba (plain loops
over the integer arrays it is given, no Python objects)::

    choose(dtype, hand, pub, options, n, rng) -> int   # an index into options[:n]

dtype    the decision: sdk.DT_CLAIM, DT_SELF, DT_DISCARD, DT_TARGET, DT_TAKE, DT_GIVE
hand     int32[64] your cards, count per type (0..59 species, sdk.ATLAS, SKIP, REVERSE, TRADE)
pub      int32[:]  the public block: read it with ``cardsim.kernels.atlas.sdk`` (sdk.my_seat(pub),
                   sdk.hand_size(pub, seat), sdk.unseen(hand, pub, t), sdk.claim_card(pub),
                   sdk.rule(pub, sdk.R_TRADE_PICK) …)
options  int32[:]  the legal codes: sdk.card_of(code) for a discard / give / take,
                   sdk.target_of(code) for a TRADE target, sdk.meld_kind_of(code) for a meld
rng      uint64[4] your random stream: sdk.bounded(rng, n) is uniform in [0, n)

This one always claims and melds (the last option offered, never NONE), discards action cards
first, then the matching card with the fewest companions in its (continent, class) cell, never
an ATLAS, and trades with the opponent holding the fewest cards. Check it with
``cardsim strategy check atlas examples/atlas_strategy.py:choose``.
"""

from cardsim.kernels.atlas import sdk
from numba import njit


@njit
def _keep(hand, t):
    """How much a card is worth keeping: ATLAS most, action cards least, else its cell mates."""
    if t == sdk.ATLAS:
        return 1000
    if t > sdk.ATLAS:
        return -1  # action cards go first
    return sdk.cell_count(hand, sdk.cell_of(t))


@njit
def choose(dtype, hand, pub, options, n, rng):
    """Claim and meld always; discard / give the least useful card; trade with the smallest hand."""
    if dtype == sdk.DT_CLAIM or dtype == sdk.DT_SELF:  # the last option is never NONE
        return n - 1
    if dtype == sdk.DT_DISCARD or dtype == sdk.DT_GIVE:  # the least useful card
        best, bv = 0, 1 << 30
        for i in range(n):
            v = _keep(hand, sdk.card_of(options[i]))
            if v < bv:
                best, bv = i, v
        return best
    if dtype == sdk.DT_TARGET:  # trade target: fewest cards
        best, bv = 0, 1 << 30
        for i in range(n):
            seat = sdk.target_of(options[i])
            if seat >= 0:
                v = sdk.hand_size(pub, seat)
                if v < bv:
                    best, bv = i, v
        return best
    return 0  # trade take (seen): the first card type offered
