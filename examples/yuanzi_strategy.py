"""A user-written 原子 strategy: ``cardsim run yuanzi --seat examples/yuanzi_strategy.py:choose``.

The function is compiled with Numba (plain Python is jitted for you) and must have the
built-in strategies' signature::

    choose(own, played, pub, legal, n_legal, rng) -> int   # an index into legal[:n_legal]

own      uint8[54]    your hand: count per card type (type = rank idx * 4 + suit, 52 SJ, 53 BJ)
played   uint8[4, 54] cards played this half, per seat
pub      int64[:]     public state (offsets in kernels/yuanzi/state.py: ST_ACTOR your seat,
                      ST_DAO the 刀 rank idx, ST_TOP the code on top (0 = you lead), ST_TOP_SEAT,
                      ST_COUNT + s cards held by seat s, ST_CAPT + s points taken, ST_TRICK_PTS …)
legal    int32[:]     legal move codes (kernels/yuanzi/encoding.py: kind = code & 7,
                      size = (code >> 7) & 31, …); 0 is PASS when passing is allowed
rng      uint64[4]    your random stream: kernels.rng.bounded(rng, n) is uniform in [0, n)

It is only called when there are at least two legal moves. Module-level constants are frozen
when the function is compiled.
"""

from numba import njit

from kernels.rng import bounded

ST_ACTOR, ST_TOP, ST_TOP_SEAT = 2, 3, 4  # = kernels.yuanzi.state offsets


@njit
def choose(own, played, pub, legal, n_legal, rng):
    """Lead the largest combination; follow by passing to the partner, else the smallest beat."""
    seat = pub[ST_ACTOR]
    if pub[ST_TOP] != 0 and pub[ST_TOP_SEAT] == (seat + 2) % 4:
        for i in range(n_legal):
            if legal[i] == 0:
                return i
    best = -1
    best_size = -1
    for i in range(n_legal):
        c = legal[i]
        if c == 0:
            continue
        size = (c >> 7) & 31
        if pub[ST_TOP] == 0:
            better = size > best_size  # lead: shed as many cards as possible
        else:
            better = best < 0 or size < best_size  # follow: the smallest beat
        if better:
            best = i
            best_size = size
    if best < 0:
        return bounded(rng, n_legal)
    return best
