"""原子 rules kernel: deal, legal moves, beats, apply a move, end of half and settlement.

Follows docs/yuanzi-protocol.md (§1 deal, §2 moves, §3 beats, §4 trick, §5 settlement);
the rulings are cited per block (YZ-nn, ../shared/RULINGS.md).
"""

import numpy as np
from cardsim.kernels.jit import hot_kernel, kernel
from cardsim.kernels.rng import bounded, shuffle
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    ATOM_BIG_JOKER_RANK,
    ATOM_SMALL_JOKER_RANK,
    BIG_JOKER,
    BOMB,
    HYDROGEN,
    N_CARDS,
    N_RANKS,
    N_TYPES,
    PASS,
    POINT_RANKS,
    RANK_POINTS,
    RANK_VALUE,
    SMALL_JOKER,
    TRIPLE,
    move_jokers,
    move_kind,
    move_rank,
    move_size,
    move_suit,
    pack_move,
)
from cardsim.kernels.yuanzi.state import (
    INFO_DAO_CARDS,
    INFO_DEALT,
    INFO_JOKERS,
    R_DAO_BOMB,
    R_DAO_BOMB_BEATS_DAO_BASIC,
    R_LEAD_AFTER_OUT,
    R_ONE_TWO_SETTLEMENT,
    R_PASS_IS_FINAL,
    R_PASS_ONLY_IF_UNABLE,
    ST_ACTOR,
    ST_ATOMS,
    ST_BOMBS,
    ST_CAPT,
    ST_COUNT,
    ST_DAO,
    ST_DAO_BOMBS,
    ST_DECISIONS,
    ST_DONE,
    ST_FALLBACK,
    ST_FINISH,
    ST_FIRST_LEADER,
    ST_FIRST_RECV,
    ST_HALF,
    ST_HYDROGENS,
    ST_INDICATOR,
    ST_LAST,
    ST_LEADER,
    ST_MATCH,
    ST_NOUT,
    ST_ONE_TWO,
    ST_OUT,
    ST_PASSED,
    ST_PLAYS,
    ST_POINTS,
    ST_RULES,
    ST_TEAM_PTS,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    ST_TRICKS,
    inline_kernel,
)
from numba.cpython.unsafe.numbers import trailing_zeros

#: the power of a 刀 play: above every natural rank (YZ-09: 刀 > 2 > A > … > 3)
DAO_POWER = N_RANKS


@inline_kernel
def power(code, dao):
    """Power of a single/pair/triple/bomb/hydrogen code (protocol §2, YZ-09, YZ-11)."""
    rank = move_rank(code)
    size = move_size(code)
    jok = move_jokers(code)
    if jok == size:  # joker-only: a 3 that is never 刀, below 4 when 3 is 刀 (YZ-11)
        return -1 if dao == 0 else 0
    if rank == dao:
        return DAO_POWER
    return rank


@inline_kernel
def is_dao(code, dao):
    """A 刀 play: its rank is the 刀 and it holds no jokers (YZ-11, YZ-14)."""
    return move_rank(code) == dao and move_jokers(code) == 0


@inline_kernel
def atom_strength(code, dao):
    """YZ-16: 刀原子 > 大王原子 > 小王原子 > ordinary atoms by rank then suit."""
    rank = move_rank(code)
    suit = move_suit(code)
    if rank == dao:
        return 100 + suit
    if rank == ATOM_BIG_JOKER_RANK:
        return 90
    if rank == ATOM_SMALL_JOKER_RANK:
        return 80
    return rank * 4 + suit


@inline_kernel
def bomb_beats_bomb(play, top, dao, dao_bomb_mode):
    """YZ-15 bomb on bomb (mode 0 over_all, 1 same_count_only)."""
    ps = move_size(play)
    ts = move_size(top)
    pd = is_dao(play, dao)
    td = is_dao(top, dao)
    if dao_bomb_mode == 0:
        if pd != td:
            return pd
        if ps != ts:
            return ps > ts
        return power(play, dao) > power(top, dao)
    if ps != ts:
        return ps > ts
    if pd != td:
        return pd
    return power(play, dao) > power(top, dao)


