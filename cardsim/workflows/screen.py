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
from cardsim.workflows.screen_plan import (  # noqa: F401  (re-exported: the screen's vocabulary)
    BASELINE,
    DEFAULT_GAMES,
    ScreenPlan,
    Variant,
    analyse_screen,
    readings,
)
from cardsim.workflows.screen_plan import plan_screen as _plan


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


def plan_screen(
    game: str,
    *,
    players: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = DEFAULT_SEED,
) -> ScreenPlan:
    """The screen of ``game``: the default rules and every reading's variant, each ``games``
    deals on root seed ``seed``, checked as a study's scenarios are (before anything runs)."""
    from cardsim.workflows.study import _check_scenario_config

    plan = _plan(game, players=players, games=games, seed=seed)
    for s in plan.scenarios:
        _check_scenario_config(s, f"screen {game}")
    return plan


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
    from cardsim.workflows.study import Study, run_study

    out = Path(out)
    study = Study(f"screen-{plan.game}", plan.scenarios, [], "<screen>")
    done = run_study(
        study, out, threads=threads, progress=progress, force=force, report=False,
        scheduler=scheduler, command="screen",
    )  # fmt: skip
    result, page, numbers = analyse_screen(plan, done.runs, out, margins)
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
