"""ATLAS learned policies (issue 48 item 1; kernels/atlas/learned.py, docs/strategies.md
"Learned features: ATLAS"): learned at ``GREEDY_WEIGHTS`` replays greedy's games, play and
training read the same φ, φ and the learned choice read the seat's view only (AT-26), the
temperature draws from the strategy stream only; ``AtlasMatch.strategy_action`` and
``decision_features``."""

import numpy as np
import pytest
from cardsim.kernels import levels
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas.encoding import N_TYPES
from cardsim.kernels.atlas.learned import (
    FEATURE_VERSION,
    FEATURES,
    GREEDY_WEIGHTS,
    N_FEATURES,
    SCORE,
    features_matrix,
)
from cardsim.kernels.atlas.rules import R_ROUNDS
from cardsim.kernels.atlas.state import (
    CELL_OF,
    CELLS,
    H_PILE_END,
    H_PILE_POS,
    HANDS,
    N_CELLS,
    P_SEAT,
    PILE,
    PUB_LEN,
)
from cardsim.kernels.atlas.strategies import GREEDY, LEVEL_BASE, RANDOM, choose_level
from cardsim.kernels.learned import weight_table
from cardsim.kernels.rng import STREAM_STRATEGY, next_u64, seed_stream
from cardsim.sim.errors import CardsimError
from cardsim.sim.games.atlas import rules_array
from cardsim.sim.games.atlas.match import new_match

#: rule sets that reach every decision type (take: trade_pick=seen; a declined claim:
#: forced_claims=false; the match standing: rounds=2) and player counts 2..6
RULES = [
    ({}, 4),
    ({"trade_pick": "seen", "forced_claims": False, "rounds": 2}, 3),
    ({"self_melds": "any", "claim_turn": "jump"}, 2),
    ({"trade_pick": "seen", "forced_claims": False}, 6),
]


def _sid(w: np.ndarray, temp100: int = 0) -> int:
    return levels.encode_learned(LEVEL_BASE, weight_table("atlas").slot(w), temp100)


def _play(sids, rules: dict, count: int = 200, seed: int = 11):
    """The driver's games and seats tables (``simulate``, the path every run takes)."""
    n = len(sids)
    arr = rules_array(rules, n)
    rounds = int(arr[R_ROUNDS])
    ids = np.asarray(sids, np.int64)
    games = np.zeros(count * rounds, D.GAMES_DTYPE)
    seats = np.zeros(count * rounds * n, D.SEATS_DTYPE)
    assert D.for_seats(ids).simulate(np.uint64(seed), 0, count, n, ids, arr, games, seats) == 0
    return games, seats


def _same_tables(a, b) -> bool:
    cols = [c for c in D.SEATS_DTYPE.names if c != "strategy_id"]  # the id names the seat
    return bool((a[0] == b[0]).all() and (a[1][cols] == b[1][cols]).all())


def _decisions(rules: dict, players: int, games: int = 3, seed: int = 3):
    """Matches stepped by uniformly random legal actions: every decision with a choice."""
    gen = np.random.default_rng(seed)
    for gi in range(games):
        m = new_match(players, rules, seed, gi)
        while not m.is_over():
            if len(m.legal_actions()) > 1:
                yield m
            m.apply(int(gen.choice(m.legal_actions())))


def _view(m) -> tuple:
    """(state with P_SEAT, seat, dtype, options, n): what the driver hands ``choose_level``."""
    S = m._S.copy()
    S[P_SEAT] = m._seat
    return S, m._seat, m._kind, m._opts[: m._k].copy(), m._k


def _phi(S, p, dtype, opts, n) -> np.ndarray:
    h = HANDS + p * N_TYPES
    return features_matrix(dtype, S[h : h + N_TYPES].copy(), S[:PUB_LEN].copy(), opts, n)


def _first_argmax(F: np.ndarray, w: np.ndarray) -> int:
    s = np.zeros(len(F))
    for j in range(N_FEATURES):  # the kernel's order of summation
        s = s + w[j] * F[:, j]
    return int(np.flatnonzero(s == s.max())[0])


def _redeal(S, p: int, gen) -> np.ndarray:
    """``S`` with the cards ``p`` cannot see (the other hands, the draw pile) shuffled and dealt
    again at the same sizes: ``p``'s view (AT-26) unchanged."""
    T = S.copy()
    n = int(S[0])
    others = [q for q in range(n) if q != p]
    lo, hi = int(S[H_PILE_POS]), int(S[H_PILE_END])
    pool = list(S[PILE + lo : PILE + hi])
    sizes = []
    for q in others:
        row = S[HANDS + q * N_TYPES : HANDS + (q + 1) * N_TYPES]
        pool += [t for t in range(N_TYPES) for _ in range(int(row[t]))]
        sizes.append(int(row.sum()))
    pool = gen.permutation(np.array(pool, np.int32))
    k = 0
    for q, size in zip(others, sizes, strict=True):
        T[HANDS + q * N_TYPES : HANDS + (q + 1) * N_TYPES] = 0
        T[CELLS + q * N_CELLS : CELLS + (q + 1) * N_CELLS] = 0
        for t in pool[k : k + size]:
            T[HANDS + q * N_TYPES + t] += 1
            if CELL_OF[t] >= 0:
                T[CELLS + q * N_CELLS + CELL_OF[t]] += 1
        k += size
    T[PILE + lo : PILE + hi] = pool[k:]
    return T


