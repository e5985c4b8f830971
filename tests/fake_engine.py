"""A tiny deterministic team game for runner and comparison unit tests.

The real games are tested elsewhere; this stand-in only has to behave like an engine: its rows
depend only on (configuration, game index), drawn from the real RNG streams. Two teams
{0, 2} and {1, 3}; each deal gives each team some luck (stream 0), a team playing "greedy"
gets a bonus, the strategies add a little noise (stream 2), and the higher total wins. The
first leader's team gets a small edge, so there is a first-player advantage to measure.
"""

import numpy as np
import polars as pl
from cardsim.kernels.options import OptionTable, RuleOption
from cardsim.kernels.rng import bounded, new_stream
from cardsim.sim.game import GameFacts, Measure, RunConfig, StrategyInfo, first_side_wins
from cardsim.sim.games import get_engine, register_engine

BONUS = {"greedy": 0.35, "random": 0.0}


FACTS = GameFacts(
    title="Fake team game",
    row_unit="match",
    side="team",
    side_column="team",
    sides_of=lambda players: 2,
    first_player_label="first leader's team",
    first_side=lambda: pl.col("first_leader") % 2,
    winner_side=lambda: pl.col("winner_team"),
    deal_columns_games=("first_leader",),
    deal_columns_seats=(),
    comparison_layout="team_swap",
    headline=(
        Measure(
            "first_side_wins",
            "first leader's team wins",
            "match",
            "binary",
            first_side_wins,
            "first-player advantage",
            ladder="first_excess",
        ),
    ),
)


class FakeEngine:
    name = "fake"  # registered below: shared code knows it only through its facts
    facts = FACTS
    player_counts = (4,)
    default_players = 4
    rule_options = OptionTable(
        "fake",
        (
            RuleOption("flavour", "T-01", "plain", "a choice option", choices=("plain", "spicy")),
            RuleOption("cap", "T-02", 10, "an int option", min=1, max=99),
        ),
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
        winner, leader, length = [], [], []
        for i in idx:
            deal = new_stream(config.seed, int(i), 0)
            play = new_stream(config.seed, int(i), 2)
            lead = bounded(deal, 4)
            score = [bounded(deal, 1000) / 1000 for _ in range(2)]
            score[lead % 2] += 0.05
            for t in range(2):
                score[t] += BONUS[config.seats[t]] + bounded(play, 1000) / 20000
            winner.append(int(score[1] > score[0]))
            leader.append(lead)
            length.append(10 + bounded(deal, 90))
        return fake_tables(idx, leader, winner, length, config.seats)

    def replay(self, config, game_index):
        return f"game {game_index}"


def fake_tables(idx, leader, winner, length, seat_strategies):
    """The fake game's (games, seats) tables: 4 seats in 2 teams (0/2 and 1/3)."""
    games = pl.DataFrame(
        {"game": idx, "first_leader": leader, "winner_team": winner, "length": length},
        schema_overrides={"first_leader": pl.Int8, "winner_team": pl.Int8},
    )
    seat = np.tile(np.arange(4), len(idx))
    seats = pl.DataFrame(
        {
            "game": np.repeat(idx, 4),
            "seat": seat,
            "team": seat % 2,
            "strategy": [seat_strategies[s] for s in seat],
            "won": np.repeat(np.array(winner), 4) == seat % 2,
        }
    )
    return games, seats


try:
    get_engine("fake")
except Exception:
    register_engine(FakeEngine())
