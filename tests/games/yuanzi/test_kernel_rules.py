"""Kernel rule cases on hand-built hands: legal moves, beats, card removal, tricks, settlement.

Each test names the ruling it checks (../shared/RULINGS.md) and follows docs/yuanzi-protocol.md.
"""

import numpy as np
import pytest
from cardsim.kernels.yuanzi import rules as R
from cardsim.kernels.yuanzi.encoding import (
    ATOM,
    BOMB,
    HYDROGEN,
    MAX_MOVES,
    PAIR,
    PASS,
    SINGLE,
    TRIPLE,
    pack_move,
    parse_card,
)
from cardsim.kernels.yuanzi.state import (
    N_ST,
    ST_ACTOR,
    ST_CAPT,
    ST_COUNT,
    ST_DAO,
    ST_DONE,
    ST_FINISH,
    ST_NOUT,
    ST_OUT,
    ST_PASSED,
    ST_POINTS,
    ST_TEAM_PTS,
    ST_TOP,
    ST_TOP_SEAT,
    ST_TRICK_PTS,
    rules_array,
)

# rank idx: 3=0 4=1 5=2 6=3 7=4 8=5 9=6 10=7 J=8 Q=9 K=10 A=11 2=12; suits D C H S = 0..3
R3, R5, R7, R9, R10, RK, RA, R2 = 0, 2, 4, 6, 7, 10, 11, 12


def hand_of(text):
    h = np.zeros(54, np.uint8)
    for t in text.split():
        h[parse_card(t)] += 1
    return h


def all_moves(text, dao):
    buf = np.zeros(MAX_MOVES, np.int32)
    n = R.gen_all(hand_of(text), dao, buf)
    codes = list(buf[:n])
    assert len(set(codes)) == n, "codes must be distinct"
    return set(codes)


def beat_moves(text, dao, top, rules=None):
    buf = np.zeros(MAX_MOVES, np.int32)
    n = R.gen_beats(hand_of(text), dao, top, rules_array(rules), buf)
    return set(buf[:n])


def mv(kind, rank, size=None, jokers=0, suit=0):
    size = (
        {SINGLE: 1, PAIR: 2, TRIPLE: 3, ATOM: 3, HYDROGEN: 8}.get(kind, size)
        if size is None
        else size
    )
    return int(pack_move(kind, rank, size, jokers, suit))


def beats(play, top, dao, rules=None):
    return bool(R.beats(play, top, dao, rules_array(rules)))


# --- legal moves (YZ-10 … YZ-12, protocol §2) -----------------------------------------


def test_yz10_yz12_three_identical_cards_are_triple_and_atom():
    # ♠7 ×3: single, pair, triple of 7 and the ♠7 atom (YZ-12: the player declares)
    assert all_moves("7S 7S 7S", dao=R2) == {
        mv(SINGLE, R7),
        mv(PAIR, R7),
        mv(TRIPLE, R7),
        mv(ATOM, R7, suit=3),
    }


def test_yz10_mixed_suits_are_no_atom():
    assert mv(ATOM, R7, suit=3) not in all_moves("7S 7S 7H", dao=R2)


def test_yz11_jokers_wild_in_pairs_triples_bombs_and_alone():
    # 7♦ + one small joker, 刀 = 2: single 7, pair 7 with 1 joker, joker single (a "3")
    assert all_moves("7D SJ", dao=R2) == {
        mv(SINGLE, R7),
        mv(PAIR, R7, jokers=1),
        mv(SINGLE, R3, jokers=1),
    }


def test_yz11_jokers_never_join_dao_cards():
    # 刀 = 10: 10♦ with two jokers gives no 10-pair with a joker; jokers alone still pair
    assert all_moves("10D SJ BJ", dao=R10) == {
        mv(SINGLE, R10),
        mv(SINGLE, R3, jokers=1),
        mv(PAIR, R3, size=2, jokers=2),
    }


