"""Domain errors: raised in sim/, turned into a one-line message and exit code 2 by the CLI."""


class CardsimError(Exception):
    """A user-facing problem (bad input, damaged run directory, …); the message says what to do."""
