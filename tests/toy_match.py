"""A toy game behind the match contract (issue 46 item 4), for tests of ``cardsim.env`` and the
OpenSpiel games without the real games' kernels.

2-4 players, each dealt 3 cards of values 0..5 (from the match's own seeded stream); in turn a
seat plays a card from its hand (action = the value) or, while the rule ``draws`` is on and it
holds fewer than 4 cards, draws one (action 6: chance inside the match, from a second stream).
The match ends when every hand is empty or after 30 moves; a seat's return is its played total
minus the mean total (zero-sum), plus ``bonus`` for seat 0 taken from the others. ``play_chunk``
plays the same matches with built-in strategies "random" (uniform over the legal actions) and
"greedy" (the highest card), as a run would.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.sim.engine import IllegalMove
from cardsim.sim.game import RunConfig, StrategyInfo

DRAW = 6
MAX_MOVES = 30


def _stream(seed: int, game_index: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, game_index, stream])


class ToyMatch:
    num_actions = 7

    def __init__(self, players: int, rules: dict, seed: int, game_index: int) -> None:
        self.players, self.rules = players, dict(rules)
        self.observation_size = 6 + 2 * players
        deal = _stream(seed, game_index, 0)
        self.hands = [list(deal.integers(0, 6, 3)) for _ in range(players)]
        self.draws = _stream(seed, game_index, 1)
        self.totals = [0] * players
        self.turn, self.moves = int(deal.integers(0, players)), 0

    def current_player(self) -> int:
        return -1 if self.is_over() else self.turn

    def legal_actions(self) -> np.ndarray:
        if self.is_over():
            return np.zeros(0, np.int64)
        hand = self.hands[self.turn]
        acts = set(int(c) for c in hand)
        if self.rules["draws"] and len(hand) < 4:
            acts.add(DRAW)
        return np.array(sorted(acts), np.int64)

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalMove(f"action {action} is not legal now")
        hand = self.hands[self.turn]
        if action == DRAW:
            hand.append(int(self.draws.integers(0, 6)))
        else:
            hand.remove(action)
            self.totals[self.turn] += int(action)
        self.moves += 1
        for step in range(1, self.players + 1):  # the next seat that still holds a card
            nxt = (self.turn + step) % self.players
            if self.hands[nxt]:
                self.turn = nxt
                break

    def is_over(self) -> bool:
        return self.moves >= MAX_MOVES or not any(self.hands)

    def returns(self) -> np.ndarray:
        if not self.is_over():
            return np.zeros(self.players)
        t = np.array(self.totals, float)
        out = t - t.mean()
        out[0] += self.rules["bonus"]
        out[1:] -= self.rules["bonus"] / (self.players - 1)
        return out

    def observation(self, seat: int) -> np.ndarray:
        obs = np.zeros(self.observation_size, np.float32)
        for c in self.hands[seat]:
            obs[c] += 1
        obs[6 : 6 + self.players] = self.totals
        if not self.is_over():
            obs[6 + self.players + self.turn] = 1
        return obs

    def action_text(self, action: int) -> str:
        return "draw" if action == DRAW else f"play {action}"

    def clone(self) -> ToyMatch:
        c = ToyMatch.__new__(ToyMatch)
        c.__dict__.update(self.__dict__)
        c.hands = [list(h) for h in self.hands]
        c.totals = list(self.totals)
        c.draws = np.random.default_rng()
        c.draws.bit_generator.state = self.draws.bit_generator.state
        return c


class ToyEngine:
    name = "toy"
    player_counts = (2, 3, 4)
    default_players = 3
    rule_options = OptionTable(
        "toy",
        (
            RuleOption("draws", "T-01", True, "a seat may draw while it holds under 4 cards"),
            RuleOption("bonus", "T-02", 0, "points seat 0 takes from the others", min=0, max=9),
        ),
    )
    strategies = (StrategyInfo("greedy", 0, "highest card"), StrategyInfo("random", 1, "uniform"))

    def new_match(self, players: int, rules: dict, seed: int, game_index: int = 0) -> ToyMatch:
        return ToyMatch(players, self.rule_options.resolve(rules, players), seed, game_index)

    def play_chunk(self, config: RunConfig, first: int, count: int):
        """One row per seat-match: ``game``, ``seat``, ``ret`` (the match's returns)."""
        rows = []
        for i in range(first, first + count):
            m = self.new_match(config.players, config.rules, config.seed, i)
            pick = _stream(config.seed, i, 2)
            while not m.is_over():
                legal = m.legal_actions()
                if config.seats[m.current_player()] == "greedy":
                    cards = legal[legal != DRAW]
                    m.apply(int(cards.max()) if len(cards) else DRAW)
                else:
                    m.apply(int(legal[pick.integers(0, len(legal))]))
            rows += [(i, s, float(r)) for s, r in enumerate(m.returns())]
        return pl.DataFrame(rows, schema=["game", "seat", "ret"], orient="row"), None


ENGINE = ToyEngine()
