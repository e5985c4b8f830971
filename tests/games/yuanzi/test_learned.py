"""issue 48 item 1: 原子's learned policy family (kernels/yuanzi/learned.py, docs/strategies.md
"Learned features: 原子"): greedy is the point ``GREEDY_WEIGHTS`` of the family, play and
training read the same φ, φ reads the seat's view only (YZ-28), and temperatures draw from the
strategy stream only."""

import numpy as np
import pytest
from cardsim.kernels import levels
from cardsim.kernels.learned import MAX_FEATURES, weight_table
from cardsim.kernels.rng import next_u64
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi.encoding import MAX_MOVES
from cardsim.kernels.yuanzi.learned import (
    FEATURE_VERSION,
    FEATURES,
    GREEDY_WEIGHTS,
    N_FEATURES,
    SCORE,
    features_matrix,
)
from cardsim.kernels.yuanzi.state import ST_ACTOR, rules_array
from cardsim.kernels.yuanzi.strategies import GREEDY, LEVEL_BASE, RANDOM
from cardsim.sim.errors import CardsimError
from cardsim.sim.games.yuanzi.match import ACTION_CODES, new_match

TABLE = weight_table("yuanzi")


def learned_id(w, temp100=0):
    """The kernel id of the learned policy of weights ``w`` at temperature temp100 / 100."""
    return levels.encode_learned(LEVEL_BASE, TABLE.slot(np.asarray(w, np.float64)), temp100)


def random_weights(seed):
    return np.random.default_rng(seed).normal(size=N_FEATURES)


def decisions(seed, matches, rules=None):
    """Matches stepped by uniformly random moves: each decision of >1 legal move, as the
    match (not a copy: use it before the next one is drawn)."""
    gen = np.random.default_rng(seed)
    for g in range(matches):
        m = new_match(4, rules, seed, g)
        while not m.is_over():
            acts = m.legal_actions()
            if len(acts) > 1:
                yield m
            m.apply(int(gen.choice(acts)))


def view_rows(m):
    """features_matrix of the seat to act over the kernel's legal codes: (codes, rows)."""
    codes = m.legal_codes()
    seat = int(m.st[ST_ACTOR])
    rows = features_matrix(m.hands[seat], m.played, m.st, codes, np.int64(len(codes)))
    return codes, rows


def pick(m, sid, rng, hidden_too=False):
    """The index the driver's decision (``decide_turn``) takes for the seat to act with kernel
    id ``sid`` at every seat; the other hands zeroed unless ``hidden_too``."""
    seat = int(m.st[ST_ACTOR])
    hands = m.hands.copy()
    if not hidden_too:
        hands[:] = 0
        hands[seat] = m.hands[seat]
    buf = np.zeros(MAX_MOVES, np.int32)
    sids = np.full(4, sid, np.int64)
    n, idx, bad = drv.decide_turn(hands, m.played.copy(), m.st.copy(), m.rules, sids, buf, rng)
    assert not bad
    return int(idx), buf[:n].copy()


def first_argmax(rows, w):
    """The first index of the highest w · φ, summed in the kernel's order (feature 0 first)."""
    s = np.zeros(rows.shape[0])
    for j in range(rows.shape[1]):
        s = s + w[j] * rows[:, j]
    return int(np.argmax(s)), s


def test_the_feature_table_contract():
    """issue 48 item 1: names and meanings, the size bounds, feature 0 is greedy's score."""
    assert len(FEATURES) == N_FEATURES and 15 <= N_FEATURES <= min(40, MAX_FEATURES)
    assert FEATURE_VERSION == 1 and SCORE == 0 and FEATURES[SCORE][0] == "score"
    names = [name for name, _ in FEATURES]
    assert len(set(names)) == N_FEATURES
    assert all(name.isidentifier() and name == name.lower() for name in names)
    assert all(isinstance(meaning, str) and meaning for _, meaning in FEATURES)
    assert GREEDY_WEIGHTS.dtype == np.float64
    assert GREEDY_WEIGHTS.tolist() == [1.0] + [0.0] * (N_FEATURES - 1)


@pytest.mark.parametrize(
    "seats, rules",
    [
        (("L", "L", "L", "L"), {}),
        (("L", RANDOM, "L", RANDOM), {}),
        (("L", GREEDY, RANDOM, "L"), {"pass_only_if_unable": True}),
        (("L", "L", "L", "L"), {"pass_is_final": True, "dao_bomb": "same_count_only"}),
    ],
)
def test_learned_at_greedy_weights_replays_greedy(seats, rules):
    """issue 48 item 1: greedy is a point of the family — learned at GREEDY_WEIGHTS (T = 0)
    plays greedy's games identically (games and seats matrices, 200 matches), alone and
    beside other strategies, greedy's fast path included."""
    lid = learned_id(GREEDY_WEIGHTS)
    arr = rules_array(rules)
    learned = np.array([lid if s == "L" else s for s in seats], np.int64)
    greedy = np.array([GREEDY if s == "L" else s for s in seats], np.int64)
    g1, s1 = drv.run_games(11, 0, 200, learned, arr)
    g2, s2 = drv.run_games(11, 0, 200, greedy, arr)
    assert np.array_equal(g1, g2) and np.array_equal(s1, s2)
    assert g1[:, drv.G_BAD].sum() == 0


