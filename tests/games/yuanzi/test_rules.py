"""Scripted tests of the 原子 reference rules: cards, deal, combinations, beats, legal moves.

Each test names the ruling it checks (RULINGS.md YZ-nn); counting tests show the arithmetic.
Trick flow, settlement and the match are in test_rules_play.py.
"""

import numpy as np
import pytest
from cardsim.kernels import rng
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.games.yuanzi.reference.moves import (
    ATOM,
    ATOM_BJ_RANK,
    ATOM_SJ_RANK,
    BOMB,
    HYDROGEN,
    PAIR,
    PASS,
    SINGLE,
    TRIPLE,
    hand_points,
    jokers_of,
    kind_of,
    pack,
    rank_of,
    size_of,
    suit_of,
)
from cardsim.sim.games.yuanzi.reference.rules import (
    RULE_DEFAULTS,
    Deal,
    beats,
    cards_given_up,
    cards_text,
    classify,
    deal_from_seed,
    describe_move,
    hand_text,
    legal_moves,
    move_set_hash,
    parse_hand,
    resolve_rules,
    setup_half,
)

R3, R4, R5, R7, R8, R9, R10, RJ, RQ, RK, RA, R2 = 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12
D, C, H, S = 0, 1, 2, 3


def code(cards: str, dao: str) -> int:
    """The code of the strongest reading of ``cards``."""
    combo = classify(cards, dao)
    assert combo is not None, cards
    return combo.code


def names(codes, hand, dao):
    return [describe_move(c, hand, dao) for c in codes]


# --- rule options -------------------------------------------------------------------------------


def test_rule_defaults_are_the_rulings_defaults():
    # YZ-06, YZ-14, YZ-15, YZ-18, YZ-19, YZ-23, YZ-25: the default of each option; the design
    # parameters YZ-D1 … YZ-D3 default to the text's 60 points and ±1 / ±2
    assert RULE_DEFAULTS == {
        "joker_indicator": "three",
        "dao_bomb_beats_dao_basic": True,
        "dao_bomb": "over_all",
        "pass_only_if_unable": False,
        "pass_is_final": False,
        "lead_after_out": "next",
        "one_two_settlement": "all",
        "shuangjia": "both_out_team",
        "shuangjia_threshold": 60,
        "match_points_win": 1,
        "match_points_shuangjia": 2,
    }


def test_rule_options_reject_unknown_names_and_values():
    with pytest.raises(ValueError, match="unknown"):
        resolve_rules(pass_final=True)
    with pytest.raises(ValueError, match="invalid value"):
        resolve_rules({"dao_bomb": "always"})
    with pytest.raises(ValueError, match="invalid value"):
        resolve_rules(pass_is_final=1)  # a bool option takes True/False only
    with pytest.raises(ValueError, match="unknown"):
        legal_moves("7S", None, "2", no_such_rule=True)
    with pytest.raises(ValueError, match="invalid value"):
        beats("8S", "7S", "2", lead_after_out="left")
    assert resolve_rules({"dao_bomb": "same_count_only"}, pass_is_final=True) == {
        **RULE_DEFAULTS,
        "dao_bomb": "same_count_only",
        "pass_is_final": True,
    }


# --- encoding agreement ---------------------------------------------------------------------------


def test_move_codes_match_the_shared_encoding():
    # the reference packs codes in pure Python; they must be bit for bit encoding.pack_move
    for kind in range(1, 7):
        for rank in range(15):
            for size in (1, 2, 3, 4, 8, 18):
                for jokers in (0, 1, 6):
                    for suit in range(4):
                        c = pack(kind, rank, size, jokers, suit)
                        assert c == int(enc.pack_move(kind, rank, size, jokers, suit))
                        assert (kind_of(c), rank_of(c), size_of(c), jokers_of(c), suit_of(c)) == (
                            kind,
                            rank,
                            size,
                            jokers,
                            suit,
                        )
    assert move_set_hash([5, 9, 17]) == move_set_hash([17, 5, 9])  # order-independent
    assert move_set_hash([5, 9, 17]) == int(enc.move_set_hash(np.array([5, 9, 17], np.int32), 3))


