"""Kernel vs reference: kernel traces replayed through ``cardsim.sim.games.atlas.reference.rules.replay_trace``.

For every decision: round, seat, type, the option count, ``option_set_hash`` and the full option
set (trace level 2), and membership of the chosen code; for every claim window: discarder, card,
winning seat and code; for every round: the protocol §6 outcome, per seat included.
"""

import numpy as np
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.sim.games.atlas import ENGINE, resolve_rules, rules_array
from cardsim.sim.games.atlas.reference import rules as ref

GAME_KEYS = (
    "first_player", "winner", "end", "turns", "reshuffles", "direction_changes",
    "winner_points", "triples", "quads", "fives", "youxian_claims", "last_card_pairs",
    "claims", "self_melds", "skips", "reverses", "trades", "atlas_used",
)  # fmt: skip
SEAT_KEYS = ("cards_left", "hand_value", "points", "melds_by_seat", "claims_by_seat")
IDS = {"random": 0, "greedy": 1, "careful": 2}


def disagreement(seed, gi, n, seats, rules):
    """None when kernel and reference agree on game ``gi``, else a description of the first gap."""
    sids = np.array([IDS[s] for s in seats], np.int64)
    tr = D.run_trace(seed, gi, n, sids, rules_array(rules), level=2)
    where = f"seed {seed} game {gi} n {n} seats {seats} rules {rules}"
    try:
        m = ref.replay_trace(seed, gi, n, tr.chosen(), resolve_rules(rules))
    except ValueError as exc:
        return f"{where}: reference rejects the kernel trace: {exc}"
    if len(m.decisions) != len(tr.decisions):
        return f"{where}: {len(tr.decisions)} kernel decisions, {len(m.decisions)} reference"
    for i, d in enumerate(m.decisions):
        k = tr.decisions[i]
        kopts = sorted(int(c) for c in tr.options_of(i))
        if (d.round, d.seat, d.type, len(d.options)) != tuple(int(v) for v in k[:4]):
            return f"{where}: decision {i}: kernel {k[:4].tolist()} reference {d}"
        if int(tr.hashes[i]) != d.options_hash or kopts != list(d.options):
            return f"{where}: decision {i} options: kernel {kopts} reference {list(d.options)}"
        if d.chosen not in d.options:
            return f"{where}: decision {i}: chosen {d.chosen} not an option"
    if len(m.windows) != len(tr.windows):
        return f"{where}: {len(tr.windows)} kernel claim windows, {len(m.windows)} reference"
    for i, w in enumerate(m.windows):
        kw = tuple(int(v) for v in tr.windows[i])
        if (w.round, w.discarder, w.card, w.winner, w.code) != kw:
            return f"{where}: window {i}: kernel {kw} reference {w}"
    rounds = len(tr.games)
    if len(m.rounds) != rounds:
        return f"{where}: {rounds} kernel rounds, {len(m.rounds)} reference"
    seats_rows = tr.seats.reshape(rounds, n)
    for r, o in enumerate(m.rounds):
        for key in GAME_KEYS:
            if int(o[key]) != int(tr.games[key][r]):
                return f"{where}: round {r} {key}: kernel {tr.games[key][r]} reference {o[key]}"
        for key in SEAT_KEYS:
            kv = [int(v) for v in seats_rows[key][r]]
            if [int(v) for v in o[key]] != kv:
                return f"{where}: round {r} {key}: kernel {kv} reference {o[key]}"
    return None


