"""What an analysis hands to the report: sections of tables, figures and findings.

A column ``x`` with companions ``x_lo`` and ``x_hi`` is an estimate with its 95 % interval; the
writers show the three as one cell. Columns listed in :attr:`Table.percent` are proportions
shown as percentages; ``p``-value columns (``p``, ``p_*``) are shown to three places.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import polars as pl
from cardsim.analysis import stats


@dataclass
class Table:
    key: str
    title: str
    df: pl.DataFrame
    percent: tuple[str, ...] = ()
    note: str = ""
    unit: str = ""  # what one counted row is: "deal", "match", "seat-round" …
    #: what the HTML / Markdown show instead of ``df`` (e.g. a column per run); JSON keeps df
    display: pl.DataFrame | None = None


@dataclass
class Figure:
    """A figure, drawn the first time a writer reads :attr:`png`: a JSON report, or a
    caller that reads only tables and findings, never draws it (a draw is ~0.2 s)."""

    key: str
    title: str
    draw: Callable[[], bytes]  # e.g. ``partial(plots.bar_rates, df, "seat")``

    @cached_property
    def png(self) -> bytes:
        return self.draw()


#: Kinds of finding: a question the user asked (in the Holm family), a validation check of the
#: simulator against exact probabilities (pass / fail, outside the family), a described fact.
QUESTION, CHECK, FACT = "question", "check", "fact"


@dataclass
class Finding:
    """A plain-words statement. A *question* with a p-value gets one of three verdicts after
    Holm's correction over the report's questions (:func:`cardsim.analysis.verdicts.judge`): clear
    difference (``clear`` text), equivalent within ±``margin`` (TOST) or not enough games (the
    ``unclear`` text plus the games needed). A *check* passes or fails at 5 % on its own.
    Without a p-value, ``clear`` is a described fact.

    ``estimate``, ``se``, ``n`` (independent units) and ``margin`` describe the compared
    difference; ``table`` / ``row`` name the table row it comes from, whose ``verdict`` and
    ``p_holm`` columns are filled from this finding (so the two never disagree).
    """

    clear: str
    unclear: str = ""
    pvalue: float | None = None
    p_adjusted: float | None = None
    significant: bool | None = None
    kind: str = QUESTION
    unit: str = ""
    estimate: float | None = None
    se: float | None = None
    n: int | None = None
    margin: float | None = None
    measure: str = ""
    table: str | None = None
    row: int | None = None
    verdict: str | None = None
    p_tost: float | None = None
    needed: float | None = None
    #: games (deals) to detect the observed difference at 80 % power, when the estimate is not
    #: well inside the margin (issue 19: "needed" alone assumes a true difference of 0)
    needed_detect: float | None = None
    answer: bool = False  # one of the report's Answers (shown first)
    #: the level the verdict was judged at (a sequential ladder look's share of alpha)
    level: float | None = None

    def __post_init__(self) -> None:
        if self.pvalue is None and self.kind == QUESTION:
            self.kind = FACT

    @property
    def text(self) -> str:
        return text(self)


@dataclass
class Section:
    key: str
    title: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --- formatting ----------------------------------------------------------------------------


def plural(unit: str) -> str:
    """``match`` → ``matches``, ``round`` → ``rounds``, ``seat-match`` → ``seat-matches``."""
    return unit + ("es" if unit.endswith(("ch", "sh", "s", "x")) else "s")


def fmt_pct(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.{digits}f} %"


def fmt_num(x, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        if math.isinf(x):
            return "∞"
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        return f"{x:,.{digits}f}"
    return str(x)


def fmt_p(p: float | None) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


#: The smallest p a double holds apart from 0: a p below it is printed as "< 1e-300".
P_FLOOR = 1e-300


def p_value(p: float) -> str:
    """A p-value as text: ``0.023``, ``6.9e-55``; one that underflows is ``< 1e-300``, never
    ``0``.

    Examples
    --------
    >>> p_value(0.0234), p_value(6.9e-55), p_value(0.0)
    ('0.0234', '6.9e-55', '< 1e-300')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.3g}"


def pm(rate: float, lo: float, hi: float) -> str:
    """``27.1 % ± 0.3 %`` (half the interval width) for findings."""
    half = (hi - lo) / 2
    digits = 1 if half >= 0.0005 else 2
    return f"{fmt_pct(rate, digits)} ± {fmt_pct(half, digits)}"


def _digits_for(df: pl.DataFrame, col: str) -> int:
    lo, hi = f"{col}_lo", f"{col}_hi"
    if lo in df.columns and hi in df.columns:
        widths = (df[hi] - df[lo]).drop_nulls().drop_nans()
        if len(widths) and widths.min() is not None and widths.min() < 0.002:
            return 2
    return 1


