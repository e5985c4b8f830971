"""原子 driver: plays whole matches in parallel and records them, optional trace mode.

The match itself — the deal of both halves, the halves as phases, 双夹 (YZ-25), the winner
(YZ-26), the match scores (YZ-D2, YZ-D3) and what a seat sees (YZ-28) — is the match engine's
(``kernels/yuanzi/engine.py``); this file asks the strategies, records each half's statistics
(``_record_half``) between the engine's ``HALF_OVER`` and its second half, and fills the rows.

``simulate(root, first, count, seat_strategy_ids, rules, out_games, out_seats)`` fills
``out_games`` int32[count, NG] and ``out_seats`` int32[4 * count, NS] (column offsets ``G_*``
and ``S_*`` below; ``sim/games/yuanzi/tables.py`` turns them into the games and seats tables).
Game ``first + i`` is seeded from (root, game index) alone: stream 0 deals both halves before
any play (``engine.new_match``, protocol §1), stream 2 feeds the strategies, so rows never
depend on chunking or threads. ``simulate_trace`` also records every decision (protocol §8).

User strategies (``sim/user_strategies.py``) run in the user variant of this file: a copy
whose prelude sets ``_USER_SLOTS``; see "user strategies" below.
"""

import sys

import numpy as np
from cardsim.kernels.call_tables import TABLE_SIZE, SearchSeats, search_table, user_table
from cardsim.kernels.jit import kernel, run_split
from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream
from cardsim.kernels.yuanzi.encoding import N_CARDS, N_TYPES, PASS, RANK_VALUE, move_set_hash
from cardsim.kernels.yuanzi.engine import (
    CONTINUE,
    HALF_OVER,
    N_HALVES,
    apply,
    legal,
    match_score,
    new_match,
    result,
    start_half,
    view,
)
from cardsim.kernels.yuanzi.ismcts import BUF_SIZE as SEARCH_BUF_SIZE
from cardsim.kernels.yuanzi.ismcts import ISMCTS_BASE
from cardsim.kernels.yuanzi.pimc import PIMC_BASE
from cardsim.kernels.yuanzi.state import (
    INFO_DAO_CARDS,
    INFO_DEALT,
    INFO_JOKERS,
    N_INFO,
    N_ST,
    ST_ACTOR,
    ST_ATOMS,
    ST_BOMBS,
    ST_DAO,
    ST_DAO_BOMBS,
    ST_DECISIONS,
    ST_FALLBACK,
    ST_FINISH,
    ST_FIRST_LEADER,
    ST_FIRST_RECV,
    ST_HYDROGENS,
    ST_INDICATOR,
    ST_PLAYS,
    ST_POINTS,
    ST_TEAM_PTS,
    ST_TRICKS,
    hot_kernel,
    inline_kernel,
)
from cardsim.kernels.yuanzi.strategies import (
    GREEDY,
    LEVEL_BASE,
    N_BUILTIN,
    NO_SHORTCUT,
    RANDOM,
    choose_builtin,
    choose_level,
    choose_random,
    greedy_fast_code,
    random_fast_code,
)
from numba.core import types as nt

# --- user strategies -------------------------------------------------------------------------
#: The exact argument types a user strategy gets: own, played, pub, legal, n_legal, rng.
USER_ARGTYPES = (
    nt.Array(nt.uint8, 1, "C"),
    nt.Array(nt.uint8, 2, "C"),
    nt.Array(nt.int64, 1, "C"),
    nt.Array(nt.int32, 1, "C"),
    nt.int64,
    nt.Array(nt.uint64, 1, "C"),
)
#: entries of the user table; a strategy id ``N_BUILTIN + MAX_USER + k`` runs entry k in raise mode
MAX_USER = TABLE_SIZE
#: this game's user-function table (``cardsim.kernels.call_tables``)
USER_TABLE = user_table("yuanzi")
# The built-in driver (this file as it is) dispatches built-ins only, zero-copy, in a hot (NRT
# off) play loop. Its user variant (``cardsim.kernels.variants.user_variant``, prelude
# ``_USER_SLOTS``) also calls user functions through the table, on private copies of their
# inputs (which need NRT in the play loop); it is compiled once and cached like this file.
_USER = globals().get("_USER_SLOTS", False)
if not _USER:
    _choose = choose_builtin
    _hot = hot_kernel
