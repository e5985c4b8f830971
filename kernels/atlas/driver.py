"""ATLAS driver: the seats' decisions, their trace, rounds, matches, ``simulate`` and trace mode.

The match is the match engine's (``kernels/atlas/engine.py``: ``new_match``, ``legal``,
``apply``, ``is_over``, over the turn engine's rounds): ``play_on`` is its loop of decide →
trace → apply, ``play_match`` records every round as it ends (``apply``'s status: no decision
left). Everything that takes a decision lives here, so that user strategies run in the user variant
of this module: a copy of this file whose prelude sets ``_USER_SLOTS`` (user functions are
called through ``cardsim.kernels.call_tables``'s table; ``sim/user_strategies.py``). The built-in driver dispatches
strategies by integer id (``cardsim.kernels.atlas.strategies``).

Trace arrays (``tc`` counters, int64):

=============  ====================================================================
T_LEVEL        0 off, 1 decisions + claim windows, 2 also every decision's options
T_NDEC         decisions recorded (rows of ``tdec``: round, seat, type, n, chosen,
               offset of its options in ``topt`` or -1, decision index in the game)
T_NWIN         claim windows recorded (rows of ``twin``: round, discarder, card,
               winning seat or -1, winning code)
T_NOPT         ints used in ``topt``
T_SNAP_AT      decision index whose state ``snap[0]`` receives, -1 none, -2 every
               decision (row = decision index, while rows last)
T_OVERFLOW     1 when a trace buffer was too small (the caller retries bigger)
=============  ====================================================================
``thash[i]`` is ``option_set_hash`` of decision i's options. A ``snap`` row holds ``S`` (``S_LEN``)
as it was when the decision was asked, then seat, type, n, strategy id, then the options.
"""

import sys

import numpy as np
from cardsim.kernels.atlas.encoding import MAX_OPTIONS, N_TYPES, option_set_hash
from cardsim.kernels.atlas.engine import (
    apply,
    is_over,
    legal,
    new_match,
    round_score,
    winner_points,
)
from cardsim.kernels.atlas.ismcts import BUF_SIZE as SEARCH_BUF_SIZE
from cardsim.kernels.atlas.ismcts import ISMCTS_BASE
from cardsim.kernels.atlas.pimc import PIMC_BASE
from cardsim.kernels.atlas.rules import R_ROUNDS, hand_value
from cardsim.kernels.atlas.state import (
    E_CLOSED,
    E_WIN,
    H_FIRST,
    HANDS,
    P_ROUND,
    P_SEAT,
    P_SIZES,
    P_TURNS,
    PUB_LEN,
    S_LEN,
    SEAT_CLAIMS,
    SEAT_DEALT,
    SEAT_MELDS,
    ST_ATLAS,
    ST_CLAIMS,
    ST_DEC,
    ST_DIRCH,
    ST_END,
    ST_ERR,
    ST_FIVES,
    ST_LCP,
    ST_QUADS,
    ST_RESHUFFLES,
    ST_REVERSES,
    ST_SELF,
    ST_SKIPS,
    ST_TRADES,
    ST_TRIPLES,
    ST_WINNER,
    ST_YOUXIAN,
    hot_kernel,
)
from cardsim.kernels.atlas.strategies import (
    LEVEL_BASE,
    MAX_USER,
    USER_BASE,
    choose_in_state,
    choose_level,
    user_placeholder,
)
from cardsim.kernels.call_tables import SearchSeats, search_table, user_table
from cardsim.kernels.jit import inline_kernel, kernel, run_split
from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream
from numba.core import types as nt

T_LEVEL, T_NDEC, T_NWIN, T_NOPT, T_SNAP_AT, T_OVERFLOW = 0, 1, 2, 3, 4, 5
TC_LEN = 8
SNAP_LEN = S_LEN + 4 + MAX_OPTIONS