def test_yz11_joker_bomb_counts_jokers_toward_size():
    moves = all_moves("9D 9C 9H SJ SJ BJ", dao=R2)
    # bombs of 9: sizes 4..6 with 1..3 jokers (at least one natural card per play)
    bombs = {c for c in moves if c & 7 == BOMB}
    assert bombs == {
        mv(BOMB, R9, 4, 1),
        mv(BOMB, R9, 4, 2),
        mv(BOMB, R9, 4, 3),
        mv(BOMB, R9, 5, 2),
        mv(BOMB, R9, 5, 3),
        mv(BOMB, R9, 6, 3),
    }
    # 3 jokers alone: single, pair, triple (mixed SJ/BJ triple is a triple, never an atom)
    assert mv(TRIPLE, R3, 3, 3) in moves
    assert not any(c & 7 == ATOM for c in moves)


def test_yz11_three_small_jokers_make_the_small_joker_atom():
    moves = all_moves("SJ SJ SJ", dao=R2)
    assert mv(ATOM, 13) in moves and mv(TRIPLE, R3, 3, 3) in moves


@pytest.mark.parametrize("n,j", [(1, 0), (2, 1), (3, 2), (4, 6), (12, 0), (5, 3)])
def test_yz10_yz11_move_count_per_rank(n, j):
    # for one rank with n natural cards (spread over suits, < 2 of some suit, no atom) and j
    # jokers: sum over size s of the natural counts k with max(1, s-j) <= k <= min(n, s)
    suits = "DCHS"
    cards = " ".join(f"9{suits[i % 4]}" for i in range(n))
    jokers = " ".join(["SJ"] * min(j, 3) + ["BJ"] * max(0, j - 3))
    moves = all_moves(f"{cards} {jokers}", dao=R2)
    nines = [c for c in moves if (c >> 3) & 15 == R9 and c & 7 <= BOMB]
    expect = sum(min(n, s) - max(1, s - j) + 1 for s in range(1, n + j + 1))
    assert len(nines) == expect
    if n == 12:  # 3 of every suit: four atoms and the hydrogen bomb too
        assert sum(1 for c in moves if c & 7 == ATOM) == 4
        assert mv(HYDROGEN, R9) in moves


def test_yz10_hydrogen_needs_two_of_every_suit():
    assert mv(HYDROGEN, R9) in all_moves("9D 9D 9C 9C 9H 9H 9S 9S", dao=R2)
    assert mv(HYDROGEN, R9) not in all_moves("9D 9D 9D 9C 9C 9H 9H 9S", dao=R2)


# --- beats (YZ-13 … YZ-17, protocol §3) -------------------------------------------------


def test_yz13_same_type_higher_rank_beats_equal_does_not():
    assert beats(mv(PAIR, RK), mv(PAIR, R9), dao=R3)
    assert not beats(mv(PAIR, R9), mv(PAIR, R9, jokers=1), dao=R3)  # equal ranks
    assert not beats(mv(PAIR, RK), mv(SINGLE, R9), dao=R3)  # other type
    assert beats(mv(SINGLE, R2), mv(SINGLE, RA), dao=R3)  # YZ-09: 2 > A


def test_yz09_dao_rank_leaves_its_place():
    # 刀 = 7: a single 7 beats a single 2
    assert beats(mv(SINGLE, R7), mv(SINGLE, R2), dao=R7)
    assert not beats(mv(SINGLE, R2), mv(SINGLE, R7), dao=R7)


def test_yz11_joker_only_plays_are_threes_below_four_when_three_is_dao():
    joker_pair = mv(PAIR, R3, 2, 2)
    four_pair = mv(PAIR, 1)
    assert beats(four_pair, joker_pair, dao=R3)  # jokers rank below 4 when 3 is 刀
    assert beats(mv(PAIR, R3), joker_pair, dao=R3)  # natural 3s are the 刀 here
    assert not beats(mv(PAIR, R3), joker_pair, dao=R2)  # both "3": equal
    assert not beats(joker_pair, mv(PAIR, R3), dao=R2)


def test_yz13_any_bomb_class_beats_basic_plays():
    for play in (mv(BOMB, R3, 4), mv(ATOM, R3, suit=0), mv(HYDROGEN, R3)):
        assert beats(play, mv(TRIPLE, R2), dao=RA)


