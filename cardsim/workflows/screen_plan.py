"""A screen's plan (``cardsim screen`` and a study's ``[[screen]]``, issue 47 item 3): the
variants of the readings and their scenarios, and the analysis of the played runs. It imports no
workflow, so ``screen`` and ``study`` both sit above it (issue 46: no import circles)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardsim.sim.config import DEFAULT_SEED
from cardsim.sim.errors import CardsimError
from cardsim.workflows.plan import Scenario

#: Deals per reading of the documented default (each reading and the default rules play them):
#: ATLAS 11 runs, 原子 9, each screen within minutes on 2 cores (docs/design.md).
DEFAULT_GAMES = 100_000
BASELINE = "default"


@dataclass(frozen=True)
class Variant:
    """One variant of a reading: the option, its value as the rule table reads it, the ruling
    and the scenario (run folder) that plays it."""

    option: str
    value: str
    ruling: str
    scenario: str


@dataclass
class ScreenPlan:
    game: str
    players: int | None
    games: int
    seed: int
    variants: list[Variant]
    scenarios: list[Scenario]  # the default rules first, then one per variant
    baseline: str = BASELINE  # the default rules' scenario
    name: str = ""  # a study's [[screen]] name ("": the command's own screen)


def _text(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def readings(game: str, prefix: str = "") -> list[Variant]:
    """Every variant of every reading of ``game`` (its default left out), in table order; the
    scenario names start with ``prefix`` (a study's [[screen]]: ``<name>-``)."""
    from cardsim.sim.games import get_engine

    out = []
    for o in get_engine(game).rule_options:
        if o.role != "reading":
            continue
        for v in o.values():
            if _text(v) != _text(o.default):
                out.append(Variant(o.name, _text(v), o.ruling, f"{prefix}{o.name}-{_text(v)}"))
    return out


def plan_screen(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = DEFAULT_SEED,
    name: str = "",
) -> ScreenPlan:
    """The screen of ``game``: the default rules and every reading's variant, each ``games``
    deals on root seed ``seed`` (the scenarios are checked where they are run: as a study's).
    ``name``: a study's [[screen]] name, which prefixes the scenarios (``<name>-default``, …)."""
    from cardsim.sim.games import game_names

    if game not in game_names():
        raise CardsimError(f"unknown game {game!r} (allowed: {', '.join(game_names())})")
    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise CardsimError(f"--games must be an integer >= 2 (deals per reading), got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise CardsimError(f"--seed must be an integer 0..2**64-1, got {seed!r}")
    prefix = f"{name}-" if name else ""
    variants = readings(game, prefix)
    if not variants:
        raise CardsimError(f"game {game!r} has no rule option of role 'reading' to screen")
    scenarios = [
        Scenario(name=prefix + BASELINE, game=game, games=games, seed=seed, players=players),
        *(
            Scenario(
                name=v.scenario,
                game=game,
                games=games,
                seed=seed,
                players=players,
                rules={v.option: v.value},
            )  # fmt: skip
            for v in variants
        ),
    ]
    return ScreenPlan(game, players, games, seed, variants, scenarios, prefix + BASELINE, name)


def analyse_screen(plan: ScreenPlan, runs: dict[str, Path], out: Path, margins=None):
    """Analyse a played screen (``runs``: scenario -> run directory) and write its page and
    JSON into ``out`` (``screen.*``; a study's [[screen]]: ``<name>-screen.*``): (result, page,
    numbers)."""
    from cardsim.analysis import screen_report

    rds = [
        screen_report.Reading(v.option, v.value, v.ruling, runs[v.scenario]) for v in plan.variants
    ]
    result = screen_report.analyse(plan.game, runs[plan.baseline], rds, margins)
    stem = f"{plan.name}-screen" if plan.name else "screen"
    page, numbers = screen_report.write(result, Path(out), stem)
    return result, page, numbers
