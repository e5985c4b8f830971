"""The engine open to other people's agents (issue 46 item 4): ``cardsim.env`` (a PettingZoo AEC
environment) and the OpenSpiel games ``cardsim_<game>``, both over the match contract alone.

Each ecosystem's own checker runs on every game (PettingZoo's ``api_test``, OpenSpiel's
``random_sim_test`` with its clone and serialisation checks), on a toy game behind the same
contract (tests/toy_match.py) and on the built-in games. A random agent stepped through
``cardsim.env`` must give the outcome distribution of ``cardsim run --strategy random`` on the
same seeds (and a biased one must not).
"""

from __future__ import annotations

import math
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pettingzoo_test = pytest.importorskip("pettingzoo.test")
pyspiel = pytest.importorskip("pyspiel")

from cardsim.sim.game import RunConfig  # noqa: E402
from cardsim.sim.games import GAMES, get_engine, register_engine  # noqa: E402

import cardsim  # noqa: E402
from cardsim.agents import match_spec, rule_items  # noqa: E402
from cardsim.agents import openspiel_game as og  # noqa: E402
from tests import toy_match  # noqa: E402

register_engine(toy_match.ENGINE)
og.register("toy")

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "python-api.md"
#: two-sided 99.9 % normal quantile: the tolerance of the distribution comparisons below
Z999 = 3.2905


def has_match(game: str) -> bool:
    return callable(getattr(get_engine(game), "new_match", None))


def real(game: str):
    """A built-in game's parameter, skipped while its Match (issue 46 item 1) is not merged."""
    return pytest.param(
        game,
        marks=pytest.mark.skipif(not has_match(game), reason=f"{game}: no Match merged yet"),
    )


REAL = [real(g) for g in GAMES]

# --- PettingZoo -------------------------------------------------------------------------------


