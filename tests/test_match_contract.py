"""Every registered game through the match contract (issue 46 item 3), in the style of pgx's
api_test.py: random and deterministic play of whole matches through ``new_match`` / ``legal_actions``
/ ``apply`` / ``is_over`` / ``returns`` / ``observation``, with invariants checked at every step:

- the seat to act is in range and has legal actions until the match is over, none after;
- ``apply`` of an illegal action raises ``IllegalMove`` and changes nothing;
- observations keep their length, are finite, and ``clone`` is independent;
- the returns are zero until the end and then sum as the game declares (``returns_sum``).

The games come from the registry (``GAMES``) plus a game registered by the tests alone
(tests/toy_match.py), so a new game is checked with no edit here. What a seat sees is checked
per game against its hidden cards dealt anew (tests/games/<game>/test_match.py: AT-26, YZ-28),
and here through ``resample_hidden`` for a game whose Match offers it,
and the runs of ``run`` / ``compare`` / ``report`` for every game in tests/test_conformance.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardsim.sim import games as registry
from cardsim.sim.engine import IllegalMove
from cardsim.sim.games import get_engine

from tests import toy_match

if toy_match.ENGINE.name not in registry.game_names():
    registry.register_engine(toy_match.ENGINE)


def contract_games() -> list[str]:
    """Every game of the registry (``GAMES``) and the tests' toy game."""
    return [*registry.GAMES, "toy"]


GAMES = contract_games()
#: (players, rules) per game: defaults, other player counts, a rule variant
CASES = {
    "yuanzi": [(4, {}), (4, {"shuangjia": "upstream_team", "pass_is_final": True})],
    "atlas": [(2, {}), (4, {"rounds": 3}), (10, {"claim_turn": "jump"})],
}


def _cases(game):
    engine = get_engine(game)
    return CASES.get(game, [(engine.default_players, {})])


def _state(m) -> tuple:
    return (m.current_player(), tuple(m.legal_actions()),
            *(m.observation(s).tobytes() for s in range(m.players)))  # fmt: skip


def play(m, pick, rng):
    """Play ``m`` to its end with ``pick(legal, rng)``; check the invariants at every step."""
    steps = 0
    while not m.is_over():
        seat = m.current_player()
        assert 0 <= seat < m.players
        legal = m.legal_actions()
        assert legal.size > 0 and legal.dtype.kind == "i" and np.all(np.diff(legal) > 0)
        assert legal.min() >= 0 and legal.max() < m.num_actions
        assert not m.returns().any()  # nothing is paid before the end
        obs = m.observation(seat)
        assert obs.shape == (m.observation_size,) and np.isfinite(obs).all()
        if steps % 7 == 0:  # an illegal action changes nothing
            before = _state(m)
            illegal = np.setdiff1d(np.arange(m.num_actions), legal)
            for bad in illegal[:1].tolist() + [m.num_actions, -1]:
                with pytest.raises(IllegalMove):
                    m.apply(int(bad))
            assert _state(m) == before
        if steps % 11 == 0 and hasattr(m, "resample_hidden"):  # a game that determinizes
            other = m.resample_hidden(seat, steps)  # (OpenSpiel's resample_from_infostate)
            assert other.observation(seat).tobytes() == obs.tobytes()
            assert np.array_equal(other.legal_actions(), legal)
        if steps % 13 == 0:  # a clone is independent
            c = m.clone()
            c.apply(int(legal[0]))
            assert m.current_player() == seat and np.array_equal(m.legal_actions(), legal)
        m.apply(int(pick(legal, rng)))
        steps += 1
        assert steps < 100_000
    assert m.current_player() == -1 and m.legal_actions().size == 0
    with pytest.raises(IllegalMove):
        m.apply(0)
    r = m.returns()
    assert r.shape == (m.players,) and np.isfinite(r).all()
    total = getattr(m, "returns_sum", None)
    if total is not None:
        assert r.sum() == pytest.approx(total)
    return steps


POLICIES = {
    "random": lambda legal, rng: rng.choice(legal),
    "lowest": lambda legal, rng: legal[0],
    "highest": lambda legal, rng: legal[-1],
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_whole_matches_through_the_contract(game, policy):
    engine = get_engine(game)
    rng = np.random.default_rng(46)
    for players, rules in _cases(game):
        for index in range(2):
            m = engine.new_match(players, rules, seed=7, game_index=index)
            assert m.players == players
            play(m, POLICIES[policy], rng)


@pytest.mark.parametrize("game", GAMES)
def test_a_match_is_its_seed_and_index(game):
    """The same (rules, seed, game index) and the same actions give the same match."""
    engine = get_engine(game)
    players, rules = _cases(game)[0]
    runs = []
    for _ in range(2):
        m = engine.new_match(players, rules, seed=3, game_index=5)
        rng, trail = np.random.default_rng(1), []
        while not m.is_over():
            a = int(rng.choice(m.legal_actions()))
            trail.append((m.current_player(), a, m.observation(m.current_player()).tobytes()))
            m.apply(a)
        runs.append((trail, m.returns().tolist()))
    assert runs[0] == runs[1]
    other = engine.new_match(players, rules, seed=3, game_index=6)
    assert _state(other) != _state(engine.new_match(players, rules, seed=3, game_index=5))


def test_a_newly_registered_game_is_checked(monkeypatch):
    """The game list is the registry's: a game registered beside the built-ins is played here."""
    monkeypatch.setattr(registry, "GAMES", (*registry.GAMES, "newgame"))
    assert contract_games() == [*registry.GAMES, "toy"] and "newgame" in contract_games()
