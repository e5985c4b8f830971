"""One report for a whole balance study (``cardsim study``): one self-contained HTML page.

:func:`write_study_report` builds one :class:`~cardsim.analysis.report.Report` per part of the study:

- every ``[[comparison]]`` (two or more run scenarios of one game): the side-by-side report of
  those runs, whose "Comparison of the runs" section (difference from the first) comes first;
- every comparison scenario (``compare = [...]``): its configuration and its "Strategy
  comparison on duplicate deals" section (:mod:`cardsim.analysis.duplicate`);
- every run scenario in no comparison: its own report.

At the top, the title and the headline findings of every part (with the part they come from);
then a table of contents and each part with its configuration (rule options, non-default values
highlighted; strategies; games; seed; whether it stopped early), its findings and its sections.
Each part is one multiple-testing family: its questions, each counted once (docs/report.md).
The same numbers go to ``out`` with the suffix ``.json`` (layout in ``docs/report.md``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from cardsim.analysis import render, verdicts
from cardsim.analysis.model import Finding, Page, Part
from cardsim.analysis.render import game_title
from cardsim.analysis.report import Report, _check_out, build_report, judge
from cardsim.sim import __version__, jsonio
from cardsim.sim.errors import CardsimError

#: Sections whose findings are a part's headline (besides facts about stopping early).
HEADLINE = {
    "comparison of runs": ("comparison", "objective"),
    "strategy comparison": ("duplicate",),
    "skill ladder": ("ladder",),
}
#: Sections kept in the part of a comparison scenario.
COMPARE_SECTIONS = ("duplicate", "strategy")


def _headline(kind: str, report: Report) -> list[tuple[str, Finding]]:
    keys = HEADLINE.get(kind)

    def wanted(key: str, f: Finding) -> bool:
        if key == "config":  # "the run stopped early …"
            return True
        if keys is not None:
            return key in keys
        return key == "seats" or bool(f.significant)

    out = [(key, f) for key, f in report.findings if wanted(key, f)]
    return out


def _describe(scenarios) -> str:
    bits = []
    for s in scenarios:
        what = (
            f"compare {', '.join(s.compare)}"
            if s.is_compare
            else (s.strategy or "default strategy")
        )
        bits.append(
            f"{s.name} ({s.game}, {s.games:,} {'deals' if s.is_compare else 'games'}, "
            f"{what}{', until_ci ±' + format(s.until_ci, 'g') if s.until_ci else ''})"
        )
    return ("Scenarios: " if len(scenarios) > 1 else "Scenario: ") + "; ".join(bits)


def _with_objective(report: Report, objective: str, a: Path, b: Path, names: list[str]):
    """The comparison's report with the tuned objective re-tested (verify.toml of cardsim
    tune): a section and an answer, judged with the part's other questions."""
    import polars as pl
    from cardsim.analysis.model import Section, Table
    from cardsim.analysis.objective import objective_comparison

    v = objective_comparison(objective, a, b)
    text = (
        f"Tuned objective {v['objective']} (lower is better): {names[0]} "
        f"{v['a']['estimate']:.4f} [{v['a']['lo']:.4f}, {v['a']['hi']:.4f}] vs {names[1]} "
        f"{v['b']['estimate']:.4f} [{v['b']['lo']:.4f}, {v['b']['hi']:.4f}]; difference "
        f"{v['diff']:+.4f} [{v['lo']:+.4f}, {v['hi']:+.4f}], {v['label']}."
    )
    f = Finding(
        text, text, v["p_two"], estimate=v["diff"], se=v["se"], n=v["deals"],
        margin=v["margin"], measure="mean", unit="deal", table="objective", row=0, answer=True,
    )  # fmt: skip
    sec = Section(
        "objective",
        "Tuned objective",
        f"The objective cardsim tune optimised, {v['objective']}, on these two runs: "
        f"{names[0]} − {names[1]}, {v['label']} (cardsim.analysis.objective.objective_comparison).",
    )
    sec.tables.append(
        Table(
            "objective", "Objective (first − second)",
            pl.DataFrame([{
                "run": names[0], "objective": v["a"]["estimate"], "baseline": names[1],
                "objective_baseline": v["b"]["estimate"], "diff": v["diff"],
                "diff_lo": v["lo"], "diff_hi": v["hi"], "deals": v["deals"],
                "interval": v["label"], "p": v["p_two"],
            }]),
        )
    )  # fmt: skip
    findings = [*report.findings, ("objective", f)]
    judge(findings, report.margins)  # one family: the part's questions and this one
    sections = [*report.sections, sec]
    verdicts.fill_tables(sections)
    return replace(report, sections=sections, findings=findings)


