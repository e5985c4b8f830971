"""The plain-Python twin of examples/yuanzi_strategy.py, for prototyping without Numba.

``cardsim run yuanzi --seat 0=py:examples/yuanzi_strategy_py.py:choose --games 200 --out runs/p``

A ``py:`` strategy gets the readable reference's :class:`cardsim.sim.games.yuanzi.reference.rules.View` (everything the
seat may know, YZ-28: ``view.hand``, ``view.top``, ``view.top_seat``, ``view.hand_sizes``,
``view.history``, ``view.first_half_team_points``, ``view.rules`` …), the legal codes (in the
kernel's order) and the strategy stream ``rng``; it returns one of the codes. It runs on the
reference engine (slow, but plain Python: print, breakpoints), with the same deals and the same
random stream as the kernel, so this port makes exactly the choices of the Numba version:
tests/test_sdk.py checks that both give identical tables.
"""

from cardsim.kernels.rng import bounded
from cardsim.sim.games.yuanzi import sdk


def choose(view, legal, rng):
    """Lead the largest combination; follow by passing to the partner, else the smallest beat."""
    if sdk.partner_on_top(view) and sdk.PASS in legal:
        return sdk.PASS
    best = None
    best_size = -1
    for code in legal:
        if code == sdk.PASS:
            continue
        size = sdk.move_size(code)
        if sdk.leading(view):
            better = size > best_size  # lead: shed as many cards as possible
        else:
            better = best is None or size < best_size  # follow: the smallest beat
        if better:
            best = code
            best_size = size
    if best is None:
        return legal[int(bounded(rng, len(legal)))]
    return best
