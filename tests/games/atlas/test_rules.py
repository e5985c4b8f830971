"""ATLAS reference rules, part 1: cards, deal, options, melds, claim options and priority.

Each test cites its ruling (RULINGS.md AT-nn); meld codes are ``kind | loc << 2 | wild << 7``
(docs/atlas-protocol.md §2). Scripted play is in test_rules_play.py, random playouts in
test_rules_invariants.py.
"""

from collections import Counter

import numpy as np
import pytest
from cardsim.kernels import rng
from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference import rules as atlas

PAIR = enc.PAIR
OPT = {"forced_claims": False}  # AT-12 variant: claiming is optional (NONE is offered)


def triple(cell: int, w: int = 0) -> int:
    return int(enc.pack_meld(enc.TRIPLE, cell, w))


def quad(continent: int, mask: int = 0) -> int:
    return int(enc.pack_meld(enc.QUAD, continent, mask))


def five(cls: int, mask: int = 0) -> int:
    return int(enc.pack_meld(enc.FIVE, cls, mask))


ASIA_LAND = 2 * 4 + 0  # cell = continent * 4 + class


# ---- cards (AT-01, AT-02, AT-05) ------------------------------------------------------------
def test_at01_deck_has_204_cards_3_per_species_6_per_special():
    """The printed deck (the defaults of AT-D2, AT-D3); other compositions: test_at03 below and
    tests/games/atlas/test_design_params.py."""
    deck = enc.canonical_deck()
    counts = Counter(int(c) for c in deck)
    assert len(deck) == 204  # 180 matching + 4 × 6 specials
    assert all(counts[s] == 3 for s in range(60))  # 60 species × 3 = 180
    assert [counts[t] for t in (60, 61, 62, 63)] == [6, 6, 6, 6]
    assert [atlas.name(t) for t in (60, 61, 62, 63)] == ["ATLAS", "SKIP", "REVERSE", "TRADE"]
    assert atlas.is_action("SKIP") and atlas.is_action("reverse") and atlas.is_action("Trade")
    assert not atlas.is_action("ATLAS") and atlas.is_wild("atlas") and not atlas.is_wild("Lion")


def test_at02_sixty_species_five_continents_four_classes_three_each():
    cells = Counter((atlas.continent(s), atlas.card_class(s)) for s in range(60))
    assert len(cells) == 20 and set(cells.values()) == {3}  # 5 × 4 cells × 3 species
    assert atlas.continent("Giant Panda") == "Asia" and atlas.card_class("Giant Panda") == "Land"
    assert atlas.continent("kauri tree") == "Australia & New Zealand"
    assert atlas.card_class("Kauri Tree") == "Plant"
    assert atlas.card_class("Teardrop Butterflyfish") == "Water"
    assert atlas.continent("Bald Eagle") == "America" and atlas.card_class("Bald Eagle") == "Bird"
    # the 12 European species are marked placeholders
    europe = [atlas.name(s) for s in range(60) if atlas.continent(s) == "Europe"]
    assert len(europe) == 12 and all(n.startswith("Europe ") for n in europe)
    assert atlas.card_class("Europe Water 2") == "Water"
    assert atlas.continent("ATLAS") is None and atlas.card_class("SKIP") is None
    with pytest.raises(ValueError):
        atlas.card("Unicorn")


def test_at05_hand_values_atlas_3_action_2_matching_1():
    hand = atlas.hand_counts(["ATLAS", "SKIP", "REVERSE", "TRADE", "Lion", "Europe Bird 1"])
    assert atlas.hand_value(hand) == 3 + 2 + 2 + 2 + 1 + 1


