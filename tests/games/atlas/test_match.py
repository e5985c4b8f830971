"""The ATLAS Match (issue 46 item 2): ``ENGINE.new_match`` over the kernel's match engine
(kernels/atlas/engine.py, sim/games/atlas/match.py) — dealt as the driver deals game i of a run,
played to the end through dense action ids, scored as the tables score a match (AT-24, AT-25),
observed as AT-26 (revised 2026-12-06) lets a seat know, cloned independently."""

from __future__ import annotations

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import engine as E
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.encoding import DISCARD, DT_DISCARD, N_TYPES
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.atlas.strategies import GREEDY
from cardsim.sim.engine import IllegalMove
from cardsim.sim.errors import CardsimError
from cardsim.sim.games.atlas import ENGINE
from cardsim.sim.games.atlas.reference import rules as ref

CASES = [(2, 3, {}), (4, 5, {}), (10, 1, {}), (4, 8, {"rounds": 3}), (3, 2, {"rounds": 3})]


def _random_play(m, rng):
    """Play ``m`` to its end with uniformly random legal actions; the option codes chosen."""
    codes = []
    while not m.is_over():
        legal = m.legal_actions()
        assert len(legal) > 0 and legal.dtype == np.int64
        assert (np.diff(legal) > 0).all() and legal[0] >= 0 and legal[-1] < m.num_actions
        assert 0 <= m.current_player() < m.players
        a = int(rng.choice(legal))
        codes.append(int(E.action_of(np.int64(a))[1]))
        m.apply(a)
    assert len(m.legal_actions()) == 0 and m.current_player() == -1
    return codes


@pytest.mark.parametrize("n, seed, rules", CASES)
def test_random_play_ends_scored_as_the_reference_scores_the_match(n, seed, rules):
    """Issue 46 item 2: random legal play reaches the end (legal actions non-empty until then);
    the returns are every seat's match score (AT-24 points summed over the AT-25 rounds), as the
    reference rules score the same moves replayed (the oracle, sim/games/atlas/reference)."""
    m = ENGINE.new_match(n, rules, seed, 4)
    assert not m.returns().any()  # 0 until the match is over
    codes = _random_play(m, np.random.default_rng(seed))
    result = ref.replay_trace(seed, 4, n, codes, OPTIONS.resolve(rules))
    want = np.sum([out["points"] for out in result.rounds], axis=0)
    assert len(result.rounds) == rules.get("rounds", 1)
    np.testing.assert_array_equal(m.returns(), want)
    assert m.returns().dtype == np.float64 and m.returns().shape == (n,)


@pytest.mark.parametrize("n, game", [(4, 3), (3, 0)])
def test_deal_and_play_equal_the_drivers_game(n, game):
    """Issue 46 item 2: the match is dealt as game ``game_index`` of a run with root seed
    ``seed`` (the driver's state at its first decision, word for word), and the driver's moves
    (three greedy rounds, AT-25) played on it give the tables' match score."""
    rules = {"rounds": 3}
    arr = OPTIONS.array(OPTIONS.resolve(rules))
    sids = np.full(n, GREEDY, np.int64)
    tr = D.run_trace(11, game, n, sids, arr, level=1, snap_at=0)
    m = ENGINE.new_match(n, rules, 11, game)
    np.testing.assert_array_equal(m._S, tr.snapshot[: ST.S_LEN])
    for code in tr.chosen():
        kind = m._kind
        m.apply(int(E.action_id(np.int64(kind), np.int64(code))))
    assert m.is_over()
    points = tr.seats["points"].reshape(3, n).sum(axis=0)
    np.testing.assert_array_equal(m.returns(), points)


def test_an_illegal_action_is_refused_and_changes_nothing():
    """Issue 46 item 2: ``apply`` of an action that is not legal now raises IllegalMove and
    leaves the match as it was; over, every action is refused."""
    m = ENGINE.new_match(4, {}, 3, 0)
    legal = set(int(a) for a in m.legal_actions())
    bad = next(a for a in range(m.num_actions) if a not in legal)
    before = (m._S.copy(), m._rngs.copy(), m.legal_actions(), m.current_player())
    for action in (bad, -1, m.num_actions, "0", 2.0):
        with pytest.raises(IllegalMove):
            m.apply(action)
    np.testing.assert_array_equal(m._S, before[0])
    np.testing.assert_array_equal(m._rngs, before[1])
    np.testing.assert_array_equal(m.legal_actions(), before[2])
    assert m.current_player() == before[3]
    _random_play(m, np.random.default_rng(1))
    with pytest.raises(IllegalMove, match="over"):
        m.apply(bad)


