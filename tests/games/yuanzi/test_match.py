"""Issue 46 item 2: the 原子 Match (sim/games/yuanzi/match.py) over the kernel's match engine.

The oracle for every result is the reference rules (``sim/games/yuanzi/reference``): the
actions a match took are replayed there and its outcome compared (YZ-25, YZ-26, YZ-D1..D3).
"""

import numpy as np
import pytest
from cardsim.kernels.yuanzi import driver as drv
from cardsim.kernels.yuanzi import engine
from cardsim.kernels.yuanzi.encoding import N_TYPES, PASS
from cardsim.kernels.yuanzi.state import ST_DAO, ST_FIRST_LEADER, ST_HALF, ST_INDICATOR, ST_RULES
from cardsim.sim.engine import IllegalMove
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games.yuanzi import ENGINE
from cardsim.sim.games.yuanzi.match import ACTION_CODES, YuanziMatch, action_id
from cardsim.sim.games.yuanzi.reference import rules as ref

DESIGN = {"shuangjia_threshold": 120, "match_points_win": 3, "match_points_shuangjia": 7}


def _state(m: YuanziMatch) -> list[np.ndarray]:
    return [a.copy() for a in (m.decks, m.pos, m.hands, m.played, m.st, m.info, m.rules)]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _play_randomly(m: YuanziMatch, rng: np.random.Generator, check_illegal: bool = True):
    """Random legal actions to the end; the codes played, in order."""
    codes = []
    while not m.is_over():
        legal = m.legal_actions()
        assert len(legal) > 0 and (np.diff(legal) > 0).all() and legal.dtype == np.int64
        assert 0 <= m.current_player() < 4
        if check_illegal:  # an action not legal now is refused, the state untouched
            before = _state(m)
            bad = next(a for a in range(m.num_actions) if a not in set(legal.tolist()))
            with pytest.raises(IllegalMove):
                m.apply(bad)
            with pytest.raises(IllegalMove):
                m.apply(m.num_actions)
            assert _same(before, _state(m))
            check_illegal = len(codes) < 40  # the first decisions are enough
        a = int(rng.choice(legal))
        codes.append(int(ACTION_CODES[a]))
        m.apply(a)
    assert m.current_player() == -1 and len(m.legal_actions()) == 0
    with pytest.raises(IllegalMove):
        m.apply(0)
    return codes


@pytest.mark.parametrize(
    "seed,rules", [(1, {}), (2, {}), (3, DESIGN), (4, {"shuangjia": "upstream_team"})]
)
def test_issue46_random_legal_play_to_the_end_agrees_with_the_reference(seed, rules):
    """Legal actions until the match is over, illegal ones refused with the state unchanged,
    and the returns: zero-sum, and the match scores the reference rules give for the same deal
    and the same moves (YZ-25, YZ-26; YZ-D1 … YZ-D3 in force)."""
    rng = np.random.default_rng(seed)
    for game in range(3):
        m = ENGINE.new_match(4, rules, seed, game)
        assert not m.is_over() and (m.returns() == 0).all()
        codes = _play_randomly(m, rng)
        ret = m.returns()
        assert ret.dtype == np.float64 and ret.sum() == 0 and (ret != 0).all()
        outcome = ref.replay_trace(ref.deal_from_seed(seed, game, rules), codes, rules).outcome
        assert list(ret) == list(outcome["delta"])
        assert (m.st[ST_HALF] == 1) == outcome["second_half"]


def test_issue46_the_deal_is_the_drivers_game():
    """``new_match(4, rules, seed, i)`` deals as game ``i`` of a run with root seed ``seed``:
    the hands are the reference's deal of (seed, i), and the driver's moves of that game,
    replayed on the Match, give the driver's result."""
    cfg = RunConfig("yuanzi", 4, ("greedy", "random", "points", "planner"), {}, 17, 10)
    for game in (0, 5, 9):
        m = ENGINE.new_match(4, {}, 17, game)
        deal = ref.deal_from_seed(17, game)
        setup = ref.setup_half(deal.deck0, deal.p0, 0)
        assert m.hands.tolist() == [list(h) for h in setup.hands]
        assert m.st[ST_INDICATOR] == setup.indicator and m.st[ST_DAO] == setup.dao
        assert m.st[ST_FIRST_LEADER] == setup.first_leader
        g, _s, tr, _h, _l = ENGINE.trace(cfg, game, 1)
        for code in tr[:, drv.T_CHOSEN]:
            m.apply(action_id(int(code)))
        assert m.is_over()
        assert list(m.returns()) == list(g[0, drv.G_DELTA : drv.G_DELTA + 4])