# ---- rule options ---------------------------------------------------------------------------
def test_rule_defaults_are_exactly_the_rulings_defaults():
    assert atlas.RULE_DEFAULTS == {
        "self_melds": "after_claim_only",  # AT-07 (revised 2026-12-02)
        "all_wild_melds": False,  # AT-11
        "forced_claims": True,  # AT-12 (revised 2026-12-01)
        "claim_priority": "text",  # AT-14 (revised 2026-12-01)
        "claim_turn": "stay",  # AT-15
        "reverse_two_players": "skip",  # AT-18
        "trade_pick": "blind",  # AT-19
        "self_melds_shown": False,  # AT-26 (revised 2026-12-01)
        "last_discard_wins": False,  # AT-22
        "exhausted": "reshuffle",  # AT-23
        "turn_cap": 2000,  # AT-23
        "rounds": 1,  # AT-25
        # design parameters: the printed game (AT-D1 … AT-D4)
        "hand_size": 13,  # AT-D1 (AT-03)
        "atlas_cards": 6,  # AT-D2 (AT-01)
        "skip_cards": 6,  # AT-D3 (AT-01)
        "reverse_cards": 6,
        "trade_cards": 6,
        "atlas_value": 3,  # AT-D4 (AT-05)
        "action_value": 2,
        "matching_value": 1,
    }
    assert atlas.check_rules(None) == atlas.RULE_DEFAULTS
    assert atlas.check_rules({"claim_turn": "jump"})["claim_turn"] == "jump"


@pytest.mark.parametrize(
    "bad",
    [
        {"no_such_rule": 1},
        {"self_melds": "never"},
        {"all_wild_melds": "maybe"},  # text is parsed as on the CLI: "yes"/"no" are valid
        {"forced_claims": 1},
        {"claim_turn": "fly"},
        {"claim_priority": "nearest"},
        {"self_melds_shown": "perhaps"},
        {"reverse_two_players": "double"},
        {"trade_pick": "peek"},
        {"exhausted": "restart"},
        {"turn_cap": 0},
        {"turn_cap": True},
        {"rounds": "two"},  # "2" is the CLI's text for 2: one validator (kernels/options.py)
    ],
)
def test_bad_rule_options_raise_value_error(bad):
    with pytest.raises(ValueError):
        atlas.check_rules(bad)
    with pytest.raises(ValueError):
        atlas.play_match(0, 0, 3, atlas.random_chooser(0), bad)


# ---- deal (AT-03, AT-04, protocol §1) -------------------------------------------------------
DECKS = [{}, {"hand_size": 17, "atlas_cards": 0, "skip_cards": 0, "reverse_cards": 3}]


@pytest.mark.parametrize("design", DECKS)
@pytest.mark.parametrize("n", range(2, 11))
def test_at03_thirteen_cards_each_and_the_draw_pile(n, design):
    """AT-03 deal; it adapts to the design parameters (AT-D1 … AT-D3): 13 cards each from the
    204-card deck by default, and 17 each from a 189-card deck (no ATLAS, no SKIP, 3 REVERSE)
    where the deck allows it (10 players × 17 = 170 < 189)."""
    rules = atlas.check_rules(design, n)
    hs, specials = rules["hand_size"], atlas.specials(rules)
    (deck,) = atlas.deal_from_seed(42, 3, n, 1, specials)
    hands, pile = atlas.deal_hands(deck, n, hs)
    size = 180 + sum(specials)
    assert len(deck) == size == (204 if not design else 189)
    assert [len(h) for h in hands] == [hs] * n
    assert len(pile) == size - hs * n  # e.g. default 2 players: 178, 10 players: 74
    assert hands[n - 1][0] == deck[n - 1] and hands[0][1] == deck[n]  # deck[i] to seat i % n
    assert pile[0] == deck[hs * n]  # drawn from the front
    assert sorted(sum(hands, []) + pile) == sorted(int(c) for c in enc.canonical_deck(specials))


@pytest.mark.parametrize("specials", [(6, 6, 6, 6), (12, 0, 1, 12)])
def test_protocol_deal_stream_is_the_rth_shuffle_of_stream_0(specials):
    """Protocol §1; the shuffled deck is the design parameters' deck (AT-D2, AT-D3): 204 cards
    by default, 205 with 12 ATLAS, no SKIP, 1 REVERSE, 12 TRADE."""
    decks = atlas.deal_from_seed(7, 11, 4, 3, specials)
    state = rng.new_stream(np.uint64(7), np.uint64(11), 0)
    for r in range(3):
        d = enc.canonical_deck(specials)
        rng.shuffle(state, d, 180 + sum(specials))
        assert decks[r] == [int(c) for c in d]
    assert decks[0] != decks[1]  # a fresh shuffle per round
    assert atlas.deal_from_seed(7, 11, 4, 3, specials) == decks  # a function of (root, game) only
    assert atlas.deal_from_seed(7, 12, 4, 1, specials)[0] != decks[0]
    with pytest.raises(ValueError):
        atlas.deal_from_seed(7, 11, 11, 1)  # AT-03: 2 to 10 players
    with pytest.raises(ValueError):
        atlas.deal_from_seed(7, 11, 1, 1)


