"""原子 built-in strategies, dispatched by integer id inside the cached driver.

Every strategy has one signature (also the one a user-written strategy must have)::

    choose(own, played, pub, legal, n_legal, rng) -> int   # index into legal[:n_legal]

* ``own``     uint8[54]    the deciding seat's own hand (card-type counts; read only);
* ``played``  uint8[4, 54] cards played so far this half, per seat (YZ-28);
* ``pub``     int64[N_ST]  the public state row (``cardsim.kernels.yuanzi.state.ST_*``): half, 刀 rank,
  seat to act (``ST_ACTOR``), top code and seat, passed flags, card counts, out order,
  captured points, points in the trick; and the match block (YZ-28): in the second half the
  first half's team points, 上游 and finish order (``ST_H0_*``), and the rule options in force
  (``ST_RULES``);
* ``legal``   int32[:]     legal move codes (``cardsim.kernels.yuanzi.encoding``); PASS = 0 if allowed;
* ``n_legal`` number of legal codes;  ``rng``: uint64[4] xoshiro state of the strategy stream.

Nothing here can see another seat's hand: it is not among the arguments (YZ-28).
"""

import numpy as np
from cardsim.kernels.levels import KIND_EPS, KIND_LEARNED, decode, draw_key, gumbel
from cardsim.kernels.rng import bounded
from cardsim.kernels.yuanzi import learned as _learned
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    COPIES,
    HYDROGEN,
    N_RANKS,
    PASS,
    TRIPLE,
    move_jokers,
    move_kind,
    move_rank,
    move_size,
    pack_move,
)
from cardsim.kernels.yuanzi.preference import (
    DANGER_CARDS,
    basic_cost,
    bomb_cost,
    code_points,
    find_pass,
    goes_out,
    jokers_of,
    move_cost,
    nat_of,
    natural_cost,
    opponent_min_count,
    plan_size,
    soft_context,
    soft_score,
)
from cardsim.kernels.yuanzi.rules import (
    is_dao,
    lead_code_row,
    lead_count_row,
    power,
)
from cardsim.kernels.yuanzi.state import (
    R_PASS_ONLY_IF_UNABLE,
    ST_ACTOR,
    ST_COUNT,
    ST_DAO,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    hot_kernel,
    inline_kernel,
)

RANDOM, GREEDY, POINTS, BOMBER, PLANNER = 0, 1, 2, 3, 4
#: (name, id, one-line description) of each built-in strategy.
BUILTIN = (
    ("random", RANDOM, "uniform over the legal moves, pass included (strategy RNG stream)"),
    (
        "greedy",
        GREEDY,
        "sheds its weakest combinations first, beats with the cheapest sufficient play, keeps "
        "bombs unless the trick holds >= 20 points or an opponent has <= 5 cards, never beats "
        "its partner",
    ),
    (
        "points",
        POINTS,
        "plays for points: wins tricks holding >= 10 points, feeds 5/10/K to a partner who "
        "controls the trick, withholds them while opponents control it",
    ),
    (
        "bomber",
        BOMBER,
        "aggressive: answers every opponent play with its cheapest bomb, atom or hydrogen "
        "to seize the trick and the lead",
    ),
    (
        "planner",
        PLANNER,
        "splits the hand into the fewest combinations (one per rank) and only ever plays whole "
        "combinations of that plan, bombs when near the end or the trick is rich",
    ),
)
N_BUILTIN = len(BUILTIN)
#: Ids of the levels ``greedy:eps=E`` / ``soft:temp=T`` (kernels/levels.py): above pimc's.
LEVEL_BASE = 1 << 40

_BIG = 1 << 40


@hot_kernel
def cheapest(own, legal, n, dao, extra_points_cost):
    """Index of the cheapest non-pass move (point cards cost ``extra_points_cost`` each 5).

    Compiled once and called (pass an ``int64`` cost): inlined at its seven call sites it was
    most of 原子's cold compile (docs/performance.md)."""
    best = -1
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS:
            continue
        cost = move_cost(own, c, dao) + extra_points_cost * code_points(c) // 5
        if cost < bc:
            bc = cost
            best = i
    return best


