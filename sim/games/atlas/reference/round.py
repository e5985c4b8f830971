"""ATLAS: one round of play (AT-03 … AT-24), readable top-down.

:class:`Round` holds the state of one round and plays it: turns (protocol §3), claim windows
(§4), action cards, the last card, exhaustion and the score. Every choice goes to a
``choose(view, decision_type, options) -> code`` callable; random events use the events stream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from cardsim.kernels import rng
from cardsim.kernels.atlas import encoding as enc
from cardsim.kernels.atlas.encoding import END_NAMES  # protocol §6 end codes, in order
from cardsim.sim.games.atlas.reference.cards import (
    ACTIONS,
    ATLAS,
    REVERSE,
    SKIP,
    Card,
    card,
    hand_cards,
    hand_counts,
    hand_value,
    names,
    pairs,
)
from cardsim.sim.games.atlas.reference.claims import (
    NONE,
    PAIR,
    claim_option_set,
    is_youxian,
    resolve_counts,
    self_meld_option_set,
)
from cardsim.sim.games.atlas.reference.melds import FIVE, QUAD, TRIPLE, given_up, meld_title, spec
from cardsim.sim.games.atlas.reference.options import check_rules, hand_values

# Decision types (protocol §7).
CLAIM, SELF_MELD, DISCARD, TARGET, TAKE, GIVE = range(6)
DECISION_NAMES = ("claim", "self-meld", "discard", "trade target", "trade take", "trade give")

(
    END_CLAIM,
    END_SELF_MELD,
    END_LAST_CARD_DRAW,
    END_LAST_CARD_CLAIM,
    END_ACTION_CARD,
    END_NO_WINNER,
    END_TURN_CAP,
    END_LAST_DISCARD,
) = range(8)

#: The per-round outcome keys (protocol §6), in order; the last five are per seat.
OUTCOME_KEYS = (
    "first_player",
    "winner",
    "end",
    "turns",
    "reshuffles",
    "direction_changes",
    "winner_points",
    "triples",
    "quads",
    "fives",
    "youxian_claims",
    "last_card_pairs",
    "claims",
    "self_melds",
    "skips",
    "reverses",
    "trades",
    "atlas_used",
    "cards_left",
    "hand_value",
    "points",
    "melds_by_seat",
    "claims_by_seat",
)

# How the next turn is played (after a claim window).
_NORMAL, _AFTER_CLAIM, _JUMP = range(3)


@dataclass(frozen=True)
class View:
    """What a strategy may see when it decides (AT-26, protocol §8).

    Cards are type ids (``cardsim.kernels.atlas.encoding.CARD_NAMES``); never another seat's hand.
    """

    seat: int
    n_players: int
    round: int
    hand: tuple[int, ...]  # own cards, type id ascending
    hand_sizes: tuple[int, ...]  # every seat's hand size
    direction: int  # +1 clockwise, -1 anticlockwise
    draw_pile_size: int
    discard_pile: tuple[int, ...]  # face-up discards, oldest first
    melds: tuple[tuple[int, tuple[int, ...]], ...]  # (seat, cards) of every meld shown, in order
    traded: tuple[tuple[str, int, int], ...]  # ("took" | "gave", other seat, card) this round
    # AT-26 self_melds_shown=false: (seat, size) of every self-meld laid face down, in order
    face_down: tuple[tuple[int, int], ...] = ()
    # AT-26 (revised 2026-12-06): the cards of the seat's own face-down self-melds, ascending
    own_face_down: tuple[int, ...] = ()
    # AT-25, AT-26 (revised 2026-12-06): every seat's points from the match's earlier rounds
    standing: tuple[int, ...] = ()
    discard: int | None = None  # claim decisions: the discard under claim
    discarder: int | None = None  # claim decisions: who discarded it
    trade_target: int | None = None  # TAKE / GIVE decisions: the chosen target
    target_hand: tuple[int, ...] | None = None  # TAKE with trade_pick=seen: the target's hand


@dataclass(frozen=True)
class Decision:
    """One decision of a match: round, seat, type (protocol §7), options (ascending), chosen."""

    round: int
    seat: int
    type: int
    options: tuple[int, ...]
    chosen: int

    @property
    def options_hash(self) -> int:
        """``option_set_hash`` of the options (what the kernel trace records)."""
        codes = np.array(self.options, dtype=np.int32)
        return int(enc.option_set_hash(codes, len(codes)))


@dataclass(frozen=True)
class Window:
    """One claim window: round, discarder, card, winning seat (−1 none), winning code (0 none)."""

    round: int
    discarder: int
    card: int
    winner: int
    code: int


Chooser = Callable[[View, int, list[int]], int]


class _RoundOver(Exception):
    pass


def describe(
    code: int,
    hand: Sequence[Card] = (),
    discard: Card | None = None,
    same_species: bool | None = None,
    claim_priority: str = "text",
) -> str:
    """Readable text of a decision code, with the actual cards a meld gives up.

    Parameters
    ----------
    code
        A decision code (protocol §2, §3, encoding.py).
    hand
        The deciding seat's cards (needed for meld codes).
    discard
        The discard under claim, for claim codes.
    same_species
        The claim is the 優先配 same-species triple (AT-14 ``text``): it gives up two of the species.
        ``None`` (default): decided from the hand, the discard and ``claim_priority``, as the
        round decides it.
    claim_priority
        The AT-14 rule option in force (``text`` or ``nearest_win``), used when ``same_species``
        is ``None``.

    Examples
    --------
    >>> describe(33, ["Giant Panda", "Tiger", "Lion"], discard="Orangutan")
    'claim Orangutan with triple Asia Land, giving up Giant Panda, Tiger'
    >>> describe(33, ["Giant Panda", "Giant Panda", "Tiger"], discard="Giant Panda")
    'claim Giant Panda with triple Asia Land, giving up Giant Panda ×2'
    >>> describe(8192 + 61)
    'discard SKIP'
    """
    x = None if discard is None else card(discard)
    if same_species is None:  # AT-14 text: the 優先配 triple gives up two of the species
        same_species = (
            x is not None
            and code < PAIR
            and claim_priority == "text"
            and is_youxian(hand_counts(hand), x, code)
        )
    if code == NONE:
        return "no claim" if x is not None else "none"
    if code == PAIR:
        return f"pair the last card with {names([x]) if x is not None else 'the discard'}"
    if code < PAIR:
        cards = given_up(hand_counts(hand), code, x, same_species)
        if x is None:
            return f"self-meld {meld_title(code)}: {names(cards)}"
        return f"claim {names([x])} with {meld_title(code)}, giving up {names(cards)}"
    if enc.DISCARD <= code < enc.DISCARD + enc.N_TYPES:
        return f"discard {enc.CARD_NAMES[code - enc.DISCARD]}"
    if enc.TARGET <= code < enc.TARGET + 10:
        return f"trade with seat {code - enc.TARGET}"
    if enc.TAKE <= code < enc.TAKE + enc.N_TYPES:
        return f"take {enc.CARD_NAMES[code - enc.TAKE]}"
    if enc.GIVE <= code < enc.GIVE + enc.N_TYPES:
        return f"give {enc.CARD_NAMES[code - enc.GIVE]}"
    raise ValueError(f"not an ATLAS decision code: {code}")


@dataclass
class RoundResult:
    """A round played by :func:`play_round`: outcome (§6), log, decisions, windows, end state."""

    outcome: dict
    log: list[str]
    decisions: list[Decision]
    windows: list[Window]
    hands: list[list[int]]  # cards left per seat, type id ascending
    pile: list[int]
    discard_pile: list[int]
    melds: list[tuple[int, tuple[int, ...]]]


@dataclass
class Round:
    """State of one ATLAS round and its play (call :meth:`play` once)."""

    hands: list[list[int]]  # 64 counts per seat
    pile: list[int]  # draw pile, front = next draw
    choose: Chooser
    rules: Mapping
    first: int = 0
    direction: int = 1
    round_index: int = 0
    events: np.ndarray | None = None  # stream 1 state (reshuffles, blind TRADE picks)
    discard_pile: list[int] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    standing: tuple[int, ...] | None = None  # AT-25: points from earlier rounds (None: zeros)

    def __post_init__(self) -> None:
        self.n = len(self.hands)
        self.melds: list[tuple[int, tuple[int, ...]]] = []  # every meld, with its cards
        self.shown: list[tuple[int, tuple[int, ...]]] = []  # AT-26: melds others see
        self.face_down: list[tuple[int, int]] = []  # AT-26: (seat, size) of face-down self-melds
        self.own_face_down: list[list[int]] = [[] for _ in range(len(self.hands))]  # their cards
        if self.standing is None:
            self.standing = (0,) * len(self.hands)
        self.out: list[int] = []  # cards that left the round (melds, pairs, winning cards)
        self.traded: list[list[tuple[str, int, int]]] = [[] for _ in range(self.n)]
        self.winner = -1
        self.end = -1
        self.turns = 0
        self.stats = dict.fromkeys(OUTCOME_KEYS[4:18], 0)  # reshuffles … atlas_used counters
        self.melds_by_seat = [0] * self.n
        self.claims_by_seat = [0] * self.n
        if self.events is None:
            self.events = rng.new_stream(0, 0, rng.STREAM_EVENTS)
        self._total = self._cards_in_play()

    # ---- helpers -------------------------------------------------------------------------
    def next(self, p: int) -> int:
        """AT-16: the next seat in the current direction."""
        return (p + self.direction) % self.n

    def size(self, p: int) -> int:
        return sum(self.hands[p])

    def _cards_in_play(self) -> int:
        return sum(map(sum, self.hands)) + len(self.pile) + len(self.discard_pile) + len(self.out)

    def _say(self, text: str) -> None:
        self.log.append(text)

    def _view(self, seat: int, **context) -> View:
        return View(
            seat=seat,
            n_players=self.n,
            round=self.round_index,
            hand=tuple(hand_cards(self.hands[seat])),
            hand_sizes=tuple(self.size(q) for q in range(self.n)),
            direction=self.direction,
            draw_pile_size=len(self.pile),
            discard_pile=tuple(self.discard_pile),
            melds=tuple(self.shown),
            traded=tuple(self.traded[seat]),
            face_down=tuple(self.face_down),
            own_face_down=tuple(sorted(self.own_face_down[seat])),
            standing=tuple(self.standing),
            **context,
        )

    def _ask(self, seat: int, dtype: int, options: list[int], **context) -> int:
        """Ask ``seat``'s strategy; the code must be one of the options."""
        options = sorted(options)
        code = self.choose(self._view(seat, **context), dtype, list(options))
        if code not in options:
            raise ValueError(
                f"decision {len(self.decisions)} (round {self.round_index}, seat {seat}, "
                f"type {dtype} {DECISION_NAMES[dtype]}): code {code} is not one of {options}"
            )
        code = int(code)
        self.decisions.append(Decision(self.round_index, seat, dtype, tuple(options), code))
        return code

    def _end(self, winner: int, end: int) -> None:
        self.winner, self.end = winner, end
        raise _RoundOver

    # ---- the round -----------------------------------------------------------------------
    def play(self) -> dict:
        """Play the round to its end; return the protocol §6 outcome."""
        way = "clockwise" if self.direction == 1 else "anticlockwise"
        self._say(
            f"round {self.round_index + 1}: {self.n} players, seat {self.first} first, {way}, "
            f"draw pile {len(self.pile)}"
        )
        for p in range(self.n):
            self._say(f"  seat {p} holds {names(hand_cards(self.hands[p]))}")
        p, mode = self.first, _NORMAL
        try:
            while True:
                if mode == _JUMP:
                    # AT-15 claim_turn=jump: the claimant plays on without drawing (counts a turn)
                    self.turns += 1
                    p, mode = self._play_on(p, may_meld=True)
                else:
                    # AT-23 turn cap, checked before every ordinary turn
                    if self.turns >= self.rules["turn_cap"]:
                        self._say(f"turn cap {self.rules['turn_cap']} reached: no winner")
                        self._end(-1, END_TURN_CAP)
                    p, mode = self._turn(p, after_claim=mode == _AFTER_CLAIM)
                assert self._cards_in_play() == self._total, "cards not conserved"
        except _RoundOver:
            pass
        assert self._cards_in_play() == self._total, "cards not conserved"
        return self._score()

    def _turn(self, p: int, after_claim: bool) -> tuple[int, int]:
        """An ordinary turn of seat ``p`` (protocol §3); returns the next seat and mode."""
        self.turns += 1
        hand = self.hands[p]
        lone = next((t for t in range(enc.N_TYPES) if hand[t]), -1) if self.size(p) == 1 else -1
        # AT-21: a lone action card is played without drawing and wins
        if lone in ACTIONS:
            hand[lone] -= 1
            self.out.append(lone)
            self._say(f"turn {self.turns}: seat {p} plays its last card {names([lone])} and wins")
            self._end(p, END_ACTION_CARD)
        # AT-06 draw; AT-23 empty pile
        drawn = self._draw(p)
        self._say(f"turn {self.turns}: seat {p} draws {names([drawn])} (pile {len(self.pile)})")
        # AT-21: a last matching card (or ATLAS) that pairs the drawn card wins
        if lone >= 0 and pairs(lone, drawn):
            hand[lone] -= 1
            self.out += [lone, drawn]
            self.stats["last_card_pairs"] += 1
            self._say(f"  seat {p} pairs its last card {names([lone])} with the draw and wins")
            self._end(p, END_LAST_CARD_DRAW)
        hand[drawn] += 1
        # AT-07 self-melds in every turn, or only in the turn after the seat's own claim
        may_meld = self.rules["self_melds"] == "any" or after_claim
        return self._play_on(p, may_meld)

    def _draw(self, p: int) -> int:
        """AT-06 draw the top card; AT-23 reshuffle the discard pile or end the round."""
        if not self.pile:
            if self.rules["exhausted"] == "no_winner" or not self.discard_pile:
                self._say(f"turn {self.turns}: seat {p} finds the draw pile empty: no winner")
                self._end(-1, END_NO_WINNER)
            arr = np.array(self.discard_pile, dtype=np.int64)  # oldest discard first
            rng.shuffle(self.events, arr, len(arr))
            self.pile = [int(c) for c in arr]
            self.discard_pile = []
            self.stats["reshuffles"] += 1
            self._say(f"  reshuffle: {len(self.pile)} discards become the draw pile")
        return self.pile.pop(0)

    def _play_on(self, p: int, may_meld: bool) -> tuple[int, int]:
        """Steps 4-6 of a turn: self-melds, the last card, the discard and its effect."""
        hand = self.hands[p]
        # AT-07 self-melds: repeated decision, a meld that empties the hand wins (AT-20)
        while may_meld:
            options = self_meld_option_set(hand, self.rules)
            if not options:
                break
            code = self._ask(p, SELF_MELD, options)
            if code == NONE:
                break
            self._lay(p, code, None, False)
        # AT-22: one card left after melding is kept (or, last_discard_wins, discarded to win)
        if self.size(p) == 1:
            last = hand_cards(hand)[0]
            if not self.rules["last_discard_wins"]:
                self._say(f"  seat {p} keeps its last card")
                return self.next(p), _NORMAL
            hand[last] -= 1
            self.out.append(last)
            self._say(f"  seat {p} discards its last card {names([last])} and wins")
            self._end(p, END_LAST_DISCARD)
        # AT-08 discard exactly one card
        options = [enc.DISCARD + t for t in range(enc.N_TYPES) if hand[t]]
        t = self._ask(p, DISCARD, options) - enc.DISCARD
        hand[t] -= 1
        self._say(f"  seat {p} discards {names([t])}")
        if t in ACTIONS:
            self.discard_pile.append(t)  # AT-09: action cards go face up, never claimed
            if t == SKIP:
                return self._skip(p)
            if t == REVERSE:
                return self._reverse(p)
            return self._trade(p)
        return self._claim_window(p, t)  # a matching card or ATLAS opens the window

    def _lay(self, p: int, code: int, x: int | None, same_species: bool) -> None:
        """Lay a meld (self-meld, or claim of discard ``x``); an empty hand wins (AT-20).

        AT-26: a claim is shown; a self-meld lies face down (others learn its seat and size)
        unless ``self_melds_shown``. ``same_species``: the 優先配 triple of AT-14 ``text``.
        """
        cards = given_up(self.hands[p], code, x, same_species)
        for c in cards:
            self.hands[p][c] -= 1
        shown = tuple(sorted(cards + ([] if x is None else [x])))
        self.melds.append((p, shown))
        if x is not None or self.rules["self_melds_shown"]:
            self.shown.append((p, shown))
        else:
            self.face_down.append((p, len(shown)))
            self.own_face_down[p] += shown
        self.out += shown
        kind = spec(code).kind
        self.stats[{TRIPLE: "triples", QUAD: "quads", FIVE: "fives"}[kind]] += 1
        self.stats["atlas_used"] += shown.count(ATLAS)
        self.melds_by_seat[p] += 1
        if x is None:
            self.stats["self_melds"] += 1
            self._say(f"  seat {p} self-melds {meld_title(code)}: {names(cards)}")
        if self.size(p) == 0:
            self._say(f"  seat {p} has melded every card and wins")
            self._end(p, END_SELF_MELD if x is None else END_CLAIM)

    # ---- action cards --------------------------------------------------------------------
    def _skip(self, p: int) -> tuple[int, int]:
        """AT-17 SKIP: the next player loses its turn (2 players: the SKIP player goes again)."""
        self.stats["skips"] += 1
        skipped = self.next(p)
        self._say(f"  SKIP: seat {skipped} loses its turn")
        return self.next(skipped), _NORMAL

    def _reverse(self, p: int) -> tuple[int, int]:
        """AT-18 REVERSE: the direction flips; with 2 players it acts as SKIP (or, none, nothing)."""
        self.stats["reverses"] += 1
        if self.n == 2:
            if self.rules["reverse_two_players"] == "skip":
                self._say(
                    f"  REVERSE with 2 players acts as SKIP: seat {self.next(p)} loses its turn"
                )
                return p, _NORMAL
            self._say("  REVERSE with 2 players has no effect")
            return self.next(p), _NORMAL
        self.direction = -self.direction
        self.stats["direction_changes"] += 1
        way = "clockwise" if self.direction == 1 else "anticlockwise"
        self._say(f"  REVERSE: play goes {way}")
        return self.next(p), _NORMAL

    def _trade(self, p: int) -> tuple[int, int]:
        """AT-19 TRADE: take one card of a target (blind or seen), give one back; turn ends."""
        self.stats["trades"] += 1
        targets = [enc.TARGET + s for s in range(self.n) if s != p and self.size(s) >= 1]
        code = self._ask(p, TARGET, [NONE, *targets]) if targets else NONE
        if code == NONE:
            self._say("  TRADE played on nobody")
            return self.next(p), _NORMAL
        s = code - enc.TARGET
        if self.rules["trade_pick"] == "blind":
            k = int(rng.bounded(self.events, self.size(s)))  # events stream, protocol §1
            taken = hand_cards(self.hands[s])[k]
        else:
            seen = tuple(hand_cards(self.hands[s]))
            options = [enc.TAKE + t for t in sorted(set(seen))]
            taken = self._ask(p, TAKE, options, trade_target=s, target_hand=seen) - enc.TAKE
        self.hands[s][taken] -= 1
        self.hands[p][taken] += 1
        options = [enc.GIVE + t for t in range(enc.N_TYPES) if self.hands[p][t]]
        given = self._ask(p, GIVE, options, trade_target=s) - enc.GIVE
        self.hands[p][given] -= 1
        self.hands[s][given] += 1
        self.traded[p] += [("took", s, taken), ("gave", s, given)]
        self.traded[s] += [("gave", p, taken), ("took", p, given)]
        how = self.rules["trade_pick"]
        self._say(
            f"  TRADE: seat {p} takes {names([taken])} from seat {s} ({how}), "
            f"gives {names([given])}"
        )
        return self.next(p), _NORMAL

    # ---- claims --------------------------------------------------------------------------
    def _claim_window(self, d: int, x: int) -> tuple[int, int]:
        """AT-12 … AT-16, AT-21: every other seat may claim ``x``; at most one succeeds."""
        claims: dict[int, int] = {}
        q = d
        for _ in range(self.n - 1):
            q = self.next(q)  # asked in the current direction from the discarder (AT-16)
            options = claim_option_set(self.hands[q], x, self.rules)
            if not options:
                continue
            code = self._ask(q, CLAIM, options, discard=x, discarder=d)
            text = describe(code, hand_cards(self.hands[q]), x, self._same_species(q, x, code))
            self._say(
                f"  seat {q} may claim {names([x])} ({len(options)} option{'s' * (len(options) != 1)}): {text}"
            )
            if code != NONE:
                claims[q] = code
        priority = self.rules["claim_priority"]
        winner, reason = resolve_counts(x, d, self.direction, self.hands, claims, priority)
        code = claims.get(winner, NONE) if winner is not None else NONE
        self.windows.append(Window(self.round_index, d, x, -1 if winner is None else winner, code))
        if winner is None:
            self.discard_pile.append(x)  # AT-09 unclaimed: stays face up
            return self.next(d), _NORMAL
        q = winner
        others = sorted(s for s in claims if s != q)
        why = f"{reason} over seats {others}" if others else reason
        self._say(f"  seat {q} gets {names([x])} ({why})")
        if is_youxian(self.hands[q], x, code, priority):  # protocol §6: 優先配 claims won
            self.stats["youxian_claims"] += 1
        self.stats["claims"] += 1
        self.claims_by_seat[q] += 1
        if code == PAIR:
            # AT-21 the last card pairs the discard: absolute priority, wins
            lone = hand_cards(self.hands[q])[0]
            self.hands[q][lone] -= 1
            self.out += [lone, x]
            self.stats["last_card_pairs"] += 1
            self._say(f"  seat {q} pairs its last card {names([lone])} and wins")
            self._end(q, END_LAST_CARD_CLAIM)
        same = self._same_species(q, x, code)
        self._say(f"  seat {q} melds: {describe(code, hand_cards(self.hands[q]), x, same)}")
        self._lay(q, code, x, same)
        if self.rules["claim_turn"] == "jump":
            # AT-15 variant: the claimant discards without drawing; play continues from it
            self._say(f"  seat {q} plays on without drawing (claim_turn=jump)")
            return q, _JUMP
        # AT-15 stay: turn order unchanged; the next player's turn follows its own claim
        nxt = self.next(d)
        return nxt, (_AFTER_CLAIM if nxt == q else _NORMAL)

    def _same_species(self, q: int, x: int, code: int) -> bool:
        """AT-14 ``text``: the claim is the 優先配 same-species triple (gives up two of ``x``)."""
        return self.rules["claim_priority"] == "text" and is_youxian(self.hands[q], x, code)

    # ---- score ---------------------------------------------------------------------------
    def _score(self) -> dict:
        """AT-24: the winner receives the AT-05 value of every other hand (values: AT-D4);
        protocol §6 keys."""
        values = [hand_value(h, hand_values(self.rules)) for h in self.hands]
        points = [0] * self.n
        if self.winner >= 0:
            points[self.winner] = sum(values)
            parts = " + ".join(f"seat {q} {values[q]}" for q in range(self.n) if q != self.winner)
            self._say(
                f"seat {self.winner} wins ({END_NAMES[self.end]}) and scores "
                f"{points[self.winner]} = {parts}"
            )
        else:
            self._say(f"round ends with no winner ({END_NAMES[self.end]}); nobody scores")
        out = {
            "first_player": self.first,
            "winner": self.winner,
            "end": self.end,
            "turns": self.turns,
            **self.stats,
            "cards_left": [self.size(q) for q in range(self.n)],
            "hand_value": values,
            "points": points,
            "melds_by_seat": list(self.melds_by_seat),
            "claims_by_seat": list(self.claims_by_seat),
        }
        out["winner_points"] = points[self.winner] if self.winner >= 0 else 0
        return {k: out[k] for k in OUTCOME_KEYS}


