"""原子 (yuanzi) reference rules, part 2: one half — tricks, its end and its settlement.

Written from ``RULINGS.md`` (YZ-18 … YZ-24, YZ-28) and ``docs/yuanzi-protocol.md`` §4, §5, §9
only. :func:`play_half` plays four given hands (any sizes, so rule tests can script small
hands); :mod:`cardsim.sim.games.yuanzi.reference.rules` deals the real hands and plays the match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.games.yuanzi.reference.moves import (
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


@dataclass
class _Table:
    """The state of a half as the seats see it (protocol §4): hands, seats out, points taken,
    the actions so far, and the trick being played."""

    hands: list[list[int]]
    out: list[int] = field(default_factory=list)
    captured: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    history: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    top: int = PASS
    top_seat: int = -1
    passed: list[bool] = field(default_factory=lambda: [False] * 4)
    trick_points: int = 0

    def holds(self, seat: int) -> bool:
        return sum(self.hands[seat]) > 0

    def new_trick(self) -> None:
        self.top, self.top_seat, self.passed, self.trick_points = PASS, -1, [False] * 4, 0

    def view(self, half: int, seat: int, dao: int, shown: tuple) -> View:
        """What ``seat`` sees (YZ-28); ``shown``: the first half's result and the rules."""
        return View(
            half,
            seat,
            dao,
            tuple(self.hands[seat]),
            tuple(sum(h) for h in self.hands),
            tuple(self.out),
            tuple(self.captured),
            self.top,
            self.top_seat,
            tuple(self.passed),
            self.trick_points,
            tuple(self.history),
            *shown,
        )


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
    shown = (first_half_team_points, first_upstream, first_out, shown_rules)  # YZ-28
    d = dao_index(dao)
    table = _Table([parse_hand(h) for h in hands])
    log = [] if log is None else log
    decisions = [] if decisions is None else decisions
    result = HalfResult(half, [], False, [], [], [], [], [])
    actor = leader
    result.tricks = 1
    log.append(f"trick 1: {seat_label(leader)} leads")
    while True:
        legal = legal_codes(table.hands[actor], table.top, d, rules)
        chosen = choose(table.view(half, actor, d, shown), list(legal))
        if chosen not in legal:
            raise ValueError(
                f"{seat_label(actor)} chose {chosen} ({describe_code(chosen)}), "
                f"not among its legal moves {legal}"
            )
        chosen = int(chosen)
        decisions.append(Decision(half, actor, legal, chosen))
        if chosen == PASS:  # YZ-18: a pass
            table.passed[actor] = True
            table.history.append((actor, PASS, ()))
            log.append(f"  {seat_label(actor)} passes")
        elif _play_cards(table, result, actor, chosen, d, rules, log):
            break  # the half is over
        # protocol §4: next seat after the actor that holds cards, is not on top, has not passed
        following = [(actor + k) % 4 for k in (1, 2, 3)]
        nxt = [
            s for s in following if table.holds(s) and s != table.top_seat and not table.passed[s]
        ]
        if nxt:
            actor = nxt[0]
            continue
        actor = _take_trick(table, rules, log)
        result.tricks += 1
        log.append(f"trick {result.tricks}: {seat_label(actor)} leads")
    _settle(result, table.out, table.captured, table.hands, rules, log)
    return result


def _play_cards(
    table: _Table, result: HalfResult, actor: int, chosen: int, dao: int, rules: Mapping,
    log: list[str],
) -> bool:  # fmt: skip
    """YZ-18: ``actor`` plays ``chosen`` over the top (or leads). True if the half is over."""
    text = describe_move(chosen, table.hands[actor], dao)
    cards = cards_given_up(table.hands[actor], chosen)
    for card in cards:
        table.hands[actor][card] -= 1
    points = sum(enc.card_points(c) for c in cards)
    table.trick_points += points
    table.top, table.top_seat = chosen, actor
    _count_play(result, chosen, dao)
    table.history.append((actor, chosen, tuple(cards)))
    left = sum(table.hands[actor])
    log.append(f"  {seat_label(actor)} plays {text}; {points} pts; {left} left")
    if not rules["pass_is_final"]:  # YZ-18: a passed seat may play again
        table.passed = [False] * 4
    if left == 0:
        table.out.append(actor)
        log.append(f"  {seat_label(actor)} is out ({len(table.out)})")
        if _half_over(table.out):  # YZ-20, then YZ-21: the unfinished trick's points
            table.captured[table.top_seat] += table.trick_points
            log.append(
                f"  half over; unfinished trick: {table.trick_points} pts to "
                f"{seat_label(table.top_seat)} (YZ-21)"
            )
            return True
    return False


def _take_trick(table: _Table, rules: Mapping, log: list[str]) -> int:
    """YZ-19: everyone else passed: the top player takes the trick; the seat that leads next."""
    top_seat = table.top_seat
    table.captured[top_seat] += table.trick_points
    log.append(f"  trick won by {seat_label(top_seat)}: {table.trick_points} pts")
    if table.holds(top_seat):
        leader = top_seat
    elif rules["lead_after_out"] == "partner":  # YZ-19 variant 接风
        leader = (top_seat + 2) % 4
    else:
        leader = next(s for s in ((top_seat + k) % 4 for k in (1, 2, 3)) if table.holds(s))
    table.new_trick()
    return leader


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
