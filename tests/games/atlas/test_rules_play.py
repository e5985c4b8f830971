"""ATLAS reference rules, part 2: scripted rounds (turns, claims, action cards, last card, end).

Hands are short scripted lists (``play_round`` accepts any hands); each test cites its ruling.
Unscripted decisions take NONE when offered, else the lowest code (discard: lowest card id).
"""

import numpy as np
import pytest
from cardsim.kernels import rng
from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference import rules as atlas

C = atlas.card
CLAIM, SELF_MELD, DISCARD, TARGET, TAKE, GIVE = range(6)
PAIR = enc.PAIR
T_AFRICA_LAND = int(enc.pack_meld(enc.TRIPLE, 0, 0))  # Elephant / Giraffe / Lion: code 1
T_ASIA_LAND = int(enc.pack_meld(enc.TRIPLE, 8, 0))  # Orangutan / Giant Panda / Tiger: 33


def D(name: str) -> int:
    return enc.DISCARD + C(name)


class Script:
    """A chooser that plays scripted steps ``(seat, type, code)`` in order.

    A decision whose (seat, type) is not the next step's gets the default: NONE when offered,
    else the lowest option. Every view and option set is recorded.
    """

    def __init__(self, *steps):
        self.steps = list(steps)
        self.asked: list[tuple[int, int, list[int]]] = []
        self.views: list[atlas.View] = []

    def __call__(self, view, dtype, options):
        self.asked.append((view.seat, dtype, list(options)))
        self.views.append(view)
        if self.steps and self.steps[0][:2] == (view.seat, dtype):
            code = self.steps.pop(0)[2]
            assert code in options, (view.seat, dtype, code, options)
            return code
        return 0 if 0 in options else options[0]

    def done(self):
        assert not self.steps, f"script steps not used: {self.steps}"


#: AT-07 variant: every player may self-meld after drawing (the default is after_claim_only)
ANY = {"self_melds": "any"}


def play(hands, pile, *steps, rules=None, **kw):
    s = Script(*steps)
    r = atlas.play_round(hands, pile, s, rules, **kw)
    s.done()
    return r, s


# Cards in distinct cells, at most 2 per continent and 3 per class: nothing can meld or claim.
QUIET = [
    ["Elephant", "Whale", "Peacock"],
    ["Crocodile", "Albatross", "Lotus"],
    ["Flamingo", "Maple", "Koala"],
]
QUIET_PILE = ["Europe Land 1", "Kauri Tree", "Stingray", "Kiwi Bird", "Europe Water 1"]


# ---- the turn (AT-04, AT-06, AT-08, AT-09, AT-23 turn cap) ----------------------------------
def test_at04_at06_at08_clockwise_turns_draw_then_discard_face_up():
    r, s = play(QUIET, QUIET_PILE, rules={"turn_cap": 4})
    assert [(seat, t) for seat, t, _ in s.asked] == [
        (0, DISCARD),
        (1, DISCARD),
        (2, DISCARD),
        (0, DISCARD),
    ]
    # seat 0 drew the top card (Europe Land 1) before discarding; seat 1 drew the next one
    assert s.views[0].hand == tuple(sorted(C(c) for c in QUIET[0] + ["Europe Land 1"]))
    assert s.views[1].hand == tuple(sorted(C(c) for c in QUIET[1] + ["Kauri Tree"]))
    # default discards (lowest id): Elephant, Crocodile, Flamingo, Whale — unclaimed, face up
    assert r.discard_pile == [C("Elephant"), C("Crocodile"), C("Flamingo"), C("Whale")]
    assert r.pile == [C("Europe Water 1")]
    assert [w.winner for w in r.windows] == [-1, -1, -1, -1] and r.windows[0].code == 0
    o = r.outcome
    assert (o["end"], o["winner"], o["turns"], o["winner_points"]) == (6, -1, 4, 0)  # turn_cap
    assert o["points"] == [0, 0, 0] and o["cards_left"] == [3, 3, 3]
    assert "seat 0 draws Europe Land 1" in r.log[4]


