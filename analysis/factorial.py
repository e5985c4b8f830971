"""Factorial rule studies: designs, the regression per headline measure, verdicts and a report.

A *design* names rule options and their levels. :func:`design_cells` lists its cells: every
combination (full factorial), or a regular two-level fraction 2^(k−p) when asked. Every cell
is a run of the same root seed, so every cell plays the same deals (common random numbers);
the deal (game index) is the cluster of the standard errors.

Per headline measure of the game (its ``facts.headline`` entries that have a per-row
definition declared with the measure, ``cardsim.sim.game.Measure``), one regression over every row of every cell:

- win indicators and other yes/no measures: logistic (statsmodels GLM, Binomial);
- lengths and points: linear (statsmodels WLS on cell means = row-level OLS);

fitted from per-cell sums (:func:`fit_cells`; the same numbers as statsmodels' row-level fit,
:func:`fit_rows`, checked by a test), with the cell's factors as centred dummies (level ``j`` vs the first listed level, the
baseline, minus ``1/K``), so a main-effect coefficient is "level j vs baseline, averaged over
the other factors" and a two-way interaction is the difference of differences. Standard errors
are clustered by deal (CR1). Every term's **effect** is in the measure's own unit (a share:
0.01 = one percentage point; a mean: turns, tricks …) as a **difference of predicted means**
(an average marginal effect, issue 47 item 4): a main effect ``a=x`` is the mean over the
design's cells (weighted by their rows) of the fitted mean with ``a`` set to ``x`` minus that
with ``a`` at its baseline, the other factors as they are; a two-way interaction is the
difference of such differences. Its standard error is the delta method's on the clustered
covariance. On a balanced design whose model is saturated (e.g. one option, or two with their
interaction) the effect is exactly the difference of the cell means; the effects table, the
margins and the verdicts are in that unit. Per-level means (:func:`level_means`) list every
level of every factor — integer levels in numeric order — with its mean over the other
factors and a deal-clustered interval.

Each term gets one of three verdicts (the semantics of docs/report.md, "Verdicts"): **clear
difference** (Holm-adjusted p < 5 % over the terms of one measure), **equivalent within ±m**
(TOST at 5 %), **not enough games** (with the deals per cell needed for TOST at 80 % power).
"""

from __future__ import annotations

import base64
import html
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from cardsim.analysis.model import p_value, plural
from cardsim.analysis.stats import holm, units_to_detect, well_inside
from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameFacts
from scipy import stats as ss
from statsmodels.stats.proportion import proportion_confint

ALPHA = 0.05
POWER = 0.80
CLEAR, EQUIVALENT, NOT_ENOUGH = "clear difference", "equivalent", "not enough games"
#: Default equivalence margins by kind of measure (shares: 0.01 = one percentage point).
DEFAULT_MARGINS = {"binary": 0.01, "continuous": 0.5}


# --- measures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasureDef:
    """How to read one headline measure off a games table, one value per row."""

    kind: str  # "binary" (logistic) or "continuous" (linear)
    value: Callable[[GameFacts], pl.Expr]
    topic: str  # what the Answers line calls it: "first-player advantage", "length", ...


def game_measures(facts: GameFacts) -> list[tuple[str, str, str, MeasureDef]]:
    """(name, label, unit, definition) of every headline measure with a per-row value (each
    declared once, in the game's package: ``cardsim.sim.game.Measure``)."""
    return [
        (m.name, m.label, m.unit, MeasureDef(m.kind, m.value, m.topic or m.label))
        for m in facts.headline
        if m.value is not None and m.factorial
    ]


def declared_margins(facts: GameFacts) -> dict[str, float]:
    """The equivalence margins the game declares with its measures (by measure name)."""
    return {m.name: m.margin for m in facts.headline if m.margin is not None}


# --- designs ----------------------------------------------------------------------------------


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _words(generators: Sequence[int]) -> list[int]:
    """Every word of the defining relation spanned by the generator words (bit masks)."""
    out = []
    for r in range(1, len(generators) + 1):
        for combo in itertools.combinations(generators, r):
            w = 0
            for g in combo:
                w ^= g
            out.append(w)
    return out


def auto_generators(k: int, p: int) -> list[int]:
    """Generator words (bit masks over the k factors) of a 2^(k−p) fraction of high resolution.

    Factor ``k−p+j`` is generated by a product of two or more base factors (the first ``k−p``);
    the words maximise the shortest word of the defining relation (the resolution), then have
    the fewest words of that length (minimum aberration among the candidates searched: all
    combinations when there are at most 200,000, else chosen one generator at a time).
    """
    base = k - p
    if p < 1 or base < 2:
        raise CardsimError(f"a 2^({k}-{p}) fraction needs at least 2 base factors")
    subsets = [
        sum(1 << b for b in subset)
        for size in range(base, 1, -1)
        for subset in itertools.combinations(range(base), size)
    ]
    if len(subsets) < p:
        raise CardsimError(f"no 2^({k}-{p}) fraction: too few base factors")

    def key(masks: Sequence[int]) -> tuple[int, int]:
        words = [m | (1 << (base + j)) for j, m in enumerate(masks)]
        lengths = [_popcount(w) for w in _words(words)]
        return (min(lengths), -lengths.count(min(lengths)))

    if math.comb(len(subsets), p) <= 200_000:
        best = max(itertools.combinations(subsets, p), key=key)
    else:
        best = []
        for _ in range(p):
            best.append(max((m for m in subsets if m not in best), key=lambda m: key([*best, m])))
    return [m | (1 << (base + j)) for j, m in enumerate(best)]


def resolution(generators: Sequence[int]) -> int | None:
    """The resolution (shortest defining word) of a fraction; None for a full factorial."""
    if not generators:
        return None
    return min(_popcount(w) for w in _words(generators))


@dataclass
class DesignSpec:
    """Options and levels of a factorial design (levels are checked option values)."""

    options: dict[str, list]  # option -> levels, the first one the baseline
    fraction: int = 0  # p of a 2^(k-p) fraction (0: full factorial)
    generators: dict[str, str] = field(default_factory=dict)  # factor -> "a*b*c" (optional)
    interactions: bool = True  # estimate two-way interactions
    #: a fold-over: the fraction's cells, then the same cells with these factors' levels
    #: switched (every factor: the full fold-over); empty for a plain design
    foldover: list[str] = field(default_factory=list)

    @property
    def factors(self) -> list[str]:
        return list(self.options)


