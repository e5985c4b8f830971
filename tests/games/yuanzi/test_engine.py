"""Issue 46 item 1: one 原子 match engine (kernels/yuanzi/engine.py).

The match's rules (双夹 YZ-25 with YZ-D1, the two-half winner YZ-26, the match scores YZ-D2 /
YZ-D3, the first half's published result YZ-28) are written once, in the engine; the driver,
the search strategies and the ``py:`` adapter call it. The reference rules are the oracle.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from cardsim.kernels.yuanzi import engine
from cardsim.kernels.yuanzi import state as KS
from cardsim.kernels.yuanzi.encoding import MAX_MOVES, N_CARDS, N_TYPES
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import adapter
from cardsim.sim.games.yuanzi.reference import half as ref_half
from cardsim.sim.games.yuanzi.reference import rules as ref

ROOT = Path(__file__).resolve().parents[3]
PY_GREEDY = f"py:{ROOT / 'examples' / 'yuanzi_strategy_py.py'}:choose"

#: a match-level rule at work: the 双夹 options read, the first half's result written
MATCH_RULE = re.compile(r"rules\[(\w+\.)?R_SHUANGJIA|st\[(\w+\.)?ST_H0_\w+( \+ \w+)?\] =")


def test_issue46_the_match_rules_are_written_once():
    """No file of the 原子 kernel or package but the engine judges 双夹 or publishes the first
    half's result (the driver, pimc and the adapter each had a copy)."""
    files = [*(ROOT / "kernels" / "yuanzi").glob("*.py"), *(ROOT / "sim/games/yuanzi").glob("*.py")]
    found = {p.name for p in files if MATCH_RULE.search(p.read_text(encoding="utf-8"))}
    assert found == {"engine.py"}


def _arrays():
    return (
        np.zeros((engine.N_HALVES, N_CARDS), np.uint8),
        np.zeros(engine.N_HALVES, np.int64),
        np.zeros((4, N_TYPES), np.uint8),
        np.zeros((4, N_TYPES), np.uint8),
        np.zeros(KS.N_ST, np.int64),
        np.zeros((4, KS.N_INFO), np.int64),
    )


@pytest.mark.parametrize(
    "rules", [{}, {"shuangjia": "upstream_team"}, {"shuangjia_threshold": 150}]
)
def test_issue46_phases_and_results_agree_with_the_reference(rules):
    """``apply`` ends the first half with ``HALF_OVER`` (its result published, YZ-28) or
    ``MATCH_OVER`` exactly when the reference judges 双夹 (YZ-25); ``start_half`` deals the
    second to the first half's 上游 (YZ-26); the winner and the scores are the reference's."""
    arr = KS.rules_array(rules)
    buf = np.zeros(MAX_MOVES, np.int32)
    seen = set()
    for game in range(12):
        decks, pos, hands, played, st, info = _arrays()
        engine.new_match(np.uint64(4), np.int64(game), arr, decks, pos, hands, played, st, info,
                         np.zeros(4, np.uint64))  # fmt: skip
        rng = np.random.default_rng(game)
        codes, status = [], engine.CONTINUE
        while status != engine.MATCH_OVER:
            n = engine.legal(hands, st, arr, buf)
            code = buf[int(rng.integers(n))]
            codes.append(int(code))
            status = engine.apply(code, hands, played, st, arr)
            assert not engine.is_over(st, arr) or status == engine.MATCH_OVER
            if status == engine.HALF_OVER:
                out = [int(s) for s in st[KS.ST_OUT : KS.ST_OUT + st[KS.ST_NOUT]]]
                assert list(st[KS.ST_H0_OUT : KS.ST_H0_OUT + 4]) == out + [-1] * (4 - len(out))
                assert st[KS.ST_H0_UPSTREAM] == out[0]
                engine.start_half(1, decks, pos, hands, played, st, info, arr)
                assert st[KS.ST_FIRST_LEADER] == st[KS.ST_FIRST_RECV] == out[0]
                assert st[KS.ST_H0_UPSTREAM] == out[0] and st[KS.ST_HALF] == 1
        assert engine.is_over(st, arr)
        outcome = ref.replay_trace(ref.deal_from_seed(4, game, rules), codes, rules).outcome
        sj, winner = engine.result(st, arr)
        assert (bool(sj), int(winner)) == (outcome["shuangjia"], outcome["winner_team"])
        scores = np.zeros(4)
        engine.returns(st, arr, scores)
        assert list(scores) == outcome["delta"]
        seen.add(bool(sj))
    assert seen == {True, False}  # both endings met


@pytest.mark.parametrize("threshold", [0, 60, 155, 300])
def test_issue46_first_half_judgement_is_the_references(threshold):
    """YZ-25 / YZ-D1 on made-up finished first halves, both options, against the reference."""
    cases = [((300, 0), [0, 2]), ((0, 300), [3, 1]), ((250, 50), [0, 2, 1]),
             ((150, 150), [0, 1, 2]), ((100, 200), [2, 3, 1]), ((45, 255), [0, 1, 3])]  # fmt: skip
    for option in ("both_out_team", "upstream_team"):
        rules = {"shuangjia": option, "shuangjia_threshold": threshold}
        arr = KS.rules_array(rules)
        for pts, outs in cases:
            st = np.zeros(KS.N_ST, np.int64)
            st[KS.ST_DONE] = 1
            st[KS.ST_TEAM_PTS : KS.ST_TEAM_PTS + 2] = pts
            st[KS.ST_NOUT] = len(outs)
            st[KS.ST_FINISH : KS.ST_FINISH + 4] = 4
            for i, s in enumerate(outs):
                st[KS.ST_OUT + i] = s
                st[KS.ST_FINISH + s] = i + 1
            st[KS.ST_ONE_TWO] = len(outs) == 2
            half0 = ref_half.HalfResult(0, outs, len(outs) == 2, [], [], [], [], list(pts))
            assert tuple(map(int, engine.first_half_judgement(st, arr))) == tuple(
                map(int, ref.shuangjia(half0, rules))
            ), (rules, pts, outs)


def test_issue46_py_seats_score_with_the_match_points_in_force():
    """A ``py:`` match is scored by the engine with YZ-D2 / YZ-D3 in force (the adapter had
    2 / 1 written in, and a run with other match points stopped on a disagreement)."""
    rules = {"match_points_win": 3, "match_points_shuangjia": 5}
    cfg = RunConfig("yuanzi", 4, (PY_GREEDY, "greedy", "random", "greedy"), rules, 6, 4)
    games, _seats = adapter.play_yuanzi(cfg, 0, 4)
    from cardsim.kernels.yuanzi import driver as drv

    for row in games:
        unit = 5 if row[drv.G_SHUANGJIA] else 3
        assert sorted(row[drv.G_DELTA : drv.G_DELTA + 4]) == [-unit, -unit, unit, unit]
