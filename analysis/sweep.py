"""Sweeps of numeric rule parameters (issue 47 items 1–2): per-value means, a fitted curve with a
confidence band, and the value that hits a target, with an interval.

Every value of a sweep is played on the same deals (one root seed), so the runs share their
randomness; every interval here is clustered by deal (game index) across values and rows.

**The curve.** A generalised linear model of the measure on the parameter — logistic for a
0/1 measure, linear for a number — with a natural cubic spline basis (patsy's ``cr``, linear
beyond the end knots, so the ends do not flap) of at most 4 degrees of freedom (a line for two
values, a parabola for three). It is fitted from per-value sums with the deal-clustered sandwich
covariance of :func:`cardsim.analysis.factorial.fit_cells` (the factorial study's fit, the same
numbers as statsmodels on the rows). Why not a GAM (pygam): its smoothing is chosen by GCV on
independent rows and has no clustered covariance; with a handful of values a fixed small basis
and a robust covariance is the honest choice, and every point is drawn beside the curve so a
misfit shows (a value whose interval misses the curve is named in the notes).

**Inverse prediction.** The values where the curve crosses the target are read off a fine grid;
the interval of each is the set of parameter values whose pointwise 95 % band contains the
target (inverting the band: at the true crossing the band covers the target exactly as often as
the band covers the curve, so the interval has the band's coverage; checked by simulation in
tests/test_sweep_coverage.py). A target the curve does not reach inside the swept range is said
so, with the closest value, its mean and interval — the edge is always named.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import polars as pl
from cardsim.analysis.factorial import fit_cells, game_measures
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameFacts
from scipy import stats as ss

Z = float(ss.norm.ppf(0.975))
#: Points of the grid the curve, its band and the crossings are read on.
GRID = 401
#: Most spline degrees of freedom (besides the intercept).
MAX_DF = 4
#: Fewest events (and non-events) of a rate for a logistic curve (the factorial's rule too).
MIN_EVENTS = 10


@dataclass
class Point:
    """One swept value: the measure's mean over its rows with a deal-clustered 95 % interval."""

    value: float
    mean: float
    lo: float
    hi: float
    rows: int
    deals: int
    se: float = float("nan")


@dataclass
class Curve:
    """The fitted curve on ``GRID`` points of the swept range, with its pointwise 95 % band."""

    x: list[float]
    mean: list[float]
    lo: list[float]
    hi: list[float]
    se: list[float]  # of the mean (delta method)
    basis: str


@dataclass
class Crossing:
    """Where the curve equals the target: ``x`` with its interval ``[lo, hi]``; an open end
    (the band still holds the target at the edge of the range) is None."""

    x: float
    lo: float | None
    hi: float | None
    value: int  # the allowed parameter value nearest to x (what a confirmation run plays)


@dataclass
class Confirmation:
    """A run at the chosen value on fresh deals, against where the curve says it should land."""

    value: int
    seed: int
    point: Point
    predicted: float
    expect_lo: float  # the curve's prediction ± both runs' noise (95 %)
    expect_hi: float

    @property
    def inside(self) -> bool:
        return self.expect_lo <= self.point.mean <= self.expect_hi


@dataclass
class TargetAnswer:
    measure: str
    label: str
    target: float
    crossings: list[Crossing]
    closest: Point | None  # when unreachable: the swept value whose mean is nearest the target
    confirmation: Confirmation | None = None
    sentence: str = ""


@dataclass
class MeasureSweep:
    name: str
    label: str
    unit: str
    kind: str
    points: list[Point]
    curve: Curve | None
    slope: tuple[float, float, float] | None  # mean change per unit of the parameter [95 %]
    sentence: str = ""
    misfits: list[float] = field(default_factory=list)  # values whose interval misses the curve
    grid: list[list[float]] | None = None  # two parameters: cell means [i][j]


