"""The plain-Python twin of examples/atlas_strategy.py, for prototyping without Numba.

``cardsim run atlas --seat 0=py:examples/atlas_strategy_py.py:choose --games 50 --out runs/p``

A ``py:`` ATLAS strategy gets the readable reference's :class:`cardsim.sim.games.atlas.reference.rules.View`
(AT-26: ``view.hand`` your cards, ``view.hand_sizes``, ``view.discard_pile``, ``view.melds``
shown, ``view.face_down``, ``view.discard`` under claim, ``view.trade_target`` …), the decision
type, the options (in the kernel's order) and the strategy stream ``rng``; it returns one of the
options. Same logic as the Numba version, so both give identical tables (tests/test_sdk.py).
"""

from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference.rules import CLAIM, DISCARD, GIVE, SELF_MELD, TARGET


def _keep(hand, t):
    """How much a card is worth keeping: ATLAS most, action cards least, else its cell mates."""
    if t == enc.ATLAS:
        return 1000
    if t > enc.ATLAS:
        return -1  # action cards go first
    return sum(1 for c in hand if c < enc.ATLAS and c // 3 == t // 3)


def choose(view, dtype, options, rng):
    """Claim and meld always; discard / give the least useful card; trade with the smallest hand."""
    if dtype in (CLAIM, SELF_MELD):  # the last option is never NONE
        return options[-1]
    if dtype in (DISCARD, GIVE):  # the least useful card (first of equal value)
        return min(options, key=lambda code: _keep(view.hand, code & 63))
    if dtype == TARGET:  # trade target: fewest cards
        seats = [code for code in options if code >= enc.TARGET]
        return min(seats, key=lambda code: view.hand_sizes[code - enc.TARGET])
    return options[0]  # trade take (seen): the first card type offered
