"""Units and clustered variance (issue 10 point 1): measures that depend only on the deal count
each deal once; rows that share a deal or a round get cluster-robust variances."""

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from cardsim.analysis import stats
from cardsim.analysis.exprs import clustered_rate_table, one_per_deal, rate_table, slope_moments


def _clustered_frame(seed=5, clusters=400, size=3):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(clusters), size)
    shared = np.repeat(rng.normal(size=clusters), size)
    x = rng.integers(0, 5, size=g.size)
    y = (1.0 * shared + 0.05 * x + rng.normal(size=g.size) > 0.4).astype(int)
    return pl.DataFrame({"game": g, "x": x, "y": y})


def test_clustered_slope_matches_statsmodels_cluster_robust_ols():
    df = _clustered_frame()
    m = slope_moments(df.lazy(), pl.col("x"), pl.col("y"), ["game"]).collect().row(0, named=True)
    got = stats.clustered_slope(m)
    X = sm.add_constant(df["x"].to_numpy().astype(float))
    fit = sm.OLS(df["y"].to_numpy().astype(float), X).fit(
        cov_type="cluster", cov_kwds={"groups": df["game"].to_numpy(), "use_correction": False}
    )
    g = df["game"].n_unique()
    assert got.slope == pytest.approx(fit.params[1], rel=1e-9)
    assert got.intercept == pytest.approx(fit.params[0], rel=1e-9)
    # CR1 = CR0 × G / (G − 1)
    assert got.se == pytest.approx(fit.bse[1] * np.sqrt(g / (g - 1)), rel=1e-9)
    assert got.clusters == g and got.n == df.height


def test_clustered_rate_is_binomial_for_single_row_clusters_and_wider_when_shared():
    df = _clustered_frame()
    plain = rate_table(df.lazy(), ["x"], pl.col("y") == 1).collect()
    single = clustered_rate_table(
        df.with_row_index("row").lazy(), ["x"], pl.col("y") == 1, ["row"]
    ).collect()
    assert single["deff"].to_list() == pytest.approx([1.0] * single.height)
    assert single["rate_lo"].to_list() == pytest.approx(plain["rate_lo"].to_list())
    pooled = clustered_rate_table(df.lazy(), [], pl.col("y") == 1, ["game"]).collect()
    assert pooled["deff"][0] > 1.3  # the shared cluster term makes rows of a deal alike
    # the variance equals the cluster-robust variance of the mean (statsmodels, CR1)
    y = df["y"].to_numpy().astype(float)
    fit = sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": df["game"].to_numpy()}
    )
    g = df["game"].n_unique()
    # statsmodels' correction G/(G−1)·(N−1)/(N−K) is G/(G−1) for the mean (K = 1), as ours
    assert pooled["var"][0] == pytest.approx(fit.bse[0] ** 2, rel=1e-6)
    assert pooled["clusters"][0] == g


def test_one_per_deal_keeps_the_first_assignment_only():
    lf = pl.LazyFrame({"game": [0, 0, 1, 1], "assignment": [0, 1, 0, 1], "v": [1, 1, 2, 2]})
    assert one_per_deal(lf).collect()["game"].to_list() == [0, 1]
    plain = pl.LazyFrame({"game": [0, 1], "v": [1, 2]})
    assert one_per_deal(plain).collect().height == 2


def test_summary_from_counts_equals_the_summary_of_the_rows():
    from cardsim.analysis.exprs import length_summary, summary_from_counts

    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 1000, 1001):
        df = pl.DataFrame({"m": ["a"] * size, "value": rng.integers(0, 40, size)})
        want = df.group_by("m").agg(length_summary(pl.col("value")))
        hist = df.lazy().group_by("m", "value").agg(count=pl.len())
        got = summary_from_counts(hist, ["m"]).collect()
        for c in ("n", "mean", "min", "q05", "q25", "median", "q75", "q95", "max"):
            assert got[c][0] == pytest.approx(want[c][0]), (size, c)
        if size > 1:
            assert got["sd"][0] == pytest.approx(want["sd"][0])
