"""原子 rule options: the one table (docs/RULES-yuanzi.md). Row order = kernel rule-array offset.

Bools are 0/1 in the array, choices their index, integers themselves. The readings of the text
(YZ-nn) come first; the design parameters (YZ-Dn: numbers a designer may turn, not readings)
follow, appended so that no earlier offset moves.
"""

from cardsim.kernels.options import OptionTable, RuleOption

OPTIONS = OptionTable(
    "yuanzi",
    (
        RuleOption("joker_indicator", "YZ-06", "three", "a joker turned up as 刀 indicator makes "
                   "3 the 刀 (three) or is redrawn (redraw)", ("three", "redraw"), role="reading"),
        RuleOption("dao_bomb_beats_dao_basic", "YZ-14", True, "a 刀 bomb beats 刀 "
                   "singles/pairs/triples", role="reading"),
        RuleOption("dao_bomb", "YZ-15", "over_all", "a 刀 bomb beats every ordinary bomb "
                   "(over_all) or only those of its size", ("over_all", "same_count_only"), role="reading"),
        RuleOption("pass_only_if_unable", "YZ-18", False, "a seat may pass only when it cannot "
                   "beat the top play", role="reading"),
        RuleOption("pass_is_final", "YZ-18", False, "a seat that passed stays out of the trick", role="reading"),
        RuleOption("lead_after_out", "YZ-19", "next", "when the trick winner is out, the next "
                   "seat (next) or the partner leads", ("next", "partner"), role="reading"),
        RuleOption("one_two_settlement", "YZ-23", "all", "1-2 finish: losers give captured and "
                   "hand points (all) or hand points only", ("all", "hand_only"), role="reading"),
        RuleOption("shuangjia", "YZ-25", "both_out_team", "双夹 is judged on the team with both "
                   "out (both_out_team) or without the 上游", ("both_out_team", "upstream_team"), role="reading"),
        # design parameters (docs/RULES-yuanzi.md "Design parameters"); defaults = the text
        RuleOption("shuangjia_threshold", "YZ-D1", 60, "双夹 when the tested team (YZ-25) "
                   "scored under this many points in the first half (a 1-2 finish is 双夹 "
                   "whatever the threshold)", min=0, max=300, step=5, role="design"),
        RuleOption("match_points_win", "YZ-D2", 1, "match score of a match won on points "
                   "after two halves: +N for each winner, -N for each loser", min=1, max=10, role="design"),
        RuleOption("match_points_shuangjia", "YZ-D3", 2, "match score of a 双夹: +N for each "
                   "winner, -N for each loser", min=1, max=10, role="design"),
    ),
)  # fmt: skip
