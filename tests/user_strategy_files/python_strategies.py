"""Plain-Python (py:) 原子 strategies for tests/test_sdk.py."""

from sim import python_sdk as sdk


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