def parse_generators(spec: DesignSpec) -> list[int]:
    """The generator words of ``spec`` (explicit or automatic), as bit masks over its factors."""
    names = spec.factors
    k, p = len(names), spec.fraction
    if not spec.generators:
        return auto_generators(k, p)
    if len(spec.generators) != p:
        raise CardsimError(
            f"a 2^({k}-{p}) fraction needs {p} generator(s), got {len(spec.generators)}"
        )
    generated = list(spec.generators)
    base = [n for n in names if n not in spec.generators]
    order = base + generated  # generated factors last, as in auto_generators
    words = []
    for j, (factor, product) in enumerate(spec.generators.items()):
        if factor not in names:
            raise CardsimError(f"generator for {factor!r}: not a factor of the design")
        parts = [x.strip() for x in str(product).split("*")]
        bad = [x for x in parts if x not in base]
        if bad or len(parts) < 2:
            raise CardsimError(
                f"generator {factor} = {product!r}: must be a product of two or more base "
                f"factors (base factors: {', '.join(base)})"
            )
        words.append((1 << (len(base) + j)) | sum(1 << base.index(x) for x in parts))
    spec.options = {n: spec.options[n] for n in order}
    return words


def design_cells(spec: DesignSpec) -> list[dict[str, int]]:
    """The cells of a design as {factor: level index}: every combination, or the 2^(k−p)
    fraction (two-level factors only) given by its generators.

    >>> cells = design_cells(DesignSpec({"a": [0, 1], "b": [0, 1], "c": [0, 1]}, fraction=1))
    >>> len(cells), sorted({c["c"] for c in cells})
    (4, [0, 1])
    """
    names = spec.factors
    if not spec.fraction:
        return [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(range(len(v)) for v in spec.options.values()))
        ]
    bad = [n for n, v in spec.options.items() if len(v) != 2]
    if bad:
        raise CardsimError(
            f"a fractional design needs two levels per option; {', '.join(bad)} has another number"
        )
    words = parse_generators(spec)
    names = spec.factors  # generated factors are last
    base = len(names) - spec.fraction
    cells = []
    for combo in itertools.product((0, 1), repeat=base):
        signs = _generated_signs([1 if x else -1 for x in combo], words, base)
        cells.append({n: int(s > 0) for n, s in zip(names, signs, strict=True)})
    if spec.foldover:
        bad = [f for f in spec.foldover if f not in names]
        if bad:
            raise CardsimError(f"foldover: {bad[0]!r} is not a factor of the design")
        cells += [{n: 1 - v if n in spec.foldover else v for n, v in c.items()} for c in cells]
    return cells


def _generated_signs(signs: list[int], words: list[int], base: int) -> list[int]:
    """The base factors' signs (±1), then each generated factor's: the product of the base
    factors in its generator word (bit b: base factor b)."""
    for word in words:
        s = 1
        for b in range(base):
            if word >> b & 1:
                s *= signs[b]
        signs.append(s)
    return signs


# --- aliases ----------------------------------------------------------------------------------

#: alias chains list terms up to this many factors
ALIAS_ORDER = 3


def _mask(spec: DesignSpec, factors: Sequence[str]) -> int:
    return sum(1 << spec.factors.index(f) for f in factors)


def defining_words(spec: DesignSpec) -> list[int]:
    """The words (bit masks over ``spec.factors``) of the design's defining relation ``I = …``:
    those spanned by the generators, less — for a fold-over on the factors S — every word with
    an odd number of letters in S (its sign flips in the folded half, so it cancels).
    Empty for a full factorial."""
    if not spec.fraction:
        return []
    words = _words(parse_generators(spec))
    fold = _mask(spec, spec.foldover)
    if spec.foldover:
        words = [w for w in words if _popcount(w & fold) % 2 == 0]
    return words


def design_resolution(spec: DesignSpec) -> int | None:
    """The shortest defining word (None: no aliasing, a full factorial or a fold-over to one)."""
    words = defining_words(spec)
    return min(_popcount(w) for w in words) if words else None


def mask_name(spec: DesignSpec, mask: int) -> str:
    """A two-level term's name as the report writes it: ``a=x × b=y`` (second levels)."""
    return " × ".join(
        f"{f}={_fmt_level(spec.options[f][-1])}"
        for i, f in enumerate(spec.factors)
        if mask >> i & 1
    )


def alias_chain(spec: DesignSpec, factors: Sequence[str], order: int = ALIAS_ORDER) -> list[int]:
    """Masks of the terms of at most ``order`` factors aliased with the term of ``factors``
    (``term × word`` for every defining word), shortest first."""
    t = _mask(spec, factors)
    out = {t ^ w for w in defining_words(spec)}
    out = [m for m in out if 0 < _popcount(m) <= order]
    return sorted(out, key=lambda m: (_popcount(m), mask_name(spec, m)))


def choose_foldover(spec: DesignSpec, separate: Sequence[int]) -> list[str]:
    """The factors to switch in a fold-over that separates the aliased pairs whose products
    (defining words) are ``separate``: a word cancels when the fold switches an odd number of its
    letters. Candidates: the full fold-over (every factor), each single factor, each pair; the
    one separating the most pairs wins, then the highest resolution of the combined design,
    then the earlier candidate (the full fold-over first)."""
    names = spec.factors
    cands = [list(names), *([f] for f in names), *map(list, itertools.combinations(names, 2))]
    words = _words(parse_generators(spec))

    def key(fold: list[str]) -> tuple[int, int]:
        m = _mask(spec, fold)
        split = sum(1 for w in separate if _popcount(w & m) % 2)
        left = [w for w in words if _popcount(w & m) % 2 == 0]
        return split, min((_popcount(w) for w in left), default=len(names) + 1)

    return max(cands, key=key)


# --- the model matrix ---------------------------------------------------------------------------


