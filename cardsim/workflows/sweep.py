"""``cardsim sweep``: how a headline measure responds to a numeric rule parameter, and which value
hits a target (issue 47 items 1–2; the statistics are :mod:`cardsim.analysis.sweep`).

A sweep is a study of one run per value (two parameters: per grid cell), every run on the same
deals (one root seed), laid out as ordinary run directories::

    DIR/<param>-<value>[_<param2>-<value2>]/   one run per value (as ``cardsim run``)
    DIR/confirm-<param>-<value>/                a target's confirmation run (fresh deals)
    DIR/sweep.html, sweep.json                  the curves, the targets, the answers

Every sub-run is played by the study runner (:func:`cardsim.workflows.study.run_study`), so a
sweep is resumable (the same command again reuses finished runs, completes unfinished ones) and
plays on a Dask cluster with the same tables (``scheduler``).
"""

from __future__ import annotations

import json
from pathlib import Path

from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.rundir import holding_out
from cardsim.workflows.sweep_plan import REPORT, Sweep


def _check_report(out: Path, sweep: Sweep, force: bool) -> None:
    """``sweep.html`` / ``sweep.json`` are replaced only when they are this sweep's."""
    js = out / Path(REPORT).with_suffix(".json")
    if force or not (js.exists() or (out / REPORT).exists()):
        return
    try:
        same = json.loads(js.read_text(encoding="utf-8")).get("identity") == json.loads(
            jsonio.dumps(sweep.identity())
        )
    except (OSError, ValueError, AttributeError):
        same = False
    if not same:
        raise CardsimError(
            f"{out / REPORT} exists and is not this sweep's report; use --force to replace it, "
            "or another --out"
        )


@holding_out("sweep")  # one writer per sweep folder (sim/rundir.py)
def run_sweep(
    sweep: Sweep,
    out: Path | str,
    *,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    confirm: bool = True,
    scheduler=None,
):
    """Play every value of ``sweep`` into ``out`` (reused / resumed as a study's scenarios),
    then, for each target the curve reaches, a confirmation run at the nearest allowed value on
    fresh deals; write ``out/sweep.html`` and ``out/sweep.json``. Returns the
    :class:`cardsim.analysis.sweep.SweepResult`. The study runner plays it (a study of one
    ``[[sweep]]``), so a study file's sweeps are the same."""
    from cardsim.workflows.study import Study, run_study

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CardsimError(f"--out {out}: exists and is not a directory")
    _check_report(out, sweep, force)
    sweep.confirm = confirm
    study = Study(f"sweep {sweep.game}", [], [], "<sweep>", sweeps=[sweep])
    played = run_study(study, out, threads=threads, progress=progress, force=force,
                       report=False, scheduler=scheduler, command="sweep")  # fmt: skip
    return played.sweeps[sweep.name][1]
