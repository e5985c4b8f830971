"""ATLAS design parameters (docs/RULES-atlas.md "Design parameters", AT-D1 … AT-D4).

Each parameter changes what it must (the deal, the deck, the action cards, the score), the
defaults are the printed game, a deal the deck cannot make is a one-line error (exit 2), and the
kernel agrees with the reference on sampled non-default values. Only the built-in driver is
used (no new compilation beyond the ATLAS kernels every ATLAS test compiles).
"""

from collections import Counter

import numpy as np
import polars as pl
import pytest
from cardsim.kernels.atlas import driver as D
from cardsim.kernels.atlas import pimc
from cardsim.kernels.atlas import rules as RL
from cardsim.kernels.atlas import state as ST
from cardsim.kernels.atlas.encoding import (
    ATLAS,
    DISCARD,
    GIVE,
    MAX_CARDS,
    N_TYPES,
    REVERSE,
    SKIP,
    TAKE,
    TRADE,
)
from cardsim.kernels.atlas.options import OPTIONS, deck_size
from cardsim.kernels.rng import new_stream
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.games.atlas import ENGINE, rules_array
from cardsim.sim.games.atlas.reference import rules as ref

from tests.games.atlas.test_agreement import IDS, disagreement
from tests.test_cli import cardsim

DESIGN = {
    "hand_size": (13, "AT-D1", 7, 20),
    "atlas_cards": (6, "AT-D2", 0, 12),
    "skip_cards": (6, "AT-D3", 0, 12),
    "reverse_cards": (6, "AT-D3", 0, 12),
    "trade_cards": (6, "AT-D3", 0, 12),
    "atlas_value": (3, "AT-D4", 0, 20),
    "action_value": (2, "AT-D4", 0, 20),
    "matching_value": (1, "AT-D4", 0, 20),
}
NO_ACTIONS = {"skip_cards": 0, "reverse_cards": 0, "trade_cards": 0}


def config(rules, players=4, games=30, strategy="greedy", seed=3):
    return build_config(ENGINE, games=games, seed=seed, players=players, strategy=strategy,
                        rules=rules)  # fmt: skip


def play(rules, players=4, games=30, strategy="greedy", seed=3):
    c = config(rules, players, games, strategy, seed)
    return ENGINE.play_chunk(c, 0, games)


# ---- the table ------------------------------------------------------------------------------
def test_design_parameters_are_integer_rule_options_with_ranges(capsys):
    import json

    for name, (default, ruling, lo, hi) in DESIGN.items():
        o = OPTIONS[name]
        assert (o.kind, o.default, o.ruling, o.min, o.max) == ("int", default, ruling, lo, hi)
    # the readings keep their offsets; the design parameters follow them
    assert [o.name for o in OPTIONS][-len(DESIGN) :] == list(DESIGN)
    assert deck_size(OPTIONS.defaults()) == 204
    assert MAX_CARDS == 180 + 4 * 12 == ST.LAYOUT[[n for n, _ in ST.LAYOUT].index("PILE")][1]
    code, out, _ = cardsim(capsys, "rules", "atlas", "--json")
    shown = {r["name"]: (r["min"], r["max"], r["ruling"]) for r in json.loads(out)}
    assert code == 0 and all(shown[k] == (v[2], v[3], v[1]) for k, v in DESIGN.items())


def test_defaults_are_the_printed_game_in_both_engines():
    """The defaults deal the 204-card deck, 13 each, and score 3 / 2 / 1 (AT-01, AT-03, AT-05)."""
    (deck,) = ref.deal_from_seed(5, 1, 4, 1, ref.specials(ref.check_rules()))
    assert len(deck) == 204 and Counter(deck)[ATLAS] == 6
    assert ref.hand_values(ref.check_rules()) == (3, 2, 1)
    S = ST.new_state()
    ST.reset_round(S, 4, 0)
    assert S[ST.P_HAND_SIZE] == 13 and list(S[ST.P_DECK : ST.P_DECK + 4]) == [6] * 4
    assert list(S[ST.P_VALUES : ST.P_VALUES + 3]) == [3, 2, 1]


