"""The screen of every open reading (``cardsim screen``, issue 47 item 3): each variant of each
rule option whose role is ``reading`` against the default rules, every headline measure of the
game, on the same deals; three verdicts with Holm over the whole screen; a page and its JSON.

Every comparison is the report's paired comparison of two runs on shared deals
(:func:`cardsim.analysis.report.paired_moments` / :func:`~cardsim.analysis.report.paired_rate_from`:
the mean of the per-row differences, standard error clustered by deal), read off the measure's
per-row value (``facts.headline``: a 0/1 outcome or a number). Verdicts are
:func:`cardsim.analysis.verdicts.judge`'s: Holm over every (reading, measure) question of the
screen, then TOST within the measure's margin. The table "readings that change an answer" lists
the clear differences ordered by size, the size being the difference in margins of its measure
(``|difference| / margin``), so measures in different units line up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
from cardsim.analysis import render, stats, verdicts
from cardsim.analysis.facts import facts
from cardsim.analysis.io import Run, open_run
from cardsim.analysis.measures import declared
from cardsim.analysis.model import FACT, QUESTION, Finding, Section, Table
from cardsim.analysis.report import aligned, paired_moments, paired_rate_from, shares_deals
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import Measure

#: Default equivalence margins by kind of measure, in its unit (as the factorial's)
DEFAULT_MARGINS = {"binary": 0.01, "continuous": 0.5}


@dataclass(frozen=True)
class Reading:
    """One variant of one reading: ``option=value`` (ruling), played into ``path``."""

    option: str
    value: str
    ruling: str
    path: Path

    @property
    def label(self) -> str:
        return f"{self.option}={self.value}"


@dataclass
class ScreenResult:
    """The screen's numbers: one row per (reading, measure) and its findings."""

    game: str
    players: int
    deals: int
    seed: int
    baseline: Path
    rows: list[dict]
    findings: list[Finding]
    margins: dict[str, float]
    generated: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def changes(self) -> list[dict]:
        """The rows with a clear difference, largest first (in margins of their measure)."""
        clear = [r for r in self.rows if r["verdict"] == stats.CLEAR]
        return sorted(clear, key=lambda r: -r["size"])


def margin_of(m: Measure, margins: dict[str, float] | None = None) -> float:
    """The equivalence margin of headline measure ``m``: given by its name, or by its kind as a
    study's [margins] names them ("win rate" for a win, "rate" for another share, "mean"), else
    declared with the measure, else the default of its kind (a share 0.01 = one percentage
    point; a mean 0.5)."""
    given = dict(margins or {})
    kind = ("win rate" if "win" in m.name else "rate") if m.kind == "binary" else "mean"
    for key in (m.name, kind):
        if given.get(key) is not None:
            return float(given[key])
    return float(m.margin if m.margin is not None else DEFAULT_MARGINS[m.kind])


def paired_measure(variant: Run, baseline: Run, m: Measure) -> dict | None:
    """The paired difference variant − baseline of measure ``m`` on the shared deals (rows where
    both have a value), with both means: the report's paired comparison of two runs
    (:func:`cardsim.analysis.report.paired_rate_from`, se clustered by deal). None when the runs
    do not share their deals or have fewer than two."""
    if not shares_deals(variant, baseline):
        return None
    f = facts(variant.game)
    keys = [c for c in ("game", "round") if c in variant.games.collect_schema().names()]

    def side(games: pl.LazyFrame, tag: str) -> pl.LazyFrame:
        return games.select(*keys, m.value(f).cast(pl.Float64).alias(f"y{tag}"))

    joined = [
        side(a, "a").join(side(b, "b"), on=keys).drop_nulls(["ya", "yb"])
        for a, b in aligned(variant, baseline)
    ]
    mom = paired_moments(pl.col("ya"), pl.col("yb"), pl.col("game"), joined)
    out = paired_rate_from(mom)
    if out is None:
        return None
    means = pl.concat([j.select("ya", "yb") for j in joined]).mean().collect().row(0)
    out["value"], out["baseline"] = float(means[0]), float(means[1])
    if m.kind == "continuous":  # not a share: no clipping to ±1
        half = 1.959963984540054 * out["_se"]
        out["diff_lo"], out["diff_hi"] = out["diff"] - half, out["diff"] + half
    return out


