"""``cardsim report``: every balance analysis of one or more run directories, as one report.

:func:`write_report` opens the runs (:mod:`analysis.io`), gathers the LazyFrame queries of every
analysis module for every run and collects them in one ``pl.collect_all``; each module then
turns its results into a :class:`~analysis.model.Section`. Findings with a p-value are judged
together after Holm's correction. The writers (:mod:`analysis.render`) produce a self-contained
HTML file, or Markdown plus PNG files, and optionally the same numbers as JSON.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl

from analysis import (
    atlas_cards,
    atlas_end,
    duplicate,
    length,
    scores,
    seats,
    stats,
    strategy,
    yuanzi_bombs,
    yuanzi_dao,
    yuanzi_finish,
)
from analysis.io import Run, open_runs, run_labels
from analysis.model import Finding, RunData, Section, Table, pm
from sim import __version__
from sim.errors import CardsimError

COMMON = (duplicate, seats, length, scores, strategy)
GAME_MODULES = {
    "yuanzi": (*COMMON, yuanzi_dao, yuanzi_finish, yuanzi_bombs),
    "atlas": (*COMMON, atlas_end, atlas_cards),
}
FORMATS = ("html", "md")


@dataclass
class ReportResult:
    """What :func:`write_report` wrote and found."""

    out: Path
    json_out: Path | None
    warnings: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Report:
    """Everything a writer needs (built by :func:`build_report`)."""

    game: str
    runs: list[Run]
    labels: list[str]
    config: Section
    sections: list[Section]
    findings: list[tuple[str, Finding]]
    warnings: list[str]
    generated: str
    version: str = __version__


# --- configuration -------------------------------------------------------------------------


def rule_defaults(game: str) -> dict[str, object] | None:
    """Default value of every rule option of ``game`` (None if the engine cannot be loaded)."""
    try:
        from sim.games import get_engine

        return {o.name: o.default for o in get_engine(game).rule_options}
    except Exception:  # the engine module may be missing or broken; the report goes on
        return None


def _same(a, b) -> bool:
    return str(a).lower() == str(b).lower()


def stop_text(r: Run) -> str:
    """How a run ended: "" (its planned games), or the stop rule and the interval it reached."""
    if not r.stopped_early:
        return ""
    iv = r.main_interval
    if str(r.stopped_early).startswith("until_ci") and iv:
        target = iv.get("target_half_width")
        return (
            f"by --until-ci ±{target:g} after {iv.get('n', 0):,} "
            f"{'deals' if r.is_comparison else 'games'}: {iv.get('label', 'main interval')} "
            f"= {pm(iv['estimate'], iv['lo'], iv['hi'])}"
        )
    return f"by {r.stopped_early}"


def config_section(runs: list[Run], labels: list[str], warnings: list[str]) -> Section:
    game = runs[0].game
    defaults = rule_defaults(game)
    if defaults is None:
        warnings.append(f"could not load the {game} engine: non-default rules are not marked")
    sec = Section("config", "Configuration")
    rows = []
    for lab, r in zip(labels, runs, strict=True):
        m = r.manifest
        rows.append(
            {
                "run": lab,
                "path": str(r.path),
                "game": game,
                "players": r.players,
                "strategies": (
                    f"comparison of {', '.join(r.compared)} "
                    f"({len(r.assignments)} seat assignments per deal)"
                    if r.is_comparison
                    else ", ".join(f"{i}: {s}" for i, s in enumerate(r.strategies))
                ),
                "seed": str(m["seed"]),
                "games": f"{r.games_done:,} of {r.games_planned:,}",
                "status": (
                    "stopped early"
                    if r.stopped_early
                    else "complete"
                    if r.complete
                    else "INCOMPLETE"
                ),
                "stopped": stop_text(r),
                "cardsim": str(m.get("cardsim_version", "?")),
                "created": str(m.get("created", "")),
            }
        )
    sec.tables.append(Table("runs", "Runs", pl.DataFrame(rows)))
    for lab, r in zip(labels, runs, strict=True):
        if r.stopped_early:
            pre = f"{lab}: " if len(runs) > 1 else ""
            sec.findings.append(
                Finding(
                    f"{pre}The run stopped early: {stop_text(r)}; {r.games_done:,} of "
                    f"{r.games_planned:,} planned games were played."
                )
            )
    names = sorted({k for r in runs for k in r.rules} | set(defaults or {}))
    rule_rows = []
    for name in names:
        row = {"option": name, "default": "" if defaults is None else str(defaults.get(name, "?"))}
        non_default = False
        for lab, r in zip(labels, runs, strict=True):
            v = r.rules.get(name, defaults.get(name) if defaults else None)
            row[lab] = str(v)
            if defaults is not None and not _same(v, defaults.get(name)):
                non_default = True
        row["non_default"] = non_default
        rule_rows.append(row)
    sec.tables.append(
        Table("rules", "Rule options (non-default values highlighted)", pl.DataFrame(rule_rows))
    )
    return sec


# --- comparison of several runs ------------------------------------------------------------


def _headline(game: str) -> list[tuple[str, Callable[[RunData], tuple[int, int]]]]:
    def row(key: str, filt: dict, k: str = "k", n: str = "n"):
        def get(it: RunData) -> tuple[int, int]:
            df = it.get(key)
            for c, v in filt.items():
                df = df.filter(pl.col(c) == v)
            r = df.row(0, named=True)
            return int(r[k]), int(r[n])

        return get

    if game == "yuanzi":
        return [
            ("first leader's team wins", row("seats.first_leader_team", {}, "wins")),
            ("team 0 wins", row("seats.team", {"team": 0}, "wins")),
            ("双夹", row("yuanzi_finish.match", {"outcome": "双夹 (any team)"})),
            ("1-2 finish in half 1", row("yuanzi_finish.patterns", {"half": 1, "pattern": "1-2"})),
            ("3 is 刀 in half 1", row("yuanzi_dao.dao", {"half": 1, "dao": 3})),
        ]
    return [
        ("first player wins (decided rounds)", row("seats.position", {"position": 0}, "wins")),
        ("no winner", row("atlas_end.ends", {"end": "no_winner"})),
        ("turn cap", row("atlas_end.ends", {"end": "turn_cap"})),
        ("won by claim", row("atlas_end.ends", {"end": "claim"})),
    ]


def comparison_section(items: list[RunData]) -> Section:
    sec = Section(
        "comparison",
        "Comparison of the runs",
        f"Each run against the first ({items[0].label}): difference of proportions with "
        "Newcomb's 95 % interval and a score test, Holm-corrected over this table.",
    )
    rows = []
    for what, get in _headline(items[0].run.game):
        try:
            k0, n0 = get(items[0])
        except (KeyError, IndexError, pl.exceptions.PolarsError):
            continue
        for it in items[1:]:
            try:
                k1, n1 = get(it)
            except (KeyError, IndexError, pl.exceptions.PolarsError):
                continue
            d, lo, hi, p = stats.diff_proportions(k1, n1, k0, n0)
            rows.append(
                {
                    "measure": what,
                    "run": it.label,
                    "rate": k1 / n1 if n1 else float("nan"),
                    "n": n1,
                    "baseline": k0 / n0 if n0 else float("nan"),
                    "n_baseline": n0,
                    "diff": float(d[0]),
                    "diff_lo": float(lo[0]),
                    "diff_hi": float(hi[0]),
                    "p": float(p[0]),
                }
            )
    if not rows:
        return sec
    df = pl.DataFrame(rows)
    df = df.with_columns(p_holm=pl.Series(stats.adjust(df["p"].to_numpy(), "holm")))
    sec.tables.append(
        Table("diffs", "Differences from the first run", df, ("rate", "baseline", "diff"))
    )
    for r in df.iter_rows(named=True):
        sec.findings.append(
            Finding(
                f"{r['run']} vs {items[0].label}: {r['measure']} differs by "
                f"{pm(r['diff'], r['diff_lo'], r['diff_hi'])} points "
                f"({100 * r['rate']:.1f} % vs {100 * r['baseline']:.1f} %).".replace(
                    " %  points", " points"
                ),
                f"{r['run']} vs {items[0].label}: no difference detectable in {r['measure']} "
                f"({100 * r['rate']:.1f} % vs {100 * r['baseline']:.1f} %, difference "
                f"{pm(r['diff'], r['diff_lo'], r['diff_hi'])}).",
                r["p"],
            )
        )
    return sec


# --- building ------------------------------------------------------------------------------


def judge(findings: list[tuple[str, Finding]], alpha: float = stats.ALPHA) -> None:
    """Holm-correct every finding that has a p-value and mark it significant or not."""
    tested = [f for _, f in findings if f.pvalue is not None and np.isfinite(f.pvalue)]
    if not tested:
        return
    adj = stats.adjust([f.pvalue for f in tested], "holm")
    for f, a in zip(tested, adj, strict=True):
        f.p_adjusted = float(a)
        f.significant = bool(a < alpha)


def build_report(run_dirs: list[Path]) -> Report:
    """Open the runs, run every analysis (one ``collect_all``) and build the sections."""
    runs = open_runs([Path(p) for p in run_dirs])
    game = runs[0].game
    if game not in GAME_MODULES:
        raise CardsimError(f"{runs[0].path}: unknown game {game!r} in the manifest")
    labels = run_labels(runs)
    warnings = [w for r in runs for w in r.warnings]
    modules = GAME_MODULES[game]
    keys: list[tuple[int, str]] = []
    lazy: list[pl.LazyFrame] = []
    for i, r in enumerate(runs):
        for mod in modules:
            try:
                qs = mod.queries(r)
            except pl.exceptions.ColumnNotFoundError as e:
                raise CardsimError(
                    f"{r.path}: the tables lack a column the report needs ({e})"
                ) from None
            for name, lf in qs.items():
                keys.append((i, f"{mod.KEY}.{name}"))
                lazy.append(lf)
    try:
        frames = pl.collect_all(lazy)
    except (pl.exceptions.ColumnNotFoundError, pl.exceptions.SchemaError) as e:
        first = str(e).splitlines()[0]
        raise CardsimError(
            f"the run tables do not have the columns the report expects ({first}); "
            "were they written by another cardsim version?"
        ) from None
    except (pl.exceptions.ComputeError, OSError) as e:
        first = str(e).splitlines()[0]
        raise CardsimError(f"cannot read the run tables ({first})") from None
    items = [RunData(lab, r, {}) for lab, r in zip(labels, runs, strict=True)]
    for (i, key), df in zip(keys, frames, strict=True):
        items[i].data[key] = df
    config = config_section(runs, labels, warnings)
    sections = [
        mod.section(items)
        for mod in modules
        if mod is not duplicate or any(r.is_comparison for r in runs)
    ]
    if len(items) > 1:
        sections.insert(0, comparison_section(items))
    findings = [(s.key, f) for s in [config, *sections] for f in s.findings]
    judge(findings)
    return Report(
        game=game,
        runs=runs,
        labels=labels,
        config=config,
        sections=sections,
        findings=findings,
        warnings=warnings,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def _check_out(path: Path, what: str) -> Path:
    path = Path(path)
    if path.is_dir():
        raise CardsimError(f"{what} {path}: is a directory; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CardsimError(f"{what} {path}: cannot create its folder ({e.strerror or e})") from None
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CardsimError(f"{what} {path}: cannot write there (permission denied)")
    return path


def write_report(
    run_dirs: list[Path], out: Path, fmt: str = "html", json_out: Path | None = None
) -> ReportResult:
    """Write the balance report of ``run_dirs`` (one game) to ``out``.

    Raises :class:`~sim.errors.CardsimError` for a missing, empty or foreign directory,
    directories of different games, or an unwritable output.

    Examples
    --------
    >>> r = write_report([Path("runs/yz")], Path("reports/yz.html"))  # doctest: +SKIP
    >>> r.findings[0]  # doctest: +SKIP
    'No seat or team advantage detectable at this sample size: ...'
    """
    import time

    from analysis import render

    t0 = time.perf_counter()
    if fmt not in FORMATS:
        raise CardsimError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    out = _check_out(Path(out), "--out")
    if json_out is not None:
        json_out = _check_out(Path(json_out), "--json")
    report = build_report(list(run_dirs))
    try:
        if fmt == "html":
            render.write_html(report, out)
        else:
            render.write_markdown(report, out)
        if json_out is not None:
            render.write_json(report, json_out)
    except OSError as e:
        raise CardsimError(f"cannot write the report: {e.strerror or e} ({e.filename})") from None
    return ReportResult(
        out=out,
        json_out=json_out,
        warnings=list(report.warnings),
        findings=[f.text for _, f in report.findings],
        seconds=time.perf_counter() - t0,
    )
