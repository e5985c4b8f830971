"""A tiny deterministic engine for runner unit tests (the real games are tested elsewhere).

Each "game" draws a few numbers from the real RNG stream of (seed, game index), so its rows
depend only on the configuration, exactly as a real engine's must.
"""

import numpy as np
import polars as pl

from kernels.rng import bounded, new_stream
from sim.game import RuleOption, RunConfig, StrategyInfo


class FakeEngine:
    name = "yuanzi"  # registers as a 4-player game for validation purposes
    player_counts = (4,)
    default_players = 4
    rule_options = (
        RuleOption("flavour", "plain", "T-01", "a choice option", choices=("plain", "spicy")),
        RuleOption("cap", 10, "T-02", "an int option", min=1, max=99),
    )
    strategies = (StrategyInfo("greedy", 0, "g"), StrategyInfo("random", 1, "r"))

    def __init__(self, delay: float = 0.0):
        self.delay = delay
        self.calls = []

    def play_chunk(self, config: RunConfig, first: int, count: int):
        import time

        self.calls.append((first, count))
        if self.delay:
            time.sleep(self.delay)
        idx = np.arange(first, first + count, dtype=np.int64)
        winners, lengths = [], []
        for i in idx:
            s = new_stream(config.seed, int(i), 0)
            winners.append(bounded(s, 4))
            lengths.append(10 + bounded(s, 90))
        games = pl.DataFrame({"game": idx, "winner": winners, "length": lengths})
        seats = pl.DataFrame(
            {
                "game": np.repeat(idx, 4),
                "seat": np.tile(np.arange(4), count),
                "won": np.repeat(np.array(winners), 4) == np.tile(np.arange(4), count),
            }
        )
        return games, seats

    def replay(self, config, game_index):
        return f"game {game_index}"
