"""原子 strategy SDK: everything a strategy may know, by name, and the built-ins' helpers.

A user strategy (docs/strategies.md, "Writing your own") imports this module instead of
reading raw offsets::

    from cardsim.kernels.yuanzi import sdk

    def choose(own, played, pub, legal, n, rng):
        if sdk.leading(pub):
            return sdk.cheapest(own, legal, n, sdk.dao(pub), 0)
        ...

Every function here is Numba-compiled (``inline="always"``: it folds into the caller at no
cost) and callable from plain Python too. What they read is exactly what YZ-28 lets a player
know: the own hand ``own`` (uint8[54]), the cards each seat played this half ``played``
(uint8[4, 54]) and the public row ``pub`` (int64; ``ST_*`` offsets of
``kernels/yuanzi/state.py``), whose match block holds the first half's result (in the second
half) and the rule options in force.

Groups (all re-exported names keep their kernel meaning):

* the public state: :func:`my_seat`, :func:`half`, :func:`dao`, :func:`leading`, :func:`top`,
  :func:`top_seat`, :func:`partner_on_top`, :func:`cards_held`, :func:`has_passed`,
  :func:`seats_out`, :func:`out_seat`, :func:`is_out`, :func:`captured`,
  :func:`team_captured`, :func:`trick_points`, :func:`leader`, :func:`opponent_min_count`;
* the first half's result (YZ-28; -1 / 0 during the first half): :func:`first_half_played`,
  :func:`first_half_team_points`, :func:`first_half_margin`, :func:`first_half_upstream`,
  :func:`first_half_seats_out`, :func:`first_half_out`;
* the rule options in force: :func:`rule` with the ``R_*`` offsets and the choice constants;
* seats and teams: :func:`partner_of`, :func:`team_of`, :func:`next_seat`;
* cards: :func:`naturals_of`, :func:`jokers_of`, :func:`hand_size`, :func:`unseen`,
  :func:`played_by`;
* move codes (legal-move decoding): :func:`move_kind`, :func:`move_rank`, :func:`move_size`,
  :func:`move_jokers`, :func:`move_suit`, :func:`move_naturals`, :func:`is_bomb_class`,
  :func:`is_joker_only`, :func:`code_points`, :func:`power`, :func:`is_dao`,
  :func:`atom_strength`, :func:`beats_top`, :func:`pack_move`;
* the built-ins' helpers: :func:`goes_out`, :func:`find_pass`, :func:`cheapest`,
  :func:`move_cost`, :func:`basic_cost`, :func:`bomb_cost`, ``DANGER_CARDS``;
* the built-in strategies themselves (a fallback for your own): :func:`greedy`,
  :func:`points`, :func:`bomber`, :func:`planner`, :func:`random_choice`; and the strategy
  stream: :func:`bounded`, :func:`next_u64`.
"""

import numpy as np
from cardsim.kernels.rng import bounded, next_u64
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    ATOM_BIG_JOKER_RANK,
    ATOM_SMALL_JOKER_RANK,
    BIG_JOKER,
    BOMB,
    COPIES,
    HYDROGEN,
    N_RANKS,
    N_TYPES,
    PAIR,
    PASS,
    RANK_POINTS,
    RANK_VALUE,
    SINGLE,
    SMALL_JOKER,
    TRIPLE,
    move_jokers,
    move_kind,
    move_rank,
    move_size,
    move_suit,
    pack_move,
)
from cardsim.kernels.yuanzi.rules import atom_strength, beats, is_dao, power
from cardsim.kernels.yuanzi.state import (
    N_RULES,
    R_DAO_BOMB,
    R_DAO_BOMB_BEATS_DAO_BASIC,
    R_JOKER_INDICATOR,
    R_LEAD_AFTER_OUT,
    R_MATCH_POINTS_SHUANGJIA,
    R_MATCH_POINTS_WIN,
    R_ONE_TWO_SETTLEMENT,
    R_PASS_IS_FINAL,
    R_PASS_ONLY_IF_UNABLE,
    R_SHUANGJIA,
    R_SHUANGJIA_THRESHOLD,
    ST_ACTOR,
    ST_CAPT,
    ST_COUNT,
    ST_DAO,
    ST_H0_NOUT,
    ST_H0_OUT,
    ST_H0_TEAM_PTS,
    ST_H0_UPSTREAM,
    ST_HALF,
    ST_LEADER,
    ST_NOUT,
    ST_OUT,
    ST_PASSED,
    ST_RULES,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    inline_kernel,
)
from cardsim.kernels.yuanzi.strategies import (
    DANGER_CARDS,
    basic_cost,
    bomb_cost,
    cheapest,
    choose_bomber,
    choose_greedy,
    choose_planner,
    choose_points,
    choose_random,
    code_points,
    find_pass,
    goes_out,
    jokers_of,
    move_cost,
    opponent_min_count,
)
from cardsim.kernels.yuanzi.strategies import nat_of as naturals_of

