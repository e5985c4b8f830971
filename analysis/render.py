"""Report writers: one self-contained HTML file, Markdown + PNG files, JSON numbers."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from pathlib import Path

from analysis import verdicts
from analysis.facts import facts
from analysis.model import CHECK, Figure, Finding, Section, Table, display_rows


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
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
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
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _p_text(f: Finding) -> str:
    if f.kind == CHECK and f.pvalue is not None and f.verdict is not None:
        return f" (p = {_fmt_p(f.pvalue)}, outside the family)"
    if f.pvalue is None or f.p_adjusted is None:
        return ""
    return f" (Holm-adjusted p = {_fmt_p(f.p_adjusted)})"


# --- HTML ----------------------------------------------------------------------------------


def _html_table(t: Table, highlight: str | None = None, idp: str = "") -> str:
    df = t.df
    if highlight and highlight in df.columns:
        flags = df[highlight].to_list()
        df = df.drop(highlight)
    else:
        flags = [False] * df.height
    header, rows = display_rows(Table(t.key, t.title, df, t.percent, t.note))
    out = [f'<h3 id="{html.escape(idp)}t-{html.escape(t.key)}">{html.escape(t.title)}</h3>']
    out.append('<div class="tablewrap"><table><thead><tr>')
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for flag, row in zip(flags, rows, strict=True):
        cls = ' class="nondefault"' if flag else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    note = _unit_note(t)
    if note:
        out.append(f'<p class="note">{html.escape(note)}</p>')
    return "".join(out)


def _unit_note(t: Table) -> str:
    unit = f"Unit: one {t.unit}." if t.unit else ""
    return " ".join(x for x in (unit, t.note) if x)


def _html_figure(f: Figure) -> str:
    data = base64.b64encode(f.png).decode()
    return (
        f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{html.escape(f.title)}</figcaption></figure>"
    )


def _html_section(s: Section, highlight: str | None = None, idp: str = "") -> str:
    out = [f'<section id="{html.escape(idp + s.key)}"><h2>{html.escape(s.title)}</h2>']
    if s.intro:
        out.append(f'<p class="intro">{html.escape(s.intro)}</p>')
    for t in s.tables:
        out.append(_html_table(t, highlight, idp))
    for n in s.notes:
        out.append(f'<p class="note">{html.escape(n)}</p>')
    if s.figures:
        out.append('<div class="figs">' + "".join(_html_figure(f) for f in s.figures) + "</div>")
    out.append("</section>")
    return "".join(out)


HEAD = (
    "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
    "<meta name='viewport' content='width=device-width, initial-scale=1'>"
    "<title>{title}</title><style>{css}</style></head><body>"
    "<header><h1>{title}</h1><p>{sub}</p></header><main>"
)
FOOT = (
    "</main><footer>cardsim · numbers with 95 % intervals · "
    "machine-readable numbers: {json}</footer></body></html>"
)
CLEAR_NOTE = (
    "Each question gets one of three verdicts: clear difference (Holm-adjusted p < 5 % over "
    "the questions {scope}, each counted once); equivalent (the difference lies within the "
    "stated margin: two one-sided tests at 5 %); not enough games (neither, with the games "
    "needed to show equivalence at 80 % power). Margins: {margins}. Checks of the simulator "
    "against exact probabilities pass or fail on their own, outside that family."
)


def margins_text(margins: dict[str, float] | None = None) -> str:
    m = {**verdicts.DEFAULT_MARGINS, **(margins or {})}
    return "; ".join(
        f"{k} ±{100 * v:g} points" if k != "mean" else f"{k} ±{v:g}" for k, v in m.items()
    )


def _finding_li(f: Finding, where: str = "") -> str:
    cls, label = _badge(f)
    return (
        f'<li><span class="badge {cls}">{label}</span><span>{where}{html.escape(f.text)}'
        f'<span class="note">{html.escape(_p_text(f))}</span></span></li>'
    )


def _html_findings(
    findings, idp: str = "", title: str = "Findings", scope: str = "below", margins=None
) -> str:
    qs = [f for _, f in findings if f.kind != CHECK]
    checks = [f for _, f in findings if f.kind == CHECK]
    note = CLEAR_NOTE.format(scope=scope, margins=margins_text(margins))
    parts = [f'<section id="{idp}findings"><h2>{html.escape(title)}</h2>']
    parts.append(f'<p class="intro">{html.escape(note)}</p><ul class="findings">')
    parts += [_finding_li(f) for f in qs]
    parts.append("</ul></section>")
    if checks:
        parts.append(f'<section id="{idp}checks"><h2>Checks</h2>')
        parts.append(
            '<p class="intro">The simulator against exact probabilities (each at 5 %, not part '
            "of the questions' multiple-comparison family): a failed check means look at the "
            'deal or the rules, not an answer about the game.</p><ul class="findings">'
        )
        parts += [_finding_li(f) for f in checks]
        parts.append("</ul></section>")
    return "".join(parts)


def _html_body(
    report, idp: str = "", scope: str = "below", config_first: bool = False
) -> list[str]:
    """Warnings, findings, configuration and sections of one report (ids prefixed ``idp``)."""
    parts = [
        f'<div class="warning"><strong>Warning:</strong> {html.escape(w)}</div>'
        for w in report.warnings
    ]
    blocks = [
        _html_findings(report.findings, idp, scope=scope, margins=report.margins),
        _html_section(report.config, highlight="non_default", idp=idp),
    ]
    parts += blocks[::-1] if config_first else blocks
    parts += [_html_section(s, idp=idp) for s in report.sections]
    return parts


def _nav(report, idp: str = "", config_first: bool = False) -> list[tuple[str, str]]:
    head = [(f"{idp}findings", "Findings"), (f"{idp}config", "Configuration")]
    return (head[::-1] if config_first else head) + [
        (idp + s.key, s.title) for s in report.sections
    ]


def html_text(report) -> str:
    title = f"cardsim balance report — {game_title(report.game)}"
    games = sum(r.games_done for r in report.runs)
    sub = (
        f"{len(report.runs)} run{'s' if len(report.runs) > 1 else ''} · {games:,} "
        f"games · generated {report.generated} "
        f"by cardsim {report.version}"
    )
    parts = [HEAD.format(title=html.escape(title), css=CSS, sub=html.escape(sub))]
    parts.append(
        "<nav>"
        + "".join(f'<a href="#{k}">{html.escape(v)}</a>' for k, v in _nav(report))
        + "</nav>"
    )
    parts += _html_body(report)
    parts.append(FOOT.format(json="cardsim report … --json"))
    return "".join(parts)


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
    """One page holding several reports (:class:`analysis.model.Page`): a title, the headline
    findings of every part (with the part they come from), a table of contents, then each
    part's configuration, findings and sections."""
    parts = [
        HEAD.format(
            title=html.escape(page.title), css=CSS + MULTI_CSS, sub=html.escape(page.subtitle)
        )
    ]
    for w in page.warnings:
        parts.append(f'<div class="warning"><strong>Warning:</strong> {html.escape(w)}</div>')
    parts.append('<section id="findings"><h2>Findings</h2>')
    parts.append(
        f'<p class="intro">{html.escape(CLEAR_NOTE.format(scope=page.scope, margins=margins_text(page.margins)))} The headline '
        "findings of each part; every part has its full list below.</p>"
    )
    for part in page.parts:
        idp = f"{part.key}-"
        parts.append(
            f'<h3 class="group"><a href="#{part.key}">{html.escape(part.title)}</a></h3>'
            '<ul class="findings">'
        )
        parts += [_finding_li(f) for _, f in part.headline]
        parts.append("</ul>")
        more = len(part.report.findings) - len(part.headline)
        if more > 0:
            parts.append(
                f'<p class="more"><a href="#{idp}findings">{more} more finding'
                f"{'s' if more > 1 else ''} of this part</a></p>"
            )
    parts.append("</section>")
    toc = ['<nav class="toc" id="contents"><strong>Contents</strong><ol>']
    for part in page.parts:
        idp = f"{part.key}-"
        subs = "".join(
            f'<a href="#{k}">{html.escape(v)}</a>' for k, v in _nav(part.report, idp, True)
        )
        toc.append(
            f'<li><a href="#{part.key}">{html.escape(part.title)}</a> '
            f'<span class="kind">{html.escape(part.kind)}</span>'
            f'<div class="sub">{subs}</div></li>'
        )
    toc.append("</ol></nav>")
    parts.append("".join(toc))
    for part in page.parts:
        idp = f"{part.key}-"
        parts.append(
            f'<div class="part" id="{part.key}"><div class="parthead">'
            f'<span class="kind">{html.escape(part.kind)}</span>'
            f"<h2>{html.escape(part.title)}</h2>"
        )
        if part.intro:
            parts.append(f"<p>{html.escape(part.intro)}</p>")
        parts.append("</div>")
        parts += _html_body(part.report, idp, scope=page.scope, config_first=True)
        parts.append("</div>")
    parts.append(FOOT.format(json=html.escape(page.json_name)))
    return "".join(parts)


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
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
    df = t.df
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
    text = json.dumps(json_doc(report), indent=1, ensure_ascii=False, default=str)
    _atomic_write(out, text.encode())
