"""Report writers: one self-contained HTML file, Markdown + PNG files, JSON numbers."""

from __future__ import annotations

import base64
import math
import os
from pathlib import Path

from cardsim.analysis import verdicts
from cardsim.analysis.facts import facts
from cardsim.analysis.io import Run
from cardsim.analysis.model import CHECK, Finding, Section, Table, display_rows, plural
from cardsim.sim import jsonio


def game_title(game: str) -> str:
    """The game's title from its facts (``原子 (yuanzi)``, ``ATLAS``)."""
    return facts(game).title


CSS = """
:root { --ink:#1e272e; --muted:#6b7785; --line:#dfe4ea; --accent:#3867d6; --ok:#20bf6b;
        --warn:#fa8231; --bg:#f5f6fa; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC",
       "Noto Sans", sans-serif; color: var(--ink); background: var(--bg); }
header { background: linear-gradient(120deg, #2d3a8c, #3867d6); color: #fff; padding: 28px 40px; }
header h1 { margin: 0 0 4px; font-size: 26px; font-weight: 650; }
header p { margin: 0; opacity: .85; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 40px 60px; }
nav { margin: 0 0 18px; font-size: 13px; }
nav a { color: var(--accent); text-decoration: none; margin-right: 14px; white-space: nowrap; }
section, .card { background: #fff; border: 1px solid var(--line); border-radius: 10px;
          padding: 18px 24px; margin: 0 0 22px; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
h2 { font-size: 19px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 18px 0 6px; color: #34495e; }
p.intro { color: var(--muted); margin: 0 0 10px; }
.warning { background: #fff4e6; border: 1px solid #ffc078; border-left: 6px solid var(--warn);
           border-radius: 8px; padding: 12px 18px; margin: 0 0 20px; }
.warning strong { color: #d9480f; }
ul.findings { list-style: none; padding: 0; margin: 0; }
ul.findings li { padding: 7px 0 7px 0; border-bottom: 1px solid var(--line); display: flex; gap: 10px; }
ul.findings li:last-child { border-bottom: 0; }
.badge { flex: 0 0 auto; font-size: 11px; font-weight: 650; border-radius: 999px; padding: 2px 9px;
         height: 20px; margin-top: 1px; text-transform: uppercase; letter-spacing: .03em; }
.badge.clear { background: #e6f7ee; color: #0b7a43; }
.badge.equivalent { background: #fff4d6; color: #8a5a00; }
.badge.notenough, .badge.unclear { background: #eef1f5; color: #57606a; }
.badge.pass { background: #e6f7ee; color: #0b7a43; }
.badge.fail { background: #ffe3e3; color: #c92a2a; }
.badge.fact { background: #e8efff; color: #2d4fb3; }
.tablewrap { overflow-x: auto; margin: 4px 0 10px; }
table { border-collapse: collapse; font-size: 12.5px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right; }
th { white-space: normal; vertical-align: bottom; min-width: 3em; }
td { white-space: normal; overflow-wrap: anywhere; }
td.num { white-space: nowrap; }
details.section { background: #fff; border: 1px solid var(--line); border-radius: 10px;
          padding: 12px 24px; margin: 0 0 14px; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
details.section > summary { cursor: pointer; list-style: none; display: flex;
          align-items: baseline; gap: 8px; }
details.section > summary::-webkit-details-marker { display: none; }
details.section > summary h2 { margin: 0; font-size: 17px; }
details.section > summary::before { content: "▸"; color: var(--muted); }
details.section[open] > summary::before { content: "▾"; }
section.answers { border-left: 6px solid var(--accent); }
th { background: #f1f3f7; font-weight: 600; color: #34495e; position: sticky; top: 0; }
td:first-child, th:first-child { text-align: left; }
tr.nondefault td { background: #fff3bf; font-weight: 600; }
tr:hover td { background: #f8f9fc; }
.note { color: var(--muted); font-size: 12px; margin: 2px 0 8px; }
.figs { display: flex; flex-wrap: wrap; gap: 14px; margin-top: 8px; }
figure { margin: 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12px; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 10px; }
"""


_BADGE_CLASS = {
    "clear difference": "clear",
    "equivalent": "equivalent",
    "not enough games": "notenough",
    "pass": "pass",
    "fail": "fail",
    "fact": "fact",
}


def _badge(f: Finding) -> tuple[str, str]:
    lab = verdicts.label(f)
    return _BADGE_CLASS.get(lab, "fact"), lab


def _fmt_p(p: float) -> str:
    """``= 0.023`` / ``< 0.001`` (never "p = 0")."""
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"