def test_at04_at06_seat_0_moves_first_and_draws_the_top_card():
    n = 5
    (deck,) = atlas.deal_from_seed(5, 2, n, 1)
    hands, pile = atlas.deal_hands(deck, n)
    m = atlas.play_match(5, 2, n, atlas.random_chooser(1))
    assert m.rounds[0]["first_player"] == 0
    first = m.decisions[0]
    assert first.seat == 0 and first.type in (atlas.SELF_MELD, atlas.DISCARD)
    seen = []
    atlas.play_match(5, 2, n, lambda v, t, o: seen.append(v) or o[0])
    assert list(seen[0].hand) == sorted(hands[0] + [pile[0]])  # 13 dealt + the top card
    assert seen[0].draw_pile_size == len(pile) - 1 and seen[0].direction == 1  # clockwise


# ---- melds (AT-10, AT-11) -------------------------------------------------------------------
def test_at10_meld_kinds():
    assert atlas.meld_kind(["Giant Panda", "Giant Panda", "Tiger"]) == "triple"  # same cell
    assert atlas.meld_kind(["Giant Panda", "Tiger", "Seahorse"]) is None  # Land + Water
    assert atlas.meld_kind(["Alpaca", "Whale", "Toucan", "Maple"]) == "quad"  # America, 4 classes
    assert atlas.meld_kind(["Alpaca", "Bison", "Toucan", "Maple"]) is None  # two Land
    assert atlas.meld_kind(["Alpaca", "Whale", "Toucan", "Lotus"]) is None  # two continents
    five_plants = ["Acacia", "Maple", "Lotus", "Kauri Tree", "Europe Plant 3"]
    assert atlas.meld_kind(five_plants) == "five"
    assert atlas.meld_kind(["Acacia", "Maple", "Lotus", "Kauri Tree", "Coolabah Tree"]) is None
    assert atlas.meld_kind(["Lion", "Lion"]) is None  # no 2-card meld (AT-10)
    assert atlas.meld_kind(["Lion"] * 4) is None


def test_at11_atlas_is_wild_but_a_meld_needs_a_natural_card():
    assert atlas.meld_kind(["Giant Panda", "ATLAS", "ATLAS"]) == "triple"
    assert atlas.meld_kind(["Alpaca", "ATLAS", "ATLAS", "Maple"]) == "quad"
    assert atlas.meld_kind(["Acacia", "ATLAS", "Lotus", "ATLAS", "ATLAS"]) == "five"
    assert atlas.meld_kind(["ATLAS"] * 3) is None
    assert atlas.meld_kind(["Lion", "Lion", "SKIP"]) is None  # action cards never meld


def test_at11_all_wild_melds_variant():
    assert atlas.meld_kind(["ATLAS"] * 3, all_wild_melds=True) == "triple"
    assert atlas.meld_kind(["ATLAS"] * 4, all_wild_melds=True) == "quad"
    assert atlas.meld_kind(["ATLAS"] * 5, all_wild_melds=True) == "five"
    hand = ["ATLAS"] * 4 + ["Lion"]
    assert 385 not in atlas.self_meld_options(hand)  # 385 = all-wild triple (1 | 0 | 3 << 7)
    opts = atlas.self_meld_options(hand, {"all_wild_melds": True})
    assert triple(0, 3) == 385 and 385 in opts and quad(0, 15) in opts  # loc 0 for all-wild
    assert five(0, 31) not in opts  # five ATLAS needed, four held
    # claiming an ATLAS discard with two ATLAS in hand: all-wild triple only under the variant
    wild = {"all_wild_melds": True}
    assert 385 in atlas.claim_options(["ATLAS", "ATLAS", "Lion"], "ATLAS", wild)
    assert 385 not in atlas.claim_options(["ATLAS", "ATLAS", "Lion"], "ATLAS")


