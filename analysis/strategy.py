"""Strategy effect within a plain run whose seats carry different strategies.

A strategy's win share is compared with its **seat-adjusted expectation** (what it would win
if every strategy played alike, given the seats it sits in), never with its share of the seats:
in ATLAS the first player has an edge, so a strategy at seat 0 would otherwise look better than
the same strategy at seat 2. The model (:func:`seat_adjusted`) needs only the table of games
counted by (first player's side, winning side). Unit: one game (``facts.row_unit``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import polars as pl
from cardsim.analysis import plots, stats
from cardsim.analysis.exprs import with_rate
from cardsim.analysis.facts import facts
from cardsim.analysis.model import Figure, Finding, RunData, Section, Table, plural, pm, prefix
from cardsim.sim.schema import strategy_label
from scipy import optimize
from scipy.stats import norm

KEY = "strategy"


def side_units(strategies: list[str], side_of_seat: dict[int, int]) -> dict[int, str]:
    """The strategy unit of every side: a seat's strategy, or a team's line-up ``a + b``
    (strategies by their table labels: ``mybot:choose``, ``pimc:samples=4``)."""
    short = [strategy_label(s) for s in strategies]
    sides: dict[int, list[str]] = {}
    for seat, side in sorted(side_of_seat.items()):
        sides.setdefault(side, []).append(short[seat])
    return {side: " + ".join(names) for side, names in sorted(sides.items())}


def first_winner_counts(games: pl.LazyFrame, f) -> pl.LazyFrame:
    """Games with a winner, counted by (first player's side, winning side): all the
    seat-adjusted model needs (an S × S table, whatever the run size)."""
    return (
        games.select(
            f.first_side().to_physical().cast(pl.Int64).alias("first"),
            f.winner_side().to_physical().cast(pl.Int64).alias("winner"),
        )
        .drop_nulls()
        .group_by("first", "winner")
        .agg(c=pl.len().cast(pl.Int64))
        .sort("first", "winner")
    )


@dataclass(frozen=True)
class Adjusted:
    """Seat-adjusted strategy effects of a plain run (see :func:`seat_adjusted`)."""

    table: pl.DataFrame
    identified: bool
    note: str = ""


def seat_adjusted(counts: pl.DataFrame, units: dict[int, str]) -> Adjusted:
    """Strategy effect against the seat-adjusted expectation, from the (first, winner) counts.

    Model (conditional logit, one choice per game among the sides): ``P(side j wins | first
    side f) ∝ exp(θ[unit(j)] + γ[(j − f) mod S])`` — a strategy term and a position term, so a
    strategy that sits in an advantaged seat is not credited with the seat's advantage. It
    conditions on the first player's side (ATLAS: the previous winner), so it holds for rounds
    that follow each other. The *expected* share of unit x is its win share with every θ = 0
    and the fitted γ; its *effect* is the observed share (= the fitted share) minus that, with a
    delta-method interval; ``p``: Wald test of the effect.
    """
    sides = sorted(units)
    S = len(sides)
    names = sorted(set(units.values()))
    c = _counts_matrix(counts, sides)
    n = c.sum()
    n_f = c.sum(axis=1)
    n_t, n_g = len(names) - 1, S - 1
    dim = n_t + n_g
    x = _design(sides, units, names)  # x[f, j, :]

    def probs(beta):
        u = x @ beta
        u = u - u.max(axis=1, keepdims=True)
        p = np.exp(u)
        return p / p.sum(axis=1, keepdims=True)

    def nll(beta):
        p = probs(beta)
        val = -float((c * np.log(np.clip(p, 1e-300, None))).sum())
        grad = -(np.einsum("fj,fjk->k", c, x) - np.einsum("f,fj,fjk->k", n_f, p, x))
        return val, grad

    beta = optimize.minimize(nll, np.zeros(dim), jac=True, method="BFGS").x if dim else np.zeros(0)
    p = probs(beta)
    m = np.einsum("fj,fjk->fk", p, x)
    info = np.einsum("f,fj,fjk,fjl->kl", n_f, p, x, x) - np.einsum("f,fk,fl->kl", n_f, m, m)
    identified = bool(n > 0 and np.linalg.matrix_rank(info, tol=1e-8 * max(n, 1)) == dim)
    cov = np.linalg.pinv(info) if dim else np.zeros((0, 0))

    def share(beta_, unit, strategy_effects: bool = True):
        b = beta_.copy()
        if not strategy_effects:
            b[:n_t] = 0
        pr = probs(b)
        cols = [j for j in range(S) if units[sides[j]] == unit]
        return float((n_f[:, None] * pr[:, cols]).sum() / n)

    rows = []
    for unit in names:
        cols = [j for j in range(S) if units[sides[j]] == unit]
        wins = int(c[:, cols].sum())
        expected = share(beta, unit, False) if identified else float("nan")
        effect = wins / n - expected if n else float("nan")
        grad = _effect_gradient(share, beta, unit, dim)
        se = float(np.sqrt(max(grad @ cov @ grad, 0.0))) if identified else float("nan")
        z = effect / se if se and se > 0 else float("nan")
        u = names.index(unit)
        rows.append(
            {
                "strategy": unit,
                "wins": wins,
                "n": int(n),
                "share": len(cols) / S,
                "expected": expected,
                "effect": effect,
                "effect_lo": max(effect - 1.96 * se, -1.0) if np.isfinite(se) else float("nan"),
                "effect_hi": min(effect + 1.96 * se, 1.0) if np.isfinite(se) else float("nan"),
                "se": se,
                "logit": float(beta[u - 1]) if u > 0 else 0.0,
                "p": float(2 * norm.sf(abs(z))) if np.isfinite(z) else float("nan"),
            }
        )
    note = (
        ""
        if identified
        else "the strategies never change seats relative to the first player here, so their "
        "effect cannot be told apart from the seat's; use cardsim compare"
    )
    return Adjusted(pl.DataFrame(rows), identified, note)


def _counts_matrix(counts: pl.DataFrame, sides: list[int]) -> np.ndarray:
    """c[f, j]: games with first side f that side j won."""
    c = np.zeros((len(sides), len(sides)))
    for r in counts.iter_rows(named=True):
        c[sides.index(r["first"]), sides.index(r["winner"])] += r["c"]
    return c


def _design(sides: list[int], units: dict[int, str], names: list[str]) -> np.ndarray:
    """x[f, j, :]: side j's strategy dummies (first name the baseline), then its position after f."""
    S = len(sides)
    n_t = len(names) - 1
    x = np.zeros((S, S, n_t + S - 1))
    for f in range(S):
        for j in range(S):
            u = names.index(units[sides[j]])
            if u > 0:
                x[f, j, u - 1] = 1
            pos = (j - f) % S
            if pos > 0:
                x[f, j, n_t + pos - 1] = 1
    return x


def _effect_gradient(share, beta: np.ndarray, unit: str, dim: int) -> np.ndarray:
    """Central-difference gradient of the effect (share minus expected share) in beta."""
    eps = 1e-5
    grad = np.zeros(dim)
    for k in range(dim):
        e = np.zeros(dim)
        e[k] = eps
        grad[k] = (
            (share(beta + e, unit) - share(beta + e, unit, False))
            - (share(beta - e, unit) - share(beta - e, unit, False))
        ) / (2 * eps)
    return grad


def label_rates(seats: pl.LazyFrame, f) -> pl.LazyFrame:
    """Comparison runs: share of the decided games won by a side carrying each strategy label,
    beside the label's share of the sides (descriptive: the paired comparison of the labels is
    in "Strategy comparison on duplicate deals", where each pair is one question)."""
    keys = [c for c in ("game", "assignment", "round") if c in seats.collect_schema().names()]
    sides = seats.group_by(*keys, f.side_column).agg(
        pl.col("strategy").first().cast(pl.String), pl.col("won").any()
    )
    decided = sides.group_by(keys).agg(pl.col("won").any().alias("d")).filter(pl.col("d"))
    rows = sides.join(decided.select(keys), on=keys)
    n = decided.select(n=pl.len().cast(pl.Int64))
    total = rows.select(total=pl.len().cast(pl.Float64))
    per = (
        rows.group_by("strategy")
        .agg(wins=pl.col("won").cast(pl.Int64).sum(), sides=pl.len().cast(pl.Float64))
        .join(n, how="cross")
        .join(total, how="cross")
        .with_columns(expected=pl.col("sides") / pl.col("total"))
    )
    return with_rate(per.select("strategy", "wins", "n", "expected").sort("strategy"), "wins")


def queries(run) -> dict[str, pl.LazyFrame]:
    f = facts(run.game)
    if run.is_comparison:
        return {"labels": label_rates(run.seats, f)}
    if len(set(run.strategies)) < 2:
        return {}
    return {
        "counts": first_winner_counts(run.games, f),
        "side_of_seat": run.seats.select(
            pl.col("seat").cast(pl.Int64),
            pl.col(f.side_column).to_physical().cast(pl.Int64).alias("side"),
        ).unique(),
    }


def section(items: list[RunData]) -> Section:
    f = facts(items[0].run.game)
    unit = f.row_unit
    sec = Section(
        KEY,
        "Strategy effect",
        f"Share of the {plural(unit)} with a winner that a {f.side} playing each strategy won, "
        f"against the **seat-adjusted expectation**: the share it would win if every strategy "
        f"played alike, given the {f.side}s it sits in (a conditional-logit model with a "
        f"strategy and a position term, fitted on who won each {unit} given the "
        f"{f.first_player_label}). Never against seats / n: a strategy in an advantaged seat "
        "would be credited with the seat's advantage. Comparison runs rotate the strategies "
        "over the seats instead; their shares below are descriptive and the paired answer is "
        "in 'Strategy comparison on duplicate deals'.",
    )
    frames, label_frames = [], []
    for it in items:
        pre = prefix(items, it)
        if it.run.is_comparison:
            df = it.get(f"{KEY}.labels")
            label_frames.append(df.select(pl.lit(it.label).alias("run"), pl.all()))
            _add_label_findings(sec, df, pre, f)
            continue
        if f"{KEY}.counts" not in it.data:
            sec.notes.append(
                f"{pre}every seat plays {it.run.strategies[0]!r}: no strategy comparison."
            )
            continue
        side_of_seat = dict(it.get(f"{KEY}.side_of_seat").iter_rows())
        units = side_units(it.run.strategies, side_of_seat)
        if len(set(units.values())) < 2:
            sec.notes.append(f"{pre}every {f.side} has the same line-up: no strategy comparison.")
            continue
        adj = seat_adjusted(it.get(f"{KEY}.counts"), units)
        if not adj.identified:
            sec.notes.append(f"{pre}{adj.note}.")
        t = adj.table
        lo, hi = stats.wilson(t["wins"].to_numpy(), t["n"].to_numpy())
        t = t.with_columns(
            rate=pl.col("wins") / pl.col("n"), rate_lo=pl.Series(lo), rate_hi=pl.Series(hi)
        ).select(
            "strategy", "wins", "n", "rate", "rate_lo", "rate_hi", "share", "expected",
            "effect", "effect_lo", "effect_hi", "se", "logit", "p",
        )  # fmt: skip
        offset = sum(fr.height for fr in frames)
        frames.append(t.select(pl.lit(it.label).alias("run"), pl.all()))
        _add_rate_findings(sec, t, adj.identified, pre, f, offset)
    if frames:
        _add_rates_table(sec, frames, len(items), f)
    if label_frames:
        df = pl.concat(label_frames, how="diagonal_relaxed")
        if len(items) == 1:
            df = df.drop("run")
        sec.tables.append(
            Table(
                "labels",
                "Comparison runs: share won per strategy label (descriptive)",
                df,
                ("rate", "expected"),
                unit=unit,
            )
        )
    return sec


def _add_label_findings(sec: Section, df: pl.DataFrame, pre: str, f) -> None:
    """A comparison run: the share each strategy label won, pooled over the assignments."""
    unit = f.row_unit
    for r in df.iter_rows(named=True):
        sec.findings.append(
            Finding(
                f"{pre}{r['strategy']} won {pm(r['rate'], r['rate_lo'], r['rate_hi'])} "
                f"of the decided {plural(unit)} (its share of the {f.side}s: "
                f"{100 * r['expected']:.1f} %; pooled over the seat assignments).",
                unit=unit,
            )
        )


def _add_rate_findings(
    sec: Section, t: pl.DataFrame, identified: bool, pre: str, f, offset: int
) -> None:
    """One finding per strategy: its win share against the seat-adjusted expectation."""
    unit = f.row_unit
    # the effects of the units sum to zero: the most common strategy is the baseline (a
    # described fact), every other one is a question, so each comparison counts once
    baseline = max(t.iter_rows(named=True), key=lambda r: (r["share"], r["strategy"]))["strategy"]
    for i, r in enumerate(t.iter_rows(named=True)):
        eff = pm(r["effect"], r["effect_lo"], r["effect_hi"]).replace(" %", "")
        won = (
            f"{pre}{r['strategy']} wins {pm(r['rate'], r['rate_lo'], r['rate_hi'])} of "
            f"{plural(unit)}"
        )
        base = (
            f"{won} against a seat-adjusted expectation of {100 * r['expected']:.1f} % "
            f"(its share of the {f.side}s: {100 * r['share']:.1f} %): effect {eff} points "
            f"(n = {r['n']:,})."
            if identified
            else f"{won} (its share of the {f.side}s: {100 * r['share']:.1f} %; not "
            f"separable from the seat in this run, n = {r['n']:,})."
        )
        sec.findings.append(
            Finding(
                base,
                base,
                r["p"] if identified and r["strategy"] != baseline else None,
                unit=unit,
                estimate=r["effect"],
                se=r["se"] if np.isfinite(r["se"]) else None,
                n=r["n"],
                measure="win rate",
                table="rates",
                row=offset + i,
                answer=True,
            )
        )


def _add_rates_table(sec: Section, frames: list[pl.DataFrame], runs: int, f) -> None:
    unit = f.row_unit
    df = pl.concat(frames, how="diagonal_relaxed").drop("se")
    if runs == 1:
        df = df.drop("run")
    sec.tables.append(
        Table(
            "rates",
            "Strategy effect against the seat-adjusted expectation",
            df,
            ("rate", "share", "expected", "effect"),
            "expected: the share with every strategy alike, given the seats; share: of the "
            f"{f.side}s; logit: strategy term of the model ({df['strategy'].min()} = 0).",
            unit=unit,
        )
    )
    sec.figures.append(
        Figure(
            "rates",
            "strategy win rates",
            partial(
                plots.bar_rates,
                df,
                "strategy",
                group="run" if "run" in df.columns else None,
                expected="expected" if "run" not in df.columns else None,
                title="Win share per strategy (95 % CI) and the seat-adjusted expectation",
                xlabel="strategy",
            ),
        )
    )