@pytest.mark.parametrize("variant", [True, False])
def test_yz14_dao_basic_beaten_only_by_atoms_hydrogen_dao_bombs(variant):
    rules = {"dao_bomb_beats_dao_basic": variant}
    top = mv(PAIR, R7)  # 刀 = 7
    assert not beats(mv(BOMB, R2, 12), top, R7, rules)  # ordinary bomb never
    assert beats(mv(ATOM, R3, suit=0), top, R7, rules)
    assert beats(mv(HYDROGEN, R3), top, R7, rules)
    assert beats(mv(BOMB, R7, 4), top, R7, rules) == variant  # 刀 bomb: the variant
    assert not beats(mv(BOMB, R3, 4, 4), top, R7, rules)  # joker bomb is never 刀


def test_yz14_dao_bomb_beats_dao_basic_default_in_legal_set():
    got = beat_moves("7D 7C 7H 7S 9D", dao=R7, top=mv(SINGLE, R7))
    assert got == {mv(BOMB, R7, 4)}
    assert (
        beat_moves("7D 7C 7H 7S", R7, mv(SINGLE, R7), {"dao_bomb_beats_dao_basic": False}) == set()
    )


def test_yz15_bomb_size_then_rank():
    assert beats(mv(BOMB, R3, 5), mv(BOMB, R2, 4), dao=RA)
    assert beats(mv(BOMB, RK, 5), mv(BOMB, R9, 5, 1), dao=RA)
    assert not beats(mv(BOMB, R9, 5), mv(BOMB, R9, 5, 2), dao=RA)


def test_yz15_dao_bomb_over_all():
    dao4 = mv(BOMB, R7, 4)
    assert beats(dao4, mv(BOMB, R2, 12), dao=R7)
    assert not beats(mv(BOMB, R2, 12), dao4, dao=R7)
    assert beats(mv(BOMB, R7, 5), dao4, dao=R7) and not beats(dao4, mv(BOMB, R7, 5), dao=R7)


def test_yz15_dao_bomb_same_count_only():
    rules = {"dao_bomb": "same_count_only"}
    dao4 = mv(BOMB, R7, 4)
    assert not beats(dao4, mv(BOMB, R2, 5), R7, rules)  # size first
    assert beats(mv(BOMB, R2, 5), dao4, R7, rules)
    assert beats(dao4, mv(BOMB, R2, 4), R7, rules)  # same size: 刀 wins
    assert not beats(mv(BOMB, R2, 4), dao4, R7, rules)


def test_yz15_class_order_hydrogen_atom_bomb():
    assert beats(mv(ATOM, R3, suit=0), mv(BOMB, R2, 18, 6), dao=RA)
    assert beats(mv(HYDROGEN, R3), mv(ATOM, R2, suit=3), dao=RA)
    assert not beats(mv(BOMB, R2, 18, 6), mv(ATOM, R3, suit=0), dao=RA)


def test_yz16_atom_order():
    dao = R7
    dao_atom = [mv(ATOM, R7, suit=s) for s in range(4)]
    big, small = mv(ATOM, 14), mv(ATOM, 13)
    ordinary = [mv(ATOM, r, suit=s) for r in (R3, R9, R2) for s in range(4)]
    chain = ordinary + [small, big] + dao_atom  # increasing
    for i, lo in enumerate(chain):
        for hi in chain[i + 1 :]:
            assert beats(hi, lo, dao) and not beats(lo, hi, dao)
    assert not beats(mv(ATOM, R9, suit=2), mv(ATOM, R9, suit=2), dao)


def test_yz17_hydrogen_order():
    assert beats(mv(HYDROGEN, R7), mv(HYDROGEN, R2), dao=R7)
    assert beats(mv(HYDROGEN, RK), mv(HYDROGEN, R9), dao=R7)
    assert not beats(mv(HYDROGEN, R9), mv(HYDROGEN, RK), dao=R7)