@kernel
def beats(play, top, dao, rules):
    """Does ``play`` beat ``top`` (protocol §3, YZ-13 … YZ-17)?"""
    tk = move_kind(top)
    pk = move_kind(play)
    if tk <= TRIPLE:
        if pk == tk:
            return power(play, dao) > power(top, dao)  # YZ-13
        if pk == BOMB:
            if is_dao(top, dao):  # YZ-14
                return rules[R_DAO_BOMB_BEATS_DAO_BASIC] == 1 and is_dao(play, dao)
            return True
        return pk >= ATOM
    if tk == BOMB:  # YZ-15
        if pk >= ATOM:
            return True
        if pk != BOMB:
            return False
        return bomb_beats_bomb(play, top, dao, rules[R_DAO_BOMB])
    if tk == ATOM:  # YZ-16
        if pk == HYDROGEN:
            return True
        return pk == ATOM and atom_strength(play, dao) > atom_strength(top, dao)
    # hydrogen on top (YZ-17)
    return pk == HYDROGEN and power(play, dao) > power(top, dao)


# --- legal moves ---------------------------------------------------------------------------


@inline_kernel
def _emit_rank_sized(r, nat, jok_avail, s, kind, buf, n):
    """All codes of one natural rank and size ``s`` (natural count k >= 1, jokers s - k)."""
    kmin = s - jok_avail
    if kmin < 1:
        kmin = 1
    kmax = nat if nat < s else s
    for k in range(kmin, kmax + 1):
        buf[n] = pack_move(kind, r, s, s - k, 0)
        n += 1
    return n


@inline_kernel
def _lead_rank(hands, q, r, ja, buf, n):
    """Append seat ``q``'s leads of natural rank ``r`` (``ja`` usable jokers): every size with k
    naturals and s - k jokers, then its atoms (YZ-16) and its hydrogen bomb (YZ-17)."""
    b = r * 4
    c0 = np.int64(hands[q, b])
    c1 = np.int64(hands[q, b + 1])
    c2 = np.int64(hands[q, b + 2])
    c3 = np.int64(hands[q, b + 3])
    nat = c0 + c1 + c2 + c3
    for s in range(1, nat + ja + 1):
        kind = s if s < 4 else BOMB
        n = _emit_rank_sized(r, nat, ja, s, kind, buf, n)
    if c0 == 3:
        buf[n] = pack_move(ATOM, r, 3, 0, 0)
        n += 1
    if c1 == 3:
        buf[n] = pack_move(ATOM, r, 3, 0, 1)
        n += 1
    if c2 == 3:
        buf[n] = pack_move(ATOM, r, 3, 0, 2)
        n += 1
    if c3 == 3:
        buf[n] = pack_move(ATOM, r, 3, 0, 3)
        n += 1
    if c0 >= 2 and c1 >= 2 and c2 >= 2 and c3 >= 2:
        buf[n] = pack_move(HYDROGEN, r, 8, 0, 0)
        n += 1
    return n


@inline_kernel
def _lead_rank_count(hands, q, r, ja):
    """How many codes ``_lead_rank`` appends: one per (naturals 1 … nat, jokers 0 … ja) pair,
    plus the atoms and the hydrogen bomb."""
    b = r * 4
    c0 = np.int64(hands[q, b])
    c1 = np.int64(hands[q, b + 1])
    c2 = np.int64(hands[q, b + 2])
    c3 = np.int64(hands[q, b + 3])
    k = (c0 + c1 + c2 + c3) * (ja + 1)
    k += (c0 == 3) + (c1 == 3) + (c2 == 3) + (c3 == 3)
    return k + (c0 >= 2 and c1 >= 2 and c2 >= 2 and c3 >= 2)


@inline_kernel
def _lead_jokers(sj, bj, buf, n):
    """Append the joker-only leads: sizes 1 … jokers at rank "3", never 刀 (YZ-11), then the
    joker atoms."""
    for s in range(1, sj + bj + 1):
        kind = s if s < 4 else BOMB
        buf[n] = pack_move(kind, 0, s, s, 0)
        n += 1
    if sj == 3:
        buf[n] = pack_move(ATOM, ATOM_SMALL_JOKER_RANK, 3, 0, 0)
        n += 1
    if bj == 3:
        buf[n] = pack_move(ATOM, ATOM_BIG_JOKER_RANK, 3, 0, 0)
        n += 1
    return n