def _p_text(f: Finding) -> str:
    if f.kind == CHECK and f.pvalue is not None and f.verdict is not None:
        return f" (p {_fmt_p(f.pvalue)}, outside the family)"
    if f.pvalue is None or f.p_adjusted is None:
        return ""
    if f.verdict == verdicts.stats.EQUIVALENT:  # one p-value: the text's TOST p (issue 45 item 10)
        return ""
    return f" (Holm-adjusted p {_fmt_p(f.p_adjusted)})"


# --- HTML (Jinja2 templates in analysis/templates, autoescaped) ---------------------------------

_ENV = None


def _env():
    """The Jinja2 environment of the report templates (autoescaping on)."""
    global _ENV
    if _ENV is None:
        import jinja2

        _ENV = jinja2.Environment(
            loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        _ENV.filters["inline_md"] = inline_md
    return _ENV


def inline_md(text: str):
    """The inline Markdown of report prose as HTML: ``**bold**`` and ```code``` become
    ``<strong>`` and ``<code>``, everything else escaped (the Markdown report keeps the marks).

    Examples
    --------
    >>> str(inline_md("the **excess** of `a<b`"))
    'the <strong>excess</strong> of <code>a&lt;b</code>'
    """
    import re

    from markupsafe import Markup, escape

    html = str(escape(text))
    html = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html)
    html = re.sub(r"`([^`]+)`", r"<code>\1</code>", html)
    return Markup(html)


def _unit_note(t: Table) -> str:
    unit = f"Unit: one {t.unit}." if t.unit else ""
    return " ".join(x for x in (unit, t.note) if x)


def _is_num(text: str) -> bool:
    return bool(text) and (text[0].isdigit() or text[0] in "-+<–∞") and len(text) < 40


def _table_ctx(t: Table, highlight: str | None, idp: str) -> dict:
    df = t.display if t.display is not None else t.df
    if highlight and highlight in df.columns:
        flags = df[highlight].to_list()
        df = df.drop(highlight)
    else:
        flags = [False] * df.height
    head, rows = display_rows(Table(t.key, t.title, df, t.percent, t.note))
    return {
        "id": f"{idp}t-{t.key}",
        "title": t.title,
        "header": head,
        "rows": [
            {"flag": bool(flag), "cells": [{"text": c, "num": _is_num(c)} for c in row]}
            for flag, row in zip(flags, rows, strict=True)
        ],
        "note": _unit_note(t),
    }


def _section_ctx(s: Section, highlight: str | None = None, idp: str = "") -> dict:
    return {
        "id": idp + s.key,
        "title": s.title,
        "intro": s.intro,
        "tables": [_table_ctx(t, highlight, idp) for t in s.tables],
        "notes": s.notes,
        "figures": [
            {"title": f.title, "data": base64.b64encode(f.png).decode()} for f in s.figures
        ],
    }


CLEAR_NOTE = (
    "Each question gets one of three verdicts: clear difference (Holm-adjusted p < 5 % over "
    "the questions {scope}, each counted once); equivalent (the difference lies within the "
    "stated margin: two one-sided tests at 5 %); not enough games (neither, with the games "
    "needed to show equivalence at 80 % power if the true difference were 0, and to detect the "
    "observed difference at 80 % power when it is not well inside the margin). Margins: "
    "{margins}. Checks of the simulator against exact probabilities pass or fail on their "
    "own, outside that family. pp = "
    "percentage points."
)


def margins_text(margins: dict[str, float] | None = None) -> str:
    m = {**verdicts.DEFAULT_MARGINS, **(margins or {})}
    return "; ".join(f"{k} ±{100 * v:g} pp" if k != "mean" else f"{k} ±{v:g}" for k, v in m.items())


def _finding_ctx(f: Finding) -> dict:
    cls, lab = _badge(f)
    return {"cls": cls, "label": lab, "text": f.text, "p": _p_text(f)}


def answers(findings) -> list[Finding]:
    """The findings marked as answers, in report order; without any, the questions."""
    marked = [f for _, f in findings if f.answer]
    return marked or [f for _, f in findings if f.kind != CHECK]


def _report_ctx(report, idp: str = "", scope: str = "of this report") -> dict:
    checks = [f for _, f in report.findings if f.kind == CHECK]
    failed = sum(1 for f in checks if f.verdict == verdicts.FAIL)
    return {
        "idp": idp,
        "warnings": report.warnings,
        "answers": [_finding_ctx(f) for f in answers(report.findings)],
        "questions": [_finding_ctx(f) for _, f in report.findings if f.kind != CHECK],
        "checks": [_finding_ctx(f) for f in checks],
        "checks_summary": (
            f"{failed} of {len(checks)} failed" if failed else f"all {len(checks)} pass"
        ),
        "verdict_note": CLEAR_NOTE.format(scope=scope, margins=margins_text(report.margins)),
        "config": _section_ctx(report.config, "non_default", idp),
        "sections": [_section_ctx(sec, None, idp) for sec in report.sections],
    }