def test_yz17_only_a_higher_hydrogen_follows_a_hydrogen():
    # eight naturals, every suit twice: the fewest a hydrogen bomb needs, and the follow
    # generator's rank pre-selection must not skip that rank (no bomb or atom beats a hydrogen)
    rules = rules_array()
    buf = np.zeros(MAX_MOVES, np.int32)
    hand = hand_of("KD KD KC KC KH KH KS KS 4D 4D 4D 4C SJ BJ")
    for top, want in ((mv(HYDROGEN, R9), [mv(HYDROGEN, RK)]), (mv(HYDROGEN, RA), [])):
        k = R.gen_beats(hand, R7, top, rules, buf)
        assert list(buf[:k]) == want


def _rich_hand(rng):
    """A hand rich in jokers, atoms (YZ-16) and hydrogen bombs (YZ-17): random counts, a sixth
    of the natural cards raised to three copies, 0 … 3 of each joker."""
    hand = np.zeros(54, np.uint8)
    for t in rng.integers(54, size=int(rng.integers(40))):
        hand[t] += 1
    hand[:52][rng.integers(6, size=52) == 0] = 3
    hand[52:] = rng.integers(4, size=2)
    return np.minimum(hand, 3).astype(np.uint8)


def test_beats_generator_equals_filter_of_all_moves():
    # gen_beats must equal [m in gen_all : beats(m, top)] on random hands, for all variants,
    # in gen_all's order (random follows draw by index: the order is part of the outcome)
    rng = np.random.default_rng(5)
    buf = np.zeros(MAX_MOVES, np.int32)
    rich = 0
    for trial in range(240):
        rules = rules_array(
            {
                "dao_bomb_beats_dao_basic": bool(trial % 2),
                "dao_bomb": ("over_all", "same_count_only")[(trial // 2) % 2],
            }
        )
        hand = np.zeros(54, np.uint8)
        for t in rng.choice(162, size=41, replace=False) // 3:
            hand[t] += 1
        if trial % 3 == 2:
            hand = _rich_hand(rng)
            rich += hand[52] + hand[53] >= 4
        dao = int(rng.integers(13))
        n = R.gen_all(hand, dao, buf)
        everything = list(buf[:n])
        other = np.zeros(54, np.uint8)
        for t in rng.choice(162, size=30, replace=False) // 3:
            other[t] += 1
        if trial % 3 == 2:
            other = _rich_hand(rng)  # tops: atoms, hydrogen bombs, joker bombs
        m = R.gen_all(other, dao, buf)
        for top in list(buf[:m])[:: max(1, m // 25)]:
            want = [c for c in everything if R.beats(c, top, dao, rules)]
            k = R.gen_beats(hand, dao, top, rules, buf)
            assert list(buf[:k]) == want
    assert rich >= 10  # hands with four or more jokers (joker-only bombs) are among them


# --- physical cards (protocol §2) --------------------------------------------------------


def test_protocol_cards_given_up_keep_atoms_and_hydrogen_longest():
    hand = hand_of("9D 9C 9C 9S 9S 9S SJ BJ")
    played = np.zeros(54, np.uint8)
    # pair of 9s: fewest remaining copies first, ties to the lowest suit: 9D then 9C
    assert R.remove_cards(hand, played, mv(PAIR, R9)) == 0
    assert hand[parse_card("9D")] == 0 and hand[parse_card("9C")] == 1
    # a triple with one joker: the small joker, then 9C, then a 9S
    R.remove_cards(hand, played, mv(TRIPLE, R9, jokers=1))
    assert hand[52] == 0 and hand[53] == 1 and hand[parse_card("9S")] == 2
    assert played.sum() == 5


def test_yz03_points_leave_with_the_cards():
    hand = hand_of("KD KD KD 10H 10H 10H 10H 5S")
    played = np.zeros(54, np.uint8)
    assert R.remove_cards(hand, played, mv(ATOM, RK, suit=0)) == 30
    assert R.remove_cards(hand, played, mv(BOMB, R10, 4)) == 40
    assert R.hand_points(hand) == 5


# --- tricks (YZ-18, YZ-19, protocol §4) ---------------------------------------------------


def table(hands, dao, leader):
    """A mid-half state with the given hands (list of 4 strings) and ``leader`` to lead."""
    h = np.stack([hand_of(t) for t in hands])
    st = np.zeros(N_ST, np.int64)
    st[ST_DAO] = dao
    for s in range(4):
        st[ST_COUNT + s] = h[s].sum()
        st[ST_FINISH + s] = 4
    st[ST_ACTOR] = leader
    st[ST_TOP_SEAT] = -1
    return h, np.zeros((4, 54), np.uint8), st


def legal(h, st, rules):
    buf = np.zeros(MAX_MOVES, np.int32)
    n = R.legal_moves(h, st, rules, buf)
    return set(buf[:n])


def test_yz18_leader_may_not_pass_follower_may_even_when_able():
    h, p, st = table(["4D 9D", "5D 6D", "7D 8D", "JD QD"], R2, 0)
    rules = rules_array()
    assert PASS not in legal(h, st, rules)
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)  # seat 0 leads a 4
    assert st[ST_ACTOR] == 1
    assert legal(h, st, rules) == {PASS, mv(SINGLE, R5), mv(SINGLE, 3)}


def test_yz18_pass_only_if_unable():
    rules = rules_array({"pass_only_if_unable": True})
    h, p, st = table(["4D 9D", "5D 6D", "3D 3C", "JD QD"], R2, 0)
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)
    assert PASS not in legal(h, st, rules)
    h, p, st = table(["AD 9D", "5D 6D", "3D 3C", "JD QD"], R2, 0)
    R.apply_move(mv(SINGLE, RA), h, p, st, rules)
    assert legal(h, st, rules) == {PASS}  # unable: the only move is to pass


@pytest.mark.parametrize("final", [False, True])
def test_yz18_pass_is_final(final):
    rules = rules_array({"pass_is_final": final})
    h, p, st = table(["4D 9D 9C", "5D 6D", "7D 8D", "JD QD"], R2, 0)
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)  # 0 leads 4
    R.apply_move(PASS, h, p, st, rules)  # 1 passes
    R.apply_move(mv(SINGLE, R7), h, p, st, rules)  # 2 plays 7
    R.apply_move(mv(SINGLE, 8), h, p, st, rules)  # 3 plays J
    R.apply_move(PASS, h, p, st, rules)  # 0 passes
    # seat 1 passed before; it may play again unless passing is final
    assert st[ST_ACTOR] == (2 if final else 1)


def test_yz19_last_player_takes_the_trick_points_and_leads():
    rules = rules_array()
    h, p, st = table(["5D 9D", "KD 6D", "7D 8D", "JD QD"], R2, 0)
    R.apply_move(mv(SINGLE, R5), h, p, st, rules)  # 5 points
    R.apply_move(mv(SINGLE, RK), h, p, st, rules)  # K: 10 points
    for _ in range(3):
        R.apply_move(PASS, h, p, st, rules)
    assert st[ST_CAPT + 1] == 15 and st[ST_TRICK_PTS] == 0
    assert st[ST_ACTOR] == 1 and st[ST_TOP] == 0 and st[ST_PASSED : ST_PASSED + 4].sum() == 0


@pytest.mark.parametrize("mode,leader", [("next", 2), ("partner", 3)])
def test_yz19_lead_after_out(mode, leader):
    rules = rules_array({"lead_after_out": mode})
    h, p, st = table(["4D 9D", "AD", "7D 8D", "JD QD"], R2, 0)
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)
    R.apply_move(mv(SINGLE, RA), h, p, st, rules)  # seat 1 goes out on the ace
    assert st[ST_NOUT] == 1 and st[ST_OUT] == 1
    R.apply_move(PASS, h, p, st, rules)  # 2
    R.apply_move(PASS, h, p, st, rules)  # 3
    R.apply_move(PASS, h, p, st, rules)  # 0: trick over, seat 1 is out
    assert st[ST_CAPT + 1] == 0 and st[ST_ACTOR] == leader


