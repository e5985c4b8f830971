"""``YuanziMatch.resample_hidden`` and OpenSpiel's ISMCTS over it (issue 48 item 5): a
determinization keeps everything the seat may know (YZ-28) and deals the rest anew."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from cardsim.kernels.yuanzi.encoding import COPIES, N_TYPES
from cardsim.kernels.yuanzi.rules import begin_half
from cardsim.kernels.yuanzi.state import (
    N_INFO,
    N_ST,
    ST_FIRST_LEADER,
    ST_H0_UPSTREAM,
    ST_HALF,
    ST_INDICATOR,
)
from cardsim.sim.errors import CardsimError
from cardsim.sim.games.yuanzi.match import ACTION_CODES, new_match


def _positions(seed: int = 5, game: int = 2):
    """A match played by uniformly random legal moves, yielded before every move (both halves)."""
    match = new_match(4, None, seed, game)
    pick = np.random.default_rng(seed)
    while not match.is_over():
        yield match
        match.apply(int(pick.choice(match.legal_actions())))


def _check_deck(out, half: int) -> None:
    """The re-laid deck of the half in play deals exactly the resampled cards (hand + played)
    and ``info`` counts them (YZ-07: one at a time from the first receiver)."""
    hands = np.zeros((4, N_TYPES), np.uint8)
    played = np.zeros((4, N_TYPES), np.uint8)
    st = np.zeros(N_ST, np.int64)
    info = np.zeros((4, N_INFO), np.int64)
    up0 = out.st[ST_H0_UPSTREAM] if half == 1 else 0
    begin_half(half, out.decks[half], out.pos[half], up0, hands, played, st, info)
    assert (hands == out.hands + out.played).all()
    assert (info == out.info).all()


def test_resample_keeps_the_view_and_deals_the_rest_anew():
    """issue 48 item 5, YZ-28: for every seat at positions of both halves the resampled match
    shows that seat the same observation (and the actor the same legal moves), conserves the
    cards, keeps the first leader's indicator card (YZ-08), and different seeds give different
    hidden hands."""
    halves, changed = set(), 0
    for k, match in enumerate(_positions()):
        if k % 7:
            continue
        half = int(match.st[ST_HALF])
        halves.add(half)
        actor = match.current_player()
        for seat in range(4):
            a = match.resample_hidden(seat, 2 * k)
            b = match.resample_hidden(seat, 2 * k + 1)
            for out in (a, b):
                assert (out.observation(seat) == match.observation(seat)).all()
                assert (out.hands[seat] == match.hands[seat]).all()
                assert (out.hands.sum(1) == match.hands.sum(1)).all()  # public counts
                assert ((out.hands + out.played).sum(0) == COPIES).all()  # the 162 cards
                assert out.current_player() == actor
                if seat == actor:
                    assert (out.legal_actions() == match.legal_actions()).all()
                if half == 0:
                    lead, card = int(match.st[ST_FIRST_LEADER]), int(match.st[ST_INDICATOR])
                    assert out.hands[lead, card] + out.played[lead, card] > 0
                _check_deck(out, half)
            others = [s for s in range(4) if s != seat]
            changed += int((a.hands[others] != b.hands[others]).any())
    assert halves == {0, 1}
    assert changed > 20  # late positions may leave one way to deal the few hidden cards


def test_resample_draws_the_second_half_deck_in_the_first_half():
    """issue 48 item 5, YZ-05: in the first half the second half's deck is unseen as a whole
    and is drawn afresh; the original match is left unchanged."""
    match = new_match(4, None, 9, 0)
    before = match.clone()
    out = match.resample_hidden(0, 1)
    assert (out.decks[1] != match.decks[1]).any()
    assert sorted(out.decks[1]) == sorted(match.decks[1])
    for name in ("decks", "pos", "hands", "played", "st", "info"):
        assert (getattr(match, name) == getattr(before, name)).all()
    assert (match.resample_hidden(0, 1).hands == out.hands).all()  # the seed decides


def test_resampled_match_plays_on_legally_to_the_end():
    """issue 48 item 5: a determinization is a match like any other: random legal moves
    (through the engine's checked ``apply``) play it on through the second half to its end."""
    for k, match in enumerate(_positions(seed=12, game=0)):
        if k in (10, 60):
            out = match.resample_hidden(match.current_player(), k)
            pick = np.random.default_rng(k)
            while not out.is_over():
                out.apply(int(pick.choice(out.legal_actions())))
            assert sorted(out.returns()) in ([-1, -1, 1, 1], [-2, -2, 2, 2])


def test_resample_rejects_bad_arguments():
    """issue 48 item 5: a bad seat or seed is one clear error."""
    match = new_match(4, None, 1, 0)
    for seat, seed in ((4, 0), (-1, 0), (True, 0), (0, -1), (0, 2**64), (0, 1.5)):
        with pytest.raises(CardsimError, match="seat|seed"):
            match.resample_hidden(seat, seed)


def test_openspiel_ismcts_runs_on_the_game():
    """issue 48 item 5: OpenSpiel's ISMCTSBot (open_spiel.python.algorithms.ismcts; it asserts
    that every resampled root has the root's information state) plays a few decisions of
    ``cardsim_yuanzi``; a resampled state is not serialised as if it were the deal's own; a
    game without ``resample_hidden`` keeps OpenSpiel's default."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import ismcts, mcts

    import cardsim.agents.openspiel_game  # noqa: F401  (registers the games)

    game = pyspiel.load_game("cardsim_yuanzi", {"deals": 5})
    state = game.new_initial_state()
    state.apply_action(2)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 3, random_state=rs)
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    seat = state.current_player()
    other = state.resample_from_infostate(seat, lambda: 0.25)
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert other.legal_actions() == state.legal_actions()
    with pytest.raises(CardsimError, match="resampled"):
        pickle.dumps(other.held)
    pickle.dumps(state.held)  # the deal's own state still replays
    atlas = pyspiel.load_game("cardsim_atlas").new_initial_state()
    atlas.apply_action(0)
    with pytest.raises(pyspiel.SpielError, match="not implemented"):
        atlas.resample_from_infostate(0, lambda: 0.5)


@pytest.mark.parametrize("strategy", ["greedy", "ismcts:iters=8,cap=4,z=0,drop=0"])
def test_strategy_action_is_the_drivers_choice_from_the_seats_view(strategy):
    """issue 48 item 5, YZ-28: ``strategy_action`` picks what the driver's own decision picks
    (``decide_turn`` on the true hands, the same stream) — a legal move — and permuting the
    other seats' hidden cards never changes it."""
    from cardsim.kernels.rng import STREAM_STRATEGY, seed_stream
    from cardsim.kernels.yuanzi import driver as drv
    from cardsim.kernels.yuanzi.ismcts import BUF_SIZE
    from cardsim.sim.games.yuanzi.seats import strategy_ids

    sids, _ = strategy_ids((strategy,) * 4)
    drv.load_search()
    rng = np.zeros(4, np.uint64)
    seed_stream(rng, np.uint64(4), np.int64(0), np.int64(STREAM_STRATEGY))
    checked = 0
    for k, match in enumerate(_positions(seed=4, game=1)):
        legal = match.legal_actions()
        if len(legal) < 2 or k % 5:
            continue
        before = rng.copy()
        action = match.strategy_action(strategy, rng)
        assert action in legal
        buf = np.zeros(BUF_SIZE, np.int32)
        n, idx, _ = drv.decide_turn(
            match.hands.copy(), match.played.copy(), match.st.copy(), match.rules, sids, buf,
            before.copy(),
        )  # fmt: skip
        assert ACTION_CODES[action] == buf[idx]
        other = match.resample_hidden(match.current_player(), k)
        assert other.strategy_action(strategy, before.copy()) == action
        checked += 1
    assert checked > 10


def test_strategy_action_refuses_what_it_cannot_ask():
    """issue 48 item 5: an unknown strategy, a user strategy file and a finished match are
    one clear error each."""
    match = new_match(4, None, 1, 0)
    rng = np.ones(4, np.uint64)
    for bad in ("nosuch", "examples/yuanzi_strategy.py:choose", 3):
        with pytest.raises(CardsimError, match="strategy"):
            match.strategy_action(bad, rng)
    pick = np.random.default_rng(0)
    while not match.is_over():
        match.apply(int(pick.choice(match.legal_actions())))
    with pytest.raises(CardsimError, match="over"):
        match.strategy_action("greedy", rng)


def test_the_documented_ismcts_example_runs(capsys):
    """issue 48 item 5: docs/python-api.md's OpenSpiel ISMCTS example runs as written."""
    pytest.importorskip("pyspiel")
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[3] / "docs" / "python-api.md"
    section = doc.read_text().split("## Determinization: OpenSpiel's ISMCTS", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(block, str(doc), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out.strip()