def _fmt_level(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


@dataclass
class Term:
    name: str  # "a=x" or "a=x × b=y"
    factors: tuple[str, ...]
    levels: tuple[str, ...]
    order: int  # 1 main effect, 2 two-way interaction


def model_terms(
    spec: DesignSpec, cells: list[dict[str, int]]
) -> tuple[np.ndarray, list[Term], list[str]]:
    """Cell-level model matrix (intercept first) of main effects and, if asked, two-way
    interactions in centred-dummy coding; terms aliased with earlier ones are left out and
    named in the returned notes."""
    cols = [np.ones(len(cells))]
    terms: list[Term] = []
    mains: dict[str, list[tuple[np.ndarray, str]]] = {}
    for f, levels in spec.options.items():
        k = len(levels)
        mains[f] = []
        for j in range(1, k):
            x = np.array([(c[f] == j) - 1.0 / k for c in cells])
            mains[f].append((x, _fmt_level(levels[j])))
            cols.append(x)
            terms.append(Term(f"{f}={_fmt_level(levels[j])}", (f,), (_fmt_level(levels[j]),), 1))
    if spec.interactions:
        for f, g in itertools.combinations(spec.factors, 2):
            for xf, lf in mains[f]:
                for xg, lg in mains[g]:
                    cols.append(xf * xg)
                    terms.append(Term(f"{f}={lf} × {g}={lg}", (f, g), (lf, lg), 2))
    kept_cols, kept_terms, notes = [cols[0]], [], []
    names = ["intercept"]
    for x, t in zip(cols[1:], terms, strict=True):
        trial = np.column_stack([*kept_cols, x])
        if np.linalg.matrix_rank(trial, tol=1e-9) < trial.shape[1]:
            partner = next(
                (n for c, n in zip(kept_cols, names, strict=True) if abs(_corr(c, x)) > 1 - 1e-9),
                "a combination of other terms",
            )
            notes.append(f"{t.name} is aliased with {partner} (not estimated)")
            continue
        kept_cols.append(x)
        kept_terms.append(t)
        names.append(t.name)
    return np.column_stack(kept_cols), kept_terms, notes


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    if np.std(a) == 0 or np.std(b) == 0:
        return 1.0 if np.std(b) == 0 else 0.0
    return float(np.corrcoef(a, b)[0, 1])


# --- verdicts -------------------------------------------------------------------------------------


def tost_p(estimate: float, se: float, margin: float) -> float:
    """Two one-sided tests of ``|effect| < margin`` (normal): the larger one-sided p."""
    if not (np.isfinite(estimate) and np.isfinite(se)) or margin <= 0:
        return float("nan")
    if se == 0:
        return 0.0 if abs(estimate) < margin else 1.0
    return float(max(ss.norm.sf((estimate + margin) / se), ss.norm.cdf((estimate - margin) / se)))


def units_needed(se: float, n: float, margin: float) -> float:
    """Units for TOST at 5 % to show ``|effect| < margin`` with 80 % power if the effect is 0,
    scaled from this sample's ``se`` at ``n`` units."""
    if not (np.isfinite(se) and se > 0 and n > 0 and margin > 0):
        return float("nan")
    z = ss.norm.ppf(1 - ALPHA) + ss.norm.ppf(1 - (1 - POWER) / 2)
    return float(np.ceil(n * (z * se / margin) ** 2))


def verdict(
    estimate: float, se: float, p_adjusted: float, margin: float, n: float
) -> tuple[str, float, float]:
    """(verdict, TOST p, units needed) with the semantics of the report's verdicts: clear if
    the Holm-adjusted p < 5 %, else equivalent if TOST p < 5 %, else not enough games."""
    if not (np.isfinite(se) and se > 0) and estimate != 0:
        # a standard error of 0 (or none) is no evidence either way: neither clear nor equivalent
        return NOT_ENOUGH, float("nan"), float("nan")
    if np.isfinite(p_adjusted) and p_adjusted < ALPHA:
        return CLEAR, float("nan"), float("nan")
    pt = tost_p(estimate, se, margin)
    if np.isfinite(pt) and pt < ALPHA:
        return EQUIVALENT, pt, float("nan")
    return NOT_ENOUGH, pt, units_needed(se, n, margin)


# --- the regression -----------------------------------------------------------------------------


@dataclass
class Effect:
    measure: str
    term: str
    order: int
    coef: float  # model scale: log-odds (logistic) or the measure's unit (linear)
    coef_se: float
    effect: float  # natural scale: share (logistic) or the measure's unit
    lo: float
    hi: float
    se: float
    p: float
    p_holm: float
    verdict: str
    margin: float
    p_tost: float
    deals_needed: float  # deals per cell for TOST at 80 % power (not enough games)
    #: deals per cell to detect the observed effect at 80 % power (two-sided 5 %), given with
    #: ``deals_needed`` when the effect is not well inside the margin (|effect| > margin / 2)
    deals_to_detect: float = float("nan")
    #: terms of up to three factors aliased with this one (the fraction's alias chain)
    aliases: list[str] = field(default_factory=list)
    #: of those, interactions of factors whose own main effects are clear: a clear term may be
    #: theirs ("clear, but aliased with …"; the fold-over separates them)
    confounded: list[str] = field(default_factory=list)

    @property
    def verdict_text(self) -> str:
        if self.verdict == CLEAR and self.confounded:
            return f"clear, but aliased with {' and '.join(self.confounded)}"
        return self.verdict


@dataclass
class MeasureResult:
    name: str
    label: str
    unit: str
    kind: str
    topic: str
    mean: float
    rows: int
    deals: int
    effects: list[Effect]
    #: why the effects are not the regression's (few events or a separating logistic fit:
    #: cell-mean differences with exact intervals instead, :func:`sparse_effects`); "" if fitted
    fallback: str = ""
    #: per factor and level (integer levels in numeric order): the measure's mean and interval
    levels: list[dict] = field(default_factory=list)


@dataclass
class FactorialResult:
    design: str
    game: str
    factors: dict[str, list[str]]
    cells: int
    deals_per_cell: int
    fraction: int
    resolution: int | None
    aliased: list[str]
    measures: list[MeasureResult]
    cell_means: dict[str, list[dict]] = field(default_factory=dict)  # measure -> rows per cell
    #: measures with one value in every row of every cell: (name, label, unit, value)
    constant: list[tuple[str, str, str, float]] = field(default_factory=list)
    foldover: list[str] = field(default_factory=list)  # this design's fold-over factors
    #: the fold-over that separates the clear-but-aliased terms (factors to switch), if any
    suggested_foldover: list[str] = field(default_factory=list)
    foldover_file: str | None = None  # the ready study file of that fold-over

    def to_json(self) -> str:
        """Strict JSON: a number that is not finite (an estimate that does not exist) is
        ``null``, never a bare ``NaN`` token (``allow_nan=False`` enforces it)."""
        return jsonio.dumps(_finite(asdict(self)), indent=2)


def _finite(v):
    """``v`` with every non-finite float (NumPy's too) replaced by None, recursively."""
    if isinstance(v, float | np.floating):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_finite(x) for x in v]
    return v


def fit_rows(y: np.ndarray, x: np.ndarray, groups: np.ndarray, kind: str):
    """The row-level statsmodels fit with deal-clustered SEs (the reference for
    :func:`fit_cells`; memory grows with rows × terms)."""
    import statsmodels.api as sm

    kw = {"cov_type": "cluster", "cov_kwds": {"groups": groups}}
    if kind == "binary":
        return sm.GLM(y, x, family=sm.families.Binomial()).fit(**kw)
    return sm.OLS(y, x).fit(**kw)


@dataclass
class Fit:
    params: np.ndarray
    bse: np.ndarray
    pvalues: np.ndarray
    cov: np.ndarray | None = None  # the deal-clustered covariance of ``params``