#: Readable column headers (the JSON keeps the column names).
HEADERS = {
    "k": "count",
    "n": "n",
    "wins": "wins",
    "rate": "rate",
    "expected": "expected",
    "within_ci": "inside 95 % CI",
    "q05": "5 %",
    "q25": "25 %",
    "q75": "75 %",
    "q95": "95 %",
    "sd": "SD",
    "p": "p",
    "p_holm": "Holm p",
    "fair_share": "fair share",
    "excess": "excess over fair share (pp)",
    "diff": "difference (pp)",
    "effect": "effect (pp)",
    "deff": "design effect",
    "clusters": "deals",
    "win_a": "win rate a",
    "win_b": "win rate b",
    "variance_ratio": "variance ratio (pairing gain)",
    "equivalent_unpaired_games": "equivalent unpaired games",
    "mean_turns": "mean turns",
    "no_winner": "no winner",
    "first_wins": "first player wins",
    "first_share": "first player's share",
    "no_winner_rate": "no-winner rate",
    "n_baseline": "n (first run)",
    "baseline": "first run",
    "value": "this run",
    "logit": "strategy term (logit)",
    "share": "share of the sides",
    "non_default": "non-default",
}
#: Columns kept in the JSON but not shown in the HTML / Markdown tables (width).
HIDDEN = {"se", "var", "bonferroni", "bonferroni_lo", "bonferroni_hi", "unpaired",
          "unpaired_lo", "unpaired_hi", "reference"}  # fmt: skip
#: a row whose hidden ``reference`` column is true is the model's reference (its value fixed
#: at 0, no interval): its interval cells read "reference", not "0 [0, 0]" (issue 45 item 10)
REFERENCE = "reference"


def header(col: str) -> str:
    """The readable header of a column: :data:`HEADERS`, else the name without underscores
    (``"rate · run"``: the value's header and the run)."""
    if " · " in col:
        base, run = col.split(" · ", 1)
        return f"{header(base)} · {run}"
    return HEADERS.get(col, col.replace("_", " "))


def words(df: pl.DataFrame, col: str, names: dict[str, str] | None = None) -> pl.DataFrame:
    """``df`` with the snake_case labels of ``col`` in words for the HTML / Markdown tables
    (``names``, else underscores as spaces: ``last_card_draw`` → ``last card draw``); the JSON
    keeps the names (issue 45 item 10)."""
    if col not in df.columns:
        return df
    names = names or {}
    return df.with_columns(
        pl.col(col)
        .cast(pl.String)
        .map_elements(lambda v: names.get(v, v.replace("_", " ")), return_dtype=pl.String)
    )


def display_rows(table: Table) -> tuple[list[str], list[list[str]]]:
    """Header and formatted cells of a table (interval columns merged into their estimate)."""
    df = table.df.drop([c for c in table.df.columns if c in HIDDEN])
    cols = [
        c
        for c in df.columns
        if not (
            (c.endswith("_lo") and c[:-3] in df.columns)
            or (c.endswith("_hi") and c[:-3] in df.columns)
        )
    ]
    header_row = [
        f"{header(c)} [95 % CI]"
        if f"{c}_lo" in df.columns and f"{c}_hi" in df.columns
        else header(c)
        for c in cols
    ]
    rows = []
    ref = table.df["reference"].to_list() if "reference" in table.df.columns else None
    for i, rec in enumerate(df.iter_rows(named=True)):
        is_ref = ref is not None and bool(ref[i])
        rows.append([_cell(table, df, rec, c, is_ref) for c in cols])
    return header_row, rows


def _cell(table: Table, df: pl.DataFrame, rec: dict, c: str, is_ref: bool) -> str:
    """One formatted cell: the value with its interval merged (``reference`` for the model's
    reference row, issue 45 item 10)."""
    v = rec[c]
    interval = f"{c}_lo" in rec and f"{c}_hi" in rec
    if is_ref and interval:
        return REFERENCE
    pct = c in table.percent or c.split(" · ")[0] in table.percent
    if c == "p" or c.startswith("p_"):
        s = fmt_p(v)
    elif pct:
        s = fmt_pct(v, _digits_for(df, c))
    else:
        s = fmt_num(v)
    if interval:
        lo, hi = rec[f"{c}_lo"], rec[f"{c}_hi"]
        if pct:
            d = _digits_for(df, c)
            s += f" [{fmt_pct(lo, d)}, {fmt_pct(hi, d)}]".replace(" %", "")
            s = s.replace("] ", "]")
        else:
            s += f" [{fmt_num(lo)}, {fmt_num(hi)}]"
    return _points(s, c, pct)


def _points(cell: str, col: str, pct: bool) -> str:
    """A share cell of a "(pp)" column (percentage points) without its "%"."""
    pp = pct and header(col.split(" · ")[0]).endswith("(pp)")
    return cell.replace(" %", "") if pp else cell


@dataclass
class Part:
    """One report within a page of several (a study): its report and headline findings."""

    key: str  # HTML id of the part; its sections get ids "<key>-<section>"
    title: str
    kind: str  # e.g. "comparison of runs", "strategy comparison", "scenario"
    report: object  # cardsim.analysis.report.Report
    headline: list = field(default_factory=list)  # [(section key, Finding)] shown at the top
    intro: str = ""
    scenarios: list[str] = field(default_factory=list)


@dataclass
class Page:
    """Several reports on one HTML page (:func:`cardsim.analysis.render.html_multi`)."""

    title: str
    subtitle: str
    parts: list[Part]
    warnings: list[str] = field(default_factory=list)
    scope: str = "of each part"
    json_name: str = ""
    margins: dict[str, float] = field(default_factory=dict)


