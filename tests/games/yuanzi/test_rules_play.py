"""Scripted tests of the 原子 reference rules: tricks, end of a half, settlement, the match.

Each test names the ruling it checks (RULINGS.md YZ-nn). Half tests use small scripted hands
with :func:`play_half`; match tests use deals from ``deal_from_seed``.
"""

import dataclasses

import pytest
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.games.yuanzi.reference.moves import (
    PASS,
    hand_points,
    kind_of,
    legal_codes,
    size_of,
)
from cardsim.sim.games.yuanzi.reference.rules import (
    RULE_DEFAULTS,
    TEAMS,
    HalfResult,
    View,
    cards_given_up,
    classify,
    deal_from_seed,
    match_winner,
    parse_hand,
    play_half,
    play_match,
    random_chooser,
    replay_trace,
    resolve_rules,
    setup_half,
    shuangjia,
)


class Script:
    """A chooser that plays ``steps`` = [(seat, "cards" | "pass" | code), ...] in order."""

    def __init__(self, steps, dao):
        self.steps = list(steps)
        self.dao = dao
        self.i = 0
        self.views: list[View] = []
        self.legal: list[list[int]] = []

    def __call__(self, view, legal):
        assert self.i < len(self.steps), f"script exhausted at seat {view.seat}, legal {legal}"
        seat, what = self.steps[self.i]
        assert view.seat == seat, f"step {self.i}: expected seat {seat}, got {view.seat}"
        if what == "pass":
            code = PASS
        elif isinstance(what, int):
            code = what
        else:
            code = classify(what, self.dao).code
        assert code in legal, f"step {self.i}: {what} not legal for seat {seat}: {legal}"
        self.i += 1
        self.views.append(view)
        self.legal.append(legal)
        return code

    @property
    def done(self) -> bool:
        return self.i == len(self.steps)


def run(hands, steps, leader=0, dao="2", **rules):
    script = Script(steps, dao)
    log: list[str] = []
    result = play_half(hands, dao, leader, script, resolve_rules(**rules), log=log)
    assert script.done, f"{len(script.steps) - script.i} scripted steps left unplayed"
    return result, script, log


# --- YZ-18: the leader and the followers ---------------------------------------------------------


def test_yz18_leader_may_not_pass():
    steps = [(0, "4S"), (1, "5S"), (2, "6S"), (3, "8S"), (0, "pass"), (2, "pass")]  # 1 out
    steps += [(3, "9S")]  # 3 out: 1 and 3 out, 0 and 2 hold cards -> 1-2 finish
    result, script, _ = run(["3S 4S", "5S", "6S 7S", "8S 9S"], steps)
    assert PASS not in script.legal[0] and PASS not in script.legal[6]  # leading
    assert PASS in script.legal[1]  # following
    assert result.out == [1, 3] and result.one_two


def test_yz18_pass_allowed_even_when_able_by_default():
    hands = ["3S 4S", "5S 6S", "6D 7D", "8S 9S"]
    steps = [(0, "3S"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "4S")]  # 0 out
    steps += [(1, "6S"), (2, "7D"), (3, "8S"), (1, "pass"), (2, "pass")]
    steps += [(3, "9S"), (1, "pass"), (2, "pass")]  # 3 out: 0 and 3 are not partners
    steps += [(1, "5S")]  # 1 out: three out
    result, script, _ = run(hands, steps)
    # seat 1 could beat 3S with 5S or 6S and still passed
    assert script.legal[1] == [PASS] + sorted(classify(c, "2").code for c in ("5S", "6S"))
    assert result.out == [0, 3, 1]


def test_yz18_variant_pass_only_if_unable():
    hands = ["3S 4S", "5S 6S", "3D 3C", "8S 9S"]
    # seat 1 must beat 3S; seat 2 cannot (3D is equal) and may only pass
    steps = [(0, "3S"), (1, "5S"), (2, "pass"), (3, "8S"), (0, "pass"), (1, "pass")]
    steps += [(2, "pass"), (3, "9S"), (0, "pass"), (1, "pass"), (2, "pass")]
    # 3 is out; trick over: the next seat with cards (0) leads
    steps += [(0, "4S"), (1, "6S")]
    result, script, _ = run(hands, steps, pass_only_if_unable=True)
    single5, single6 = classify("5S", "2").code, classify("6S", "2").code
    assert script.legal[1] == [single5, single6]  # PASS left out: it can beat
    assert script.legal[2] == [PASS]  # unable: PASS only
    assert result.out == [3, 0, 1]