@dataclass
class SweepResult:
    game: str
    params: dict[str, list[int]]
    players: int
    games: int  # per value
    seed: int
    setting: str  # strategies and fixed rules, in words
    measures: list[MeasureSweep]
    targets: list[TargetAnswer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# --- per-value means ---------------------------------------------------------------------------


def cell_points(
    values: list[float], y: np.ndarray, cell: np.ndarray, deal: np.ndarray
) -> list[Point]:
    """Mean of ``y`` per cell with a deal-clustered (CR1) 95 % interval (the ladder's
    :func:`cardsim.analysis.ladder.clustered_mean`)."""
    from cardsim.analysis.ladder import clustered_mean

    out = []
    for c, v in enumerate(values):
        sel = cell == c
        rows = pl.LazyFrame({"deal": deal[sel], "y": y[sel]})
        m = clustered_mean(rows, pl.col("y"), ["deal"])
        deals = int(np.unique(deal[sel]).size)
        out.append(Point(float(v), m["estimate"], m["lo"], m["hi"], m["n"], deals, m["se"]))
    return out


# --- the curve ---------------------------------------------------------------------------------


class _Basis:
    """The regressors of the curve at any parameter value (fitted on the swept values)."""

    def __init__(self, values: np.ndarray) -> None:
        self.k = values.size
        self.center, self.scale = float(values.mean()), float(values.std() or 1.0)
        if self.k >= 4:
            import patsy

            df = min(MAX_DF, self.k - 1)
            self.info = patsy.dmatrix(
                f"cr(x, df={df}, constraints='center')", {"x": values}
            ).design_info
            self.text = f"natural cubic spline, {df} degrees of freedom"
        else:
            self.info = None
            self.text = "a line" if self.k == 2 else "a parabola (through the three means)"

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if self.info is not None:
            import patsy

            return np.asarray(patsy.build_design_matrices([self.info], {"x": x})[0])
        u = (x - self.center) / self.scale
        return np.column_stack([u**p for p in range(self.k)])


def _mean_and_grad(X: np.ndarray, beta: np.ndarray, kind: str):
    eta = X @ beta
    if kind == "binary":
        mu = 1.0 / (1.0 + np.exp(-eta))
        return mu, X * (mu * (1.0 - mu))[:, None]
    return eta, X


def fit_curve(values: list[float], y, cell, deal, kind: str) -> tuple[Curve, callable]:
    """The curve over the swept range and a function ``at(x) -> (mean, se, gradient)``."""
    v = np.asarray(values, dtype=float)
    basis = _Basis(v)
    fit = fit_cells(y, cell, deal, basis(v), kind)
    beta, cov = fit.params, fit.cov

    def at(x):
        mu, grad = _mean_and_grad(basis(np.atleast_1d(x)), beta, kind)
        se = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", grad, cov, grad), 0.0, None))
        return mu, se, grad

    xs = np.linspace(v.min(), v.max(), GRID)
    X = basis(xs)
    eta = X @ beta
    se_eta = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", X, cov, X), 0.0, None))
    if kind == "binary":  # the band on the log-odds scale, mapped back (stays inside 0..1)
        inv = lambda e: 1.0 / (1.0 + np.exp(-np.clip(e, -700, 700)))  # noqa: E731
        mu, lo, hi = inv(eta), inv(eta - Z * se_eta), inv(eta + Z * se_eta)
        se = se_eta * mu * (1.0 - mu)
    else:
        mu, lo, hi, se = eta, eta - Z * se_eta, eta + Z * se_eta, se_eta
    curve = Curve(xs.tolist(), mu.tolist(), lo.tolist(), hi.tolist(), se.tolist(), basis.text)
    return curve, (at, cov)


def average_slope(at_cov, lo_x: float, hi_x: float) -> tuple[float, float, float]:
    """(mean change per unit of the parameter between the ends, and its 95 % interval)."""
    at, cov = at_cov
    mu, _, grad = at(np.array([lo_x, hi_x]))
    width = hi_x - lo_x
    d = (mu[1] - mu[0]) / width
    g = (grad[1] - grad[0]) / width
    se = math.sqrt(max(float(g @ cov @ g), 0.0))
    return float(d), float(d - Z * se), float(d + Z * se)


# --- inverse prediction ------------------------------------------------------------------------


def _edge(xs, inside, i, step) -> float | None:
    """Walk from grid index ``i`` while the band holds the target; the last x inside, or None
    when the walk reaches the end of the range (the interval is open there)."""
    j = i
    while 0 <= j + step < len(xs) and inside[j + step]:
        j += step
    if j + step < 0 or j + step >= len(xs):
        return None
    return float(xs[j])


def crossings(curve: Curve, target: float, allowed: list[int]) -> list[Crossing]:
    """Every place the curve crosses ``target``, each with its band-inversion interval."""
    xs, mu = np.asarray(curve.x), np.asarray(curve.mean)
    lo, hi = np.asarray(curve.lo), np.asarray(curve.hi)
    inside = (lo <= target) & (target <= hi)
    d = mu - target
    out = []
    for i in range(len(xs) - 1):
        if d[i] == 0 or (d[i] < 0) != (d[i + 1] < 0) and d[i + 1] != 0:
            t = 0.0 if d[i] == 0 else d[i] / (d[i] - d[i + 1])
            x = float(xs[i] + t * (xs[i + 1] - xs[i]))
            k = i if t < 0.5 else i + 1
            if not inside[k]:  # the band is narrower than a grid step: the crossing alone
                a = b = x
            else:
                a, b = _edge(xs, inside, k, -1), _edge(xs, inside, k, +1)
            nearest = min(allowed, key=lambda v: (abs(v - x), v))
            out.append(Crossing(x, a, b, int(nearest)))
    return out


def _fmt(x: float, digits: int = 3) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:,.0f}"