def analyse(
    game: str,
    baseline: Path,
    readings: list[Reading],
    margins: dict[str, float] | None = None,
) -> ScreenResult:
    """Compare every reading's run with the baseline run on every headline measure; verdicts
    with Holm over the whole screen (:func:`cardsim.analysis.verdicts.judge`)."""
    f = facts(game)
    measures = declared(f)
    if not measures:
        raise CardsimError(f"game {game!r} declares no headline measure with a per-row value")
    base = open_run(baseline)
    rows: list[dict] = []
    findings: list[Finding] = []
    for rd in readings:
        run = open_run(rd.path)
        for m in measures:
            d = paired_measure(run, base, m)
            if d is None:
                raise CardsimError(
                    f"{rd.path}: does not share its deals with {baseline} (same seed, players "
                    "and deal are needed for a screen)"
                )
            margin = margin_of(m, margins)
            row = {
                "option": rd.option, "value": rd.value, "ruling": rd.ruling,
                "measure": m.name, "label": m.label, "kind": m.kind,
                "default": d["baseline"], "variant": d["value"], "diff": d["diff"],
                "diff_lo": d["diff_lo"], "diff_hi": d["diff_hi"], "se": d["_se"],
                "p": d["p"], "deals": d["_deals"], "margin": margin,
                "size": abs(d["diff"]) / margin,
            }  # fmt: skip
            rows.append(row)
            findings.append(_finding(rd, m, row, len(rows) - 1, f.row_unit))
    verdicts.judge([("screen", x) for x in findings])
    for row, x in zip(rows, findings, strict=True):
        row["p_holm"], row["verdict"] = x.p_adjusted, verdicts.label(x)
        x.answer = x.verdict == stats.CLEAR
    return ScreenResult(
        game, base.players, base.games_done, int(base.manifest.get("seed", 0)), Path(baseline),
        rows, findings, dict(margins or {}),
    )  # fmt: skip


def _number(m_kind: str, x: float, sign: bool = False) -> str:
    """A share as percent (points for a difference), a mean in its unit."""
    if m_kind == "binary":
        return f"{100 * x:+.1f}" if sign else f"{100 * x:.1f} %"
    return f"{x:+.2f}" if sign else f"{x:.2f}"


def _finding(rd: Reading, m: Measure, row: dict, i: int, unit: str) -> Finding:
    unit_word = " points" if m.kind == "binary" else ""
    text = (
        f"{rd.label} ({rd.ruling}) vs the default: {m.label}: "
        f"{_number(m.kind, row['variant'])} vs {_number(m.kind, row['default'])}, difference "
        f"{_number(m.kind, row['diff'], True)}{unit_word} "
        f"[{_number(m.kind, row['diff_lo'], True)}, {_number(m.kind, row['diff_hi'], True)}]"
        f" on {row['deals']:,} shared deals."
    )
    return Finding(
        text, text, row["p"], kind=QUESTION, unit="deal", estimate=row["diff"], se=row["se"],
        n=row["deals"], margin=row["margin"], measure=m.name, table="all", row=i,
    )  # fmt: skip


# --- the page and its JSON ------------------------------------------------------------------

_SHOWN = {
    "option": "option", "value": "variant", "ruling": "ruling", "label": "measure",
    "default": "default rules", "variant": "with the variant", "diff": "difference",
    "diff_lo": "difference_lo", "diff_hi": "difference_hi", "margin": "margin",
    "size": "size (margins)", "p_holm": "p_holm", "verdict": "verdict",
}  # fmt: skip


def _display(rows: list[dict]) -> pl.DataFrame:
    """Rows as the page shows them: shares in percent (points for differences)."""
    out = []
    for r in rows:
        scale = 100.0 if r["kind"] == "binary" else 1.0
        d = {_SHOWN[k]: r[k] for k in _SHOWN}
        for k in ("default rules", "with the variant", "difference", "difference_lo",
                  "difference_hi", "margin"):  # fmt: skip
            d[k] = d[k] * scale
        d["measure"] += " (%)" if r["kind"] == "binary" else ""
        out.append(d)
    return pl.DataFrame(out, schema={v: None for v in _SHOWN.values()} if not out else None)