def _nav(report, idp: str = "") -> list[tuple[str, str]]:
    head = [(f"{idp}answers", "Answers"), (f"{idp}findings", "All findings")]
    if any(f.kind == CHECK for _, f in report.findings):
        head.append((f"{idp}checks", "Checks"))
    head.append((f"{idp}config", "Configuration"))
    return head + [(idp + sec.key, sec.title) for sec in report.sections]


def played_text(r: Run, planned: bool = False) -> str:
    """What a run played, in its units (issue 45 item 10: a comparison's "4,000 games" were
    4,000 deals of 4 seat assignments, 16,000 rounds): ``4,000 games``, ``4,000 games (12,000
    rounds)`` when a game has several rows, ``4,000 deals × 4 seat assignments = 16,000
    rounds`` for a comparison; ``planned``: ``… of 5,000 …``."""
    unit = facts(r.game).row_unit
    rows = sum(int((c.get("rows") or {}).get("games", 0)) for c in r.chunks)
    of = f" of {r.games_planned:,}" if planned else ""
    if r.is_comparison:
        a = len(r.assignments)
        games = r.games_done * a
        text = f"{r.games_done:,}{of} deals × {a} seat assignments = {games:,} games"
    else:
        games = r.games_done
        text = f"{games:,}{of} games"
    if rows and rows != games:  # a game of several rounds
        text += f", {rows:,} {plural(unit)}" if r.is_comparison else f" ({rows:,} {plural(unit)})"
    elif unit != "game" and r.is_comparison:
        text = text.removesuffix(" games") + f" {plural(unit)}"
    return text


def html_text(report) -> str:
    """The report as one self-contained HTML page (template ``report.html.j2``)."""
    title = f"cardsim balance report — {game_title(report.game)}"
    runs = report.runs
    played = (
        f"{sum(r.games_done for r in runs):,} games"
        if len(runs) > 1 and not any(r.is_comparison for r in runs)
        else "; ".join(played_text(r) for r in runs)
    )
    sub = (
        f"{len(report.runs)} run{'s' if len(report.runs) > 1 else ''} · {played} "
        f"· generated {report.generated} by cardsim {report.version}"
    )
    return (
        _env()
        .get_template("report.html.j2")
        .render(
            title=title,
            subtitle=sub,
            css=CSS,
            nav=_nav(report),
            report=_report_ctx(report),
            json_name="cardsim report … --json",
        )
    )


MULTI_CSS = """
nav.toc { background:#fff; border:1px solid var(--line); border-radius:10px; padding:14px 24px;
          margin:0 0 22px; font-size:13px; }
nav.toc ol { margin:4px 0 0; padding-left:20px; }
nav.toc li { margin:3px 0; }
nav.toc li a { margin-right:0; font-weight:600; }
nav.toc .sub a { font-weight:400; margin-right:10px; color:var(--muted); }
.part { margin: 34px 0 0; }
.parthead { border-left: 6px solid var(--accent); padding: 4px 0 4px 16px; margin: 0 0 14px; }
.parthead h2 { font-size: 22px; margin: 0; }
.parthead p { margin: 2px 0 0; color: var(--muted); }
.kind { font-size: 11px; font-weight: 650; text-transform: uppercase; letter-spacing: .04em;
        color: var(--accent); }
h3.group { margin: 14px 0 4px; font-size: 13px; }
h3.group a { color: var(--ink); text-decoration: none; }
.more { color: var(--muted); font-size: 12px; margin: 2px 0 6px; }
"""


def html_multi(page) -> str:
    """One page holding several reports (:class:`cardsim.analysis.model.Page`, template
    ``study.html.j2``): the answers of every part, a table of contents, then each part."""
    parts = []
    for part in page.parts:
        idp = f"{part.key}-"
        parts.append(
            {
                "key": part.key,
                "title": part.title,
                "kind": part.kind,
                "intro": part.intro,
                "headline": [_finding_ctx(f) for _, f in part.headline],
                "more": max(len(part.report.findings) - len(part.headline), 0),
                "nav": _nav(part.report, idp),
                "report": _report_ctx(part.report, idp, scope="of this part"),
            }
        )
    note = CLEAR_NOTE.format(scope="of each part", margins=margins_text(page.margins))
    return (
        _env()
        .get_template("study.html.j2")
        .render(
            title=page.title,
            subtitle=page.subtitle,
            css=CSS + MULTI_CSS,
            warnings=page.warnings,
            verdict_note=note,
            parts=parts,
            json_name=page.json_name,
        )
    )


