"""Paired strategy comparisons on duplicate deals, and strategy ratings.

Input: the seats table of a ``cardsim compare`` run (columns ``game``, ``assignment``,
``seat``, ``strategy``, ``won``; ``round`` and ``position`` where the game has them).

Per game g (a deal under one seat assignment) and strategy x, ``w_x(g)`` is the share of x's
seats (and rounds) that won. A pairwise comparison of a and b is the mean of
``D(d) = mean over d's games of w_a(g) - w_b(g)`` over deals, with a t-interval over deals
(paired: the deal's luck cancels). The *unpaired* interval is what the same number of games,
each on its own deal, would give (``Var(w_a(g) - w_b(g)) / games``); the variance ratio is the
pairing's gain, shown as the equivalent number of unpaired games.

Ratings: a conditional-logit (Bradley–Terry / Luce) model of which side wins each game —
``P(side s wins) ∝ exp(theta[strategy(s)] + gamma[position(s)])`` — with a position term
(the position after the first player: ATLAS steps after the first player; 原子 the team) so seat effects are not credited to
strategies, and deal-clustered (sandwich) standard errors.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import polars as pl
from cardsim.analysis.model import plural
from cardsim.analysis.stats import holm
from scipy import optimize, stats


def per_game_win_rates(seats: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """``w_x(g)``: one row per played game (``game`` x ``assignment``), one column per strategy:
    the share of x's seats (and rounds) that won it."""
    lf = seats.lazy() if isinstance(seats, pl.DataFrame) else seats
    keys = ["game", "assignment"] if "assignment" in lf.collect_schema().names() else ["game"]
    long = (
        lf.group_by(*keys, "strategy")
        .agg(pl.col("won").cast(pl.Float64).mean().alias("w"))
        .collect()
    )
    wide = long.pivot(on="strategy", index=keys, values="w").sort(keys)
    if "assignment" not in wide.columns:
        wide = wide.with_columns(pl.lit(0, dtype=pl.Int16).alias("assignment"))
    return wide