@inline_kernel
def gen_all_row(hands, q, dao, buf):
    """Every combination seat ``q`` holds (the leader's legal set, protocol §2); returns count.

    Reads ``hands[q, t]`` directly: a row view per call would cost reference-count updates.
    """
    n = 0
    sj = np.int64(hands[q, SMALL_JOKER])
    bj = np.int64(hands[q, BIG_JOKER])
    for r in range(N_RANKS):
        b = r * 4
        if hands[q, b] or hands[q, b + 1] or hands[q, b + 2] or hands[q, b + 3]:
            n = _lead_rank(hands, q, r, 0 if r == dao else sj + bj, buf, n)  # YZ-11: no 刀
    return _lead_jokers(sj, bj, buf, n)


@inline_kernel
def lead_count_row(hands, q, dao):
    """``gen_all_row``'s count without building the list."""
    sj = np.int64(hands[q, SMALL_JOKER])
    bj = np.int64(hands[q, BIG_JOKER])
    n = sj + bj + (sj == 3) + (bj == 3)
    for r in range(N_RANKS):
        n += _lead_rank_count(hands, q, r, 0 if r == dao else sj + bj)
    return n


@inline_kernel
def lead_code_row(hands, q, dao, i, buf):
    """``gen_all_row``'s code at index ``i`` (0 <= i < ``lead_count_row``), building only the
    part that holds it (into ``buf``)."""
    sj = np.int64(hands[q, SMALL_JOKER])
    bj = np.int64(hands[q, BIG_JOKER])
    for r in range(N_RANKS):
        ja = 0 if r == dao else sj + bj
        k = _lead_rank_count(hands, q, r, ja)
        if i < k:
            _lead_rank(hands, q, r, ja, buf, 0)
            return buf[i]
        i -= k
    _lead_jokers(sj, bj, buf, 0)
    return buf[i]


@inline_kernel
def gen_all(hand, dao, buf):
    """Every combination the hand holds (the leader's legal set, protocol §2); returns count."""
    return gen_all_row(hand.reshape((1, N_TYPES)), 0, dao, buf)


@inline_kernel
def _bomb_min_size(p, pd, ts, tp, td, mode):
    """Smallest size at which a bomb of power ``p`` (刀 if ``pd``) beats a bomb on top (YZ-15);
    99 if none does."""
    if mode == 0:  # over_all: 刀 first, then size, then power
        if pd != td:
            return 4 if pd else 99
        return ts if p > tp else ts + 1
    if pd == td:  # same_count_only: size first; equal size: 刀, then power
        return ts if p > tp else ts + 1
    return ts if pd else ts + 1


@inline_kernel
def _least_natural(ja, above, basic, bombs, atoms):
    """The fewest natural cards with which a rank (``ja`` usable jokers; ``above``: its power
    beats the top's) can meet the entry test of one of ``_gen_follow``'s per-rank blocks:
    basic (``basic - ja``), bomb (``4 - ja``), atom (3) or hydrogen (8: every suit twice);
    at least 1."""
    t = 8
    if atoms:
        t = 3
    if bombs and 4 - ja < t:
        t = 4 - ja
    if basic != 0 and above and basic - ja < t:
        t = basic - ja
    return t if t > 1 else 1


@inline_kernel
def _follow_ranks(hands, q, dao, jt, tp, basic, bombs, atoms):
    """The ranks where ``_gen_follow``'s per-rank blocks may append a code, as the bits of one
    integer (bit ``r``: rank ``r``): those holding at least ``_least_natural`` natural cards.
    One compare per rank, no branch (a branch per rank mispredicts on a random hand); a
    superset is harmless, the blocks decide."""
    t_above = _least_natural(jt, True, basic, bombs, atoms)
    t_below = _least_natural(jt, False, basic, bombs, atoms)
    t_dao = _least_natural(0, tp < DAO_POWER, basic, bombs, atoms)  # YZ-11: no jokers
    m = 0
    for r in range(N_RANKS):
        b = r * 4
        nat = np.int64(hands[q, b]) + hands[q, b + 1] + hands[q, b + 2] + hands[q, b + 3]
        t = t_above if r > tp else t_below
        t = t_dao if r == dao else t
        m |= np.int64(nat >= t) << r
    return m


