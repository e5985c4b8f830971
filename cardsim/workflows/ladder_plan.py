"""A ladder's plan (docs/ladder.md): its levels, player counts, games per level and sub-run
scenarios, read from the command line or a study file's ``[[ladder]]`` table, and the data of a
played ladder. ``cardsim.workflows.ladder`` runs it; ``study`` reads ``[[ladder]]`` tables
through it without importing the runner (issue 46: no import circles)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr

from cardsim.sim.config import DEFAULT_SEED, check_strategy
from cardsim.sim.errors import CardsimError
from cardsim.workflows.plan import Scenario, named_table

#: The default levels (issue 23): a beginner (random, then careless greedy: a random move one
#: time in five), a casual player (softmax over greedy's own scores), greedy, then strong play
#: at scripted speed (``learned``, distilled from ismcts: issue 48; pimc and ismcts are named
#: with --levels) — docs/strategies.md says what each models.
DEFAULT_LEVELS = ("random", "greedy:eps=0.2", "soft", "greedy", "learned")


class _LadderTable(BaseModel):
    """One ``[[ladder]]`` table of a study file (``players`` and the values are checked by
    :func:`build_ladder`, as the command line's)."""

    model_config = ConfigDict(extra="forbid")
    name: Any
    game: Any
    levels: list[StrictStr] | None = None
    games: StrictInt
    deals: StrictInt | None = None
    seed: StrictInt = DEFAULT_SEED
    players: Any = None
    rules: dict[str, Any] = {}
    chunk_size: StrictInt | None = None
    scripted_games: StrictInt | None = None


LADDER_KEYS = set(_LadderTable.model_fields)
#: A ladder key of a wrong type, in the order they are reported, and the message (None: the
#: value must be an integer).
_LADDER_WRONG = {
    "levels": 'levels must list strategies, e.g. ["random", "greedy"]',
    "rules": "rules must be a table like { key = value }",
    "games": None, "deals": None, "seed": None, "chunk_size": None, "scripted_games": None,
}  # fmt: skip


@dataclass
class Ladder:
    """A validated ladder and the scenarios (sub-runs) that play it."""

    game: str
    levels: list[str]
    games: int
    deals: int
    seed: int = DEFAULT_SEED
    players: list[int] = field(default_factory=list)
    rules: dict[str, str] = field(default_factory=dict)
    chunk_size: int | None = None
    name: str = ""  # in a study: the prefix of its scenario names
    #: self-play games of a scripted level (:func:`is_scripted`); None: ``games``
    scripted_games: int | None = None
    scenarios: list[Scenario] = field(default_factory=list)
    #: group ("" or "4 players") -> (rating scenario, {level: self-play scenario})
    groups: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)


def is_scripted(engine, level: str) -> bool:
    """Whether ``level`` is a built-in that does not search (random, greedy, greedy:eps, soft,
    …): thousands of games a second, so a ladder may give it more self-play games
    (``--scripted-games``) at almost no cost. Search strategies and user strategies are not."""
    from cardsim.sim.warmup import SEARCH_STRATEGIES

    base = level.split(":", 1)[0]
    return base in {s.name for s in engine.strategies} and base not in SEARCH_STRATEGIES


def games_of(ladder: Ladder, engine, level: str) -> int:
    """The self-play games of ``level``: ``scripted_games`` for a scripted level, if set."""
    if ladder.scripted_games is not None and is_scripted(engine, level):
        return ladder.scripted_games
    return ladder.games


def _slug(level: str) -> str:
    """A level's part of a sub-run name, from its label (a user file: ``mybot-choose``, not
    its whole path)."""
    from cardsim.sim.schema import strategy_label

    return re.sub(r"[^A-Za-z0-9_-]+", "-", strategy_label(level)).strip("-") or "level"


def parse_levels(engine, text: str | list[str] | None) -> list[str]:
    """The levels of ``--levels`` (a comma-separated list; parameters stay whole:
    ``pimc:samples=4,cap=2,greedy``), each checked like a ``--strategy``."""
    from cardsim.sim.strategy_params import split_strategies

    if text is None:
        items = list(DEFAULT_LEVELS)
    elif isinstance(text, str):
        items = split_strategies(text)
    else:
        items = [str(x) for x in text]
    levels = []
    for item in items:
        try:
            levels.append(check_strategy(engine, item.strip()))
        except CardsimError as e:
            raise CardsimError(f"--levels: {e}") from None
    if len(levels) < 2:
        raise CardsimError("--levels needs at least two strategies, e.g. random,greedy")
    dup = sorted({lv for lv in levels if levels.count(lv) > 1})
    if dup:
        raise CardsimError(f"--levels: {dup[0]} is listed twice")
    return levels


def parse_players(engine, text: str | int | list | None) -> list[int]:
    """``--players``: one count or a comma-separated list (ATLAS ``2,4,6``)."""
    if text is None:
        return [engine.default_players]
    if isinstance(text, int) and not isinstance(text, bool):
        items = [text]
    elif isinstance(text, list):
        items = text
    else:
        items = [x.strip() for x in str(text).split(",")]
    out = []
    for x in items:
        if isinstance(x, bool) or not (
            isinstance(x, int) or (isinstance(x, str) and x.isascii() and x.isdigit())
        ):
            raise CardsimError(f"--players: {x!r} is not a player count")
        n = int(x)
        if n not in engine.player_counts:
            allowed = ", ".join(map(str, engine.player_counts))
            raise CardsimError(f"--players: {engine.name} is played by {allowed} players, not {n}")
        if n in out:
            raise CardsimError(f"--players: {n} is listed twice")
        out.append(n)
    return out


