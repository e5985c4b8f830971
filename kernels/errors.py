"""Errors the kernels raise for bad input (rule options); the base of every cardsim error.

It lives in the lowest layer so that the kernels need nothing above them; ``cardsim.sim.errors``
re-exports it and adds the core's own errors.
"""


class CardsimError(Exception):
    """A user-facing problem (bad input, damaged run directory, …); the message says what to do."""