def deal_differences(w: pl.DataFrame, a: str, b: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """From ``per_game_win_rates``: per game ``d = w_a(g) - w_b(g)`` (games where both sat)
    and ``D(d)``, its mean over each deal's games, sorted by deal."""
    g = w.select("game", (pl.col(a) - pl.col(b)).alias("d"), a, b).drop_nulls()
    return g, g.group_by("game").agg(pl.col("d").mean()).sort("game")


@dataclass(frozen=True)
class PairwiseResult:
    table: pl.DataFrame  # one row per pair
    deals: int


def pairwise(seats: pl.LazyFrame | pl.DataFrame, level: float = 0.95) -> PairwiseResult:
    """Paired differences of win rate for every pair of strategies, Holm-corrected.

    With ``d_g = w_a(g) - w_b(g)`` per game and ``D(d)`` its mean over the games of deal d:
    the paired estimate is the mean of D over deals, its variance ``Var(D) / deals``; the
    unpaired variance — the same number of games, each on its own deal — is
    ``Var(d_g) / games``.

    Columns: ``a``, ``b``, ``deals``, ``games``, ``win_a``, ``win_b``, ``diff`` (win_a − win_b),
    ``lo``/``hi`` (paired interval at ``level``), ``lo_adj``/``hi_adj`` (Bonferroni-adjusted
    simultaneous interval), ``p`` (paired t-test), ``p_holm``, ``unpaired_lo``/``unpaired_hi``,
    ``variance_ratio`` (unpaired / paired variance of the estimate) and
    ``equivalent_unpaired_games`` (independent games needed for the paired precision).
    """
    w = per_game_win_rates(seats)
    names = sorted(c for c in w.columns if c not in ("game", "assignment"))
    pairs = list(itertools.combinations(names, 2))
    rows = []
    for a, b in pairs:
        g, deal = deal_differences(w, a, b)
        n_games, n = g.height, deal.height
        mean = float(g["d"].mean()) if n_games else float("nan")
        var_p = float(deal["d"].var()) / n if n > 1 else float("nan")
        var_u = float(g["d"].var()) / n_games if n_games > 1 else float("nan")
        se_p, se_u = np.sqrt(var_p), np.sqrt(var_u)
        # Student t over deals (docs/report.md); z for the unpaired reference over games
        z = stats.t.ppf(0.5 + level / 2, n - 1) if n > 1 else float("nan")
        z_adj = (
            stats.t.ppf(1 - (1 - level) / (2 * max(len(pairs), 1)), n - 1)
            if n > 1
            else float("nan")
        )
        z_u = stats.norm.ppf(0.5 + level / 2)
        if n > 1 and se_p > 0:
            p = float(2 * stats.t.sf(abs(mean) / se_p, n - 1))
        elif n > 1 and se_p == 0:  # every deal gives the same difference
            p = 1.0 if mean == 0 else 0.0
        else:  # one deal: no test possible
            p = float("nan")
        ratio = var_u / var_p if var_p > 0 else float("nan")
        rows.append(
            {
                "a": a, "b": b, "deals": n, "games": n_games,
                "win_a": float(g[a].mean()), "win_b": float(g[b].mean()), "diff": mean,
                "lo": _clip(mean - z * se_p), "hi": _clip(mean + z * se_p),
                "lo_adj": _clip(mean - z_adj * se_p), "hi_adj": _clip(mean + z_adj * se_p),
                "p": p, "se": se_p,
                "unpaired_lo": _clip(mean - z_u * se_u), "unpaired_hi": _clip(mean + z_u * se_u),
                "variance_ratio": ratio,
                "equivalent_unpaired_games": ratio * n_games if np.isfinite(ratio) else float("nan"),
            }
        )  # fmt: skip
    table = pl.DataFrame(rows)
    if rows:
        pv = table["p"].to_numpy()
        table = table.with_columns(pl.Series("p_holm", holm(pv)))
    return PairwiseResult(table, w["game"].n_unique())


def _clip(x: float) -> float:
    """A difference of win rates lies in [−1, 1]."""
    return float(min(max(x, -1.0), 1.0)) if np.isfinite(x) else x


#: |rating| beyond this (logit scale): one side won (almost) every game against another, the
#: model separates and the rating is not finite. The one threshold of ``compare``, the report
#: and the ladder (docs/ladder.md).
SEPARATION = 8.0


@dataclass(frozen=True)
class Ratings:
    """The rating model's fit. ``table``: strategy, rating, se, lo, hi (logit scale, the first
    strategy = 0 — the first with a finite rating when the first never or always won), ``wins``
    and ``played`` (its side-games with a winner: won, played), ``finite`` (False where the
    model separates: no wins, no losses, or beyond ±:data:`SEPARATION`) and ``bound`` (for
    those, what can be said instead: "below every other: 0 wins in …", a one-sided bound).
    ``cov``: the ratings' covariance (table order; the reference's row and column are 0)."""

    table: pl.DataFrame
    position: pl.DataFrame  # position, effect, se, lo, hi (position 0 = 0)
    units: int  # games (with a winner) the model was fitted on
    cov: np.ndarray | None = None


def _sides(seats: pl.DataFrame, side_column: str) -> pl.DataFrame:
    """One row per (unit, side) with the side's strategy, position and whether it won."""
    unit_keys = [c for c in ("game", "assignment", "round") if c in seats.columns]
    if side_column != "seat":  # sides of several seats (teams): one row per side
        side = seats.group_by(*unit_keys, side_column).agg(
            pl.col("strategy").first(), pl.col("won").max().alias("won")
        )
        return side.rename({side_column: "position"})
    pos = "position" if "position" in seats.columns else "seat"
    return seats.select(*unit_keys, pl.col(pos).alias("position"), "strategy", "won")


def ratings(seats: pl.LazyFrame | pl.DataFrame, game: str, level: float = 0.95) -> Ratings:
    """Fit the conditional-logit rating model (see module docstring); the sides are the game's
    (``facts.side_column``: 原子 teams, ATLAS seats)."""
    from cardsim.analysis.facts import facts

    df = seats.collect() if isinstance(seats, pl.LazyFrame) else seats
    sides = _sides(df, facts(game).side_column)
    unit_keys = [c for c in ("game", "assignment", "round") if c in sides.columns]
    sides = sides.sort(*unit_keys, "position")
    # keep units with exactly one winning side
    wins = sides.group_by(unit_keys).agg(pl.col("won").cast(pl.Int64).sum().alias("nw"))
    sides = sides.join(wins.filter(pl.col("nw") == 1), on=unit_keys).drop("nw")
    sides = sides.sort(*unit_keys, "position")
    strategies = sorted(sides["strategy"].unique().to_list())
    positions = sorted(sides["position"].unique().to_list())
    k = sides.group_by(unit_keys).len()["len"].unique().to_list()
    if len(k) != 1 or sides.height == 0:
        raise ValueError("ratings need the same number of sides in every game")
    k = k[0]
    n_units = sides.height // k
    s_idx = np.searchsorted(strategies, sides["strategy"].to_numpy()).reshape(n_units, k)
    p_idx = np.searchsorted(positions, sides["position"].to_numpy()).reshape(n_units, k)
    won = sides["won"].cast(pl.Int64).to_numpy().reshape(n_units, k).argmax(axis=1)
    deal = sides["game"].to_numpy().reshape(n_units, k)[:, 0]
    n_s, n_p = len(strategies) - 1, len(positions) - 1
    dim = n_s + n_p
    # design: X[u, side, j]
    x = np.zeros((n_units, k, dim))
    for j in range(1, len(strategies)):
        x[:, :, j - 1] = s_idx == j
    for j in range(1, len(positions)):
        x[:, :, n_s + j - 1] = p_idx == j
    rows = np.arange(n_units)

    def nll(beta):
        u = x @ beta
        u_max = u.max(axis=1, keepdims=True)
        lse = np.log(np.exp(u - u_max).sum(axis=1)) + u_max[:, 0]
        p = np.exp(u - lse[:, None])
        grad = -(x[rows, won] - np.einsum("uk,ukj->uj", p, x)).sum(axis=0)
        return float(-(u[rows, won] - lse).sum()), grad

    beta = np.zeros(dim)
    if dim:
        beta = optimize.minimize(nll, beta, jac=True, method="BFGS").x
    u = x @ beta
    p = np.exp(u - u.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    mean_x = np.einsum("uk,ukj->uj", p, x)
    info = np.einsum("uk,ukj,ukl->jl", p, x, x) - np.einsum("uj,ul->jl", mean_x, mean_x)
    score = x[rows, won] - mean_x  # per-unit score vectors
    order = np.argsort(deal, kind="stable")
    _, starts = np.unique(deal[order], return_index=True)
    g = np.add.reduceat(score[order], starts, axis=0) if dim else np.zeros((0, 0))
    inv = np.linalg.pinv(info) if dim else np.zeros((0, 0))
    cov = inv @ (g.T @ g) @ inv if dim else inv
    se = np.sqrt(np.clip(np.diag(cov), 0, None)) if dim else np.zeros(0)
    z = stats.norm.ppf(0.5 + level / 2)

    def frame(names, est, err, label):
        return pl.DataFrame(
            {label: names, "rating" if label == "strategy" else "effect": est,
             "se": err, "lo": est - z * err, "hi": est + z * err}
        )  # fmt: skip

    cov_s = np.zeros((n_s + 1, n_s + 1))
    cov_s[1:, 1:] = cov[:n_s, :n_s]
    wins = np.bincount(s_idx[rows, won], minlength=n_s + 1)
    played = np.bincount(s_idx.ravel(), minlength=n_s + 1)
    est_s, cov_s = _rebase(np.concatenate([[0.0], beta[:n_s]]), cov_s, wins, played)
    se_s = np.sqrt(np.clip(np.diag(cov_s), 0, None))
    est_p = np.concatenate([[0.0], beta[n_s:]])
    se_p = np.concatenate([[0.0], se[n_s:]])
    table = frame(strategies, est_s, se_s, "strategy")
    f = facts(game)
    return Ratings(
        _mark_separated(table, wins, played, plural(f"{f.side}-{f.row_unit}")),
        frame([str(v) for v in positions], est_p, se_p, "position"),
        n_units,
        cov_s,
    )


def _rebase(est: np.ndarray, cov: np.ndarray, wins: np.ndarray, played: np.ndarray):
    """The ratings against the first strategy with a finite rating when the first one (the
    reference, 0) never or always won: against it every other rating is "infinitely" far."""
    extreme = (wins == 0) | (wins == played)
    if not extreme[0] or extreme.all():
        return est, cov
    r = int(np.argmin(extreme))
    t = np.eye(est.size)
    t[:, r] -= 1.0  # rating_j − rating_r
    return t @ est, t @ cov @ t.T


def _mark_separated(
    table: pl.DataFrame, wins: np.ndarray, played: np.ndarray, unit: str
) -> pl.DataFrame:
    """The table with ``wins``, ``played``, ``finite`` and ``bound`` (see :class:`Ratings`)."""
    rating = table["rating"].to_numpy()
    never_won = int(np.sum(wins == 0))  # two that never won are not each below the other
    never_lost = int(np.sum((wins == played) & (played > 0)))
    bound = []
    for w, n, r in zip(wins, played, rating, strict=True):
        share = 1 - 0.05 ** (1 / n) if n else 1.0  # one-sided 95 % bound on 0 of n
        if w == 0:
            who = "every other" if never_won == 1 else "every strategy that won"
            bound.append(
                f"below {who}: 0 wins in {n:,} {unit} (win share < {100 * share:.2g} %, "
                "one-sided 95 %)"
            )
        elif w == n:
            who = "every other" if never_lost == 1 else "every strategy that lost"
            bound.append(
                f"above {who}: {n:,} wins in {n:,} {unit} (loss share < "
                f"{100 * share:.2g} %, one-sided 95 %)"
            )
        elif abs(r) > SEPARATION:
            bound.append(
                f"not finite: beyond ±{SEPARATION:g} (won or lost (almost) every game against "
                f"another; {w:,} wins in {n:,} {unit})"
            )
        else:
            bound.append("")
    return table.with_columns(
        pl.Series("wins", wins, dtype=pl.Int64),
        pl.Series("played", played, dtype=pl.Int64),
        pl.Series("finite", [not b for b in bound], dtype=pl.Boolean),
        pl.Series("bound", bound, dtype=pl.String),
    )


def shown_ratings(table: pl.DataFrame) -> pl.DataFrame:
    """The ratings table as printed and written (compare, report, JSON, ladder): rating, se, lo
    and hi null where the rating is not finite (its ``bound`` says what is known instead)."""
    if "finite" not in table.columns:
        return table
    cols = [c for c in ("rating", "se", "lo", "hi", "rating_lo", "rating_hi") if c in table.columns]
    return table.with_columns(
        pl.when(pl.col("finite")).then(pl.col(c)).otherwise(None).alias(c) for c in cols
    )


def rating_text(row: dict, digits: int = 2, reference: bool = False) -> str:
    """One rating as words: ``+0.52 [+0.40, +0.64]``, or its ``bound`` where it is not finite."""
    if row.get("bound"):
        return str(row["bound"])
    lo = row.get("lo", row.get("rating_lo"))
    hi = row.get("hi", row.get("rating_hi"))
    if reference:
        return f"{row['rating']:+.{digits}f} (the reference)"
    return f"{row['rating']:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"