@inline_kernel
def choose_random(own, played, pub, legal, n, rng):
    """random: uniform over the legal moves."""
    return bounded(rng, n)


@inline_kernel
def choose_greedy(own, played, pub, legal, n, rng):
    """greedy: weakest first, cheapest sufficient beat, bombs kept for rich or urgent tricks."""
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    total = pub[ST_COUNT + seat]
    for i in range(n):
        if goes_out(total, legal[i]):
            return i
    if pub[ST_TOP] == 0:
        return cheapest(own, legal, n, dao, np.int64(0))
    ip = find_pass(legal, n)
    if pub[ST_TOP_SEAT] == (seat + 2) % 4 and ip >= 0:
        return ip
    allow_bomb = pub[ST_TRICK_PTS] >= 20 or opponent_min_count(pub, seat) <= DANGER_CARDS
    best = ip
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or (move_kind(c) > TRIPLE and not allow_bomb):
            continue
        cost = move_cost(own, c, dao)
        if cost < bc:
            bc = cost
            best = i
    if best < 0:
        best = cheapest(own, legal, n, dao, np.int64(0))
    return best


@inline_kernel
def choose_soft(own, played, pub, legal, n, temp, key):
    """soft: greedy's preference as a score per move (``soft_score``; the best score is
    greedy's pick up to ties), plus ``temp`` · Gumbel noise (``key``), the best."""
    dao, total, leading, to_partner, allow_bomb = soft_context(pub, legal, n)
    best = 0
    bs = -1e300
    for i in range(n):
        s = soft_score(own, legal[i], dao, total, leading, to_partner, allow_bomb)
        s += temp * gumbel(key, i)
        if s > bs:
            bs = s
            best = i
    return best


@hot_kernel
def choose_level(sid, own, played, pub, legal, n, rng):
    """``greedy:eps=E`` / ``soft:temp=T`` / ``learned`` (id ``LEVEL_BASE + ...``,
    kernels/levels.py); draws from the strategy stream ``rng`` only."""
    kind, v = decode(LEVEL_BASE, sid)
    if kind == KIND_EPS:
        if bounded(rng, np.int64(100)) < v:  # int64: bounded compiled once
            return bounded(rng, n)
        # greedy compiled once, in choose_builtin (an int64 id: no second specialization)
        return choose_builtin(np.int64(GREEDY), own, played, pub, legal, n, rng)
    if kind == KIND_LEARNED:  # learned (kernels/yuanzi/learned.py): weight row v >> 16
        return _learned.choose_learned(
            own, played, pub, legal, n, v >> 16, (v & 0xFFFF) / 100.0, rng
        )
    return choose_soft(own, played, pub, legal, n, v / 100.0, draw_key(rng))


#: ``greedy_fast_code`` answer: no shortcut here, build the legal set and ask ``choose_greedy``.
NO_SHORTCUT = -1


@inline_kernel
def _rank_reach(hands, seat, r, dao, jt):
    """Seat ``seat``'s natural cards of rank ``r`` and the largest code of that rank: the naturals
    plus the jokers, none with 刀 cards (YZ-11)."""
    b = r * 4
    nat = np.int64(hands[seat, b]) + hands[seat, b + 1] + hands[seat, b + 2] + hands[seat, b + 3]
    return nat, nat + (0 if r == dao else jt)


@inline_kernel
def random_fast_code(hands, pub, buf, rng):
    """The code ``choose_random`` picks when leading (YZ-18), drawn as it draws — one
    ``bounded`` over the legal set's size, none when that is 1 (the driver does not ask) —
    without building the legal set: ``rules.lead_count_row`` counts it in closed form per rank
    and ``rules.lead_code_row`` builds only the rank that holds the pick. ``NO_SHORTCUT`` when
    following (a count there costs as much as the list: tried, ×0.68). A kernel shortcut,
    checked against the legal set by ``tests/games/yuanzi/test_fast_path.py``.
    """
    if pub[ST_TOP] != 0:
        return NO_SHORTCUT
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    n = lead_count_row(hands, seat, dao)
    return lead_code_row(hands, seat, dao, 0 if n == 1 else bounded(rng, n), buf)


