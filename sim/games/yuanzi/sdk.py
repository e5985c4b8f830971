"""原子 helpers for plain-Python strategies (``py:``, docs/strategies.md): the View-side SDK.

A ``py:`` strategy reads the reference's :class:`cardsim.sim.games.yuanzi.reference.rules.View`; this module gives the
same names as the Numba SDK (``kernels/yuanzi/sdk.py``) taking the View instead of ``pub``, so a
strategy is ported between the two forms line by line::

    from cardsim.sim.games.yuanzi import sdk

    def choose(view, legal, rng):
        if sdk.partner_on_top(view) and sdk.PASS in legal:
            return sdk.PASS
        ...

Move-code decoding, the reference's readable helpers (:func:`describe_code`,
:func:`hand_text`, :func:`beats_code`, :func:`cards_given_up`, :func:`classify`) and greedy's
cost model (:func:`move_cost`, :func:`cheapest` — the kernel's own functions, so the numbers
are the built-ins') are all here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.games.yuanzi.reference.moves import jokers_of, kind_of, rank_of, size_of, suit_of
from cardsim.sim.games.yuanzi.reference.rules import (
    View,
    beats_code,
    cards_given_up,
    classify,
    describe_code,
    hand_text,
    team_of,
)

__all__ = [
    "PASS", "SINGLE", "PAIR", "TRIPLE", "BOMB", "ATOM", "HYDROGEN", "View",
    "move_kind", "move_rank", "move_size", "move_jokers", "move_suit", "move_naturals",
    "is_bomb_class", "partner_of", "team_of", "my_team", "leading", "partner_on_top",
    "trick_points", "opponent_min_count",
    "goes_out", "first_half_margin", "rule", "move_cost", "cheapest", "code_points",
    "describe_code", "hand_text", "beats_code", "cards_given_up", "classify",
]  # fmt: skip

PASS = enc.PASS
SINGLE, PAIR, TRIPLE, BOMB, ATOM, HYDROGEN = (
    enc.SINGLE,
    enc.PAIR,
    enc.TRIPLE,
    enc.BOMB,
    enc.ATOM,
    enc.HYDROGEN,
)


# move-code decoding: the reference's own decoders (docs/yuanzi-protocol.md §2), SDK names
move_kind, move_rank, move_size, move_jokers, move_suit = (
    kind_of,
    rank_of,
    size_of,
    jokers_of,
    suit_of,
)


def move_naturals(code: int) -> int:
    """Natural (non-joker) cards a basic play or bomb gives up."""
    return move_size(code) - move_jokers(code)


def is_bomb_class(code: int) -> bool:
    """True for a bomb, atom or hydrogen bomb."""
    return move_kind(code) >= BOMB


def partner_of(seat: int) -> int:
    """The partner of ``seat`` (0-2, 1-3)."""
    return (seat + 2) % 4


def my_team(view: View) -> int:
    """Your team: 0 = 南北 {0, 2}, 1 = 东西 {1, 3}."""
    return team_of(view.seat)


def leading(view: View) -> bool:
    """True when you lead a new trick."""
    return view.top == 0


def partner_on_top(view: View) -> bool:
    """True when your partner made the top play of the trick."""
    return view.top != 0 and view.top_seat == partner_of(view.seat)


def trick_points(view: View) -> int:
    """Points lying in the current trick (YZ-03: 5 = 5, 10 = 10, K = 10)."""
    return view.trick_points


def opponent_min_count(view: View, seat: int | None = None) -> int:
    """Fewest cards held by an opponent of ``seat`` (default yours) still in the half; 99 if
    none (the kernel's ``opponent_min_count``, which greedy's bomb rule reads)."""
    s = view.seat if seat is None else seat
    held = [view.hand_sizes[(s + d) % 4] for d in (1, 3)]
    return min([c for c in held if c > 0], default=99)


def goes_out(view: View, code: int) -> bool:
    """Does ``code`` play your whole hand?"""
    return code != PASS and move_size(code) == sum(view.hand)


def first_half_margin(view: View, team: int | None = None) -> int:
    """First-half points of ``team`` (default yours) minus the other team's; 0 in the first half."""
    if view.first_half_team_points is None:
        return 0
    t = my_team(view) if team is None else team
    return view.first_half_team_points[t] - view.first_half_team_points[1 - t]


def rule(view: View, name: str):
    """The value of rule option ``name`` in force (``cardsim rules yuanzi``), e.g.
    ``rule(view, "pass_is_final") is True`` or ``rule(view, "lead_after_out") == "partner"``."""
    return view.rules[name]


def _hand(view: View) -> np.ndarray:
    return np.asarray(view.hand, np.uint8)


def move_cost(view: View, code: int) -> int:
    """What the built-in greedy pays to give up ``code`` (lower is cheaper; the kernel's
    ``move_cost``)."""
    from cardsim.kernels.yuanzi.strategies import move_cost as kernel_move_cost

    return int(kernel_move_cost(_hand(view), np.int32(code), view.dao))


def code_points(code: int) -> int:
    """Points carried by the natural cards of a code (YZ-03)."""
    from cardsim.kernels.yuanzi.strategies import code_points as kernel_code_points

    return int(kernel_code_points(np.int32(code)))


def cheapest(view: View, legal: Sequence[int], extra_points_cost: int = 0) -> int | None:
    """The cheapest non-pass code of ``legal`` by greedy's cost (first of equal cost, in the
    order given), point cards costing ``extra_points_cost`` more per 5 points; None if only
    PASS."""
    best, best_cost = None, None
    for code in legal:
        if code == PASS:
            continue
        cost = move_cost(view, code) + extra_points_cost * code_points(code) // 5
        if best_cost is None or cost < best_cost:
            best, best_cost = code, cost
    return best