def _fmt_m(x: float, kind: str) -> str:
    return f"{100 * x:.1f} %" if kind == "binary" else _fmt(x, 3)


def target_answer(ms: MeasureSweep, target: float, param: str, allowed: list[int]) -> TargetAnswer:
    """Where ``ms`` hits ``target``, in words (the edge of the range always named)."""
    lo_v, hi_v = ms.points[0].value, ms.points[-1].value
    found = crossings(ms.curve, target, allowed) if ms.curve else []
    t_text = _fmt_m(target, ms.kind)
    if found:
        parts = []
        for c in found:
            a = (
                f"{_fmt(c.lo)}"
                if c.lo is not None
                else f"≤ {_fmt(lo_v)} (open: the band still holds it at the edge)"
            )
            b = f"{_fmt(c.hi)}" if c.hi is not None else f"≥ {_fmt(hi_v)} (open)"
            parts.append(f"{param} = {_fmt(c.x)} [{a}, {b}] (nearest allowed value {c.value})")
        sentence = f"{ms.label} reaches {t_text} at " + "; and at ".join(parts) + "."
        if len(found) > 1:
            sentence += " The curve crosses the target more than once; each crossing is listed."
        return TargetAnswer(ms.name, ms.label, target, found, None, sentence=sentence)
    pts = [p for p in ms.points if math.isfinite(p.mean)]
    best = min(pts, key=lambda p: abs(p.mean - target))
    side = "above" if best.mean > target else "below"
    sentence = (
        f"{ms.label} does not reach {t_text} for {param} in {_fmt(lo_v)}..{_fmt(hi_v)}: it stays "
        f"{side} it; the closest is {_fmt_m(best.mean, ms.kind)} [{_fmt_m(best.lo, ms.kind)}, "
        f"{_fmt_m(best.hi, ms.kind)}] at {param} = {_fmt(best.value)}"
    )
    if best.value in (lo_v, hi_v):
        sentence += f", the {'lower' if best.value == lo_v else 'upper'} edge of the range"
        sentence += " (a value beyond it, if the rules allow one, may get closer)"
    c = ms.curve
    held = [x for x, a, b in zip(c.x, c.lo, c.hi, strict=True) if a <= target <= b] if c else []
    if held:
        sentence += (
            f"; but the curve's band still holds {t_text} for {param} in "
            f"{_fmt(min(held))}..{_fmt(max(held))}: not enough games to rule it out"
        )
    return TargetAnswer(ms.name, ms.label, target, [], best, sentence=sentence + ".")


