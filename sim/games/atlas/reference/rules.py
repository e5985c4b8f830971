"""ATLAS card game: the readable reference rules (RULINGS.md AT-01 … AT-26).

Written from the rulings and ``docs/atlas-protocol.md`` alone; it shares only the card and code
encoding (``kernels/atlas/encoding.py``) and the random streams (``kernels/rng.py``) with the
Numba kernel, so that kernel traces can be replayed and checked here decision by decision.

Layout: cards and names in ``atlas_cards``, rule options in ``atlas_options``, melds in
``atlas_melds``, claims in ``atlas_claims``, the play of a round in ``atlas_round``; this module
deals, plays and replays matches. Everything public is importable from here.

Examples
--------
>>> from cardsim.sim.games.atlas.reference import rules as atlas
>>> m = atlas.play_match(1, 0, 4, atlas.random_chooser(7))
>>> sorted(m.rounds[0]) == sorted(atlas.OUTCOME_KEYS)
True
>>> atlas.continent("Giant Panda"), atlas.card_class("Kauri Tree")
('Asia', 'Plant')
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from cardsim.kernels import rng
from cardsim.kernels.atlas import encoding as enc
from cardsim.sim.games.atlas.reference.cards import (
    ATLAS,
    REVERSE,
    SKIP,
    TRADE,
    Card,
    card,
    card_class,
    continent,
    hand_cards,
    hand_counts,
    hand_value,
    is_action,
    is_matching,
    is_wild,
    name,
    names,
    pairs,
)
from cardsim.sim.games.atlas.reference.claims import (
    NONE,
    PAIR,
    REASONS,
    claim_key,
    claim_options,
    resolve_claims,
    self_meld_options,
)
from cardsim.sim.games.atlas.reference.melds import given_up, meld_from_cards, meld_kind, meld_title
from cardsim.sim.games.atlas.reference.options import (
    RULE_CHOICES,
    RULE_DEFAULTS,
    RULE_RULINGS,
    check_rules,
    deck_size,
    hand_values,
    specials,
)
from cardsim.sim.games.atlas.reference.round import (
    CLAIM,
    DECISION_NAMES,
    DISCARD,
    END_NAMES,
    GIVE,
    OUTCOME_KEYS,
    SELF_MELD,
    TAKE,
    TARGET,
    Chooser,
    Decision,
    Round,
    RoundResult,
    View,
    Window,
    describe,
    play_round,
)

__all__ = [
    "ATLAS", "CLAIM", "DECISION_NAMES", "DISCARD", "END_NAMES", "GIVE", "NONE", "OUTCOME_KEYS",
    "PAIR", "REASONS", "REVERSE", "RULE_CHOICES", "RULE_DEFAULTS", "RULE_RULINGS", "SELF_MELD",
    "SKIP", "TAKE", "TARGET", "TRADE", "Card", "Chooser", "Decision", "MatchResult", "Round",
    "RoundResult", "View", "Window", "card", "card_class", "check_rules", "claim_key",
    "claim_options", "continent", "deal_from_seed", "deck_size", "describe", "given_up", "hand_cards",
    "hand_counts", "hand_value", "hand_values", "is_action", "is_matching", "is_wild", "meld_from_cards",
    "meld_kind", "meld_title", "name", "names", "pairs", "play_match", "play_round",
    "random_chooser", "replay_trace", "resolve_claims", "self_meld_options", "specials",
]  # fmt: skip


@dataclass
class MatchResult:
    """A played match: per-round outcomes (protocol §6), event log, decisions, claim windows."""

    rounds: list[dict]
    log: list[str]
    decisions: list[Decision]
    windows: list[Window]
    totals: list[int] = field(default_factory=list)  # AT-25 points per seat over the match
    champions: list[int] = field(default_factory=list)  # AT-25 seats with the highest total


def _check_players(n_players: int) -> None:
    if not 2 <= n_players <= 10:
        raise ValueError(f"ATLAS is for 2 to 10 players, not {n_players} (AT-03)")


def deal_from_seed(
    root: int,
    game_index: int,
    n_players: int,
    rounds: int = 1,
    specials: tuple[int, int, int, int] = (6, 6, 6, 6),
) -> list[list[int]]:
    """The shuffled deck of every round of a game (protocol §1, stream 0).

    Round r's deck is the r-th ``shuffle`` of ``canonical_deck(specials)`` on the deal stream of
    ``(root, game_index)``: 180 matching cards and ``specials`` = the copies of ATLAS, SKIP,
    REVERSE, TRADE (AT-D2, AT-D3; 6 each, 204 cards, by default). ``deck[i]`` for
    ``i < hand_size·n`` goes to seat ``i % n`` (AT-03, :func:`deal_hands`); the rest is the draw
    pile, drawn from the front.

    Examples
    --------
    >>> decks = deal_from_seed(1, 0, 4, rounds=2)
    >>> len(decks), len(decks[0]), sorted(decks[0]) == sorted(decks[1])
    (2, 204, True)
    >>> len(deal_from_seed(1, 0, 4, specials=(0, 6, 6, 6))[0])  # no ATLAS: 198 cards
    198
    """
    _check_players(n_players)
    if rounds < 1:
        raise ValueError(f"a match has at least 1 round, not {rounds}")
    state = rng.new_stream(np.uint64(root), np.uint64(game_index), rng.STREAM_DEAL)
    decks = []
    for _ in range(rounds):
        deck = enc.canonical_deck(specials)
        rng.shuffle(state, deck, len(deck))
        decks.append([int(c) for c in deck])
    return decks


def deal_hands(
    deck: Sequence[int], n_players: int, hand_size: int = enc.HAND_SIZE
) -> tuple[list[list[int]], list[int]]:
    """AT-03: ``hand_size`` cards each (13 by default, AT-D1; ``deck[i]`` to seat ``i % n``)
    and the draw pile ``deck[hand_size·n:]``.

    Examples
    --------
    >>> hands, pile = deal_hands(list(range(204)), 10)
    >>> hands[3][:2], len(hands[3]), len(pile)  # seat 3 gets deck[3], deck[13], …; 204 - 130
    ([3, 13], 13, 74)
    >>> [len(h) for h in deal_hands(list(range(204)), 3, hand_size=7)[0]]
    [7, 7, 7]
    """
    _check_players(n_players)
    dealt = hand_size * n_players
    if dealt >= len(deck):
        raise ValueError(
            f"{hand_size} cards × {n_players} players leave no draw pile in {len(deck)} (AT-D1)"
        )
    hands = [[int(deck[i]) for i in range(p, dealt, n_players)] for p in range(n_players)]
    return hands, [int(c) for c in deck[dealt:]]


def play_match(
    root: int,
    game_index: int,
    n_players: int,
    choose: Chooser,
    rules: Mapping | None = None,
) -> MatchResult:
    """Play every round of one game from its protocol decks and events stream (AT-25).

    Parameters
    ----------
    root, game_index
        Seed of the run and index of the game: stream 0 deals, stream 1 drives reshuffles and
        blind TRADE picks (protocol §1).
    n_players
        2 to 10 (AT-03).
    choose
        ``choose(view, decision_type, options) -> code`` for every seat; ``view`` is a
        :class:`View` (AT-26), ``decision_type`` is protocol §7's type, ``options`` ascending.
    rules
        Rule options (see :data:`RULE_DEFAULTS`); ``rounds`` is the number of rounds.

    Returns
    -------
    MatchResult
        ``rounds`` (protocol §6 keys per round), ``log``, ``decisions``, ``windows``,
        ``totals``, ``champions``.

    Examples
    --------
    >>> m = play_match(3, 5, 3, random_chooser(1), {"rounds": 2})
    >>> len(m.rounds), m.rounds[0]["first_player"]  # AT-04: seat 0 moves first in round 1
    (2, 0)
    """
    _check_players(n_players)
    rules = check_rules(rules, n_players)
    decks = deal_from_seed(root, game_index, n_players, rules["rounds"], specials(rules))
    events = rng.new_stream(np.uint64(root), np.uint64(game_index), rng.STREAM_EVENTS)
    result = MatchResult([], [], [], [])
    first = 0  # AT-04: the dealer is seat n-1, seat 0 moves first
    for r, deck in enumerate(decks):
        hands, pile = deal_hands(deck, n_players, int(rules["hand_size"]))
        rnd = Round(
            hands=[hand_counts(h) for h in hands],
            pile=pile,
            choose=choose,
            rules=rules,
            first=first,
            direction=1,  # AT-25: every round starts clockwise
            round_index=r,
            events=events,
            decisions=result.decisions,
            windows=result.windows,
            log=result.log,
            standing=tuple(sum(o["points"][p] for o in result.rounds) for p in range(n_players)),
        )
        outcome = rnd.play()
        result.rounds.append(outcome)
        # AT-25: the winner moves first next; after no winner, the seat after the last first
        first = outcome["winner"] if outcome["winner"] >= 0 else (first + 1) % n_players
    totals = [sum(o["points"][p] for o in result.rounds) for p in range(n_players)]
    best = max(totals)
    result.totals = totals
    result.champions = [p for p in range(n_players) if totals[p] == best]  # AT-25 shared title
    result.log.append(f"match: totals {totals}, champion(s) seat {result.champions}")
    return result


def random_chooser(seed: int = 0) -> Chooser:
    """A strategy that picks uniformly among the options (its own ``random.Random(seed)``).

    Examples
    --------
    >>> pick = random_chooser(3)
    >>> pick(None, 2, [8192, 8193]) in (8192, 8193)
    True
    """
    gen = random.Random(seed)

    def choose(view: View, dtype: int, options: list[int]) -> int:
        return options[gen.randrange(len(options))]

    return choose


def replay_trace(
    root: int,
    game_index: int,
    n_players: int,
    chosen: Sequence[int],
    rules: Mapping | None = None,
) -> MatchResult:
    """Replay a game from its chosen codes, in decision order (a kernel trace, protocol §7).

    Raises ``ValueError`` naming the decision number, seat, type, code and options when a code
    is not an option, when the codes run out, or when codes are left over at the end.

    Examples
    --------
    >>> m = play_match(2, 9, 4, random_chooser(5))
    >>> again = replay_trace(2, 9, 4, [d.chosen for d in m.decisions])
    >>> again.rounds == m.rounds
    True
    """
    codes = [int(c) for c in chosen]
    pos = 0

    def feed(view: View, dtype: int, options: list[int]) -> int:
        nonlocal pos
        if pos >= len(codes):
            raise ValueError(
                f"trace ran out at decision {pos} (round {view.round}, seat {view.seat}, "
                f"type {dtype} {DECISION_NAMES[dtype]}, options {options})"
            )
        code = codes[pos]
        if code not in options:
            raise ValueError(
                f"decision {pos} (round {view.round}, seat {view.seat}, type {dtype} "
                f"{DECISION_NAMES[dtype]}): code {code} is not one of the options {options}"
            )
        pos += 1
        return code

    result = play_match(root, game_index, n_players, feed, rules)
    if pos != len(codes):
        raise ValueError(
            f"trace has {len(codes) - pos} codes left over after the match ended at decision {pos}"
        )
    return result
