"""Errors the kernels raise for bad input (rule options); the base of every cardsim error.

It lives in the lowest layer so that the kernels need nothing above them; ``cardsim.sim.errors``
re-exports it and adds the core's own errors.
"""


class CardsimError(Exception):
    """A user-facing problem (bad input, damaged run directory, …); the message says what to do."""


def did_you_mean(name: str, choices) -> str:
    """``" — did you mean 'greedy'?"`` when ``name`` is a likely typo of one of ``choices``
    (difflib's close matches), else ``""`` (issue 45 item 10)."""
    import difflib

    base = str(name).partition(":")[0]
    close = difflib.get_close_matches(base, [str(c) for c in choices], n=1, cutoff=0.7)
    return f" — did you mean {close[0]!r}?" if close and close[0] != base else ""
