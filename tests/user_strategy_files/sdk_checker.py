"""A 原子 strategy that checks the SDK's accessors against each other (tests/test_sdk.py).

It plays greedy's choice and answers -1 (an illegal answer, counted and located) the moment an
accessor disagrees with what the rules say the public state holds (YZ-28).
"""

from cardsim.kernels.yuanzi import sdk
from numba import njit


@njit
def choose(own, played, pub, legal, n, rng):
    """Greedy's choice; -1 when an accessor looks wrong."""
    me = sdk.my_seat(pub)
    if sdk.cards_held(pub, me) != sdk.hand_size(own) or sdk.is_out(pub, me):
        return -1
    if sdk.partner_of(me) != (me + 2) % 4 or sdk.team_of(me) != me % 2:
        return -1
    for t in range(sdk.N_TYPES):
        if sdk.unseen(own, played, t) < 0:
            return -1
    if sdk.half(pub) == 0:  # YZ-28: no first-half result yet
        if sdk.first_half_played(pub) or sdk.first_half_upstream(pub) != -1:
            return -1
        if sdk.first_half_team_points(pub, 0) != -1 or sdk.first_half_margin(pub, 1) != 0:
            return -1
    else:
        a = sdk.first_half_team_points(pub, 0)
        b = sdk.first_half_team_points(pub, 1)
        if a + b != 300 or sdk.first_half_margin(pub, 0) != a - b:
            return -1
        if sdk.first_half_upstream(pub) != sdk.first_half_out(pub, 0):
            return -1
        k = sdk.first_half_seats_out(pub)
        if k < 2 or k > 3 or sdk.first_half_out(pub, k - 1) < 0:
            return -1
    if sdk.rule(pub, sdk.R_PASS_IS_FINAL) != 1 or sdk.rule(pub, sdk.R_LEAD_AFTER_OUT) != (
        sdk.LEAD_AFTER_OUT_PARTNER
    ):
        return -1
    if sdk.leading(pub) != (sdk.top(pub) == 0) or (sdk.leading(pub) and sdk.top_seat(pub) != -1):
        return -1
    ip = sdk.find_pass(legal, n)
    if sdk.leading(pub) and ip >= 0:
        return -1  # YZ-18: the leader may not pass
    for i in range(n):
        c = legal[i]
        if c != sdk.PASS and not sdk.leading(pub) and not sdk.beats_top(pub, c):
            return -1
        if sdk.goes_out(sdk.cards_held(pub, me), c) != (sdk.move_size(c) == sdk.hand_size(own)):
            return -1
    return sdk.greedy(own, played, pub, legal, n, rng)


@njit
def illegal(own, played, pub, legal, n, rng):
    """Greedy, but an out-of-range index whenever it leads a trick in the second half."""
    if sdk.half(pub) == 1 and sdk.leading(pub):
        return n + 5
    return sdk.greedy(own, played, pub, legal, n, rng)
