"""原子 kernel state: the rule array layout and the flat per-game state row (named offsets).

Per game the kernel keeps (STYLE: flat integer arrays, no objects):

* ``hands``  uint8[4, 54]  cards in hand per seat and card type (hidden information);
* ``played`` uint8[4, 54]  cards played so far in this half, per seat (public, YZ-28);
* ``st``     int64[N_ST]   the public state (offsets ``ST_*`` below) — the strategies receive
  it as their public view, so nothing hidden may ever be stored in it. ``st[:ST_MATCH]`` is
  the half's state; ``st[ST_MATCH:]`` is the match block of YZ-28: the first half's result
  (``ST_H0_*``; -1 during the first half) and the rule options in force (``ST_RULES``);
* ``info``   int64[4, N_INFO] what each seat was dealt (hidden; only for the outcome tables).

Rule options travel as ``rules`` int64[N_RULES] (offsets ``R_*``), never as globals.
"""

import numpy as np
from cardsim.kernels.jit import hot_kernel, inline_kernel  # noqa: F401  (re-exported)
from cardsim.kernels.yuanzi.options import OPTIONS

# --- rule array (YZ rulings): offsets from the one option table kernels/yuanzi/options.py ----
R_JOKER_INDICATOR = OPTIONS.offset("joker_indicator")  # YZ-06: 0 three, 1 redraw
R_DAO_BOMB_BEATS_DAO_BASIC = OPTIONS.offset("dao_bomb_beats_dao_basic")  # YZ-14: 0/1
R_DAO_BOMB = OPTIONS.offset("dao_bomb")  # YZ-15: 0 over_all, 1 same_count_only
R_PASS_ONLY_IF_UNABLE = OPTIONS.offset("pass_only_if_unable")  # YZ-18: 0/1
R_PASS_IS_FINAL = OPTIONS.offset("pass_is_final")  # YZ-18: 0/1
R_LEAD_AFTER_OUT = OPTIONS.offset("lead_after_out")  # YZ-19: 0 next, 1 partner
R_ONE_TWO_SETTLEMENT = OPTIONS.offset("one_two_settlement")  # YZ-23: 0 all, 1 hand_only
R_SHUANGJIA = OPTIONS.offset("shuangjia")  # YZ-25: 0 both_out_team, 1 upstream_team
R_SHUANGJIA_THRESHOLD = OPTIONS.offset("shuangjia_threshold")  # YZ-D1: points (default 60)
R_MATCH_POINTS_WIN = OPTIONS.offset("match_points_win")  # YZ-D2: match score (default 1)
R_MATCH_POINTS_SHUANGJIA = OPTIONS.offset("match_points_shuangjia")  # YZ-D3: (default 2)
N_RULES = len(OPTIONS)


def rules_array(rules: dict | None = None) -> np.ndarray:
    """The int64 rule array for a dict of option values (missing options take their default)."""
    return OPTIONS.array(rules)


# --- public state row st[] ----------------------------------------------------------------
ST_HALF = 0  # 0 first half, 1 second half
ST_DAO = 1  # 刀 rank idx (YZ-06)
ST_ACTOR = 2  # seat to act now
ST_TOP = 3  # move code on top of the trick, 0 while leading
ST_TOP_SEAT = 4  # seat of the top play (-1 while leading)
ST_PASSED = 5  # [4] passed since the last play (or this trick with pass_is_final)
ST_COUNT = 9  # [4] cards in hand per seat
ST_NOUT = 13  # seats out so far
ST_OUT = 14  # [4] seats in the order they went out
ST_CAPT = 18  # [4] points captured per seat (YZ-19)
ST_TRICK_PTS = 22  # points in the current trick
ST_LEADER = 23  # leader of the current trick
ST_DONE = 24  # 1 once the half has ended
ST_TRICKS = 25  # tricks started (leads) in this half
ST_PLAYS = 26  # non-pass moves
ST_BOMBS = 27  # bombs played (incl. 刀 bombs)
ST_DAO_BOMBS = 28  # 刀 bombs played
ST_ATOMS = 29  # atoms played
ST_HYDROGENS = 30  # hydrogen bombs played
ST_DECISIONS = 31  # decisions (plays + passes)
ST_POINTS = 32  # [4] seat points after settlement (YZ-22..24)
ST_FINISH = 36  # [4] finish position per seat, 4 = 下游
ST_ONE_TWO = 40  # 1 if the half ended in a 1-2 finish
ST_INDICATOR = 41  # indicator card type (YZ-05, shown to all)
ST_FALLBACK = 42  # 0 none, 1 joker, 2 point rank (YZ-06)
ST_FIRST_RECV = 43  # first receiver (YZ-07)
ST_FIRST_LEADER = 44  # first leader (YZ-08)
ST_TEAM_PTS = 45  # [2] team points after settlement
ST_LAST = 47  # last seat that acted
# The match block (YZ-28): not cleared between halves. begin_half clears st[:ST_MATCH] only; in
# the first half the first-half fields are -1, in the second half they hold its result. The
# rule options in force are copied in at the start of each half (ST_RULES + R_* = rules[R_*]).
ST_MATCH = 48  # start of the match block
ST_H0_TEAM_PTS = 48  # [2] first half: team points (team 0 南北 {0, 2}, team 1 东西 {1, 3})
ST_H0_UPSTREAM = 50  # first half: the 上游 (first seat out)
ST_H0_NOUT = 51  # first half: seats out when it ended (2 in a 1-2 finish, else 3)
ST_H0_OUT = 52  # [4] first half: seats in the order they went out (-1 past ST_H0_NOUT)
ST_RULES = 56  # [N_RULES] the rule options in force (the rule array, R_* offsets)
N_ST = ST_RULES + N_RULES

# --- hidden per-seat deal info info[seat, ] -----------------------------------------------
INFO_DEALT = 0  # cards dealt (41 or 40)
INFO_DAO_CARDS = 1  # 刀 cards dealt
INFO_JOKERS = 2  # jokers dealt
N_INFO = 3
