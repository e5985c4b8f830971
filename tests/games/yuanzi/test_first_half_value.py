"""原子 search, first-half objective (issue 45 item 7; YZ-25, YZ-26): a first half without 双夹
is valued by what it carries into the match — its point margin counts toward the totals and a
300 : 300 match goes to the first-half 上游's team — not by a step at 150 points."""

from cardsim.kernels.yuanzi import pimc
from cardsim.kernels.yuanzi import state as S
from cardsim.kernels.yuanzi.state import rules_array

from tests.games.yuanzi.test_pimc import _end_state

RULES = rules_array({})  # W = 1, S = 2, threshold 60
W = int(RULES[S.R_MATCH_POINTS_WIN])


def value(pts, team, outs=(0, 1, 2)):
    """The objective of ``team`` after a first half of ``pts`` points, no 双夹 (seat 0, team
    0, is the 上游; seat 3 is last, so no team has both players out first)."""
    return int(pimc.objective(_end_state(0, pts, list(outs)), team, RULES))


def test_issue45_item7_first_half_margin_counts():
    """Issue 45 item 7: 151 : 149 and 240 : 60 no longer score the same result; the value
    grows with the margin all the way and is zero-sum between the teams (up to rounding)."""
    assert value((240, 60), 0) - value((151, 149), 0) > 1000 * W // 4
    margins = [(p, 300 - p) for p in range(65, 240, 5)]
    seq = [value(m, 0) for m in margins]
    assert seq == sorted(seq) and len(set(seq)) == len(seq)
    for m in margins:
        assert abs(value(m, 0) + value(m, 1)) <= 1
        assert abs(value(m, 0)) <= 1000 * W


def test_issue45_item7_first_half_tie_goes_toward_the_upstream():
    """Issue 45 item 7 (YZ-26): a 150 : 150 first half is worth something to the team of the
    first-half 上游 (it wins a 300 : 300 match) and costs the other team as much; it is worth
    less than one margin step (145 : 155 with the 上游 is still behind)."""
    assert value((150, 150), 0) > 0 > value((150, 150), 1)
    assert value((150, 150), 1, outs=(1, 0, 2)) > 0 > value((150, 150), 0, outs=(1, 0, 2))
    assert value((145, 155), 0) < 0 < value((155, 145), 0)


def test_issue45_item7_shuangjia_still_ends_the_match():
    """YZ-25: a first-half 双夹 is worth the 双夹 stake, above every non-双夹 first half."""
    sj = int(pimc.objective(_end_state(0, (250, 50), [0, 2, 1]), 0, RULES))
    best = max(value((p, 300 - p), 0) for p in range(65, 245, 5))
    assert sj == 1000 * int(RULES[S.R_MATCH_POINTS_SHUANGJIA]) + 250 > best