GAMES_DTYPE = np.dtype(
    [
        ("game", np.int64),
        ("round", np.int16),
        ("players", np.int8),
        ("first_player", np.int8),
        ("direction_changes", np.int32),
        ("winner", np.int8),
        ("end", np.int8),
        ("turns", np.int32),
        ("reshuffles", np.int32),
        ("winner_points", np.int32),
        ("triples", np.int32),
        ("quads", np.int32),
        ("fives", np.int32),
        ("youxian_claims", np.int32),
        ("last_card_pairs", np.int32),
        ("claims", np.int32),
        ("self_melds", np.int32),
        ("skips", np.int32),
        ("reverses", np.int32),
        ("trades", np.int32),
        ("atlas_used", np.int32),
    ]
)
SEATS_DTYPE = np.dtype(
    [
        ("game", np.int64),
        ("round", np.int16),
        ("seat", np.int8),
        ("position", np.int8),
        ("strategy_id", np.int16),
        ("atlas_dealt", np.int8),
        ("skip_dealt", np.int8),
        ("reverse_dealt", np.int8),
        ("trade_dealt", np.int8),
        ("cards_left", np.int16),
        ("hand_value", np.int16),
        ("points", np.int32),
        ("won", np.bool_),
        ("melds_by_seat", np.int16),
        ("claims_by_seat", np.int16),
    ]
)

# --- user strategies -------------------------------------------------------------------------
#: The exact argument types a user strategy gets: dtype, hand, pub, options, n, rng.
USER_ARGTYPES = (
    nt.int64,
    nt.Array(nt.int32, 1, "C"),
    nt.Array(nt.int32, 1, "C"),
    nt.Array(nt.int32, 1, "C"),
    nt.int64,
    nt.Array(nt.uint64, 1, "C"),
)
#: this game's user-function table (``cardsim.kernels.call_tables``)
USER_TABLE = user_table("atlas")
# The built-in driver (this file as it is): ``_jit`` is the turn loop (NRT off, see
# ``cardsim.kernels.jit.JIT_HOT``) and the user entry is a placeholder, never called. Its user
# variant (``cardsim.kernels.variants.user_variant``, prelude ``_USER_SLOTS``): ``_user`` calls
# user functions through the table on private copies of their inputs, which needs NRT in the
# turn loop; it is compiled once and cached like this file.
_USER = globals().get("_USER_SLOTS", False)
_njit = kernel
if not _USER:
    _jit = hot_kernel

    @_jit
    def _user(slot, dtype, hand, pub, opts, n, rng):
        return user_placeholder(dtype, hand, pub, opts, n, rng)

else:
    _jit = kernel
    _call_user = USER_TABLE.caller(USER_ARGTYPES)

    @kernel
    def _user(slot, dtype, hand, pub, opts, n, rng):
        """User entry ``slot`` on private copies of its hand, public block and options (the
        state never depends on what it does); ``rng`` is its strategy stream. An exception it
        raises becomes answer -1 (an error the engine explains by replaying the game with
        ``slot + MAX_USER``, raise mode, on one thread)."""
        h, p, o = hand.copy(), pub.copy(), opts.copy()
        d, k = np.int64(dtype), np.int64(n)
        if slot >= MAX_USER:
            return _call_user(slot - MAX_USER, d, h, p, o, k, rng)
        try:
            return _call_user(slot, d, h, p, o, k, rng)
        except Exception:
            return -1


# The search strategies (pimc, ismcts) are called through this game's search table
# (``cardsim.kernels.call_tables``), entry 0 pimc and 1 ismcts: no driver contains them, so a
# run of scripted strategies never compiles a search, and a first search compiles only the
# search functions (issue 21). ``for_seats`` fills the table when a seat searches.
#: The exact argument types of a search strategy: S, p, sid, dtype, options, n, rng.
SEARCH_ARGTYPES = (
    nt.Array(nt.int32, 1, "C"),
    nt.int64,
    nt.int64,
    nt.int64,
    nt.Array(nt.int32, 1, "C"),
    nt.int64,
    nt.Array(nt.uint64, 1, "C"),
)
SEARCH_TABLE = search_table("atlas", 2)
_call_search = SEARCH_TABLE.caller(SEARCH_ARGTYPES)


@_jit
def _choose_search(S, p, sid, dtype, opts, n, rng):
    """pimc (entry 0) or SO-ISMCTS (entry 1, ids above pimc's range) through the table."""
    k = 1 if sid >= ISMCTS_BASE else 0
    return _call_search(k, S, np.int64(p), sid, np.int64(dtype), opts, np.int64(n), rng)


def _search_entries():
    from cardsim.kernels.atlas.ismcts import choose_ismcts
    from cardsim.kernels.atlas.pimc import choose_pimc

    return ((1, choose_ismcts), (0, choose_pimc))  # ismcts first: it compiles pimc's helpers


#: pimc and ismcts ids lie in [PIMC_BASE, LEVEL_BASE); ``load_search`` fills the table
SEARCH = SearchSeats(SEARCH_TABLE, SEARCH_ARGTYPES, PIMC_BASE, LEVEL_BASE, _search_entries)
load_search = SEARCH.load