else:
    _hot = kernel
    _call_user = USER_TABLE.caller(USER_ARGTYPES)

    @kernel
    def _choose(sid, own, played, pub, legal, n, rng):
        """Built-ins as in the built-in driver; a user entry gets private copies of own hand,
        played cards, public state and legal list (the deal never depends on what it does);
        ``rng`` is the match's strategy stream. An exception it raises becomes answer -1 (a
        bad answer, which the engine explains by replaying the game in raise mode)."""
        if sid < N_BUILTIN:
            return choose_builtin(sid, own, played, pub, legal, n, rng)
        k = sid - N_BUILTIN
        o, p, s, c = own.copy(), played.copy(), pub.copy(), legal[:n].copy()
        if k >= MAX_USER:  # raise mode: let the exception through (a replay on one thread)
            return _call_user(k - MAX_USER, o, p, s, c, np.int64(n), rng)
        try:
            return _call_user(k, o, p, s, c, np.int64(n), rng)
        except Exception:
            return -1


# The search strategies (pimc, ismcts) are called through this game's search table
# (``cardsim.kernels.call_tables``), entry 0 pimc and 1 ismcts: no driver contains them, so a
# run of scripted strategies never compiles a search, and a first search compiles only the
# search functions (issue 21). ``for_seats`` fills the table when a seat searches.
#: The exact argument types of a search strategy: sid, own, played, st, rules, legal, n, rng.
SEARCH_ARGTYPES = (
    nt.int64,
    nt.Array(nt.uint8, 1, "C"),
    nt.Array(nt.uint8, 2, "C"),
    nt.Array(nt.int64, 1, "C"),
    nt.Array(nt.int64, 1, "C"),
    nt.Array(nt.int32, 1, "C"),
    nt.int64,
    nt.Array(nt.uint64, 1, "C"),
)
SEARCH_TABLE = search_table("yuanzi", 2)
_call_search = SEARCH_TABLE.caller(SEARCH_ARGTYPES)


@hot_kernel
def _choose_search(sid, own, played, st, rules, buf, n, rng):
    """pimc (entry 0) or SO-ISMCTS (entry 1, ids above pimc's range) through the table."""
    k = 1 if sid >= ISMCTS_BASE else 0
    return _call_search(k, sid, own, played, st, rules, buf, np.int64(n), rng)


def _search_entries():
    from cardsim.kernels.yuanzi.ismcts import choose_ismcts
    from cardsim.kernels.yuanzi.pimc import choose_pimc

    return ((1, choose_ismcts), (0, choose_pimc))  # ismcts first: it compiles pimc's helpers


#: pimc and ismcts ids lie in [PIMC_BASE, LEVEL_BASE); ``load_search`` fills the table
SEARCH = SearchSeats(SEARCH_TABLE, SEARCH_ARGTYPES, PIMC_BASE, LEVEL_BASE, _search_entries)
load_search = SEARCH.load


def for_seats(sids, driver=None):
    """The driver module to run ``sids``: ``driver`` (a user variant) or this one; the search
    table filled first when a seat searches."""
    return SEARCH.for_seats(sids, driver if driver is not None else sys.modules[__name__])


# --- the first compile over two processes (``Warmup.split``, sim/warmup.py) --------------------
#: ``engine.legal``'s (``rules.legal_call``'s) exact argument types: hands, st, rules, buf
LEGAL_ARGTYPES = (
    nt.Array(nt.uint8, 2, "C"),
    nt.Array(nt.int64, 1, "C"),
    nt.Array(nt.int64, 1, "C"),
    nt.Array(nt.int32, 1, "C"),
)


def compile_side() -> None:
    """Compile (or load) the built-in strategies and levels with the types the play loop calls
    them with: the warm-up runs this in a second process while :func:`compile_own` runs in the
    first, whose driver compile then loads them from the on-disk cache."""
    choose_builtin.compile((nt.int64, *USER_ARGTYPES))
    choose_level.compile((nt.int64, *USER_ARGTYPES))


def compile_own() -> None:
    """Compile (or load) the legal-move generator, meanwhile, in the driver's process."""
    legal.compile(LEGAL_ARGTYPES)


# --- games matrix: one row per match -------------------------------------------------------
# per half h, at base G_HALF * h:
H_DAO = 0  # 刀 rank value (A = 1 … K = 13)
H_INDICATOR = 1  # indicator card type id
H_FALLBACK = 2  # 0 none, 1 joker, 2 point rank
H_FIRST_RECV = 3
H_FIRST_LEADER = 4
H_FINISH = 5  # [4] finish position per seat
H_POINTS = 9  # [4] points per seat
H_TEAM_PTS = 13  # [2]
H_TRICKS = 15
H_PLAYS = 16
H_BOMBS = 17
H_DAO_BOMBS = 18
H_ATOMS = 19
H_HYDROGENS = 20
H_DECISIONS = 21
G_HALF = 22
G_SECOND = 44  # second half played
G_SHUANGJIA = 45
G_WINNER = 46  # winning team 0 (南北 0,2) / 1 (东西 1,3)
G_DELTA = 47  # [4] match score per seat
G_BAD = 51  # out-of-range indices returned by a strategy (always 0 for built-ins)
NG = 52