def test_at07_at10_self_meld_options_every_wild_count():
    # Panda ×2 + Tiger + ATLAS: triple Asia Land with 0 or 1 ATLAS (w = 2 needs 2 ATLAS)
    hand = ["Giant Panda", "Giant Panda", "Tiger", "ATLAS", "Lion"]
    assert atlas.self_meld_options(hand) == [0, triple(ASIA_LAND, 0), triple(ASIA_LAND, 1)]
    assert atlas.self_meld_options(["Lion", "Tiger", "Whale"]) == []  # not asked
    # quad America: Alpaca, Whale, Toucan + ATLAS for the Plant slot (class bit 3 = 8)
    opts = atlas.self_meld_options(["Alpaca", "Whale", "Toucan", "ATLAS"])
    assert opts == [0, quad(1, 8)]


def test_protocol_cards_given_up_fewest_copies_then_lowest_id():
    h = atlas.hand_counts(["Giant Panda", "Giant Panda", "Tiger", "ATLAS"])
    # slot 1: Tiger (1 copy) before Panda (2); recount: Panda 2 → Panda; Panda
    assert atlas.given_up(h, triple(ASIA_LAND, 0)) == [26, 25, 25]
    # w = 1: two naturals (Tiger, then Panda), then the ATLAS
    assert atlas.given_up(h, triple(ASIA_LAND, 1)) == [26, 25, 60]
    # claim of Orangutan with w = 1: the hand gives one natural (Tiger, not Panda) + ATLAS
    assert atlas.given_up(h, triple(ASIA_LAND, 1), atlas.card("Orangutan")) == [26, 60]
    # ties go to the lowest id: Orangutan 24 < Giant Panda 25 < Tiger 26
    h3 = atlas.hand_counts(["Tiger", "Giant Panda", "Orangutan"])
    assert atlas.given_up(h3, triple(ASIA_LAND, 0)) == [24, 25, 26]
    text = atlas.describe(triple(ASIA_LAND, 1), ["Giant Panda"] * 2 + ["Tiger", "ATLAS"])
    assert text == "self-meld triple Asia Land: Tiger, Giant Panda, ATLAS"


# ---- claim options (AT-11, AT-12, AT-21) ----------------------------------------------------
def test_at12_claim_options_triples_with_wilds():
    hand = ["Giant Panda", "Tiger", "ATLAS"]
    # Orangutan fills its own slot: w = 0 (Panda + Tiger), w = 1 (one natural + ATLAS)
    assert atlas.claim_options(hand, "Orangutan", OPT) == [0, 33, 161]  # 33 + 128 w
    # an ATLAS discard fills a wild slot: w = 1 (Panda + Tiger); w = 2 needs an ATLAS + natural
    assert atlas.claim_options(hand, "ATLAS", OPT) == [0, 161, 289]
    assert atlas.claim_options(["Giant Panda", "Tiger"], "ATLAS", OPT) == [0, 161]
    assert atlas.claim_options(hand, "Lion") == []  # nothing to claim with: not asked
    assert atlas.claim_options(hand, "SKIP") == []  # AT-11: action cards are never claimed


def test_at12_claim_options_quad_and_five():
    assert atlas.claim_options(["Alpaca", "Silver Salmon", "Albatross"], "Maple", OPT) == [
        0,
        quad(1),
    ]
    hand = ["Acacia", "Maple", "Lotus", "Kauri Tree"]
    assert atlas.claim_options(hand, "Europe Plant 1", OPT) == [0, five(3)]
    # five Plant with an ATLAS in the Europe slot (continent bit 4 = 16): code 3|12|16<<7 = 2063
    assert atlas.claim_options(["Acacia", "Maple", "Lotus", "ATLAS"], "Kauri Tree", OPT) == [
        0,
        2063,
    ]
    # describe shows the actual cards given up
    text = atlas.describe(2063, ["Acacia", "Maple", "Lotus", "ATLAS"], "Kauri Tree")
    assert text == "claim Kauri Tree with five Plant, giving up Acacia, Maple, Lotus, ATLAS"


def test_at12_forced_claims_by_default_removes_none():
    # AT-12 (revised 2026-12-01): "須馬上清楚出聲表示" — a player who can claim must claim
    assert atlas.claim_options(["Giant Panda", "Tiger"], "Orangutan") == [33]
    assert atlas.claim_options(["Lion"], "Lion") == [PAIR]
    assert atlas.claim_options(["Giant Panda", "Lion"], "Orangutan") == []
    # the variant forced_claims=false makes claiming a strategy decision: NONE is offered
    assert atlas.claim_options(["Giant Panda", "Tiger"], "Orangutan", OPT) == [0, 33]
    assert atlas.claim_options(["Lion"], "Lion", OPT) == [0, PAIR]