def for_seats(sids, driver=None):
    """The driver module to run ``sids``: ``driver`` (a user variant) or this one; the search
    table filled first when a seat searches."""
    return SEARCH.for_seats(sids, driver if driver is not None else sys.modules[__name__])


# The match engine's two calls inlined into the driver's loop (the same functions as the
# Python Match and the py: adapter call): a call per decision each, with its array arguments,
# cost more than their share of a greedy decision (docs/performance.md). Only ever inlined: they
# share their Python function, and so Numba's cache entries, with engine.legal / engine.apply.
_legal = inline_kernel(legal.py_func)
_apply = inline_kernel(apply.py_func)


@inline_kernel  # into play_on: its nine array arguments cost a call per decision
def decide(S, p, dtype, opts, n, sids, rng, tc, tdec, thash, topt, snap):
    """Ask seat ``p``'s strategy to pick one of ``opts[:n]``; trace it; return the chosen code."""
    S[P_SEAT] = p
    sid = sids[p]
    dec = S[ST_DEC]
    at = tc[T_SNAP_AT]
    if at == dec or (at == -2 and dec < snap.shape[0]):
        row = 0 if at >= 0 else dec
        for j in range(S_LEN):  # element loops: a slice copy would need NRT (HOT)
            snap[row, j] = S[j]
        snap[row, S_LEN] = p
        snap[row, S_LEN + 1] = dtype
        snap[row, S_LEN + 2] = n
        snap[row, S_LEN + 3] = sid
        for j in range(n):
            snap[row, S_LEN + 4 + j] = opts[j]
    S[ST_DEC] = dec + 1
    h0 = HANDS + p * N_TYPES
    if n == 1:
        idx = 0
    elif sid >= LEVEL_BASE:  # greedy:eps / soft (kernels/levels.py), before pimc's range
        idx = choose_level(S, p, sid, dtype, opts, n, rng)
    elif sid >= PIMC_BASE:  # pimc, ismcts (the search table) read S as AT-26 allows
        idx = _choose_search(S, p, sid, dtype, opts, n, rng)
    elif sid < USER_BASE:
        idx = choose_in_state(S, p, sid, dtype, opts, n, rng)
    else:
        idx = _user(sid - USER_BASE, dtype, S[h0 : h0 + N_TYPES], S[:PUB_LEN], opts[:n], n, rng)
    if idx < 0 or idx >= n:
        S[ST_ERR] = 1
        idx = 0
    code = opts[idx]
    if tc[T_LEVEL] > 0:
        i = tc[T_NDEC]
        if i >= tdec.shape[0]:
            tc[T_OVERFLOW] = 1
        else:
            tdec[i, 0] = S[P_ROUND]
            tdec[i, 1] = p
            tdec[i, 2] = dtype
            tdec[i, 3] = n
            tdec[i, 4] = code
            tdec[i, 5] = -1
            tdec[i, 6] = dec
            thash[i] = option_set_hash(opts, n)
            if tc[T_LEVEL] > 1:
                o = tc[T_NOPT]
                if o + n > topt.shape[0]:
                    tc[T_OVERFLOW] = 1
                else:
                    for j in range(n):
                        topt[o + j] = opts[j]
                    tdec[i, 5] = o
                    tc[T_NOPT] = o + n
            tc[T_NDEC] = i + 1
    return code


@_jit
def _trace_window(S, tc, twin):
    """The claim window the engine closed (``E_WIN``) as a ``twin`` row (module doc)."""
    S[E_CLOSED] = 0
    if tc[T_LEVEL] > 0:
        i = tc[T_NWIN]
        if i >= twin.shape[0]:
            tc[T_OVERFLOW] = 1
        else:
            twin[i, 0] = S[P_ROUND]
            for j in range(4):
                twin[i, 1 + j] = S[E_WIN + j]
            tc[T_NWIN] = i + 1


@_jit
def play_on(S, R, sids, rngs, opts, tc, tdec, thash, twin, topt, snap):
    """Play on from the phase the match is at (``kernels/atlas/engine.py``) to the end of a
    round: the engine's next decision, the seat's strategy, the trace, the move (also on
    hand-built states); at a finished round that is not the match's last, the engine deals the
    next one first. Random events come from the events stream ``rngs[1]``, strategies draw
    from ``rngs[2]``."""
    rng = rngs[STREAM_STRATEGY]
    p, kind, n = _legal(S, R, opts, rngs)
    while True:
        if S[E_CLOSED]:
            _trace_window(S, tc, twin)
        if n == 0:
            return
        code = decide(S, p, kind, opts, n, sids, rng, tc, tdec, thash, topt, snap)
        p, kind, n = _apply(code, S, opts, rngs)


