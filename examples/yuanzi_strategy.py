"""A user-written 原子 strategy: ``cardsim run yuanzi --seat 0=examples/yuanzi_strategy.py:choose``.

The function is compiled with Numba (plain Python is jitted for you) and has the built-in
strategies' signature::

    choose(own, played, pub, legal, n_legal, rng) -> int   # an index into legal[:n_legal]

own      uint8[54]    your hand: count per card type (type = rank idx * 4 + suit, 52 SJ, 53 BJ)
played   uint8[4, 54] cards played this half, per seat
pub      int64[:]     the public state: read it with ``cardsim.kernels.yuanzi.sdk`` (sdk.my_seat(pub),
                      sdk.leading(pub), sdk.partner_on_top(pub), sdk.cards_held(pub, seat),
                      sdk.first_half_margin(pub, team), sdk.rule(pub, sdk.R_PASS_IS_FINAL) …)
legal    int32[:]     legal move codes: decode them with sdk.move_kind / move_size / …;
                      sdk.PASS (0) is there when passing is allowed
rng      uint64[4]    your random stream: sdk.bounded(rng, n) is uniform in [0, n)

It is only called when there are at least two legal moves. Its plain-Python twin, written
against the reference's View, is examples/yuanzi_strategy_py.py (same choices, same tables).
Check it with ``cardsim strategy check yuanzi examples/yuanzi_strategy.py:choose``.
"""

from cardsim.kernels.yuanzi import sdk
from numba import njit


@njit
def choose(own, played, pub, legal, n_legal, rng):
    """Lead the largest combination; follow by passing to the partner, else the smallest beat."""
    if sdk.partner_on_top(pub):
        ip = sdk.find_pass(legal, n_legal)
        if ip >= 0:
            return ip
    leading = sdk.leading(pub)
    best = -1
    best_size = -1
    for i in range(n_legal):
        c = legal[i]
        if c == sdk.PASS:
            continue
        size = sdk.move_size(c)
        if leading:
            better = size > best_size  # lead: shed as many cards as possible
        else:
            better = best < 0 or size < best_size  # follow: the smallest beat
        if better:
            best = i
            best_size = size
    if best < 0:
        return sdk.bounded(rng, n_legal)
    return best