def build_parts(
    study, runs: dict[str, Path], margins: dict[str, float] | None = None
) -> tuple[list[Part], list[str]]:
    """The parts of the study's page, in study order, and warnings (scenarios without a run).
    ``margins``: equivalence margins (default: the study file's ``margins``, else the
    defaults of :mod:`cardsim.analysis.verdicts`)."""
    if margins is None:
        margins = dict(getattr(study, "margins", None) or {})
    warnings: list[str] = []
    parts: list[Part] = []

    def have(names: list[str]) -> list[str]:
        ok = [n for n in names if n in runs]
        for n in names:
            if n not in runs:
                warnings.append(f"scenario {n!r} has no run directory; it is left out")
        return ok

    _comparison_parts(study, runs, margins, have, parts)
    _compare_parts(study, runs, margins, have, parts)
    _scenario_parts(study, runs, margins, have, parts)
    _ladder_parts(study, runs, margins, have, parts)
    # each part is one multiple-testing family (judged when its report was built)
    for p in parts:
        p.headline = _headline(p.kind, p.report)
    return parts, warnings


def _comparison_parts(
    study, runs: dict[str, Path], margins: dict[str, float], have, parts: list[Part]
) -> None:
    """[[compare]]: one part per comparison of runs with at least two runs."""
    by_name = {s.name: s for s in study.scenarios}
    for c in study.comparisons:
        names = have(list(c.scenarios))
        if len(names) < 2:
            continue
        report = build_report([runs[n] for n in names], margins)
        if getattr(c, "objective", None) and len(names) == 2:
            report = _with_objective(report, c.objective, runs[names[0]], runs[names[1]], names)
        kind = "comparison of runs"
        parts.append(
            Part(
                f"part{len(parts) + 1}",
                str(c.name),
                kind,
                report,
                [],
                _describe([by_name[n] for n in names]),
                names,
            )
        )


def _compare_parts(
    study, runs: dict[str, Path], margins: dict[str, float], have, parts: list[Part]
) -> None:
    """Scenarios that compare strategies: their comparison sections only."""
    for s in study.scenarios:
        if not s.is_compare or not have([s.name]):
            continue
        report = build_report([runs[s.name]], margins, only=COMPARE_SECTIONS)
        keep = [sec for sec in report.sections if sec.key in COMPARE_SECTIONS]
        kept = [(k, f) for k, f in report.findings if k in ("config", *COMPARE_SECTIONS)]
        report = replace(report, sections=keep, findings=kept)
        judge(kept, margins)  # the family: this part's questions only
        verdicts.fill_tables(keep)
        title = f"{s.name}: {' vs '.join(s.compare)} — {game_title(s.game)}"
        parts.append(
            Part(
                f"part{len(parts) + 1}",
                title,
                "strategy comparison",
                report,
                [],
                _describe([s]) + f". Full report of this run: cardsim report {runs[s.name]}",
                [s.name],
            )
        )


def _scenario_parts(
    study, runs: dict[str, Path], margins: dict[str, float], have, parts: list[Part]
) -> None:
    """Every other scenario not in a comparison of runs: its full report."""
    in_comparison = {n for c in study.comparisons for n in c.scenarios}
    for s in study.scenarios:
        if s.is_compare or s.name in in_comparison or not have([s.name]):
            continue
        report = build_report([runs[s.name]], margins)
        parts.append(
            Part(
                f"part{len(parts) + 1}",
                f"{s.name} — {game_title(s.game)}",
                "scenario",
                report,
                [],
                _describe([s]),
                [s.name],
            )
        )