def test_at21_last_card_pair_options():
    assert atlas.claim_options(["Lion"], "Lion", OPT) == [0, PAIR]  # same species
    assert atlas.claim_options(["Lion"], "Giraffe") == []  # same cell is not enough
    assert atlas.claim_options(["ATLAS"], "Lion", OPT) == [0, PAIR]  # ATLAS held pairs anything
    assert atlas.claim_options(["Lion"], "ATLAS", OPT) == [0, PAIR]  # ATLAS discard pairs anything
    assert atlas.claim_options(["ATLAS"], "ATLAS") == []  # two ATLAS never pair
    assert atlas.claim_options(["SKIP"], "Lion") == []
    assert atlas.pairs(atlas.card("Lion"), atlas.card("Lion"))
    assert not atlas.pairs(atlas.card("ATLAS"), atlas.card("ATLAS"))


# ---- claim priority (AT-13, AT-14, AT-16, AT-21) --------------------------------------------
LION = atlas.card("Lion")  # Africa Land: cell 0, triple code 1 + 128 w
T0 = triple(0, 0)


def six_hands(**by_seat):
    hands = [["Europe Bird 1", "Europe Bird 2"] for _ in range(6)]
    for seat, cards in by_seat.items():
        hands[int(seat[1:])] = cards
    return hands


NW = {"claim_priority": "nearest_win"}  # AT-14 variant: the first reading


@pytest.mark.parametrize("rules", [None, NW])
def test_at14_nearest_seat_wins_distance_is_shortest_way_round(rules):
    # discarder 0 of 6: seat 5 is 1 step anticlockwise, seat 2 is 2 steps clockwise
    hands = six_hands(s2=["Elephant", "Giraffe", "Kiwi Bird"], s5=["Elephant", "Giraffe", "Whale"])
    claims = {2: T0, 5: T0}
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims, rules=rules) == (5, "distance")
    assert atlas.resolve_claims("Lion", 0, -1, hands, claims, rules=rules) == (5, "distance")


def test_at14_equal_distance_next_in_current_direction_both_ways():
    hands = six_hands(s1=["Elephant", "Giraffe", "Kiwi Bird"], s5=["Elephant", "Giraffe", "Whale"])
    claims = {1: T0, 5: T0}  # both 1 step from discarder 0
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims) == (1, "direction")  # clockwise
    assert atlas.resolve_claims("Lion", 0, -1, hands, claims) == (5, "direction")  # AT-16
    # 4 players, discarder 1: seats 0 and 2 tie at distance 1, seat 3 at 2
    hands4 = [["Elephant", "Giraffe", "Whale"]] * 4
    assert atlas.resolve_claims("Lion", 1, 1, hands4, {0: T0, 2: T0, 3: T0}) == (2, "direction")
    assert atlas.resolve_claims("Lion", 1, -1, hands4, {0: T0, 2: T0, 3: T0}) == (0, "direction")
    # opposite seats at distance 3 of 6: seat 3 is the only one at 3
    assert atlas.claim_key(3, 0, 1, 6, False, False) == (2, 1, 3, 3)
    assert atlas.claim_key(3, 0, -1, 6, False, False, priority="nearest_win") == (1, 1, 3, 3)


def test_at14_youxianpei_same_species_triple_beats_nearer_plain_claim():
    # seat 3 holds two Lions and claims with the same-species triple (優先配) 3 steps away;
    # seat 1, next to the discarder, has a plain triple: 優先配 wins in both readings
    hands = six_hands(s1=["Elephant", "Giraffe", "Kiwi Bird"], s3=["Lion", "Lion", "Whale"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}) == (3, "優先配")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}, rules=NW) == (3, "優先配")
    # two same-species triples: distance decides
    hands[1] = ["Lion", "Lion", "Kiwi Bird"]
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}) == (1, "distance")
    # an ATLAS discard has no species: no 優先配
    hands[1] = ["Elephant", "Giraffe", "Kiwi Bird"]
    claims = {1: triple(0, 1), 3: triple(0, 1)}
    assert atlas.resolve_claims("ATLAS", 0, 1, hands, claims) == (1, "distance")


