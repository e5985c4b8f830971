"""原子 (yuanzi) reference rules, part 2: one half — tricks, its end and its settlement.

Written from ``RULINGS.md`` (YZ-18 … YZ-24, YZ-28) and ``docs/yuanzi-protocol.md`` §4, §5, §9
only. :func:`play_half` plays four given hands (any sizes, so rule tests can script small
hands); :mod:`cardsim.sim.rules.yuanzi` deals the real hands and plays the match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.rules.yuanzi_moves import (
    ATOM,
    BOMB,
    HYDROGEN,
    PASS,
    RANK_NAMES,
    cards_given_up,
    dao_index,
    describe_code,
    describe_move,
    hand_points,
    hand_text,
    is_dao_move,
    kind_of,
    legal_codes,
    parse_hand,
    resolve_rules,
)

#: YZ-02: 北 = 0, 东 = 1, 南 = 2, 西 = 3; play and dealing go seat + 1 mod 4.
SEAT_NAMES = ("北", "东", "南", "西")
#: YZ-02 / protocol §6: team 0 = 南北 {0, 2}, team 1 = 东西 {1, 3}.
TEAMS = ((0, 2), (1, 3))


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
    # YZ-28 (revised 2026-12-01): in the second half the first half's 上游 and finish order;
    # None in the first half
    first_half_upstream: int | None = None
    first_half_out: tuple[int, ...] | None = None  # seats in the order they went out
    rules: Mapping = field(default_factory=dict)  # YZ-28: the rule options in force (read only)

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
    first_half: HalfResult | None = None,
) -> HalfResult:
    """Play one half from four given hands (any sizes) until it ends, then settle it.

    ``choose(view, legal)`` must return one of ``legal``. Events go to ``log`` and every
    decision to ``decisions`` when given. ``first_half`` (the second half only): the first
    half's result, shown in every :class:`View` (YZ-28): team points, 上游, finish order.

    Examples
    --------
    >>> r = play_half(["5S", "KS", "3S 4S", "3H"], "2", leader=0, choose=lambda v, l: l[-1])
    >>> r.out, r.one_two, r.points  # 北 leads 5S, 东 beats with K and goes out (second)
    ([0, 1, 2], False, [0, 15, 0, 0])
    """
    rules = resolve_rules(rules)
    shown_rules = MappingProxyType(dict(rules))  # YZ-28: the options in force, read only
    first_upstream = first_out = None
    if first_half is not None:
        first_half_team_points = (first_half.team_points[0], first_half.team_points[1])
        first_upstream, first_out = first_half.out[0], tuple(first_half.out)
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
            first_upstream,
            first_out,
            shown_rules,
        )
        chosen = choose(view, list(legal))
        if chosen not in legal:
            raise ValueError(
                f"{seat_label(actor)} chose {chosen} ({describe_code(chosen)}), "
                f"not among its legal moves {legal}"
            )
        chosen = int(chosen)
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