def confirm(ans: TargetAnswer, ms: MeasureSweep, at_cov, point: Point, seed: int) -> Confirmation:
    """Compare a confirmation run's mean with the curve's prediction at its value: the run
    should land within the prediction ± both noises (95 %)."""
    at, _ = at_cov
    mu, se, _ = at(np.array([point.value]))
    spread = Z * math.sqrt(float(se[0]) ** 2 + point.se**2)
    c = Confirmation(int(point.value), seed, point, float(mu[0]), float(mu[0]) - spread,
                     float(mu[0]) + spread)  # fmt: skip
    word = "inside" if c.inside else "OUTSIDE"
    ans.sentence += (
        f" A confirmation run at {int(point.value)} on fresh deals (seed {seed}, "
        f"{point.rows:,} rows) measured {_fmt_m(point.mean, ms.kind)} [{_fmt_m(point.lo, ms.kind)}, "
        f"{_fmt_m(point.hi, ms.kind)}]; the curve said {_fmt_m(c.predicted, ms.kind)}, so a run "
        f"of that size should land in [{_fmt_m(c.expect_lo, ms.kind)}, "
        f"{_fmt_m(c.expect_hi, ms.kind)}]: {word}."
    )
    ans.confirmation = c
    return c


# --- the whole sweep ---------------------------------------------------------------------------


def _sentence(ms: MeasureSweep, param: str) -> str:
    a, b = ms.points[0], ms.points[-1]
    d, lo, hi = ms.slope
    unit = "percentage points per" if ms.kind == "binary" else "per"
    scale = 100 if ms.kind == "binary" else 1
    slope = f"{scale * d:+.3g} {unit} 1 of {param} [{scale * lo:+.3g}, {scale * hi:+.3g}]"
    if lo > 0 or hi < 0:
        verb = "rises" if d > 0 else "falls"
        head = f"{ms.label} ({ms.unit}) {verb} from {_fmt_m(a.mean, ms.kind)} at {param} = {_fmt(a.value)} to {_fmt_m(b.mean, ms.kind)} at {_fmt(b.value)}"
    else:
        head = f"{ms.label} ({ms.unit}) shows no clear overall change from {param} = {_fmt(a.value)} ({_fmt_m(a.mean, ms.kind)}) to {_fmt(b.value)} ({_fmt_m(b.mean, ms.kind)})"
    return f"{head}: on average {slope} (curve, 95 %, clustered by deal)."


def measures_of(facts: GameFacts) -> list[tuple[str, str, str, object]]:
    """The sweepable measures: every headline measure with a per-row value."""
    return game_measures(facts)


def resolve_measure(facts: GameFacts, name: str) -> str:
    """A measure by its name or its topic (``length`` → ATLAS ``turns``); a clear error else."""
    ms = measures_of(facts)
    by_name = {m: m for m, *_ in ms}
    by_topic: dict[str, list[str]] = {}
    for m, _, _, d in ms:
        by_topic.setdefault(d.topic, []).append(m)
    if name in by_name:
        return name
    if len(by_topic.get(name, [])) == 1:
        return by_topic[name][0]
    names = ", ".join(f"{m} ({d.topic})" if d.topic != m else m for m, _, _, d in ms)
    raise CardsimError(f"unknown measure {name!r} (allowed: {names})")


def _one_param(name, label, unit, kind, param, values, y, cell, deal):
    """A measure over one parameter: points, curve (unless the measure is constant or a rate
    has too few events), slope, sentence, misfits; and the curve's ``(at, cov)`` or None."""
    pts = cell_points(values, y, cell, deal)
    ms = MeasureSweep(name, label, unit, kind, pts, None, None)
    events = float(y.sum())
    k = int(min(events, y.size - events))
    if np.unique(y).size < 2:
        ms.sentence = (
            f"{label} ({unit}) is {_fmt_m(pts[0].mean, kind)} at every value: nothing to fit."
        )
        return ms, None
    if kind == "binary" and k < MIN_EVENTS:
        which = "event" if events < y.size - events else "non-event"
        ms.sentence = (
            f"{label} ({unit}): {k} {which}{'' if k == 1 else 's'} in {y.size:,} {unit}s over "
            "the sweep, too few for a curve; the table gives each value's rate."
        )
        return ms, None
    ms.curve, at_cov = fit_curve(values, y, cell, deal, kind)
    ms.slope = average_slope(at_cov, values[0], values[-1])
    ms.sentence = _sentence(ms, param)
    for p in pts:
        m_at, se_at, _ = at_cov[0](np.array([p.value]))
        if abs(p.mean - m_at[0]) > Z * math.sqrt(p.se**2 + se_at[0] ** 2):
            ms.misfits.append(p.value)
    return ms, at_cov