# --- seats matrix: one row per (match, seat) ---------------------------------------------
S_TEAM = 0
# per half h, at base S_HALF0 + S_HALF * h:
SH_CARDS = 0  # cards dealt
SH_DAO_CARDS = 1  # 刀 cards dealt
SH_JOKERS = 2  # jokers dealt
SH_FINISH = 3  # finish position
SH_POINTS = 4  # points after settlement
S_HALF0 = 1
S_HALF = 5
S_DELTA = 11
S_WON = 12
NS = 13

# --- trace rows -----------------------------------------------------------------------------
T_GAME, T_HALF, T_SEAT, T_NLEGAL, T_CHOSEN, T_LEGAL_AT = 0, 1, 2, 3, 4, 5
NT = 6

BLOCK = 16  # games per parallel task (scratch is allocated once per block)


@kernel
def _record_half(h, st, info, grow, srows):
    """Copy one finished half's outcome into the game row and the four seat rows."""
    b = G_HALF * h
    grow[b + H_DAO] = RANK_VALUE[st[ST_DAO]]
    grow[b + H_INDICATOR] = st[ST_INDICATOR]
    grow[b + H_FALLBACK] = st[ST_FALLBACK]
    grow[b + H_FIRST_RECV] = st[ST_FIRST_RECV]
    grow[b + H_FIRST_LEADER] = st[ST_FIRST_LEADER]
    for s in range(4):
        grow[b + H_FINISH + s] = st[ST_FINISH + s]
        grow[b + H_POINTS + s] = st[ST_POINTS + s]
        sb = S_HALF0 + S_HALF * h
        srows[s, sb + SH_CARDS] = info[s, INFO_DEALT]
        srows[s, sb + SH_DAO_CARDS] = info[s, INFO_DAO_CARDS]
        srows[s, sb + SH_JOKERS] = info[s, INFO_JOKERS]
        srows[s, sb + SH_FINISH] = st[ST_FINISH + s]
        srows[s, sb + SH_POINTS] = st[ST_POINTS + s]
    grow[b + H_TEAM_PTS] = st[ST_TEAM_PTS]
    grow[b + H_TEAM_PTS + 1] = st[ST_TEAM_PTS + 1]
    grow[b + H_TRICKS] = st[ST_TRICKS]
    grow[b + H_PLAYS] = st[ST_PLAYS]
    grow[b + H_BOMBS] = st[ST_BOMBS]
    grow[b + H_DAO_BOMBS] = st[ST_DAO_BOMBS]
    grow[b + H_ATOMS] = st[ST_ATOMS]
    grow[b + H_HYDROGENS] = st[ST_HYDROGENS]
    grow[b + H_DECISIONS] = st[ST_DECISIONS]


@kernel
def _trace(tr, trh, trn, leg, g, half, seat, buf, n, chosen):
    """Append one decision to the trace arrays (counts keep growing past capacity)."""
    k = trn[0]
    at = trn[1]
    if k < tr.shape[0]:
        tr[k, T_GAME] = g
        tr[k, T_HALF] = half
        tr[k, T_SEAT] = seat
        tr[k, T_NLEGAL] = n
        tr[k, T_CHOSEN] = chosen
        trh[k] = move_set_hash(buf, n)
        if leg.shape[0] > 0:
            tr[k, T_LEGAL_AT] = at
            if at + n <= leg.shape[0]:
                for j in range(n):  # a slice copy would allocate (play_half has no NRT)
                    leg[at + j] = buf[j]
        else:
            tr[k, T_LEGAL_AT] = -1
    trn[0] = k + 1
    if leg.shape[0] > 0:
        trn[1] = at + n


