"""ATLAS reference rules, part 3: invariants over random-chooser matches (AT-01 … AT-26).

Every decision of a few hundred matches is checked from the strategy's own view: every card of
the deck accounted for (204 by default; the last variant changes the deck, the hand size and the
values, AT-D1 … AT-D4, and the counts adapt), options non-empty, ascending and playable from the mover's hand; every round's
score follows AT-24. Rule variants rotate over the games so each is exercised.
"""

import itertools
from collections import Counter

import pytest
from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference import rules as atlas

VARIANTS = [
    {},
    {"claim_turn": "jump", "claim_priority": "nearest_win"},
    {"self_melds": "after_claim_only", "self_melds_shown": True},
    {"all_wild_melds": True, "forced_claims": False},
    {"trade_pick": "seen", "last_discard_wins": True},
    {"exhausted": "no_winner", "reverse_two_players": "none"},
    {"turn_cap": 40, "rounds": 2},
    {"hand_size": 9, "atlas_cards": 11, "trade_cards": 0, "atlas_value": 7, "matching_value": 0},
]
KIND = {1: "triple", 2: "quad", 3: "five"}
GAMES = 50  # per player count: 5 × 50 = 250 matches


class Checker:
    """A uniform random chooser that checks the invariants of every decision it sees."""

    def __init__(self, seed: int):
        self.pick = atlas.random_chooser(seed)
        self.types = Counter()

    def __call__(self, view: atlas.View, dtype: int, options: list[int]) -> int:
        self.types[dtype] += 1
        # AT-01: every card accounted for (hands, draw pile, face-up pile, melds, the claim)
        in_melds = sum(len(cards) for _, cards in view.melds) + sum(k for _, k in view.face_down)
        # AT-26: self-melds lie face down unless self_melds_shown; claims are always shown
        assert not view.face_down or not self.rules["self_melds_shown"]
        pending = 1 if view.discard is not None else 0
        total = sum(view.hand_sizes) + view.draw_pile_size + len(view.discard_pile) + in_melds
        assert total + pending == atlas.deck_size(self.rules)  # 204 unless AT-D2, AT-D3
        assert len(view.hand) == view.hand_sizes[view.seat]  # AT-26: its own hand
        assert options and options == sorted(set(options))
        hand = list(view.hand)
        if dtype == atlas.DISCARD:
            assert options == [enc.DISCARD + t for t in sorted(set(hand))]
            assert len(hand) >= 2  # AT-22: a last card is kept, never discarded
        elif dtype == atlas.GIVE:
            assert options == [enc.GIVE + t for t in sorted(set(hand))]
        elif dtype == atlas.SELF_MELD:
            assert options == atlas.self_meld_options(hand, self.rules)
            for code in options[1:]:  # each code gives up cards that form its kind (AT-10)
                cards = atlas.meld_from_cards(hand, code)
                assert atlas.meld_kind(cards, self.rules["all_wild_melds"]) == KIND[code & 3]
        elif dtype == atlas.CLAIM:
            assert view.discard is not None and view.discarder != view.seat
            assert options == atlas.claim_options(hand, view.discard, self.rules)
            assert view.discard < enc.SKIP  # AT-11: action cards are never claimed
            for code in options:
                if code not in (0, enc.PAIR):
                    cards = atlas.meld_from_cards(hand, code, view.discard) + [view.discard]
                    assert atlas.meld_kind(cards, self.rules["all_wild_melds"]) == KIND[code & 3]
        elif dtype == atlas.TARGET:
            assert options[0] == 0 and enc.TARGET + view.seat not in options
        elif dtype == atlas.TAKE:
            assert options == [enc.TAKE + t for t in sorted(set(view.target_hand))]
        return self.pick(view, dtype, options)


@pytest.mark.parametrize("n", [2, 3, 4, 6, 10])
def test_invariants_over_random_matches(n):
    ends = Counter()
    for g in range(GAMES):
        rules = atlas.check_rules(VARIANTS[g % len(VARIANTS)])
        chk = Checker(1000 * n + g)
        chk.rules = rules
        m = atlas.play_match(77, g, n, chk, rules)
        assert len(m.rounds) == rules["rounds"]
        for o in m.rounds:
            ends[o["end"]] += 1
            assert list(o) == list(atlas.OUTCOME_KEYS)
            w = o["winner"]
            if w >= 0:
                # AT-24: the winner receives the others' hand values; its hand is empty
                assert o["cards_left"][w] == 0 and o["end"] not in (5, 6)
                assert o["points"][w] == o["winner_points"] == sum(o["hand_value"])
                assert sum(o["points"]) == o["winner_points"]
            else:
                assert o["end"] in (5, 6) and o["points"] == [0] * n and o["winner_points"] == 0
            values = atlas.hand_values(rules)  # AT-05: 1 to 3 points a card by default (AT-D4)
            for left, value in zip(o["cards_left"], o["hand_value"], strict=True):
                assert min(values) * left <= value <= max(values) * left
            assert sum(o["melds_by_seat"]) == o["triples"] + o["quads"] + o["fives"]
            assert o["triples"] + o["quads"] + o["fives"] == o["self_melds"] + o["claims"] - (
                1 if o["end"] == 3 else 0
            )  # every meld is a self-meld or a claim; a PAIR claim is no meld
            assert sum(o["claims_by_seat"]) == o["claims"] >= o["youxian_claims"]
            if o["end"] == 6:  # AT-23 turn cap (jump turns may pass it; the check is >=)
                assert o["turns"] >= rules["turn_cap"]
            else:
                assert o["turns"] <= rules["turn_cap"] or rules["claim_turn"] == "jump"
            assert o["direction_changes"] <= o["reverses"]
        assert sum(m.totals) == sum(o["winner_points"] for o in m.rounds)
        assert sum(w.winner >= 0 for w in m.windows) == sum(o["claims"] for o in m.rounds)
        if g % 10 == 0:
            again = atlas.replay_trace(77, g, n, [d.chosen for d in m.decisions], rules)
            assert again.rounds == m.rounds and again.windows == m.windows
    assert sum(ends.values()) >= GAMES
    assert len(ends) >= 4  # several ways to end a round occur


def test_every_decision_type_occurs_in_random_play():
    seen = Counter()
    for g, rules in itertools.product(range(6), ({}, {"trade_pick": "seen"})):
        chk = Checker(g)
        chk.rules = atlas.check_rules(rules)
        atlas.play_match(5, g, 4, chk, rules)
        seen += chk.types
    assert set(seen) == set(range(6))  # claim, self-meld, discard, target, take, give