def fit_cells(
    y: np.ndarray, cell: np.ndarray, deal: np.ndarray, xcell: np.ndarray, kind: str
) -> Fit:
    """The same fit as :func:`fit_rows`, from per-cell sums: every row of a cell has the same
    regressors, so the row-level likelihood (logistic) or least squares (linear) equals the
    cell-level one weighted by the cell's rows (statsmodels GLM with ``var_weights`` / WLS).
    The deal-clustered (CR1) covariance needs only per-deal score sums
    ``s_g = Σ_c x_c Σ_{i ∈ g, c} (y_i − ŷ_c)``: a deals × cells matrix of residual sums times
    the cell matrix. Memory: deals × cells, not rows × terms."""
    import statsmodels.api as sm

    n_cells, k = xcell.shape
    n = np.bincount(cell, minlength=n_cells).astype(float)
    sy = np.bincount(cell, weights=y, minlength=n_cells)
    keep = n > 0
    means = sy[keep] / n[keep]
    import warnings

    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

    with warnings.catch_warnings():
        # Cell means fitted exactly (an option without effect, a saturated model) is not
        # separation, and the fit's own scale (df_resid may be 0) is not used: the covariance
        # is the clustered one below.
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        if kind == "binary":
            res = sm.GLM(
                means, xcell[keep], family=sm.families.Binomial(), var_weights=n[keep]
            ).fit()
            fitted = 1.0 / (1.0 + np.exp(-(xcell @ res.params)))
            w = n * fitted * (1.0 - fitted)
        else:
            res = sm.WLS(means, xcell[keep], weights=n[keep]).fit()
            fitted = xcell @ res.params
            w = n
    params = np.asarray(res.params)
    _, g_idx = np.unique(deal, return_inverse=True)
    groups = int(g_idx.max()) + 1
    resid = np.bincount(
        g_idx * n_cells + cell, weights=y - fitted[cell], minlength=groups * n_cells
    ).reshape(groups, n_cells)
    scores = resid @ xcell
    bread = np.linalg.pinv((xcell * w[:, None]).T @ xcell)
    rows = y.size
    correction = groups / (groups - 1) * (rows - 1) / (rows - k) if groups > 1 else np.nan
    cov = bread @ (scores.T @ scores) @ bread * correction
    bse = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * ss.norm.sf(np.abs(params / bse))
    return Fit(params, bse, p, cov)


def analyse(
    spec: DesignSpec,
    cells: list[dict[str, int]],
    tables: Sequence[pl.DataFrame | pl.LazyFrame],
    facts: GameFacts,
    *,
    name: str = "design",
    game: str = "",
    margins: Mapping[str, float] | None = None,
    deal_column: str = "game",
) -> FactorialResult:
    """Fit every readable headline measure over the games tables of the cells (one table per
    cell, in ``cells`` order) and give each term its effect, interval and verdict.

    ``margins``: equivalence margins by measure name or by kind ("binary", "continuous").
    """
    if len(tables) != len(cells):
        raise CardsimError(f"{len(cells)} cells but {len(tables)} tables")
    xcell, terms, notes = model_terms(spec, cells)
    measures = game_measures(facts)
    if not measures:
        raise CardsimError(f"game {game!r} declares no headline measure the analysis can read")
    exprs = [d.value(facts).cast(pl.Float64).alias(m) for m, _, _, d in measures]
    data, deals_per_cell = _read_cells(tables, deal_column, exprs)
    m = {**DEFAULT_MARGINS, **declared_margins(facts), **(margins or {})}
    out_measures, cell_means, constant = [], {}, []
    for mname, label, unit, d in measures:
        sub = data.select("_deal", "_cell", mname).drop_nulls(mname)
        y = sub[mname].to_numpy()
        cell_idx = sub["_cell"].to_numpy()
        groups = sub["_deal"].to_numpy()
        mean = float(y.mean()) if y.size else float("nan")
        means = (
            sub.group_by("_cell")
            .agg(pl.col(mname).mean().alias("mean"), pl.col(mname).std().alias("sd"), pl.len())
            .sort("_cell")
        )
        cell_means[mname] = [
            {**{f: _fmt_level(spec.options[f][cells[r["_cell"]][f]]) for f in spec.factors}, **r}
            for r in means.to_dicts()
        ]
        if y.size == 0 or np.unique(y).size < 2:  # nothing varies (e.g. no round ever ends
            constant.append((mname, label, unit, float(y[0]) if y.size else float("nan")))
            continue  # without a winner): no regression, a line in the Answers
        margin = float(m.get(mname, m[d.kind]))
        n_deals = int(np.unique(groups).size)
        effects, fallback = _measure_effects(
            mname, unit, d.kind, y, cell_idx, groups, xcell, terms, margin, n_deals, spec, cells
        )
        levels = level_means(spec, cells, y, cell_idx, groups)
        _name_aliases(spec, terms, effects)
        effects.sort(key=lambda e: -abs(e.effect))
        out_measures.append(
            MeasureResult(
                mname,
                label,
                unit,
                d.kind,
                d.topic,
                mean,
                int(y.size),
                n_deals,
                effects,
                fallback,
                levels,
            )  # fmt: skip
        )
    res_ = design_resolution(spec) if spec.fraction else None
    suggested = _suggested_foldover(spec, terms, out_measures)
    return FactorialResult(
        name, game, {f: [_fmt_level(v) for v in lv] for f, lv in spec.options.items()},
        len(cells), deals_per_cell, spec.fraction, res_, notes, out_measures, cell_means,
        constant, list(spec.foldover), suggested,
    )  # fmt: skip


def _measure_effects(mname, unit, kind, y, cell_idx, groups, xcell, terms, margin, n_deals,
                     spec: DesignSpec, cells: list[dict[str, int]]):  # fmt: skip
    """The terms' effects from the regression (differences of predicted means,
    :func:`marginal_effects`) or, for a yes/no measure whose logistic fit cannot be trusted
    (:func:`sparse_reason`), from cell-mean differences with exact intervals
    (:func:`sparse_effects`). Returns (effects, why the fallback was taken or "")."""
    res = fit_cells(y, cell_idx, groups, xcell, kind)
    coef = np.asarray(res.params)[1:]
    se = np.asarray(res.bse)[1:]
    p = np.asarray(res.pvalues)[1:]
    coef, se, p = _exact_zeros(coef, se, p)
    if kind == "binary":
        why = sparse_reason(y, coef, se, len(terms), unit)
        if why:
            return sparse_effects(mname, terms, xcell, y, cell_idx, margin, n_deals), why
    weights = np.bincount(cell_idx, minlength=xcell.shape[0]).astype(float)
    ame, ame_se = marginal_effects(spec, cells, terms, res, kind, weights)
    ame, ame_se, _ = _exact_zeros(ame, ame_se, p)
    return _effects(mname, terms, coef, se, ame, ame_se, margin, n_deals), ""


def _level_of(spec: DesignSpec, factor: str, level: str) -> int:
    """The index of ``level`` (as the report writes it) among ``factor``'s levels."""
    return [_fmt_level(v) for v in spec.options[factor]].index(level)


def model_row(spec: DesignSpec, cell: Mapping[str, int], terms: list[Term]) -> np.ndarray:
    """The model-matrix row of a cell (:func:`model_terms`' centred-dummy coding): the
    intercept, then each kept term's product of ``(level == j) − 1/K`` over its factors."""
    row = [1.0]
    for t in terms:
        x = 1.0
        for f, lv in zip(t.factors, t.levels, strict=True):
            x *= (cell[f] == _level_of(spec, f, lv)) - 1.0 / len(spec.options[f])
        row.append(x)
    return np.array(row)