@_jit
def _record(S, n, gi, sids, out_games, grow, out_seats, srow):
    """Write the finished round's games row and its n seats rows (its round, first player and
    AT-24 points: the match engine's)."""
    w = S[ST_WINNER]
    first = S[H_FIRST]
    g = out_games[grow]
    g.game = gi
    g.round = S[P_ROUND]
    g.players = n
    g.first_player = first
    g.direction_changes = S[ST_DIRCH]
    g.winner = w
    g.end = S[ST_END]
    g.turns = S[P_TURNS]
    g.reshuffles = S[ST_RESHUFFLES]
    g.winner_points = winner_points(S)
    g.triples = S[ST_TRIPLES]
    g.quads = S[ST_QUADS]
    g.fives = S[ST_FIVES]
    g.youxian_claims = S[ST_YOUXIAN]
    g.last_card_pairs = S[ST_LCP]
    g.claims = S[ST_CLAIMS]
    g.self_melds = S[ST_SELF]
    g.skips = S[ST_SKIPS]
    g.reverses = S[ST_REVERSES]
    g.trades = S[ST_TRADES]
    g.atlas_used = S[ST_ATLAS]
    for s in range(n):
        q = out_seats[srow + s]
        q.game = gi
        q.round = S[P_ROUND]
        q.seat = s
        q.position = (s - first + n) % n
        q.strategy_id = sids[s]
        q.atlas_dealt = S[SEAT_DEALT + 4 * s]
        q.skip_dealt = S[SEAT_DEALT + 4 * s + 1]
        q.reverse_dealt = S[SEAT_DEALT + 4 * s + 2]
        q.trade_dealt = S[SEAT_DEALT + 4 * s + 3]
        q.cards_left = S[P_SIZES + s]
        q.hand_value = hand_value(S, s)
        q.points = round_score(S, s)
        q.won = s == w
        q.melds_by_seat = S[SEAT_MELDS + s]
        q.claims_by_seat = S[SEAT_CLAIMS + s]


@_jit
def play_match(root, gi, n, sids, R, out_games, grow, out_seats, srow, S, rngs, opts, tc, tdec, thash, twin, topt, snap):  # fmt: skip
    """Game ``gi`` (the match engine's ``R[R_ROUNDS]`` rounds, AT-25); a row per round from
    ``grow`` / ``srow``, written as each round ends; returns errors."""
    new_match(S, n, R, root, gi, rngs)
    seed_stream(rngs[STREAM_STRATEGY], root, gi, STREAM_STRATEGY)
    err = 0
    while True:
        play_on(S, R, sids, rngs, opts, tc, tdec, thash, twin, topt, snap)
        r = S[P_ROUND]
        _record(S, n, gi, sids, out_games, grow + r, out_seats, srow + r * n)
        err += S[ST_ERR]
        if is_over(S):
            return err


@_njit
def simulate_part(lo, hi, root_seed, first_index, n_players, seat_strategy_ids, rules_arr, out_games, out_seats):  # fmt: skip
    """Games ``first_index+lo .. first_index+hi-1`` (one thread's part of ``simulate``);
    returns the error count."""
    rounds = rules_arr[R_ROUNDS]
    err = 0
    for i in range(lo, hi):
        S = np.zeros(S_LEN, np.int32)
        rngs = np.empty((3, 4), np.uint64)
        opts = np.empty(SEARCH_BUF_SIZE, np.int32)  # options, then pimc's / ismcts's scratch
        tc = np.zeros(TC_LEN, np.int64)
        tc[T_SNAP_AT] = -1
        tdec = np.empty((0, 7), np.int64)
        thash = np.empty(0, np.uint64)
        twin = np.empty((0, 5), np.int64)
        topt = np.empty(0, np.int32)
        snap = np.empty((0, SNAP_LEN), np.int32)
        err += play_match(
            root_seed, first_index + i, n_players, seat_strategy_ids, rules_arr,
            out_games, i * rounds, out_seats, i * rounds * n_players,
            S, rngs, opts, tc, tdec, thash, twin, topt, snap,
        )  # fmt: skip
    return err


