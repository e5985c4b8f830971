"""``cardsim screen GAME``: every variant of every open reading against the default rules
(issue 47 item 3; docs/design.md, "Screening the readings").

The readings are the rule options whose role is ``reading`` (``kernels/<game>/options.py``,
``cardsim rules GAME``): a variant of a judgment-call ruling the texts leave open. The screen is a
study (:func:`cardsim.workflows.study.run_study`): a scenario ``default`` and one scenario
``<option>-<value>`` per variant, all on one root seed and player count, so every run plays the
same deals; it is resumable (a finished run of the same configuration is reused) and runs on a
Dask scheduler with the same tables. The analysis (every headline measure, Holm over the whole
screen, three verdicts) is ``analysis/screen_report.py``.
"""

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
    study: object  # cardsim.workflows.study.Study


@dataclass
class ScreenRun:
    """What :func:`run_screen` played and wrote."""

    plan: ScreenPlan
    out: Path
    reused: list[str]
    result: object  # cardsim.analysis.screen_report.ScreenResult
    report: Path
    numbers: Path

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        return html_of(self, f"cardsim screen {self.plan.game}: {len(self.plan.variants)} readings")


def _text(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def readings(game: str) -> list[Variant]:
    """Every variant of every reading of ``game`` (its default left out), in table order."""
    from cardsim.sim.games import get_engine

    out = []
    for o in get_engine(game).rule_options:
        if o.role != "reading":
            continue
        for v in o.values():
            if _text(v) != _text(o.default):
                out.append(Variant(o.name, _text(v), o.ruling, f"{o.name}-{_text(v)}"))
    return out


def plan_screen(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = DEFAULT_SEED,
) -> ScreenPlan:
    """The screen of ``game`` as a study: the default rules and every reading's variant, each
    ``games`` deals on root seed ``seed`` (checked as a study's scenarios are)."""
    from cardsim.sim.games import game_names
    from cardsim.workflows.study import Study, _check_scenario_config

    if game not in game_names():
        raise CardsimError(f"unknown game {game!r} (allowed: {', '.join(game_names())})")
    if isinstance(games, bool) or not isinstance(games, int) or games < 2:
        raise CardsimError(f"--games must be an integer >= 2 (deals per reading), got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise CardsimError(f"--seed must be an integer 0..2**64-1, got {seed!r}")
    variants = readings(game)
    if not variants:
        raise CardsimError(f"game {game!r} has no rule option of role 'reading' to screen")
    scenarios = [
        Scenario(name=BASELINE, game=game, games=games, seed=seed, players=players),
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
    for s in scenarios:
        _check_scenario_config(s, f"screen {game}")
    study = Study(f"screen-{game}", scenarios, [], "<screen>")
    return ScreenPlan(game, players, games, seed, variants, study)


def run_screen(
    plan: ScreenPlan,
    out: Path | str,
    *,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    scheduler=None,
    margins: dict[str, float] | None = None,
) -> ScreenRun:
    """Play the screen's runs into ``out/<scenario>/`` (a study: resumable, ``scheduler`` as
    ``--scheduler``), analyse them and write ``out/screen.html`` and ``out/screen.json``."""
    from cardsim.analysis import screen_report
    from cardsim.workflows.study import run_study

    out = Path(out)
    done = run_study(
        plan.study, out, threads=threads, progress=progress, force=force, report=False,
        scheduler=scheduler, command="screen",
    )  # fmt: skip
    rds = [
        screen_report.Reading(v.option, v.value, v.ruling, done.runs[v.scenario])
        for v in plan.variants
    ]
    result = screen_report.analyse(plan.game, done.runs[BASELINE], rds, margins)
    page, numbers = screen_report.write(result, out)
    return ScreenRun(plan, out, list(done.reused), result, page, numbers)


def summary(run: ScreenRun) -> str:
    """The command's text: what was screened, then the readings that change an answer."""
    r = run.result
    n = len(run.plan.variants)
    lines = [
        f"screen of {n} readings of {run.plan.game} ({r.players} players), {r.deals:,} deals "
        f"each on root seed {r.seed}, against the default rules; Holm over {len(r.rows)} "
        "comparisons",
    ]
    changes = r.changes
    if changes:
        lines.append("readings that change an answer (largest first, size in margins):")
        for c in changes:
            scale, unit = (100.0, " points") if c["kind"] == "binary" else (1.0, "")
            lines.append(
                f"  {c['option']}={c['value']} ({c['ruling']}): {c['label']} "
                f"{scale * c['diff']:+.2f}{unit} [{scale * c['diff_lo']:+.2f}, "
                f"{scale * c['diff_hi']:+.2f}], {c['size']:.1f} margins"
            )
    else:
        lines.append("no reading changes a headline measure clearly")
    lines += [f"report: {run.report}", f"numbers: {run.numbers}"]
    return "\n".join(lines)