def test_at26_view_shows_only_what_a_strategy_may_know():
    r, s = play(QUIET, QUIET_PILE, rules={"turn_cap": 2})
    fields = set(atlas.View.__dataclass_fields__)
    assert fields == {
        "seat", "n_players", "round", "hand", "hand_sizes", "direction", "draw_pile_size",
        "discard_pile", "melds", "traded", "face_down", "discard", "discarder", "trade_target",
        "target_hand", "standing", "own_face_down",  # AT-26 (revised 2026-12-06)
    }  # fmt: skip
    v = s.views[1]  # seat 1 deciding its discard in turn 2
    assert v.seat == 1 and v.hand_sizes == (3, 4, 3) and v.discard_pile == (C("Elephant"),)
    assert v.draw_pile_size == 3 and v.direction == 1 and v.melds == () and v.traded == ()
    assert v.target_hand is None and v.discard is None


# ---- action cards (AT-17, AT-18, AT-19) -----------------------------------------------------
def test_at17_skip_with_three_players_skips_the_next_player():
    hands = [["SKIP", "Elephant"], QUIET[1], QUIET[2]]
    r, s = play(hands, QUIET_PILE, (0, DISCARD, D("SKIP")), rules={"turn_cap": 2})
    assert [seat for seat, _, _ in s.asked] == [0, 2]  # seat 1 loses its turn
    assert r.outcome["skips"] == 1
    assert [w.discarder for w in r.windows] == [2]  # action cards open no claim window
    assert r.discard_pile == [C("SKIP"), C("Flamingo")]


def test_at17_skip_with_two_players_the_skip_player_goes_again():
    r, s = play(
        [["SKIP", "Elephant"], QUIET[1]], QUIET_PILE, (0, DISCARD, D("SKIP")), rules={"turn_cap": 2}
    )
    assert [seat for seat, _, _ in s.asked] == [0, 0]
    assert r.outcome["skips"] == 1


def test_at18_reverse_flips_direction_and_at16_claims_follow_it():
    hands = [
        ["REVERSE", "Whale"],
        ["Elephant", "Giraffe", "Kiwi Bird"],
        ["Elephant", "Giraffe", "Kiwi Bird"],
        ["Lion", "Tiger"],
    ]
    steps = [(0, DISCARD, D("REVERSE")), (3, DISCARD, D("Lion"))]
    r, s = play(hands, QUIET_PILE, *steps, rules={"turn_cap": 2})
    # after REVERSE seat 3 (anticlockwise) plays; claims on its Lion are asked 2, 1 (then 0)
    assert [(seat, t) for seat, t, _ in s.asked] == [
        (0, DISCARD),
        (3, DISCARD),
        (2, CLAIM),
        (1, CLAIM),
    ]
    assert s.views[1].direction == -1
    o = r.outcome
    assert (o["reverses"], o["direction_changes"]) == (1, 1)


@pytest.mark.parametrize(("variant", "order"), [("skip", [0, 0]), ("none", [0, 1])])
def test_at18_reverse_with_two_players(variant, order):
    rules = {"turn_cap": 2, "reverse_two_players": variant}
    r, s = play(
        [["REVERSE", "Elephant"], QUIET[1]], QUIET_PILE, (0, DISCARD, D("REVERSE")), rules=rules
    )
    assert [seat for seat, _, _ in s.asked] == order  # skip: acts as SKIP; none: no effect
    assert r.outcome["direction_changes"] == 0 and r.outcome["reverses"] == 1
    assert r.outcome["skips"] == 0  # only SKIP cards count as skips