def _atomic_write(path: Path, data: bytes) -> None:
    from cardsim.sim.rundir import unique_suffix

    tmp = path.with_name(f".{path.name}.tmp-{unique_suffix()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_html(report, out: Path) -> None:
    _atomic_write(out, html_text(report).encode())


# --- Markdown ------------------------------------------------------------------------------


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|")


def _md_table(t: Table, highlight: str | None = None) -> list[str]:
    df = t.display if t.display is not None else t.df
    flags = df[highlight].to_list() if highlight and highlight in df.columns else None
    if flags is not None:
        df = df.drop(highlight)
    header, rows = display_rows(Table(t.key, t.title, df, t.percent, t.note))
    lines = [f"### {t.title}", "", "| " + " | ".join(map(_md_cell, header)) + " |"]
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    for i, row in enumerate(rows):
        cells = [_md_cell(c) for c in row]
        if flags and flags[i]:
            cells = [f"**{c}**" for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    if _unit_note(t):
        lines += ["", f"*{_unit_note(t)}*"]
    return [*lines, ""]


def write_markdown(report, out: Path) -> None:
    """``out`` (.md) plus its figures as PNG files in ``<stem>_files/`` beside it."""
    figdir = out.with_name(f"{out.stem}_files")
    figdir.mkdir(exist_ok=True)
    title = f"cardsim balance report — {game_title(report.game)}"
    lines = [f"# {title}", "", f"Generated {report.generated} by cardsim {report.version}.", ""]
    for w in report.warnings:
        lines += [f"> **Warning:** {w}", ""]
    lines += [
        "## Findings",
        "",
        CLEAR_NOTE.format(scope="below", margins=margins_text(report.margins)),
        "",
    ]
    for _, f in report.findings:
        if f.kind != CHECK:
            _, label = _badge(f)
            lines.append(f"- **[{label}]** {f.text}{_p_text(f)}")
    lines.append("")
    checks = [f for _, f in report.findings if f.kind == CHECK]
    if checks:
        lines += ["## Checks", ""]
        for f in checks:
            lines.append(f"- **[{verdicts.label(f)}]** {f.text}{_p_text(f)}")
        lines.append("")
    for s in [report.config, *report.sections]:
        lines += [f"## {s.title}", ""]
        if s.intro:
            lines += [s.intro, ""]
        for t in s.tables:
            lines += _md_table(t, "non_default" if s is report.config else None)
        for n in s.notes:
            lines += [f"*{n}*", ""]
        for fig in s.figures:
            name = f"{s.key}-{fig.key}.png"
            _atomic_write(figdir / name, fig.png)
            lines += [f"![{fig.title}]({figdir.name}/{name})", ""]
    _atomic_write(out, "\n".join(lines).encode())


# --- JSON ----------------------------------------------------------------------------------


def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    return v


def _json_table(t: Table) -> dict:
    return {
        "title": t.title,
        "unit": t.unit,
        "columns": t.df.columns,
        "rows": t.df.to_dicts(),
        "note": t.note,
    }


def finding_doc(key: str, f: Finding) -> dict:
    """One finding for the JSON output (layout in docs/report.md)."""
    return {
        "section": key,
        "text": f.text,
        "kind": f.kind,
        "verdict": verdicts.label(f),
        "unit": f.unit,
        "p": f.pvalue,
        "p_holm": f.p_adjusted,
        "clear": f.significant if f.kind != CHECK else None,
        "estimate": f.estimate,
        "se": f.se,
        "n": f.n,
        "margin": f.margin,
        "p_tost": f.p_tost,
        "games_needed": f.needed,
        "games_to_detect": f.needed_detect,
    }


def json_doc(report) -> dict:
    runs = []
    for lab, r in zip(report.labels, report.runs, strict=True):
        runs.append(
            {
                "label": lab,
                "path": str(r.path),
                "complete": r.complete,
                "games_done": r.games_done,
                "games_planned": r.games_planned,
                "chunks_done": r.chunks_done,
                "chunks_total": r.chunks_total,
                "config": {
                    k: r.manifest.get(k)
                    for k in (
                        "game",
                        "players",
                        "seats",
                        "rules",
                        "seed",
                        "games",
                        "cardsim_version",
                        "created",
                    )
                },
            }
        )
    findings = [finding_doc(key, f) for key, f in report.findings]
    sections = {
        s.key: {
            "title": s.title,
            "notes": s.notes,
            "tables": {t.key: _json_table(t) for t in s.tables},
        }
        for s in [report.config, *report.sections]
    }
    return _clean(
        {
            "format": "cardsim-report",
            "format_version": 2,
            "margins": {**verdicts.DEFAULT_MARGINS, **(report.margins or {})},
            "cardsim_version": report.version,
            "generated": report.generated,
            "game": report.game,
            "runs": runs,
            "warnings": report.warnings,
            "findings": findings,
            "sections": sections,
        }
    )


def write_json(report, out: Path) -> None:
    _atomic_write(out, jsonio.dump_bytes(json_doc(report), indent=1))