def test_yz18_a_passed_seat_may_play_again_by_default():
    hands = ["3S 9S", "4S 5S KS", "6S 7S", "8S AS"]
    # 0 leads 3S; 1 passes; 2 plays 6S; 3 passes; 0 passes; 1 (passed before) plays KS
    steps = [(0, "3S"), (1, "pass"), (2, "6S"), (3, "pass"), (0, "pass"), (1, "KS")]
    steps += [(2, "pass"), (3, "AS"), (0, "pass"), (1, "pass"), (2, "pass")]
    steps += [(3, "8S"), (0, "9S"), (1, "pass"), (2, "pass")]  # 3 out; 0 out
    steps += [(1, "4S"), (2, "7S")]  # 0 out; 1 leads (next after 0); 2 out -> three out
    result, script, _ = run(hands, steps)
    assert [v.seat for v in script.views][:6] == [0, 1, 2, 3, 0, 1]
    assert result.out == [3, 0, 2]
    assert result.captured[3] == 10  # KS (10) taken by 3's AS


def test_yz18_variant_pass_is_final_within_a_trick():
    hands = ["3S 9S", "4S 5S KS", "6S 7S", "8S AS"]
    # 0 leads 3S; 1 passes; 2 plays 6S; 3 passes; 0 passes; 1 has passed for good: trick over
    steps = [(0, "3S"), (1, "pass"), (2, "6S"), (3, "pass"), (0, "pass")]
    steps += [(2, "7S")]  # 2 took the trick, leads and goes out
    steps += [(3, "AS"), (0, "pass"), (1, "pass")]  # flags cleared between tricks: 1 asked
    steps += [(3, "8S"), (0, "9S")]  # 3 out, then 0 out: three out
    result, script, _ = run(hands, steps, pass_is_final=True)
    assert [v.seat for v in script.views][:6] == [0, 1, 2, 3, 0, 2]
    assert script.views[5].passed == (False, False, False, False)  # a new trick
    assert script.views[4].passed == (False, True, False, True)
    assert result.out == [2, 3, 0]  # 2 out, 3 out, 0 out: three out


def test_yz18_partners_may_beat_each_other():
    hands = ["5S 3S", "4S 4H", "9S 3H", "4D 4C"]
    steps = [(0, "5S"), (1, "pass"), (2, "9S"), (3, "pass"), (0, "pass"), (1, "pass")]
    steps += [(2, "3H"), (3, "4D"), (0, "pass"), (1, "pass")]  # 2 out after 3H
    steps += [(3, "4C"), (0, "pass"), (1, "pass")]  # 3 out (4S 4H cannot beat 4C)
    steps += [(0, "3S")]  # the seat after 3 with cards leads: 0 out -> three out
    result, script, _ = run(hands, steps)
    assert classify("9S", "2").code in script.legal[2]  # 2 may beat its partner 0
    assert result.out == [2, 3, 0]


# --- YZ-19: taking the trick and the next lead ---------------------------------------------------


def test_yz19_last_player_takes_the_trick_points_and_leads():
    hands = ["5S 3S", "10S 4S", "KS 3H 3D", "4D 4C"]
    steps = [(0, "5S"), (1, "10S"), (2, "KS"), (3, "pass"), (0, "pass"), (1, "pass")]
    # 2 takes 5 + 10 + 10 = 25 and leads
    steps += [(2, "3H"), (3, "4D"), (0, "pass"), (1, "pass"), (2, "pass")]
    steps += [(3, "4C"), (0, "pass"), (1, "pass"), (2, "pass")]  # 3 out; the trick is 3's
    steps += [(0, "3S"), (1, "4S")]  # next seat after 3 (0) leads; 0 out, 1 out: three out
    result, script, log = run(hands, steps)
    assert script.views[6].seat == 2 and script.views[6].top == PASS
    assert any("trick won by 南(2): 25 pts" in line for line in log)
    assert script.views[15].seat == 0 and script.views[15].top == PASS
    assert result.captured == [0, 0, 25, 0] and result.out == [3, 0, 1]
    # YZ-22: the 下游 2 gives its 25 captured points to the 上游 3
    assert result.points == [0, 0, 0, 25]