def test_at19_trade_blind_takes_the_events_streams_pick_and_gives_a_chosen_card():
    hands = [["TRADE", "Lion", "Whale"], QUIET[1], ["Elephant", "Maple", "Peacock"]]
    events = rng.new_stream(np.uint64(9), np.uint64(4), 1)
    expect = rng.new_stream(np.uint64(9), np.uint64(4), 1)
    k = int(rng.bounded(expect, 3))  # protocol §1: k-th card of the target's hand, ids ascending
    taken = sorted(C(c) for c in hands[2])[k]
    steps = [
        (0, DISCARD, D("TRADE")),
        (0, TARGET, enc.TARGET + 2),
        (0, GIVE, enc.GIVE + C("Whale")),
    ]
    pile = ["Kiwi Bird", "Europe Land 1", "Europe Water 1"]
    r, s = play(hands, pile, *steps, rules={"turn_cap": 3}, events=events)
    assert s.asked[1][2] == [0, enc.TARGET + 1, enc.TARGET + 2]  # NONE or any other seat
    give_options = sorted({C("Lion"), C("Whale"), C("Kiwi Bird"), taken})
    assert s.asked[2][2] == [enc.GIVE + t for t in give_options]  # may give back the taken card
    assert r.hands[0] == sorted([C("Lion"), C("Kiwi Bird"), taken])
    assert s.views[2].trade_target == 2
    # the turn ends (no claim window); seat 1 plays next; both traders remember the swap (AT-26)
    assert [(seat, t) for seat, t, _ in s.asked][3:] == [(1, DISCARD), (2, DISCARD)]
    assert s.views[4].traded == (("gave", 0, taken), ("took", 0, C("Whale")))
    kept = sorted([C(c) for c in hands[2] if C(c) != taken] + [C("Whale"), C("Europe Water 1")])
    assert s.views[4].hand == tuple(kept)
    assert s.views[3].traded == ()  # seat 1 saw nothing
    assert r.outcome["trades"] == 1 and r.windows[0].discarder == 1
    assert f"takes {atlas.name(taken)} from seat 2 (blind)" in "\n".join(r.log)


def test_at19_trade_seen_the_trader_sees_and_chooses():
    hands = [["TRADE", "Lion", "Whale"], QUIET[1], ["Elephant", "Maple", "Peacock"]]
    steps = [
        (0, DISCARD, D("TRADE")),
        (0, TARGET, enc.TARGET + 2),
        (0, TAKE, enc.TAKE + C("Maple")),
        (0, GIVE, enc.GIVE + C("Lion")),
    ]
    r, s = play(hands, ["Kiwi Bird"], *steps, rules={"turn_cap": 1, "trade_pick": "seen"})
    assert s.asked[2][2] == [enc.TAKE + C(c) for c in ("Elephant", "Maple", "Peacock")]
    assert s.views[2].target_hand == (C("Elephant"), C("Maple"), C("Peacock"))
    assert r.hands[0] == sorted(C(c) for c in ("Whale", "Kiwi Bird", "Maple"))
    assert r.hands[2] == sorted(C(c) for c in ("Elephant", "Lion", "Peacock"))


def test_at19_trade_on_nobody():
    hands = [["TRADE", "Lion"], QUIET[1]]
    r, s = play(
        hands, ["Kiwi Bird"], (0, DISCARD, D("TRADE")), (0, TARGET, 0), rules={"turn_cap": 1}
    )
    assert r.hands[0] == sorted([C("Lion"), C("Kiwi Bird")]) and r.outcome["trades"] == 1


# ---- claims in play (AT-12 … AT-16) ---------------------------------------------------------
def test_at14_at15_youxianpei_claim_by_a_later_seat_keeps_turn_order():
    hands = [
        ["Lion", "Whale"],
        ["Elephant", "Giraffe", "Kiwi Bird", "Lotus"],
        ["Lion", "Lion", "Peacock", "Maple"],
        ["Crocodile", "Albatross", "Koala"],
    ]
    steps = [(0, DISCARD, D("Lion")), (1, CLAIM, T_AFRICA_LAND), (2, CLAIM, T_AFRICA_LAND)]
    r, s = play(hands, QUIET_PILE, *steps, rules={"turn_cap": 2})
    assert r.windows[0] == atlas.Window(0, 0, C("Lion"), 2, T_AFRICA_LAND)  # 優先配 beats seat 1
    # seat 2 melded without drawing or discarding; seat 1 (next of the discarder) plays next
    assert [(seat, t) for seat, t, _ in s.asked][3:] == [(1, DISCARD)]
    assert s.views[3].hand_sizes == (2, 5, 2, 3) and s.views[3].draw_pile_size == 3
    assert r.melds == [(2, (C("Lion"),) * 3)]
    o = r.outcome
    assert (o["claims"], o["youxian_claims"], o["triples"]) == (1, 1, 1)
    assert o["claims_by_seat"] == [0, 0, 1, 0] and o["melds_by_seat"] == [0, 0, 1, 0]
    assert s.views[3].hand == tuple(
        sorted(C(c) for c in ["Elephant", "Giraffe", "Kiwi Bird", "Lotus", "Kauri Tree"])
    )
    assert "  seat 2 gets Lion (優先配 over seats [1])" in r.log


