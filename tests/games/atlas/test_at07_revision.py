"""AT-07, revised 2026-12-02: self-melds are the right of the discarder's next player who has
just claimed (「下家配對打出之牌後，仍須抽牌及打牌，唯抽牌後可按手上牌再配對，次數不限」); the
default is ``self_melds=after_claim_only``, ``any`` the variant. Also AT-14's ``describe`` of a
優先配 claim (issue 19 #14)."""

import polars as pl
from cardsim.kernels.atlas.rules import R_SELF_MELDS
from cardsim.sim.game import RunConfig
from cardsim.sim.games.atlas import ENGINE, rules_array
from cardsim.sim.games.atlas.reference import rules as atlas
from polars.testing import assert_frame_equal

from tests.games.atlas.test_rules_play import DISCARD, QUIET, play


def test_at07_after_claim_only_is_the_default_in_every_layer():
    opt = {o.name: o for o in ENGINE.rule_options}["self_melds"]
    assert (opt.default, opt.ruling) == ("after_claim_only", "AT-07")
    assert set(opt.choices) == {"after_claim_only", "any"}
    assert atlas.RULE_DEFAULTS["self_melds"] == "after_claim_only"
    assert rules_array({})[R_SELF_MELDS] == 1  # kernel code 1 = after_claim_only
    assert rules_array({"self_melds": "any"})[R_SELF_MELDS] == 0


def test_at07_reference_default_offers_no_self_meld_in_an_ordinary_turn():
    # seat 0 draws Tiger and could lay Orangutan/Giant Panda/Tiger; it did not claim: no meld
    hands = [["Orangutan", "Giant Panda", "Lion"], QUIET[1]]
    r, s = play(hands, ["Tiger"], rules={"turn_cap": 1})
    assert [t for _, t, _ in s.asked] == [DISCARD]
    r, s = play(hands, ["Tiger"], rules={"turn_cap": 1, "self_melds": "any"})
    assert [t for _, t, _ in s.asked][0] != DISCARD  # the variant offers the self-meld first


def _tables(rules: dict, games: int = 400) -> pl.DataFrame:
    config = RunConfig("atlas", 4, ("greedy",) * 4, rules, seed=5, games=games)
    return ENGINE.play_chunk(config, 0, games)[0]


def test_at07_kernel_default_is_after_claim_only_and_differs_from_any():
    default, explicit, anyone = (
        _tables({}),
        _tables({"self_melds": "after_claim_only"}),
        _tables({"self_melds": "any"}),
    )
    assert_frame_equal(default, explicit)
    # fewer self-melds and longer rounds when only a claimant may self-meld (measured in
    # docs/RULES-atlas.md AT-07: 45.7 -> 59.5 turns, self-meld endings 16.6 % -> 1.4 %)
    assert default["self_melds"].sum() < anyone["self_melds"].sum() / 3
    assert default["turns"].mean() > anyone["turns"].mean() + 5


def test_at14_describe_finds_the_youxian_triple_without_being_told():
    hand = ["Giant Panda", "Giant Panda", "Tiger"]
    # the round gives up the two Giant Pandas (AT-14 text); describe says so by default
    assert atlas.describe(33, hand, "Giant Panda").endswith("giving up Giant Panda ×2")
    assert atlas.describe(33, hand, "Giant Panda", same_species=True) == atlas.describe(
        33, hand, "Giant Panda"
    )
    # nearest_win: no same-species rule, the fewest-copies cards go
    text = atlas.describe(33, hand, "Giant Panda", claim_priority="nearest_win")
    assert text.endswith("giving up Tiger, Giant Panda")