def test_yz19_next_leader_after_out_next_and_partner():
    hands = ["KS", "3S 4S", "3H 4H", "3D 4D"]
    # 0 leads its last card (K, 10 pts) and is out; nobody beats it; 0 took the trick
    base = [(0, "KS"), (1, "pass"), (2, "pass"), (3, "pass")]
    # lead_after_out=next: seat 1 leads
    steps = base + [(1, "3S"), (2, "4H"), (3, "pass"), (1, "pass")]
    steps += [(2, "3H")]  # 2 out: 0 and 2 out, 1 and 3 hold cards -> 1-2 finish
    result, script, log = run(hands, steps)
    assert script.views[4].seat == 1 and script.views[4].top == PASS
    assert result.captured[0] == 10
    assert any("trick won by 北(0): 10 pts" in line for line in log)
    # lead_after_out=partner (接风): seat 2, the partner of the out seat 0, leads
    steps = base + [(2, "3H"), (3, "pass"), (1, "pass"), (2, "4H")]
    result, script, _ = run(hands, steps, lead_after_out="partner")
    assert script.views[4].seat == 2
    assert result.out == [0, 2] and result.one_two


def test_yz19_trick_ends_when_every_other_holder_passed():
    hands = ["3S 8S", "4S 9S", "5S 10S", "6S JS"]
    steps = [(0, "3S"), (1, "4S"), (2, "pass"), (3, "pass"), (0, "pass")]
    # 1's 4S stands: 1 leads the next trick
    steps += [(1, "9S"), (2, "10S"), (3, "JS"), (0, "pass"), (2, "pass")]  # 1 out after 9S
    steps += [(3, "6S")]  # 3 out: 1 and 3 out, 0 and 2 hold cards -> 1-2 finish
    result, script, log = run(hands, steps)
    assert script.views[5].seat == 1 and script.views[5].top == PASS
    assert result.out == [1, 3] and result.one_two
    assert log[0] == "trick 1: 北(0) leads"


# --- YZ-20, YZ-21: end of a half -----------------------------------------------------------------


def test_yz20_half_ends_on_a_1_2_finish():
    hands = ["3S", "4S 4H 9S", "5S", "6S 7S KS"]
    steps = [(0, "3S"), (1, "pass"), (2, "5S")]  # 0 out; 2 out -> both 南北 out, both 东西 hold
    result, _, _ = run(hands, steps)
    assert result.out == [0, 2] and result.one_two
    assert result.finish == [1, 4, 2, 4]  # both unfinished seats are 下游 (4)
    assert result.tricks == 1 and result.plays == 2


def test_yz20_half_goes_on_after_two_opponents_out_and_ends_with_three_out():
    hands = ["3S", "4S", "5S 6S", "7S 8S"]
    steps = [(0, "3S"), (1, "4S")]  # 0 out, 1 out: different teams, the half goes on
    steps += [(2, "5S"), (3, "7S"), (2, "pass")]  # trick to 3; 3 leads 8S and is out
    steps += [(3, "8S")]
    result, _, _ = run(hands, steps)
    assert result.out == [0, 1, 3] and not result.one_two
    assert result.finish == [1, 2, 4, 3]


def test_yz21_unfinished_trick_points_go_to_the_top_player():
    # 0 leads 3S and is out; 1 plays 10S; 2 plays KS and is out: 1-2 finish in mid-trick
    hands = ["3S", "10S 4H", "KS", "4D 5D"]
    steps = [(0, "3S"), (1, "10S"), (2, "KS")]
    result, _, log = run(hands, steps)
    assert result.one_two and result.out == [0, 2]
    assert result.captured == [0, 0, 20, 0]  # 10S + KS of the unfinished trick
    # YZ-23 all: 下游 1 and 3 give captured (0) + in hand (0 and 5) to the 上游 0
    assert result.points == [5, 0, 20, 0] and result.team_points == [25, 0]
    assert any("YZ-21" in line for line in log)