def test_at15_next_player_claims_then_takes_its_normal_turn():
    hands = [["Lion", "Whale"], ["Elephant", "Giraffe", "Kiwi Bird", "Lotus"], QUIET[2]]
    steps = [(0, DISCARD, D("Lion")), (1, CLAIM, T_AFRICA_LAND)]
    r, s = play(hands, QUIET_PILE, *steps, rules={"turn_cap": 2})
    # seat 1 claimed, then drew (Kauri Tree) and discarded in its own turn
    assert [(seat, t) for seat, t, _ in s.asked] == [(0, DISCARD), (1, CLAIM), (1, DISCARD)]
    assert s.views[2].hand == tuple(sorted(C(c) for c in ["Kiwi Bird", "Lotus", "Kauri Tree"]))
    assert r.outcome["turns"] == 2


def test_at15_claim_turn_jump_claimant_discards_without_drawing_and_play_continues_from_it():
    hands = [
        ["Lion", "Whale"],
        QUIET[1],
        ["Elephant", "Giraffe", "Kiwi Bird", "Lotus"],
        ["Alpaca", "Sea Turtle", "Europe Bird 3"],
    ]
    steps = [(0, DISCARD, D("Lion")), (2, CLAIM, T_AFRICA_LAND), (2, DISCARD, D("Lotus"))]
    r, s = play(hands, QUIET_PILE, *steps, rules={"turn_cap": 3, "claim_turn": "jump"})
    # seat 2 claims and discards at once (no draw), then seat 3 (next of the claimant) plays
    assert [(seat, t) for seat, t, _ in s.asked] == [
        (0, DISCARD),
        (2, CLAIM),
        (2, DISCARD),
        (3, DISCARD),
    ]
    assert s.views[2].hand == (C("Lotus"), C("Kiwi Bird")) and s.views[2].draw_pile_size == 4
    assert r.outcome["turns"] == 3  # seat 0, seat 2's jump turn, seat 3
    assert r.hands[1] == sorted(C(c) for c in QUIET[1])  # seat 1 was passed over


def test_at12_forced_claims_in_play():
    # AT-12 (revised 2026-12-01): forced by default, NONE is not offered
    hands = [["Lion", "Whale"], ["Elephant", "Giraffe", "Kiwi Bird", "Lotus"], QUIET[2]]
    r, s = play(hands, QUIET_PILE, (0, DISCARD, D("Lion")), rules={"turn_cap": 1})
    assert s.asked[1] == (1, CLAIM, [T_AFRICA_LAND])  # NONE is not offered
    assert r.windows[0].winner == 1
    rules = {"turn_cap": 1, "forced_claims": False}
    r, s = play(hands, QUIET_PILE, (0, DISCARD, D("Lion")), rules=rules)
    assert s.asked[1] == (1, CLAIM, [0, T_AFRICA_LAND]) and r.windows[0].winner == -1


def test_at11_a_claimed_atlas_is_used_as_a_wild():
    hands = [["ATLAS", "Whale"], ["Elephant", "Giraffe", "Kiwi Bird"], QUIET[2]]
    code = int(enc.pack_meld(enc.TRIPLE, 0, 1))  # Africa Land, one wild slot
    r, s = play(
        hands, QUIET_PILE, (0, DISCARD, D("ATLAS")), (1, CLAIM, code), rules={"turn_cap": 1}
    )
    assert r.melds == [(1, (C("Elephant"), C("Giraffe"), C("ATLAS")))]
    assert r.outcome["atlas_used"] == 1 and r.outcome["youxian_claims"] == 0


# ---- self-melds (AT-07, AT-20, AT-22) -------------------------------------------------------
def test_at07_at20_self_melds_repeat_and_emptying_the_hand_wins():
    hands = [
        ["Orangutan", "Giant Panda", "Tiger", "Elephant", "Giraffe"],
        ["Whale", "Kiwi Bird", "ATLAS", "SKIP"],
    ]
    steps = [(0, SELF_MELD, T_ASIA_LAND), (0, SELF_MELD, T_AFRICA_LAND)]
    r, s = play(hands, ["Lion"], *steps, rules=ANY)  # AT-07 variant: an ordinary turn
    assert s.asked[0][2] == [0, T_AFRICA_LAND, T_ASIA_LAND] and s.asked[1][2] == [0, T_AFRICA_LAND]
    o = r.outcome
    assert (o["winner"], o["end"], o["turns"]) == (0, 1, 1)  # end 1 = self_meld
    assert (o["self_melds"], o["triples"], o["melds_by_seat"]) == (2, 2, [2, 0])
    assert o["winner_points"] == 1 + 1 + 3 + 2 and o["points"] == [7, 0]  # AT-24, AT-05