# ---- AT-D1: the deal and its bound ----------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 10])
def test_d1_hand_size_10_deals_10_cards_to_every_seat(n):
    rules = {"hand_size": 10}
    R = rules_array(rules, n)
    S = ST.new_state()
    ST.reset_round(S, n, 0)
    RL.set_design(S, R)
    ST.deal(S, new_stream(np.uint64(9), 3, 0), n)
    assert [int(S[ST.P_SIZES + p]) for p in range(n)] == [10] * n
    assert S[ST.P_DRAW] == 204 - 10 * n and S[ST.H_PILE_POS] == 10 * n
    (deck,) = ref.deal_from_seed(9, 3, n)
    hands, pile = ref.deal_hands(deck, n, 10)
    assert [len(h) for h in hands] == [10] * n and len(pile) == 204 - 10 * n
    for p in range(n):  # the same cards as the reference deals
        assert sorted(hands[p]) == [
            t for t in range(N_TYPES) for _ in range(S[ST.HANDS + 64 * p + t])
        ]
    # in play: the first decision's snapshot, seat 0 has drawn one card (AT-06)
    tr = D.run_trace(9, 3, n, np.ones(n, np.int64), R, level=1, snap_at=0)
    sizes = [int(tr.snapshot[ST.P_SIZES + p]) for p in range(n)]
    assert sizes == [11] + [10] * (n - 1)  # before its first self-meld or discard


