"""Balance objectives of ``cardsim tune`` and their paired comparison on shared deals.

An objective is a weighted sum of terms (``first_excess``, ``seat_spread``, ``length=TARGET``)
computed per deal from a run's games table; :func:`objective_comparison` compares two runs
(paired when their deals are shared: same root seed, players and deal options). The tuner
(``cardsim tune``) races configurations on these numbers; the study report re-tests a tuned
objective on verify.toml's fresh seeds with them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from cardsim.analysis.stats import ALPHA
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine
from scipy import stats as ss


def _text(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


#: equivalence margins per objective (shares: 0.01 = one percentage point; length: turns/tricks)
MARGINS = {"first_excess": 0.01, "seat_spread": 0.01, "length": 0.5}


#: the length measure, by the name a game's facts.headline uses
LENGTH_MEASURES = ("tricks", "turns", "length")


OBJECTIVES = ("first_excess", "seat_spread", "length")


@dataclass(frozen=True)
class Term:
    name: str
    target: float | None
    weight: float

    def text(self) -> str:
        t = f"={self.target:g}" if self.target is not None else ""
        return f"{self.name}{t}*{self.weight:g}"


@dataclass(frozen=True)
class Objective:
    terms: tuple[Term, ...]

    def text(self) -> str:
        return ",".join(t.text() for t in self.terms)

    def margin(self) -> float:
        return sum(t.weight * MARGINS[t.name] for t in self.terms)


def parse_objective(text: str) -> Objective:
    """``first_excess``, ``length=40``, ``first_excess*1,length=40*0.01`` …

    >>> parse_objective("first_excess,length=40*0.01").text()
    'first_excess*1,length=40*0.01'
    """
    terms = []
    for part in [p.strip() for p in str(text).split(",") if p.strip()]:
        head, _, weight = part.partition("*")
        name, _, target = head.partition("=")
        name = name.strip()
        if name not in OBJECTIVES:
            raise CardsimError(
                f"--objective {text}: unknown objective {name!r} (allowed: first_excess, "
                "seat_spread, length=TARGET; combine as NAME[=TARGET][*WEIGHT],…)"
            )
        try:
            w = float(weight) if weight else 1.0
            tv = float(target) if target else None
        except ValueError:
            raise CardsimError(f"--objective {text}: {part!r} has a bad number") from None
        if not (math.isfinite(w) and w > 0):
            raise CardsimError(f"--objective {text}: weights must be positive numbers")
        if name == "length" and tv is None:
            raise CardsimError(f"--objective {text}: length needs a target, e.g. length=40")
        if name == "length" and not (math.isfinite(tv) and tv > 0):
            raise CardsimError(
                f"--objective {text}: the length target must be a positive number (the "
                f"game's length unit: turns or tricks per game), got {target.strip()}"
            )
        if name != "length" and tv is not None:
            raise CardsimError(f"--objective {text}: {name} takes no target")
        terms.append(Term(name, tv, w))
    if not terms:
        raise CardsimError("--objective: give an objective, e.g. first_excess")
    return Objective(tuple(terms))


@dataclass
class DealData:
    """Per-deal values of one configuration over some rungs (deals in order)."""

    first: np.ndarray  # first side's win share per deal (mean over a match's rounds)
    wins: np.ndarray  # deals x sides: win share of each side
    length: np.ndarray  # mean length per deal
    fair: float

    @staticmethod
    def concat(parts: list[DealData]) -> DealData:
        return DealData(
            np.concatenate([p.first for p in parts]),
            np.vstack([p.wins for p in parts]),
            np.concatenate([p.length for p in parts]),
            parts[0].fair,
        )


def objective_values(obj: Objective, d: DealData) -> tuple[float, np.ndarray]:
    """(objective estimate, per-deal influence values whose mean's SE is its SE)."""
    total, psi = 0.0, np.zeros(d.first.size)
    for t in obj.terms:
        if t.name == "first_excess":
            dev = d.first.mean() - d.fair
            total += t.weight * abs(dev)
            psi += t.weight * (1.0 if dev >= 0 else -1.0) * d.first
        elif t.name == "seat_spread":
            rates = d.wins.mean(axis=0)
            hi, lo = int(np.argmax(rates)), int(np.argmin(rates))
            total += t.weight * (rates[hi] - rates[lo])
            psi += t.weight * (d.wins[:, hi] - d.wins[:, lo])
        else:
            dev = d.length.mean() - t.target
            total += t.weight * abs(dev)
            psi += t.weight * (1.0 if dev >= 0 else -1.0) * d.length
    return float(total), psi


def term_measures(obj: Objective, d: DealData, length_label: str = "length") -> dict[str, str]:
    """Each term's measure itself, not its distance (issue 45 item 4): ``length=40`` → "turns
    per round 47.6 (target 40)", ``first_excess`` → "first side's win share 26.4 % (fair
    25.0 %)", ``seat_spread`` → "win shares 22.1 % to 27.9 %". Keyed by the term's text."""
    out = {}
    for t in obj.terms:
        key = t.text().rsplit("*", 1)[0]
        if t.name == "first_excess":
            out[key] = (
                f"first side's win share {100 * d.first.mean():.1f} % (fair {100 * d.fair:.1f} %)"
            )
        elif t.name == "seat_spread":
            rates = d.wins.mean(axis=0)
            out[key] = f"win shares {100 * rates.min():.1f} % to {100 * rates.max():.1f} %"
        else:
            out[key] = f"{length_label} {d.length.mean():.1f} (target {t.target:g})"
    return out


def se_of_mean(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


def deal_data(run_dir: Path, engine: GameEngine, players: int, sides: list[str]) -> DealData:
    facts = engine.facts
    from cardsim.sim.game import first_side_wins

    length = next(
        (m for m in facts.headline if m.name in LENGTH_MEASURES and m.value is not None), None
    )

    parts = sorted((run_dir / "games").glob("part-*.parquet"))
    lf = pl.scan_parquet(parts)
    exprs = [
        first_side_wins(facts).cast(pl.Float64).alias("_first"),
        facts.winner_side().cast(pl.String).alias("_winner"),
    ]
    if length is not None:
        exprs.append(length.value(facts).cast(pl.Float64).alias("_length"))
    else:
        exprs.append(pl.lit(float("nan")).alias("_length"))
    rows = lf.select(pl.col("game"), *exprs)
    per = (
        rows.group_by("game")
        .agg(
            pl.col("_first").mean(),
            pl.col("_length").mean(),
            *[
                (pl.col("_winner") == s).fill_null(False).mean().alias(f"_w{i}")
                for i, s in enumerate(sides)
            ],
        )
        .sort("game")
        .collect()
    )
    wins = np.column_stack([per[f"_w{i}"].to_numpy() for i in range(len(sides))])
    return DealData(
        per["_first"].to_numpy(), wins, per["_length"].to_numpy(), facts.fair_share(players)
    )


def side_labels(run_dirs: list[Path], engine: GameEngine, players: int) -> list[str]:
    facts = engine.facts
    labels: set[str] = set()
    for d in run_dirs:
        lf = pl.scan_parquet(sorted((d / "games").glob("part-*.parquet")))
        got = lf.select(
            pl.concat_list(facts.first_side().cast(pl.String), facts.winner_side().cast(pl.String))
            .explode()
            .drop_nulls()
            .unique()
            .alias("s")
        ).collect()
        labels |= set(got["s"].to_list())
    labels_sorted = sorted(labels, key=lambda s: (len(s), s))
    if len(labels_sorted) < facts.sides(players):  # a side that never led nor won
        labels_sorted += [f"?{i}" for i in range(facts.sides(players) - len(labels_sorted))]
    return labels_sorted


def deal_differences(engine: GameEngine, a: dict, b: dict) -> list[str]:
    """The options that change the cards dealt (``facts.deal_options``, ATLAS AT-D1..D3) whose
    values differ between two rule sets (missing: the option's default)."""
    table = engine.rule_options

    def value(rules: dict, o: str) -> str:
        return _text(rules[o]) if o in rules else _text(table[o].default)

    return [o for o in engine.facts.deal_options if o in table and value(a, o) != value(b, o)]


def objective_comparison(objective: str, run_a: Path | str, run_b: Path | str) -> dict:
    """The objective of two runs of one game (e.g. verify.toml's winner and default): each
    one's estimate and SE, and ``a − b`` — paired on the shared deals when the runs share seed,
    player count and deal rules, else as independent samples (SEs added in quadrature).

    Keys: ``objective``, ``a``/``b`` (estimate, se, lo, hi, deals), ``diff``, ``se``, ``lo``,
    ``hi``, ``p_two`` (two-sided), ``p_better`` (one-sided: a is not better), ``deals``,
    ``paired``, ``label``, ``margin``, ``verdict``, ``p_tost``, ``needed``."""
    from cardsim.analysis.factorial import verdict
    from cardsim.sim.games import get_engine
    from cardsim.sim.runner import read_manifest

    obj = parse_objective(objective)
    ma, mb = read_manifest(Path(run_a)), read_manifest(Path(run_b))
    if ma["game"] != mb["game"]:
        raise CardsimError("objective comparison: the runs must be of one game")
    engine = get_engine(ma["game"])
    sides = side_labels([Path(run_a), Path(run_b)], engine, ma["players"])
    da = deal_data(Path(run_a), engine, ma["players"], sides)
    db = deal_data(Path(run_b), engine, mb["players"], sides)
    diffs = deal_differences(engine, ma.get("rules", {}), mb.get("rules", {}))
    paired = ma["seed"] == mb["seed"] and ma["players"] == mb["players"] and not diffs
    z = ss.norm.ppf(1 - ALPHA / 2)
    one = {}
    for tag, d in (("a", da), ("b", db)):
        est, psi = objective_values(obj, d)
        se_ = se_of_mean(psi)
        one[tag] = {"estimate": est, "se": se_, "lo": max(0.0, est - z * se_),
                    "hi": est + z * se_, "deals": int(d.first.size)}  # fmt: skip
    if paired:
        k = min(da.first.size, db.first.size)
        trim = [DealData(d.first[:k], d.wins[:k], d.length[:k], d.fair) for d in (da, db)]
        diff, se, deals = paired_difference(obj, [trim[0]], [trim[1]])
        label = f"paired on {deals:,} shared deals (same root seed)"
    else:
        diff = one["a"]["estimate"] - one["b"]["estimate"]
        se = math.hypot(one["a"]["se"], one["b"]["se"])
        deals = min(one["a"]["deals"], one["b"]["deals"])
        why = f"{', '.join(diffs)} changes the cards dealt" if diffs else "other seeds or players"
        label = f"independent samples ({why})"
    p_two = float(2 * ss.norm.sf(abs(diff) / se)) if se > 0 else float(diff == 0)
    margin = obj.margin()
    v, p_tost, need = verdict(diff, se, p_two, margin, deals)
    return {
        "objective": obj.text(), "a": one["a"], "b": one["b"], "diff": float(diff),
        "se": float(se), "lo": float(diff - z * se), "hi": float(diff + z * se),
        "p_two": p_two, "p_better": float(ss.norm.cdf(diff / se)) if se > 0 else float(diff >= 0),
        "deals": int(deals), "paired": paired, "label": label, "margin": margin,
        "verdict": v, "p_tost": p_tost, "needed": need,
    }  # fmt: skip


def compare_runs(
    objective: str, run_a: Path | str, run_b: Path | str
) -> tuple[float, float, float, int]:
    """Objective of run ``a`` minus that of run ``b``, paired on their deals (two runs of one
    game and seed, e.g. the scenarios of ``verify.toml``): (difference, SE, one-sided p that
    ``a`` is not better, deals)."""
    from cardsim.sim.games import get_engine
    from cardsim.sim.runner import read_manifest

    obj = parse_objective(objective)
    ma, mb = read_manifest(Path(run_a)), read_manifest(Path(run_b))
    if (ma["game"], ma["seed"], ma["players"]) != (mb["game"], mb["seed"], mb["players"]):
        raise CardsimError("compare_runs: the runs must share game, seed and players")
    engine = get_engine(ma["game"])
    sides = side_labels([Path(run_a), Path(run_b)], engine, ma["players"])
    da = deal_data(Path(run_a), engine, ma["players"], sides)
    db = deal_data(Path(run_b), engine, mb["players"], sides)
    k = min(da.first.size, db.first.size)
    trim = [DealData(d.first[:k], d.wins[:k], d.length[:k], d.fair) for d in (da, db)]
    diff, se, deals = paired_difference(obj, [trim[0]], [trim[1]])
    p = float(ss.norm.cdf(diff / se)) if se > 0 else float(diff >= 0)
    return diff, se, p, deals


def paired_difference(
    obj: Objective, a: list[DealData], b: list[DealData]
) -> tuple[float, float, int]:
    """Objective of ``a`` minus that of ``b`` on the rungs both played (the same deals), with
    the paired SE; returns (difference, SE, deals)."""
    k = min(len(a), len(b))
    da, db = DealData.concat(a[:k]), DealData.concat(b[:k])
    ea, pa = objective_values(obj, da)
    eb, pb = objective_values(obj, db)
    return ea - eb, se_of_mean(pa - pb), int(da.first.size)