def test_at22_one_card_left_after_melding_is_kept_then_at21_wins_by_draw():
    hands = [["Orangutan", "Giant Panda", "Lion"], ["Whale", "Kiwi Bird", "Europe Plant 1"]]
    r, s = play(hands, ["Tiger", "Elephant", "Lion"], (0, SELF_MELD, T_ASIA_LAND), rules=ANY)
    # seat 0 melds, keeps its Lion (no discard); seat 1 discards; seat 0 draws Lion and wins
    assert [(seat, t) for seat, t, _ in s.asked] == [(0, SELF_MELD), (1, DISCARD)]
    o = r.outcome
    assert (o["winner"], o["end"], o["turns"], o["last_card_pairs"]) == (0, 2, 3, 1)
    assert o["winner_points"] == 3  # seat 1 holds 3 matching cards (Elephant was discarded)
    assert o["cards_left"] == [0, 3]


def test_at22_last_discard_wins_variant():
    hands = [["Orangutan", "Giant Panda", "Lion"], ["Whale", "Kiwi Bird", "Europe Plant 1"]]
    rules = {**ANY, "last_discard_wins": True}
    r, s = play(hands, ["Tiger"], (0, SELF_MELD, T_ASIA_LAND), rules=rules)
    o = r.outcome
    assert (o["winner"], o["end"], o["turns"], o["winner_points"]) == (
        0,
        7,
        1,
        3,
    )  # 7 = last_discard
    assert r.windows == [] and [t for _, t, _ in s.asked] == [SELF_MELD]  # no claim on it


def test_at07_after_claim_only_no_self_melds_in_an_ordinary_turn():
    hands = [["Orangutan", "Giant Panda", "Lion"], QUIET[1]]
    r, s = play(hands, ["Tiger"], rules={"turn_cap": 1, "self_melds": "after_claim_only"})
    assert [t for _, t, _ in s.asked] == [DISCARD]
    assert len(s.asked[0][2]) == 4  # all four cards may be discarded, no meld offered


def test_at07_after_claim_only_the_next_player_melds_after_claiming():
    hands = [
        ["Lion", "Whale"],
        ["Elephant", "Giraffe", "Orangutan", "Giant Panda", "Kiwi Bird"],
        ["Crocodile", "Needlefish", "Orangutan", "Giant Panda", "Koala"],
    ]
    rules = {"turn_cap": 3, "self_melds": "after_claim_only"}
    steps = [(0, DISCARD, D("Lion")), (1, CLAIM, T_AFRICA_LAND), (1, SELF_MELD, T_ASIA_LAND)]
    r, s = play(hands, ["Europe Bird 1", "Tiger", "Tiger"], *steps, rules=rules)
    assert s.asked[2] == (1, SELF_MELD, [0, T_ASIA_LAND])  # after its claim, in its turn
    assert r.hands[1] == [C("Kiwi Bird")]  # melded down to one card: kept (AT-22)
    # seat 2 then draws the second Tiger: it may not self-meld in an ordinary turn
    assert s.asked[3][:2] == (2, DISCARD)


def test_at07_after_claim_only_a_non_next_claimant_cannot_meld_later():
    hands = [
        ["Crocodile", "Whale", "Lotus"],
        ["Kiwi Bird", "Europe Bird 1", "Koala"],
        ["Needlefish", "Teardrop Butterflyfish", "Orangutan", "Giant Panda", "Maple"],
    ]
    rules = {"turn_cap": 3, "self_melds": "after_claim_only"}
    water = int(enc.pack_meld(enc.TRIPLE, 1, 0))  # Africa Water
    steps = [(0, DISCARD, D("Crocodile")), (2, CLAIM, water)]
    r, s = play(hands, ["Stingray", "Alpaca", "Tiger"], *steps, rules=rules)
    assert [(seat, t) for seat, t, _ in s.asked] == [
        (0, DISCARD),
        (2, CLAIM),
        (1, DISCARD),
        (2, DISCARD),
    ]
    assert C("Tiger") in s.views[3].hand  # could meld Asia Land, but is not offered