R4 = ("random", "greedy", "careful", "random")
#: (players, seats, rules, games): every player count of the brief, every rule value, every
#: built-in strategy.
CASES = [
    (2, ("random", "random"), {}, 120),
    (2, ("greedy", "careful"), {"reverse_two_players": "none", "rounds": 3}, 40),
    (2, ("random", "greedy"), {"trade_pick": "seen", "last_discard_wins": True}, 80),
    (3, ("random", "greedy", "careful"), {}, 100),
    (3, ("random",) * 3, {"claim_turn": "jump", "exhausted": "no_winner"}, 100),
    (4, R4, {}, 120),
    (4, R4, {"self_melds": "any", "rounds": 2}, 60),  # AT-07 variant (default before 2026-12-02)
    (4, ("random",) * 4, {"all_wild_melds": True}, 100),
    (4, ("careful", "random", "greedy", "random"), {"forced_claims": False}, 100),
    # the revised rulings' old readings (AT-14 nearest_win, AT-26 self_melds_shown) and both
    (4, R4, {"claim_priority": "nearest_win"}, 100),
    (5, ("random", "greedy", "careful", "random", "careful"), {"self_melds_shown": True}, 100),
    (
        5,
        ("random",) * 5,
        {"claim_priority": "nearest_win", "self_melds_shown": True, "forced_claims": False},
        80,
    ),
    (4, R4, {"claim_turn": "jump", "trade_pick": "seen"}, 100),
    (4, ("random",) * 4, {"last_discard_wins": True, "turn_cap": 40, "rounds": 3}, 50),
    (6, ("random", "greedy", "careful") * 2, {}, 100),
    (
        6,
        ("random",) * 6,
        {"exhausted": "no_winner", "all_wild_melds": True, "forced_claims": False},
        80,
    ),
    (6, ("random",) * 6, {"self_melds": "any", "claim_turn": "jump"}, 80),
    (4, ("greedy", "careful", "greedy", "random"), {"self_melds": "any"}, 100),
    (10, ("random", "greedy") * 5, {}, 80),
    (10, ("random",) * 10, {"trade_pick": "seen", "last_discard_wins": True, "rounds": 2}, 50),
    (10, ("careful",) * 10, {"claim_turn": "jump", "turn_cap": 25}, 60),
]


def _agree(n, seats, rules, games: range) -> None:
    bad = [d for gi in games if (d := disagreement(7, gi, n, seats, rules))]
    assert not bad, f"{len(bad)} of {len(games)} games disagree; first: {bad[0]}"


@pytest.mark.parametrize("n,seats,rules,games", CASES)
def test_kernel_agrees_with_reference(n, seats, rules, games):
    """The fast tier: the first quarter of each case's games (every player count, rule value
    and strategy; docs/testing.md)."""
    _agree(n, seats, rules, range(games // 2))


@pytest.mark.heavy
@pytest.mark.parametrize("n,seats,rules,games", CASES)
def test_kernel_agrees_with_reference_on_the_other_games(n, seats, rules, games):
    """The heavy tier: the other three quarters (together 2 × games per case)."""
    _agree(n, seats, rules, range(games // 2, 2 * games))


def test_agreement_covers_enough():
    rounds = sum(2 * g * r.get("rounds", 1) for _, _, r, g in CASES)
    assert rounds >= 2000
    assert {n for n, *_ in CASES} == {2, 3, 4, 5, 6, 10}
    values = {(k, v) for _, _, r, _ in CASES for k, v in r.items()}
    for opt in ENGINE.rule_options:
        if opt.kind == "choice":
            assert all((opt.name, c) in values for c in opt.choices if c != opt.default), opt.name
        elif opt.kind == "bool":
            assert (opt.name, not opt.default) in values, opt.name
    assert {s for _, seats, _, _ in CASES for s in seats} == set(IDS)


def test_engine_replay_log_comes_from_the_reference():
    from cardsim.sim.game import RunConfig

    c = RunConfig("atlas", 3, ("greedy", "random", "careful"), {"rounds": 2}, 4, 10)
    text = ENGINE.replay(c, 2)
    assert isinstance(text, str) and text.count("\n") > 20


@pytest.mark.slow
def test_kernel_agrees_with_reference_100k_rounds():
    strategies = list(IDS)
    variants = [{}] + [
        {o.name: c} for o in ENGINE.rule_options if o.kind == "choice" for c in o.choices
        if c != o.default
    ] + [{o.name: not o.default} for o in ENGINE.rule_options if o.kind == "bool"]  # fmt: skip
    gen = np.random.default_rng(2024)
    rounds = 0
    gi = 0
    while rounds < 100_000:
        n = int(gen.choice([2, 3, 4, 5, 6, 7, 8, 9, 10]))
        seats = tuple(strategies[int(i)] for i in gen.integers(0, 3, n))
        rules = dict(variants[gi % len(variants)])
        rules.update(variants[int(gen.integers(len(variants)))])
        bad = disagreement(99, gi, n, seats, rules)
        assert bad is None, bad
        rounds += rules.get("rounds", 1)
        gi += 1