def predicted_mean(
    spec: DesignSpec,
    cells: list[dict[str, int]],
    terms: list[Term],
    beta: np.ndarray,
    kind: str,
    weights: np.ndarray,
    settings: list[tuple[float, dict[str, int]]],
) -> tuple[float, np.ndarray]:
    """``Σ_s sign_s · mean over cells (weights) of the fitted mean with the factors of setting s
    fixed`` and its gradient in ``beta`` (for the delta method). A setting fixes some factors at
    level indices; the cell keeps its own levels of the others."""
    w = weights / weights.sum()
    est, grad = 0.0, np.zeros(beta.size)
    for sign, fixed in settings:
        x = np.array([model_row(spec, {**c, **fixed}, terms) for c in cells])
        eta = x @ beta
        if kind == "binary":
            mu = 1.0 / (1.0 + np.exp(-eta))
            d = mu * (1.0 - mu)
        else:
            mu, d = eta, np.ones_like(eta)
        est += sign * float(w @ mu)
        grad += sign * (w * d) @ x
    return est, grad


def marginal_effects(spec, cells, terms, fit: Fit, kind: str, weights: np.ndarray):
    """Every term's average marginal effect (a difference of predicted means, see the module
    docstring) and its delta-method standard error on the fit's clustered covariance."""
    beta = np.asarray(fit.params)
    est, se = [], []
    for t in terms:
        idx = {f: _level_of(spec, f, lv) for f, lv in zip(t.factors, t.levels, strict=True)}
        settings = []
        for r in range(len(t.factors) + 1):
            for on in itertools.combinations(t.factors, r):
                fixed = {f: (idx[f] if f in on else 0) for f in t.factors}
                settings.append(((-1.0) ** (len(t.factors) - r), fixed))
        e, g = predicted_mean(spec, cells, terms, beta, kind, weights, settings)
        est.append(e)
        se.append(float(np.sqrt(max(g @ fit.cov @ g, 0.0))) if fit.cov is not None else np.nan)
    return np.array(est), np.array(se)


def numeric_order(levels: Sequence[str]) -> list[str]:
    """``levels`` in numeric order when every one is an integer, else as given (issue 47
    item 4: 30, 60, 90, 120 — not the baseline first).

    >>> numeric_order(["60", "30", "120", "90"]), numeric_order(["stay", "jump"])
    (['30', '60', '90', '120'], ['stay', 'jump'])
    """
    if levels and all(str(v).lstrip("-").isdigit() for v in levels):
        return sorted(levels, key=int)
    return list(levels)


def level_means(
    spec: DesignSpec, cells: list[dict[str, int]], y: np.ndarray, cell_idx: np.ndarray,
    deal: np.ndarray,
) -> list[dict]:  # fmt: skip
    """Per factor and level (integer levels in numeric order): the measure's mean over every
    row of the cells at that level (over the other factors: balanced designs weigh them
    alike), with a 95 % interval clustered by deal (CR1)."""
    z = ss.norm.ppf(1 - ALPHA / 2)
    _, g_idx = np.unique(deal, return_inverse=True)
    out = []
    for f, levels in spec.options.items():
        shown = [_fmt_level(v) for v in levels]
        for lv in numeric_order(shown):
            at = np.array([c[f] == shown.index(lv) for c in cells])[cell_idx]
            n = int(at.sum())
            mean = float(y[at].mean()) if n else float("nan")
            s = np.bincount(g_idx[at], weights=y[at] - mean)
            g = int(np.count_nonzero(np.bincount(g_idx[at])))
            se = float(np.sqrt(g / (g - 1) * (s**2).sum()) / n) if g > 1 else float("nan")
            out.append({"factor": f, "level": lv, "mean": mean, "lo": mean - z * se,
                        "hi": mean + z * se, "rows": n})  # fmt: skip
    return out


#: the logistic fit needs at least this many of the rarer outcome per estimated term
EVENTS_PER_TERM = 10
#: a log-odds coefficient beyond this is a separating fit, not an estimate
COEF_BOUND = 10.0


def sparse_reason(y: np.ndarray, coef: np.ndarray, se: np.ndarray, n_terms: int, unit: str) -> str:
    """Why a logistic fit of the 0/1 ``y`` cannot be trusted ("" when it can): fewer than
    :data:`EVENTS_PER_TERM` of the rarer outcome per estimated term, a standard error of 0 (for
    a coefficient that is not exactly 0) or not finite, or a coefficient beyond
    ±:data:`COEF_BOUND` log-odds — the marks of a fit that separates (issue 45 item 1)."""
    ones = int(np.sum(y))
    events = min(ones, y.size - ones)
    if events < EVENTS_PER_TERM * n_terms:
        return (
            f"only {events:,} of {y.size:,} {plural(unit)} have the rarer outcome, fewer than "
            f"{EVENTS_PER_TERM} per estimated term ({n_terms} terms)"
        )
    if not np.all(np.isfinite(coef) & np.isfinite(se)) or np.any((se <= 0) & (coef != 0)):
        return "the logistic fit separates (a standard error of 0 or not finite)"
    if np.any(np.abs(coef) > COEF_BOUND):
        return f"the logistic fit separates (a coefficient beyond ±{COEF_BOUND:g} log-odds)"
    return ""


def sparse_effects(
    mname: str,
    terms: list[Term],
    xcell: np.ndarray,
    y: np.ndarray,
    cell_idx: np.ndarray,
    margin: float,
    n_deals: int,
) -> list[Effect]:
    """Each term's effect on the share scale as a difference of cell means (the linear
    probability model's coefficient: cells weighted by their rows), with an exact interval:
    the cells the contrast counts positively (P) and negatively (M) are pooled, each pooled
    rate gets its Clopper–Pearson interval at 97.5 %, and the effect lies between
    ``S·L_P − S·U_M`` and ``S·U_P − S·L_M`` with at least 95 % (Bonferroni; ``S`` the
    contrast's weight per group — exact pooling for balanced designs, where every cell has
    the same rows). p: Fisher's exact test of P against M, Holm over the measure's terms.
    "Equivalent" needs the whole interval inside ±margin. Common deals correlate the cells
    positively, which makes these independent-sample intervals conservative."""
    n_cells = xcell.shape[0]
    n = np.bincount(cell_idx, minlength=n_cells).astype(float)
    x = np.bincount(cell_idx, weights=y, minlength=n_cells)
    keep = n > 0
    xk = xcell[keep]
    contrast = np.linalg.pinv((xk * n[keep, None]).T @ xk) @ (xk * n[keep, None]).T
    means = x[keep] / n[keep]
    rows = [_sparse_term(a, means, n[keep], x[keep]) for a in contrast[1:]]
    padj = holm(np.array([r[3] for r in rows]))
    effects = []
    for t, (est, lo, hi, pv, se), pa in zip(terms, rows, padj, strict=True):
        if pa < ALPHA and (lo > 0 or hi < 0):
            v, need = CLEAR, float("nan")
        elif -margin < lo and hi < margin:
            v, need = EQUIVALENT, float("nan")
        else:
            v, need = NOT_ENOUGH, units_needed(se, n_deals, margin)
        nan = float("nan")
        effects.append(
            Effect(mname, t.name, t.order, nan, nan, est, lo, hi, se, pv, float(pa), v, margin,
                   nan, need)
        )  # fmt: skip
    for e in effects:
        if e.verdict == NOT_ENOUGH and not well_inside(e.effect, margin):
            e.deals_to_detect = units_to_detect(e.effect, e.se, n_deals)
    return effects