def test_at15_jump_turn_allows_self_melds_under_after_claim_only():
    hands = [
        ["Lion", "Whale"],
        QUIET[1],
        ["Elephant", "Giraffe", "Orangutan", "Giant Panda", "Tiger", "Kiwi Bird"],
    ]
    rules = {"turn_cap": 2, "self_melds": "after_claim_only", "claim_turn": "jump"}
    steps = [(0, DISCARD, D("Lion")), (2, CLAIM, T_AFRICA_LAND), (2, SELF_MELD, T_ASIA_LAND)]
    r, s = play(hands, QUIET_PILE, *steps, rules=rules)
    assert r.hands[2] == [C("Kiwi Bird")] and r.outcome["self_melds"] == 1


# ---- last card (AT-21) ----------------------------------------------------------------------
def test_at21_last_action_card_is_played_without_drawing_and_wins():
    hands = [["TRADE"], ["ATLAS", "SKIP", "Lion"], ["REVERSE", "Tiger"]]
    r, s = play(hands, QUIET_PILE)
    o = r.outcome
    assert (o["winner"], o["end"], o["turns"]) == (0, 4, 1) and s.asked == []  # 4 = action_card
    assert len(r.pile) == 5  # nothing drawn
    assert o["winner_points"] == (3 + 2 + 1) + (2 + 1)  # AT-24: 9
    assert o["hand_value"] == [0, 6, 3] and o["points"] == [9, 0, 0]
    assert o["trades"] == 0  # the winning card has no effect


def test_at21_last_card_wins_by_claim_with_absolute_priority():
    hands = [["Lion", "Whale"], ["Lion", "Lion", "Kiwi Bird"], ["Lion"]]
    steps = [(0, DISCARD, D("Lion")), (1, CLAIM, T_AFRICA_LAND), (2, CLAIM, PAIR)]
    r, s = play(hands, ["Europe Bird 1"], *steps)
    assert s.asked[2] == (2, CLAIM, [PAIR])  # AT-12: forced
    assert r.windows == [atlas.Window(0, 0, C("Lion"), 2, PAIR)]
    o = r.outcome
    assert (o["winner"], o["end"], o["last_card_pairs"], o["claims"]) == (2, 3, 1, 1)
    assert o["winner_points"] == 2 + 3  # seat 0: Whale + Europe Bird 1; seat 1: 3 cards
    assert o["youxian_claims"] == 0 and o["claims_by_seat"] == [0, 0, 1]
    assert "  seat 2 gets Lion (last card over seats [1])" in r.log  # AT-14 (0)


def test_at21_atlas_last_card_pairs_a_drawn_matching_card_but_not_an_atlas():
    r, _ = play([["ATLAS"], QUIET[1]], ["Lion"])
    assert (r.outcome["winner"], r.outcome["end"]) == (0, 2)
    rules = {"turn_cap": 2, "forced_claims": False}  # seat 1 declines the ATLAS discard
    r, s = play([["ATLAS"], QUIET[1]], ["ATLAS", "Kiwi Bird"], rules=rules)
    assert s.asked[0] == (0, DISCARD, [D("ATLAS")])  # two ATLAS never pair: discard one
    assert r.outcome["winner"] == -1


def test_at21_drawn_card_that_does_not_pair_is_discarded_or_kept():
    r, s = play([["Lion"], QUIET[1]], ["Giraffe"], (0, DISCARD, D("Lion")), rules={"turn_cap": 1})
    assert s.asked[0] == (0, DISCARD, [D("Giraffe"), D("Lion")])
    assert r.hands[0] == [C("Giraffe")]


# ---- exhaustion (AT-23) ---------------------------------------------------------------------
def test_at23_empty_pile_reshuffles_the_discards_with_the_events_stream():
    hands = [["Lion", "Kookaburra"], ["Crocodile", "Albatross"]]
    old = ["Elephant", "Whale", "Kiwi Bird"]
    events = rng.new_stream(np.uint64(3), np.uint64(1), 1)
    expect = rng.new_stream(np.uint64(3), np.uint64(1), 1)
    arr = np.array([C(c) for c in old + ["Lion"]], dtype=np.int64)  # oldest discard first
    rng.shuffle(expect, arr, 4)
    r, s = play(
        hands,
        ["Europe Bird 1"],
        (0, DISCARD, D("Lion")),
        rules={"turn_cap": 2},
        discard_pile=old,
        events=events,
    )
    v = s.views[1]  # seat 1 after drawing from the reshuffled pile
    assert v.discard_pile == () and v.draw_pile_size == 3
    assert int(arr[0]) in v.hand and r.pile == [int(c) for c in arr[1:]]
    assert r.outcome["reshuffles"] == 1 and r.outcome["winner"] == -1