@dataclass
class RunData:
    """One run's collected query results, keyed ``"<module>.<query>"``."""

    label: str
    run: object  # cardsim.analysis.io.Run (kept untyped here to avoid an import cycle)
    data: dict[str, pl.DataFrame]

    def get(self, key: str) -> pl.DataFrame:
        return self.data[key]


def side_by_side(df: pl.DataFrame, keys: list[str], values: list[str]) -> pl.DataFrame:
    """A stacked multi-run table (leading ``run``) with one column group per run: ``keys``, then
    for each run its ``values`` (and their ``_lo`` / ``_hi``) named ``"<value> · <run>"``."""
    if "run" not in df.columns:
        return df
    runs = list(dict.fromkeys(df["run"].to_list()))
    shared = [c for c in df.columns if c not in ("run", *keys) and not _per_run(c, values)]
    out = df.filter(pl.col("run") == runs[0]).select(*keys, *shared)
    for r in runs:
        part = df.filter(pl.col("run") == r)
        cols = [c for c in df.columns if _per_run(c, values)]
        out = out.join(
            part.select(*keys, *[pl.col(c).alias(_run_name(c, r)) for c in cols]),
            on=keys,
            how="left",
            maintain_order="left",
        )
    return out


def _per_run(col: str, values: list[str]) -> bool:
    return col in values or (col[-3:] in ("_lo", "_hi") and col[:-3] in values)


def _run_name(col: str, run: str) -> str:
    if col[-3:] in ("_lo", "_hi"):
        return f"{col[:-3]} · {run}{col[-3:]}"
    return f"{col} · {run}"


def stack(items: list[RunData], key: str) -> pl.DataFrame:
    """One query's results of every run; with several runs, a leading ``run`` column."""
    if len(items) == 1:
        return items[0].get(key)
    return pl.concat(
        [it.get(key).select(pl.lit(it.label).alias("run"), pl.all()) for it in items],
        how="diagonal_relaxed",
    )


def prefix(items: list[RunData], it: RunData) -> str:
    """``"label: "`` when several runs are reported, else nothing."""
    return f"{it.label}: " if len(items) > 1 else ""


# --- a finding's sentence for its verdict (judged by analysis/verdicts.py) ---------------------

PASS, FAIL = "pass", "fail"


def _margin_text(f: Finding) -> str:
    m = f.margin or 0.0
    if f.measure == "mean":
        return f"±{m:g}"
    return f"±{100 * m:g} point{'s' if 100 * m != 1 else ''}"


def _diff_text(f: Finding) -> str:
    e = f.estimate or 0.0
    if f.measure == "mean":
        return f"{e:+.3g} per {f.unit}" if f.unit else f"{e:+.3g}"
    return f"{100 * e:+.2f} points"


def _p(p: float | None) -> str:
    return "p = –" if p is None else ("p < 0.001" if p < 0.001 else f"p = {p:.3f}")


def text(f: Finding) -> str:
    """The finding's sentence for its verdict."""
    if f.kind == FACT or f.verdict is None:
        return f.clear
    if f.kind == CHECK:
        return f.clear if f.verdict == FAIL else f.unclear
    if f.verdict == stats.CLEAR:
        return f.clear
    base = f.unclear or f.clear
    if f.verdict == stats.EQUIVALENT:
        return (
            f"{base} Equivalent within {_margin_text(f)} (TOST {_p(f.p_tost)}: the larger p of "
            "the two one-sided tests against the margin)."
        )
    tell = f"Not enough games to tell{_level_text(f)}"
    if f.needed is not None and math.isfinite(f.needed):
        unit = plural(f.unit) if f.unit else "games"
        out = (
            f"{base} {tell}: about {f.needed:,.0f} {unit} would show "
            f"equivalence within {_margin_text(f)} at 80 % power"
        )
        if f.needed_detect is not None and math.isfinite(f.needed_detect):
            return (
                f"{out} if the true difference is 0; about {f.needed_detect:,.0f} {unit} would "
                f"detect the observed difference ({_diff_text(f)}) at 80 % power "
                f"({DETECT_CAVEAT})."
            )
        return out + "."
    return f"{base} {tell}."


#: what "games to detect" assumes (issue 45 item 9: 20 runs at the printed number gave p < 0.05
#: in 9 and "clear" after Holm in 7)
DETECT_CAVEAT = (
    "unadjusted: a two-sided 5 % test, if the observed difference is the true one; the "
    "Holm-adjusted verdict needs more"
)


def _level_text(f: Finding) -> str:
    """`` (Holm p 0.009 ≥ this look's level 0.0079)`` where the verdict was judged at a level
    below the usual 5 % (a sequential look): a small p is then not yet a finding, and the
    sentence says why (issue 45 item 9)."""
    if f.level is None or f.level >= stats.ALPHA or f.p_adjusted is None:
        return ""
    if not math.isfinite(f.p_adjusted):
        return ""
    return f" (Holm p {f.p_adjusted:.2g} ≥ this look's level {f.level:.2g})"
