"""The ATLAS turn engine (kernels/atlas/turn.py): one round, played alike by the driver and by
pimc's rollouts, under every rule option of the table (kernels/atlas/options.py)."""

import ast
from pathlib import Path

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import pimc
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas import turn as T
from cardsim.kernels.atlas.encoding import MAX_OPTIONS
from cardsim.kernels.atlas.options import OPTIONS
from cardsim.kernels.atlas.rules import R_ROUNDS
from cardsim.kernels.atlas.strategies import GREEDY, RANDOM
from cardsim.kernels.rng import STREAM_DEAL, STREAM_EVENTS, STREAM_STRATEGY, new_stream

ROOT = Path(__file__).resolve().parents[3]
PLAYERS = (2, 4, 10)


def _levels(opt):
    """The values of a rule option other than its default: the other value of a 0/1 option,
    every other level of a named one, the minimum and the maximum of a number."""
    if opt.kind == "bool":
        return [not opt.default]
    if opt.kind == "choice":
        return [c for c in opt.choices if c != opt.default]
    top = opt.max - (opt.max - opt.min) % (opt.step or 1)
    return [v for v in (opt.min, top) if v != opt.default]


def _variants():
    out = [("defaults", {})]
    for opt in OPTIONS:
        for v in _levels(opt):
            out.append((f"{opt.name}={v}", {opt.name: v}))
    return out


VARIANTS = _variants()


def test_every_option_of_the_table_is_varied():
    """A row added to the table is picked up by the rollout–driver test without an edit."""
    varied = {next(iter(r)) for _, r in VARIANTS if r}
    assert varied == {o.name for o in OPTIONS}
    assert all(len(_levels(o)) >= 1 for o in OPTIONS)


