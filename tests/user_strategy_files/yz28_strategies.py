"""Two 原子 kernel strategies for the YZ-28 tests (tests/games/yuanzi/test_revised_rulings.py).

``behind_aware`` plays its highest code in the second half when its team is behind after the
first half (else its lowest); ``checker`` answers -1 (an invalid, counted answer) when the
match block of the public state does not hold what YZ-28 says.
"""

from cardsim.kernels.yuanzi import state as KS
from numba import njit


@njit
def behind_aware(own, played, pub, legal, n, rng):
    """Second half: the highest code when its team lost the first half, else the lowest."""
    high = False
    if pub[KS.ST_HALF] == 1:
        team = pub[KS.ST_ACTOR] % 2
        high = pub[KS.ST_H0_TEAM_PTS + team] < pub[KS.ST_H0_TEAM_PTS + 1 - team]
    best = 0
    for i in range(n):
        if (high and legal[i] > legal[best]) or (not high and legal[i] < legal[best]):
            best = i
    return best


@njit
def checker(own, played, pub, legal, n, rng):
    """The lowest code; -1 (an invalid answer, counted) when the match block looks wrong."""
    if pub[KS.ST_RULES + KS.R_PASS_IS_FINAL] != 1 or pub[KS.ST_RULES + KS.R_SHUANGJIA] != 0:
        return -1
    if pub[KS.ST_HALF] == 0:
        for i in range(KS.ST_MATCH, KS.ST_RULES):
            if pub[i] != -1:
                return -1
    else:
        if pub[KS.ST_H0_TEAM_PTS] + pub[KS.ST_H0_TEAM_PTS + 1] != 300:
            return -1
        if pub[KS.ST_H0_UPSTREAM] != pub[KS.ST_H0_OUT] or pub[KS.ST_H0_NOUT] < 2:
            return -1
    best = 0
    for i in range(n):
        if legal[i] < legal[best]:
            best = i
    return best