def _sparse_term(a: np.ndarray, means: np.ndarray, n: np.ndarray, x: np.ndarray):
    """(effect, lo, hi, p, se) of the contrast ``a`` of cell means (see :func:`sparse_effects`)."""
    pos, neg = a > 1e-12, a < -1e-12
    est = float(a @ means)
    if not pos.any() or not neg.any():
        return est, float("nan"), float("nan"), 1.0, float("nan")
    s = float(a[pos].sum())
    n_p, x_p, n_m, x_m = n[pos].sum(), x[pos].sum(), n[neg].sum(), x[neg].sum()
    lo_p, hi_p = _clopper_pearson(x_p, n_p, ALPHA / 2)
    lo_m, hi_m = _clopper_pearson(x_m, n_m, ALPHA / 2)
    p = float(ss.fisher_exact([[x_p, n_p - x_p], [x_m, n_m - x_m]])[1])
    rate = (x_p + x_m) / (n_p + n_m)
    se = s * math.sqrt(max(rate * (1 - rate), 1e-12) * (1 / n_p + 1 / n_m))
    return est, s * (lo_p - hi_m), s * (hi_p - lo_m), p, se


def _clopper_pearson(k: float, n: float, alpha: float) -> tuple[float, float]:
    """The exact (Clopper–Pearson) two-sided ``1 − alpha`` interval of a binomial rate
    (statsmodels' ``beta`` method: 0 and 1 at the ends)."""
    lo, hi = proportion_confint(k, n, alpha=alpha, method="beta")
    return float(lo), float(hi)


def _read_cells(tables, deal_column: str, exprs: list) -> tuple[pl.DataFrame, int]:
    """Every cell's measures in one frame (``_deal``, ``_cell``); the fewest deals of a cell."""
    frames = []
    for i, t in enumerate(tables):
        lf = t.lazy() if isinstance(t, pl.DataFrame) else t
        frames.append(
            lf.select(pl.col(deal_column).alias("_deal"), *exprs)
            .with_columns(pl.lit(i, pl.Int32).alias("_cell"))
            .collect()
        )
    data = pl.concat(frames)
    deals_per_cell = int(min(f.height for f in frames)) if frames else 0
    return data, deals_per_cell


def _exact_zeros(coef: np.ndarray, se: np.ndarray, p: np.ndarray):
    # Common deals: a term that changes no deal's outcome is exactly 0 with SE 0; the fit
    # leaves rounding noise (~1e-14) whose "z" is meaningless. Call it 0 (p = 1).
    tol = 1e-9 * (float(np.abs(coef).max()) + 1.0)
    exact = (np.abs(coef) < tol) & (se < tol)
    coef, se, p = np.where(exact, 0.0, coef), np.where(exact, 0.0, se), np.where(exact, 1.0, p)
    return coef, se, p