def api_test(env) -> None:
    """PettingZoo's checker. Its warnings about a Dict observation space are about every env
    with action masks (its own classic games included), so they are silenced; failures raise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pettingzoo_test.api_test(env, num_cycles=10_000)


@pytest.mark.parametrize(
    "players, rules", [(None, None), (2, {"draws": False}), (4, "bonus=3,draws=true")]
)
def test_pettingzoo_api_test_on_the_toy_game(players, rules):
    """issue 46 item 4: api_test passes for a game that is only the match contract."""
    api_test(cardsim.env("toy", players=players, rules=rules))


#: per built-in game: default rules, rule variants, and (ATLAS) player counts 2 / 4 / 10
VARIANTS = {
    "yuanzi": [
        (None, None),
        (None, "shuangjia=upstream_team,pass_is_final=true"),
        (None, {"dao_bomb": "same_count_only", "lead_after_out": "partner"}),
    ],
    "atlas": [
        (None, None),
        (2, None),
        (4, {"claim_turn": "jump", "trade_pick": "seen"}),
        (10, "rounds=2,forced_claims=false,hand_size=8"),
    ],
}


@pytest.mark.parametrize("game", REAL)
def test_pettingzoo_api_test_on_each_game(game):
    """issue 46 item 4: api_test passes on each built-in game at its default rules."""
    api_test(cardsim.env(game, seed=5))


@pytest.mark.parametrize(
    "game, players, rules",
    [
        pytest.param(g, p, r, marks=real(g).marks)
        for g, cases in VARIANTS.items()
        for p, r in cases[1:]
    ],
)
def test_pettingzoo_api_test_on_rule_variants_and_player_counts(game, players, rules):
    """issue 46 item 4: rule variants and ATLAS player counts 2 / 4 / 10 pass api_test."""
    env = cardsim.env(game, players=players, rules=rules, seed=11)
    api_test(env)
    assert env.num_agents == (players or get_engine(game).default_players)


@pytest.mark.parametrize("game", ["toy", *REAL])
def test_reset_deals_games_of_the_root_seed_as_cardsim_run(game):
    """issue 46 item 4: reset(seed=s) deals game 0 of root seed s; resets without a seed deal
    games 1, 2, … of the same root seed (the deals of ``cardsim run --seed s``)."""
    spec = match_spec(game)
    env = cardsim.env(game, seed=3)
    seen = []
    for reset_seed in (9, None, None):
        env.reset(seed=reset_seed)
        seen.append([env.observe(a)["observation"] for a in env.possible_agents])
    for index, views in enumerate(seen):
        expect = spec.new_match(9, index)
        for seat, view in enumerate(views):
            np.testing.assert_array_equal(view, expect.observation(seat))
    assert not all(np.array_equal(a, b) for a, b in zip(seen[0], seen[1], strict=True))
    env.reset()  # a fresh env without reset(seed=...) starts at game 0 of its own seed
    fresh = cardsim.env(game, seed=3)
    fresh.reset()
    np.testing.assert_array_equal(
        fresh.observe("player_0")["observation"], spec.new_match(3, 0).observation(0)
    )


def test_the_action_mask_is_the_legal_actions_of_the_seat_to_act():
    env = cardsim.env("toy", seed=1)
    env.reset()
    seat = int(env.agent_selection.split("_")[1])
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.dtype == np.int8
    np.testing.assert_array_equal(np.flatnonzero(mask), env.match.legal_actions())
    others = [a for a in env.possible_agents if a != f"player_{seat}"]
    assert all(not env.observe(a)["action_mask"].any() for a in others)


def test_rewards_come_only_at_the_end_and_are_the_match_returns():
    """issue 46 item 4: every reward is 0 until the match ends; then each seat's rewards add
    up to its match score (``Match.returns`` of the same deal played with the same moves)."""
    env = cardsim.env("toy", rules={"bonus": 4}, seed=2)
    env.reset()
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng, played = np.random.default_rng(0), []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if not term:
            assert reward == 0.0
            played.append(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.step(played[-1] if not term else None)
    replay = match_spec("toy", None, {"bonus": 4}).new_match(2, 0)
    for action in played:
        replay.apply(action)
    assert replay.is_over() and list(total.values()) == pytest.approx(list(replay.returns()))
    assert replay.returns()[0] != 0  # the check sees a score


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"game": "nope"}, "unknown game 'nope'"),
        ({"game": "toy", "players": 7}, "played by 2..4 players, got players=7"),
        ({"game": "toy", "players": "3"}, "played by 2..4 players"),
        ({"game": "toy", "rules": {"bonsu": 1}}, "unknown toy rule option 'bonsu'"),
        ({"game": "toy", "rules": "bonus=99"}, "invalid value '99'"),
        ({"game": "toy", "rules": "bonus"}, "'bonus' is not option=value"),
        ({"game": "toy", "rules": "bonus=1,bonus=2"}, "rules bonus is given twice"),
        ({"game": "toy", "seed": -1}, "seed must be an integer"),
        ({"game": "toy", "render_mode": "human"}, "render_mode is None or 'ansi'"),
    ],
)
def test_bad_input_is_one_clear_cardsim_error(kw, words):
    """issue 46 item 4: a bad game / players / rules / seed is a CardsimError of one line."""
    with pytest.raises(cardsim.CardsimError) as e:
        cardsim.env(**kw)
    assert words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("game", ["toy", *REAL])
def test_an_illegal_action_raises_and_leaves_the_match_as_it_was(game):
    env = cardsim.env(game, seed=4)
    env.reset()
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.match.clone()
    with pytest.raises(cardsim.CardsimError, match="not legal"):
        env.step(illegal)
    with pytest.raises(cardsim.CardsimError, match="an action is an integer"):
        env.step("3")
    np.testing.assert_array_equal(env.match.observation(0), before.observation(0))


@pytest.mark.parametrize(
    "params, words",
    [
        ({"players": 9}, "played by 2..4 players"),
        ({"rules": "nope=1"}, "unknown toy rule option 'nope'"),
        ({"seed": -3}, "seed must be an integer in 0..2147483647"),
        ({"deals": 0}, "deals must be at least 1"),
    ],
)
def test_bad_openspiel_parameters_are_cardsim_errors(params, words):
    with pytest.raises(cardsim.CardsimError, match=re.escape(words)):
        pyspiel.load_game("cardsim_toy", params)


def test_import_cardsim_imports_neither_pettingzoo_nor_openspiel():
    code = "import sys, cardsim; print(sorted({'pettingzoo', 'pyspiel'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- OpenSpiel --------------------------------------------------------------------------------


def test_openspiel_random_sim_test_on_the_toy_game():
    """issue 46 item 4: random_sim_test (with its clone and serialise/deserialise checks at
    every early and every 2^k-th state) passes for a game that is only the match contract."""
    for params in ({}, {"players": 2, "rules": "draws=false"}, {"rules": "bonus=2", "deals": 7}):
        game = pyspiel.load_game("cardsim_toy", params)
        pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("game", REAL)
def test_openspiel_random_sim_test_on_each_game(game):
    """issue 46 item 4: random_sim_test on each built-in game (default rules)."""
    g = pyspiel.load_game(og.short_name(game), {"seed": 3})
    pyspiel.random_sim_test(g, num_sims=1, serialize=True, verbose=False)


@pytest.mark.heavy
@pytest.mark.parametrize(
    "game, players, rules",
    [
        pytest.param(g, p, r, marks=real(g).marks)
        for g, cases in VARIANTS.items()
        for p, r in cases[1:]
    ],
)
def test_openspiel_random_sim_test_on_rule_variants(game, players, rules):
    spec = match_spec(game, players, rules)
    params = {"players": spec.players, "rules": ",".join(f"{k}={v}" for k, v in rule_items(rules))}
    g = pyspiel.load_game(og.short_name(game), params)
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game", ["toy", *REAL])
def test_openspiel_chance_outcome_i_deals_game_i_and_tensors_are_the_view(game):
    """The one chance node picks the deal: outcome i is game i of the root seed; the
    observation tensor and the information state tensor are both ``Match.observation``."""
    g = pyspiel.load_game(og.short_name(game), {"seed": 21, "deals": 50})
    state = g.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(50))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(17)
    expect = match_spec(game).new_match(21, 17)
    for seat in range(g.num_players()):
        view = expect.observation(seat)
        np.testing.assert_array_equal(state.observation_tensor(seat), view)
        np.testing.assert_array_equal(state.information_state_tensor(seat), view)
    assert state.current_player() == expect.current_player()
    assert state.legal_actions() == [int(a) for a in expect.legal_actions()]


@pytest.mark.parametrize("game", REAL)
def test_openspiel_utility_is_general_sum_as_the_returns_require(game):
    """issue 46 item 4: the games declare GENERAL_SUM. Checked against the returns: ATLAS's
    are points won (a round with a winner sums above 0), so zero-sum would be false for it;
    原子's ±match points sum to 0 (zero-sum would also hold, but the contract cannot say so)."""
    g = pyspiel.load_game(og.short_name(game), {"seed": 5})
    assert g.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    rng = np.random.default_rng(5)
    sums = []
    for deal in range(4):
        state = g.new_initial_state()
        state.apply_action(deal)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        sums.append(sum(state.returns()))
    if game == "atlas":
        assert any(total > 0 for total in sums)
    else:
        assert sums == [0.0] * 4