# --- YZ-01 … YZ-03: cards, seats, points ---------------------------------------------------------


def test_yz01_deck_is_three_packs_of_54():
    deck = enc.canonical_deck()
    # YZ-01: 13 ranks x 4 suits x 3 + 3 small + 3 big jokers = 156 + 6 = 162
    assert len(deck) == 162
    assert np.bincount(deck, minlength=54).tolist() == [3] * 54
    assert sum(1 for c in deck if c == enc.SMALL_JOKER) == 3
    assert sum(1 for c in deck if c == enc.BIG_JOKER) == 3


def test_yz01_a_hand_holds_at_most_three_copies():
    assert parse_hand("7S 7S 7S")[R7 * 4 + S] == 3  # 7S is card id 4 * 4 + 3 = 19
    with pytest.raises(ValueError, match="three packs"):
        parse_hand("7S 7S 7S 7S")
    with pytest.raises(ValueError):
        parse_hand("1S")  # not a card


def test_yz03_point_cards_total_300():
    full = [3] * 54
    # YZ-03: (5 + 10 + 10) points x 4 suits x 3 copies = 25 x 12 = 300
    assert hand_points(full) == 300
    assert hand_points(parse_hand("5S 10H KD")) == 25
    assert hand_points(parse_hand("AS 2S JS QS SJ BJ 9S")) == 0


def test_card_strings_round_trip():
    hand = parse_hand("BJ 7S 3D SJ 10H 7S")
    assert hand_text(hand) == "3D 7S 7S 10H SJ BJ"
    assert cards_text([53, 19, 0]) == "3D 7S BJ"


# --- YZ-05 … YZ-08: 刀, deal, first lead ---------------------------------------------------------


def test_yz05_deal_from_seed_follows_the_stream_0_protocol():
    # protocol §1: stream 0, half 0 then half 1, each a fresh canonical deck, shuffle, bounded(162)
    deal = deal_from_seed(42, 7)
    state = rng.new_stream(42, 7, rng.STREAM_DEAL)
    expected = []
    for _ in range(2):
        deck = enc.canonical_deck()
        rng.shuffle(state, deck, 162)
        expected.append((deck.tolist(), int(rng.bounded(state, 162))))
    assert (deal.deck0, deal.p0) == expected[0]
    assert (deal.deck1, deal.p1) == expected[1]
    assert deal == deal_from_seed(42, 7)  # reproducible
    assert deal.deck0 != deal_from_seed(42, 8).deck0
    assert sorted(deal.deck0) == sorted(deal.deck1) == enc.canonical_deck().tolist()


def test_yz05_indicator_card_stays_in_the_deck_and_is_dealt():
    deal = deal_from_seed(3, 0)
    setup = setup_half(deal.deck0, deal.p0, half=0)
    assert sum(sum(h) for h in setup.hands) == 162
    assert setup.indicator == deal.deck0[deal.p0]
    # the first leader (YZ-08) holds the indicator card
    assert setup.hands[setup.first_leader][setup.indicator] >= 1


def _joker_indicator_game():
    """A game index whose default half-0 indicator is a joker (6/162 of positions)."""
    for g in range(2000):
        deal = deal_from_seed(9, g)
        if deal.deck0[deal.p0] >= 52:
            return g, deal
    raise AssertionError("no joker indicator found")


def test_yz06_redraw_turns_up_another_card_instead_of_a_joker():
    g, three = _joker_indicator_game()
    redraw = deal_from_seed(9, g, {"joker_indicator": "redraw"})
    # same shuffle, then bounded() again until the position holds no joker
    assert redraw.deck0 == three.deck0
    assert redraw.deck0[redraw.p0] < 52
    s = setup_half(redraw.deck0, redraw.p0, 0)
    assert s.dao_fallback == 0 and s.dao == redraw.deck0[redraw.p0] // 4
    s3 = setup_half(three.deck0, three.p0, 0)
    assert (s3.dao, s3.dao_fallback, s3.first_receiver) == (R3, 1, 3)


def _deck_with_indicator(card: int) -> tuple[list[int], int]:
    """The unshuffled deck (type t at 3t..3t+2) and the first position of ``card``."""
    return enc.canonical_deck().tolist(), 3 * card