@inline_kernel
def _greedy_lead(hands, seat, dao, total, jt):
    """Leading (YZ-18): ``choose_greedy``'s pick in one pass over the ranks, or ``NO_SHORTCUT``.

    ``basic_cost`` of a rank's codes is ``(power + 2) * 10``, plus 60 per joker, plus 300 when
    the rank holds 4 or more natural cards (a bomb broken whatever is played) or else 40 when a
    group is split. So a rank's least code is its whole group (``nat`` <= 3: size ``nat``, no
    jokers) or, from 4 cards up, its natural single — the first of least cost in the
    generators' order. The ranks' least costs all differ (powers differ by steps of 10, the
    bomb term is 300, joker-only plays cost 160 or 170), so no tie between ranks is left to
    the order. The joker-only single comes after the ranks, as in ``rules.gen_all_row``.
    """
    max_size = jt  # largest code the hand holds: rank + usable jokers, or all jokers
    best = PASS
    bc = _BIG
    for r in range(N_RANKS):
        nat, reach = _rank_reach(hands, seat, r, dao, jt)
        if nat == 0:
            continue
        if reach > max_size:
            max_size = reach
        size = nat if nat < 4 else 1
        cost = natural_cost(13 if r == dao else r, size, 0, nat)
        if cost < bc:
            bc = cost
            best = pack_move(size, r, size, 0, 0)
    if total <= max_size:
        return NO_SHORTCUT  # some code might go out
    if jt >= 1:  # the joker single, after the ranks (YZ-11)
        c = pack_move(1, 0, 1, 1, 0)
        if basic_cost(hands[seat], c, dao) < bc:
            best = c
    return best


@inline_kernel
def _greedy_follow_ranks(hands, seat, dao, jt, lo, tp, may_go_out):
    """Following: ``(best, its cost, max_size)`` — the first code of least ``basic_cost`` among
    the ranks' codes of size ``lo`` that beat power ``tp`` (YZ-13; PASS and ``_BIG`` when none,
    always when ``lo`` is 0), and the largest code the hand holds (rank + usable jokers, or all
    jokers, YZ-11; only the ranks that beat are looked at unless ``may_go_out``)."""
    max_size = jt
    best = PASS
    bc = _BIG
    for r in range(N_RANKS):
        pr = 13 if r == dao else r
        if not may_go_out and (lo == 0 or pr <= tp):
            continue
        nat, reach = _rank_reach(hands, seat, r, dao, jt)
        if nat == 0:
            continue
        if reach > max_size:
            max_size = reach
        if lo == 0 or reach < lo or pr <= tp:
            continue
        # the rank's codes of size lo (rules._emit_rank_sized: k naturals, lo - k jokers) cost
        # less with every joker fewer (basic_cost: 60 a joker, 40 or 0 for a split group), so
        # its first code of least cost has the most naturals
        k = nat if nat < lo else lo
        cost = natural_cost(pr, k, lo - k, nat)
        if cost < bc:
            bc = cost
            best = pack_move(lo, r, lo, lo - k, 0)
    return best, bc, max_size


@inline_kernel
def _may_hold_bomb_class(hands, seat, may_go_out, max_size):
    """Whether the hand may hold a bomb-class code (YZ-10): a bomb (4 cards of a rank with its
    jokers, hydrogen 8, joker bombs 4 jokers: all under ``max_size``, which is complete when
    ``may_go_out``) or an atom (3 of one card)."""
    if not may_go_out or max_size >= 4:
        return True
    t = 0  # atoms: the first card type held 3 times (the joker atoms included)
    while t < 54 and hands[seat, t] != 3:
        t += 1
    return t < 54


