"""A strategy file that raises when imported (tests/test_user_strategies.py)."""

TABLE = {"a": 1}
LIMIT = TABLE["b"]


def choose(own, played, pub, legal, n_legal, rng):
    return 0