def test_at23_exhausted_no_winner_ends_at_the_first_empty_draw():
    hands = [["Lion", "Kookaburra"], ["Crocodile", "Albatross"]]
    r, _ = play(
        hands, ["Europe Bird 1"], rules={"exhausted": "no_winner"}, discard_pile=["Elephant"]
    )
    o = r.outcome
    assert (o["end"], o["winner"], o["turns"], o["reshuffles"], o["points"]) == (
        5,
        -1,
        2,
        0,
        [0, 0],
    )


def test_at23_both_piles_empty_ends_with_no_winner():
    r, _ = play([["Lion", "Kookaburra"], ["Crocodile", "Albatross"]], [])
    assert (r.outcome["end"], r.outcome["turns"], r.outcome["winner_points"]) == (5, 1, 0)


def test_at23_turn_cap_counts_every_turn():
    r, _ = play(QUIET, QUIET_PILE * 3, rules={"turn_cap": 7})
    assert (r.outcome["end"], r.outcome["turns"]) == (6, 7)


# ---- score and match (AT-24, AT-25) ---------------------------------------------------------
def test_at25_after_rounds_without_winner_the_next_seat_moves_first():
    m = atlas.play_match(4, 4, 3, atlas.random_chooser(2), {"rounds": 4, "turn_cap": 1})
    assert [o["end"] for o in m.rounds] == [6, 6, 6, 6]
    assert [o["first_player"] for o in m.rounds] == [0, 1, 2, 0]  # (first + 1) mod 3
    assert [d.seat for d in m.decisions if d.type == DISCARD] == [0, 1, 2, 0]
    assert m.totals == [0, 0, 0] and m.champions == [0, 1, 2]  # a shared title


def test_at25_previous_winner_moves_first_direction_resets_and_totals_add_up():
    firsts = []
    for g in range(6):
        views, chooser = [], atlas.random_chooser(g)

        def record(v, t, o, views=views, chooser=chooser):
            views.append(v)
            return chooser(v, t, o)

        m = atlas.play_match(8, g, 4, record, {"rounds": 3})
        for prev, nxt in zip(m.rounds, m.rounds[1:], strict=False):
            expected = prev["winner"] if prev["winner"] >= 0 else (prev["first_player"] + 1) % 4
            assert nxt["first_player"] == expected
            firsts.append(nxt["first_player"])
        for r in range(3):
            first_view = next(v for v in views if v.round == r)
            assert first_view.direction == 1 and first_view.seat == m.rounds[r]["first_player"]
        assert m.totals == [sum(o["points"][p] for o in m.rounds) for p in range(4)]
        assert m.champions == [p for p in range(4) if m.totals[p] == max(m.totals)]
    assert any(f != 0 for f in firsts)


# ---- replay --------------------------------------------------------------------------------
def test_replay_trace_reproduces_a_match_and_rejects_bad_traces():
    rules = {"rounds": 2, "claim_turn": "jump", "trade_pick": "seen"}
    m = atlas.play_match(6, 1, 5, atlas.random_chooser(3), rules)
    codes = [d.chosen for d in m.decisions]
    again = atlas.replay_trace(6, 1, 5, codes, rules)
    assert again.rounds == m.rounds and again.windows == m.windows and again.log == m.log
    assert [d.options_hash for d in again.decisions] == [d.options_hash for d in m.decisions]
    with pytest.raises(ValueError, match="left over"):
        atlas.replay_trace(6, 1, 5, codes + [0], rules)
    with pytest.raises(ValueError, match="ran out at decision 3"):
        atlas.replay_trace(6, 1, 5, codes[:3], rules)
    with pytest.raises(ValueError, match=r"decision 0 \(round 0, seat 0, type 2 discard\): code 7"):
        atlas.replay_trace(6, 1, 5, [7], {"self_melds": "after_claim_only"})