@inline_kernel
def _gen_follow(hands, q, dao, top, rules, buf, n):
    """Append the codes of seat ``q`` that beat ``top`` (YZ-13 … YZ-17), rank by rank.

    Equivalent to filtering every combination with :func:`beats` (tested), but computes per
    rank which sizes beat instead of testing each code, and visits only the ranks that
    ``_follow_ranks`` marks (ascending, so the list's order is the rank loop's).
    """
    tk = move_kind(top)
    sj = np.int64(hands[q, SMALL_JOKER])
    bj = np.int64(hands[q, BIG_JOKER])
    jt = sj + bj
    ts = move_size(top)
    tp = power(top, dao)
    td = is_dao(top, dao)
    mode = rules[R_DAO_BOMB]
    # which bombs can beat: 0 none, 1 all, 2 刀 bombs only, 3 by _bomb_min_size
    if tk <= TRIPLE:
        if td:
            bomb_rule = 2 if rules[R_DAO_BOMB_BEATS_DAO_BASIC] == 1 else 0
        else:
            bomb_rule = 1
    elif tk == BOMB:
        bomb_rule = 3
    else:
        bomb_rule = 0
    top_atom = atom_strength(top, dao) if tk == ATOM else -1
    basic = tk if tk <= TRIPLE and not td else 0  # YZ-13: same type, higher rank
    m = _follow_ranks(hands, q, dao, jt, tp, basic, bomb_rule != 0, tk <= ATOM)
    while m != 0:
        r = np.int64(trailing_zeros(m))
        m &= m - 1
        b = r * 4
        c0 = np.int64(hands[q, b])
        c1 = np.int64(hands[q, b + 1])
        c2 = np.int64(hands[q, b + 2])
        c3 = np.int64(hands[q, b + 3])
        nat = c0 + c1 + c2 + c3
        ja = 0 if r == dao else jt
        if basic != 0 and nat + ja >= basic and (DAO_POWER if r == dao else r) > tp:
            n = _emit_rank_sized(r, nat, ja, basic, basic, buf, n)
        if bomb_rule != 0 and nat + ja >= 4:
            smin = 4
            if bomb_rule == 2:
                smin = 4 if r == dao else 99
            elif bomb_rule == 3:
                smin = _bomb_min_size(DAO_POWER if r == dao else r, r == dao, ts, tp, td, mode)
                if smin < 4:
                    smin = 4
            for s in range(smin, nat + ja + 1):
                n = _emit_rank_sized(r, nat, ja, s, BOMB, buf, n)
        if tk <= ATOM and nat >= 3:
            for su in range(4):
                if hands[q, b + su] == 3:
                    c = pack_move(ATOM, r, 3, 0, su)
                    if tk != ATOM or atom_strength(c, dao) > top_atom:
                        buf[n] = c
                        n += 1
        if (c0 >= 2 and c1 >= 2 and c2 >= 2 and c3 >= 2) and (
            tk != HYDROGEN or (DAO_POWER if r == dao else r) > tp
        ):
            buf[n] = pack_move(HYDROGEN, r, 8, 0, 0)
            n += 1
    if basic != 0 and jt >= basic and (-1 if dao == 0 else 0) > tp:  # joker-only basic
        buf[n] = pack_move(basic, 0, basic, basic, 0)
        n += 1
    if jt >= 4 and (bomb_rule == 1 or bomb_rule == 3):  # joker-only bombs: never 刀
        smin = 4
        if bomb_rule == 3:
            smin = _bomb_min_size(-1 if dao == 0 else 0, False, ts, tp, td, mode)
            if smin < 4:
                smin = 4
        for s in range(smin, jt + 1):
            buf[n] = pack_move(BOMB, 0, s, s, 0)
            n += 1
    if tk <= ATOM:
        if sj == 3 and (tk != ATOM or top_atom < 80):
            buf[n] = pack_move(ATOM, ATOM_SMALL_JOKER_RANK, 3, 0, 0)
            n += 1
        if bj == 3 and (tk != ATOM or top_atom < 90):
            buf[n] = pack_move(ATOM, ATOM_BIG_JOKER_RANK, 3, 0, 0)
            n += 1
    return n