__all__ = [
    # constants
    "ATOM", "ATOM_BIG_JOKER_RANK", "ATOM_SMALL_JOKER_RANK", "BIG_JOKER", "BOMB", "COPIES",
    "DANGER_CARDS", "HYDROGEN", "N_RANKS", "N_RULES", "N_TYPES", "PAIR", "PASS", "RANK_POINTS",
    "RANK_VALUE", "SINGLE", "SMALL_JOKER", "TRIPLE",
    "R_DAO_BOMB", "R_DAO_BOMB_BEATS_DAO_BASIC", "R_JOKER_INDICATOR", "R_LEAD_AFTER_OUT",
    "R_ONE_TWO_SETTLEMENT", "R_PASS_IS_FINAL", "R_PASS_ONLY_IF_UNABLE", "R_SHUANGJIA",
    "R_SHUANGJIA_THRESHOLD", "R_MATCH_POINTS_WIN", "R_MATCH_POINTS_SHUANGJIA",  # YZ-D1..D3
    "JOKER_INDICATOR_THREE", "JOKER_INDICATOR_REDRAW", "DAO_BOMB_OVER_ALL",
    "DAO_BOMB_SAME_COUNT_ONLY", "LEAD_AFTER_OUT_NEXT", "LEAD_AFTER_OUT_PARTNER",
    "ONE_TWO_ALL", "ONE_TWO_HAND_ONLY", "SHUANGJIA_BOTH_OUT_TEAM", "SHUANGJIA_UPSTREAM_TEAM",
    # public state
    "my_seat", "half", "dao", "leading", "top", "top_seat", "partner_on_top", "cards_held",
    "has_passed", "seats_out", "out_seat", "is_out", "captured", "team_captured",
    "trick_points", "leader", "opponent_min_count",
    # first half (YZ-28)
    "first_half_played", "first_half_team_points", "first_half_margin", "first_half_upstream",
    "first_half_seats_out", "first_half_out",
    # rules
    "rule",
    # seats, cards
    "partner_of", "team_of", "next_seat", "naturals_of", "jokers_of", "hand_size", "unseen",
    "played_by",
    # move codes
    "move_kind", "move_rank", "move_size", "move_jokers", "move_suit", "move_naturals",
    "is_bomb_class", "is_joker_only", "code_points", "power", "is_dao", "atom_strength",
    "beats_top", "pack_move",
    # helpers of the built-ins
    "goes_out", "find_pass", "cheapest", "move_cost", "basic_cost", "bomb_cost",
    # built-in strategies, randomness
    "greedy", "points", "bomber", "planner", "random_choice", "bounded", "next_u64",
]  # fmt: skip

# --- rule choices: the value ``rule(pub, R_X)`` has for each choice (docs/RULES-yuanzi.md) ------
JOKER_INDICATOR_THREE, JOKER_INDICATOR_REDRAW = 0, 1  # YZ-06
DAO_BOMB_OVER_ALL, DAO_BOMB_SAME_COUNT_ONLY = 0, 1  # YZ-15
LEAD_AFTER_OUT_NEXT, LEAD_AFTER_OUT_PARTNER = 0, 1  # YZ-19
ONE_TWO_ALL, ONE_TWO_HAND_ONLY = 0, 1  # YZ-23
SHUANGJIA_BOTH_OUT_TEAM, SHUANGJIA_UPSTREAM_TEAM = 0, 1  # YZ-25


# --- seats and teams (YZ-02) -------------------------------------------------------------------
@inline_kernel
def partner_of(seat):
    """The partner of ``seat`` (opposite: 0-2, 1-3)."""
    return (seat + 2) % 4


@inline_kernel
def team_of(seat):
    """Team of ``seat``: 0 = 南北 {0, 2}, 1 = 东西 {1, 3}."""
    return seat % 2


@inline_kernel
def next_seat(seat):
    """The seat after ``seat`` in play order (seat + 1 mod 4)."""
    return (seat + 1) % 4


# --- the public state (YZ-28) ------------------------------------------------------------------
@inline_kernel
def my_seat(pub):
    """The seat deciding now (yours)."""
    return pub[ST_ACTOR]


@inline_kernel
def half(pub):
    """0 in the first half, 1 in the second."""
    return pub[ST_HALF]


@inline_kernel
def dao(pub):
    """Rank idx of this half's 刀 (0 = "3" … 12 = "2"; YZ-06)."""
    return pub[ST_DAO]


@inline_kernel
def leading(pub):
    """True when you lead a new trick (nothing to beat)."""
    return pub[ST_TOP] == 0


@inline_kernel
def top(pub):
    """The move code on top of the trick (0 while leading)."""
    return pub[ST_TOP]


@inline_kernel
def top_seat(pub):
    """Seat of the top play (-1 while leading)."""
    return pub[ST_TOP_SEAT]


@inline_kernel
def partner_on_top(pub):
    """True when your partner made the top play of the trick."""
    return pub[ST_TOP] != 0 and pub[ST_TOP_SEAT] == (pub[ST_ACTOR] + 2) % 4


@inline_kernel
def cards_held(pub, seat):
    """Cards in ``seat``'s hand now (public count)."""
    return pub[ST_COUNT + seat]