def _permute_hidden(m: YuanziMatch, seat: int, rng: np.random.Generator) -> None:
    """The other seats' hands dealt anew from their pooled cards, each keeping its size, and
    the second half's deck shuffled: everything ``seat`` may not know changed."""
    others = [s for s in range(4) if s != seat]
    pool = np.repeat(np.arange(N_TYPES), m.hands[others].sum(0).astype(np.int64))
    rng.shuffle(pool)
    at = 0
    for s in others:
        k = int(m.hands[s].sum())
        m.hands[s] = np.bincount(pool[at : at + k], minlength=N_TYPES)
        at += k
    rng.shuffle(m.decks[1])


def test_issue46_observation_shows_only_what_the_seat_may_know():
    """YZ-28: a seat's observation is unchanged when the other seats' hidden cards are dealt
    anew among them (sizes kept); it changes with the seat's own hand. It holds the own hand,
    the played cards and the public state with the rule options in force."""
    rng = np.random.default_rng(5)
    m = ENGINE.new_match(4, DESIGN, 8, 2)
    for step in range(400):
        if m.is_over():
            break
        if step % 37 == 0:
            for seat in range(4):
                obs = m.observation(seat)
                assert obs.dtype == np.float32 and obs.shape == (m.observation_size,)
                own = obs[engine.OBS_OWN : engine.OBS_OWN + N_TYPES]
                assert (own == m.hands[seat]).all()
                assert (obs[engine.OBS_SEAT : engine.OBS_SEAT + 4] == np.eye(4)[seat]).all()
                pub = obs[engine.OBS_PUB : engine.OBS_PUB + len(m.st)]
                assert (pub == m.st).all() and (pub[ST_RULES:] == m.rules).all()
                other = m.clone()
                _permute_hidden(other, seat, rng)
                assert (other.observation(seat) == obs).all()
                changed = [s for s in range(4) if (other.hands[s] != m.hands[s]).any()]
                for s in changed:  # the test can fail: an own hand shows
                    assert (other.observation(s) != m.observation(s)).any()
        m.apply(int(rng.choice(m.legal_actions())))


def test_issue46_clone_is_independent():
    rng = np.random.default_rng(2)
    m = ENGINE.new_match(4, {}, 3, 1)
    for _ in range(30):
        m.apply(int(rng.choice(m.legal_actions())))
    before = _state(m)
    c = m.clone()
    _play_randomly(c, rng, check_illegal=False)
    assert c.is_over() and not m.is_over() and _same(before, _state(m))
    m.apply(int(m.legal_actions()[0]))
    assert c.is_over()


def test_issue46_action_table_and_texts():
    """Dense ids over every move code (PASS first), and the readable text of an action."""
    assert ACTION_CODES[0] == PASS and (np.diff(ACTION_CODES) > 0).all()
    m = ENGINE.new_match(4, {}, 0, 0)
    assert m.num_actions == len(ACTION_CODES) and m.players == 4
    assert m.observation_size == engine.OBS_SIZE
    assert m.action_text(0) == "pass"
    for a in m.legal_actions():
        assert action_id(int(ACTION_CODES[a])) == a and m.action_text(int(a)) != "pass"
    with pytest.raises(ValueError):
        action_id(3)  # kind 3, rank 0, size 0: no move


@pytest.mark.parametrize(
    "args",
    [(3, {}, 0, 0), (4, {"shuangjia": "nobody"}, 0, 0), (4, {"no_rule": 1}, 0, 0),
     (4, {}, -1, 0), (4, {}, 0, -2), (4, {}, 2**64, 0), (4, {}, 0, 1.5)],
)  # fmt: skip
def test_issue46_new_match_checks_its_arguments(args):
    with pytest.raises(CardsimError):
        ENGINE.new_match(*args)
