"""原子 (yuanzi) reference rules: the readable implementation of YZ-01 … YZ-28 and YZ-D1 … D3.

Written from ``RULINGS.md`` and ``docs/yuanzi-protocol.md`` alone, independently of the Numba
kernel in ``kernels/yuanzi/``; it imports only the shared encoding and the RNG. The kernel's
traces are replayed through :func:`replay_trace` to compare every legal-move set and outcome.

Combinations, legal moves and beats live in :mod:`cardsim.sim.games.yuanzi.reference.moves`, one half (tricks,
its end, settlement, the strategy's :class:`View`) in :mod:`cardsim.sim.games.yuanzi.reference.half`; both are
re-exported here. This module adds the deal (YZ-05 … YZ-08) and the match (YZ-25, YZ-26, with
the design parameters YZ-D1 … YZ-D3 of docs/RULES-yuanzi.md).

Examples
--------
>>> deal = deal_from_seed(1, 0)
>>> result = play_match(deal, random_chooser(7))
>>> sum(result.outcome["delta"]), sum(result.outcome["team_points_0"])
(0, 300)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cardsim.kernels import rng
from cardsim.kernels.yuanzi import encoding as enc
from cardsim.sim.games.yuanzi.reference.half import (
    SEAT_NAMES,
    TEAMS,
    Chooser,
    Decision,
    HalfResult,
    View,
    move_set_hash,
    play_half,
    seat_label,
    team_of,
)
from cardsim.sim.games.yuanzi.reference.moves import (
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
    describe_code,
    describe_move,
    hand_text,
    is_move_code,
    legal_moves,
    pack,
    parse_hand,
    resolve_rules,
    wild_small_jokers,
)

__all__ = [
    "RULE_CHOICES",
    "RULE_DEFAULTS",
    "RULE_RULINGS",
    "SEAT_NAMES",
    "TEAMS",
    "Chooser",
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
    "wild_small_jokers",
    "cards_text",
    "classify",
    "combination_of",
    "combinations",
    "deal_from_seed",
    "describe_code",
    "describe_move",
    "hand_text",
    "is_move_code",
    "legal_moves",
    "match_winner",
    "move_set_hash",
    "pack",
    "parse_hand",
    "play_half",
    "play_match",
    "random_chooser",
    "replay_trace",
    "resolve_rules",
    "seat_label",
    "setup_half",
    "shuangjia",
    "team_of",
]

N_CARDS = enc.N_CARDS  # 162, YZ-01


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


@dataclass
class MatchResult:
    """A match: the protocol §7 outcome, a readable log and every decision."""

    outcome: dict
    log: list[str]
    decisions: list[Decision]
    halves: list[HalfResult]


# ---------------------------------------------------------------------------------------------
# The match (YZ-04, YZ-25, YZ-26), protocol §6 and §7
# ---------------------------------------------------------------------------------------------


def shuangjia(half0: HalfResult, rules: Mapping | None = None) -> tuple[bool, int]:
    """YZ-25: ``(is 双夹, team that wins if so)`` after the first half.

    双夹 when the tested team Y still has both players in (a 1-2 finish) or scored under
    ``shuangjia_threshold`` points (YZ-D1; the text's 60).

    Examples
    --------
    >>> h = HalfResult(0, [0, 2], True, [1, 4, 2, 4], [], [], [300, 0, 0, 0], [300, 0])
    >>> shuangjia(h)
    (True, 0)
    >>> h = HalfResult(0, [0, 1, 2], False, [1, 2, 3, 4], [], [], [100, 140, 50, 10], [150, 150])
    >>> shuangjia(h), shuangjia(h, {"shuangjia_threshold": 155})
    ((False, 0), (True, 0))
    """
    resolved = resolve_rules(rules)
    threshold = resolved["shuangjia_threshold"]  # YZ-D1
    if resolved["shuangjia"] == "both_out_team":  # X = both out, Y = the other
        x = next(t for t in (0, 1) if all(s in half0.out for s in TEAMS[t]))
        y = 1 - x
        return (half0.one_two or half0.team_points[y] < threshold), x
    up_team = team_of(half0.out[0])  # variant upstream_team
    return (half0.one_two or half0.team_points[1 - up_team] < threshold), up_team


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
            s1.hands, s1.dao, s1.first_leader, choose, resolved, 1, log, decisions, first, h0
        )
        winner = match_winner(h0.team_points, h1.team_points, upstream0)
        totals = [h0.team_points[t] + h1.team_points[t] for t in (0, 1)]
        log.append(f"totals 南北 {totals[0]} : 东西 {totals[1]}; team {winner} wins (YZ-26)")
    # YZ-25 / YZ-26: the match scores of YZ-D3 / YZ-D2 (the text's 2 and 1)
    stake = resolved["match_points_shuangjia"] if is_sj else resolved["match_points_win"]
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