# --- end of a half and settlement (YZ-20 … YZ-24, protocol §5) --------------------------


def test_yz20_two_opponents_out_does_not_end_the_half():
    rules = rules_array()
    h, p, st = table(["4D", "AD", "7D 8D", "JD QD"], R2, 0)
    assert R.apply_move(mv(SINGLE, 1), h, p, st, rules) == 0  # seat 0 out
    assert R.apply_move(mv(SINGLE, RA), h, p, st, rules) == 0  # seat 1 out: opponents
    assert st[ST_DONE] == 0 and st[ST_NOUT] == 2


def test_yz20_yz23_one_two_finish_all():
    rules = rules_array()
    # seat 0 then seat 2 go out; seats 1, 3 hold 5 + 10 + K = 25 hand points, captured 40
    h, p, st = table(["4D", "5D 6D", "9D", "10D KD 3S"], R2, 0)
    st[ST_CAPT + 1] = 30
    st[ST_CAPT + 3] = 10
    st[ST_CAPT + 0] = 300 - 25 - 40
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)  # 0 out
    R.apply_move(PASS, h, p, st, rules)
    assert R.apply_move(mv(SINGLE, R9), h, p, st, rules) == 1  # 2 out: 1-2 finish
    assert list(st[ST_FINISH : ST_FINISH + 4]) == [1, 4, 2, 4]
    assert st[ST_POINTS + 1] == 0 and st[ST_POINTS + 3] == 0
    assert st[ST_TEAM_PTS] == 300 and st[ST_TEAM_PTS + 1] == 0


