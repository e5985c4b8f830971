"""The ATLAS engine over the kernel: options, seats, tables, determinism, user strategies."""

from pathlib import Path

import numba
import polars as pl
import pytest
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.games import get_engine
from cardsim.sim.games.atlas import ENGINE, rules_array
from polars.testing import assert_frame_equal

ROOT = Path(__file__).resolve().parents[3]


def cfg(n=4, seats=None, rules=None, seed=5, games=100):
    return RunConfig("atlas", n, tuple(seats or ["greedy"] * n), rules or {}, seed, games)


def test_engine_registered_with_the_option_names():
    eng = get_engine("atlas")
    assert eng is ENGINE and eng.name == "atlas" and eng.default_players == 4
    assert eng.player_counts == tuple(range(2, 11))
    names = {o.name: (o.default, o.ruling) for o in eng.rule_options}
    assert names == {
        "self_melds": ("after_claim_only", "AT-07"),
        "all_wild_melds": (False, "AT-11"),
        "forced_claims": (True, "AT-12"),
        "claim_priority": ("text", "AT-14"),
        "claim_turn": ("stay", "AT-15"),
        "reverse_two_players": ("skip", "AT-18"),
        "trade_pick": ("blind", "AT-19"),
        "self_melds_shown": (False, "AT-26"),
        "last_discard_wins": (False, "AT-22"),
        "exhausted": ("reshuffle", "AT-23"),
        "turn_cap": (2000, "AT-23"),
        "rounds": (1, "AT-25"),
        # design parameters (docs/RULES-atlas.md "Design parameters")
        "hand_size": (13, "AT-D1"),
        "atlas_cards": (6, "AT-D2"),
        "skip_cards": (6, "AT-D3"),
        "reverse_cards": (6, "AT-D3"),
        "trade_cards": (6, "AT-D3"),
        "atlas_value": (3, "AT-D4"),
        "action_value": (2, "AT-D4"),
        "matching_value": (1, "AT-D4"),
    }
    tc = next(o for o in eng.rule_options if o.name == "turn_cap")
    assert (tc.min, tc.max) == (1, 1_000_000)  # one validator for every layer (issue 9)


def test_rules_array_layout():
    design = [13, 6, 6, 6, 6, 3, 2, 1]  # AT-D1 … AT-D4 defaults, after the readings
    assert list(rules_array({})) == [1, 0, 1, 0, 0, 0, 0, 0, 2000, 1, 0, 0, *design]  # AT-07 rev.
    full = {
        "self_melds": "after_claim_only", "all_wild_melds": True, "forced_claims": "false",
        "claim_turn": "jump", "reverse_two_players": "none", "trade_pick": "seen",
        "last_discard_wins": True, "exhausted": "no_winner", "turn_cap": "77", "rounds": 3,
        "claim_priority": "nearest_win", "self_melds_shown": "true",
    }  # fmt: skip
    assert list(rules_array(full)) == [1, 1, 0, 1, 1, 1, 1, 1, 77, 3, 1, 1, *design]


@pytest.mark.parametrize(
    "bad",
    [
        {"nope": 1},
        {"claim_turn": "sideways"},
        {"turn_cap": 0},
        {"rounds": 101},
        {"forced_claims": "maybe"},
    ],
)
def test_bad_rules_raise_with_allowed_values(bad):
    with pytest.raises(CardsimError, match="allowed"):
        rules_array(bad)


def test_bad_strategy_names_raise():
    with pytest.raises(CardsimError, match="allowed: random, greedy, careful"):
        ENGINE.play_chunk(cfg(seats=["greedy", "smart", "random", "random"]), 0, 1)
    with pytest.raises(CardsimError):
        ENGINE.play_chunk(cfg(seats=["greedy"] * 3), 0, 1)
    with pytest.raises(CardsimError):
        ENGINE.play_chunk(cfg(n=11, seats=["greedy"] * 11), 0, 1)
    with pytest.raises(CardsimError, match="not found"):
        ENGINE.play_chunk(cfg(seats=["nowhere.py:f", "random", "random", "random"]), 0, 1)


def test_tables_columns_and_types():
    g, s = ENGINE.play_chunk(
        cfg(rules={"rounds": 2}, seats=["greedy", "random", "careful", "greedy"]), 10, 5
    )
    assert g.height == 10 and s.height == 40
    assert g.columns[:6] == [
        "game",
        "round",
        "players",
        "first_player",
        "direction_changes",
        "winner",
    ]
    for c in ("end", "turns", "reshuffles", "winner_points", "triples", "quads", "fives",
              "youxian_claims", "last_card_pairs", "claims", "self_melds", "skips", "reverses",
              "trades", "atlas_used", "strategy_s0", "strategy_s3"):  # fmt: skip
        assert c in g.columns
    assert g["game"].to_list() == [10, 10, 11, 11, 12, 12, 13, 13, 14, 14]
    assert g.schema["end"] == pl.Enum(
        ["claim", "self_meld", "last_card_draw", "last_card_claim", "action_card", "no_winner",
         "turn_cap", "last_discard"]
    )  # fmt: skip
    assert s.columns == [
        "game", "round", "seat", "position", "strategy", "atlas_dealt", "skip_dealt",
        "reverse_dealt", "trade_dealt", "cards_left", "hand_value", "points", "won",
        "melds_by_seat", "claims_by_seat",
    ]  # fmt: skip
    assert s.filter(pl.col("seat") == 2)["strategy"].unique().to_list() == ["careful"]
    dealt = s.group_by("game", "round").agg(pl.col("atlas_dealt").sum())
    assert dealt["atlas_dealt"].max() <= 6


@pytest.mark.parametrize("n", [2, 4, 10])
def test_identical_rows_for_any_chunking_and_thread_count(n):
    c = cfg(
        n=n,
        seats=["random", "greedy", "careful"][: min(n, 3)] + ["random"] * (n - 3),
        rules={"rounds": 2},
    )
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        whole = ENGINE.play_chunk(c, 0, 60)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        parts = [ENGINE.play_chunk(c, a, b - a) for a, b in ((0, 7), (7, 30), (30, 31), (31, 60))]
    finally:
        numba.set_num_threads(old)
    for k in range(2):
        assert_frame_equal(whole[k], pl.concat([p[k] for p in parts]))


def test_seed_changes_results():
    a = ENGINE.play_chunk(cfg(seed=1), 0, 30)[0]
    b = ENGINE.play_chunk(cfg(seed=2), 0, 30)[0]
    assert not a.equals(b)


def test_user_strategy_example_runs_and_is_deterministic():
    spec = str(ROOT / "examples" / "atlas_strategy.py") + ":choose"
    c = cfg(n=3, seats=[spec, "random", spec])
    g1, s1 = ENGINE.play_chunk(c, 0, 40)
    g2, s2 = ENGINE.play_chunk(c, 20, 20)
    assert_frame_equal(g1.slice(20), g2)
    labels = ["atlas_strategy:choose", "random"]
    assert s1["strategy"].cast(pl.String).unique().sort().to_list() == labels
    # it plays sensibly: it wins far more than the random seat
    won = s1.group_by("seat").agg(pl.col("won").sum()).sort("seat")["won"].to_list()
    assert won[0] + won[2] > 3 * won[1]
    with pytest.raises(CardsimError, match="no function"):
        ENGINE.play_chunk(cfg(n=2, seats=[spec.replace(":choose", ":nothing"), "random"]), 0, 1)
