"""The ATLAS match engine (issue 46 item 1, kernels/atlas/engine.py): the match level — AT-25
rounds, the next round's first player, AT-24 points, the match standing — written once, and
every caller (driver, search objective, py: adapter, Python Match) playing through it."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from cardsim.kernels.atlas import engine as E
from cardsim.kernels.atlas import rules as RL
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas import turn as T
from cardsim.kernels.atlas.encoding import ATLAS, MAX_OPTIONS, SKIP

ROOT = Path(__file__).resolve().parents[3]
#: Where match-level rules may be written: the engine (and the state layout that names them).
ENGINE_FILES = {"kernels/atlas/engine.py", "kernels/atlas/state.py"}


def _names(path: Path) -> set[str]:
    """Every name a module reads (``Name`` and imported names)."""
    tree = ast.parse(path.read_text())
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            out |= {a.name for a in n.names}
    return out


def _modules():
    for folder in ("kernels/atlas", "sim/games/atlas"):
        for path in sorted((ROOT / folder).glob("*.py")):
            yield str(path.relative_to(ROOT)), path


def test_match_level_rules_are_written_only_in_the_engine():
    """Issue 46 item 1: no module but the engine deals a round (``new_round`` takes the round's
    first player: AT-25), reads or writes the match standing (``P_STANDING``, AT-25), or plays
    the turn engine's calls outside a round's rollout — the driver, the py: adapter and the
    Python Match call ``engine.legal`` / ``engine.apply``; pimc's objective reads the standing
    through the engine's ``match_total`` / ``top_total``. (Before: the next first player in
    driver.play_match and the adapter's mirror, the standing in pimc.objective.)"""
    for rel, path in _modules():
        if rel in ENGINE_FILES:
            continue
        names = _names(path)
        if rel != "kernels/atlas/turn.py":
            assert "new_round" not in names, rel
        assert "P_STANDING" not in names or rel == "sim/games/atlas/adapter.py", rel
        if rel.startswith("sim/") or rel == "kernels/atlas/driver.py":
            assert not names & {"legal_moves", "apply_move", "round_points"}, rel
    assert not hasattr(RL, "round_points") and not hasattr(T, "match_rounds")
    pimc = _names(ROOT / "kernels/atlas/pimc.py")
    assert {"match_total", "top_total", "winner_points", "match_rounds"} <= pimc


def _finished_round(n, winner, first, r=0, rounds=3):
    """A state at the end of round ``r`` of ``rounds``: ``winner`` (or -1) went out, seat 1 holds
    an ATLAS, a SKIP and a matching card (3 + 2 + 1 points under AT-D4's defaults)."""
    S = ST.new_state()
    R = RL.DEFAULT_RULES.copy()
    R[RL.R_ROUNDS] = rounds
    ST.reset_round(S, n, r)
    T.set_rules(S, R)
    RL.set_design(S, R)
    for t in (ATLAS, SKIP, 5):
        ST.add_card(S, 1, t)
    S[ST.H_FIRST] = first
    S[ST.ST_WINNER] = winner
    S[ST.E_PHASE] = T.PH_OVER
    return S, R


def test_at25_next_first_player_and_at24_points():
    """AT-25: the winner moves first next; after a round without a winner, the seat after the
    round's first player (wrapping). AT-24: the winner scores the other hands' values."""
    S, _ = _finished_round(4, 2, 1)
    assert E.next_first(S) == 2 and E.winner_points(S) == 3 + 2 + 1
    assert [E.round_score(S, s) for s in range(4)] == [0, 0, 6, 0]
    S, _ = _finished_round(4, -1, 3)
    assert E.next_first(S) == 0 and E.winner_points(S) == 0
    S, _ = _finished_round(4, -1, 1)
    assert E.next_first(S) == 2


def test_at25_the_engine_deals_the_next_round_with_the_standing():
    """AT-25: at a finished round that is not the last, ``legal`` deals the next round (its
    first player ``next_first``) and the finished round's points join the public standing;
    after the last round the match is over and ``legal`` deals nothing."""
    S, R = _finished_round(3, 0, 2, r=0, rounds=2)
    rngs = np.zeros((2, 4), np.uint64)
    rngs[:, 0] = 1
    opts = np.zeros(MAX_OPTIONS, np.int32)
    assert E.round_over(S) and not E.is_over(S)
    total = E.match_total(S, 0)
    assert total == 6 and E.top_total(S) == (6, 1)
    seat, _kind, k = E.legal(S, R, opts, rngs)
    assert S[ST.P_ROUND] == 1 and S[ST.H_FIRST] == 0 and seat == 0 and k > 0
    assert list(S[ST.P_STANDING : ST.P_STANDING + 3]) == [6, 0, 0]
    S, R = _finished_round(3, 0, 2, r=1, rounds=2)
    assert E.is_over(S)
    assert E.legal(S, R, opts, rngs)[2] == 0 and S[ST.P_ROUND] == 1
    out = np.zeros(3)
    E.returns(S, out)
    assert list(out) == [6, 0, 0]