def test_yz23_one_two_finish_hand_only():
    rules = rules_array({"one_two_settlement": "hand_only"})
    h, p, st = table(["4D", "5D 6D", "9D", "10D KD 3S"], R2, 0)
    st[ST_CAPT + 1] = 30
    st[ST_CAPT + 3] = 10
    st[ST_CAPT + 0] = 235
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)
    R.apply_move(PASS, h, p, st, rules)
    R.apply_move(mv(SINGLE, R9), h, p, st, rules)
    # only the 25 in-hand points move to the 上游 (seat 0)
    assert list(st[ST_POINTS : ST_POINTS + 4]) == [260, 30, 0, 10]
    assert st[ST_TEAM_PTS] == 260 and st[ST_TEAM_PTS + 1] == 40


def test_yz21_yz22_three_out():
    rules = rules_array()
    # out order 1, 0, 3; the 下游 seat 2 keeps 5 + K in hand and had captured 20.
    h, p, st = table(["AD", "QD", "5D KD 4S", "2S 10D"], R2, 1)
    st[ST_CAPT + 2] = 20
    st[ST_CAPT + 0] = 300 - 20 - 25
    R.apply_move(mv(SINGLE, 9), h, p, st, rules)  # seat 1 out with Q
    R.apply_move(PASS, h, p, st, rules)  # 2
    R.apply_move(PASS, h, p, st, rules)  # 3
    assert R.apply_move(mv(SINGLE, RA), h, p, st, rules) == 0  # 0 out: opponents, go on
    R.apply_move(PASS, h, p, st, rules)  # 2
    R.apply_move(PASS, h, p, st, rules)  # 3: trick over, 0 is out -> seat 1 out -> 2 leads
    assert st[ST_ACTOR] == 2
    R.apply_move(mv(SINGLE, 1), h, p, st, rules)  # 2 leads 4
    R.apply_move(mv(SINGLE, R2), h, p, st, rules)  # 3: the 2 (刀)
    R.apply_move(PASS, h, p, st, rules)  # 2: trick over, 3 leads
    assert st[ST_ACTOR] == 3
    assert R.apply_move(mv(SINGLE, R10), h, p, st, rules) == 1  # 3 out on the 10
    assert list(st[ST_OUT : ST_OUT + 3]) == [1, 0, 3]
    assert list(st[ST_FINISH : ST_FINISH + 4]) == [2, 1, 4, 3]
    # YZ-21: the open trick's 10 go to seat 3; YZ-22: 下游's 15 in hand to seat 3 (third out),
    # its captured 20 to the 上游 (seat 1)
    assert list(st[ST_POINTS : ST_POINTS + 4]) == [255, 20, 0, 25]
    assert list(st[ST_TEAM_PTS : ST_TEAM_PTS + 2]) == [255, 45]
