"""Duplicate-deal strategy comparisons: every deal is played under every seat assignment.

The deal of a game depends only on (root seed, game index) — never on the strategies — so
playing the same game index under several seat assignments gives *paired* games: the same
cards, with the strategies in other seats. The seat effect cancels out of each comparison.

Seat assignments (:func:`seat_assignments`):

- 原子 (teams {0, 2} and {1, 3}): for every ordered pair of distinct strategies (a, b), team
  南北 plays a and team 东西 plays b — so with two strategies each deal is played twice, with
  the teams swapped.
- ATLAS (n seats): the base assignment gives seat s strategy ``s mod k``; it is played in
  every rotation of the seats (n plays of each deal, fewer where rotations coincide), so each
  strategy sits in every position equally often.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl
from cardsim.sim.config import build_config, check_strategy
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine, RunConfig
from cardsim.sim.schema import strategy_label


def seat_assignments(layout: str, players: int, strategies: list[str]) -> list[tuple[str, ...]]:
    """All seat assignments a comparison of ``strategies`` plays each deal under.

    ``layout`` is the game's ``facts.comparison_layout``: ``team_swap`` (two teams of
    alternating seats) or ``rotation`` (every rotation of the seats).

    Examples
    --------
    >>> seat_assignments("team_swap", 4, ["a", "b"])
    [('a', 'b', 'a', 'b'), ('b', 'a', 'b', 'a')]
    >>> seat_assignments("rotation", 3, ["a", "b"])
    [('a', 'b', 'a'), ('a', 'a', 'b'), ('b', 'a', 'a')]
    >>> len(seat_assignments("rotation", 2, ["a", "b", "c"]))  # windows ab, bc, ca; 2 rotations
    6
    """
    if len(strategies) < 2:
        raise CardsimError("--strategies needs at least two strategies, e.g. greedy,random")
    if len(set(strategies)) != len(strategies):
        raise CardsimError(f"--strategies: duplicate labels in {','.join(strategies)}")
    if layout == "team_swap":
        return [(a, b, a, b) for a in strategies for b in strategies if a != b]
    if layout != "rotation":
        raise CardsimError(f"unknown comparison layout {layout!r}")
    k = len(strategies)
    # more strategies than seats: each of the k cyclic windows of ``players`` strategies sits
    # the table in turn (k = players + 1: every strategy left out once, every pair meets
    # equally often); every strategy then plays every seat equally often
    windows = [strategies] if k <= players else [
        [strategies[(w + j) % k] for j in range(players)] for w in range(k)
    ]  # fmt: skip
    out: list[tuple[str, ...]] = []
    for window in windows:
        base = [window[s % len(window)] for s in range(players)]
        for r in range(players):
            a = tuple(base[(s - r) % players] for s in range(players))
            if a not in out:
                out.append(a)
    return out


def build_compare_config(
    engine: GameEngine,
    strategies: list[str],
    *,
    games: int,
    seed: int,
    players: int | None = None,
    rules=(),
) -> RunConfig:
    """A validated :class:`RunConfig` whose ``assignments`` hold every seat assignment."""
    names = [check_strategy(engine, s.strip()) for s in strategies]  # '' is an error
    labels = []
    for name in names:  # a strategy compared with itself gets a label per copy: greedy@2
        k = sum(1 for other in labels if strategy_of(other) == name)
        labels.append(name if k == 0 else f"{name}@{k + 1}")
    base = build_config(engine, games=games, seed=seed, players=players, rules=rules)
    assignments = seat_assignments(engine.facts.comparison_layout, base.players, labels)
    return replace(base, seats=assignments[0], assignments=tuple(assignments))


def strategy_of(label: str) -> str:
    """The strategy behind a comparison label (``greedy@2`` -> ``greedy``)."""
    return label.rsplit("@", 1)[0] if "@" in label.rsplit(":", 1)[-1] else label


class DuplicateEngine:
    """Wraps a game engine: a chunk plays each game index under every seat assignment.

    Rows gain an ``assignment`` column (the index into ``config.assignments``), right after
    ``game``; a game index names the same deal in every assignment. The seats table's
    ``strategy`` holds the comparison label (``greedy@2`` when a strategy meets itself).
    """

    def __init__(self, engine: GameEngine) -> None:
        self.engine = engine
        self.name = engine.name
        self.player_counts = engine.player_counts
        self.default_players = engine.default_players
        self.rule_options = engine.rule_options
        self.strategies = engine.strategies
        self.facts = engine.facts

    def play_chunk(
        self, config: RunConfig, first: int, count: int
    ) -> tuple[pl.DataFrame, pl.DataFrame]:
        # one strategy Enum for every assignment: the comparison labels and the bare names
        names = {strategy_label(x) for a in config.assignments for x in a}
        labels = pl.Enum(sorted(names | {strategy_label(strategy_of(x)) for x in names}))
        games_parts, seats_parts = [], []
        for i, seats in enumerate(config.assignments):
            single = replace(config, seats=tuple(strategy_of(x) for x in seats), assignments=())
            games, seat_rows = self.engine.play_chunk(single, first, count)
            seat_rows = seat_rows.with_columns(  # the comparison's labels, not the bare names
                pl.col("seat")
                .replace_strict(dict(enumerate(map(strategy_label, seats))), return_dtype=pl.String)
                .cast(labels)
                .alias("strategy")
            )
            games = games.with_columns(
                pl.col(c).cast(pl.String).cast(labels)
                for c in games.columns
                if c.startswith("strategy_s")
            )
            tag = pl.lit(i, dtype=pl.Int16).alias("assignment")
            games_parts.append(games.with_columns(tag).select(_with_assignment(games.columns)))
            seats_parts.append(
                seat_rows.with_columns(tag).select(_with_assignment(seat_rows.columns))
            )
        return pl.concat(games_parts), pl.concat(seats_parts)

    def replay(self, config: RunConfig, game_index: int, assignment: int = 0) -> str:
        seats = tuple(strategy_of(x) for x in config.assignments[assignment])
        return self.engine.replay(replace(config, seats=seats, assignments=()), game_index)


def _with_assignment(columns: list[str]) -> list[str]:
    pos = columns.index("game") + 1 if "game" in columns else 0
    return [*columns[:pos], "assignment", *columns[pos:]]