@inline_kernel
def decide(hands, played, st, rules, sids, buf, n, rng):
    """The pick of the seat to act among the ``n`` legal moves in ``buf``: (index, bad).

    The strategy sees only its own hand row and the public state (YZ-28). With one legal
    move it is not asked. An out-of-range answer counts as bad and becomes PASS (or index 0).
    """
    if n == 1:
        return 0, 0
    seat = st[ST_ACTOR]
    own, seen, pub = view(seat, hands, played, st)  # the engine's view of the seat (YZ-28)
    if sids[seat] >= LEVEL_BASE:  # greedy:eps / soft (kernels/levels.py), before pimc's range
        idx = choose_level(sids[seat], own, seen, pub, buf, n, rng)
    elif sids[seat] >= PIMC_BASE:  # pimc, ismcts: through the search table (they need the rules)
        idx = _choose_search(sids[seat], own, seen, pub, rules, buf, n, rng)
    elif sids[seat] == RANDOM:  # random's one draw, inlined here: a call would cost as much
        idx = choose_random(own, seen, pub, buf, n, rng)
    else:
        idx = _choose(sids[seat], own, seen, pub, buf, n, rng)
    if idx < 0 or idx >= n:
        return n - 1 if buf[n - 1] == PASS else 0, 1
    return idx, 0


@_hot
def decide_turn(hands, played, st, rules, sids, buf, rng):
    """One turn's choice as ``play_half`` makes it without shortcuts: the legal set into ``buf``
    and the pick, (n, index, bad) (for tests and tools; compiled only when they call it)."""
    n = legal(hands, st, rules, buf)
    idx, bad = decide(hands, played, st, rules, sids, buf, n, rng)
    return n, idx, bad


@_hot
def play_half(g, half, hands, played, st, rules, sids, buf, rng, tr, trh, trn, leg, tracing):
    """Play the half the engine has begun to its end: (invalid strategy answers, the engine's
    status at the end, ``engine.HALF_OVER`` or ``engine.MATCH_OVER``)."""
    bad = 0
    while True:
        seat = st[ST_ACTOR]
        code = NO_SHORTCUT
        if not tracing:  # the trace needs the whole legal set
            if sids[seat] == GREEDY:
                code = greedy_fast_code(hands, st, rules)
            elif sids[seat] == RANDOM:  # leads: the same draw on the same count
                code = random_fast_code(hands, st, buf, rng)
        if code == NO_SHORTCUT:
            # the legal set (compiled once, called: inlined here it cost 16 s of compile)
            n = legal(hands, st, rules, buf)
            idx, b = decide(hands, played, st, rules, sids, buf, n, rng)
            bad += b
            code = buf[idx]
            if tracing:
                _trace(tr, trh, trn, leg, g, half, seat, buf, n, code)
        status = apply(code, hands, played, st, rules)
        if status != CONTINUE:
            return bad, status


@kernel
def play_game(
    root,
    g,
    sids,
    rules,
    decks,
    pos,
    hands,
    played,
    st,
    info,
    buf,
    rng_deal,
    rng_strat,
    grow,
    srows,
    tr,
    trh,
    trn,
    leg,
    tracing,
):
    """One whole match of game index ``g`` into ``grow`` (NG) and ``srows`` (4 × NS): the
    engine deals, judges and scores it (kernels/yuanzi/engine.py); this records each half."""
    new_match(root, g, rules, decks, pos, hands, played, st, info, rng_deal)
    seed_stream(rng_strat, root, g, np.int64(STREAM_STRATEGY))
    grow[:] = -1
    srows[:, :] = -1
    for s in range(4):
        srows[s, S_TEAM] = s % 2
    # one specialization of play_half: both calls pass int64, not int literals (Numba would
    # compile the hot loop once per literal value)
    bad, status = play_half(
        g, np.int64(0), hands, played, st, rules, sids, buf, rng_strat, tr, trh, trn, leg, tracing
    )
    _record_half(np.int64(0), st, info, grow, srows)
    if status == HALF_OVER:  # YZ-26: the second half
        start_half(np.int64(1), decks, pos, hands, played, st, info, rules)
        b, status = play_half(
            g, np.int64(1), hands, played, st, rules, sids, buf, rng_strat,
            tr, trh, trn, leg, tracing,
        )  # fmt: skip
        bad += b
        _record_half(np.int64(1), st, info, grow, srows)
    sj, winner = result(st, rules)
    grow[G_SECOND] = 0 if sj else 1
    grow[G_SHUANGJIA] = 1 if sj else 0
    grow[G_WINNER] = winner
    for s in range(4):
        d = match_score(st, rules, s)
        grow[G_DELTA + s] = d
        srows[s, S_DELTA] = d
        srows[s, S_WON] = 1 if d > 0 else 0
    grow[G_BAD] = bad


