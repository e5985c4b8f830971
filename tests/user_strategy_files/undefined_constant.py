"""A py: ATLAS strategy with an undefined decision constant (`SELF` is `SELF_MELD`): it raises
AttributeError at every decision (issue 45 item 10)."""

from cardsim.sim.games.atlas.reference import rules as ref


def choose(view, dtype, options):
    if dtype == ref.CLAIM or dtype == ref.SELF:
        return options[-1]
    return options[0]
