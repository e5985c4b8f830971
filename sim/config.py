"""Validated run configurations: players, strategies per seat and rule options.

Everything a user types is checked here, before anything is written, and every problem is a
:class:`~cardsim.sim.errors.CardsimError` naming the bad value and the allowed ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from cardsim.kernels.errors import did_you_mean
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine, RunConfig
from cardsim.sim.user_strategies import PY_PREFIX, is_python_strategy, is_user_strategy

MAX_SEED = 2**64 - 1
MAX_GAMES = 10**12
#: The root seed when none is given: ``--seed``, study files and RunConfig alike.
DEFAULT_SEED = 0
#: ``--until-ci W`` / ``until_ci``: W is a proportion (0.01 = ±1 percentage point). Below 0.0001
#: a run needs ~10⁸ games per point of precision; above 0.1 it stops before it says anything.
UNTIL_CI_RANGE = (0.0001, 0.1)


def check_until_ci(width: float, name: str = "--until-ci") -> float:
    """Return ``width`` if it is a half-width ``--until-ci`` can mean, else raise."""
    lo, hi = UNTIL_CI_RANGE
    if isinstance(width, bool) or not isinstance(width, int | float) or not lo <= width <= hi:
        raise CardsimError(
            f"{name} is a proportion (0.01 = ±1 percentage point) in {lo}..{hi}, got {width!r}"
        )
    return float(width)


def check_strategy(engine: GameEngine, name: str) -> str:
    """Return ``name`` if it is a built-in strategy or a loadable ``file.py:function``."""
    builtins = [s.name for s in engine.strategies]
    if not isinstance(name, str):
        raise CardsimError(f"a strategy is a name or path/to/file.py:function, got {name!r}")
    if not name.strip():
        raise CardsimError(
            f"empty strategy name (allowed: {', '.join(builtins)}, or path/to/file.py:function)"
        )
    if name in builtins:
        return name
    parse = getattr(engine, "parse_strategy", None)  # a built-in with parameters: pimc:samples=16
    if parse is not None and name.partition(":")[0] in builtins:
        return parse(name)
    if is_user_strategy(name):
        prefix = PY_PREFIX if is_python_strategy(name) else ""  # py: plain Python (reference)
        path, func = name[len(prefix) :].rsplit(":", 1)
        if not Path(path).is_file():
            raise CardsimError(f"strategy file not found: {path}")
        if not func.isidentifier():
            raise CardsimError(f"strategy {name!r}: {func!r} is not a function name")
        return prefix + str(Path(path).resolve()) + ":" + func
    raise CardsimError(
        f"unknown {engine.name} strategy {name!r}{did_you_mean(name, builtins)} "
        f"(allowed: {', '.join(builtins)}, or path/to/file.py:function)"
    )


def resolve_rules(
    engine: GameEngine,
    given: Mapping[str, str] | Iterable[tuple[str, str]],
    players: int | None = None,
) -> dict:
    """Every rule option of ``engine`` with defaults filled in and given values parsed.

    The one validator is the game's option table (:meth:`cardsim.kernels.options.OptionTable.resolve`),
    with its cross-option check for ``players`` (e.g. ATLAS AT-D1: the deck deals every seat).
    """
    items = given.items() if isinstance(given, Mapping) else given
    items = list(items)
    seen: set[str] = set()
    for key, _ in items:
        if key in seen:  # as a repeated --seat is: never silently keep the last one
            raise CardsimError(f"--rule {key} is given twice")
        seen.add(key)
    return engine.rule_options.resolve(dict(items), players)


def _checked_counts(engine: GameEngine, games: int, seed: int, players: int | None) -> int:
    """Check ``games`` and ``seed``; the number of players (the game's default for None)."""
    if not isinstance(games, int) or isinstance(games, bool) or games <= 0:
        raise CardsimError(f"--games must be a positive integer, got {games!r}")
    if games > MAX_GAMES:
        raise CardsimError(f"--games must be at most {MAX_GAMES:,}, got {games:,}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise CardsimError(f"--seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    n = engine.default_players if players is None else players
    if not isinstance(n, int) or isinstance(n, bool) or n not in engine.player_counts:
        allowed = engine.player_counts
        text = f"{allowed[0]}..{allowed[-1]}" if len(allowed) > 1 else str(allowed[0])
        raise CardsimError(f"{engine.name} is played by {text} players, got --players {n}")
    return n


def build_config(
    engine: GameEngine,
    *,
    games: int,
    seed: int,
    players: int | None = None,
    strategy: str | None = None,
    seat_strategies: Mapping[int, str] | Iterable[tuple[int, str]] = (),
    rules: Mapping[str, str] | Iterable[tuple[str, str]] = (),
) -> RunConfig:
    """Validate user input into a :class:`RunConfig`.

    Examples
    --------
    >>> from cardsim.sim.games import get_engine
    >>> cfg = build_config(get_engine("yuanzi"), games=100, seed=7, strategy="greedy")
    >>> cfg.seats
    ('greedy', 'greedy', 'greedy', 'greedy')
    """
    n = _checked_counts(engine, games, seed, players)
    builtins = [s.name for s in engine.strategies]
    default = ("greedy" if "greedy" in builtins else builtins[0]) if strategy is None else strategy
    seats = [check_strategy(engine, default)] * n
    items = seat_strategies.items() if isinstance(seat_strategies, Mapping) else seat_strategies
    given: set[int] = set()
    for seat, name in items:
        if not isinstance(seat, int) or isinstance(seat, bool):  # issue 45 item 12
            raise CardsimError(
                f"a seat is a number 0..{n - 1} (e.g. {{0: 'random'}}), got {seat!r}"
            )
        if not 0 <= seat < n:
            raise CardsimError(f"--seat {seat}: seats are 0..{n - 1} with {n} players")
        if seat in given:
            raise CardsimError(f"--seat {seat} is given twice")
        given.add(seat)
        seats[seat] = check_strategy(engine, name)
    return RunConfig(
        game=engine.name,
        players=n,
        seats=tuple(seats),
        rules=resolve_rules(engine, rules, n),
        seed=seed,
        games=games,
    )