@kernel
def _run_block(root, first, lo, hi, sids, rules, out_games, out_seats, tr, trh, trn, leg, tracing):
    """Games ``first+lo .. first+hi-1`` in order, with scratch allocated once."""
    decks = np.empty((N_HALVES, N_CARDS), np.uint8)
    pos = np.empty(N_HALVES, np.int64)
    hands = np.empty((4, N_TYPES), np.uint8)
    played = np.empty((4, N_TYPES), np.uint8)
    st = np.empty(N_ST, np.int64)
    info = np.empty((4, N_INFO), np.int64)
    buf = np.empty(SEARCH_BUF_SIZE, np.int32)  # legal moves, then pimc's / ismcts's scratch
    rng_deal = np.empty(4, np.uint64)
    rng_strat = np.empty(4, np.uint64)
    for i in range(lo, hi):
        play_game(
            root,
            first + i,
            sids,
            rules,
            decks,
            pos,
            hands,
            played,
            st,
            info,
            buf,
            rng_deal,
            rng_strat,
            out_games[i],
            out_seats[4 * i : 4 * i + 4],
            tr,
            trh,
            trn,
            leg,
            tracing,
        )


@kernel
def simulate_part(lo, hi, root, first, sids, rules, out_games, out_seats):
    """Matches ``first+lo .. first+hi-1`` (one thread's part of ``simulate``), block by block."""
    tr = np.empty((0, NT), np.int64)
    trh = np.empty(0, np.uint64)
    trn = np.zeros(2, np.int64)
    leg = np.empty(0, np.int32)
    for b in range(lo, hi, BLOCK):
        _run_block(
            root, first, b, min(hi, b + BLOCK), sids, rules, out_games, out_seats,
            tr, trh, trn, leg, False,
        )  # fmt: skip
    return 0


def simulate(root, first, count, sids, rules, out_games, out_seats):
    """Play ``count`` matches from game index ``first`` with built-in strategies (cached), on
    Numba's thread count (``kernels.jit.run_split``)."""
    return run_split(
        simulate_part, int(count), BLOCK, root, first, sids, rules, out_games, out_seats
    )


@kernel
def simulate_trace(root, first, count, sids, rules, out_games, out_seats, tr, trh, trn, leg):
    """Like ``simulate`` (one thread) and record every decision into the trace arrays."""
    _run_block(root, first, 0, count, sids, rules, out_games, out_seats, tr, trh, trn, leg, True)


def run_games(root, first, count, sids, rules, driver=None):
    """Python entry: allocate the outputs, run once per chunk, return (games, seats) matrices.

    ``driver`` is the user-strategy variant of this module (None: this one, built-ins only);
    a search seat needs the search table filled (:func:`for_seats`).
    """
    out_games = np.empty((count, NG), np.int32)
    out_seats = np.empty((4 * count, NS), np.int32)
    sim = for_seats(sids, driver).simulate
    if count > 0:
        sim(
            np.uint64(root),
            np.int64(first),
            np.int64(count),
            np.asarray(sids, np.int64),
            np.asarray(rules, np.int64),
            out_games,
            out_seats,
        )
    return out_games, out_seats


def run_trace(root, first, count, sids, rules, keep_legal=False, driver=None):
    """Trace mode: (games, seats, trace int64[n, NT], hashes uint64[n], legal codes int32[:]).

    Trace row: game, half, seat, n_legal, chosen code, offset of its legal set in the codes
    (-1 without ``keep_legal``); the hash column is ``encoding.move_set_hash(legal)``.
    """
    sids = np.asarray(sids, np.int64)
    rules = np.asarray(rules, np.int64)
    sim = for_seats(sids, driver).simulate_trace
    cap = 1200 * max(count, 1)
    cap_legal = 40 * cap if keep_legal else 0
    while True:
        out_games = np.empty((count, NG), np.int32)
        out_seats = np.empty((4 * count, NS), np.int32)
        tr = np.zeros((cap, NT), np.int64)
        trh = np.zeros(cap, np.uint64)
        trn = np.zeros(2, np.int64)
        leg = np.zeros(cap_legal, np.int32)
        sim(
            np.uint64(root),
            np.int64(first),
            np.int64(count),
            sids,
            rules,
            out_games,
            out_seats,
            tr,
            trh,
            trn,
            leg,
        )
        if trn[0] <= cap and trn[1] <= cap_legal:
            n = trn[0]
            return out_games, out_seats, tr[:n], trh[:n], leg[: trn[1]]
        cap = int(trn[0]) + 16
        if keep_legal:
            cap_legal = int(trn[1]) + 16