def _effects(mname, terms, coef, se, ame, ame_se, margin: float, n_deals: int) -> list[Effect]:
    """Each term's effect in the measure's unit (``ame``: a difference of predicted means, its
    standard error ``ame_se``), its interval, its p (z of the effect), Holm-adjusted p over the
    measure's terms and verdict; ``coef`` and ``se`` are the model's coefficients."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(ame_se > 0, 2 * ss.norm.sf(np.abs(ame / ame_se)), np.where(ame == 0, 1.0, 0.0))
    padj = holm(p)
    effects = []
    z = ss.norm.ppf(1 - ALPHA / 2)
    for t, b, s, est, sen, pv, pa in zip(terms, coef, se, ame, ame_se, p, padj, strict=True):
        v, pt, need = verdict(est, sen, pa, margin, n_deals)
        effects.append(
            Effect(
                mname,
                t.name,
                t.order,
                float(b),
                float(s),
                float(est),
                float(est - z * sen),
                float(est + z * sen),
                float(sen),
                float(pv),
                float(pa),
                v,
                margin,
                pt,
                need,
            )  # fmt: skip
        )
    for e in effects:
        if e.verdict == NOT_ENOUGH and not well_inside(e.effect, margin):
            e.deals_to_detect = units_to_detect(e.effect, e.se, n_deals)
    return effects


def _suggested_foldover(spec: DesignSpec, terms, out_measures) -> list:
    """A foldover that separates every clear effect from its aliases (none when already folded)."""
    separate = [
        _mask(spec, t.factors) ^ _mask(spec, _factors_of(c))
        for mr in out_measures
        for e in mr.effects
        if e.verdict == CLEAR
        for c in e.confounded
        for t in terms
        if t.name == e.term
    ]
    if not separate and not spec.foldover and _mains_all_aliased(spec, terms):
        # resolution III, every main effect aliased with a two-factor interaction: the full
        # fold-over (resolution IV) frees them all (issue 45 item 9)
        separate = [w for w in defining_words(spec) if _popcount(w) == 3]
    suggested = choose_foldover(spec, separate) if separate and not spec.foldover else []
    return suggested


def _mains_all_aliased(spec: DesignSpec, terms) -> bool:
    """Whether every main effect of a fraction is aliased with a two-factor interaction."""
    if not spec.fraction or design_resolution(spec) != 3:
        return False
    return all(
        any(_popcount(m) == 2 for m in alias_chain(spec, t.factors)) for t in terms if t.order == 1
    )


def _factors_of(term: str) -> list[str]:
    return [part.split("=")[0] for part in term.split(" × ")]


def _name_aliases(spec: DesignSpec, terms: list[Term], effects: list[Effect]) -> None:
    """Give every effect of a fraction its alias chain (up to three-factor terms) and, for a
    clear one, the aliases that are interactions of factors whose main effects are clear."""
    if not spec.fraction:
        return
    clear_mains = {t.factors[0] for t, e in zip(terms, effects, strict=True)
                   if t.order == 1 and e.verdict == CLEAR}  # fmt: skip
    for t, e in zip(terms, effects, strict=True):
        chain = alias_chain(spec, t.factors)
        e.aliases = [mask_name(spec, m) for m in chain]
        if e.verdict == CLEAR:
            e.confounded = [
                mask_name(spec, m)
                for m in chain
                if _popcount(m) >= 2
                and all(f in clear_mains for i, f in enumerate(spec.factors) if m >> i & 1)
            ]


# --- the report -----------------------------------------------------------------------------------


def _fmt_effect(e: Effect, kind: str) -> str:
    if kind == "binary":
        return f"{100 * e.effect:+.2f} points [{100 * e.lo:+.2f}, {100 * e.hi:+.2f}]"
    return f"{e.effect:+.3g} [{e.lo:+.3g}, {e.hi:+.3g}]"


def _fmt_size(e: Effect, mr: MeasureResult) -> str:
    if mr.kind == "binary":
        return f"{100 * e.effect:+.2f} points"
    return f"{e.effect:+.3g} per {mr.unit}"


def _margin_text(mr: MeasureResult, margin: float) -> str:
    if mr.kind != "binary":
        return f"±{margin:g}"
    return f"±{100 * margin:g} point{'' if 100 * margin == 1 else 's'}"


def answers(result: FactorialResult) -> list[str]:
    """One sentence per measure: which terms clearly matter (largest first), which are
    equivalent to no effect, which need more games."""
    lines = []
    for mr in result.measures:
        equiv = [e for e in mr.effects if e.verdict == EQUIVALENT]
        unsure = [e for e in mr.effects if e.verdict == NOT_ENOUGH]
        text = _clear_text(mr)
        margin = mr.effects[0].margin if mr.effects else DEFAULT_MARGINS[mr.kind]
        if equiv:
            text += (
                f" Equivalent to no effect within {_margin_text(mr, margin)}: {len(equiv)} term(s)"
            )
            text += f" ({', '.join(e.term for e in equiv[:4])}{', …' if len(equiv) > 4 else ''})."
        if unsure:
            text += _unsure_text(mr, unsure, margin)
        lines.append(text)
    for _, label, unit, value in result.constant:
        lines.append(
            f"{label} (per {unit}) is {value:g} in every {unit} of every cell: no option changes it."
        )
    confounded = any(e.confounded for mr in result.measures for e in mr.effects)
    if result.suggested_foldover and not confounded:
        lines.append(
            f"Resolution III: every main effect is aliased with a two-factor interaction; the "
            f"fold-over on {', '.join(result.suggested_foldover)} separates them"
            + (f" ({result.foldover_file})." if result.foldover_file else ".")
        )
    return lines


def _clear_text(mr: MeasureResult) -> str:
    """The answer's head (the measure, its unit and mean) and its clear terms: those alone,
    then those aliased with an interaction of clear options."""
    clear = [e for e in mr.effects if e.verdict == CLEAR]
    head = f"What matters for {mr.topic} ({mr.label}, per {mr.unit}"
    head += f", mean {100 * mr.mean:.1f} %)" if mr.kind == "binary" else f", mean {mr.mean:.3g})"
    if mr.fallback:
        head += (
            f" [{mr.fallback}: no logistic fit; effects are cell-mean differences with exact "
            "binomial intervals]"
        )
    plain = [e for e in clear if not e.confounded]
    mixed = [e for e in clear if e.confounded]
    if plain:
        body = "; ".join(f"{e.term} {_fmt_effect(e, mr.kind)}" for e in plain[:5])
        if len(plain) > 5:
            body += f"; and {len(plain) - 5} more clear term(s)"
        text = f"{head}: {body} (clear)."
    elif not mixed:
        text = f"{head}: no option or interaction clearly matters."
    else:
        text = f"{head}:"
    if mixed:
        text += " Clear, but aliased with an interaction of clear options (the fraction cannot "
        text += "tell them apart; the fold-over can): " + "; ".join(
            f"{e.term} {_fmt_effect(e, mr.kind)} (or {' or '.join(e.confounded)})" for e in mixed
        )
        text += "."
    return text


def _unsure_text(mr: MeasureResult, unsure: list[Effect], margin: float) -> str:
    """The answer's sentence on the terms with not enough games: the deals per cell that would
    show them equivalent, and those that would detect the observed effect most in doubt."""
    need = max((e.deals_needed for e in unsure if math.isfinite(e.deals_needed)), default=0)
    text = f" Not enough games for {len(unsure)} term(s)"
    if need:
        text += (
            f" (about {need:,.0f} deals per cell would show them equivalent within "
            f"{_margin_text(mr, margin)} if they are 0"
        )
        far = [e for e in unsure if math.isfinite(e.deals_to_detect)]
        if far:
            e = max(far, key=lambda x: x.deals_to_detect)
            text += (
                f"; about {e.deals_to_detect:,.0f} deals per cell would detect the "
                f"observed {_fmt_size(e, mr)} of {e.term} at 80 % power (unadjusted: a "
                "two-sided 5 % test, if the observed effect is the true one; Holm needs more)"
                + (
                    f" ({len(far)} terms are not well inside the margin; this is the "
                    "one needing most)"
                    if len(far) > 1
                    else ""
                )
            )
        text += ")"
    return text + "."


def interaction_plot(result: FactorialResult, measure: str, term: Effect) -> bytes:
    """PNG: the measure's mean by the first factor's levels, one line per level of the second
    (averaged over the other factors; 95 % intervals of the cell-group means)."""
    from cardsim.analysis import plots

    f, g = (part.split("=")[0] for part in term.term.split(" × "))
    rows = pl.DataFrame(result.cell_means[measure])
    agg = (
        rows.group_by(f, g)
        .agg(
            (pl.col("mean") * pl.col("len")).sum() / pl.col("len").sum(),
            pl.col("len").sum(),
            ((pl.col("sd") ** 2 * pl.col("len")).sum() / pl.col("len").sum()).sqrt().alias("sd"),
        )
        .sort(f, g)
        .with_columns(half=1.96 * pl.col("sd") / pl.col("len").sqrt())
    )
    mr = next(m for m in result.measures if m.name == measure)
    ylabel = mr.label + (" (share)" if mr.kind == "binary" else "")
    return plots.interaction(
        agg, f, g, numeric_order(result.factors[f]), numeric_order(result.factors[g]), ylabel
    )


def _table_html(mr: MeasureResult, aliases: bool = True) -> str:
    """The effects table; ``aliases``: with the alias-chain column (fractions)."""
    head = (
        "<tr><th>term</th><th>effect [95 % interval]</th><th>model coefficient (SE)</th>"
        "<th>p</th><th>Holm p</th><th>verdict</th>"
        + ("<th>aliased with (up to three-factor terms)</th>" if aliases else "")
        + "</tr>"
    )
    scale = "log-odds" if mr.kind == "binary" else mr.unit
    rows = []
    for e in mr.effects:
        verdict_text = e.verdict_text
        if e.verdict == EQUIVALENT:
            verdict_text += f" within {_margin_text(mr, e.margin)}"
        elif e.verdict == NOT_ENOUGH and math.isfinite(e.deals_needed):
            verdict_text += (
                f" (≈{e.deals_needed:,.0f} deals per cell to show equivalence if it is 0"
                + (
                    f"; ≈{e.deals_to_detect:,.0f} to detect the observed "
                    f"{_fmt_size(e, mr)} at 80 % power, unadjusted)"
                    if math.isfinite(e.deals_to_detect)
                    else ")"
                )
            )
        rows.append(
            f"<tr><td>{html.escape(e.term)}</td><td>{_fmt_effect(e, mr.kind)}</td>"
            + (
                f"<td>{e.coef:+.4f} ({e.coef_se:.4f} {scale})</td>"
                if math.isfinite(e.coef)
                else "<td>– (cell means, exact interval)</td>"
            )
            + f"<td>{p_value(e.p)}</td>"
            f"<td>{p_value(e.p_holm)}</td><td>{html.escape(verdict_text)}</td>"
            + (f"<td>{html.escape('; '.join(e.aliases) or '–')}</td>" if aliases else "")
            + "</tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def write_report(result: FactorialResult, out: Path | str, top_interactions: int = 2) -> Path:
    """Write ``out`` (HTML: Answers, effects tables sorted by size, interaction plots of the
    largest interactions) and the same numbers as JSON next to it (``.json``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(result.to_json(), encoding="utf-8")
    k, p = len(result.factors), result.fraction
    res = f"resolution {result.resolution}" if result.resolution else "no term aliased"
    kind = (
        f"2^({k}-{p}) fraction and its fold-over on {', '.join(result.foldover)} "
        f"(2^({k}-{p - 1}) cells), {res}"
        if result.foldover
        else f"2^({k}-{p}) fraction, {res}"
        if p
        else "full factorial"
    )
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{html.escape(result.design)}: factorial study</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto}"
        "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px}"
        "</style></head><body>",
        f"<h1>{html.escape(result.design)}: factorial rule study ({html.escape(result.game)})</h1>",
        f"<p>{kind}: {result.cells} cells × {result.deals_per_cell:,} deals each, every cell on "
        "the same deals (one root seed); standard errors clustered by deal. Factors (first level "
        "= baseline): "
        + "; ".join(html.escape(f"{f} ∈ {{{', '.join(v)}}}") for f, v in result.factors.items())
        + ".</p>",
        "<h2>Answers</h2><ul>",
        *(f"<li>{html.escape(a)}</li>" for a in answers(result)),
        "</ul>",
    ]
    if result.aliased:
        parts += ["<p>Aliased terms: " + html.escape("; ".join(result.aliased)) + ".</p>"]
    if any(e.aliases for mr in result.measures for e in mr.effects):
        parts.append(
            "<p>Aliases: a fraction estimates each term together with its alias chain (the "
            "term times each word of the defining relation); the last column of every table "
            "lists the chain up to three-factor terms. A clear term aliased with an "
            "interaction of options whose own main effects are clear reads <b>clear, but "
            "aliased with …</b>: the fraction cannot say which of them it is.</p>"
        )
    parts += _foldover_html(result)
    for mr in result.measures:
        parts += _measure_html(result, mr, top_interactions)
    parts.append("</body></html>")
    out.write_text("\n".join(parts), encoding="utf-8")
    return out