def _two_params(name, label, unit, kind, params, y, cell, deal) -> MeasureSweep:
    """A measure over a two-parameter grid: cell means (a heat map) and its range in words."""
    (a_name, va), (b_name, vb) = params.items()
    grid = [(a, b) for a in va for b in vb]
    pts = cell_points([float(i) for i in range(len(grid))], y, cell, deal)
    for p, (a, _) in zip(pts, grid, strict=True):
        p.value = float(a)
    means = [[pts[i * len(vb) + j].mean for j in range(len(vb))] for i in range(len(va))]
    ms = MeasureSweep(name, label, unit, kind, pts, None, None, grid=means)
    flat = [(p.mean, g) for p, g in zip(pts, grid, strict=True) if math.isfinite(p.mean)]
    (lo, (la, lb)), (hi, (ha, hb)) = min(flat), max(flat)
    ms.sentence = (
        f"{label} ({unit}) ranges from {_fmt_m(lo, kind)} at {a_name} = {la}, {b_name} = {lb} "
        f"to {_fmt_m(hi, kind)} at {a_name} = {ha}, {b_name} = {hb}."
    )
    return ms


def _flat_target(ms: MeasureSweep, t: float, param: str) -> TargetAnswer:
    """A target on a measure without a curve (constant, or too few events)."""
    pts = [p for p in ms.points if math.isfinite(p.mean)]
    best = min(pts, key=lambda p: abs(p.mean - t))
    return TargetAnswer(ms.name, ms.label, t, [], best, sentence=(
        f"{ms.label} has no curve over the sweep (the closest value is "
        f"{_fmt_m(best.mean, ms.kind)} at {param} = {_fmt(best.value)}): whether {param} can "
        f"move it to {_fmt_m(t, ms.kind)} is not read from it."))  # fmt: skip


def analyse_sweep(
    params: dict[str, list[int]],
    tables: list[pl.LazyFrame | pl.DataFrame],
    facts: GameFacts,
    *,
    game: str = "",
    players: int = 0,
    games: int = 0,
    seed: int = 0,
    setting: str = "",
    targets: list[tuple[str, float]] | None = None,
    allowed: list[int] | None = None,
) -> tuple[SweepResult, dict]:
    """Every readable headline measure over the sweep's games tables (one per grid cell, the
    first parameter varying slowest). Returns the result and, per measure, the curve's
    ``(at, cov)`` (one parameter; for confirmations). ``allowed``: the values the rules allow
    for the (first) parameter within the range (default: the swept ones); a crossing names the
    nearest of them."""
    from cardsim.analysis.factorial import _read_cells

    names = list(params)
    measures = measures_of(facts)
    exprs = [d.value(facts).cast(pl.Float64).alias(m) for m, _, _, d in measures]
    data, _ = _read_cells(tables, "game", exprs)
    result = SweepResult(game, params, players, games, seed, setting, [])
    fits = {}
    for mname, label, unit, d in measures:
        sub = data.select("_deal", "_cell", mname).drop_nulls(mname)
        y, cell, deal = (sub[c].to_numpy() for c in (mname, "_cell", "_deal"))
        if len(names) == 1:
            values = [float(v) for v in params[names[0]]]
            ms, at_cov = _one_param(mname, label, unit, d.kind, names[0], values, y, cell, deal)
            if at_cov is not None:
                fits[mname] = at_cov
        else:
            ms = _two_params(mname, label, unit, d.kind, params, y, cell, deal)
        result.measures.append(ms)
    for name, t in targets or []:
        ms = next(m for m in result.measures if m.name == name)
        answer = (
            target_answer(ms, t, names[0], allowed or params[names[0]])
            if ms.curve is not None
            else _flat_target(ms, t, names[0])
        )
        result.targets.append(answer)
    for ms in result.measures:
        if ms.misfits:
            result.notes.append(
                f"{ms.label}: the mean at {names[0]} = "
                + ", ".join(_fmt(v) for v in ms.misfits)
                + " lies outside the curve's band plus its own noise; read the points there."
            )
    return result, fits