@inline_kernel
def gen_beats(hand, dao, top, rules, buf):
    """Every code of the hand that beats ``top`` (YZ-13 … YZ-17); returns count."""
    return _gen_follow(hand.reshape((1, N_TYPES)), 0, dao, top, rules, buf, 0)


@inline_kernel
def legal_moves(hands, st, rules, buf):
    """The legal set of the seat to act (protocol §4) into ``buf``; returns its size."""
    seat = st[ST_ACTOR]
    top = st[ST_TOP]
    dao = st[ST_DAO]
    if top == 0:  # YZ-18: the leader plays any combination and may not pass
        return gen_all_row(hands, seat, dao, buf)
    n = _gen_follow(hands, seat, dao, top, rules, buf, 0)
    if n > 0 and rules[R_PASS_ONLY_IF_UNABLE] == 1:
        return n
    buf[n] = PASS
    return n + 1


@hot_kernel
def legal_call(hands, st, rules, buf):
    """:func:`legal_moves`, compiled once and called (by the driver's play loop when no
    shortcut applies, ``decide_turn`` and the search strategies): inlined into each, it
    compiled once per caller."""
    return legal_moves(hands, st, rules, buf)


# --- the deal (protocol §1, YZ-05 … YZ-08) -----------------------------------------------


@kernel
def draw_half_deck(state, deck, joker_rule):
    """Shuffle a fresh canonical deck and draw the indicator position (stream 0 order)."""
    for i in range(N_CARDS):
        deck[i] = i // 3
    shuffle(state, deck, N_CARDS)
    p = bounded(state, np.int64(N_CARDS))  # int64, not a literal: bounded compiled once
    if joker_rule == 1:  # YZ-06 redraw: rejection, uniform over non-joker positions
        while deck[p] >= SMALL_JOKER:
            p = bounded(state, np.int64(N_CARDS))
    return p


@inline_kernel
def dao_of_indicator(card, half):
    """(刀 rank idx, fallback) of an indicator card (YZ-06)."""
    if card >= SMALL_JOKER:
        return 0, 1
    r = card // 4
    if half == 1 and (r == 2 or r == 7 or r == 10):  # POINT_RANKS: 5, 10, K
        return 0, 2
    return r, 0


