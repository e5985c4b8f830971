"""Plain-Python (py:) strategies for tests/test_sdk.py: 原子 ones, then ATLAS ones."""

from cardsim.sim.games.yuanzi import sdk


def lowest(view, legal):
    """The lowest code (two arguments: no random stream)."""
    return min(legal)


def illegal(view, legal, rng):
    """Returns PASS even when leading (not legal there) in the second half."""
    if view.half == 1 and sdk.leading(view):
        return sdk.PASS
    return min(legal)


def raises(view, legal, rng):
    """Raises in the second half."""
    if view.half == 1:
        raise ValueError("no plan for the second half")
    return min(legal)


def wrong_signature(view):
    return 0


def last_index(view, legal):
    """An index instead of a code: len(legal) - 1 is outside the move-code space."""
    return len(legal) - 1


def huge(view, legal):
    """A number far outside the move-code space."""
    return 999999


def minus_one(view, legal):
    """A negative number (no move code)."""
    return -1


def atlas_illegal(view, dtype, options):
    """ATLAS: the first option, but -5 (no code) at every discard decision."""
    from cardsim.sim.games.atlas.reference.rules import DISCARD

    return -5 if dtype == DISCARD else options[0]
