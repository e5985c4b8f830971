"""The skill ladder: do the balance findings hold under stronger play? (``cardsim ladder``)

A ladder is a list of strategies (*levels*, e.g. ``random, greedy, pimc:samples=4,
pimc:samples=16``) and, per player count, two kinds of ordinary runs (docs/ladder.md):

- one duplicate-deal comparison of the levels (``cardsim compare``); its conditional-logit
  ratings (:func:`cardsim.analysis.compare.ratings`, deal-clustered intervals) place each level on one
  skill scale;
- one self-play run per level: every seat plays the level, on the same root seed (the same
  deals at every level).

Per headline measure of the game (``facts.headline``, read as the report reads it: the
first-player advantage as the excess over the fair share, :func:`cardsim.analysis.seats.first_player_row`;
rates and means of the measures' declared values, and the game's own readings, ``analysis/games/<game>.py``), each level's self-play value is counted
once per independent unit (a match; an ATLAS round, clustered by match). Then a weighted
regression of the value on the level's rating (statsmodels WLS, weights 1 / SE², scale fixed
at max(1, χ² / (levels − 2)) so that scatter beyond the levels' own errors widens the
interval) gives the slope and the **change across the ladder** (slope × the rating span from
the lowest- to the highest-rated level), with its 95 % interval (:func:`weighted_trend`).
Verdicts, in the semantics of docs/report.md ("Verdicts"), Holm over the ladder's measures:

- **skill-dependent**: the levels clearly differ — the slope against the levels' own errors,
  or Cochran's Q for any difference (a U-shape too), Bonferroni-combined;
- **stable across levels**: the change across the ladder is equivalent to 0 within the
  measure's margin (TOST at 5 %);
- **not enough games**: neither, with the games per level that would show stability.

Where the rating model separates (one level wins almost every game, |rating| > 8: no finite
rating), the levels are placed at their rank on the ladder (0, 1, 2, …, ordered by rating)
instead, and a note says so.

Every level plays the same deals (one root seed), so the levels' values are paired by deal:
each level's per-deal contributions (:func:`influence`) give their covariance
(:func:`level_covariance`), and the slope's error is the sandwich of the same weighted fit,
clustered by deal (:func:`paired_trend`). The unpaired fit (levels independent, conservative)
is kept beside it, with the variance ratio (what the pairing saves). The per-card effects of
刀 cards and jokers are slopes, not means: they stay unpaired. The Answers line orders the
levels by rating and names any given out of order (:func:`out_of_order`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
from cardsim.analysis import compare, duplicate, plots, seats, stats, verdicts
from cardsim.analysis.exprs import clustered_rate_table, deal_cluster, mean_sd
from cardsim.analysis.facts import facts as facts_of
from cardsim.analysis.io import Run, open_run
from cardsim.analysis.model import FACT, Figure, Finding, RunData, Section, Table, plural
from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from scipy import stats as ss

KEY = "ladder"
TITLE = "Does it hold under stronger play?"
#: |rating| beyond this (logit scale): the model separates (one threshold, compare's)
SEPARATION = compare.SEPARATION
#: the ladder's verdict words for the report's three verdicts
WORDS = {
    stats.CLEAR: "skill-dependent",
    stats.EQUIVALENT: "stable across levels",
    stats.NOT_ENOUGH: "not enough games",
}


# --- the measures: one value per level, counted once per independent unit --------------------


@dataclass(frozen=True)
class LadderMeasure:
    """How to read one headline measure off a self-play run."""

    key: str
    label: str
    kind: str  # "win rate" / "rate" (shares: margins in points) or "mean"
    unit: str  # the independent unit it is counted in
    read: Callable[[Run], dict]  # -> estimate, se, lo, hi, n (units)


def _first_excess(run: Run) -> dict:
    pos = seats.queries(run)["position"].direct(run.games, run.seats).collect()
    it = RunData("", run, {"seats.position": pos})
    r = seats.first_player_row(it)
    f = facts_of(run.game)
    first = seats.side_outcomes(run.games, f.sides(run.players), f).filter(
        pl.col("decided") & (pl.col("position") == 0)
    )
    return {
        "estimate": r["excess"],
        "se": r["se"],
        "lo": r["excess_lo"],
        "hi": r["excess_hi"],
        "n": int(r["n"]),
        "psi": influence(first, pl.col("won")),  # the excess is the rate minus a constant
    }


def _rate(value: Callable) -> Callable[[Run], dict]:
    """A yes/no measure per games row (its share, Wilson interval clustered like the report)."""

    def read(run: Run) -> dict:
        f = facts_of(run.game)
        lf = run.games.select(
            *[c for c in ("game", "round") if c in run.games.collect_schema().names()],
            value(f).fill_null(False).alias("_y"),
            pl.lit("all").alias("_all"),
        )
        r = clustered_rate_table(lf, ["_all"], pl.col("_y"), deal_cluster(run.games))
        r = r.collect().row(0, named=True)
        return {
            "estimate": r["rate"],
            "se": math.sqrt(r["var"]) if r["var"] is not None else float("nan"),
            "lo": r["rate_lo"],
            "hi": r["rate_hi"],
            "n": int(r["n"]),
            "psi": influence(run.games, value(f).fill_null(False)),
        }

    return read


def clustered_mean(lf: pl.LazyFrame, value: pl.Expr, cluster: list[str] | None) -> dict:
    """Mean of ``value`` (nulls left out) with its standard error: CR1 over ``cluster`` (the
    rounds of a match), or the plain ``sd / √n`` when every row is its own unit; Student-t /
    normal 95 % interval."""
    y = value.cast(pl.Float64)
    if cluster is None:
        n, mean, sd = mean_sd(lf, value)  # order-exact (issue 45 item 11)
        if n < 2 or mean is None or sd is None:
            return {"estimate": mean, "se": float("nan"), "lo": float("nan"), "hi": float("nan"),
                    "n": n}  # fmt: skip
        lo, hi = stats.mean_interval(mean, sd, n)
        return {"estimate": mean, "se": sd / math.sqrt(n), "lo": lo, "hi": hi, "n": n}
    per = (
        lf.select(*cluster, y.alias("y"))
        .drop_nulls("y")
        .group_by(cluster)
        .agg(nc=pl.len().cast(pl.Float64), yc=pl.col("y").sum())
        .sort(cluster)  # a fixed order: the float sums below do not depend on the group order
        .collect()
    )
    g = per.height
    n = float(per["nc"].sum()) if g else 0.0
    if g < 2 or n == 0:
        return {"estimate": float("nan"), "se": float("nan"), "lo": float("nan"),
                "hi": float("nan"), "n": int(n)}  # fmt: skip
    mean = float(per["yc"].sum()) / n
    resid = per["yc"].to_numpy() - mean * per["nc"].to_numpy()
    se = math.sqrt(g / (g - 1) * float((resid**2).sum())) / n
    z = ss.norm.ppf(0.975)
    return {"estimate": mean, "se": se, "lo": mean - z * se, "hi": mean + z * se, "n": int(n)}


def _mean(value: Callable) -> Callable[[Run], dict]:
    def read(run: Run) -> dict:
        f = facts_of(run.game)
        out = clustered_mean(run.games, value(f), deal_cluster(run.games))
        return {**out, "psi": influence(run.games, value(f))}

    return read


def influence(lf: pl.LazyFrame, value: pl.Expr) -> pl.DataFrame | None:
    """Each deal's (``game``'s) contribution to a mean of ``value`` over rows (nulls left out):
    ``psi = (Σ y − mean · n_rows) / N`` per deal, so that ``G / (G − 1) · Σ psi²`` is the
    deal-clustered (CR1) variance of the mean. Every level plays the same deals (one root
    seed), so ``Σ psi_l · psi_m`` over the deals is the covariance of two levels' means — the
    pairing of the ladder's trend (:func:`level_covariance`). None without a ``game`` column
    (the measure then stays unpaired)."""
    if "game" not in lf.collect_schema().names():
        return None
    per = (
        lf.select("game", value.cast(pl.Float64).alias("y"))
        .drop_nulls("y")
        .group_by("game")
        .agg(nc=pl.len().cast(pl.Float64), yc=pl.col("y").sum())
        .sort("game")
        .collect()
    )
    n = float(per["nc"].sum()) if per.height else 0.0
    if n == 0:
        return pl.DataFrame({"game": [], "psi": []}, schema={"game": pl.Int64, "psi": pl.Float64})
    mean = float(per["yc"].sum()) / n
    return per.select(
        pl.col("game").cast(pl.Int64), ((pl.col("yc") - mean * pl.col("nc")) / n).alias("psi")
    )


def level_covariance(psis: list[pl.DataFrame]) -> np.ndarray:
    """The covariance matrix of the levels' estimates from their per-deal contributions
    (:func:`influence`), paired by deal: ``Σ_lm = G / (G − 1) · Σ_d psi_ld · psi_md`` (a deal
    one level lacks contributes 0 there; G: the deals any level played). The diagonal is each
    level's own deal-clustered variance; the off-diagonal is what treating the levels as
    independent leaves out."""
    k = len(psis)
    wide = None
    for i, p in enumerate(psis):
        p = p.select("game", pl.col("psi").alias(f"p{i}"))
        wide = p if wide is None else wide.join(p, on="game", how="full", coalesce=True)
    m = wide.sort("game").select([f"p{i}" for i in range(k)]).fill_null(0.0).to_numpy()
    g = m.shape[0]
    return (g / (g - 1) if g > 1 else 1.0) * (m.T @ m)


def measures_for(game: str) -> list[LadderMeasure]:
    """The ladder's measures of ``game``: one or more per headline measure of its facts, read
    as each declares (``cardsim.sim.game.Measure.ladder``): "value" a rate or a mean of its
    per-row value, "first_excess" the first side's excess over the fair share, "hook:NAME" the
    game's analysis declaration (``analysis/games/<game>.py``, ``ladder_measures[NAME]``),
    "none" not at all."""
    from cardsim.analysis.games import analysis_of

    f = facts_of(game)
    out: list[LadderMeasure] = []
    for m in f.headline:
        how = m.ladder
        if how == "first_excess":
            out.append(LadderMeasure(
                "first_excess", f"{f.first_player_label} wins: excess over the fair share",
                "win rate", m.unit, _first_excess,
            ))  # fmt: skip
        elif how.startswith("hook:"):
            reader = analysis_of(game).ladder_measures.get(how.removeprefix("hook:"))
            if reader is None:
                raise CardsimError(
                    f"game {game!r}: measure {m.name!r} is read by the ladder hook {how!r}, "
                    "which its analysis declaration lacks"
                )
            out += reader(m, f)
        elif how == "value" and m.value is not None:
            kind = "rate" if m.kind == "binary" else "mean"
            read = _rate(m.value) if m.kind == "binary" else _mean(m.value)
            out.append(LadderMeasure(m.name, m.label, kind, m.unit, read))
    return out


def level_values(run: Run) -> list[dict]:
    """Every ladder measure of one self-play run: ``key, label, kind, unit, estimate, se, lo,
    hi, n``."""
    rows = []
    for m in measures_for(run.game):
        try:
            v = m.read(run)
        except (pl.exceptions.ColumnNotFoundError, KeyError, IndexError):
            continue  # the tables lack what this measure needs
        rows.append({"key": m.key, "label": m.label, "kind": m.kind, "unit": m.unit, **v})
    return rows


# --- the trend: measure on rating -------------------------------------------------------------


@dataclass
class Trend:
    slope: float
    slope_se: float  # with the dispersion scale
    change: float  # slope × rating span
    change_se: float
    p: float  # "the levels differ": slope or Cochran's Q, Bonferroni over the two
    dispersion: float  # the scale the intervals' covariance was fixed at (≥ 1)
    span: float
    levels: int
    p_slope: float = float("nan")  # the slope against the levels' own errors (scale 1)
    p_q: float = float("nan")  # Cochran's Q: any difference between the levels


def weighted_trend(x, y, se, n=None) -> Trend:
    """Weighted least squares of ``y`` on ``x`` (weights 1 / se²; statsmodels WLS).

    - The **test** of "the levels differ": the slope against the levels' own errors (scale 1,
      exact under "every level has the same value") and Cochran's Q (the weighted scatter
      around the weighted mean, χ² with k − 1 degrees of freedom: any difference, a U-shape
      too), Bonferroni-combined: ``p = min(1, 2 min(p_slope, p_Q))``.
    - The **intervals** of the slope and of the change across the ladder: covariance scale
      fixed at ``max(1, χ² / (k − 2))`` — widened when the levels scatter around the line more
      than their errors allow, so a U-shape is never called stable.

    ``se`` below ``1 / n`` (a measure that did not vary at a level) is raised to it."""
    import statsmodels.api as sm

    x, y, se = (np.asarray(v, dtype=float) for v in (x, y, se))
    floor = np.full_like(se, 1e-9)
    if n is not None:
        n = np.asarray(n, dtype=float)
        floor = np.where(n > 0, 1.0 / np.maximum(n, 1.0), np.inf)
    se = np.where(np.isfinite(se), np.maximum(se, floor), np.nan)
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(se)
    x, y, se = x[ok], y[ok], se[ok]
    k = int(x.size)
    span = float(x.max() - x.min()) if k else float("nan")
    nan = float("nan")
    if k < 2 or not span > 0:
        return Trend(nan, nan, nan, nan, nan, nan, span, k)
    design = sm.add_constant(x, has_constant="add")
    w = 1.0 / se**2
    fixed = sm.WLS(y, design, weights=w).fit(cov_type="fixed scale", cov_kwds={"scale": 1.0})
    chi2 = float((w * fixed.resid**2).sum())
    scale = max(1.0, chi2 / (k - 2)) if k > 2 else 1.0
    fit = sm.WLS(y, design, weights=w).fit(cov_type="fixed scale", cov_kwds={"scale": scale})
    slope, slope_se = float(fit.params[1]), float(fit.bse[1])
    p_slope = float(fixed.pvalues[1]) if fixed.bse[1] > 0 else (1.0 if slope == 0 else 0.0)
    q = float((w * (y - np.average(y, weights=w)) ** 2).sum())
    p_q = float(ss.chi2.sf(q, k - 1))
    p = min(1.0, 2 * min(p_slope, p_q))
    return Trend(slope, slope_se, slope * span, slope_se * span, p, scale, span, k, p_slope, p_q)


@dataclass
class PairedTrend:
    """The trend of :func:`paired_trend`: the same weighted fit, its errors paired by deal."""

    slope: float
    slope_se: float  # paired, deal-clustered, with the dispersion scale
    change: float
    change_se: float
    p: float  # slope or the Wald test of "all levels equal", Bonferroni over the two
    dispersion: float
    span: float
    levels: int
    p_slope: float
    p_q: float
    #: the slope's variance paired ÷ the same fit's variance with the levels independent (the
    #: same per-level variances; both at scale 1): below 1, what the pairing saves
    variance_ratio: float


def _floored(se, n) -> np.ndarray:
    se = np.asarray(se, dtype=float)
    floor = np.full_like(se, 1e-9)
    if n is not None:
        n = np.asarray(n, dtype=float)
        floor = np.where(n > 0, 1.0 / np.maximum(n, 1.0), np.inf)
    return np.where(np.isfinite(se), np.maximum(se, floor), np.nan)


def paired_trend(x, y, se, cov, n=None) -> PairedTrend:
    """:func:`weighted_trend` with the levels' covariance ``cov`` (:func:`level_covariance`:
    every level plays the same deals, so their estimates are paired by deal).

    The fit is the same (weights 1 / se²): ``β = A y`` with ``A = (X'WX)⁻¹X'W``; its covariance
    is the sandwich ``A Σ A'`` — the deal-clustered (cluster-robust by deal) error of the slope,
    in place of ``(X'WX)⁻¹`` (levels independent). The test of "the levels differ": the slope
    against ``A Σ A'`` and the Wald test of "all levels equal" (the differences from the first
    level against their paired covariance, χ² with k − 1 degrees of freedom), Bonferroni-
    combined. The dispersion scale is ``max(1, r'(MΣM')⁺r / (k − 2))`` (r: the residuals,
    M = I − XA). ``cov``'s diagonal is raised to ``se²`` where that is larger (the floor)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    se = _floored(se, n)
    cov = np.array(cov, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(se)
    x, y, se, cov = x[ok], y[ok], se[ok], cov[np.ix_(ok, ok)]
    k = int(x.size)
    span = float(x.max() - x.min()) if k else float("nan")
    nan = float("nan")
    if k < 2 or not span > 0:
        return PairedTrend(nan, nan, nan, nan, nan, nan, span, k, nan, nan, nan)
    diag = np.diag(cov).copy()
    cov[np.diag_indices(k)] = np.maximum(diag, se**2)
    design = np.column_stack([np.ones(k), x])
    w = 1.0 / se**2
    xtwx_inv = np.linalg.inv(design.T @ (w[:, None] * design))
    a = xtwx_inv @ (design.T * w)
    beta = a @ y
    v = a @ cov @ a.T
    v_indep = a @ np.diag(np.diag(cov)) @ a.T
    m = np.eye(k) - design @ a
    r = y - design @ beta
    chi2 = float(r @ np.linalg.pinv(m @ cov @ m.T) @ r) if k > 2 else 0.0
    scale = max(1.0, chi2 / (k - 2)) if k > 2 else 1.0
    slope, var1 = float(beta[1]), float(v[1, 1])
    slope_se = math.sqrt(max(var1, 0.0) * scale)
    p_slope = (
        float(2 * ss.norm.sf(abs(slope) / math.sqrt(var1))) if var1 > 0
        else (1.0 if slope == 0 else 0.0)
    )  # fmt: skip
    c = np.column_stack([-np.ones(k - 1), np.eye(k - 1)])  # level i − the first level
    d = c @ y
    q = float(d @ np.linalg.pinv(c @ cov @ c.T) @ d)
    p_q = float(ss.chi2.sf(q, k - 1))
    p = min(1.0, 2 * min(p_slope, p_q))
    ratio = var1 / float(v_indep[1, 1]) if v_indep[1, 1] > 0 else nan
    return PairedTrend(
        slope, slope_se, slope * span, slope_se * span, p, scale, span, k, p_slope, p_q, ratio
    )


def judge_trends(
    values: pl.DataFrame,
    margins: dict[str, float] | None = None,
    psi: dict[tuple[str, str, str], pl.DataFrame] | None = None,
    alpha: float = stats.ALPHA,
) -> tuple[pl.DataFrame, list[Finding]]:
    """The trend and verdict of every measure (Holm over them).

    ``values``: one row per (``group``, ``key``, level) with ``label``, ``kind``, ``unit``,
    ``level``, ``x`` (the level's rating, or rank), ``estimate``, ``se``, ``n``. Returns the
    trends table (one row per group × measure, with ``verdict`` and ``p_holm``) and its
    findings (row ``i`` of the table is finding ``i``).

    ``psi``: per (group, key, level) the level's per-deal contributions (:func:`influence`).
    Where every level of a measure has them, the verdict and the intervals are the paired,
    deal-clustered ones (:func:`paired_trend`); the unpaired fit (:func:`weighted_trend`,
    levels independent) is kept beside them (``*_unpaired``) with the variance ratio.
    ``alpha``: the verdicts' level (a look's share of the error rate under ``cardsim ladder
    --until-decided``, :func:`cardsim.analysis.stopping.look_levels`)."""
    rows, found = [], []
    keys = values.select("group", "key").unique(maintain_order=True).iter_rows()
    for group, key in keys:
        d = values.filter((pl.col("group") == group) & (pl.col("key") == key)).sort("x")
        tr, unpaired, ratio = _fit(d, [(psi or {}).get((group, key, lv)) for lv in d["level"]])
        first = d.row(0, named=True)
        rows.append(_trend_row(group, key, d, tr, unpaired, ratio))
        found.append(
            Finding(
                "",
                "",
                tr.p if math.isfinite(tr.p) else None,
                unit=first["unit"],
                estimate=tr.change if math.isfinite(tr.change) else None,
                se=tr.change_se if math.isfinite(tr.change_se) else None,
                n=int(d["n"].min()),
                measure=first["kind"],
                margin=verdicts.margin_for(first["kind"], margins),
            )
        )
    judgeable = [("ladder", f) for f in found if f.pvalue is not None]
    verdicts.judge(judgeable, margins, alpha)
    table = pl.DataFrame(rows)
    words, holm = [], []
    for r, f in zip(rows, found, strict=True):
        if f.verdict is None:  # no trend could be fitted (one level, or all at one rating)
            f.verdict = stats.NOT_ENOUGH
            f.kind = "question"
        f.clear, f.unclear = _texts(r, f)
        words.append(WORDS.get(f.verdict, f.verdict))
        holm.append(f.p_adjusted)
    if rows:
        table = table.with_columns(
            pl.Series("p_holm", holm, dtype=pl.Float64),
            pl.Series("verdict", words, dtype=pl.String),
            pl.Series("margin", [f.margin for f in found], dtype=pl.Float64),
        )
    return table, found


def _fit(d: pl.DataFrame, mine: list):
    """The paired trend where every level has its per-deal contributions, else the unpaired one."""
    unpaired = weighted_trend(d["x"], d["estimate"], d["se"], d["n"])
    tr, ratio = unpaired, float("nan")
    if mine and all(p is not None and p.height for p in mine):
        tr = paired_trend(d["x"], d["estimate"], d["se"], level_covariance(mine), d["n"])
        ratio = tr.variance_ratio
        if not math.isfinite(tr.p):
            tr, ratio = unpaired, float("nan")
    return tr, unpaired, ratio


def _trend_row(group: str, key: str, d: pl.DataFrame, tr, unpaired, ratio: float) -> dict:
    z = ss.norm.ppf(0.975)
    first, last = d.row(0, named=True), d.row(-1, named=True)
    return {
        "group": group, "measure": first["label"], "key": key, "kind": first["kind"],
        "unit": first["unit"], "levels": tr.levels,
        "lowest": first["level"], "value_lowest": first["estimate"],
        "highest": last["level"], "value_highest": last["estimate"],
        "slope": tr.slope, "slope_lo": tr.slope - z * tr.slope_se,
        "slope_hi": tr.slope + z * tr.slope_se,
        "change": tr.change, "change_lo": tr.change - z * tr.change_se,
        "change_hi": tr.change + z * tr.change_se,
        "min_value": float(d["estimate"].min()), "max_value": float(d["estimate"].max()),
        "min_level": _level_at(d, "min"), "max_level": _level_at(d, "max"),
        "dispersion": tr.dispersion, "p_slope": tr.p_slope, "p_q": tr.p_q, "p": tr.p,
        "n_per_level": int(d["n"].min()), "n_per_level_max": int(d["n"].max()),
        "paired": tr is not unpaired,
        "change_se": tr.change_se, "change_se_unpaired": unpaired.change_se,
        "change_unpaired_lo": unpaired.change - z * unpaired.change_se,
        "change_unpaired_hi": unpaired.change + z * unpaired.change_se,
        "p_unpaired": unpaired.p, "variance_ratio": ratio,
    }  # fmt: skip


def _level_at(d: pl.DataFrame, which: str) -> str:
    """The level with the smallest / largest value."""
    e = d.filter(pl.col("estimate").is_not_nan() & pl.col("estimate").is_not_null())
    if e.height == 0:
        return ""
    return str(e.sort("estimate", descending=which == "max")["level"][0])


def _value(kind: str, v: float | None, signed: bool = False) -> str:
    if v is None or not math.isfinite(v):
        return "–"
    if kind == "mean":
        return f"{v:+.2f}" if signed else f"{v:.2f}"
    return f"{100 * v:+.1f} points" if signed else f"{100 * v:.1f} %"


def _level_value(kind: str, key: str, v: float) -> str:
    if key == "first_excess" or key.endswith("_effect"):
        return _value(kind, v, signed=True)  # an excess / a slope: signed points
    return _value(kind, v)


def _no_line(r: dict) -> bool:
    """Skill-dependent by the test of any difference (p_q) while the fitted change's interval
    covers 0: the levels differ, but not along the line the change is read from."""
    lo, hi = r.get("change_lo"), r.get("change_hi")
    return lo is not None and hi is not None and lo <= 0 <= hi


def _texts(r: dict, f: Finding) -> tuple[str, str]:
    """The finding's sentence for its verdict (and the table's ``verdict`` word)."""
    pre = f"{r['group']}: " if r["group"] else ""
    kind = r["kind"]
    ends = (  # by rating, not by value: the answer line gives the smallest and largest
        f"{_level_value(kind, r['key'], r['value_lowest'])} at {r['lowest']} (lowest rated) to "
        f"{_level_value(kind, r['key'], r['value_highest'])} at {r['highest']} (highest rated)"
    )
    change = (
        (
            f"fitted change across the ladder {_value(kind, r['change'], True)} "
            f"[{_value(kind, r['change_lo'], True)}, {_value(kind, r['change_hi'], True)}]"
        )
        .replace(" points [", " [")
        .replace(" points, ", ", ")
    )
    n_lo, n_hi = r["n_per_level"], r.get("n_per_level_max", r["n_per_level"])
    per = f"{n_lo:,}{f'–{n_hi:,}' if n_hi != n_lo else ''} {plural(r['unit'])} per level"
    if r["levels"] > 2:
        lo = _level_value(kind, r["key"], r["min_value"])
        hi = _level_value(kind, r["key"], r["max_value"])
        per = f"levels between {lo} ({r['min_level']}) and {hi} ({r['max_level']}); {per}"
    word = WORDS.get(f.verdict or "", "not enough games")
    if f.verdict == stats.CLEAR and _no_line(r):
        word += " (the levels differ, not along a line)"
    clear = f"{pre}{r['measure']} is {word}: {ends}; {change} ({per})."
    if f.verdict == stats.EQUIVALENT:
        unclear = f"{pre}{r['measure']} is {word}: {ends}; {change} ({per})."
    else:
        unclear = f"{pre}{r['measure']}: {ends}; {change} ({per})."
    return clear, unclear


# --- the section --------------------------------------------------------------------------------


@dataclass
class LadderData:
    """What the section is made of: per group (a player count, or "" for one) the ratings
    run and the self-play run of every level."""

    game: str
    levels: list[str]
    rating_runs: dict[str, Path]
    level_runs: dict[str, dict[str, Path]]  # group -> level -> run directory
    notes: list[str] = field(default_factory=list)
    #: extra Answers lines (``--until-decided``: the looks, games per level, the budget)
    answers: list[str] = field(default_factory=list)


def level_ratings(rating_dir: Path, game: str, levels: list[str]) -> tuple[pl.DataFrame, str]:
    """Each level's rating (logit, :func:`cardsim.analysis.compare.ratings` — what ``cardsim compare``
    prints) with its interval, and ``x``: the rating, or the rank where the model separates.
    Returns (table, note)."""
    run = open_run(rating_dir)
    note = ""
    try:
        rt = compare.ratings(run.seats.collect(), game)
        names = rt.table["strategy"].to_list()  # the covariance by level name (JSON text)
        cov = [jsonio.dumps(dict(zip(names, c, strict=True))) for c in rt.cov.tolist()]
        table = rt.table.rename({"strategy": "level"}).with_columns(pl.Series("cov", cov)).select(
            "level", "rating", pl.col("lo").alias("rating_lo"), pl.col("hi").alias("rating_hi"),
            "se", "finite", "bound", pl.lit(rt.units).alias("games_rated"), "cov",
            ((pl.col("rating") == 0) & (pl.col("se") == 0)).alias("reference"),  # issue 45 item 10
        )  # fmt: skip
    except (ValueError, np.linalg.LinAlgError) as e:
        table = pl.DataFrame({"level": levels, "rating": [float("nan")] * len(levels)})
        note = f"no ratings ({e}): the levels are placed at their rank in the order given"
    order = {lv: i for i, lv in enumerate(levels)}
    table = table.with_columns(pl.col("level").replace_strict(order, default=None).alias("_o"))
    table = table.filter(pl.col("_o").is_not_null()).sort("_o").drop("_o")
    ratings = table["rating"].to_numpy().astype(float)
    separated = (
        ~table["finite"].to_numpy() if "finite" in table.columns else np.abs(ratings) > SEPARATION
    )
    if not np.all(np.isfinite(ratings)):
        x = np.arange(table.height, dtype=float)
    elif np.any(separated):
        rank = np.argsort(np.argsort(ratings, kind="stable"), kind="stable")
        x = rank.astype(float)
        note = (
            "one level won (almost) every game against another: the ratings are not finite "
            "(the model separates), so the trend is fitted on the levels' rank by rating "
            "(0, 1, 2, …), not on the rating"
        )
    else:
        x = ratings
    return table.with_columns(pl.Series("x", x)), note


def section(
    data: LadderData, margins: dict[str, float] | None = None, alpha: float = stats.ALPHA
) -> Section:
    """The report section "Does it hold under stronger play?" and its findings (judged)."""
    f = facts_of(data.game)
    sec = Section(
        KEY,
        TITLE,
        "Each level of the ladder is rated on duplicate deals (conditional logit with a "
        "position term, deal-clustered errors, as `cardsim compare`) and plays itself: every "
        "seat plays the level, on the same root seed. Each headline measure is counted once "
        f"per independent unit (a {f.row_unit}"
        + (", clustered by match" if f.row_unit == "round" else "")
        + ") at every level, then regressed on the level's rating (weighted least squares, "
        "weights 1 / SE², statsmodels): the **change across the ladder** is the fitted change "
        "from the lowest- to the highest-rated level. Verdicts (Holm over the ladder's "
        "measures): skill-dependent (the levels clearly differ: the slope, or Cochran's Q for "
        "any difference, Bonferroni-combined), stable across levels (the "
        "change lies within the margin: TOST at 5 %), not enough games — the badges 'clear "
        "difference' and 'equivalent' of the findings below. The levels share "
        "deals (one root seed), so the trend's errors are paired: deal-clustered across the "
        "levels (the unpaired figure, levels taken as independent, is shown beside it).",
    )
    value_rows, rating_frames, by_rank, psi, rated = _read_levels(data, sec)
    if not value_rows:
        sec.notes.append("no level has a self-play run to read")
        return sec
    values = pl.DataFrame(value_rows, infer_schema_length=None)
    trends, found = judge_trends(values, margins, psi, alpha)
    one = len(data.rating_runs) == 1 and "" in data.rating_runs
    drop_group = ["group"] if one else []
    _add_tables(sec, values, trends, rating_frames, one, drop_group)
    groups = list(dict.fromkeys(values["group"].to_list()))
    sec.findings.extend(found)  # row i of the trends table is found[i]; its verdict written above
    for group in groups:
        rows = trends.filter(pl.col("group") == group)
        mine = [f for f, g in zip(found, trends["group"], strict=True) if g == group]
        sec.findings.append(answer_line(group, rows, mine, data.levels, rated.get(group)))
        sec.figures.append(
            Figure(
                f"trend{'-' + group if group else ''}",
                f"{group + ': ' if group else ''}each measure against the level's rating",
                partial(
                    plots.trend_panels,
                    values.filter(pl.col("group") == group),
                    trends.filter(pl.col("group") == group),
                    "level's rank by rating" if group in by_rank else "level's rating (logit)",
                ),
            )
        )
    return sec


def _read_levels(data: LadderData, sec: Section):
    """Every level's rating and self-play values, per group (notes on sec where the ratings separate)."""
    value_rows, rating_frames, by_rank, psi, rated = [], [], [], {}, {}
    for group, rating_dir in data.rating_runs.items():
        rt, note = level_ratings(rating_dir, data.game, data.levels)
        if note:
            sec.notes.append(f"{group + ': ' if group else ''}{note}")
            by_rank.append(group)
        rated[group] = rt
        x_of = dict(zip(rt["level"], rt["x"], strict=True))
        shown = compare.shown_ratings(rt)  # no number for a rating that is not finite
        rating_frames.append(shown.select(pl.lit(group).alias("group"), pl.all()))
        rating_of = {r["level"]: r for r in shown.iter_rows(named=True)}
        for level in data.levels:
            run = open_run(data.level_runs[group][level])
            for v in level_values(run):
                if v.get("psi") is not None:
                    psi[(group, v["key"], level)] = v["psi"]
                rr = rating_of.get(level, {})
                value_rows.append({
                    "group": group, "key": v["key"], "label": v["label"], "kind": v["kind"],
                    "unit": v["unit"], "level": level, "rating": rr.get("rating"),
                    "rating_lo": rr.get("rating_lo"), "rating_hi": rr.get("rating_hi"),
                    "x": float(x_of.get(level, float("nan"))),
                    "estimate": v["estimate"], "estimate_lo": v["lo"], "estimate_hi": v["hi"],
                    "se": v["se"], "n": v["n"],
                })  # fmt: skip
    return value_rows, rating_frames, by_rank, psi, rated


def _add_tables(sec, values, trends, rating_frames, one: bool, drop_group: list[str]) -> None:
    """The ratings, levels and trends tables, and the note on what pairing saved."""
    ratings = pl.concat(rating_frames, how="diagonal_relaxed").drop(drop_group)
    sec.tables.append(
        Table(
            "ratings",
            "Ratings of the levels (conditional logit, logit scale, deal-clustered 95 % CI)",
            ratings.drop([c for c in ("se",) if c in ratings.columns]),
            note="x: where the level sits in the trend (its rating; its rank where the ratings "
            "separate). A rating difference of 1 multiplies the odds of winning by e ≈ 2.7. "
            "bound: what is known of a rating that is not finite (no number is given for it). "
            "The JSON's cov: each rating's covariance with every level's.",
            display=ratings.drop([c for c in ("se", "cov", "finite") if c in ratings.columns]),
            unit="deal",
        )
    )
    shown = values.select(
        *([] if one else ["group"]), pl.col("label").alias("measure"), "level", "rating",
        "estimate", "estimate_lo", "estimate_hi", "n", "unit",
    )  # fmt: skip
    sec.tables.append(
        Table(
            "levels",
            "Each measure at each level (self-play, every seat the level)",
            shown,
            display=_scaled(shown, values["kind"], ("estimate",)),
            note="estimate: a share for rates and excesses (the excess over the fair share and "
            "the per-card effects are differences of win rate), a mean otherwise; n: the "
            "independent units (unit column) of that level's run.",
        )
    )
    shown_trends = _trend_display(trends, drop_group)
    sec.tables.append(
        Table(
            "trends",
            "Trend of each measure on the rating, and its verdict",
            trends.drop(drop_group + ["key"]),
            display=shown_trends,
            note="lowest, highest: the measure at the lowest- and the highest-rated level "
            "(% / points for shares, the mean otherwise: scale column); change: the fitted "
            "change from the lowest- to the highest-rated level (slope × the rating span), "
            "paired by deal (95 % CI); independent: its 95 % CI with the levels taken as independent; "
            "var. ratio: the slope's variance paired ÷ independent (below 1: what playing the "
            "same deals at every level saves); p: Holm-adjusted. The report's JSON keeps the "
            "slope, the dispersion, the margin and the unadjusted p-values.",
        )
    )
    ratios = trends.filter(pl.col("paired"))["variance_ratio"].drop_nans().drop_nulls()
    if ratios.len():
        sec.notes.append(
            "Pairing: every level plays the same deals, so the trend's errors are "
            "deal-clustered across levels (the sandwich of the weighted fit, by deal). The "
            "slope's variance paired ÷ with the levels independent: median "
            f"{ratios.median():.2f} (from {ratios.min():.2f} to {ratios.max():.2f} over "
            f"{ratios.len()} measures);"
            " below 1 the pairing narrows the intervals."
        )


def _trend_display(trends: pl.DataFrame, drop_group: list[str]) -> pl.DataFrame:
    """The trends table as shown: a few narrow columns (measure, the two ends, the paired
    change, the interval with the levels independent, the variance ratio, Holm p, verdict), so
    that it fits a 1280 px page; the JSON keeps every column."""
    share = (trends["kind"] != "mean").to_numpy()
    f = pl.Series(np.where(share, 100.0, 1.0))
    indep = [
        f"[{lo * k:.2f}, {hi * k:.2f}]" if math.isfinite(lo) and math.isfinite(hi) else "–"
        for lo, hi, k in zip(
            trends["change_unpaired_lo"].fill_null(float("nan")),
            trends["change_unpaired_hi"].fill_null(float("nan")),
            f,
            strict=True,
        )
    ]
    return trends.select(
        *[c for c in ("group",) if c not in drop_group],
        "measure",
        pl.col("value_lowest").mul(f).alias("lowest"),
        pl.col("value_highest").mul(f).alias("highest"),
        pl.col("change").mul(f),
        pl.col("change_lo").mul(f),
        pl.col("change_hi").mul(f),
        pl.Series("independent", indep, dtype=pl.String),
        pl.col("variance_ratio").alias("var. ratio"),
        pl.col("p_holm").alias("p"),
        "verdict",
        pl.Series("scale", np.where(share, "%/pts", "mean"), dtype=pl.String),
    )


def _scaled(df: pl.DataFrame, kinds: pl.Series, cols: tuple[str, ...]) -> pl.DataFrame:
    """The table as shown: shares (rates, excesses, per-card effects) in percent / points,
    means as they are, and a ``scale`` column saying which (the JSON keeps the shares)."""
    share = kinds != "mean"
    factor = pl.Series(np.where(share.to_numpy(), 100.0, 1.0))
    out = df.with_columns(
        pl.col(c) * factor
        for col in cols
        for c in (col, f"{col}_lo", f"{col}_hi")
        if c in df.columns
    )
    return out.with_columns(
        pl.Series("scale", np.where(share.to_numpy(), "% / points", "mean"), dtype=pl.String)
    )


def _separated(row: dict) -> bool:
    """Whether a level's rating is not finite (compare's ``finite`` flag, or beyond ±8)."""
    if row.get("finite") is not None:
        return not row["finite"]
    return abs(row["rating"]) > SEPARATION


def _difference_se(ra: dict, rb: dict, a: str, b: str) -> float:
    """The standard error of rating b − rating a: from the fit's covariance where the ratings
    table carries it (``cov``, JSON by level), else as if independent (conservative)."""
    se_a, se_b = (float(r.get("se") or 0.0) for r in (ra, rb))
    cov_ab = json.loads(ra["cov"]).get(b) if ra.get("cov") else None
    if cov_ab is None or not math.isfinite(float(cov_ab)):  # written as null when not finite
        cov_ab = 0.0
    return math.sqrt(max(se_a**2 + se_b**2 - 2 * float(cov_ab), 0.0))


def out_of_order(levels: list[str], ratings: pl.DataFrame | None) -> tuple[list[str], str, bool]:
    """The levels ordered by their rating (lowest first; the given order where ratings are
    missing or tie) and a sentence naming every pair given in the wrong order — a level listed
    before another but rated above it — with the rating difference and whether that is clear
    (its 95 % interval excludes 0) or within noise. The interval of a difference uses the
    rating fit's covariance of the two (the ``cov`` column :func:`level_ratings` writes; without
    it, the two are taken as independent, which is conservative for "clear"). ``""`` when in
    order.
    The flag: whether the levels could be ordered by rating (all rated, finite)."""
    if ratings is None or ratings.height == 0 or "rating" not in ratings.columns:
        return list(levels), "", False
    r = {row["level"]: row for row in ratings.iter_rows(named=True)}
    rating = {lv: r.get(lv, {}).get("rating") for lv in levels}
    if not all(v is not None and math.isfinite(v) for v in rating.values()):
        return list(levels), "", False
    ordered = sorted(levels, key=lambda lv: rating[lv])  # stable: ties keep the given order
    z = ss.norm.ppf(0.975)
    parts = []
    for i, a in enumerate(levels):
        for b in levels[i + 1 :]:
            if rating[a] > rating[b] and (_separated(r[a]) or _separated(r[b])):
                parts.append(
                    f"{b} rated below {a} — clearly weaker (the ratings separate: no finite "
                    "rating, one level won almost every game)"
                )
            elif rating[a] > rating[b]:
                d = rating[b] - rating[a]
                se = _difference_se(r[a], r[b], a, b)
                lo, hi = d - z * se, d + z * se
                clear = hi < 0
                parts.append(
                    f"{b} rated {d:+.2f} [{lo:+.2f}, {hi:+.2f}] (logit) against {a} "
                    + ("— clearly weaker" if clear else "— within noise")
                )
    if not parts:
        return ordered, "", True
    text = "The levels are not in the order given: " + "; ".join(parts) + "."
    return ordered, text, True


def answer_line(
    group: str,
    trends: pl.DataFrame,
    found: list[Finding],
    levels: list[str],
    ratings: pl.DataFrame | None = None,
) -> Finding:
    """The Answers line of one ladder (group): the levels by rating (and which are out of the
    given order, :func:`out_of_order`), the measures under each verdict — the change across
    the ladder of the skill-dependent ones, the games per level the unsettled ones need."""
    pre = f"{group}: " if group else ""
    levels, disorder, rated = out_of_order(levels, ratings)
    stable, trend, unsure = [], [], []
    need = 0.0
    unit = "games"
    unequal = False
    for r, f in zip(trends.iter_rows(named=True), found, strict=True):
        if r["verdict"] == WORDS[stats.CLEAR]:
            lo = _level_value(r["kind"], r["key"], r["min_value"])
            hi = _level_value(r["kind"], r["key"], r["max_value"])
            shape = "; the levels differ, not along a line" if _no_line(r) else ""
            trend.append(
                f"{r['measure']} (smallest {lo} at {r['min_level']}, largest {hi} at "
                f"{r['max_level']}; "
                f"fitted change from the lowest- to the highest-rated level "
                f"{_value(r['kind'], r['change'], True)}{shape})"
            )
        elif r["verdict"] == WORDS[stats.EQUIVALENT]:
            stable.append(r["measure"])
        else:
            unsure.append(r["measure"])
            if f.needed is not None and math.isfinite(f.needed) and f.needed > need:
                need, unit = f.needed, plural(r["unit"])
                unequal = r.get("n_per_level_max", r["n_per_level"]) > r["n_per_level"]
    by = ", by rating" if rated else ", as given (no ratings)"
    text = f"{pre}Does it hold under stronger play ({' → '.join(levels)}{by})?"
    if disorder:
        text += f" {disorder}"
    if stable:
        text += f" Stable across levels: {'; '.join(stable)}."
    if trend:
        text += f" Skill-dependent: {'; '.join(trend)}."
    if unsure:
        text += f" Not enough games for {'; '.join(unsure)}"
        if need:
            where = (
                "at the levels with the fewest (the others in proportion)"
                if unequal
                else "per level"
            )
            text += f" (about {need:,.0f} {unit} {where} would settle them)"
        text += "."
    return Finding(text, kind=FACT, answer=True)


# --- the ladder's report ------------------------------------------------------------------------


def build_ladder_report(
    data: LadderData, margins: dict[str, float] | None = None, alpha: float = stats.ALPHA
):
    """An :class:`cardsim.analysis.report.Report` of the ladder: its configuration (every sub-run), the
    section "Does it hold under stronger play?" and each ratings run's duplicate-deal section
    (judged on its own, as in ``cardsim report``)."""
    from datetime import UTC, datetime

    from cardsim.analysis.io import open_runs
    from cardsim.analysis.report import Report, config_section

    for group, runs in data.level_runs.items():
        missing = [lv for lv in data.levels if lv not in runs]
        if missing:
            raise CardsimError(f"ladder {group}: no self-play run of {', '.join(missing)}")
    dirs = [*data.rating_runs.values(), *(p for g in data.level_runs.values() for p in g.values())]
    runs = open_runs(dirs)
    labels = [Path(d).name for d in dirs]
    warnings = [w for r in runs for w in r.warnings]
    config = config_section(runs, labels, warnings)
    sec = section(data, margins, alpha)
    sec.notes.extend(data.notes)
    sec.findings.extend(Finding(t, kind=FACT, answer=True) for t in data.answers)
    sections, findings = [sec], [(KEY, f) for f in sec.findings]
    for group, d in data.rating_runs.items():  # the ratings run's duplicate-deal section
        run = open_run(d)
        it = RunData(Path(d).name, run, {})
        for name, lf in duplicate.queries(run).items():
            it.data[f"{duplicate.KEY}.{name}"] = lf.collect()
        s = duplicate.section([it])
        verdicts.judge([(s.key, f) for f in s.findings], margins)  # its own family
        verdicts.fill_tables([s])
        s.key = f"duplicate-{Path(d).name}"
        s.title = f"Ratings run: {s.title}" + (f" — {group}" if group else "")
        sections.append(s)
        for f in s.findings:  # the Answers: the ladder's lines and the ratings
            f.answer = f.answer and f.pvalue is None
        findings += [(s.key, f) for f in s.findings]
    return Report(
        game=data.game, runs=runs, labels=labels, config=config, sections=sections,
        findings=findings, warnings=warnings,
        generated=datetime.now(UTC).isoformat(timespec="seconds"), margins=dict(margins or {}),
    )  # fmt: skip


def write_ladder_report(
    data: LadderData, out: Path, margins: dict[str, float] | None = None,
    alpha: float = stats.ALPHA,
) -> tuple[Path, Path]:  # fmt: skip
    """Write the ladder's report to ``out`` (HTML) and its numbers beside it (``.json``)."""
    from cardsim.analysis import render

    report = build_ladder_report(data, margins, alpha)
    out = Path(out)
    try:
        render.write_html(report, out)
        render.write_json(report, out.with_suffix(".json"))
    except OSError as e:
        raise CardsimError(
            f"cannot write the ladder report: {e.strerror or e} ({e.filename})"
        ) from None
    return out, out.with_suffix(".json")