@pytest.mark.parametrize(
    ("card", "half", "dao", "fallback"),
    [
        (R7 * 4 + S, 0, R7, 0),  # YZ-06: the 刀 is the indicator's rank
        (RK * 4 + D, 0, RK, 0),  # first half: a point rank is an ordinary 刀
        (R5 * 4 + H, 0, R5, 0),
        (52, 0, R3, 1),  # first half: a joker makes 3 the 刀
        (53, 0, R3, 1),
        (52, 1, R3, 1),  # second half: a joker ...
        (R5 * 4 + C, 1, R3, 2),  # ... or a point rank (5, 10, K) makes 3 the 刀
        (R10 * 4 + S, 1, R3, 2),
        (RK * 4 + H, 1, R3, 2),
        (R7 * 4 + D, 1, R7, 0),
        (R2 * 4 + S, 1, R2, 0),
    ],
)
def test_yz06_dao_rank_and_fallbacks(card, half, dao, fallback):
    deck, p = _deck_with_indicator(card)
    s = setup_half(deck, p, half, upstream0=2)
    assert (s.indicator, s.dao, s.dao_fallback) == (card, dao, fallback)


@pytest.mark.parametrize(
    ("rank", "seat"),
    # YZ-07: value mod 4 with A = 1, J = 11, Q = 12, K = 13
    [(RA, 1), (R2, 2), (R3, 3), (R4, 0), (R7, 3), (R8, 0), (R10, 2), (RJ, 3), (RQ, 0), (RK, 1)],
)
def test_yz07_first_receiver_is_indicator_value_mod_4(rank, seat):
    deck, p = _deck_with_indicator(rank * 4 + H)
    assert setup_half(deck, p, 0).first_receiver == seat


def test_yz07_joker_indicator_first_receiver_is_seat_3():
    deck, p = _deck_with_indicator(53)
    assert setup_half(deck, p, 0).first_receiver == 3  # a joker counts as 3 -> 西


def test_yz07_deal_one_at_a_time_41_41_40_40():
    # 162 = 4 x 40 + 2: the first receiver and the next seat get 41 cards
    deal = deal_from_seed(1, 3)
    for half, (deck, p) in enumerate([(deal.deck0, deal.p0), (deal.deck1, deal.p1)]):
        s = setup_half(deck, p, half, upstream0=2)
        sizes = [sum(h) for h in s.hands]
        fr = s.first_receiver
        assert sizes[fr] == sizes[(fr + 1) % 4] == 41
        assert sizes[(fr + 2) % 4] == sizes[(fr + 3) % 4] == 40
        # card i goes to seat (fr + i) % 4
        for i in (0, 1, 2, 3, 161):
            assert s.hands[(fr + i) % 4][deck[i]] >= 1
    # YZ-07: the second half starts dealing at the first-half 上游
    s1 = setup_half(deal.deck1, deal.p1, 1, upstream0=2)
    assert s1.first_receiver == 2


def test_yz07_second_half_deal_order_from_upstream():
    deck = list(range(54)) * 3  # position i holds card i % 54
    s = setup_half(deck, 10, 1, upstream0=1)
    # card 0 (3D) at position 0 -> seat 1; position 1 (3C) -> seat 2; position 3 (3S) -> seat 0
    assert s.hands[1][0] >= 1 and s.hands[2][1] >= 1 and s.hands[0][3] >= 1
    assert [sum(h) for h in s.hands] == [40, 41, 41, 40]


def test_yz08_first_leader_is_seat_dealt_the_indicator():
    deck = list(range(54)) * 3
    # indicator at position 6 is 3H? card 6 = rank 1 (4) suit 2 -> 4H, value 4 -> first receiver 0
    s = setup_half(deck, 6, 0)
    assert enc.card_name(s.indicator) == "4H"
    assert (s.first_receiver, s.first_leader) == (0, 6 % 4)  # (0 + 6) % 4 = 2
    # joker at position 52 (SJ): receiver 3, leader (3 + 52) % 4 = 3, even for a joker (YZ-08)
    s = setup_half(deck, 52, 0)
    assert (s.indicator, s.first_receiver, s.first_leader) == (52, 3, 3)
    # second half: the first-half 上游 receives first and leads
    s = setup_half(deck, 6, 1, upstream0=3)
    assert (s.first_receiver, s.first_leader) == (3, 3)


