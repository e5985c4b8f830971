"""原子 (yuanzi) reference rules: the readable implementation of RULINGS.md YZ-01 … YZ-28.

Written from ``RULINGS.md`` and ``docs/yuanzi-protocol.md`` alone, independently of the Numba
kernel in ``kernels/yuanzi/``; it imports only the shared encoding and the RNG. The kernel's
traces are replayed through :func:`replay_trace` to compare every legal-move set and outcome.

Combinations, legal moves and beats live in :mod:`sim.rules.yuanzi_moves` and are re-exported
here. This module adds the deal (YZ-05 … YZ-08), the trick flow (YZ-18, YZ-19), the end of a
half and its settlement (YZ-20 … YZ-24) and the match (YZ-25, YZ-26).

Examples
--------
>>> deal = deal_from_seed(1, 0)
>>> result = play_match(deal, random_chooser(7))
>>> sum(result.outcome["delta"]), sum(result.outcome["team_points_0"])
(0, 300)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kernels import rng
from kernels.yuanzi import encoding as enc
from sim.rules.yuanzi_moves import (
    ATOM,
    BOMB,
    HYDROGEN,
    PASS,
    RANK_NAMES,
    RANK_VALUE,
    RULE_CHOICES,
    RULE_DEFAULTS,
    RULE_RULINGS,
    Combination,
    beats,
    beats_code,
    cards_given_up,
    cards_text,
    classify,
    combination_of,
    combinations,
    dao_index,
    describe_code,
    describe_move,
    hand_points,
    hand_text,
    is_dao_move,
    kind_of,
    legal_codes,
    legal_moves,
    pack,
    parse_hand,
    resolve_rules,
)

__all__ = [
    "RULE_CHOICES",
    "RULE_DEFAULTS",
    "RULE_RULINGS",
    "SEAT_NAMES",
    "TEAMS",
    "Combination",
    "Deal",
    "Decision",
    "HalfResult",
    "HalfSetup",
    "MatchResult",
    "View",
    "beats",
    "beats_code",
    "cards_given_up",
    "cards_text",
    "describe_code",
    "hand_text",
    "match_winner",
    "shuangjia",
    "classify",
    "combination_of",
    "combinations",
    "deal_from_seed",
    "describe_move",
    "legal_moves",
    "move_set_hash",
    "pack",
    "parse_hand",
    "play_half",
    "play_match",
    "random_chooser",
    "replay_trace",
    "resolve_rules",
    "setup_half",
]

#: YZ-02: 北 = 0, 东 = 1, 南 = 2, 西 = 3; play and dealing go seat + 1 mod 4.
SEAT_NAMES = ("北", "东", "南", "西")
#: YZ-02 / protocol §6: team 0 = 南北 {0, 2}, team 1 = 东西 {1, 3}.
TEAMS = ((0, 2), (1, 3))
N_CARDS = enc.N_CARDS  # 162, YZ-01


def seat_label(seat: int) -> str:
    """``1 -> "东(1)"``."""
    return f"{SEAT_NAMES[seat]}({seat})"


def team_of(seat: int) -> int:
    """The team of a seat: 0 for 北/南 (0, 2), 1 for 东/西 (1, 3)."""
    return seat % 2


def move_set_hash(codes: Sequence[int]) -> int:
    """``encoding.move_set_hash`` of a list of move codes (the trace's legal-set hash, §8)."""
    arr = np.asarray(list(codes), dtype=np.int32)
    return int(enc.move_set_hash(arr, len(arr)))


# ---------------------------------------------------------------------------------------------
# The deal (YZ-05 … YZ-08), protocol §1
# ---------------------------------------------------------------------------------------------


@dataclass
class Deal:
    """Both halves' shuffled decks and indicator positions (protocol §1)."""

    deck0: list[int]
    p0: int
    deck1: list[int]
    p1: int


def deal_from_seed(root: int, game_index: int, rules: Mapping | None = None) -> Deal:
    """The Deal of game ``game_index`` of a run with root seed ``root`` (RNG stream 0).

    Half 0 then half 1, always both: a fresh canonical deck, Fisher–Yates shuffled, then the
    indicator position ``bounded(162)``; with ``joker_indicator=redraw`` redrawn while it
    points at a joker (YZ-05, YZ-06).

    Examples
    --------
    >>> deal = deal_from_seed(1, 0)
    >>> len(deal.deck0), sorted(deal.deck0) == sorted(deal.deck1), 0 <= deal.p0 < 162
    (162, True, True)
    """
    resolved = resolve_rules(rules)
    state = rng.new_stream(root, game_index, rng.STREAM_DEAL)
    halves = []
    for _half in range(2):
        deck = enc.canonical_deck()
        rng.shuffle(state, deck, N_CARDS)
        p = int(rng.bounded(state, N_CARDS))
        if resolved["joker_indicator"] == "redraw":  # YZ-06 variant: turn up another card
            while deck[p] >= enc.SMALL_JOKER:
                p = int(rng.bounded(state, N_CARDS))
        halves.append(([int(c) for c in deck], p))
    return Deal(halves[0][0], halves[0][1], halves[1][0], halves[1][1])


@dataclass(frozen=True)
class HalfSetup:
    """What the deal of one half decides: 刀, first receiver, first leader, the four hands."""

    half: int
    indicator: int  # card id turned up
    dao: int  # rank idx of the 刀
    dao_fallback: int  # 0 natural, 1 joker -> 3, 2 second-half point rank -> 3
    first_receiver: int
    first_leader: int
    hands: tuple[tuple[int, ...], ...]  # 54 counts per seat


def setup_half(deck: Sequence[int], p: int, half: int, upstream0: int | None = None) -> HalfSetup:
    """Read one half's 刀, first receiver, first leader and hands off a shuffled deck.

    ``upstream0`` is the first-half 上游 (needed for ``half == 1``).

    Examples
    --------
    >>> deck = list(range(54)) * 3  # not shuffled: position 0 is 3D, a 3
    >>> s = setup_half(deck, 0, half=0)
    >>> RANK_NAMES[s.dao], s.first_receiver, s.first_leader, [sum(h) for h in s.hands]
    ('3', 3, 3, [41, 40, 40, 41])
    """
    indicator = int(deck[p])
    rank = enc.card_rank(indicator) if indicator < enc.SMALL_JOKER else -1
    # YZ-06: the 刀 is the indicator's rank; a joker gives 3; in the second half so does a point rank
    if rank < 0:
        dao, fallback = 0, 1
    elif half == 1 and rank in enc.POINT_RANKS:
        dao, fallback = 0, 2
    else:
        dao, fallback = int(rank), 0
    # YZ-07: first half, seat (value mod 4), a joker counting 3; second half, the 上游
    if half == 0:
        receiver = 3 if rank < 0 else RANK_VALUE[rank] % 4
    else:
        if upstream0 is None:
            raise ValueError("the second half needs the first-half 上游 (upstream0)")
        receiver = upstream0
    # YZ-07: one card at a time in play order from the first receiver (41, 41, 40, 40)
    hands = [[0] * enc.N_TYPES for _ in range(4)]
    for i, card in enumerate(deck):
        hands[(receiver + i) % 4][int(card)] += 1
    # YZ-08: first half, the seat dealt the indicator card; second half, the 上游
    leader = (receiver + p) % 4 if half == 0 else receiver
    return HalfSetup(
        half, indicator, dao, fallback, receiver, leader, tuple(tuple(h) for h in hands)
    )


# ---------------------------------------------------------------------------------------------
# What a strategy sees (YZ-28) and what is recorded
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """Everything a seat may know when it must move (YZ-28, protocol §9); no other hand.

    ``history`` holds every action of this half in order: ``(seat, code, cards)``, with
    ``code == 0`` and no cards for a pass. ``top == 0`` and ``top_seat == -1`` when leading.
    """

    half: int
    seat: int
    dao: int  # rank idx of the 刀
    hand: tuple[int, ...]  # own hand, 54 counts
    hand_sizes: tuple[int, ...]  # cards held per seat
    out: tuple[int, ...]  # seats out, in order
    captured: tuple[int, ...]  # points taken in finished tricks, per seat
    top: int
    top_seat: int
    passed: tuple[bool, ...]
    trick_points: int  # points lying in the current trick
    history: tuple[tuple[int, int, tuple[int, ...]], ...]
    first_half_team_points: tuple[int, int] | None  # known to all once half 0 is over

    @property
    def hand_text(self) -> str:
        return hand_text(self.hand)

    @property
    def dao_name(self) -> str:
        return RANK_NAMES[self.dao]


#: A strategy: the view and the ascending legal codes -> one of those codes.
Chooser = Callable[[View, list[int]], int]


@dataclass(frozen=True)
class Decision:
    """One decision: half, seat, the ascending legal codes and the chosen code."""

    half: int
    seat: int
    legal: list[int]
    chosen: int

    @property
    def legal_hash(self) -> int:
        return move_set_hash(self.legal)


@dataclass
class HalfResult:
    """How a half ended (YZ-20 … YZ-24) and its counters (protocol §7)."""

    half: int
    out: list[int]  # seats in the order they went out (2 or 3)
    one_two: bool  # a 1-2 finish (YZ-20)
    finish: list[int]  # finish position per seat; the 下游 (both in a 1-2 finish) is 4
    captured: list[int]  # points taken per seat, the unfinished trick included (YZ-21)
    hand_points: list[int]  # point cards left in hand per seat
    points: list[int]  # per seat after the transfers (YZ-22, YZ-23)
    team_points: list[int]  # YZ-24
    tricks: int = 0  # tricks led, the one unfinished at the end included
    plays: int = 0  # non-pass moves
    bombs: int = 0  # bomb plays (刀 bombs included)
    dao_bombs: int = 0
    atoms: int = 0
    hydrogens: int = 0
    hands_left: list[list[int]] = field(default_factory=list)


@dataclass
class MatchResult:
    """A match: the protocol §7 outcome, a readable log and every decision."""

    outcome: dict
    log: list[str]
    decisions: list[Decision]
    halves: list[HalfResult]


# ---------------------------------------------------------------------------------------------
# A half: tricks (YZ-18, YZ-19), its end (YZ-20, YZ-21) and settlement (YZ-22 … YZ-24)
# ---------------------------------------------------------------------------------------------


def _half_over(out: list[int]) -> bool:
    """YZ-20: three out, or both of a team out while both opponents hold cards (1-2)."""
    return len(out) >= 3 or (len(out) == 2 and team_of(out[0]) == team_of(out[1]))


def play_half(
    hands: Sequence[str | Sequence[int]],
    dao: str | int,
    leader: int,
    choose: Chooser,
    rules: Mapping | None = None,
    half: int = 0,
    log: list[str] | None = None,
    decisions: list[Decision] | None = None,
    first_half_team_points: tuple[int, int] | None = None,
) -> HalfResult:
    """Play one half from four given hands (any sizes) until it ends, then settle it.

    ``choose(view, legal)`` must return one of ``legal``. Events go to ``log`` and every
    decision to ``decisions`` when given.

    Examples
    --------
    >>> r = play_half(["5S", "KS", "3S 4S", "3H"], "2", leader=0, choose=lambda v, l: l[-1])
    >>> r.out, r.one_two, r.points  # 北 leads 5S, 东 beats with K and goes out (second)
    ([0, 1, 2], False, [0, 15, 0, 0])
    """
    rules = resolve_rules(rules)
    d = dao_index(dao)
    hands = [parse_hand(h) for h in hands]
    log = [] if log is None else log
    decisions = [] if decisions is None else decisions
    result = HalfResult(half, [], False, [], [], [], [], [])
    captured = [0, 0, 0, 0]
    out: list[int] = []
    history: list[tuple[int, int, tuple[int, ...]]] = []
    top, top_seat, passed, trick_points = PASS, -1, [False] * 4, 0
    actor = leader
    result.tricks = 1
    log.append(f"trick 1: {seat_label(leader)} leads")

    def holds(seat: int) -> bool:
        return sum(hands[seat]) > 0

    while True:
        legal = legal_codes(hands[actor], top, d, rules)
        view = View(
            half,
            actor,
            d,
            tuple(hands[actor]),
            tuple(sum(h) for h in hands),
            tuple(out),
            tuple(captured),
            top,
            top_seat,
            tuple(passed),
            trick_points,
            tuple(history),
            first_half_team_points,
        )
        chosen = choose(view, list(legal))
        if chosen not in legal:
            raise ValueError(
                f"{seat_label(actor)} chose {chosen} ({describe_code(chosen)}), "
                f"not among its legal moves {legal}"
            )
        decisions.append(Decision(half, actor, legal, chosen))
        if chosen == PASS:  # YZ-18: a pass
            passed[actor] = True
            history.append((actor, PASS, ()))
            log.append(f"  {seat_label(actor)} passes")
        else:  # YZ-18: a play beats the top (or leads)
            text = describe_move(chosen, hands[actor], d)
            cards = cards_given_up(hands[actor], chosen)
            for card in cards:
                hands[actor][card] -= 1
            points = sum(enc.card_points(c) for c in cards)
            trick_points += points
            top, top_seat = chosen, actor
            _count_play(result, chosen, d)
            history.append((actor, chosen, tuple(cards)))
            left = sum(hands[actor])
            log.append(f"  {seat_label(actor)} plays {text}; {points} pts; {left} left")
            if not rules["pass_is_final"]:  # YZ-18: a passed seat may play again
                passed = [False] * 4
            if left == 0:
                out.append(actor)
                log.append(f"  {seat_label(actor)} is out ({len(out)})")
                if _half_over(out):  # YZ-20, then YZ-21: the unfinished trick's points
                    captured[top_seat] += trick_points
                    log.append(
                        f"  half over; unfinished trick: {trick_points} pts to "
                        f"{seat_label(top_seat)} (YZ-21)"
                    )
                    break
        # protocol §4: next seat after the actor that holds cards, is not on top, has not passed
        following = [(actor + k) % 4 for k in (1, 2, 3)]
        nxt = [s for s in following if holds(s) and s != top_seat and not passed[s]]
        if nxt:
            actor = nxt[0]
            continue
        # YZ-19: everyone else passed: the top player takes the trick and leads
        captured[top_seat] += trick_points
        log.append(f"  trick won by {seat_label(top_seat)}: {trick_points} pts")
        if holds(top_seat):
            actor = top_seat
        elif rules["lead_after_out"] == "partner":  # YZ-19 variant 接风
            actor = (top_seat + 2) % 4
        else:
            actor = next(s for s in ((top_seat + k) % 4 for k in (1, 2, 3)) if holds(s))
        top, top_seat, passed, trick_points = PASS, -1, [False] * 4, 0
        result.tricks += 1
        log.append(f"trick {result.tricks}: {seat_label(actor)} leads")
    _settle(result, out, captured, hands, rules, log)
    return result


def _count_play(result: HalfResult, code: int, dao: int) -> None:
    """Protocol §7 counters of one play."""
    result.plays += 1
    kind = kind_of(code)
    if kind == BOMB:
        result.bombs += 1
        result.dao_bombs += is_dao_move(code, dao)
    result.atoms += kind == ATOM
    result.hydrogens += kind == HYDROGEN


def _settle(
    result: HalfResult,
    out: list[int],
    captured: list[int],
    hands: list[list[int]],
    rules: Mapping,
    log: list[str],
) -> None:
    """YZ-22 … YZ-24: transfers at the end of a half; fills ``result``."""
    in_hand = [hand_points(h) for h in hands]
    points = list(captured)
    upstream = out[0]
    unfinished = [s for s in range(4) if s not in out]
    one_two = len(out) == 2
    if not one_two:  # YZ-22: three out
        last = unfinished[0]
        third = out[2]
        points[third] += in_hand[last]
        points[upstream] += captured[last]
        points[last] = 0
        log.append(
            f"settle (YZ-22): 下游 {seat_label(last)} gives {in_hand[last]} in-hand pts to "
            f"third out {seat_label(third)} and {captured[last]} captured pts to 上游 "
            f"{seat_label(upstream)}"
        )
    else:  # YZ-23: a 1-2 finish, both unfinished seats are 下游
        for s in unfinished:
            moved = in_hand[s]
            if rules["one_two_settlement"] == "all":
                moved += captured[s]
                points[s] = 0
            points[upstream] += moved
            log.append(
                f"settle (YZ-23, {rules['one_two_settlement']}): 下游 {seat_label(s)} gives "
                f"{moved} pts to 上游 {seat_label(upstream)}"
            )
    finish = [4, 4, 4, 4]
    for position, seat in enumerate(out, start=1):
        finish[seat] = position
    result.out = list(out)
    result.one_two = one_two
    result.finish = finish
    result.captured = list(captured)
    result.hand_points = in_hand
    result.points = points
    result.team_points = [points[0] + points[2], points[1] + points[3]]  # YZ-24
    result.hands_left = [list(h) for h in hands]
    log.append(
        f"half {result.half} points per seat {points}; 南北 {result.team_points[0]} : "
        f"东西 {result.team_points[1]}"
    )


# ---------------------------------------------------------------------------------------------
# The match (YZ-04, YZ-25, YZ-26), protocol §6 and §7
# ---------------------------------------------------------------------------------------------


def shuangjia(half0: HalfResult, rules: Mapping | None = None) -> tuple[bool, int]:
    """YZ-25: ``(is 双夹, team that wins if so)`` after the first half.

    Examples
    --------
    >>> h = HalfResult(0, [0, 2], True, [1, 4, 2, 4], [], [], [300, 0, 0, 0], [300, 0])
    >>> shuangjia(h)
    (True, 0)
    """
    resolved = resolve_rules(rules)
    if resolved["shuangjia"] == "both_out_team":  # X = both out, Y = the other
        x = next(t for t in (0, 1) if all(s in half0.out for s in TEAMS[t]))
        y = 1 - x
        return (half0.one_two or half0.team_points[y] < 60), x
    up_team = team_of(half0.out[0])  # variant upstream_team
    return (half0.one_two or half0.team_points[1 - up_team] < 60), up_team


def match_winner(team_points_0: Sequence[int], team_points_1: Sequence[int], upstream0: int) -> int:
    """YZ-26: the team with the higher two-half total; at 300 : 300 the first-half 上游's team.

    Examples
    --------
    >>> match_winner([100, 200], [200, 100], upstream0=3)
    1
    """
    totals = [team_points_0[t] + team_points_1[t] for t in (0, 1)]
    if totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return team_of(upstream0)


def _log_setup(log: list[str], s: HalfSetup) -> None:
    why = {0: "", 1: " (joker indicator -> 3)", 2: " (point-rank indicator -> 3)"}[s.dao_fallback]
    log.append(
        f"half {s.half}: indicator {enc.card_name(s.indicator)}, 刀 = {RANK_NAMES[s.dao]}{why}; "
        f"first receiver {seat_label(s.first_receiver)}; first leader {seat_label(s.first_leader)}; "
        f"hand sizes {[sum(h) for h in s.hands]}"
    )


def _half_fields(h: int, s: HalfSetup | None, r: HalfResult | None) -> dict:
    if s is None or r is None:
        keys = ["dao", "indicator", "dao_fallback", "first_receiver", "first_leader", "tricks"]
        keys += ["plays", "bombs", "dao_bombs", "atoms", "hydrogens"]
        blank: dict = {f"{k}_{h}": -1 for k in keys}
        blank.update({f"finish_{h}": [-1] * 4, f"points_{h}": [-1] * 4})
        blank[f"team_points_{h}"] = [-1, -1]
        return blank
    return {
        f"dao_{h}": RANK_VALUE[s.dao],
        f"indicator_{h}": s.indicator,
        f"dao_fallback_{h}": s.dao_fallback,
        f"first_receiver_{h}": s.first_receiver,
        f"first_leader_{h}": s.first_leader,
        f"finish_{h}": list(r.finish),
        f"points_{h}": list(r.points),
        f"team_points_{h}": list(r.team_points),
        f"tricks_{h}": r.tricks,
        f"plays_{h}": r.plays,
        f"bombs_{h}": r.bombs,
        f"dao_bombs_{h}": r.dao_bombs,
        f"atoms_{h}": r.atoms,
        f"hydrogens_{h}": r.hydrogens,
    }


def play_match(deal: Deal, choose: Chooser, rules: Mapping | None = None) -> MatchResult:
    """Play a whole match (one or two halves) from a Deal with one chooser for all seats.

    ``choose(view, legal)`` sees only :class:`View` (YZ-28) and returns one of ``legal``.

    Examples
    --------
    >>> m = play_match(deal_from_seed(3, 1), random_chooser(0))
    >>> m.outcome["delta"][0] == -m.outcome["delta"][1], len(m.decisions) > 0
    (True, True)
    """
    resolved = resolve_rules(rules)
    log: list[str] = []
    decisions: list[Decision] = []
    s0 = setup_half(deal.deck0, deal.p0, 0)
    _log_setup(log, s0)
    h0 = play_half(s0.hands, s0.dao, s0.first_leader, choose, resolved, 0, log, decisions)
    upstream0 = h0.out[0]
    is_sj, winner = shuangjia(h0, resolved)
    s1 = h1 = None
    if is_sj:
        log.append(f"双夹 (YZ-25, {resolved['shuangjia']}): team {winner} wins the match")
    else:  # YZ-26: the second half
        s1 = setup_half(deal.deck1, deal.p1, 1, upstream0)
        _log_setup(log, s1)
        first = (h0.team_points[0], h0.team_points[1])
        h1 = play_half(
            s1.hands, s1.dao, s1.first_leader, choose, resolved, 1, log, decisions, first
        )
        winner = match_winner(h0.team_points, h1.team_points, upstream0)
        totals = [h0.team_points[t] + h1.team_points[t] for t in (0, 1)]
        log.append(f"totals 南北 {totals[0]} : 东西 {totals[1]}; team {winner} wins (YZ-26)")
    stake = 2 if is_sj else 1  # YZ-25 / YZ-26
    delta = [stake if team_of(s) == winner else -stake for s in range(4)]
    log.append(f"delta per seat {delta}")
    outcome = {**_half_fields(0, s0, h0), **_half_fields(1, s1, h1)}
    outcome.update(second_half=h1 is not None, shuangjia=is_sj, winner_team=winner, delta=delta)
    halves = [h0] if h1 is None else [h0, h1]
    return MatchResult(outcome, log, decisions, halves)


def replay_trace(deal: Deal, chosen: Sequence[int], rules: Mapping | None = None) -> MatchResult:
    """Play the match from ``deal`` feeding the ``chosen`` codes in order (protocol §8).

    Raises ``ValueError`` naming the decision, seat, code and legal set if a code is not
    legal, or if the codes run out or some are left over.

    Examples
    --------
    >>> deal = deal_from_seed(5, 2)
    >>> first = play_match(deal, random_chooser(1))
    >>> again = replay_trace(deal, [d.chosen for d in first.decisions])
    >>> again.outcome == first.outcome
    True
    """
    codes = list(chosen)
    position = 0

    def feed(view: View, legal: list[int]) -> int:
        nonlocal position
        where = f"decision {position} (half {view.half}, seat {view.seat})"
        if position >= len(codes):
            raise ValueError(f"{where}: the trace ran out after {len(codes)} codes; legal {legal}")
        code = int(codes[position])
        if code not in legal:
            raise ValueError(f"{where}: code {code} ({describe_code(code)}) not in legal {legal}")
        position += 1
        return code

    result = play_match(deal, feed, rules)
    if position != len(codes):
        raise ValueError(
            f"the match ended after {position} decisions; {len(codes) - position} codes left over"
        )
    return result


def random_chooser(seed: int) -> Chooser:
    """A strategy choosing uniformly among the legal codes (Python's ``random``, own seed).

    Examples
    --------
    >>> choose = random_chooser(0)
    >>> choose(None, [0, 9, 17]) in (0, 9, 17)
    True
    """
    generator = random.Random(seed)

    def choose(view: View, legal: list[int]) -> int:
        return legal[generator.randrange(len(legal))]

    return choose
