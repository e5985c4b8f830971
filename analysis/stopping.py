"""The "main interval" of a run, for ``--until-ci W``: stop once it is narrower than ±W.

- plain run: the first-player advantage — the win rate of the first player (ATLAS: position 0
  among rounds with a winner; 原子: the team of the first half's first leader) — with its 95 %
  Wilson interval;
- comparison run: every pairwise paired difference of win rates (analysis.compare); the
  widest of them must be narrower than ±W.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from statsmodels.stats.proportion import proportion_confint

from analysis.compare import pairwise

#: A runner stop rule (sim.runner.StopRule): (manifest, run dir) -> reason to stop, or None.
StopRule = Callable[[dict, Path], "str | None"]


@dataclass(frozen=True)
class MainInterval:
    label: str
    estimate: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


def scan_finished(out: Path, table: str, manifest: dict) -> pl.LazyFrame:
    """One lazy scan of ``table`` over the run's finished chunks (as ``manifest`` says)."""
    from sim.runner import part_path

    files = [
        part_path(out, table, c["index"]) for c in manifest["chunks"] if c.get("status") == "done"
    ]
    return pl.scan_parquet(files)


def first_player_interval(out: Path, manifest: dict) -> MainInterval:
    """Win rate of the first player's side (engine facts) with its 95 % Wilson interval.

    Counted per games-table row (match or round) that has a winner.
    """
    from sim.games import get_engine

    facts = get_engine(manifest["game"]).facts
    winner = facts.winner_side()
    g = (
        scan_finished(out, "games", manifest)
        .filter(winner.is_not_null())
        .select((facts.first_side() == winner).alias("win"))
    )
    sides = facts.sides(int(manifest["players"]))
    label = f"win rate of the {facts.first_player_label} (expected 1/{sides})"
    row = g.select(pl.col("win").cast(pl.Int64).sum().alias("k"), pl.len().alias("n")).collect()
    k, n = int(row["k"][0] or 0), int(row["n"][0])
    if n == 0:
        return MainInterval(label, float("nan"), 0.0, 1.0, 0)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return MainInterval(label, k / n, float(lo), float(hi), n)


def compare_interval(out: Path, manifest: dict) -> MainInterval:
    """The widest paired 95 % interval among the pairwise differences of a comparison run."""
    table = pairwise(scan_finished(out, "seats", manifest)).table
    widest = table.with_columns(((pl.col("hi") - pl.col("lo")) / 2).alias("hw")).sort("hw")[-1]
    return MainInterval(
        f"win rate {widest['a'][0]} − {widest['b'][0]} (paired)",
        float(widest["diff"][0]), float(widest["lo"][0]), float(widest["hi"][0]),
        int(widest["deals"][0]),
    )  # fmt: skip


def main_interval(out: Path, manifest: dict) -> MainInterval:
    """The interval ``--until-ci`` watches for this run."""
    if manifest.get("assignments"):
        return compare_interval(out, manifest)
    return first_player_interval(out, manifest)


def until_ci_rule(width: float) -> StopRule:
    """A runner stop rule: stop once the main interval's half-width is below ``width``."""

    def rule(manifest: dict, out: Path) -> str | None:
        iv = main_interval(Path(out), manifest)
        manifest["main_interval"] = {
            "label": iv.label, "estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi, "n": iv.n,
            "half_width": iv.half_width, "target_half_width": width,
        }  # fmt: skip
        if iv.n > 0 and iv.half_width < width:
            return f"until_ci: ±{iv.half_width:.4f} < ±{width}"
        return None

    return rule


def sprt_rule(a: str, b: str, delta: float, alpha: float = 0.05, beta: float = 0.05) -> StopRule:
    """A runner stop rule for ``--test a>b``: Wald's sequential probability ratio test.

    On the paired per-deal differences ``D(d)`` of a comparison run (analysis.compare), taken as
    normal with the observed variance: H0 "a is no better than b" (mean 0) against H1 "a beats
    b by ``delta``" (mean ``delta``). After each chunk,
    ``LLR = n · delta · (mean(D) − delta / 2) / Var(D)``; the run stops accepting H1 once
    ``LLR ≥ log((1 − beta) / alpha)`` and accepting H0 once ``LLR ≤ log(beta / (1 − alpha))``:
    error rates alpha (false "a > b") and beta (missed a real ``delta``).
    """
    import math

    from analysis.compare import per_game_win_rates

    upper, lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))

    def rule(manifest: dict, out: Path) -> str | None:
        w = per_game_win_rates(scan_finished(Path(out), "seats", manifest))
        if a not in w.columns or b not in w.columns:
            raise ValueError(f"--test {a}>{b}: the run compares {', '.join(w.columns[2:])}")
        d = (
            w.select("game", (pl.col(a) - pl.col(b)).alias("d"))
            .drop_nulls()
            .group_by("game")
            .agg(pl.col("d").mean())["d"]
        )
        n = d.len()
        var = float(d.var()) if n > 1 else 0.0
        mean = float(d.mean()) if n else 0.0
        llr = n * delta * (mean - delta / 2) / var if var > 0 else 0.0
        verdict = None
        if n > 1 and var > 0 and llr >= upper:
            verdict = f"sprt: accepted H1 ({a} beats {b} by {delta} or more)"
        elif n > 1 and var > 0 and llr <= lower:
            verdict = f"sprt: accepted H0 ({a} does not beat {b} by {delta})"
        manifest["sequential_test"] = {
            "test": f"{a}>{b}", "delta": delta, "alpha": alpha, "beta": beta, "deals": n,
            "mean_diff": mean, "llr": llr, "accept_h1_at": upper, "accept_h0_at": lower,
            "verdict": verdict,
        }  # fmt: skip
        return verdict

    return rule


def first_of(*rules: StopRule | None) -> StopRule | None:
    """Combine stop rules: the first one that gives a reason stops the run."""
    active = [r for r in rules if r is not None]
    if not active:
        return None

    def rule(manifest: dict, out: Path) -> str | None:
        for r in active:
            reason = r(manifest, out)
            if reason:
                return reason
        return None

    return rule