def _foldover_html(result: FactorialResult) -> list[str]:
    """The fold-over that separates the clear-but-aliased terms, if one is suggested."""
    if not result.suggested_foldover:
        return []
    k = len(result.factors)
    fold = ", ".join(result.suggested_foldover)
    where = (
        f" The ready study file <code>{html.escape(result.foldover_file)}</code> plays it: "
        f"<code>cardsim study {html.escape(result.foldover_file)} --out DIR</code> with "
        "this study's DIR reuses the cells already played and plays only the folded ones."
        if result.foldover_file
        else ""
    )
    what = (
        "separates the clear-but-aliased terms from the interactions they are aliased with"
        if any(e.confounded for mr in result.measures for e in mr.effects)
        else "frees every main effect from the two-factor interactions this resolution III "
        "fraction aliases it with (resolution IV or better)"
    )
    return [
        "<h2>Separating the aliased terms</h2><p>The fold-over on "
        f"{html.escape(fold)} (the same cells with "
        f"{'every option' if len(result.suggested_foldover) == k else 'these options'} "
        f"switched to its other level) {what}.{where}</p>"
    ]


def _measure_html(result: FactorialResult, mr, top_interactions: int) -> list[str]:
    """One measure's heading, its effects table and plots of its largest interactions."""
    parts = []
    parts.append(
        f"<h2>{html.escape(mr.label)} (per {html.escape(mr.unit)}; "
        f"{'logistic' if mr.kind == 'binary' else 'linear'} regression, {mr.rows:,} rows, "
        f"{mr.deals:,} deals)</h2>"
    )
    parts += _levels_html(result, mr)
    parts.append(
        "<p>Effects sorted by size, in the measure's own unit"
        + (
            " (percentage points of the share)"
            if mr.kind == "binary"
            else f" ({html.escape(mr.unit)})"
        )
        + ": differences of predicted means (average marginal effects). Main effect: the "
        "fitted mean with the option at the level minus at the baseline, averaged over the "
        "design's cells; interaction: the difference of such differences. On a balanced "
        "design they are the differences of the per-level means above.</p>"
    )
    parts.append(_table_html(mr, aliases=bool(result.fraction)))
    inter = [e for e in mr.effects if e.order == 2]
    inter.sort(key=lambda e: -abs(e.effect / e.se) if e.se > 0 else 0)
    for e in inter[:top_interactions]:
        png = interaction_plot(result, mr.name, e)
        parts.append(
            f"<figure><img alt='interaction {html.escape(e.term)}' "
            f"src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
            f"<figcaption>{html.escape(mr.label)}: {html.escape(e.term)} "
            f"({html.escape(e.verdict_text)})</figcaption></figure>"
        )
    return parts


def _levels_html(result: FactorialResult, mr: MeasureResult) -> list[str]:
    """Per-level means of every factor (integer levels in numeric order) and a plot of each."""
    if not mr.levels:
        return []

    def cell(r: dict) -> str:
        if mr.kind == "binary":
            return f"{100 * r['mean']:.2f} % [{100 * r['lo']:.2f}, {100 * r['hi']:.2f}]"
        return f"{r['mean']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]"

    rows = "".join(
        f"<tr><td>{html.escape(r['factor'])}</td><td>{html.escape(r['level'])}</td>"
        f"<td>{cell(r)}</td><td>{r['rows']:,}</td></tr>"
        for r in mr.levels
    )
    parts = [
        "<p>Per-level means: every row of the cells at the level (the other factors balanced), "
        "95 % interval clustered by deal; integer levels in numeric order.</p>",
        "<table><tr><th>option</th><th>level</th><th>mean [95 % interval]</th><th>rows</th></tr>"
        f"{rows}</table>",
    ]
    from cardsim.analysis import plots

    ylabel = mr.label + (" (share)" if mr.kind == "binary" else "")
    for f in result.factors:
        lv = [r for r in mr.levels if r["factor"] == f]
        numeric = all(r["level"].lstrip("-").isdigit() for r in lv)
        png = plots.level_means(lv, f, ylabel, numeric)
        parts.append(
            f"<figure><img alt='{html.escape(mr.label)} by {html.escape(f)}' "
            f"src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
            f"<figcaption>{html.escape(mr.label)} by {html.escape(f)} (per-level means, 95 % "
            "intervals)</figcaption></figure>"
        )
    return parts


def read_cell_tables(run_dirs: Sequence[Path]) -> list[pl.LazyFrame]:
    """Lazy games tables of finished cell runs (one run directory per cell)."""
    out = []
    for d in run_dirs:
        parts = sorted((Path(d) / "games").glob("part-*.parquet"))
        if not parts:
            raise CardsimError(f"{d}: no games table (run the study first)")
        out.append(pl.scan_parquet(parts))
    return out