def _shuffle_hidden(S, seat, rng):
    """Deal the cards hidden from ``seat`` (the other hands and the draw pile) anew among
    themselves, every hand keeping its size (and the cells their counts)."""
    n = int(S[ST.P_N])
    others = [q for q in range(n) if q != seat]
    pool = []
    for q in others:
        h = ST.HANDS + q * N_TYPES
        for t in range(N_TYPES):
            pool += [t] * int(S[h + t])
    pos, end = int(S[ST.H_PILE_POS]), int(S[ST.H_PILE_END])
    pool += [int(c) for c in S[ST.PILE + pos : ST.PILE + end]]
    pool = list(rng.permutation(pool))
    for q in others:
        size = int(S[ST.P_SIZES + q])
        h = ST.HANDS + q * N_TYPES
        S[h : h + N_TYPES] = 0
        S[ST.CELLS + q * 20 : ST.CELLS + (q + 1) * 20] = 0
        S[ST.P_SIZES + q] = 0
        for _ in range(size):
            ST.add_card(S, q, pool.pop())
    S[ST.PILE + pos : ST.PILE + end] = pool


def test_an_observation_holds_nothing_hidden_from_its_seat():
    """Issue 46 item 2, AT-26 (revised 2026-12-06): a seat's observation is unchanged when the
    cards hidden from it (the other hands, the draw pile's order) are dealt anew among
    themselves in a clone; it does change with its own hand, and the seats' views differ."""
    m = ENGINE.new_match(4, {"rounds": 2}, 9, 1)
    rng = np.random.default_rng(2)
    for _ in range(40):
        m.apply(int(rng.choice(m.legal_actions())))
    changed = 0
    for seat in range(4):
        c = m.clone()
        _shuffle_hidden(c._S, seat, np.random.default_rng(seat))
        changed += int((c._S != m._S).any())
        np.testing.assert_array_equal(c.observation(seat), m.observation(seat))
        assert m.observation(seat).dtype == np.float32
        assert m.observation(seat).shape == (m.observation_size,)
    assert changed == 4  # the shuffles did move hidden cards
    obs = m.observation(0)
    hand = obs[E.V_HAND : E.V_HAND + N_TYPES]
    assert hand.sum() == m._S[ST.P_SIZES] and (hand == m._S[ST.HANDS : ST.HANDS + N_TYPES]).all()
    assert not np.array_equal(obs, m.observation(1))
    with pytest.raises(CardsimError):
        m.observation(4)


def test_a_clone_is_independent():
    """Issue 46 item 2: a clone plays on without touching the original (state and streams
    copied); the original then plays the same actions to the same end."""
    m = ENGINE.new_match(3, {"rounds": 2}, 5, 2)
    obs, legal = m.observation(0), m.legal_actions()
    c = m.clone()
    rng = np.random.default_rng(3)
    actions = []
    while not c.is_over():
        actions.append(int(rng.choice(c.legal_actions())))
        c.apply(actions[-1])
    np.testing.assert_array_equal(m.observation(0), obs)
    np.testing.assert_array_equal(m.legal_actions(), legal)
    assert not m.is_over()
    for a in actions:
        m.apply(a)
    np.testing.assert_array_equal(m.returns(), c.returns())


def test_action_ids_are_one_dense_space():
    """Issue 46 item 2: every (decision kind, option code) has one id below ``num_actions``
    (the same for every match), and the id gives the option back; ids of one decision differ."""
    sizes = {ENGINE.new_match(n, {}, 0).num_actions for n in (2, 10)}
    assert sizes == {E.N_ACTIONS}
    m = ENGINE.new_match(4, {"trade_pick": "seen", "forced_claims": False}, 1)
    rng = np.random.default_rng(4)
    kinds = set()
    while not m.is_over():
        k = m._k
        ids = np.empty(k, np.int64)
        E.action_ids(np.int64(m._kind), m._opts, np.int64(k), ids)
        assert len(set(ids.tolist())) == k
        for a, code in zip(ids, m._opts[:k], strict=True):
            assert tuple(int(v) for v in E.action_of(a)) == (m._kind, int(code))
        kinds.add(m._kind)
        m.apply(int(rng.choice(m.legal_actions())))
    assert DT_DISCARD in kinds and len(kinds) >= 3


def test_action_text_reads_as_replays_write_moves():
    """Issue 46 item 2: a legal action's text is the replay's (reference ``describe``)."""
    m = ENGINE.new_match(4, {}, 2, 0)
    while m._kind != DT_DISCARD:
        m.apply(int(m.legal_actions()[0]))
    a = int(m.legal_actions()[0])
    code = int(E.action_of(np.int64(a))[1])
    assert m.action_text(a) == ref.describe(code) == f"discard {ref.name(code - DISCARD)}"
    assert m.action_text(E.A_SELF).startswith("none")
    with pytest.raises(CardsimError):
        m.action_text(E.N_ACTIONS)


@pytest.mark.parametrize(
    "players, rules",
    [(1, {}), (11, {}), (4, {"rounds": 0}), (4, {"no_such_rule": 1}),
     (10, {"hand_size": 20, "atlas_cards": 0})],
)  # fmt: skip
def test_new_match_validates_as_a_run_does(players, rules):
    """Issue 46 item 2: players 2..10 (AT-03) and the rule options as ``RunConfig`` checks them
    (AT-D1: the deck must deal every seat), one CardsimError each."""
    with pytest.raises(CardsimError):
        ENGINE.new_match(players, rules, 0)