def build_ladder(
    game: str,
    levels: str | list[str] | None = None,
    *,
    games: int,
    deals: int | None = None,
    seed: int = DEFAULT_SEED,
    players: str | int | list | None = None,
    rules=(),
    chunk_size: int | None = None,
    name: str = "",
    scripted_games: int | None = None,
) -> Ladder:
    """A validated :class:`Ladder` and its scenarios; :class:`CardsimError` for bad input.
    ``scripted_games``: self-play games of each scripted level (:func:`is_scripted`) in place
    of ``games`` — where the search levels are slow, cheap precision for the trend."""
    from cardsim.sim.games import get_engine

    engine = get_engine(game)
    lv = parse_levels(engine, levels)
    counts = parse_players(engine, players)
    deals, rule_items = _check_numbers(games, deals, rules, chunk_size, scripted_games)
    ladder = Ladder(
        game, lv, games, deals, seed, counts, rule_items, chunk_size, name, scripted_games
    )
    several = len(engine.player_counts) > 1
    pre = f"{name}-" if name else ""
    for n in counts:
        _add_group(ladder, engine, n, several, pre)
    return ladder


def _check_numbers(games, deals, rules, chunk_size, scripted=None) -> tuple[int, dict[str, str]]:
    """--games, --deals, --scripted-games, --chunk-size positive integers; --rule once per key
    (as text)."""
    for what, v in (("--games", games), ("--deals", deals), ("--scripted-games", scripted)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
            raise CardsimError(f"{what} must be a positive integer, got {v!r}")
    deals = games if deals is None else deals
    if not isinstance(rules, dict):
        keys = [k for k, _ in rules]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise CardsimError(f"--rule {dup[0]} is given twice")
    rule_items = dict(rules)
    rule_items = {
        k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in rule_items.items()
    }
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0
    ):
        raise CardsimError(f"--chunk-size must be a positive integer, got {chunk_size!r}")
    return deals, rule_items


def _add_group(ladder: Ladder, engine, n: int, several: bool, pre: str) -> None:
    """The rating scenario and the self-play scenarios of one player count, validated as the
    CLI validates run and compare."""
    from cardsim.sim.compare import build_compare_config
    from cardsim.sim.config import build_config

    game, lv, deals, seed = ladder.game, ladder.levels, ladder.deals, ladder.seed
    rule_items, chunk_size = ladder.rules, ladder.chunk_size
    tag = f"p{n}-" if several else ""
    group = f"{n} players" if several else ""
    try:  # validated as the CLI validates run and compare
        build_compare_config(engine, lv, games=deals, seed=seed, players=n, rules=rule_items)
        for level in lv:
            build_config(
                engine, games=games_of(ladder, engine, level), seed=seed, players=n,
                strategy=level, rules=rule_items,
            )  # fmt: skip
    except CardsimError as e:
        msg = str(e).replace("--strategies", "--levels")
        raise CardsimError(f"{'--players ' + str(n) + ': ' if several else ''}{msg}") from None
    rating = f"{pre}{tag}rating"
    ladder.scenarios.append(
        Scenario(
            name=rating,
            game=game,
            games=deals,
            seed=seed,
            rules=rule_items,
            players=n,
            chunk_size=chunk_size,
            compare=list(lv),
        )  # fmt: skip
    )
    selfplay = {}
    for i, level in enumerate(lv):
        sname = f"{pre}{tag}L{i}-{_slug(level)}"
        selfplay[level] = sname
        ladder.scenarios.append(
            Scenario(
                name=sname,
                game=game,
                games=games_of(ladder, engine, level),
                seed=seed,
                strategy=level,
                rules=rule_items,
                players=n,
                chunk_size=chunk_size,
            )  # fmt: skip
        )
    ladder.groups[group] = (rating, selfplay)


def parse_ladder_table(d: dict, i: int, source: str, taken: set[str]) -> Ladder:
    """One ``[[ladder]]`` table of a study file (docs/study.md): validated, with its scenarios
    named ``<name>-rating``, ``<name>-L<i>-<level>`` (and ``pK-`` per player count)."""
    label = f"{source}, ladder {i}"
    table, refused, label = named_table(
        _LadderTable, d, "ladder", label, ("name", "game", "games"), taken
    )
    wrong = refused.first_wrong(_LADDER_WRONG)
    if wrong:
        why = _LADDER_WRONG[wrong] or f"{wrong} must be an integer, got {d[wrong]!r}"
        raise CardsimError(f"{label}: {why}")
    try:
        return build_ladder(
            d["game"], table.levels, games=table.games, deals=table.deals, seed=table.seed,
            players=table.players, rules=table.rules, chunk_size=table.chunk_size,
            name=d["name"], scripted_games=table.scripted_games,
        )  # fmt: skip
    except CardsimError as e:
        raise CardsimError(f"{label}: {str(e).replace('--', '')}") from None


def ladder_data(ladder: Ladder, runs: dict[str, Path]):
    """The :class:`cardsim.analysis.ladder.LadderData` of a played ladder (scenario name -> run dir)."""
    from cardsim.analysis.ladder import LadderData
    from cardsim.sim.schema import strategy_label as label  # the tables' names of the levels

    return LadderData(
        ladder.game,
        [label(lv) for lv in ladder.levels],
        {g: runs[r] for g, (r, _) in ladder.groups.items()},
        {g: {label(lv): runs[s] for lv, s in sp.items()} for g, (_, sp) in ladder.groups.items()},
    )