def test_at14_holder_of_two_claiming_with_a_quad_has_no_youxianpei():
    # AT-14 (2) text: 優先配 is the same-species triple, not holding the pair: a quad claim by
    # the holder of two Lions is a plain claim; nearest_win (the first reading) grants it
    hands = six_hands(
        s1=["Elephant", "Giraffe", "Kiwi Bird"],
        s3=["Lion", "Lion", "Crocodile", "Ostrich", "Acacia"],
    )
    claims = {1: T0, 3: quad(0)}
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims) == (1, "distance")
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims, rules=NW) == (3, "優先配")
    # a triple with an ATLAS is no same-species triple either
    hands[3] = ["Lion", "Lion", "ATLAS", "Whale"]
    claims = {1: T0, 3: triple(0, 1)}
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims) == (1, "distance")
    assert atlas.resolve_claims("Lion", 0, 1, hands, claims, rules=NW) == (3, "優先配")


def test_at14_youxianpei_breaks_a_tie_between_winning_claims():
    # both claims empty the hand; seat 3's is the same-species triple: text gives seat 3,
    # nearest_win (winning claims by distance only) gives the nearer seat 1
    hands = six_hands(s1=["Elephant", "Giraffe"], s3=["Lion", "Lion"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}) == (3, "優先配")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}, rules=NW) == (1, "distance")


@pytest.mark.parametrize("rules", [None, NW])
def test_at14_winning_claim_beats_youxianpei_and_distance(rules):
    # seat 3's triple empties its hand (2 cards + the discard): it wins outright
    hands = six_hands(s1=["Lion", "Lion", "Kiwi Bird"], s3=["Elephant", "Giraffe"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: T0}, rules=rules) == (3, "win")


def test_at14_meld_size_gives_no_priority():
    # seat 2 claims with a quad, seat 1 with a triple: nearest wins
    hands = six_hands(
        s1=["Elephant", "Giraffe", "Whale"], s2=["Crocodile", "Ostrich", "Acacia", "Kiwi Bird"]
    )
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 2: quad(0)}) == (1, "distance")


def test_at14_issue_example_last_card_holder_has_absolute_priority():
    # 5 players, discarder 0, Giant Panda discarded; seat 1 would win with Tiger + Orangutan,
    # seat 3 holds a lone Giant Panda: "絕對優先權，其他玩家不得作配對" gives seat 3 (AT-14 (0))
    hands = [["Lion"], ["Tiger", "Orangutan"], ["Lion"], ["Giant Panda"], ["Lion"]]
    asia_land = triple(ASIA_LAND, 0)
    claims = {1: asia_land, 3: PAIR}
    assert atlas.resolve_claims("Giant Panda", 0, 1, hands, claims) == (3, "last card")
    assert atlas.resolve_claims("Giant Panda", 0, 1, hands, claims, rules=NW) == (1, "distance")


def test_at21_last_card_pair_has_absolute_priority():
    # seat 3 holds one Lion (last card), seat 1 holds 優先配 and is nearer: the pair wins
    hands = six_hands(s1=["Lion", "Lion", "Kiwi Bird"], s3=["Lion"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: PAIR}) == (3, "last card")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: PAIR}, rules=NW) == (3, "win")
    # two last-card pairs: AT-14 (3) distance, then (4) direction
    hands = six_hands(s2=["ATLAS"], s5=["Lion"], s4=["Lion"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {2: PAIR, 4: PAIR, 5: PAIR}) == (5, "distance")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {2: PAIR, 4: PAIR}) == (2, "direction")
    assert atlas.resolve_claims("Lion", 0, -1, hands, {2: PAIR, 4: PAIR}) == (4, "direction")
    # a pair and a hand-emptying meld: text, the pair (AT-14 (0)); nearest_win, distance
    hands = six_hands(s1=["Elephant", "Giraffe"], s3=["Lion"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: PAIR}) == (3, "last card")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: T0, 3: PAIR}, rules=NW) == (1, "distance")


def test_at13_resolution_without_claims_and_single_claimant():
    hands = six_hands(s4=["Elephant", "Giraffe", "Whale"])
    assert atlas.resolve_claims("Lion", 0, 1, hands, {}) == (None, "none")
    assert atlas.resolve_claims("Lion", 0, 1, hands, {1: 0, 4: T0}) == (4, "only")  # NONE ignored
    with pytest.raises(ValueError):
        atlas.resolve_claims("Lion", 0, 1, hands, {0: T0})  # the discarder cannot claim