def test_play_and_training_read_the_same_features():
    """issue 48 item 1: for random weights, the move the learned policy plays (through the
    driver's decision) is the first argmax of ``features_matrix(view) @ w``; at
    GREEDY_WEIGHTS it is greedy's move."""
    rng = np.zeros(4, np.uint64)
    seen = 0
    for seed in (1, 2, 3):
        w = random_weights(seed)
        lid = learned_id(w)
        for m in decisions(seed, 2):
            codes, rows = view_rows(m)
            idx, legal = pick(m, lid, rng)
            assert np.array_equal(legal, codes)
            assert idx == first_argmax(rows, w)[0]
            seen += 1
    assert seen > 300
    gid = learned_id(GREEDY_WEIGHTS)
    for m in decisions(4, 1):
        assert pick(m, gid, rng)[0] == pick(m, GREEDY, rng)[0]


def test_features_and_choice_read_the_seat_view_only():
    """issue 48 item 1 (done-when), YZ-28: re-dealing the cards the seat cannot see (the other
    hands, the undealt deck: ``resample_hidden``) never changes φ nor the learned choice,
    for several weight vectors; the choice is asked with the other hands present."""
    rng = np.zeros(4, np.uint64)
    sids = [learned_id(random_weights(s)) for s in (5, 6, 7)] + [learned_id(GREEDY_WEIGHTS)]
    checked = 0
    for k, m in enumerate(decisions(8, 2)):
        if k % 3:
            continue
        seat = int(m.st[ST_ACTOR])
        rows = m.decision_features()
        picks = [pick(m, sid, rng, hidden_too=True) for sid in sids]
        for seed in (1, 2):
            other = m.resample_hidden(seat, seed)
            assert not np.array_equal(other.hands, m.hands)  # something hidden did change
            assert np.array_equal(other.decision_features(), rows)
            again = [pick(other, sid, rng, hidden_too=True) for sid in sids]
            assert [p[0] for p in again] == [p[0] for p in picks]
        checked += 1
    assert checked > 50


def test_temperature_draws_once_from_the_strategy_stream():
    """issue 48 item 1: T = 0 draws nothing; T > 0 one ``draw_key`` per decision (the strategy
    stream only, as soft), so the deal and whole games stay reproducible."""
    w = random_weights(9)
    cold, warm = learned_id(w), learned_id(w, 50)
    for m in decisions(10, 1):
        rng = np.array([1, 2, 3, 4], np.uint64)
        pick(m, cold, rng)
        assert rng.tolist() == [1, 2, 3, 4]
        expect = rng.copy()
        next_u64(expect)
        pick(m, warm, rng)
        assert rng.tolist() == expect.tolist()
    arr = rules_array()
    g1, s1 = drv.run_games(12, 0, 100, np.full(4, warm, np.int64), arr)
    g2, s2 = drv.run_games(12, 0, 100, np.full(4, warm, np.int64), arr)
    assert np.array_equal(g1, g2) and np.array_equal(s1, s2)
    g3, s3 = drv.run_games(12, 0, 100, np.full(4, GREEDY, np.int64), arr)
    deal = [drv.H_DAO, drv.H_INDICATOR, drv.H_FALLBACK, drv.H_FIRST_RECV, drv.H_FIRST_LEADER]
    assert np.array_equal(g1[:, deal], g3[:, deal])  # the first half's deal: the same
    dealt = [drv.S_HALF0 + drv.SH_CARDS, drv.S_HALF0 + drv.SH_DAO_CARDS, drv.S_HALF0 + 2]
    assert np.array_equal(s1[:, dealt], s3[:, dealt])
    assert not np.array_equal(g1, g3)  # the temperature did change the play


def test_a_tiny_temperature_plays_the_argmax():
    """issue 48 item 1: at T = 0.01 the learned policy plays the argmax of w · φ wherever the
    best score leads the next by more than the noise can bridge."""
    w = random_weights(13) * 100.0
    sid = learned_id(w, 1)
    rng = np.array([5, 6, 7, 8], np.uint64)
    clear = 0
    for m in decisions(14, 2):
        codes, rows = view_rows(m)
        best, s = first_argmax(rows, w)
        top2 = np.sort(s)[-2:]
        if top2[1] - top2[0] < 1.0:  # T · (Gumbel spread) stays far below 1 here
            continue
        assert pick(m, sid, rng)[0] == best
        clear += 1
    assert clear > 100


def test_decision_features_follow_legal_actions():
    """issue 48 item 1: row k of ``decision_features`` is φ of the k-th ``legal_actions``
    (sorted ids); a match that is over refuses."""
    for m in decisions(15, 1):
        codes, rows = view_rows(m)
        by_code = {int(c): rows[i] for i, c in enumerate(codes)}
        got = m.decision_features()
        acts = m.legal_actions()
        assert got.shape == (len(acts), N_FEATURES) and got.dtype == np.float64
        for k, a in enumerate(acts):
            assert np.array_equal(got[k], by_code[int(ACTION_CODES[a])])
    assert np.isfinite(got).all()
    over = new_match(4, None, 16, 0)
    while not over.is_over():
        over.apply(int(over.legal_actions()[0]))
    with pytest.raises(CardsimError, match="over"):
        over.decision_features()


def test_the_feature_table_is_documented():
    """issue 48 item 1: docs/strategies.md "Learned features: 原子" lists FEATURES in the
    kernel's order (index, name, meaning), and says how YZ-28 is kept."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "strategies.md").read_text()
    section = (
        doc.split("### Learned features: 原子", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    )
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    assert rows == [f"| {i} | `{n}` | {m} |" for i, (n, m) in enumerate(FEATURES)]
    assert "YZ-28" in section