def simulate(root_seed, first_index, count, n_players, seat_strategy_ids, rules_arr, out_games, out_seats):  # fmt: skip
    """Play games ``first_index .. first_index+count-1`` on Numba's thread count
    (``kernels.jit.run_split``); returns the error count.

    ``out_games`` has ``count * rounds`` records, ``out_seats`` ``count * rounds * n_players``.
    """
    return run_split(
        simulate_part, int(count), 1, root_seed, first_index, n_players, seat_strategy_ids,
        rules_arr, out_games, out_seats,
    )  # fmt: skip


@_njit
def trace_match(root_seed, game_index, n_players, seat_strategy_ids, rules_arr, out_games, out_seats, tc, tdec, thash, twin, topt, snap):  # fmt: skip
    """Play one game with tracing into the given buffers (see module doc); returns errors."""
    S = np.zeros(S_LEN, np.int32)
    rngs = np.empty((3, 4), np.uint64)
    opts = np.empty(SEARCH_BUF_SIZE, np.int32)  # options, then pimc's / ismcts's scratch
    return play_match(
        root_seed, game_index, n_players, seat_strategy_ids, rules_arr,
        out_games, 0, out_seats, 0, S, rngs, opts, tc, tdec, thash, twin, topt, snap,
    )  # fmt: skip


class Trace:
    """The trace of one game (numpy arrays, see the module doc)."""

    def __init__(self, games, seats, decisions, hashes, windows, options, snapshot, errors):
        self.games = games
        self.seats = seats
        self.decisions = decisions  # int64[k, 7]
        self.hashes = hashes  # uint64[k]
        self.windows = windows  # int64[w, 5]
        self.options = options  # int32 flat (level 2)
        self.snapshot = snapshot  # int32[SNAP_LEN] (snap_at >= 0), [k, SNAP_LEN] (-2) or None
        self.errors = errors

    def options_of(self, i: int) -> np.ndarray:
        """The full option set of decision ``i`` (trace level 2)."""
        o = int(self.decisions[i, 5])
        if o < 0:
            raise ValueError("options were not recorded (use level=2)")
        return self.options[o : o + int(self.decisions[i, 3])]

    def chosen(self) -> list[int]:
        return [int(c) for c in self.decisions[:, 4]]


def run_trace(root, game_index, n, sids, rules_arr, level=1, snap_at=-1, sim=None):
    """Trace one game; buffers grow until they fit. ``sim`` is the driver module (default this)."""
    mod = for_seats(sids, sim)
    rounds = int(rules_arr[R_ROUNDS])
    cap = 4096
    while True:
        games = np.zeros(rounds, GAMES_DTYPE)
        seats = np.zeros(rounds * n, SEATS_DTYPE)
        tc = np.zeros(TC_LEN, np.int64)
        tc[T_LEVEL] = level
        tc[T_SNAP_AT] = snap_at
        tdec = np.zeros((cap, 7), np.int64)
        thash = np.zeros(cap, np.uint64)
        twin = np.zeros((cap, 5), np.int64)
        topt = np.zeros(cap * 8 if level > 1 else 1, np.int32)
        snap = np.full((cap if snap_at == -2 else 1, SNAP_LEN), -1, np.int32)
        err = mod.trace_match(
            np.uint64(root), game_index, n, np.asarray(sids, np.int64),
            np.asarray(rules_arr, np.int64), games, seats, tc, tdec, thash, twin, topt, snap,
        )  # fmt: skip
        if tc[T_OVERFLOW] == 0 and (snap_at != -2 or tc[T_NDEC] <= cap):
            break
        cap *= 4
    nd, nw, no = int(tc[T_NDEC]), int(tc[T_NWIN]), int(tc[T_NOPT])
    return Trace(
        games, seats, tdec[:nd].copy(), thash[:nd].copy(), twin[:nw].copy(), topt[:no].copy(),
        snap[:nd] if snap_at == -2 else (snap[0] if snap_at >= 0 and snap[0, S_LEN] >= 0 else None),
        int(err),
    )  # fmt: skip


def scratch(level: int = 1, cap: int = 4096):
    """Trace buffers ``(tc, tdec, thash, twin, topt, snap)`` for calling driver functions directly."""
    tc = np.zeros(TC_LEN, np.int64)
    tc[T_LEVEL] = level
    tc[T_SNAP_AT] = -1
    return (
        tc,
        np.zeros((cap, 7), np.int64),
        np.zeros(cap, np.uint64),
        np.zeros((cap, 5), np.int64),
        np.zeros(cap * 8, np.int32),
        np.full((1, SNAP_LEN), -1, np.int32),
    )