# --- YZ-22 … YZ-24: settlement -------------------------------------------------------------------

THREE_OUT_HANDS = ["3S 4D", "5S 6D", "7S", "8S 3D KS 10D"]
THREE_OUT_STEPS = [
    (0, "3S"),
    (1, "5S"),
    (2, "pass"),
    (3, "8S"),
    (0, "pass"),
    (1, "pass"),
    (2, "pass"),  # 3 takes 5 points
    (3, "3D"),
    (0, "4D"),  # 0 out (上游)
    (1, "6D"),  # 1 out
    (2, "7S"),  # 2 out (third): three out, 3 is the 下游 with KS 10D (20) in hand
]


def test_yz22_three_out_settlement():
    result, _, log = run(THREE_OUT_HANDS, THREE_OUT_STEPS)
    assert result.out == [0, 1, 2] and result.finish == [1, 2, 3, 4]
    assert result.captured == [0, 0, 0, 5]
    assert result.hand_points == [0, 0, 0, 20]
    # 下游 3: in-hand 20 -> third out (2); captured 5 -> 上游 (0)
    assert result.points == [5, 0, 20, 0]
    assert result.team_points == [25, 0]  # YZ-24: team = sum of partners
    assert any("YZ-22" in line for line in log)


ONE_TWO_HANDS = ["3S 4S", "5S 9D 5D", "6S 3H", "KS 3D 10D"]
ONE_TWO_STEPS = [
    (0, "3S"),
    (1, "5S"),
    (2, "pass"),
    (3, "KS"),
    (0, "pass"),
    (1, "pass"),
    (2, "pass"),  # 3 takes 5 + 10 = 15
    (3, "3D"),
    (0, "4S"),  # 0 out
    (1, "pass"),
    (2, "6S"),
    (3, "pass"),
    (1, "pass"),  # 2 takes the trick (0 points)
    (2, "3H"),  # 2 out: 1-2 finish; 1 holds 9D 5D (5), 3 holds 10D (10)
]


def test_yz23_one_two_settlement_all():
    result, _, _ = run(ONE_TWO_HANDS, ONE_TWO_STEPS)
    assert result.one_two and result.out == [0, 2]
    assert result.captured == [0, 0, 0, 15] and result.hand_points == [0, 5, 0, 10]
    # all: 上游 0 gets 15 + 10 (seat 3) + 0 + 5 (seat 1) = 30: a 30 : 0 half
    assert result.points == [30, 0, 0, 0] and result.team_points == [30, 0]


def test_yz23_variant_one_two_settlement_hand_only():
    result, _, _ = run(ONE_TWO_HANDS, ONE_TWO_STEPS, one_two_settlement="hand_only")
    # hand_only: 3 keeps its 15 captured; 上游 0 gets the in-hand 10 + 5 = 15
    assert result.points == [15, 0, 0, 15] and result.team_points == [15, 15]


def test_yz24_every_half_awards_300_points():
    deal = deal_from_seed(21, 4)
    for rules in ({}, {"one_two_settlement": "hand_only", "lead_after_out": "partner"}):
        m = play_match(deal, random_chooser(3), rules)
        for h in m.halves:
            assert sum(h.points) == 300 and sum(h.team_points) == 300
            assert h.team_points == [h.points[0] + h.points[2], h.points[1] + h.points[3]]


# --- YZ-25, YZ-26: 双夹 and the match -------------------------------------------------------------


def half0(out, team_points):
    one_two = len(out) == 2
    finish = [4] * 4
    for i, s in enumerate(out, 1):
        finish[s] = i
    return HalfResult(0, out, one_two, finish, [], [], [], list(team_points))


def test_yz25_shuangjia_on_1_2_finish():
    assert shuangjia(half0([1, 3], [0, 300])) == (True, 1)
    assert shuangjia(half0([1, 3], [150, 150]), {"one_two_settlement": "hand_only"}) == (True, 1)
    assert shuangjia(half0([2, 0], [200, 100]), {"shuangjia": "upstream_team"}) == (True, 0)