def sections(result: ScreenResult) -> list[Section]:
    """The page's sections: the readings that change an answer, then every comparison."""
    note = (
        "Shares in percent, differences in percentage points; means in their own unit. Size: "
        "|difference| / margin of the measure. Intervals: 95 %, paired on the shared deals, "
        "standard error clustered by deal."
    )
    changes = result.changes
    s1 = Section(
        "changes",
        "Readings that change an answer",
        "The (reading, measure) pairs with a **clear difference** from the default rules after "
        "Holm's correction over the whole screen, largest first (size in margins of the "
        "measure).",
    )
    t = _display(changes) if changes else None
    if t is not None:
        s1.tables.append(Table("changes", "Readings that change an answer", t, note=note,
                               unit="deal"))  # fmt: skip
    else:
        s1.notes.append("No reading changes any headline measure clearly at these games.")
    s2 = Section(
        "all",
        "Every reading against the default",
        "Every variant of every reading (rule options of role `reading`, `cardsim rules "
        f"{result.game}`), each on the same {result.deals:,} deals as the default rules, on "
        "every headline measure, with its verdict.",
    )
    s2.tables.append(Table("all", "Every reading × measure", _display(result.rows), note=note,
                           unit="deal"))  # fmt: skip
    return [s1, s2]


def answer_findings(result: ScreenResult) -> list[Finding]:
    """A summary line (a fact), then the clear differences, largest first."""
    readings = sorted({(r["option"], r["value"]) for r in result.rows})
    changed = sorted({(r["option"], r["value"]) for r in result.changes})
    eq = sum(r["verdict"] == stats.EQUIVALENT for r in result.rows)
    unsure = sum(r["verdict"] == stats.NOT_ENOUGH for r in result.rows)
    head = Finding(
        f"{len(changed)} of {len(readings)} readings change at least one answer "
        f"({', '.join(f'{o}={v}' for o, v in changed) or 'none'}); of the "
        f"{len(result.rows)} comparisons, {len(result.changes)} are clear differences, {eq} "
        f"equivalent within their margin, {unsure} need more games "
        f"({result.deals:,} deals per reading).",
        kind=FACT,
        answer=True,
    )
    order = {id(r): i for i, r in enumerate(result.changes)}
    clear = sorted(
        (f for f in result.findings if f.answer),
        key=lambda f: order.get(id(result.rows[f.row]), 0),
    )
    return [head, *clear]


def html_text(result: ScreenResult) -> str:
    """The page (template ``screen.html.j2``, the report's helpers and CSS)."""
    from cardsim.analysis.render import CLEAR_NOTE, CSS, _env, _finding_ctx, _section_ctx

    secs = sections(result)
    margins = "; ".join(
        f"{m.label} ±{100 * margin_of(m, result.margins):g} pp"
        if m.kind == "binary"
        else f"{m.label} ±{margin_of(m, result.margins):g}"
        for m in declared(facts(result.game))
    )
    return (
        _env()
        .get_template("screen.html.j2")
        .render(
            title=f"cardsim screen — {render.game_title(result.game)}",
            subtitle=(
                f"{len({(r['option'], r['value']) for r in result.rows})} readings × "
                f"{result.deals:,} deals each, {result.players} players, root seed "
                f"{result.seed} · generated {result.generated}"
            ),
            css=CSS,
            answers=[_finding_ctx(f) for f in answer_findings(result)],
            findings=[_finding_ctx(f) for f in result.findings],
            verdict_note=CLEAR_NOTE.format(scope="of the screen", margins=margins),
            sections=[_section_ctx(s) for s in secs],
            json_name="the .json beside this page",
        )
    )


def json_doc(result: ScreenResult) -> dict:
    """The screen's numbers (``OUT/screen.json``; ``cardsim screen --json`` prints it)."""
    return {
        "format": "cardsim-screen",
        "format_version": 1,
        "game": result.game,
        "players": result.players,
        "deals": result.deals,
        "seed": result.seed,
        "generated": result.generated,
        "baseline": str(result.baseline),
        "margins": {m.name: margin_of(m, result.margins) for m in declared(facts(result.game))},
        "changes": [{k: v for k, v in r.items()} for r in result.changes],
        "rows": result.rows,
        "answers": [f.text for f in answer_findings(result)],
    }


def write(result: ScreenResult, out: Path, stem: str = "screen") -> tuple[Path, Path]:
    """Write ``out/<stem>.html`` and ``out/<stem>.json``; returns both paths."""
    from cardsim.sim import jsonio
    from cardsim.sim.rundir import atomic_write_bytes

    page, numbers = Path(out) / f"{stem}.html", Path(out) / f"{stem}.json"
    atomic_write_bytes(page, html_text(result).encode("utf-8"))
    atomic_write_bytes(numbers, jsonio.dump_bytes(json_doc(result), indent=1))
    return page, numbers