def test_d1_a_deal_the_deck_cannot_make_is_one_line_exit_2(capsys, tmp_path):
    ok = config({"hand_size": 20}, players=9)  # 180 of 204 cards dealt
    assert ok.rules["hand_size"] == 20
    with pytest.raises(CardsimError, match=r"hand_size: 20 cards × 10 players = 200.*at most 19"):
        config({"hand_size": 20, "atlas_cards": 0}, players=10)  # 198-card deck
    with pytest.raises(CardsimError, match="at most 17"):
        config({"hand_size": 18, **NO_ACTIONS, "atlas_cards": 0}, players=10)  # 180 cards
    with pytest.raises(CardsimError, match="integer 7..20"):
        config({"hand_size": 21})
    with pytest.raises(CardsimError, match="integer 0..12"):
        config({"skip_cards": 13})
    out = tmp_path / "run"
    code, _, err = cardsim(
        capsys, "run", "atlas", "--games", 5, "--players", 10, "--rule", "hand_size=20",
        "--rule", "atlas_cards=0", "--out", out,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "at most 19" in err and "Traceback" not in err
    assert not out.exists()
    with pytest.raises(ValueError, match="AT-D1"):  # the reference checks the same bound
        ref.play_match(0, 0, 10, ref.random_chooser(0), {"hand_size": 20, "atlas_cards": 0})


# ---- AT-D2, AT-D3: the deck ------------------------------------------------------------------
def test_d2_no_atlas_cards_never_deals_or_draws_a_wild():
    rules = {"atlas_cards": 0}
    (deck,) = ref.deal_from_seed(3, 0, 4, 1, ref.specials(ref.check_rules(rules)))
    assert len(deck) == 198 and ATLAS not in deck
    games, seats = play(rules, players=4, games=40, strategy="random")
    assert seats["atlas_dealt"].max() == 0 and games["atlas_used"].max() == 0
    R = rules_array(rules, 4)
    for gi in range(4):  # every state of the game: no ATLAS anywhere, no ATLAS option ever
        tr = D.run_trace(3, gi, 4, np.zeros(4, np.int64), R, level=2, snap_at=-2)
        for i in range(len(tr.decisions)):
            assert not {DISCARD + ATLAS, GIVE + ATLAS, TAKE + ATLAS} & set(
                tr.options_of(i).tolist()
            )
        hands = tr.snapshot[:, ST.HANDS : ST.HANDS + 64 * 10].reshape(-1, 10, 64)
        assert hands[:, :, ATLAS].max() == 0
        assert (tr.snapshot[:, ST.PILE : ST.PILE + MAX_CARDS] != ATLAS).all()
        assert (tr.windows[:, 2] != ATLAS).all()


def test_d2_twelve_atlas_cards_are_all_in_the_deck():
    """With 12 ATLAS (a 210-card deck) a round's seats are dealt up to 12 of them, more than the
    printed 6 in some rounds (10 seats × 13 = 130 of 210 cards: about 7.4 dealt on average)."""
    games, seats = play({"atlas_cards": 12}, players=10, games=30, strategy="random")
    per_round = seats.group_by("game", "round").agg(pl.col("atlas_dealt").sum())
    assert per_round["atlas_dealt"].max() <= 12 and per_round["atlas_dealt"].max() > 6


def test_d3_no_action_cards_never_skip_reverse_or_trade():
    games, seats = play(NO_ACTIONS, players=5, games=40, strategy="random")
    assert games["skips"].sum() == games["reverses"].sum() == games["trades"].sum() == 0
    assert games["direction_changes"].sum() == 0
    for col in ("skip_dealt", "reverse_dealt", "trade_dealt"):
        assert seats[col].max() == 0
    tr = D.run_trace(3, 1, 5, np.zeros(5, np.int64), rules_array(NO_ACTIONS, 5), level=2)
    actions = {DISCARD + t for t in (SKIP, REVERSE, TRADE)}
    assert all(not actions & set(tr.options_of(i).tolist()) for i in range(len(tr.decisions)))
    # only TRADE: trades happen, skips and reverses do not (each count acts on its own card)
    games, _ = play({**NO_ACTIONS, "trade_cards": 12}, players=5, games=40, strategy="random")
    assert games["trades"].sum() > 0 and games["skips"].sum() == games["reverses"].sum() == 0
    m = ref.play_match(3, 1, 5, ref.random_chooser(2), NO_ACTIONS)
    assert not any(w in line for line in m.log for w in ("SKIP:", "REVERSE:", "TRADE:"))


# ---- AT-D4: the hand values -----------------------------------------------------------------
def test_d4_hand_values_change_the_points_and_nothing_else():
    """Greedy and random never read the values, so on the same deals the play is identical and a
    seat's hand value is linear in (atlas_value, action_value, matching_value)."""

    def run(a, b, c):
        v = {"atlas_value": a, "action_value": b, "matching_value": c}
        return play(v, players=4, games=60, strategy="random", seed=8)

    base_g, base_s = run(3, 2, 1)
    parts = [run(1, 0, 0)[1]["hand_value"], run(0, 1, 0)[1]["hand_value"],
             run(0, 0, 1)[1]["hand_value"]]  # fmt: skip
    ones = run(1, 1, 1)[1]
    assert (ones["hand_value"] == ones["cards_left"]).all()
    for a, b, c in ((3, 2, 1), (20, 0, 5), (0, 0, 0)):
        g, s = run(a, b, c)
        assert (g["turns"] == base_g["turns"]).all() and (g["winner"] == base_g["winner"]).all()
        assert (s["hand_value"] == a * parts[0] + b * parts[1] + c * parts[2]).all()
        losers = s.filter(~s["won"]).group_by("game", "round").agg(pl.col("hand_value").sum())
        won = g.filter(g["winner"] >= 0).join(losers, on=["game", "round"])
        assert (won["winner_points"] == won["hand_value"]).all()
        assert (s.filter(s["won"])["points"].sum()) == g["winner_points"].sum()
    assert run(20, 0, 5)[0]["winner_points"].sum() != base_g["winner_points"].sum()
    hand = ref.hand_counts(["ATLAS", "SKIP", "TRADE", "Lion", "Tiger"])
    assert ref.hand_value(hand, (20, 0, 5)) == 20 + 0 + 0 + 5 + 5


# ---- pimc reads the deck from the state ------------------------------------------------------
def test_pimc_determinizes_the_runs_deck():
    """AT-D2, AT-D3: pimc's unseen pool is the run's deck (12 ATLAS, no SKIP), not the printed
    one: every determinized state holds exactly that deck, less the face-down melds."""
    rules = {"atlas_cards": 12, "skip_cards": 0, "hand_size": 9}
    R = rules_array(rules, 3)
    copies = np.array([3] * 60 + [12, 0, 6, 6])
    tr = D.run_trace(6, 2, 3, np.ones(3, np.int64), R, level=1, snap_at=-2)
    pool = np.zeros(256, np.int32)
    Dst = np.zeros(ST.S_LEN, np.int32)
    rng = new_stream(np.uint64(1), 0, 2)
    checked = 0
    for row in tr.snapshot[::3]:
        if row[ST.S_LEN + 1] != 2:  # pimc searches discards only (no card under claim then)
            continue
        S = row[: ST.S_LEN].copy()
        me = int(row[ST.S_LEN])
        assert pimc.determinize(S, me, pool, Dst, rng)
        n = int(S[ST.P_N])
        held = Dst[ST.HANDS : ST.HANDS + 64 * n].reshape(n, 64).sum(0)
        pile = np.bincount(Dst[ST.PILE : ST.PILE + Dst[ST.P_DRAW]], minlength=64)
        seen = Dst[ST.P_MELDED : ST.P_MELDED + 64] + Dst[ST.P_DISCC : ST.P_DISCC + 64]
        total = held + pile + seen
        assert (total <= copies).all() and total[SKIP] == 0
        assert total.sum() + S[ST.P_FD_CARDS : ST.P_FD_CARDS + n].sum() == copies.sum()
        checked += 1
    assert checked >= 5


# ---- kernel vs reference on sampled non-default values --------------------------------------
def sampled_cases(count=8, seed=14):
    """``count`` random design-parameter combinations (every parameter away from its default in
    some case, the deal bound respected), each with a random player count, seats and reading."""
    gen = np.random.default_rng(seed)
    readings = [{}, {"claim_turn": "jump"}, {"trade_pick": "seen"}, {"forced_claims": False},
                {"last_discard_wins": True}, {"rounds": 2}]  # fmt: skip
    cases = [
        (10, {"hand_size": 17, **NO_ACTIONS, "atlas_cards": 0}),  # 180 cards, 170 dealt
        (2, {"hand_size": 7, "atlas_cards": 12, "skip_cards": 12, "reverse_cards": 12,
             "trade_cards": 12, "atlas_value": 0, "action_value": 20, "matching_value": 0}),
    ]  # fmt: skip
    while len(cases) < count:
        n = int(gen.integers(2, 11))
        rules = {k: int(gen.integers(lo, hi + 1)) for k, (_, _, lo, hi) in DESIGN.items()}
        if rules["hand_size"] * n >= deck_size({**OPTIONS.defaults(), **rules}):
            continue
        rules.update(readings[len(cases) % len(readings)])
        cases.append((n, rules))
    return [(n, tuple(str(s) for s in gen.choice(list(IDS), n)), rules) for n, rules in cases]


@pytest.mark.parametrize("n,seats,rules", sampled_cases())
def test_kernel_agrees_with_reference_on_sampled_design_parameters(n, seats, rules):
    bad = [d for gi in range(5) if (d := disagreement(21, gi, n, seats, rules))]
    assert not bad, f"{len(bad)} of 5 games disagree; first: {bad[0]}"


def test_sampled_cases_move_every_design_parameter():
    cases = sampled_cases()
    for name, (default, *_) in DESIGN.items():
        assert any(r[name] != default for _, _, r in cases if name in r), name