def test_yz25_shuangjia_when_the_other_team_scores_under_60():
    # three out: X = the team with both out; Y under 60 -> X wins by 双夹
    assert shuangjia(half0([0, 1, 2], [245, 55])) == (True, 0)
    assert shuangjia(half0([0, 1, 2], [240, 60])) == (False, 0)  # 60 is not under 60
    # the 上游 (1) is in Y: still X = team 0 wins when Y < 60 (both_out_team)
    assert shuangjia(half0([1, 0, 2], [250, 50])) == (True, 0)
    assert shuangjia(half0([1, 0, 2], [50, 250])) == (False, 0)


def test_yz25_variant_upstream_team():
    rules = {"shuangjia": "upstream_team"}
    # the team without the 上游 (team 0 when 1 is 上游) scored under 60 -> 上游's team wins
    assert shuangjia(half0([1, 0, 2], [50, 250]), rules) == (True, 1)
    assert shuangjia(half0([1, 0, 2], [250, 50]), rules) == (False, 1)
    assert shuangjia(half0([0, 1, 2], [245, 55]), rules) == (True, 0)


def test_yz26_match_winner_and_300_300_tie_break():
    assert match_winner([200, 100], [50, 250], upstream0=0) == 1  # 250 : 350
    assert match_winner([200, 100], [150, 150], upstream0=1) == 0  # 350 : 250
    # 300 : 300: the team of the first-half 上游 wins
    assert match_winner([200, 100], [100, 200], upstream0=1) == 1
    assert match_winner([200, 100], [100, 200], upstream0=2) == 0


def _find_match(predicate, rules=None, limit=300):
    for g in range(limit):
        deal = deal_from_seed(77, g, rules)
        m = play_match(deal, random_chooser(g), rules)
        if predicate(m.outcome):
            return deal, m
    raise AssertionError("no such match found")


def test_yz04_yz25_shuangjia_ends_the_match_after_the_first_half():
    deal, m = _find_match(lambda o: o["shuangjia"])
    o = m.outcome
    assert o["second_half"] is False and len(m.halves) == 1
    for key in ("dao_1", "indicator_1", "first_receiver_1", "tricks_1", "plays_1", "atoms_1"):
        assert o[key] == -1
    assert (
        o["finish_1"] == [-1] * 4 and o["points_1"] == [-1] * 4 and o["team_points_1"] == [-1, -1]
    )
    w = o["winner_team"]
    assert o["delta"] == [2 if s % 2 == w else -2 for s in range(4)]  # +2 / -2 each


def test_yz26_second_half_is_dealt_and_led_by_the_first_half_upstream():
    deal, m = _find_match(lambda o: o["second_half"])
    o = m.outcome
    upstream0 = o["finish_0"].index(1)
    assert o["first_receiver_1"] == o["first_leader_1"] == upstream0
    s1 = setup_half(deal.deck1, deal.p1, 1, upstream0)
    assert (o["indicator_1"], o["dao_fallback_1"]) == (deal.deck1[deal.p1], s1.dao_fallback)
    totals = [o["team_points_0"][t] + o["team_points_1"][t] for t in (0, 1)]
    expected = match_winner(o["team_points_0"], o["team_points_1"], upstream0)
    assert o["winner_team"] == expected
    assert totals[expected] >= totals[1 - expected]
    assert o["delta"] == [1 if s % 2 == expected else -1 for s in range(4)]


# --- YZ-28: what a strategy sees -----------------------------------------------------------------


