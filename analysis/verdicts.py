"""Three verdicts for every question, pass/fail for every check (docs/report.md, "Verdicts").

- **clear difference**: Holm-adjusted p < 5 %, the family being the report's *questions* (the
  comparisons the user asked for, each counted once; per study part).
- **equivalent within ±m**: not clear, and the two one-sided tests (TOST) put the difference
  inside ±m at 5 % (the 90 % interval lies inside the margin).
- **not enough games**: neither; with the games (deals) needed to show equivalence within ±m at
  80 % power if the true difference were 0 and, when the estimate is not well inside the margin
  (|estimate| > m/2), also the games needed to detect the observed difference at 80 % power
  (two-sided 5 %; :func:`cardsim.analysis.stats.units_to_detect`).

A *check* (the simulator against exact probabilities) passes or fails at 5 % on its own, outside
the family: a failed check means "look at the simulator", not an answer about the game.

Margins default per measure (:data:`DEFAULT_MARGINS`, in the measure's unit: a share 0.01 is
one percentage point) and are set with ``cardsim report --margin measure=value`` or a study
file's ``[margins]`` table.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from cardsim.analysis import stats
from cardsim.analysis.model import (  # noqa: F401  (text and DETECT_CAVEAT: re-exported)
    CHECK,
    DETECT_CAVEAT,
    FACT,
    FAIL,
    PASS,
    QUESTION,
    Finding,
    Section,
    text,
)

#: Default equivalence margins per measure (shares: 0.01 = one percentage point).
DEFAULT_MARGINS: dict[str, float] = {
    "win rate": 0.01,  # any win rate, first-player advantage, strategy effect, pairwise
    "rate": 0.01,  # other shares (双夹, no winner, finish patterns …)
    "mean": 0.5,  # mean per game (tricks, turns, bombs …): half a unit
}


def margin_for(measure: str, margins: dict[str, float] | None = None) -> float:
    """The margin of ``measure`` ("win rate", "rate", "mean" or a finer name)."""
    m = {**DEFAULT_MARGINS, **(margins or {})}
    if measure in m:
        return float(m[measure])
    base = "win rate" if "win" in measure else "rate"
    return float(m.get(base, DEFAULT_MARGINS[base]))


def judge(
    findings: list[tuple[str, Finding]],
    margins: dict[str, float] | None = None,
    alpha: float = stats.ALPHA,
) -> None:
    """Give every question its verdict (Holm over the questions), every check pass / fail."""
    questions = [
        f
        for _, f in findings
        if f.kind == QUESTION and f.pvalue is not None and np.isfinite(f.pvalue)
    ]
    if questions:
        adj = stats.adjust([f.pvalue for f in questions], "holm")
        for f, a in zip(questions, adj, strict=True):
            f.p_adjusted = float(a)
            f.level = alpha
            f.significant = bool(a < alpha)
            _give_verdict(f, margins, alpha)
    for _, f in findings:
        if f.kind == CHECK and f.pvalue is not None and np.isfinite(f.pvalue):
            f.significant = bool(f.pvalue < alpha)
            f.verdict = FAIL if f.significant else PASS


def _give_verdict(f: Finding, margins: dict[str, float] | None, alpha: float) -> None:
    """One question's verdict once its Holm-adjusted p is known: clear, equivalent (TOST within
    the margin) or not enough (with the units needed to decide)."""
    if f.significant:
        f.verdict = stats.CLEAR
        return
    if f.estimate is None or f.se is None:
        f.verdict = stats.NOT_ENOUGH
        return
    if f.margin is None:
        f.margin = margin_for(f.measure or "rate", margins)
    f.p_tost = stats.tost_p(f.estimate, f.se, f.margin)
    if np.isfinite(f.p_tost) and f.p_tost < alpha:
        f.verdict = stats.EQUIVALENT
    else:
        f.verdict = stats.NOT_ENOUGH
        f.needed = stats.units_needed(f.se, f.n or 0, f.margin, alpha)
        if not stats.well_inside(f.estimate, f.margin):
            f.needed_detect = stats.units_to_detect(f.estimate, f.se, f.n or 0, alpha)


def label(f: Finding) -> str:
    """Badge text: clear difference / equivalent / not enough games / pass / fail / fact."""
    if f.kind == FACT or f.verdict is None:
        return "fact"
    return f.verdict


def fill_tables(sections: list[Section]) -> None:
    """Write each finding's verdict and Holm p into the table row it comes from (columns
    ``verdict``, ``p_holm``), so a table and its finding never disagree."""
    for sec in sections:
        by_table: dict[str, list[Finding]] = {}
        for f in sec.findings:
            if f.table is not None and f.row is not None:
                by_table.setdefault(f.table, []).append(f)
        for t in sec.tables:
            fs = by_table.get(t.key)
            if not fs:
                continue
            verdict = [None] * t.df.height
            p_holm = [None] * t.df.height
            for f in fs:
                if 0 <= f.row < t.df.height:
                    verdict[f.row] = label(f)
                    p_holm[f.row] = f.p_adjusted
            t.df = t.df.drop([c for c in ("verdict", "p_holm") if c in t.df.columns])
            t.df = t.df.with_columns(
                pl.Series("p_holm", p_holm, dtype=pl.Float64),
                pl.Series("verdict", verdict, dtype=pl.String),
            )
