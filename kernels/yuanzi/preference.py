"""原子 greedy's preference: what giving a play up costs, and soft's score of a move.

The one definition of greedy's preference that its kernel strategies (``strategies.py``:
greedy, soft and the others' costs) and the learned policies' feature 0 (``learned.py``) read;
a module of its own so that both can import it without importing each other. Reads only the
deciding seat's view (YZ-28): its own hand ``own``, the public state ``pub``, the legal codes.
"""

import numpy as np
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    BOMB,
    HYDROGEN,
    N_RANKS,
    PASS,
    RANK_POINTS,
    TRIPLE,
    move_jokers,
    move_kind,
    move_rank,
    move_size,
)
from cardsim.kernels.yuanzi.rules import atom_strength, is_dao, power
from cardsim.kernels.yuanzi.state import (
    ST_ACTOR,
    ST_COUNT,
    ST_DAO,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    inline_kernel,
)

#: soft's score unit: one rank of power in greedy's cost (``basic_cost``: 10 per power step);
#: greedy's rules (go out, leave the partner's trick, keep bombs, beat when it can) are tiers
#: ``SOFT_TIER`` units apart, so soft only softens the cost comparison inside them.
U_COST = 10.0
SOFT_TIER = 1000.0
DANGER_CARDS = 5  # an opponent with this few cards is "about to go out"


@inline_kernel
def nat_of(own, r):
    """Natural cards of rank idx ``r`` in the hand."""
    b = r * 4
    return np.int64(own[b]) + own[b + 1] + own[b + 2] + own[b + 3]


@inline_kernel
def jokers_of(own):
    """Jokers (small and big) in the hand."""
    return np.int64(own[52]) + own[53]


@inline_kernel
def opponent_min_count(pub, seat):
    """Fewest cards held by an opponent still in the half (99 if none)."""
    m = 99
    for d in (1, 3):
        c = pub[ST_COUNT + (seat + d) % 4]
        if 0 < c < m:
            m = c
    return m


@inline_kernel
def basic_cost(own, code, dao):
    """How much a single/pair/triple costs to give up (lower is cheaper)."""
    rank = move_rank(code)
    size = move_size(code)
    jok = move_jokers(code)
    if jok == size:
        return (power(code, dao) + 2) * 10 + 150  # joker-only: wild cards are worth keeping
    return natural_cost(power(code, dao), size - jok, jok, nat_of(own, rank))


@inline_kernel
def natural_cost(p, k, jok, nat):
    """``basic_cost`` of a code of power ``p`` with ``k`` of the rank's ``nat`` natural cards and
    ``jok`` jokers (the greedy shortcut calls it with the counts it already holds)."""
    cost = (p + 2) * 10 + jok * 60
    if nat >= 4:
        cost += 300  # breaks a bomb
    elif nat > k:
        cost += 40  # breaks a group
    return cost


@inline_kernel
def bomb_cost(code, dao):
    """How much a bomb-class play costs to give up."""
    kind = move_kind(code)
    size = move_size(code)
    jok = move_jokers(code)
    if kind == BOMB:
        c = 1000 + size * 30 + power(code, dao) + jok * 10
        if is_dao(code, dao):
            c += 300
        return c
    if kind == ATOM:
        return 2000 + atom_strength(code, dao)
    return 3000 + power(code, dao)


@inline_kernel
def move_cost(own, code, dao):
    """What greedy pays to give up ``code`` (``basic_cost`` or ``bomb_cost``; lower is cheaper)."""
    if move_kind(code) <= TRIPLE:
        return basic_cost(own, code, dao)
    return bomb_cost(code, dao)


@inline_kernel
def code_points(code):
    """Points carried by the natural cards of a code."""
    kind = move_kind(code)
    rank = move_rank(code)
    if kind == ATOM:
        return 3 * RANK_POINTS[rank] if rank < N_RANKS else 0  # joker atoms: none
    if kind == HYDROGEN:
        return 8 * RANK_POINTS[rank]
    return (move_size(code) - move_jokers(code)) * RANK_POINTS[rank]


@inline_kernel
def find_pass(legal, n):
    """Index of PASS in ``legal[:n]``, -1 when passing is not allowed."""
    for i in range(n):
        if legal[i] == PASS:
            return i
    return -1


@inline_kernel
def goes_out(own_count, code):
    """Does ``code`` play the whole hand of ``own_count`` cards (the seat goes out)?"""
    return code != PASS and move_size(code) == own_count


@inline_kernel
def plan_size(own):
    """Combinations in the plan: one per rank held, plus one for the jokers."""
    g = 0
    for r in range(N_RANKS):
        if nat_of(own, r) > 0:
            g += 1
    if jokers_of(own) > 0:
        g += 1
    return g


@inline_kernel
def soft_context(pub, legal, n):
    """What greedy's preference (``soft_score``) needs of the decision, computed once:
    (刀 rank, own card count, leading, to_partner — the partner is on top and passing is
    legal — and allow_bomb: the trick holds >= 20 points or an opponent has <= 5 cards)."""
    seat = pub[ST_ACTOR]
    leading = pub[ST_TOP] == 0
    ip = find_pass(legal, n)
    to_partner = not leading and pub[ST_TOP_SEAT] == (seat + 2) % 4 and ip >= 0
    allow_bomb = pub[ST_TRICK_PTS] >= 20 or opponent_min_count(pub, seat) <= DANGER_CARDS
    return pub[ST_DAO], pub[ST_COUNT + seat], leading, to_partner, allow_bomb


@inline_kernel
def soft_score(own, c, dao, total, leading, to_partner, allow_bomb):
    """greedy's preference for the move ``c`` as a score (higher better, in ``U_COST`` units;
    the first of the best scores is greedy's pick): go out, else leave the partner's trick,
    else keep bombs unless allowed, else the cheapest (``move_cost``), tiers ``SOFT_TIER``
    apart. The one definition soft's noise-free score and the learned policies' feature 0
    (``kernels/yuanzi/learned.py``) both read."""
    if goes_out(total, c):
        return 2.0 * SOFT_TIER
    if c == PASS:
        s = 0.0 if to_partner else -SOFT_TIER
        if leading:
            s = -3.0 * SOFT_TIER
        return s
    s = -move_cost(own, c, dao) / U_COST
    if to_partner:
        s -= SOFT_TIER
    elif not leading and move_kind(c) > TRIPLE and not allow_bomb:
        s -= 2.0 * SOFT_TIER
    return s