def _ladder_parts(
    study, runs: dict[str, Path], margins: dict[str, float], have, parts: list[Part]
) -> None:
    """[[ladder]] (docs/ladder.md): one skill-ladder part each."""
    for lad in getattr(study, "ladders", None) or ():
        from cardsim.analysis.ladder import LadderData, build_ladder_report

        names = [r for r, _ in lad.groups.values()]
        names += [n for _, sp in lad.groups.values() for n in sp.values()]
        if len(have(names)) < len(names):
            continue
        data = LadderData(
            lad.game,
            lad.levels,
            {g: runs[r] for g, (r, _) in lad.groups.items()},
            {g: {lv: runs[n] for lv, n in sp.items()} for g, (_, sp) in lad.groups.items()},
        )
        parts.append(
            Part(
                f"part{len(parts) + 1}",
                f"{lad.name}: skill ladder — {game_title(lad.game)}",
                "skill ladder",
                build_ladder_report(data, margins),
                [],
                f"Levels {', '.join(lad.levels)}: {lad.games:,} self-play games per level, "
                f"{lad.deals:,} duplicate deals rating them (docs/ladder.md).",
                names,
            )
        )


def json_doc(study, page: Page, generated: str) -> dict:
    findings = [
        {
            "part": p.title,
            "part_key": p.key,
            **render.finding_doc(key, f),
            "headline": any(f is h for _, h in p.headline),
        }
        for p in page.parts
        for key, f in p.report.findings
    ]
    return render._clean(
        {
            "format": "cardsim-study",
            "format_version": 2,
            "cardsim_version": __version__,
            "generated": generated,
            "study": study.name,
            "source": study.source,
            "warnings": page.warnings,
            "findings": findings,
            "parts": [
                {
                    "key": p.key,
                    "title": p.title,
                    "kind": p.kind,
                    "scenarios": p.scenarios,
                    "report": render.json_doc(p.report),
                }
                for p in page.parts
            ],
        }
    )


def source_text(source: str) -> str:
    """Where a study came from, for a header: its file, or words for a built-in one
    (``<default study>`` -> ``the built-in default study``, never the placeholder itself)."""
    if source.startswith("<") and source.endswith(">"):
        return f"the built-in {source[1:-1]}"
    return source


def write_study_report(study, runs: dict[str, Path], out: Path) -> Path:
    """Write the study's report to ``out`` (HTML) and its numbers to ``out.with_suffix('.json')``.

    ``study`` is a :class:`cardsim.workflows.study.Study`; ``runs`` maps scenario names to run directories.
    Returns ``out``.
    """
    out = _check_out(Path(out), "study report")
    parts, warnings = build_parts(study, {k: Path(v) for k, v in runs.items()})
    if not parts:
        raise CardsimError(f"study {study.name!r}: no scenario has a run to report")
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    n_games = sum(r.games_done for p in parts for r in p.report.runs)
    page = Page(
        title=f"cardsim study — {study.name}",
        subtitle=(
            f"{source_text(study.source)} · {len(study.scenarios)} scenarios, {len(parts)} parts · "
            f"{n_games:,} games reported · cardsim {__version__} · generated {generated}"
        ),
        parts=parts,
        warnings=warnings,
        scope="of each part",
        margins=dict(getattr(study, "margins", None) or {}),
        json_name=out.with_suffix(".json").name,
    )
    try:
        render._atomic_write(out, render.html_multi(page).encode())
        text = jsonio.dump_bytes(json_doc(study, page, generated), indent=1)
        render._atomic_write(out.with_suffix(".json"), text)
    except OSError as e:
        raise CardsimError(f"cannot write the study report: {e.strerror or e}") from None
    return out