def play_round(
    hands: Sequence[Sequence[Card]],
    pile: Sequence[Card],
    choose: Chooser,
    rules: Mapping | None = None,
    *,
    first: int = 0,
    direction: int = 1,
    discard_pile: Sequence[Card] = (),
    events: np.ndarray | None = None,
) -> RoundResult:
    """Play one round from given hands and draw pile (scripted rule tests, examples).

    Parameters
    ----------
    hands
        Each seat's cards (names or ids); the number of hands is the number of players.
    pile
        The draw pile, front = next draw.
    choose
        ``choose(view, decision_type, options) -> code``.
    rules
        Rule options (``None`` = defaults).
    first, direction
        The first seat and the direction (+1 clockwise).
    discard_pile
        Face-up discards at the start, oldest first.
    events
        Events stream state (``cardsim.kernels.rng.new_stream(root, game, 1)``); default (0, 0, 1).

    Examples
    --------
    >>> r = play_round([["SKIP"], ["Lion", "Tiger"]], ["Lion"], lambda v, t, o: o[0])
    >>> r.outcome["winner"], r.outcome["end"], r.outcome["winner_points"]  # AT-21, 1 + 1
    (0, 4, 2)
    """
    rules = check_rules(rules)
    if not 2 <= len(hands) <= 10:
        raise ValueError(f"ATLAS is for 2 to 10 players, not {len(hands)} (AT-03)")
    r = Round(
        hands=[hand_counts(h) for h in hands],
        pile=[card(c) for c in pile],
        choose=choose,
        rules=rules,
        first=first,
        direction=direction,
        events=events,
        discard_pile=[card(c) for c in discard_pile],
    )
    outcome = r.play()
    return RoundResult(
        outcome,
        r.log,
        r.decisions,
        r.windows,
        [hand_cards(h) for h in r.hands],
        list(r.pile),
        list(r.discard_pile),
        list(r.melds),
    )