def test_the_feature_table():
    """issue 48 item 1: the contract's names; feature 0 is greedy's score."""
    assert len(FEATURES) == N_FEATURES and 15 <= N_FEATURES <= 40 and FEATURE_VERSION == 1
    assert SCORE == 0 and FEATURES[SCORE][0] == "score"
    assert GREEDY_WEIGHTS.dtype == np.float64 and GREEDY_WEIGHTS.tolist() == [1.0] + [0.0] * (
        N_FEATURES - 1
    )
    names = [f[0] for f in FEATURES]
    assert len(set(names)) == N_FEATURES and all(n.isidentifier() and n.islower() for n in names)


@pytest.mark.parametrize("rules, players", RULES)
def test_learned_at_greedy_weights_replays_greedy(rules, players):
    """issue 48 item 1: learned at GREEDY_WEIGHTS (temperature 0) plays greedy's games exactly —
    all seats, and mixed with random seats — and other weights do not."""
    learned = _sid(GREEDY_WEIGHTS)
    greedy = _play([GREEDY] * players, rules)
    assert _same_tables(greedy, _play([learned] * players, rules))
    mixed = [GREEDY if s % 2 == 0 else RANDOM for s in range(players)]
    mixed_learned = [learned if s == GREEDY else s for s in mixed]
    assert _same_tables(_play(mixed, rules), _play(mixed_learned, rules))
    assert not _same_tables(greedy, _play([_sid(-GREEDY_WEIGHTS)] * players, rules))


@pytest.mark.parametrize("rules, players", RULES)
def test_play_and_training_read_the_same_features(rules, players):
    """issue 48 item 1: for random weight vectors the learned pick (``choose_level`` of a learned
    id, temperature 0) is the first argmax of ``features_matrix(...) @ w``."""
    ws = [np.random.default_rng(k).normal(size=N_FEATURES) for k in range(3)]
    sids = [_sid(w) for w in ws]
    rng = np.zeros(4, np.uint64)
    checked, types = 0, set()
    for m in _decisions(rules, players):
        S, p, dtype, opts, n = _view(m)
        F = _phi(S, p, dtype, opts, n)
        assert F.shape == (n, N_FEATURES) and np.isfinite(F).all()
        for w, sid in zip(ws, sids, strict=True):
            before = rng.copy()
            assert choose_level(S, p, sid, dtype, opts, n, rng) == _first_argmax(F, w)
            assert (rng == before).all()  # temperature 0: no draw
        checked += 1
        types.add(dtype)
    assert checked > 100 and len(types) >= 3


@pytest.mark.parametrize("rules, players", RULES)
def test_features_and_choice_read_only_the_seat_view(rules, players):
    """issue 48 item 1 (done-when) and AT-26: re-dealing the cards the deciding seat cannot see
    (the other hands, the draw pile) changes neither φ (``decision_features``) nor the learned
    choice (several weight vectors, temperature 0 and 1)."""
    gen = np.random.default_rng(5)
    ws = [np.random.default_rng(10 + k).normal(size=N_FEATURES) for k in range(3)]
    sids = [_sid(w, t) for w in ws for t in (0, 100)]
    changed = 0
    for m in _decisions(rules, players, seed=8):
        S, p, dtype, opts, n = _view(m)
        T = _redeal(S, p, gen)
        changed += not (T == S).all()
        other = m.clone()
        other._S[:] = T
        assert (other.decision_features() == m.decision_features()).all()
        for sid in sids:
            r1 = np.arange(4, dtype=np.uint64)
            r2 = r1.copy()
            a = choose_level(S.copy(), p, sid, dtype, opts, n, r1)
            assert a == choose_level(T, p, sid, dtype, opts, n, r2) and (r1 == r2).all()
    assert changed > 50


def test_temperature_draws_from_the_strategy_stream_only():
    """issue 48 item 1: at temperature T > 0 one draw per decision from the strategy stream: the
    games are reproducible, the deal is greedy's (stream 0 untouched), the moves differ."""
    rules = {"trade_pick": "seen", "forced_claims": False}
    hot = [_sid(GREEDY_WEIGHTS, 100)] * 4
    a, b = _play(hot, rules, 100), _play(hot, rules, 100)
    assert _same_tables(a, b)
    greedy = _play([GREEDY] * 4, rules, 100)
    deal = ["atlas_dealt", "skip_dealt", "reverse_dealt", "trade_dealt"]
    assert (a[1][deal] == greedy[1][deal]).all() and (
        a[0]["first_player"] == greedy[0]["first_player"]
    ).all()
    assert not _same_tables(a, greedy)
    sid = _sid(np.random.default_rng(1).normal(size=N_FEATURES), 50)
    for m in _decisions(rules, 4, games=1):
        S, p, dtype, opts, n = _view(m)
        rng = np.arange(4, dtype=np.uint64)
        want = rng.copy()
        next_u64(want)
        choose_level(S, p, sid, dtype, opts, n, rng)
        assert (rng == want).all()