# --- YZ-09 … YZ-12: ranks and combinations -------------------------------------------------------


def test_yz09_rank_order_with_dao_leaving_its_place():
    # 刀 > 2 > A > K > ... > 4 > 3; here 7 is the 刀
    order = ["3S", "4S", "5S", "6S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "2S", "7S"]
    for low, high in zip(order, order[1:], strict=False):
        assert beats(high, low, dao="7"), (high, low)
        assert not beats(low, high, dao="7"), (low, high)
    # the 刀 7 no longer sits between 6 and 8
    assert beats("8S", "6S", dao="7")
    assert not beats("8S", "7S", dao="7")


def test_yz09_suits_do_not_matter_outside_atoms_and_hydrogen():
    assert not beats("7S", "7D", dao="2")
    assert not beats("7D", "7S", dao="2")
    assert not beats("9S 9S", "9D 9H", dao="2")


def test_yz10_types():
    c = classify("7S", "2")  # code = SINGLE | rank 4 << 3 | size 1 << 7 = 1 + 32 + 128
    assert (c.kind, c.size, c.rank, c.is_dao, c.suit, c.code) == (
        "single",
        1,
        "7",
        False,
        None,
        161,
    )
    assert classify("7S 7D", "2").kind == "pair"  # suits may differ
    assert classify("7S 7D 7H", "2").kind == "triple"
    assert (classify("4S 4D 4H 4C", "2").kind, classify("4S 4D 4H 4C", "2").size) == ("bomb", 4)
    assert classify("JS JS JD JD JH JC JC", "2").size == 7  # JJJJJJJ
    atom = classify("7S 7S 7S", "2")
    assert (atom.kind, atom.rank, atom.suit) == ("atom", "7", "S")
    dao_atom = classify("2H 2H 2H", "2")
    assert (dao_atom.kind, dao_atom.is_dao, dao_atom.suit) == ("atom", True, "H")
    assert classify("BJ BJ BJ", "2").code == pack(ATOM, ATOM_BJ_RANK, 3)  # 大王原子
    assert classify("SJ SJ SJ", "2").code == pack(ATOM, ATOM_SJ_RANK, 3)  # 小王原子
    hyd = classify("9D 9D 9C 9C 9H 9H 9S 9S", "2")
    assert (hyd.kind, hyd.size, hyd.rank, hyd.is_dao) == ("hydrogen", 8, "9", False)
    assert classify("9D 9D 9C 9C 9H 9H 9S 9S", "9").is_dao  # 刀氢弹


def test_yz10_no_other_types():
    assert classify("3S 4S 5S 6S 7S", "2") is None  # no sequences
    assert classify("7S 7S 8S 8S", "2") is None  # no two-pair
    assert classify("7S 7S 7S 8S 8S", "2") is None  # no full house
    assert classify("", "2") is None
    assert classify("7S 7S 7S 7S", "2") is None  # four 7S: impossible with three packs
    # 8 cards of one rank but not 2 per suit: a bomb
    assert classify("9D 9D 9D 9C 9H 9H 9S 9S", "2").kind == "bomb"


def test_yz11_jokers_are_wild_in_pairs_triples_bombs():
    c = classify("7S SJ", "2")
    assert (c.kind, c.rank, c.jokers, c.code) == ("pair", "7", 1, pack(PAIR, R7, 2, 1))
    c = classify("7S SJ BJ", "2")
    assert (c.kind, c.rank, c.jokers) == ("triple", "7", 2)
    c = classify("7S 7H SJ BJ SJ", "2")  # jokers count toward the bomb's size
    assert (c.kind, c.size, c.rank, c.jokers) == ("bomb", 5, "7", 3)
    assert beats("7S 7H SJ BJ SJ", "AS AS AH AD", dao="2")  # 5 cards beat 4


def test_yz11_jokers_never_with_dao_atoms_or_hydrogen():
    assert classify("7S SJ", "7") is None  # never with 刀 cards
    assert classify("7S 7S SJ", "2").kind == "triple"  # not an atom
    assert classify("9D 9D 9C 9C 9H 9H 9S SJ", "2").kind == "bomb"  # not hydrogen
    # a 7-刀 hand with a joker: no joker-7 combinations are legal
    moves = legal_moves("7S 7H SJ", None, "7")
    # 7: single, pair (no jokers) = 2; jokers alone: single = 1; total 3
    assert names(moves, "7S 7H SJ", "7") == [
        "dao single 7H (1 card)",
        "dao pair 7H 7S (2 cards)",
        "single SJ (1 card)",
    ]


def test_yz11_joker_only_plays_rank_3_and_are_never_dao():
    c = classify("SJ BJ", "2")
    assert (c.kind, c.rank, c.jokers, c.is_dao) == ("pair", "3", 2, False)
    assert classify("SJ BJ", "3").is_dao is False  # 3 is 刀, but jokers are never 刀
    assert classify("SJ SJ BJ", "2").kind == "triple"  # mixed jokers: a triple, not an atom
    assert classify("SJ SJ BJ BJ", "2").kind == "bomb"
    # rank 3 when 3 is not 刀: equal to natural 3s, below 4s
    assert not beats("SJ BJ", "3S 3H", dao="2") and not beats("3S 3H", "SJ BJ", dao="2")
    assert beats("4S 4H", "SJ BJ", dao="2")
    assert beats("SJ", "3S", dao="2") is False


def test_yz11_joker_only_below_4_when_3_is_dao():
    # 3 is the 刀: joker-only plays rank below 4, and natural 3s are 刀
    assert beats("4S 4H", "SJ BJ", dao="3")
    assert beats("4S", "BJ", dao="3")
    assert not beats("BJ", "4S", dao="3")
    assert beats("3S 3H", "SJ BJ", dao="3")  # a 刀 pair
    assert beats("3S 3H 3C 3D", "SJ SJ BJ BJ", dao="3")  # 刀 bomb over a joker bomb
    # joker singles when 3 is not 刀 (rank 3) beat nothing natural
    assert not beats("BJ", "3D", dao="2")


def test_yz12_three_identical_cards_are_a_triple_or_an_atom():
    moves = legal_moves("7S 7S 7S", None, "2")
    # rank 7, n = 3, no jokers: single, pair, triple (sizes 1..3) + atom 7S = 4 moves
    assert names(moves, "7S 7S 7S", "2") == [
        "single 7S (1 card)",
        "pair 7S 7S (2 cards)",
        "triple 7S 7S 7S (3 cards)",
        "atom 7S 7S 7S (3 cards)",
    ]
    # declared as a triple it is beaten by a higher triple; as an atom it is not
    triple, atom = pack(TRIPLE, R7, 3), pack(ATOM, R7, 3, 0, S)
    assert pack(TRIPLE, R8, 3) in legal_moves("8D 8C 8H", triple, "2")
    assert legal_moves("8D 8C 8H", atom, "2") == [PASS]


def test_yz12_eight_cards_two_per_suit_are_hydrogen_or_bombs():
    hand = "9D 9D 9C 9C 9H 9H 9S 9S"
    moves = legal_moves(hand, None, "2")
    # single, pair, triple, bombs of 4, 5, 6, 7, 8, hydrogen: 3 + 5 + 1 = 9 moves
    assert len(moves) == 9
    assert [kind_of(c) for c in moves].count(BOMB) == 5
    assert pack(HYDROGEN, R9, 8) in moves and pack(BOMB, R9, 8) in moves
    assert classify(hand, "2").kind == "hydrogen"  # strongest reading


def test_legal_moves_count_with_wild_jokers():
    hand = "5D 5D 5D SJ BJ"
    moves = legal_moves(hand, None, "2")
    # rank 5, n = 3 naturals, J = 2 jokers; (size: naturals k with 1 <= k <= min(3, s), s-k <= 2)
    # s=1: k=1 -> 1; s=2: k=1,2 -> 2; s=3: k=1..3 -> 3; s=4: k=2,3 -> 2; s=5: k=3 -> 1  => 9
    # + atom 5D = 1; + joker-only single and pair = 2  => 12
    assert len(moves) == 12
    assert len(set(moves)) == 12 and moves == sorted(moves)
    assert pack(BOMB, R5, 5, 2) in moves and pack(ATOM, R5, 3, 0, D) in moves
    assert pack(PAIR, R3, 2, 2) in moves  # SJ BJ


def test_legal_moves_count_small_hand_leading_and_following():
    hand = "7S 7H SJ"
    # rank 7: n = 2, J = 1: s=1 k=1; s=2 k=1,2; s=3 k=2  => 4; + joker single => 5
    assert len(legal_moves(hand, None, "2")) == 5
    # facing single 8: nothing beats (7 < 8, joker = 3) -> PASS only
    assert legal_moves(hand, "8D", "2") == [PASS]
    hand = "7S 9S 9H SJ"
    # facing single 8S: single 9 only (9 + SJ is a pair) -> [PASS, single 9] = 2
    assert legal_moves(hand, "8S", "2") == [PASS, pack(SINGLE, R9, 1)]
    # facing pair 8: 9 9 and 9 SJ (7 SJ ranks 7 < 8) -> 3 codes with PASS
    assert legal_moves(hand, "8S 8D", "2") == [PASS, pack(PAIR, R9, 2), pack(PAIR, R9, 2, 1)]


def test_describe_move_lists_the_cards_given_up():
    assert describe_move(pack(BOMB, R7, 4), "7D 7C 7H 7S 8S") == "bomb 7D 7C 7H 7S (4 cards)"
    assert describe_move(pack(PAIR, R3, 2, 2), "SJ BJ 4S") == "pair SJ BJ (2 cards)"
    assert (
        describe_move(pack(ATOM, R2, 3, 0, H), "2H 2H 2H", dao="2") == "dao atom 2H 2H 2H (3 cards)"
    )
    assert describe_move(PASS, "7S") == "pass"


def test_cards_given_up_protocol_order():
    # protocol §2: wild jokers small first; naturals one at a time from the suit with fewest
    # remaining copies (> 0), ties to the lowest suit idx (D < C < H < S)
    assert cards_text(cards_given_up("7D 7H 7H 7S 7S 7S", pack(PAIR, R7, 2))) == "7D 7H"
    # single from D D D C C H H S S: fewest is 2 (C, H, S) -> C (lowest idx); hydrogen is lost
    assert cards_text(cards_given_up("7D 7D 7D 7C 7C 7H 7H 7S 7S", pack(SINGLE, R7, 1))) == "7C"
    # triple from 7H 7S 7S 7S: H (1), then S, S
    assert cards_text(cards_given_up("7H 7S 7S 7S", pack(TRIPLE, R7, 3))) == "7H 7S 7S"
    # ties among equal counts: D first
    assert cards_text(cards_given_up("8D 8C 8H 8S", pack(PAIR, R8, 2))) == "8D 8C"
    # bomb of 7 with 3 jokers from SJ BJ BJ SJ: SJ SJ then BJ
    hand = "7S 7H SJ SJ BJ BJ"
    assert cards_text(cards_given_up(hand, pack(BOMB, R7, 5, 3))) == "7H 7S SJ SJ BJ"
    assert cards_text(cards_given_up(hand, pack(SINGLE, R3, 1, 1))) == "SJ"  # joker single
    assert cards_text(cards_given_up("9D 9D 9D 9C 9C 9H 9H 9S 9S", pack(HYDROGEN, R9, 8))) == (
        "9D 9D 9C 9C 9H 9H 9S 9S"
    )
    with pytest.raises(ValueError, match="not in hand"):
        cards_given_up("7S 7S", pack(TRIPLE, R7, 3))


# --- YZ-13 … YZ-17: beats ------------------------------------------------------------------------


def test_yz13_same_type_same_count_higher_rank():
    assert beats("8S", "7S", dao="2")
    assert beats("8S 8D", "7S 7H", dao="2")
    assert beats("8S 8D 8H", "7S 7H 7D", dao="2")
    assert not beats("7S 7H", "7C 7D", dao="2")  # equal ranks do not beat each other
    assert not beats("8S 8D", "7S", dao="2")  # a pair does not beat a single
    assert not beats("8S", "7S 7H", dao="2")
    assert not beats("8S 8D 8H", "7S 7H", dao="2")


def test_yz13_bomb_class_beats_basic_plays():
    for top in ("AS", "AS AH", "AS AH AD"):
        assert beats("4S 4H 4D 4C", top, dao="2")  # any bomb
        assert beats("4S 4S 4S", top, dao="2")  # an atom
        assert beats("4D 4D 4C 4C 4H 4H 4S 4S", top, dao="2")  # hydrogen
        assert beats("SJ SJ BJ BJ", top, dao="2")  # a joker bomb is a bomb
    # the atom read from 7S 7S 7S beats a triple of aces
    assert beats("7S 7S 7S", "AS AH AD", dao="2")


def test_yz14_dao_single_not_beaten_by_ordinary_bomb():
    # 2 is the 刀: 2S is a 刀 single
    assert not beats("AS AH AD AC", "2S", dao="2")
    assert not beats("AS AH AD AC AS AH AD AC SJ", "2S", dao="2")
    assert not beats("SJ SJ BJ BJ", "2S", dao="2")  # joker bombs are never 刀
    assert not beats("AS AH", "2S 2D", dao="2") and not beats("AS AH AD", "2S 2D 2H", dao="2")
    assert beats("4S 4S 4S", "2S", dao="2")  # atoms
    assert beats("4D 4D 4C 4C 4H 4H 4S 4S", "2S 2H 2D", dao="2")  # hydrogen
    assert beats("2S 2H 2D 2C", "2S", dao="2")  # 刀 bomb (default)
    assert beats("2S 2H 2D 2C", "2S 2H", dao="2")
    assert beats("2S 2H 2D 2C", "2S 2H 2C", dao="2")


def test_yz14_variant_dao_bomb_does_not_beat_dao_basic():
    rules = {"dao_bomb_beats_dao_basic": False}
    assert not beats("2S 2H 2D 2C", "2S", dao="2", rules=rules)
    assert not beats("2S 2H 2D 2C", "2S 2H 2D", dao="2", dao_bomb_beats_dao_basic=False)
    assert beats("4S 4S 4S", "2S", dao="2", rules=rules)  # atoms still do
    assert beats("4D 4D 4C 4C 4H 4H 4S 4S", "2S", dao="2", rules=rules)
    assert beats("2S 2H 2D 2C", "AS", dao="2", rules=rules)  # non-刀 tops are unchanged
    # legal moves: a 刀 bomb holder facing a 刀 single can only pass under the variant
    hand = "2S 2H 2D 2C"
    assert pack(BOMB, R2, 4) in legal_moves(hand, "2S", "2")
    assert legal_moves(hand, "2S", "2", rules=rules) == [PASS]


def test_yz15_hydrogen_over_atom_over_bomb():
    assert beats("3S 3S 3S", "AS AS AH AH AD AD AC AC SJ BJ", dao="2")  # atom over 10-card bomb
    assert not beats("AS AS AH AH AD AD AC AC SJ BJ", "3S 3S 3S", dao="2")
    assert beats("3D 3D 3C 3C 3H 3H 3S 3S", "AS AS AS", dao="2")  # hydrogen over atom
    assert beats("3D 3D 3C 3C 3H 3H 3S 3S", "2S 2S 2S", dao="2")  # ... even a 刀 atom
    assert beats("3D 3D 3C 3C 3H 3H 3S 3S", "BJ BJ BJ", dao="2")
    assert not beats("2S 2S 2S", "3D 3D 3C 3C 3H 3H 3S 3S", dao="2")
    assert beats("3D 3D 3C 3C 3H 3H 3S 3S", "2S 2S 2H 2H 2D 2D", dao="2")  # over 刀 bomb


def test_yz15_bomb_versus_bomb_default_over_all():
    assert beats("5S 5H 5D 5C 5S", "AS AH AD AC", dao="2")  # more cards wins
    assert not beats("AS AH AD AC", "5S 5H 5D 5C 5S", dao="2")
    assert beats("AS AH AD AC", "KS KH KD KC", dao="2")  # same size: higher rank
    assert not beats("7S 7S 7H SJ", "7D 7D 7C 7C", dao="2")  # same size, same rank
    # a 刀 bomb (natural 刀 only) beats every ordinary bomb, even a bigger one
    big = "AS AS AH AH AD AD AC AC SJ BJ SJ"
    assert beats("2S 2H 2D 2C", big, dao="2")
    assert not beats(big, "2S 2H 2D 2C", dao="2")
    # 刀 bombs among themselves: more cards
    assert beats("2S 2H 2D 2C 2S", "2S 2H 2D 2C", dao="2")
    assert not beats("2S 2H 2D 2C", "2S 2H 2D 2C 2S", dao="2")
    assert not beats("2S 2H 2D 2C", "2S 2H 2D 2D", dao="2")  # equal 刀 bombs


def test_yz15_variant_dao_bomb_same_count_only():
    rules = {"dao_bomb": "same_count_only"}
    big = "AS AS AH AH AD"  # an ordinary 5-card bomb
    assert not beats("2S 2H 2D 2C", big, dao="2", rules=rules)  # size still comes first
    assert beats(big, "2S 2H 2D 2C", dao="2", rules=rules)
    assert beats("2S 2H 2D 2C", "AS AH AD AC", dao="2", rules=rules)  # same size: 刀 wins
    assert not beats("AS AH AD AC", "2S 2H 2D 2C", dao="2", rules=rules)
    assert beats("2S 2H 2D 2C 2S", "2S 2H 2D 2C", dao="2", rules=rules)
    assert beats("AS AH AD AC", "KS KH KD KC", dao="2", rules=rules)
    # default: the same 4-card 刀 bomb beats the 5-card ordinary bomb
    assert beats("2S 2H 2D 2C", big, dao="2")


def test_yz16_atom_order():
    ordered = [
        "3D 3D 3D",
        "3S 3S 3S",
        "7D 7D 7D",  # by rank, then suit S > H > C > D
        "7C 7C 7C",
        "7H 7H 7H",
        "7S 7S 7S",
        "AS AS AS",
        "2S 2S 2S",  # the natural 2 is not the 刀 here (the 刀 is 9)
        "SJ SJ SJ",  # 小王原子
        "BJ BJ BJ",  # 大王原子
        "9D 9D 9D",  # 刀原子 by suit
        "9C 9C 9C",
        "9H 9H 9H",
        "9S 9S 9S",
    ]
    for i, low in enumerate(ordered):
        for high in ordered[i + 1 :]:
            assert beats(high, low, dao="9"), (high, low)
            assert not beats(low, high, dao="9"), (low, high)


def test_yz16_atoms_beat_bombs_but_bombs_never_beat_atoms():
    assert beats("3D 3D 3D", "2S 2S 2H 2H 2D 2D 2C", dao="2")  # weakest atom over 刀 bomb
    assert not beats("2S 2S 2H 2H 2D 2D 2C", "3D 3D 3D", dao="2")


def test_yz17_hydrogen_order():
    h9 = "9D 9D 9C 9C 9H 9H 9S 9S"
    h8 = "8D 8D 8C 8C 8H 8H 8S 8S"
    h2 = "2D 2D 2C 2C 2H 2H 2S 2S"
    assert beats(h9, h8, dao="2") and not beats(h8, h9, dao="2")
    assert beats(h2, h9, dao="7")  # by rank
    assert beats(h8, h2, dao="8")  # 刀氢弹 beats ordinary ones
    assert not beats(h2, h8, dao="8")
    assert not beats(h9, h9, dao="2")  # equal never beats


def test_beats_rejects_non_combinations():
    with pytest.raises(ValueError):
        beats("7S 8S", "6S", dao="2")
    with pytest.raises(ValueError):
        beats("7S", "6S 5S", dao="2")


def test_deal_dataclass_fields():
    deal = Deal([1, 2], 0, [3, 4], 1)
    assert (deal.deck0, deal.p0, deal.deck1, deal.p1) == ([1, 2], 0, [3, 4], 1)
