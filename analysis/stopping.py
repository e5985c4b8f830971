"""The "main interval" of a run, for ``--until-ci W``: stop once it is narrower than ±W.

- plain run: the first-player advantage — the win rate of the first player (ATLAS: position 0
  among rounds with a winner; 原子: the team of the first half's first leader) — with its 95 %
  Wilson interval;
- comparison run: every pairwise paired difference of win rates (cardsim.analysis.compare); the
  widest of them must be narrower than ±W.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from cardsim.analysis.compare import pairwise
from cardsim.sim import rundir
from cardsim.sim.errors import CardsimError
from statsmodels.stats.proportion import proportion_confint

#: A runner stop rule (cardsim.sim.runner.StopRule): (manifest, run dir) -> reason to stop, or None.
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
    return rundir.scan_finished(out, table, manifest)


def first_player_interval(out: Path, manifest: dict) -> MainInterval:
    """Win rate of the first player's side (engine facts) with its 95 % Wilson interval.

    Counted per games-table row (match or round) that has a winner.
    """
    from cardsim.sim.games import get_engine

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


class SPRT:
    """A runner stop rule for ``--test a>b``: Wald's sequential probability ratio test,
    evaluated after every deal (in deal order), so the run stops at the first crossing.

    On the paired per-deal differences ``D(d)`` of a comparison run (cardsim.analysis.compare), taken as
    normal: H0 "a is no better than b" (mean 0) against H1 "a beats b by ``delta``" (mean
    ``delta``). After deal n, ``LLR = n · delta · (mean(D) − delta / 2) / V``; the run stops
    accepting H1 once ``LLR ≥ log((1 − beta) / alpha)`` and accepting H0 once
    ``LLR ≤ log(beta / (1 − alpha))``: error rates alpha (false "a > b") and beta (missed a
    real ``delta``). ``V`` is the sample variance of D, but at least ``1/n`` — the variance one
    discordant deal among n gives — so a difference that has not varied (identical play: D = 0
    on every deal) still decides instead of dividing by zero.

    The state is running sums over deals in game order, added one deal at a time from the
    carried sums: the same deal stops the run for any chunk or sub-chunk size, and on
    ``--resume`` the sums are rebuilt from the finished chunks.
    """

    def __init__(self, a: str, b: str, delta: float, alpha: float = 0.05, beta: float = 0.05):
        import math

        self.a, self.b, self.delta, self.alpha, self.beta = a, b, delta, alpha, beta
        self.upper, self.lower = math.log((1 - beta) / alpha), math.log(beta / (1 - alpha))
        self.n, self.s, self.q, self.llr = 0, 0.0, 0.0, 0.0
        self.verdict: str | None = None

    def _diffs(self, seats: pl.DataFrame | pl.LazyFrame) -> tuple[np.ndarray, np.ndarray]:
        from cardsim.analysis.compare import per_game_win_rates

        w = per_game_win_rates(seats)
        if self.a not in w.columns or self.b not in w.columns:
            names = [c for c in w.columns if c not in ("game", "assignment")]
            raise CardsimError(f"--test {self.a}>{self.b}: the run compares {', '.join(names)}")
        d = (
            w.select("game", (pl.col(self.a) - pl.col(self.b)).alias("d"))
            .drop_nulls()
            .group_by("game")
            .agg(pl.col("d").mean())
            .sort("game")
        )
        return d["game"].to_numpy(), d["d"].to_numpy().astype(np.float64)

    def _feed(self, games: np.ndarray, d: np.ndarray) -> int | None:
        """Add deals in order; the position of the first deciding one, or None."""
        if len(d) == 0:
            return None
        s = np.cumsum(np.concatenate([[self.s], d]))[1:]  # sequential from the carried sums
        q = np.cumsum(np.concatenate([[self.q], d * d]))[1:]
        n = self.n + np.arange(1, len(d) + 1, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = s / n
            var = np.where(n > 1, (q - s * mean) / np.maximum(n - 1, 1), 0.0)
            var = np.maximum(var, 1.0 / n)
            llr = n * self.delta * (mean - self.delta / 2) / var
        ok = n > 1
        hit = np.flatnonzero(ok & ((llr >= self.upper) | (llr <= self.lower)))
        last = int(hit[0]) if len(hit) else len(d) - 1
        self.n, self.s, self.q = int(n[last]), float(s[last]), float(q[last])
        self.llr = float(llr[last])
        if not len(hit):
            return None
        if self.llr >= self.upper:
            self.verdict = f"sprt: accepted H1 ({self.a} beats {self.b} by {self.delta} or more)"
        else:
            self.verdict = f"sprt: accepted H0 ({self.a} does not beat {self.b} by {self.delta})"
        return last

    def start(self, out: Path, manifest: dict, before: list[dict]) -> None:
        """Rebuild the sums from the finished chunks that precede the ones still to play."""
        self.n, self.s, self.q, self.llr, self.verdict = 0, 0.0, 0.0, 0.0, None
        for c in before:
            seats = pl.read_parquet(rundir.part_path(out, "seats", c["index"]))
            self._feed(*self._diffs(seats))

    def batch(self, games: pl.DataFrame, seats: pl.DataFrame) -> tuple[int, str] | None:
        """The runner's per-sub-chunk call: (deals to keep, verdict) at the first crossing."""
        if self.verdict is not None:
            return None
        index, d = self._diffs(seats)
        at = self._feed(index, d)
        if at is None:
            return None
        first = int(games["game"].min())
        return int(index[at]) - first + 1, self.verdict

    def record(self) -> dict:
        return {
            "test": f"{self.a}>{self.b}", "delta": self.delta, "alpha": self.alpha,
            "beta": self.beta, "deals": self.n, "mean_diff": self.s / self.n if self.n else 0.0,
            "llr": self.llr, "accept_h1_at": self.upper, "accept_h0_at": self.lower,
            "verdict": self.verdict,
        }  # fmt: skip

    def __call__(self, manifest: dict, out: Path) -> str | None:
        """After each chunk: record the state in the manifest (crossings come from batch)."""
        manifest["sequential_test"] = self.record()
        return self.verdict


