"""Racing at the root of ``ismcts`` (kernels/ismcts_common.py ``race``) and its agreement with
pimc's paired choice (kernels/pimc_common.py ``select``): a dropped challenger is never played."""

import numpy as np
import pytest
from cardsim.kernels.ismcts_common import DROPS, RACE_EVERY, race, race_over
from cardsim.kernels.pimc_common import select


def _sums(diffs):
    """The paired-gain sums ``race`` and ``select`` read: per challenger, the sum of its
    per-iteration differences from greedy's pick and of their squares (row 0: greedy's pick)."""
    d = np.array(diffs, np.int64)
    return d.sum(1), (d * d).sum(1)


#: eight iterations of four challengers against greedy's pick (row 0)
DIFFS = [
    [0] * 8,  # greedy's pick: the reference
    [-5] * 8,  # worse on every determinization
    [5, 0, 5, 0, 5, 0, 5, 0],  # better: mean +2.5
    [0] * 8,  # the same outcome every time
    [10, -10, 10, -10, 10, -10, 10, -12],  # mean -0.25, standard error about 3.8
]


@pytest.mark.parametrize(
    "drop, alive_after",
    [
        ("0", [1, 0, 1, 0, 0]),  # z 0: every mean not above 0 goes
        ("1", [1, 0, 1, 0, 1]),  # z 1: -0.25 + 3.8 > 0 stays
        ("3", [1, 0, 1, 0, 1]),
    ],
)
def test_race_drops_a_challenger_only_when_its_gain_is_not_above_zero(drop, alive_after):
    gain, sq = _sums(DIFFS)
    alive = np.ones(5, np.int32)
    left = race(gain, sq, alive, 5, 8, DROPS.index(drop))
    assert alive.tolist() == alive_after
    assert left == sum(alive_after) - 1  # greedy's pick is not counted: it is the reference


def test_race_keeps_dropped_challengers_dropped_and_select_never_plays_them():
    gain, sq = _sums(DIFFS)
    alive = np.ones(5, np.int32)
    race(gain, sq, alive, 5, 8, DROPS.index("0"))
    # eight more iterations: only the alive ones accumulate (as in choose_ismcts)
    more, more_sq = _sums([[0] * 8, [0] * 8, [1] * 8, [0] * 8, [0] * 8])
    gain2 = gain + more * alive
    sq2 = sq + more_sq * alive
    assert race(gain2, sq2, alive, 5, 16, DROPS.index("0")) == 1
    assert alive.tolist() == [1, 0, 1, 0, 0]
    assert select(gain2, sq2, 5, 16, 20) == 2  # z 2: +1.75 per iteration, clearly positive
    worse = gain2.copy()
    worse[2] = -1  # had the better one lost its lead, greedy's pick would be played
    assert select(worse, sq2, 5, 16, 0) == 0


def test_race_off_is_index_zero():
    assert DROPS[0] == "off"
    assert [float(d) for d in DROPS[1:]] == [0.5 * i for i in range(7)]


def test_race_over_races_only_with_drop_on_and_every_race_every_iterations():
    worse, worse_sq = _sums([[0] * 8, [-5] * 8, [0] * 8])  # both challengers not ahead
    alive = np.ones(3, np.int32)
    assert not race_over(worse, worse_sq, alive, 3, RACE_EVERY, DROPS.index("off"))
    assert not race_over(worse, worse_sq, alive, 3, RACE_EVERY - 1, DROPS.index("0"))
    assert alive.tolist() == [1, 1, 1]  # neither call raced
    assert race_over(worse, worse_sq, alive, 3, RACE_EVERY, DROPS.index("0"))
    assert alive.tolist() == [1, 0, 0]