@pytest.mark.parametrize("name, rules", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_rollout_and_driver_play_the_same_moves(name, rules):
    """From the same state — round 0 fresh from its deal, before the first turn — the driver
    (seats' strategies, trace) and pimc's rollout (its policy at every seat) play the same
    moves to the same end, under this rule option, at 2, 4 and 10 players, greedy and random.

    Why a new 0/1 rule option needs no edit in pimc: pimc holds no rule logic and reads no rule
    option (``test_pimc_reads_no_rule_option``); its rollouts are the engine's
    ``legal_moves``/``apply_move``, which read every option from the state's public block
    ``P_RULES``; ``new_round`` writes every row of the table there and ``determinize`` copies
    the whole public block (``test_rules_reach_the_engine_and_every_determinization``). A new
    option is a row of the table plus its reading in kernels/atlas/turn.py (or rules.py), and
    this test, which varies every row of the table, plays it through both.
    """
    for n in PLAYERS:
        R = OPTIONS.array(rules, n)
        for sid in (GREEDY, RANDOM):
            for g in range(2):
                seat_ids = np.full(n, sid, np.int64)
                tr = D.run_trace(17, g, n, seat_ids, R, level=1)
                moves = tr.decisions[tr.decisions[:, 0] == 0, 4]
                S = ST.new_state()
                T.new_round(S, n, 0, 0, R, new_stream(np.uint64(17), g, STREAM_DEAL))
                rng = new_stream(np.uint64(17), g, STREAM_STRATEGY)
                ev = new_stream(np.uint64(17), g, STREAM_EVENTS)
                log = np.zeros(len(moves) + 1, np.int32)
                m = pimc.rollout(S, sid, rng, ev, np.zeros(MAX_OPTIONS, np.int32), log)
                where = f"{name}, {n} players, strategy {sid}, game {g}"
                assert m == len(moves) and list(log[:m]) == list(moves), where
                got = (S[ST.ST_WINNER], S[ST.ST_END], S[ST.P_TURNS], S[ST.ST_RESHUFFLES])
                want = tuple(int(tr.games[k][0]) for k in ("winner", "end", "turns", "reshuffles"))
                assert got == want, where


def test_pimc_reads_no_rule_option():
    """kernels/atlas/pimc.py names no rule option (no ``R_*`` offset, no ``P_RULES``, no rule
    array argument) and no turn phase: its only road to the rules is the turn engine."""
    tree = ast.parse((ROOT / "kernels/atlas/pimc.py").read_text())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not {x for x in names if x.startswith("R_") or x == "P_RULES"}
    assert not {x for x in names if x.startswith("PH_")}
    funcs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "bind_rules" not in funcs
    assert {"legal_moves", "apply_move"} <= names


def test_rules_reach_the_engine_and_every_determinization():
    """``new_round`` writes every rule of the table into ``P_RULES``; a determinization copies
    every ``P_RULES`` slot (the unused ones too) and the engine's phase."""
    R = np.arange(100, 100 + len(OPTIONS), dtype=np.int64)
    R[OPTIONS.offset("hand_size")] = 13
    for k in ("atlas_cards", "skip_cards", "reverse_cards", "trade_cards"):
        R[OPTIONS.offset(k)] = 6
    S = ST.new_state()
    T.new_round(S, 4, 0, 2, R, new_stream(np.uint64(1), 0, STREAM_DEAL))
    assert list(S[ST.P_RULES : ST.P_RULES + len(R)]) == list(R)
    S[ST.P_RULES + len(R) : ST.P_RULES + ST.RULE_SLOTS] = 7  # a slot a new option would take
    assert (S[ST.E_PHASE], S[ST.E_CUR]) == (T.PH_TURN, 2)
    pool, Dst = np.zeros(256, np.int32), np.zeros(ST.S_LEN, np.int32)
    assert pimc.determinize(S, 2, pool, Dst, new_stream(np.uint64(1), 0, STREAM_STRATEGY))
    assert list(Dst[ST.P_RULES : ST.P_RULES + ST.RULE_SLOTS]) == list(
        S[ST.P_RULES : ST.P_RULES + ST.RULE_SLOTS]
    )
    assert list(Dst[ST.E_PHASE : ST.E_END]) == list(S[ST.E_PHASE : ST.E_END])


@pytest.mark.parametrize("n, rules", [(4, {}), (3, {"trade_pick": "seen", "claim_turn": "jump"})])
def test_legal_moves_is_idempotent_and_matches_the_trace(n, rules):
    """At every decision of a traced game the engine, resumed from its snapshot, offers exactly
    the traced options to the traced seat with the traced kind, and asking twice changes
    nothing but the buffer."""
    R = OPTIONS.array(rules, n)
    seat_ids = np.array([GREEDY, RANDOM, 2, GREEDY][:n], np.int64)
    for g in range(2):
        tr = D.run_trace(5, g, n, seat_ids, R, level=2, snap_at=-2)
        assert len(tr.snapshot) == len(tr.decisions) > 20
        for i, row in enumerate(tr.snapshot):
            S = row[: ST.S_LEN].copy()
            opts = np.zeros(MAX_OPTIONS, np.int32)
            ev = new_stream(np.uint64(1), i, STREAM_EVENTS)
            seat, kind, k = T.legal_moves(S, opts, ev)
            assert (seat, kind, k) == tuple(int(v) for v in tr.decisions[i, 1:4])
            assert list(opts[:k]) == list(tr.options_of(i))
            again = S.copy()
            assert T.legal_moves(again, opts, ev) == (seat, kind, k)
            assert np.array_equal(again, S)


def test_a_fresh_state_is_a_turn_start_of_seat_0():
    S = ST.new_state()
    ST.reset_round(S, 3, 0)
    assert S[ST.E_PHASE] == T.PH_TURN == 0 and S[ST.E_CUR] == 0
    assert T.PHASES[T.PH_OVER] == "over" and len(T.PHASES) == T.PH_OVER + 1


def test_turn_imports_only_the_atlas_rules_modules():
    """No import cycle: the engine imports the ATLAS encoding, rules and state modules (and the
    shared RNG), never the driver, the strategies or pimc."""
    tree = ast.parse((ROOT / "kernels/atlas/turn.py").read_text())
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert mods == {
        "numpy",
        "cardsim.kernels.atlas.encoding",
        "cardsim.kernels.atlas.rules",
        "cardsim.kernels.atlas.state",
        "cardsim.kernels.rng",
    }


def test_the_driver_plays_every_round_of_a_match():
    """``rounds`` > 1: every round is played by the same loop (AT-25), one trace per game."""
    R = OPTIONS.array({"rounds": 3}, 4)
    assert R[R_ROUNDS] == 3
    tr = D.run_trace(3, 0, 4, np.full(4, GREEDY, np.int64), R, level=1)
    assert sorted(set(tr.decisions[:, 0].tolist())) == [0, 1, 2]
    assert sorted(set(tr.windows[:, 0].tolist())) == [0, 1, 2]