@inline_kernel
def has_passed(pub, seat):
    """True when ``seat`` passed since the last play (this trick with ``pass_is_final``)."""
    return pub[ST_PASSED + seat] != 0


@inline_kernel
def seats_out(pub):
    """How many seats are out so far in this half."""
    return pub[ST_NOUT]


@inline_kernel
def out_seat(pub, i):
    """The ``i``-th seat to go out this half (0 = the 上游); -1 when fewer are out."""
    if i < 0 or i >= pub[ST_NOUT]:
        return -1
    return pub[ST_OUT + i]


@inline_kernel
def is_out(pub, seat):
    """True when ``seat`` has no cards left."""
    return pub[ST_COUNT + seat] == 0


@inline_kernel
def captured(pub, seat):
    """Points ``seat`` has taken in finished tricks this half (YZ-19)."""
    return pub[ST_CAPT + seat]


@inline_kernel
def team_captured(pub, team):
    """Points ``team`` (0 南北, 1 东西) has taken in finished tricks this half."""
    return pub[ST_CAPT + team] + pub[ST_CAPT + team + 2]


@inline_kernel
def trick_points(pub):
    """Points lying in the current trick (YZ-03: 5 = 5, 10 = 10, K = 10)."""
    return pub[ST_TRICK_PTS]


@inline_kernel
def leader(pub):
    """The seat that led the current trick."""
    return pub[ST_LEADER]


# --- the first half's result (YZ-28) -----------------------------------------------------------
@inline_kernel
def first_half_played(pub):
    """True in the second half (the first half's result is then known to all)."""
    return pub[ST_HALF] == 1


@inline_kernel
def first_half_team_points(pub, team):
    """Team ``team``'s points in the first half (after settlement); -1 during the first half."""
    return pub[ST_H0_TEAM_PTS + team]


@inline_kernel
def first_half_margin(pub, team):
    """First-half points of ``team`` minus the other team's (0 during the first half).

    The match is won on the two halves' total (YZ-26): a team behind by this much must make
    it up in the second half.
    """
    if pub[ST_HALF] == 0:
        return 0
    return pub[ST_H0_TEAM_PTS + team] - pub[ST_H0_TEAM_PTS + 1 - team]


@inline_kernel
def first_half_upstream(pub):
    """The first half's 上游 (first seat out); -1 during the first half."""
    return pub[ST_H0_UPSTREAM]


@inline_kernel
def first_half_seats_out(pub):
    """Seats out when the first half ended (2 in a 1-2 finish, else 3); -1 during it."""
    return pub[ST_H0_NOUT]


@inline_kernel
def first_half_out(pub, i):
    """The ``i``-th seat out in the first half (0 = 上游); -1 during it or past the last."""
    if i < 0 or i >= 4:
        return -1
    return pub[ST_H0_OUT + i]


# --- rule options in force (YZ-28) -------------------------------------------------------------
@inline_kernel
def rule(pub, r):
    """The value of rule option ``r`` (an ``R_*`` offset) in force: 0/1 for a yes/no option,
    else the index of the choice (``cardsim rules yuanzi`` lists them in order; constants
    such as ``LEAD_AFTER_OUT_PARTNER`` name them)."""
    return pub[ST_RULES + r]


# --- cards -------------------------------------------------------------------------------------
@inline_kernel
def hand_size(own):
    """Cards in the hand ``own`` (any uint8[54] counts)."""
    total = 0
    for t in range(N_TYPES):
        total += own[t]
    return total


@inline_kernel
def played_by(played, seat, t):
    """Cards of type ``t`` that ``seat`` played this half."""
    return np.int64(played[seat, t])


@inline_kernel
def unseen(own, played, t):
    """Copies of card type ``t`` you have not seen this half: 3 minus yours minus the played ones
    (they are in the other hands)."""
    n = np.int64(COPIES) - own[t]
    for s in range(4):
        n -= played[s, t]
    return n


# --- move codes (kernels/yuanzi/encoding.py, docs/yuanzi-protocol.md) --------------------------
@inline_kernel
def move_naturals(code):
    """Natural (non-joker) cards a basic play or bomb gives up: size minus wild jokers."""
    return move_size(code) - move_jokers(code)


@inline_kernel
def is_bomb_class(code):
    """True for a bomb, atom or hydrogen bomb (kinds 4..6)."""
    return move_kind(code) >= BOMB


@inline_kernel
def is_joker_only(code):
    """True for a play made of jokers only (rank 0 with jokers == size)."""
    return code != PASS and move_kind(code) <= BOMB and move_jokers(code) == move_size(code)


@inline_kernel
def beats_top(pub, code):
    """True when ``code`` beats the top of the trick under the rules in force (YZ-09..17);
    a legal non-pass code always does — use it to test codes you build yourself."""
    return beats(code, pub[ST_TOP], pub[ST_DAO], pub[ST_RULES : ST_RULES + N_RULES])


# --- the built-in strategies (same signature as yours) -----------------------------------------
greedy = choose_greedy
points = choose_points
bomber = choose_bomber
planner = choose_planner
random_choice = choose_random