def test_openspiel_clone_and_pickle_are_independent_copies():
    g = pyspiel.load_game("cardsim_toy", {"rules": "bonus=1"})
    state = g.new_initial_state()
    state.apply_action(5)
    state.apply_action(state.legal_actions()[0])
    clone, copy = state.clone(), pickle.loads(pickle.dumps(state))
    assert str(clone) == str(copy) == str(state)
    clone.apply_action(clone.legal_actions()[-1])
    assert str(clone) != str(state) and str(copy) == str(state)


def test_openspiel_game_string_keeps_the_rules():
    """Rules given as 'option=value,…' are written into the game string in a form OpenSpiel's
    parser reads back (it splits at ',' and '='): the loaded game has the same rules."""
    g = pyspiel.load_game("cardsim_toy", {"rules": "bonus=2,draws=false", "players": 2})
    again = pyspiel.load_game(str(g))
    assert str(again) == str(g) and again.spec.rules == {"draws": False, "bonus": 2}
    assert "rules=draws:false;bonus:2" in str(g)


# --- the random agent's outcomes equal `cardsim run --strategy random`'s ----------------------

GAMES_N = 200


def seat0_returns_env(game: str, seed: int, agent) -> np.ndarray:
    """Seat 0's match score in games 0..GAMES_N-1 of root ``seed``, played through cardsim.env,
    ``agent(seat, mask, rng) -> action`` choosing every move."""
    env = cardsim.env(game, seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for index in range(GAMES_N):
        env.reset(seed=seed if index == 0 else None)
        for name in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if name == "player_0" and term:
                out.append(reward)
            seat = int(name.split("_")[1])
            env.step(None if term else agent(seat, obs["action_mask"], rng))
    return np.array(out)


def uniform(seat: int, mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def lowest_at_seat0(seat: int, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A deliberately biased agent: seat 0 always plays its lowest action id."""
    legal = np.flatnonzero(mask)
    return int(legal[0]) if seat == 0 else int(rng.choice(legal))


#: per game: the seat-0 match score of each game of a run (games, seats tables -> array)
RUN_RETURNS = {
    "toy": lambda games, seats: games.filter(pl.col("seat") == 0).sort("game")["ret"],
    "yuanzi": lambda games, seats: seats.filter(pl.col("seat") == 0).sort("game")["delta"],
    "atlas": lambda games, seats: (
        seats.filter(pl.col("seat") == 0).group_by("game").agg(pl.col("points").sum())
    ).sort("game")["points"],
}


def seat0_returns_run(game: str, seed: int, seats: tuple[str, ...]) -> np.ndarray:
    """The same for ``play_chunk`` of a run (``cardsim run --seed seed``) with ``seats``."""
    engine = get_engine(game)
    spec = match_spec(game)
    config = RunConfig(game, spec.players, seats, spec.rules, seed, GAMES_N)
    games, seat_rows = engine.play_chunk(config, 0, GAMES_N)
    return np.asarray(RUN_RETURNS[game](games, seat_rows), float)


def differs(a: np.ndarray, b: np.ndarray) -> list[str]:
    """The tests that reject "same distribution" at 99.9 % (two-sided): the share of games
    seat 0 scores above 0 (two-proportion z-test, pooled) and its mean score (Welch's z)."""
    found = []
    pa, pb = (a > 0).mean(), (b > 0).mean()
    pool = (pa + pb) / 2
    se = math.sqrt(max(pool * (1 - pool), 1e-12) * (2 / GAMES_N))
    if abs(pa - pb) / se > Z999:
        found.append(f"share of games seat 0 scores > 0: {pa:.3f} vs {pb:.3f}")
    se_mean = math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / GAMES_N) or 1e-12
    if abs(a.mean() - b.mean()) / se_mean > Z999:
        found.append(f"seat 0's mean match score: {a.mean():.3f} vs {b.mean():.3f}")
    return found


def test_random_agent_through_env_matches_the_random_strategy_on_the_toy_game():
    """issue 46 item 4: 200 games of a uniform random agent through cardsim.env have the
    outcome distribution of the run's "random" strategy on the same seeds (99.9 % tests); the
    check can fail: seat 0 playing "greedy" in the run, or a biased agent, is detected."""
    players = toy_match.ENGINE.default_players
    env_random = seat0_returns_env("toy", 1, uniform)
    assert differs(env_random, seat0_returns_run("toy", 1, ("random",) * players)) == []
    greedy0 = ("greedy",) + ("random",) * (players - 1)
    assert differs(env_random, seat0_returns_run("toy", 1, greedy0))
    biased = seat0_returns_env("toy", 1, lowest_at_seat0)
    assert differs(biased, seat0_returns_run("toy", 1, ("random",) * players))


@pytest.mark.heavy
@pytest.mark.parametrize("game", REAL)
def test_random_agent_through_env_matches_cardsim_run_random(game):
    """issue 46 item 4: as above on each built-in game: 200 matches of a uniform random agent
    through cardsim.env against ``play_chunk`` of a run with every seat "random" (root seed 1,
    the same 200 deals); the same comparison with seat 0 "greedy" in the run, or with seat 0
    always playing its lowest action id through the env, rejects."""
    players = get_engine(game).default_players
    env_random = seat0_returns_env(game, 1, uniform)
    run_random = seat0_returns_run(game, 1, ("random",) * players)
    assert differs(env_random, run_random) == []
    greedy0 = ("greedy",) + ("random",) * (players - 1)
    assert differs(env_random, seat0_returns_run(game, 1, greedy0))
    assert differs(seat0_returns_env(game, 1, lowest_at_seat0), run_random)


# --- the documented examples ----------------------------------------------------------------


def doc_blocks() -> list[str]:
    section = DOC.read_text().split("## Step a game with your own agents", 1)[1]
    section = section.split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_section_has_two_short_examples():
    blocks = doc_blocks()
    assert len(blocks) == 2 and "cardsim.env(" in blocks[0] and "pyspiel.load_game(" in blocks[1]
    assert all(len([x for x in b.splitlines() if x.strip()]) <= 10 for b in blocks)


@pytest.mark.parametrize(
    "which",
    [pytest.param(0, marks=real("yuanzi").marks), pytest.param(1, marks=real("atlas").marks)],
)
def test_the_documented_examples_run(which, capsys):
    """The PettingZoo example (原子) and the OpenSpiel one (ATLAS) run as written."""
    exec(compile(doc_blocks()[which], str(DOC), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out.strip()