@kernel
def begin_half(half, deck, p, upstream0, hands, played, st, info):
    """Deal one half from ``deck`` / indicator position ``p`` and reset the state (YZ-05..08)."""
    card = np.int64(deck[p])
    dao, fallback = dao_of_indicator(card, half)
    if half == 0:
        fr = 3 if card >= SMALL_JOKER else RANK_VALUE[card // 4] % 4  # YZ-07
        leader = (fr + p) % 4  # YZ-08: the seat dealt the indicator
    else:
        fr = upstream0
        leader = upstream0
    hands[:, :] = 0
    played[:, :] = 0
    st[:ST_MATCH] = 0  # YZ-28: the match block (first-half result, rules) is kept
    if half == 0:
        st[ST_MATCH:ST_RULES] = -1  # no first-half result yet
    info[:, :] = 0
    for i in range(N_CARDS):
        s = (fr + i) % 4
        c = deck[i]
        hands[s, c] += 1
        info[s, INFO_DEALT] += 1
        if c >= SMALL_JOKER:
            info[s, INFO_JOKERS] += 1
        elif c // 4 == dao:
            info[s, INFO_DAO_CARDS] += 1
    st[ST_HALF] = half
    st[ST_DAO] = dao
    st[ST_INDICATOR] = card
    st[ST_FALLBACK] = fallback
    st[ST_FIRST_RECV] = fr
    st[ST_FIRST_LEADER] = leader
    for s in range(4):
        st[ST_COUNT + s] = info[s, INFO_DEALT]
        st[ST_FINISH + s] = 4
    st[ST_TOP_SEAT] = -1
    st[ST_ACTOR] = leader
    st[ST_LEADER] = leader
    st[ST_LAST] = leader
    st[ST_TRICKS] = 1


# --- applying a move ----------------------------------------------------------------------


@inline_kernel
def _take_natural(hands, played, q, r, k):
    """Seat ``q`` gives up k natural cards of rank r, each from the suit with the fewest
    copies > 0."""
    b = r * 4
    for _ in range(k):
        best = -1
        bc = 99
        for su in range(4):
            c = hands[q, b + su]
            if c > 0 and c < bc:
                bc = c
                best = su
        hands[q, b + best] -= 1
        played[q, b + best] += 1


@inline_kernel
def _give_up(hands, played, q, t, k):
    """Move k cards of type ``t`` from seat ``q``'s hand to its played row."""
    hands[q, t] -= k
    played[q, t] += k


@inline_kernel
def wild_small_jokers(sj, bj, jok):
    """Protocol §2: how many of the ``jok`` wild jokers are small, from ``sj`` small and ``bj``
    big jokers in hand: keep as many joker atoms (3 SJ / 3 BJ) possible before the move as any
    choice can, then give up small jokers first."""
    lo = jok - bj if jok > bj else 0
    hi = jok if jok < sj else sj
    best = hi
    keep_best = -1
    for s in range(hi, lo - 1, -1):  # most small jokers first: a tie keeps the larger count
        keep = 0
        if sj >= 3 and sj - s >= 3:
            keep += 1
        if bj >= 3 and bj - (jok - s) >= 3:
            keep += 1
        if keep > keep_best:
            keep_best = keep
            best = s
    return best


@inline_kernel
def remove_cards_row(hands, played, q, code):
    """Remove the physical cards of ``code`` from seat ``q``'s hand (protocol §2); returns
    their points. Row-indexed like ``gen_all_row``."""
    kind = move_kind(code)
    rank = move_rank(code)
    size = move_size(code)
    jok = move_jokers(code)
    if kind == ATOM:
        if rank == ATOM_SMALL_JOKER_RANK:
            t = SMALL_JOKER
        elif rank == ATOM_BIG_JOKER_RANK:
            t = BIG_JOKER
        else:
            t = rank * 4 + move_suit(code)
        _give_up(hands, played, q, t, 3)
        return 3 * RANK_POINTS[rank] if rank < N_RANKS else 0  # joker atoms: none
    if kind == HYDROGEN:
        for su in range(4):
            _give_up(hands, played, q, rank * 4 + su, 2)
        return 8 * RANK_POINTS[rank]
    small = wild_small_jokers(np.int64(hands[q, SMALL_JOKER]), np.int64(hands[q, BIG_JOKER]), jok)
    _give_up(hands, played, q, SMALL_JOKER, small)
    _give_up(hands, played, q, BIG_JOKER, jok - small)
    k = size - jok
    if k == 0:
        return 0
    _take_natural(hands, played, q, rank, k)
    return k * RANK_POINTS[rank]


@inline_kernel
def remove_cards(hand, played, code):
    """Remove the physical cards of ``code`` from ``hand`` (protocol §2); returns their points."""
    return remove_cards_row(hand.reshape((1, N_TYPES)), played.reshape((1, N_TYPES)), 0, code)


@inline_kernel
def _count_play(st, code, dao):
    kind = move_kind(code)
    st[ST_PLAYS] += 1
    if kind == BOMB:
        st[ST_BOMBS] += 1
        if is_dao(code, dao):
            st[ST_DAO_BOMBS] += 1
    elif kind == ATOM:
        st[ST_ATOMS] += 1
    elif kind == HYDROGEN:
        st[ST_HYDROGENS] += 1


@inline_kernel
def half_over(st):
    """YZ-20: a 1-2 finish (returns 2), three out (returns 3), else 0."""
    nout = st[ST_NOUT]
    if nout >= 3:
        return 3
    if nout == 2 and (st[ST_OUT] + st[ST_OUT + 1]) % 2 == 0:
        return 2  # both out seats are partners (same parity), both opponents hold cards
    return 0


@inline_kernel
def hand_points(hand):
    """Point cards left in a hand (YZ-03)."""
    t = 0
    for r in POINT_RANKS:
        b = r * 4
        t += (np.int64(hand[b]) + hand[b + 1] + hand[b + 2] + hand[b + 3]) * RANK_POINTS[r]
    return t


@kernel
def settle(hands, st, rules, kind):
    """YZ-21 … YZ-24: award the open trick, move the 下游 points, finish positions, teams."""
    top_seat = st[ST_TOP_SEAT]
    st[ST_CAPT + top_seat] += st[ST_TRICK_PTS]  # YZ-21
    st[ST_TRICK_PTS] = 0
    for s in range(4):
        st[ST_POINTS + s] = st[ST_CAPT + s]
    first = st[ST_OUT]
    for i in range(st[ST_NOUT]):
        st[ST_FINISH + st[ST_OUT + i]] = i + 1
    for s in range(4):
        if st[ST_COUNT + s] == 0:
            continue
        hp = hand_points(hands[s])
        if kind == 3:  # YZ-22: hand points to the third out, captured points to the 上游
            st[ST_POINTS + st[ST_OUT + 2]] += hp
            st[ST_POINTS + first] += st[ST_CAPT + s]
            st[ST_POINTS + s] = 0
        elif rules[R_ONE_TWO_SETTLEMENT] == 0:  # YZ-23 all
            st[ST_POINTS + first] += hp + st[ST_CAPT + s]
            st[ST_POINTS + s] = 0
        else:  # YZ-23 hand_only
            st[ST_POINTS + first] += hp
    st[ST_ONE_TWO] = 1 if kind == 2 else 0
    st[ST_TEAM_PTS] = st[ST_POINTS] + st[ST_POINTS + 2]
    st[ST_TEAM_PTS + 1] = st[ST_POINTS + 1] + st[ST_POINTS + 3]
    st[ST_DONE] = 1


@inline_kernel
def _next_actor(st, last):
    """First seat after ``last`` holding cards, not the top seat, not passed; -1 if none."""
    for d in range(1, 4):
        q = (last + d) % 4
        if st[ST_COUNT + q] > 0 and q != st[ST_TOP_SEAT] and st[ST_PASSED + q] == 0:
            return q
    return -1


@inline_kernel
def _end_trick(st, rules):
    """YZ-19: the top seat takes the trick; the next leader leads a new trick."""
    ts = st[ST_TOP_SEAT]
    st[ST_CAPT + ts] += st[ST_TRICK_PTS]
    st[ST_TRICK_PTS] = 0
    if st[ST_COUNT + ts] > 0:
        leader = ts
    elif rules[R_LEAD_AFTER_OUT] == 1:
        leader = (ts + 2) % 4  # 接风
    else:
        leader = -1
        for d in range(1, 4):
            q = (ts + d) % 4
            if st[ST_COUNT + q] > 0:
                leader = q
                break
    for s in range(4):
        st[ST_PASSED + s] = 0
    st[ST_TOP] = 0
    st[ST_TOP_SEAT] = -1
    st[ST_LEADER] = leader
    st[ST_ACTOR] = leader
    st[ST_TRICKS] += 1


@inline_kernel
def apply_move(code, hands, played, st, rules):
    """Apply the actor's move in place (protocol §4, §5); returns 1 when the half has ended."""
    q = st[ST_ACTOR]
    st[ST_DECISIONS] += 1
    st[ST_LAST] = q
    if code == PASS:
        st[ST_PASSED + q] = 1
    else:
        dao = st[ST_DAO]
        st[ST_TRICK_PTS] += remove_cards_row(hands, played, q, code)
        st[ST_COUNT + q] -= move_size(code)
        st[ST_TOP] = code
        st[ST_TOP_SEAT] = q
        _count_play(st, code, dao)
        if rules[R_PASS_IS_FINAL] == 0:
            for s in range(4):
                st[ST_PASSED + s] = 0
        if st[ST_COUNT + q] == 0:
            st[ST_OUT + st[ST_NOUT]] = q
            st[ST_NOUT] += 1
            kind = half_over(st)
            if kind != 0:
                settle(hands, st, rules, kind)
                return 1
    nxt = _next_actor(st, q)
    if nxt < 0:
        _end_trick(st, rules)
    else:
        st[ST_ACTOR] = nxt
    return 0
