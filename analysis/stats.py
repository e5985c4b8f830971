"""Statistics used by the analyses, all delegated to scipy.stats and statsmodels.

Every function is vectorised over NumPy arrays (or Polars Series) of counts, so a whole
per-seat table gets its intervals in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as ss
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    test_proportions_2indep,
)

ALPHA = 0.05


def wilson(k, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the proportion ``k / n`` (arrays in, arrays out)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    safe = np.where(n > 0, n, 1.0)
    lo, hi = proportion_confint(k, safe, alpha=alpha, method="wilson")
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def binom_p(k, n, p0) -> np.ndarray:
    """Two-sided exact binomial test p-values of ``k`` successes in ``n`` against ``p0``."""
    k, n = np.atleast_1d(k), np.atleast_1d(n)
    p0 = np.broadcast_to(np.asarray(p0, dtype=float), k.shape)
    return np.array(
        [
            ss.binomtest(int(a), int(b), float(p)).pvalue if b > 0 else np.nan
            for a, b, p in zip(k, n, p0, strict=True)
        ]
    )


@dataclass(frozen=True)
class Chi2:
    """A chi-square test result."""

    statistic: float
    dof: int
    pvalue: float
    n: int


def chi2_gof(observed, expected_probs=None) -> Chi2:
    """Goodness of fit of counts to probabilities (uniform when ``expected_probs`` is None).

    Categories with expected probability 0 must be observed 0; they are left out of the test
    (if one is observed, the p-value is 0: the observation is impossible under the model).
    """
    obs = np.asarray(observed, dtype=float)
    n = obs.sum()
    probs = (
        np.full(obs.shape, 1.0 / len(obs))
        if expected_probs is None
        else np.asarray(expected_probs, dtype=float)
    )
    probs = probs / probs.sum()
    keep = probs > 0
    if np.any(obs[~keep] > 0):
        return Chi2(float("inf"), int(keep.sum() - 1), 0.0, int(n))
    if n == 0 or keep.sum() < 2:
        return Chi2(float("nan"), 0, float("nan"), int(n))
    res = ss.chisquare(obs[keep], f_exp=probs[keep] * n)
    return Chi2(float(res.statistic), int(keep.sum() - 1), float(res.pvalue), int(n))


def chi2_independence(table) -> Chi2:
    """Chi-square test of independence of a contingency table (rows × columns of counts)."""
    t = np.asarray(table, dtype=float)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if t.shape[0] < 2 or t.shape[1] < 2:
        return Chi2(float("nan"), 0, float("nan"), int(t.sum()))
    res = ss.chi2_contingency(t, correction=False)
    return Chi2(float(res.statistic), int(res.dof), float(res.pvalue), int(t.sum()))


def diff_proportions(k1, n1, k2, n2, alpha: float = ALPHA):
    """Difference ``k1/n1 - k2/n2`` with Newcomb's interval and a two-sided score-test p-value.

    Returns arrays ``(diff, lo, hi, p)``.
    """
    k1, n1, k2, n2 = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (k1, n1, k2, n2))
    diff = k1 / n1 - k2 / n2
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 of n in both: p is NaN, no noise
        lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", alpha=alpha)
        p = np.array(
            [
                test_proportions_2indep(a, b, c, d, method="score").pvalue
                for a, b, c, d in zip(k1, n1, k2, n2, strict=True)
            ]
        )
    return diff, np.asarray(lo, dtype=float), np.asarray(hi, dtype=float), p


def diff_from(k, n, p0, alpha: float = ALPHA):
    """Difference of ``k/n`` from a fixed ``p0``: ``(diff, lo, hi, p)`` (Wilson interval − p0)."""
    k, n = np.atleast_1d(np.asarray(k, dtype=float)), np.atleast_1d(np.asarray(n, dtype=float))
    lo, hi = wilson(k, n, alpha)
    return k / n - p0, lo - p0, hi - p0, binom_p(k, n, p0)


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Multiple-comparison adjusted p-values (``holm`` or ``fdr_bh``); NaNs stay NaN."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], alpha=ALPHA, method=method)[1]
    return out


def mean_interval(mean: float, sd: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Student-t interval of a mean from its summary statistics."""
    if n < 2 or not np.isfinite(sd):
        return float("nan"), float("nan")
    half = ss.t.ppf(1 - alpha / 2, n - 1) * sd / np.sqrt(n)
    return float(mean - half), float(mean + half)