def sprt_rule(a: str, b: str, delta: float, alpha: float = 0.05, beta: float = 0.05) -> SPRT:
    """A runner stop rule for ``--test a>b`` (see :class:`SPRT`)."""
    return SPRT(a, b, delta, alpha, beta)


class FirstOf:
    """Stop rules combined: the first one that gives a reason stops the run."""

    def __init__(self, rules: list) -> None:
        self.rules = rules
        self.within = [r for r in rules if hasattr(r, "batch")]

    def __call__(self, manifest: dict, out: Path) -> str | None:
        reasons = [r(manifest, out) for r in self.rules]  # each records its state
        return next((x for x in reasons if x), None)


class FirstOfSequential(FirstOf):
    """:class:`FirstOf` with a rule evaluated deal by deal (the runner calls start/batch)."""

    def start(self, out: Path, manifest: dict, before: list[dict]) -> None:
        for r in self.within:
            r.start(out, manifest, before)

    def batch(self, games: pl.DataFrame, seats: pl.DataFrame):
        for r in self.within:
            decided = r.batch(games, seats)
            if decided:
                return decided
        return None


def first_of(*rules: StopRule | None) -> StopRule | None:
    """Combine stop rules: the first one that gives a reason stops the run."""
    active = [r for r in rules if r is not None]
    if not active:
        return None
    if len(active) == 1:
        return active[0]
    if any(hasattr(r, "batch") for r in active):
        return FirstOfSequential(active)
    return FirstOf(active)


# --- repeated looks: alpha spending (cardsim ladder --until-decided) ----------------------------

#: Spending functions of a total error rate ``alpha`` over the information fraction ``t``
#: (Lan & DeMets 1983): how much of ``alpha`` may be spent by the look at ``t`` (0 < t <= 1).
SPENDING = ("pocock", "obrien-fleming")


def alpha_spent(t: float, alpha: float = 0.05, kind: str = "pocock") -> float:
    """Cumulative error rate spent by information fraction ``t``: Pocock-type
    ``alpha · ln(1 + (e − 1) t)`` (even shares: decides early) or O'Brien–Fleming-type
    ``2 − 2 Φ(z_{1 − alpha/2} / √t)`` (almost nothing early, nearly all of ``alpha`` at the end).

    >>> round(alpha_spent(1.0), 6), round(alpha_spent(1.0, kind="obrien-fleming"), 6)
    (0.05, 0.05)
    """
    from scipy.stats import norm

    if kind not in SPENDING:
        raise CardsimError(f"--spending must be one of {', '.join(SPENDING)}, got {kind!r}")
    t = min(max(float(t), 0.0), 1.0)
    if t == 0.0:
        return 0.0
    if kind == "pocock":
        return float(alpha * np.log1p((np.e - 1.0) * t))
    return float(2.0 - 2.0 * norm.cdf(norm.ppf(1.0 - alpha / 2.0) / np.sqrt(t)))


def look_levels(looks: int, alpha: float = 0.05, kind: str = "pocock") -> list[float]:
    """The level of each of ``looks`` equally spaced looks: the increments of
    :func:`alpha_spent`. They add up to ``alpha``, so testing look k at level ``levels[k]`` keeps
    the chance of any wrong verdict over all looks at most ``alpha`` by the union bound, for
    any dependence between the looks (conservative against exact group-sequential bounds, which
    use the looks' correlation) and wherever the looks stop (a budget of time that ends them
    early spends less).

    >>> [round(x, 4) for x in look_levels(4)]
    [0.0179, 0.0131, 0.0104, 0.0086]
    """
    if looks < 1:
        raise CardsimError(f"need at least one look, got {looks}")
    spent = [alpha_spent(k / looks, alpha, kind) for k in range(looks + 1)]
    return [b - a for a, b in zip(spent, spent[1:], strict=False)]