def test_a_tiny_temperature_plays_the_argmax():
    """issue 48 item 1: at T = 0.01 the pick is the argmax wherever the best score leads the
    second by more than the noise can bridge (0.01 x ~41)."""
    w = np.random.default_rng(2).normal(size=N_FEATURES)
    cold, tiny = _sid(w), _sid(w, 1)
    checked = 0
    for rules, players in RULES:
        for m in _decisions(rules, players, games=2):
            S, p, dtype, opts, n = _view(m)
            F = _phi(S, p, dtype, opts, n)
            s = np.sort(F @ w)
            if s[-1] - s[-2] > 0.5:
                rng = np.arange(4, dtype=np.uint64)
                assert choose_level(S, p, tiny, dtype, opts, n, rng) == choose_level(
                    S, p, cold, dtype, opts, n, rng
                )
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("rules, players", RULES[:2])
def test_decision_features_follow_legal_actions(rules, players):
    """issue 48 item 1: row k of ``decision_features`` is φ of the k-th of ``legal_actions()``
    (sorted ids), from the seat's view; an over match raises."""
    checked = 0
    for m in _decisions(rules, players, games=2):
        F = m.decision_features()
        legal = m.legal_actions()
        assert F.shape == (len(legal), N_FEATURES)
        S, p, dtype, opts, n = _view(m)
        full = _phi(S, p, dtype, opts, n)  # φ in the engine's option order (greedy_pick needs all)
        row = {int(c): full[i] for i, c in enumerate(opts[:n])}
        for k, a in enumerate(legal):
            assert (F[k] == row[m._codes[int(a)]]).all()
        checked += 1
    assert checked > 50
    m = new_match(players, rules, 1, 0)
    while not m.is_over():
        m.apply(int(m.legal_actions()[0]))
    with pytest.raises(CardsimError, match="over"):
        m.decision_features()


@pytest.mark.parametrize("strategy, sid", [("greedy", GREEDY), ("random", RANDOM), ("soft", None)])
def test_strategy_action_plays_the_drivers_game(strategy, sid):
    """issue 48 item 1: ``AtlasMatch.strategy_action`` is the driver's decision on the seat's view
    (AT-26): a match stepped with it for every seat, on the run's strategy stream, ends as the
    driver's game does."""
    from cardsim.sim.games.atlas.seats import LEVELS

    sid = LEVELS.id(strategy) if sid is None else sid
    rules = {"trade_pick": "seen", "rounds": 2}
    games, seats = _play([sid] * 4, rules, 4, seed=21)
    for gi in range(4):
        m = new_match(4, rules, 21, gi)
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, np.uint64(21), np.int64(gi), np.int64(STREAM_STRATEGY))
        while not m.is_over():
            m.apply(m.strategy_action(strategy, rng))
        rows = seats[seats["game"] == gi]
        want = [rows["points"][rows["seat"] == s].sum() for s in range(4)]
        assert m.returns().tolist() == want
    with pytest.raises(CardsimError, match="over"):
        m.strategy_action("greedy", rng)


@pytest.mark.parametrize("bad", ["bot.py:choose", "py:bot.py:choose", "nonsense", 3])
def test_strategy_action_refuses_user_and_unknown_strategies(bad):
    """issue 48 item 1: only built-in strategies (one clear CardsimError)."""
    m = new_match(4, {}, 1, 0)
    with pytest.raises(CardsimError):
        m.strategy_action(bad, np.zeros(4, np.uint64))


@pytest.mark.heavy
def test_strategy_action_gives_a_search_its_scratch():
    """``strategy_action`` of a search strategy (``ismcts``) is the driver's own search decision:
    a match stepped with it for every seat ends as the driver's game does. (Before the fix the
    options buffer had no room for the search's scratch, and ismcts answered greedy's move at
    every decision: the teacher of ``cardsim train`` was greedy in disguise.)"""
    from cardsim.sim.games.atlas.seats import ISMCTS

    name = "ismcts:iters=8"
    sid = ISMCTS.id(name)
    rules = {"rounds": 1}
    games, seats = _play([sid] * 4, rules, 2, seed=5)
    differs = 0
    for gi in range(2):
        m = new_match(4, rules, 5, gi)
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, np.uint64(5), np.int64(gi), np.int64(STREAM_STRATEGY))
        plain = np.zeros(4, np.uint64)
        while not m.is_over():
            if len(m.legal_actions()) > 1:
                differs += m.strategy_action(name, rng.copy()) != m.strategy_action("greedy", plain)
            m.apply(m.strategy_action(name, rng))
        rows = seats[seats["game"] == gi]
        want = [rows["points"][rows["seat"] == s].sum() for s in range(4)]
        assert m.returns().tolist() == want
    assert differs > 0  # the search does leave greedy's move somewhere
