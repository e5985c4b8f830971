"""analysis/stats.py against textbook values."""

import numpy as np
import pytest
from cardsim.analysis import stats


def test_wilson_known_values():
    lo, hi = stats.wilson([5, 0], [10, 10])
    # Wilson 95 % for 5/10: 0.2366 .. 0.7634; for 0/10: 0 .. 0.2775
    assert lo == pytest.approx([0.23659, 0.0], abs=1e-4)
    assert hi == pytest.approx([0.76341, 0.27753], abs=1e-4)


def test_wilson_of_empty_group_is_nan():
    lo, hi = stats.wilson([0], [0])
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_chi2_uniform_and_with_probabilities():
    assert stats.chi2_gof([10, 10]).pvalue == pytest.approx(1.0)
    # (30-20)^2/20 + (10-20)^2/20 = 10
    r = stats.chi2_gof([30, 10])
    assert r.statistic == pytest.approx(10.0) and r.dof == 1
    r = stats.chi2_gof([30, 10], [0.75, 0.25])
    assert r.statistic == pytest.approx(0.0)


def test_chi2_impossible_category_observed_gives_p_zero():
    assert stats.chi2_gof([5, 5, 1], [0.5, 0.5, 0.0]).pvalue == 0.0
    assert stats.chi2_gof([5, 5, 0], [0.5, 0.5, 0.0]).pvalue == pytest.approx(1.0)


def test_diff_proportions_interval_contains_difference():
    d, lo, hi, p = stats.diff_proportions([60], [100], [40], [100])
    assert d[0] == pytest.approx(0.2)
    assert lo[0] < 0.2 < hi[0] and lo[0] > 0  # clearly positive
    assert p[0] < 0.01


def test_holm_adjustment():
    # Holm: sorted p 0.01, 0.04 -> 0.02, max(0.02, 0.04) = 0.04
    assert stats.adjust([0.04, 0.01]) == pytest.approx([0.04, 0.02])
    out = stats.adjust([np.nan, 0.01])
    assert np.isnan(out[0]) and out[1] == pytest.approx(0.01)


def test_mean_interval():
    lo, hi = stats.mean_interval(10.0, 2.0, 4)
    # t(0.975, 3) = 3.182; half width = 3.182 * 2 / 2
    assert (lo, hi) == pytest.approx((10 - 3.1824, 10 + 3.1824), abs=1e-3)