@inline_kernel
def _greedy_follow(hands, pub, rules, top, seat, dao, total, jt):
    """Following: ``choose_greedy``'s pick, or ``NO_SHORTCUT``.

    Walks the ranks that beat in the generators' order (``_greedy_follow_ranks``; bombs, atoms
    and hydrogen interleave there but never win), then the joker-only code of the top's size.
    PASS (always legal here) when no basic code beats and bombs are not allowed or the hand
    holds no bomb-class code, or when the partner is on top. Declines where greedy could pick
    something else: a code might empty the hand (``goes_out``), ``pass_only_if_unable``
    (YZ-18), or bombs allowed, no basic code beats and the hand may hold a bomb-class code.
    """
    if rules[R_PASS_ONLY_IF_UNABLE] == 1:
        return NO_SHORTCUT
    to_partner = pub[ST_TOP_SEAT] == (seat + 2) % 4  # never beat the partner: no costs needed
    tk = move_kind(top)
    lo = tk if tk <= TRIPLE and not is_dao(top, dao) and not to_partner else 0  # YZ-13
    tp = power(top, dao)
    # a code holds at most one rank's COPIES * 4 naturals plus the jokers: a bigger hand cannot
    # go out, and only the ranks that beat need a look
    may_go_out = total <= COPIES * 4 + jt
    best, bc, max_size = _greedy_follow_ranks(hands, seat, dao, jt, lo, tp, may_go_out)
    if total <= max_size:
        return NO_SHORTCUT  # some code might go out
    if to_partner:
        return PASS
    joker_power = -1 if dao == 0 else 0  # joker-only plays: rank "3", never 刀 (YZ-11)
    if lo != 0 and jt >= lo and joker_power > tp:  # after the ranks, as in the generators
        c = pack_move(lo, 0, lo, lo, 0)
        if basic_cost(hands[seat], c, dao) < bc:
            best = c
    if best != PASS:
        return best
    # greedy's allow_bomb: a bomb may beat where no basic code does
    allow_bomb = pub[ST_TRICK_PTS] >= 20 or opponent_min_count(pub, seat) <= DANGER_CARDS
    if allow_bomb and _may_hold_bomb_class(hands, seat, may_go_out, max_size):
        return NO_SHORTCUT
    return PASS


@inline_kernel
def greedy_fast_code(hands, pub, rules):
    """The code ``choose_greedy`` picks, found without building the legal set, or
    ``NO_SHORTCUT``.

    A kernel shortcut (not a strategy): it reads only the actor's own hand row and public state.
    Greedy takes the first code of least cost; every basic code (single, pair, triple) costs
    under 1,000 and every bomb-class code 1,000 or more (``basic_cost``, ``bomb_cost``), so
    whenever a basic code is legal greedy's pick is one. Leading, ``_greedy_lead`` finds it in
    closed form; following, ``_greedy_follow``. ``tests/games/yuanzi/test_fast_path.py`` checks
    it against ``choose_greedy`` decision by decision.
    """
    top = pub[ST_TOP]
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    total = pub[ST_COUNT + seat]
    jt = np.int64(hands[seat, 52]) + hands[seat, 53]
    if top == 0:
        return _greedy_lead(hands, seat, dao, total, jt)
    return _greedy_follow(hands, pub, rules, top, seat, dao, total, jt)


@inline_kernel
def _points_feed(own, legal, n, dao, best):
    """points, partner on top: the basic play carrying the most points (``best`` if none)."""
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or move_kind(c) > TRIPLE:
            continue
        pts = code_points(c)
        if pts == 0:
            continue
        cost = basic_cost(own, c, dao) - pts * 20
        if cost < bc:
            bc = cost
            best = i
    return best


@inline_kernel
def _points_take(own, legal, n, dao, best, allow_bomb):
    """points, a rich trick: the cheapest beat, bombs only if ``allow_bomb``."""
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or (move_kind(c) > TRIPLE and not allow_bomb):
            continue
        cost = move_cost(own, c, dao)
        if cost < bc:
            bc = cost
            best = i
    return best


@inline_kernel
def _points_cheap(own, legal, n, dao, best):
    """points, a poor trick: cheap basic beats only, never with point cards."""
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or move_kind(c) > TRIPLE or code_points(c) > 0:
            continue
        cost = basic_cost(own, c, dao)
        if cost < bc:
            bc = cost
            best = i
    return best


