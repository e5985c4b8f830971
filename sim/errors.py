"""Domain errors: raised in sim/, turned into a one-line message and exit code 2 by the CLI."""

from cardsim.kernels.errors import CardsimError  # noqa: F401  (the one base)
