"""Strategies that cannot work (tests/test_user_strategies.py): type errors, no function."""


def yuanzi_choose(own, played, pub, legal, n_legal, rng):
    if n_legal > 2:
        return legal  # an array here, an int below: "Can't unify return type"
    return 0


def atlas_choose(dtype, hand, pub, options, n, rng):
    if dtype == 2:
        return 0.5 * n  # a float index
    return 0


not_a_function = 3