def test_yz28_view_holds_only_what_a_seat_may_know():
    fields = {f.name for f in dataclasses.fields(View)}
    assert fields == {
        "half",
        "seat",
        "dao",
        "hand",
        "hand_sizes",
        "out",
        "captured",
        "top",
        "top_seat",
        "passed",
        "trick_points",
        "history",
        "first_half_team_points",
        "first_half_upstream",  # YZ-28 (revised 2026-12-01)
        "first_half_out",
        "rules",
    }
    result, script, _ = run(THREE_OUT_HANDS, THREE_OUT_STEPS)
    v = script.views[3]  # seat 3 about to beat 5S
    assert v.hand == tuple(parse_hand(THREE_OUT_HANDS[3]))  # own hand only
    assert v.hand_sizes == (1, 1, 1, 4)
    assert v.top == classify("5S", "2").code and v.top_seat == 1 and v.trick_points == 5
    assert v.passed == (False, False, True, False)
    assert [h[0] for h in v.history] == [0, 1, 2]
    assert v.history[1] == (1, classify("5S", "2").code, (parse_card("5S"),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.hand = ()
    v = script.views[8]  # seat 0 after the trick: 3 captured 5
    assert v.captured == (0, 0, 0, 5) and v.out == ()


def parse_card(text):
    return enc.parse_card(text)


# --- replay and the invariant harness ------------------------------------------------------------


def test_replay_trace_reproduces_a_match_and_rejects_bad_traces():
    deal = deal_from_seed(8, 1)
    m = play_match(deal, random_chooser(5))
    codes = [d.chosen for d in m.decisions]
    again = replay_trace(deal, codes)
    assert again.outcome == m.outcome and again.log == m.log
    assert [d.legal for d in again.decisions] == [d.legal for d in m.decisions]
    with pytest.raises(ValueError, match="ran out"):
        replay_trace(deal, codes[:-1])
    with pytest.raises(ValueError, match="left over"):
        replay_trace(deal, codes + [0])
    bad = list(codes)
    bad[0] = 0  # the first decision is a lead: PASS is not legal
    with pytest.raises(ValueError, match=r"decision 0 \(half 0, seat \d\): code 0"):
        replay_trace(deal, bad)


def test_a_chooser_returning_an_illegal_code_is_rejected():
    with pytest.raises(ValueError, match="not among its legal moves"):
        play_match(deal_from_seed(8, 1), lambda view, legal: PASS)  # the leader may not pass


def test_log_reports_deal_tricks_settlement_and_result():
    m = play_match(deal_from_seed(8, 1), random_chooser(5))
    text = "\n".join(m.log)
    assert text.startswith("half 0: indicator ")
    for needle in ("刀 = ", "first receiver", "first leader", "hand sizes [", " plays ", " passes"):
        assert needle in text
    for needle in ("trick won by", " is out (1)", "settle (YZ-2", "南北 ", "delta per seat"):
        assert needle in text


class Checker:
    """A random chooser that checks card conservation at every decision (from the Deal)."""

    def __init__(self, deal, seed):
        self.deal = deal
        self.inner = random_chooser(seed)
        self.half = -1
        self.decisions = 0

    def start(self, view):
        self.half = view.half
        if view.half == 0:
            s = setup_half(self.deal.deck0, self.deal.p0, 0)
        else:  # YZ-08: the second half's first leader is the first-half 上游
            s = setup_half(self.deal.deck1, self.deal.p1, 1, upstream0=view.seat)
        self.hands = [list(h) for h in s.hands]
        self.played = [0] * 54
        self.seen = 0
        assert view.seat == s.first_leader

    def __call__(self, view, legal):
        if view.half != self.half:
            self.start(view)
        for seat, code, cards in view.history[self.seen :]:
            if code != PASS:
                assert sorted(cards) == sorted(cards_given_up(self.hands[seat], code))
                for c in cards:
                    self.hands[seat][c] -= 1
                    self.played[c] += 1
        self.seen = len(view.history)
        # 162 cards: hands + played, per type exactly 3
        played = self.played
        assert all(
            a + b + c + d + p == 3 for a, b, c, d, p in zip(*self.hands, played, strict=True)
        )
        assert view.hand == tuple(self.hands[view.seat])
        assert view.hand_sizes == tuple(sum(h) for h in self.hands)
        assert sum(view.hand_sizes) + sum(played) == 162
        assert legal and legal == sorted(set(legal))
        for code in legal:
            if code != PASS:
                cards_given_up(self.hands[view.seat], code)  # inside the hand
        if view.top == PASS:  # YZ-18: the leader may not pass
            assert PASS not in legal and view.top_seat == -1
        self.decisions += 1
        return self.inner(view, legal)


VARIANTS = [
    {},
    {
        "joker_indicator": "redraw",
        "dao_bomb_beats_dao_basic": False,
        "dao_bomb": "same_count_only",
        "pass_only_if_unable": True,
        "pass_is_final": True,
        "lead_after_out": "partner",
        "one_two_settlement": "hand_only",
        "shuangjia": "upstream_team",
    },
    {"pass_is_final": True, "lead_after_out": "partner"},
]


@pytest.mark.parametrize(
    ("rules", "games"),
    [
        (VARIANTS[0], range(40)),
        pytest.param(VARIANTS[0], range(40, 120), marks=pytest.mark.heavy),  # docs/testing.md
        (VARIANTS[1], range(50)),
        (VARIANTS[2], range(30)),
    ],
)
def test_invariants_over_random_matches(rules, games):
    assert set(rules) <= set(RULE_DEFAULTS)
    counts = {"shuangjia": 0, "second_half": 0, "one_two": 0}
    for g in games:
        deal = deal_from_seed(2024, g, rules)
        checker = Checker(deal, seed=g)
        m = play_match(deal, checker, rules)
        o = m.outcome
        assert checker.decisions == len(m.decisions)
        assert sum(o["delta"]) == 0 and o["delta"][0] == o["delta"][2]
        assert o["second_half"] != o["shuangjia"]
        counts["shuangjia"] += o["shuangjia"]
        counts["second_half"] += o["second_half"]
        for h, half in enumerate(m.halves):
            assert sum(half.points) == 300 and min(half.points) >= 0
            assert o[f"team_points_{h}"] == half.team_points
            assert sorted(o[f"finish_{h}"]) in ([1, 2, 3, 4], [1, 2, 4, 4])
            counts["one_two"] += half.one_two
            # cards left + every card played = the whole deck
            left = [sum(hand) for hand in half.hands_left]
            played = sum(size_of(d.chosen) for d in m.decisions if d.half == h)
            assert sum(left) + played == 162
            assert o[f"plays_{h}"] == sum(1 for d in m.decisions if d.half == h and d.chosen != 0)
            kinds = [kind_of(d.chosen) for d in m.decisions if d.half == h and d.chosen != 0]
            assert o[f"bombs_{h}"] == kinds.count(4) >= o[f"dao_bombs_{h}"]
            assert o[f"atoms_{h}"] == kinds.count(5) and o[f"hydrogens_{h}"] == kinds.count(6)
            # the settled points follow the rulings from the captured and in-hand points
            assert sum(half.captured) + sum(half.hand_points) == 300
            assert sum(hand_points(hand) for hand in half.hands_left) == sum(half.hand_points)
        # 双夹 and the winner from the outcome fields alone (YZ-25, YZ-26)
        sj, winner = shuangjia(m.halves[0], rules)
        assert o["shuangjia"] == sj
        if not sj:
            winner = match_winner(o["team_points_0"], o["team_points_1"], m.halves[0].out[0])
        assert o["winner_team"] == winner
        assert all(o["delta"][s] > 0 for s in TEAMS[winner])
        # the 刀 of each played half from the deal (YZ-06)
        assert o["dao_0"] == _dao_value(deal.deck0[deal.p0], 0)
        if o["second_half"]:
            assert o["dao_1"] == _dao_value(deal.deck1[deal.p1], 1)
        if rules.get("joker_indicator") == "redraw":
            assert o["dao_fallback_0"] == 0 and o["indicator_0"] < 52
        # legal sets obey pass_only_if_unable
        if rules.get("pass_only_if_unable"):
            assert all(not (0 in d.legal and len(d.legal) > 1) for d in m.decisions)
    assert counts["second_half"] > 0 and counts["shuangjia"] > 0


def _dao_value(card, half):
    if card >= 52 or (half == 1 and card // 4 in enc.POINT_RANKS):
        return 3
    return int(enc.RANK_VALUE[card // 4])


def test_legal_codes_cover_the_follow_rule():
    # protocol §4: the follower's set is PASS + every combination that beats the top
    hand = parse_hand("7S 7S 7S 9D 9H SJ")
    rules = resolve_rules()
    top = classify("8S 8D", "2").code
    legal = legal_codes(hand, top, 0, rules)
    # pairs beating 8 8: 9 9, 9 SJ; 7 SJ is a pair of 7 (lower); bombs: 7 7 7 SJ (4);
    # atom 7S; triple 7 7 7 does not (a triple); so PASS + 4
    assert len(legal) == 5 and legal[0] == PASS