@inline_kernel
def choose_points(own, played, pub, legal, n, rng):
    """points: take rich tricks, feed point cards to the partner, withhold them otherwise."""
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    total = pub[ST_COUNT + seat]
    for i in range(n):
        if goes_out(total, legal[i]):
            return i
    if pub[ST_TOP] == 0:
        return cheapest(own, legal, n, dao, np.int64(12))  # lead without point cards when possible
    ip = find_pass(legal, n)
    tp = pub[ST_TRICK_PTS]
    danger = opponent_min_count(pub, seat) <= DANGER_CARDS
    if pub[ST_TOP_SEAT] == (seat + 2) % 4:  # partner controls: feed it points
        best = _points_feed(own, legal, n, dao, ip)
    elif tp >= 10 or danger:
        best = _points_take(own, legal, n, dao, ip, tp >= 25 or danger)
    else:
        best = _points_cheap(own, legal, n, dao, ip)
    if best < 0:
        best = cheapest(own, legal, n, dao, np.int64(12))
    return best


@inline_kernel
def choose_bomber(own, played, pub, legal, n, rng):
    """bomber: bomb every opponent play at once; lead the weakest combination."""
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    total = pub[ST_COUNT + seat]
    for i in range(n):
        if goes_out(total, legal[i]):
            return i
    if pub[ST_TOP] == 0:
        return cheapest(own, legal, n, dao, np.int64(0))
    ip = find_pass(legal, n)
    if pub[ST_TOP_SEAT] == (seat + 2) % 4 and ip >= 0:
        return ip
    best = -1
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or move_kind(c) <= TRIPLE:
            continue
        cost = bomb_cost(c, dao)
        if cost < bc:
            bc = cost
            best = i
    if best >= 0:
        return best
    best = cheapest(own, legal, n, dao, np.int64(0))
    return best if best >= 0 else ip


@inline_kernel
def is_whole(own, code):
    """Does ``code`` play exactly one whole combination of the plan (a rank, or all jokers)?"""
    kind = move_kind(code)
    rank = move_rank(code)
    size = move_size(code)
    jok = move_jokers(code)
    if kind == ATOM:
        return rank >= 13 or nat_of(own, rank) == 3
    if kind == HYDROGEN:
        return nat_of(own, rank) == 8
    if jok == size:
        return size == jokers_of(own)
    return jok == 0 and size == nat_of(own, rank)


@inline_kernel
def choose_planner(own, played, pub, legal, n, rng):
    """planner: play whole combinations of a fewest-combinations plan, lowest first."""
    seat = pub[ST_ACTOR]
    dao = pub[ST_DAO]
    total = pub[ST_COUNT + seat]
    for i in range(n):
        if goes_out(total, legal[i]):
            return i
    groups = plan_size(own)
    ip = find_pass(legal, n)
    leading = pub[ST_TOP] == 0
    if not leading and pub[ST_TOP_SEAT] == (seat + 2) % 4 and ip >= 0:
        return ip
    allow_bomb = (
        leading
        or groups <= 2
        or pub[ST_TRICK_PTS] >= 15
        or opponent_min_count(pub, seat) <= DANGER_CARDS
    )
    best = -1
    bc = _BIG
    for i in range(n):
        c = legal[i]
        if c == PASS or not is_whole(own, c):
            continue
        kind = move_kind(c)
        if kind > TRIPLE and not allow_bomb:
            continue
        if move_jokers(c) == move_size(c):
            cost = 900 + move_size(c)  # the joker group goes last among the small plays
        elif kind <= TRIPLE:
            cost = (power(c, dao) + 2) * 10
        else:
            cost = bomb_cost(c, dao)
        if cost < bc:
            bc = cost
            best = i
    if best >= 0:
        return best
    if ip >= 0:
        return ip
    return cheapest(own, legal, n, dao, np.int64(0))


@hot_kernel
def choose_builtin(sid, own, played, pub, legal, n, rng):
    """Dispatch a built-in strategy by id; returns an index into ``legal``."""
    if sid == GREEDY:
        return choose_greedy(own, played, pub, legal, n, rng)
    if sid == POINTS:
        return choose_points(own, played, pub, legal, n, rng)
    if sid == BOMBER:
        return choose_bomber(own, played, pub, legal, n, rng)
    if sid == PLANNER:
        return choose_planner(own, played, pub, legal, n, rng)
    return choose_random(own, played, pub, legal, n, rng)
