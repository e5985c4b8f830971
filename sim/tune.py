"""Balance search (``cardsim tune``): the rule set that best meets an objective, by racing.

The search space is a set of rule options with their levels (``--options``: every value of a
choice or bool option; an integer option's range by its step, at most 21 levels, or listed /
ranged integer levels). Every configuration of the space is
a candidate (a random sample of them when there are more than the budget can race). The race
is **successive halving on common random numbers**:

- rung r plays ``n_r`` games of every surviving configuration, all on the same deals (the
  rung's seed is ``seed + r`` for everyone), into ``OUT/configs/<id>/r<r>/`` (a normal run
  directory: finished rungs are reused, an interrupted one resumes);
- after the rung, each configuration's objective is estimated on all its games so far; the
  best is compared with every other *paired on the shared deals*; a configuration clearly
  worse than the best (one-sided paired z-test, Holm over the rung, 5 %) is dropped, and of
  the rest only the best ``ceil(n / eta)`` go on;
- the budget (games in all) is split evenly over the rungs.

Objectives (lower is better), combined with weights as ``NAME[=TARGET][*WEIGHT],…``:

- ``first_excess``: |first player's (first leader's team's) win share − fair share 1/sides|;
- ``seat_spread``: largest minus smallest win share of the sides (seats / teams);
- ``length=T``: |mean game length − T| (the game's length measure: 原子 tricks per match, ATLAS
  turns per round).

Each objective is a smooth function of per-deal means, so its standard error and the paired
differences use the per-deal influence values (delta method, signs held fixed).

Output in ``OUT``: ``tune.json`` and ``tune.md`` (the top configurations with intervals, the
paired comparison of each against the best with its verdict, games spent) and ``verify.toml``,
a study file that replays the winner and the default rules on fresh seeds.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as ss

from kernels.options import RuleOption
from sim.errors import CardsimError
from sim.game import GameEngine, config_warnings
from sim.rundir import LOCK, holding_out

ALPHA = 0.05
#: equivalence margins per objective (shares: 0.01 = one percentage point; length: turns/tricks)
MARGINS = {"first_excess": 0.01, "seat_spread": 0.01, "length": 0.5}
#: the length measure, by the name a game's facts.headline uses
LENGTH_MEASURES = ("tricks", "turns", "length")
OBJECTIVES = ("first_excess", "seat_spread", "length")
#: a rung plays at least this many games per configuration (fewer make the first halvings
#: little better than chance: a 2-point edge has an SE of ~2.5 points at 400 games)
MIN_GAMES = 400
MANIFEST = "tune-manifest.json"


# --- objectives -------------------------------------------------------------------------------


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


def _se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


# --- the search space -----------------------------------------------------------------------------


#: a bare integer option (``--options shuangjia_threshold``) searches at most this many levels
MAX_GRID_LEVELS = 21


def integer_grid(o: RuleOption) -> list[int]:
    """The levels a bare integer option searches: every value of its range ``min..max`` by its
    step when there are at most :data:`MAX_GRID_LEVELS`, else that many evenly spaced values of
    the range (both ends included, all on the step); the default is added and comes first.

    >>> from kernels.yuanzi.options import OPTIONS
    >>> integer_grid(OPTIONS["shuangjia_threshold"])[:5]
    [60, 0, 15, 30, 45]
    >>> len(integer_grid(OPTIONS["shuangjia_threshold"])), integer_grid(OPTIONS["match_points_win"])
    (21, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    """
    if o.min is None or o.max is None:
        raise CardsimError(f"{o.name} has no bounded range; give its levels")
    lattice = list(o.values())
    if len(lattice) > MAX_GRID_LEVELS:
        last = len(lattice) - 1
        picks = {lattice[round(i * last / (MAX_GRID_LEVELS - 1))] for i in range(MAX_GRID_LEVELS)}
    else:
        picks = set(lattice)
    rest = sorted(picks - {o.default})
    return [int(o.default), *rest]


def integer_range(o: RuleOption, text: str) -> list[int]:
    """The levels ``lo..hi[/step]`` of an integer option: ``lo, lo + step, … <= hi``; the step
    defaults to the option's own (1 if it has none) and must be a multiple of it; every level is
    checked against the option's range and step (:class:`CardsimError` otherwise).

    >>> from kernels.yuanzi.options import OPTIONS
    >>> integer_range(OPTIONS["shuangjia_threshold"], "40..80"), integer_range(
    ...     OPTIONS["shuangjia_threshold"], "0..300/100")
    ([40, 45, 50, 55, 60, 65, 70, 75, 80], [0, 100, 200, 300])
    """
    lo_text, _, rest = str(text).partition("..")
    hi_text, _, step_text = rest.partition("/")
    own = o.step or 1
    try:
        lo, hi, step = int(lo_text), int(hi_text), int(step_text or own)
    except ValueError:
        raise CardsimError(f"{o.name}={text}: expected lo..hi[/step] (integers)") from None
    if step <= 0 or hi < lo:
        raise CardsimError(f"{o.name}={text}: need lo <= hi and step >= 1")
    if step % own:
        raise CardsimError(
            f"{o.name}={text}: step {step} is not a multiple of {o.name}'s step {own}"
        )
    return [o.check(v) for v in range(lo, hi + 1, step)]


def parse_space(engine: GameEngine, options: str | None) -> dict[str, list]:
    """``a,b=x|y,n=lo..hi[/step]`` -> {option: levels}; default: every choice and bool option.

    A choice or bool option alone means all its values; an integer option alone its range by
    its step (:func:`integer_grid`: at most 21 levels), the default first; ``n=a|b|c`` lists
    levels, ``n=lo..hi[/step]`` is a range (:func:`integer_range`).
    """
    table = engine.rule_options
    if not options:
        names = [o.name for o in table if o.kind != "int"]
        return {n: _all_values(table[n]) for n in names}
    space: dict[str, list] = {}
    for part in [p.strip() for p in options.split(",") if p.strip()]:
        name, _, levels = part.partition("=")
        name = name.strip()
        if name not in table:
            raise CardsimError(
                f"--options: unknown {engine.name} rule option {name!r} "
                f"(allowed: {', '.join(table.names())})"
            )
        o = table[name]
        if not levels:
            if o.kind == "int":
                try:
                    values = integer_grid(o)
                except CardsimError as e:
                    raise CardsimError(
                        f"--options: {e} ({o.allowed()}), like {name}=a|b|c or {name}=lo..hi"
                    ) from None
            else:
                values = _all_values(o)
        elif ".." in levels:
            if o.kind != "int":
                raise CardsimError(f"--options: {part!r}: a range needs an integer option")
            try:
                values = integer_range(o, levels)
            except CardsimError as e:
                raise CardsimError(f"--options: {e}") from None
        else:
            values = [o.check(v.strip()) for v in levels.split("|")]
        if len(set(values)) < 2:
            raise CardsimError(f"--options: {name} needs two or more levels")
        space[name] = list(dict.fromkeys(values))
    return space


def _all_values(o) -> list:
    values = [False, True] if o.kind == "bool" else list(o.choices)
    return sorted(values, key=lambda v: v != o.default)


def _text(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


# --- the race -------------------------------------------------------------------------------------


@dataclass
class Candidate:
    id: str
    rules: dict[str, str]
    rungs: int = 0  # rungs played
    games: int = 0
    estimate: float = float("nan")
    se: float = float("nan")
    dropped_at: int | None = None
    dropped_by: str | None = None  # "paired test" / "halving"


@dataclass
class Comparison:
    id: str
    diff: float  # objective of this configuration minus the best's (on their shared deals)
    lo: float
    hi: float
    p: float  # one-sided: this one is worse than the best
    deals: int
    verdict: str


@dataclass
class TuneResult:
    game: str
    objective: str
    space: dict[str, list[str]]
    configurations: int
    budget: int
    games_spent: int
    rungs: list[dict]
    best: Candidate
    top: list[Candidate]
    comparisons: list[Comparison]
    margin: float
    verify: str
    out: str
    log: list[str] = field(default_factory=list)


def _deal_data(run_dir: Path, engine: GameEngine, players: int, sides: list[str]) -> DealData:
    facts = engine.facts
    length = next((m.name for m in facts.headline if m.name in LENGTH_MEASURES), None)
    from analysis.factorial import MEASURES

    parts = sorted((run_dir / "games").glob("part-*.parquet"))
    lf = pl.scan_parquet(parts)
    exprs = [
        MEASURES["first_side_wins"].value(facts).cast(pl.Float64).alias("_first"),
        facts.winner_side().cast(pl.String).alias("_winner"),
    ]
    if length is not None:
        exprs.append(MEASURES[length].value(facts).cast(pl.Float64).alias("_length"))
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


def _side_labels(run_dirs: list[Path], engine: GameEngine, players: int) -> list[str]:
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


def _holm(p: list[float]) -> list[float]:
    from analysis.stats import holm

    return list(holm(p)) if p else []


@holding_out("tune")  # one writer per tune folder (sim/rundir.py)
def tune(
    game: str,
    objective: str,
    *,
    out: Path | str,
    options: str | None = None,
    budget: int = 200_000,
    seed: int = 1,
    players: int | None = None,
    strategy: str | None = None,
    eta: int = 2,
    min_games: int = MIN_GAMES,
    max_configurations: int | None = None,
    verify_games: int | None = None,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
) -> TuneResult:
    """Race the configurations of ``options`` for ``objective`` within ``budget`` games."""
    from analysis.factorial import verdict
    from sim import runner
    from sim.config import build_config
    from sim.games import get_engine

    engine = get_engine(game)
    obj = parse_objective(objective)
    if any(t.name == "length" for t in obj.terms) and not any(
        m.name in LENGTH_MEASURES for m in engine.facts.headline
    ):
        raise CardsimError(f"--objective length: game {game!r} declares no length measure")
    space = parse_space(engine, options)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < min_games * 2:
        raise CardsimError(f"--budget must be at least {2 * min_games} games, got {budget!r}")
    if eta < 2:
        raise CardsimError("eta must be at least 2")
    base = build_config(engine, games=1, seed=seed, players=players, strategy=strategy)
    players = base.players
    out = Path(out)
    combos, unplayable, degenerate = [], [], []
    for combo in itertools.product(*space.values()):
        rules = {n: _text(v) for n, v in zip(space, combo, strict=True)}
        try:  # cross-option checks (e.g. AT-D1: the deck must deal hand_size to every player)
            cfg = build_config(
                engine, games=1, seed=seed, players=players, strategy=strategy, rules=rules
            )
        except CardsimError as e:
            unplayable.append(f"{_rules(rules)}: {e}")
            continue
        combos.append(combo)
        degenerate += [f"{_rules(rules)}: {w}" for w in config_warnings(cfg)]  # the game's hook
    if not combos:
        raise CardsimError(f"no configuration of --options can be played: {unplayable[0]}")
    if degenerate and progress:
        print(f"cardsim tune: warning: {len(degenerate)} of {len(combos)} configurations are "
              f"degenerate, e.g. {degenerate[0]}", file=sys.stderr, flush=True)  # fmt: skip
    cap = max_configurations or len(combos)
    while cap > 2 and cap * min_games * _rungs(cap, eta) > budget:
        cap -= 1  # every rung must give each configuration at least min_games games
    if len(combos) > cap:  # more than the budget can race: a seeded sample, default included
        rng = random.Random(seed)
        combos = [combos[0], *rng.sample(combos[1:], cap - 1)]
    cands = [
        Candidate(f"c{i:03d}", {n: _text(v) for n, v in zip(space, c, strict=True)})
        for i, c in enumerate(combos)
    ]
    ident = {
        "game": game, "objective": obj.text(), "space": {k: [_text(v) for v in vs] for k, vs in space.items()},
        "budget": budget, "seed": seed, "players": players, "strategy": strategy, "eta": eta, "min_games": min_games,
        "configurations": [c.rules for c in cands],
    }  # fmt: skip
    _check_out(out, ident, force)
    rungs_total = _rungs(len(cands), eta)
    per_rung = budget // rungs_total
    alive = list(cands)
    data: dict[str, list[DealData]] = {c.id: [] for c in cands}
    spent, rung_log = 0, []
    log = [f"left out (cannot be played): {u}" for u in unplayable]
    sides: list[str] | None = None
    for r in range(rungs_total):
        n = per_rung // len(alive)
        if r == rungs_total - 1:
            n = (budget - spent) // len(alive)
        if n < min_games:
            log.append(f"rung {r}: {n} games per configuration is below {min_games}; stop")
            break
        dirs = []
        for c in alive:
            cfg = build_config(
                engine, games=n, seed=seed + r, players=players, strategy=strategy, rules=c.rules
            )
            run_dir = out / "configs" / c.id / f"r{r}"
            resume = (run_dir / runner.MANIFEST).is_file()
            if progress:
                print(f"cardsim tune: rung {r}, {c.id} ({n:,} games)", file=sys.stderr, flush=True)
            runner.run(
                cfg, run_dir, chunk_size=min(n, runner.DEFAULT_CHUNK_SIZE), threads=threads,
                resume=resume, progress=False,
            )  # fmt: skip
            dirs.append(run_dir)
            spent += n
        if sides is None:
            sides = _side_labels(dirs, engine, players)
        for c, d in zip(alive, dirs, strict=True):
            data[c.id].append(_deal_data(d, engine, players, sides))
            c.rungs, c.games = r + 1, c.games + n
            est, psi = objective_values(obj, DealData.concat(data[c.id]))
            c.estimate, c.se = est, _se(psi)
        alive.sort(key=lambda c: c.estimate)
        best = alive[0]
        others = alive[1:]
        pvals = []
        for c in others:
            diff, se, _ = _paired(obj, data[c.id], data[best.id])
            pvals.append(float(ss.norm.sf(diff / se)) if se > 0 else (0.0 if diff > 0 else 1.0))
        adj = _holm(pvals)
        keep = [best]
        for c, pa in zip(others, adj, strict=True):
            if pa < ALPHA:
                c.dropped_at, c.dropped_by = r, "paired test"
            else:
                keep.append(c)
        quota = max(1, math.ceil(len(alive) / eta))
        for c in keep[quota:]:
            c.dropped_at, c.dropped_by = r, "halving"
        survivors = keep[:quota] if r < rungs_total - 1 else keep
        rung_log.append(
            {
                "rung": r, "seed": seed + r, "games_per_configuration": n,
                "configurations": len(alive),
                "dropped_by_test": sum(1 for c in others if c.dropped_by == "paired test" and c.dropped_at == r),
                "kept": len(survivors), "best": best.id, "best_estimate": best.estimate,
            }
        )  # fmt: skip
        alive = survivors
        if len(alive) == 1:
            break
    best = min(
        (c for c in cands if c.rungs == max(x.rungs for x in cands)), key=lambda c: c.estimate
    )
    ranked = sorted(cands, key=lambda c: (-c.rungs, c.estimate))
    top = ranked[: min(8, len(ranked))]
    margin = obj.margin()
    comps = []
    for c in top[1:]:
        diff, se, deals = _paired(obj, data[c.id], data[best.id])
        z = ss.norm.ppf(1 - ALPHA / 2)
        p_two = float(2 * ss.norm.sf(abs(diff) / se)) if se > 0 else float(diff == 0)
        v, _, _ = verdict(diff, se, p_two, margin, deals)
        comps.append(
            Comparison(
                c.id,
                diff,
                diff - z * se,
                diff + z * se,
                float(ss.norm.sf(diff / se)) if se > 0 else float("nan"),
                deals,
                v,
            )  # fmt: skip
        )
    verify = write_verify(
        out, engine, best, players, strategy, seed, verify_games or max(budget // 4, 2000)
    )
    result = TuneResult(
        game, obj.text(), ident["space"], len(cands), budget, spent, rung_log, best, top,
        comps, margin, str(verify), str(out), log,
    )  # fmt: skip
    write_outputs(result, out)
    return result


def compare_runs(
    objective: str, run_a: Path | str, run_b: Path | str
) -> tuple[float, float, float, int]:
    """Objective of run ``a`` minus that of run ``b``, paired on their deals (two runs of one
    game and seed, e.g. the scenarios of ``verify.toml``): (difference, SE, one-sided p that
    ``a`` is not better, deals)."""
    from sim.games import get_engine
    from sim.runner import read_manifest

    obj = parse_objective(objective)
    ma, mb = read_manifest(Path(run_a)), read_manifest(Path(run_b))
    if (ma["game"], ma["seed"], ma["players"]) != (mb["game"], mb["seed"], mb["players"]):
        raise CardsimError("compare_runs: the runs must share game, seed and players")
    engine = get_engine(ma["game"])
    sides = _side_labels([Path(run_a), Path(run_b)], engine, ma["players"])
    da = _deal_data(Path(run_a), engine, ma["players"], sides)
    db = _deal_data(Path(run_b), engine, mb["players"], sides)
    k = min(da.first.size, db.first.size)
    trim = [DealData(d.first[:k], d.wins[:k], d.length[:k], d.fair) for d in (da, db)]
    diff, se, deals = _paired(obj, [trim[0]], [trim[1]])
    p = float(ss.norm.cdf(diff / se)) if se > 0 else float(diff >= 0)
    return diff, se, p, deals


def _rungs(configurations: int, eta: int) -> int:
    """Rungs of successive halving: the halvings that leave one configuration (at least 1)."""
    r, n = 0, configurations
    while n > 1:
        n, r = math.ceil(n / eta), r + 1
    return max(r, 1)


def _paired(obj: Objective, a: list[DealData], b: list[DealData]) -> tuple[float, float, int]:
    """Objective of ``a`` minus that of ``b`` on the rungs both played (the same deals), with
    the paired SE; returns (difference, SE, deals)."""
    k = min(len(a), len(b))
    da, db = DealData.concat(a[:k]), DealData.concat(b[:k])
    ea, pa = objective_values(obj, da)
    eb, pb = objective_values(obj, db)
    return ea - eb, _se(pa - pb), int(da.first.size)


def _check_out(out: Path, ident: dict, force: bool) -> None:
    path = out / MANIFEST
    if path.is_file():
        try:
            have = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise CardsimError(f"{path}: unreadable ({e})") from None
        if have != ident and not force:
            diff = sorted(k for k in {**have, **ident} if have.get(k) != ident.get(k))
            raise CardsimError(
                f"--out {out} holds a different tune run ({', '.join(diff)} differ); "
                "use another --out or --force"
            )
        if have == ident:
            return  # resume: finished rungs are reused, an unfinished one continues
    elif out.exists() and (not out.is_dir() or any(p.name != LOCK for p in out.iterdir())):
        # --force replaces only a tune run: never delete or write into anything else
        raise CardsimError(f"--out {out} is not empty and not a tune run; use another --out")
    if force and (out / "configs").is_dir():
        import shutil

        shutil.rmtree(out / "configs")
    out.mkdir(parents=True, exist_ok=True)
    from sim.rundir import atomic_write_bytes

    atomic_write_bytes(path, json.dumps(ident, indent=2, ensure_ascii=False).encode())


def write_verify(
    out: Path, engine: GameEngine, best: Candidate, players: int, strategy: str | None,
    seed: int, games: int,
) -> Path:  # fmt: skip
    """A study file that plays the winner and the default rules on fresh seeds."""
    fresh = seed + 1000  # the race used seed .. seed + rungs - 1
    lines = [
        "# Verifies a cardsim tune winner on fresh deals (seed not used by the race).",
        "# Run: cardsim study verify.toml --out verify",
        "[study]",
        f'name = "verify tune winner {best.id}"',
        "",
    ]
    for name, rules in (("winner", best.rules), ("default", {})):
        lines += ["[[scenario]]", f'name = "{name}"', f'game = "{engine.name}"', f"games = {games}"]
        lines += [f"seed = {fresh}", f"players = {players}"]
        if strategy:
            lines.append(f'strategy = "{strategy}"')
        if rules:
            inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in rules.items())
            lines.append(f"rules = {{ {inner} }}")
        lines.append("")
    lines += ["[[comparison]]", 'name = "tune winner vs default rules"']
    lines += ['scenarios = ["winner", "default"]', ""]
    path = out / "verify.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _json_default(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return str(x)


def write_outputs(result: TuneResult, out: Path) -> None:
    """``tune.json`` (everything) and ``tune.md`` (the tables)."""
    (out / "tune.json").write_text(
        json.dumps(asdict(result), indent=2, ensure_ascii=False, default=_json_default),
        encoding="utf-8",
    )
    (out / "tune.md").write_text(summary(result), encoding="utf-8")


def summary(result: TuneResult) -> str:
    """Markdown: best configuration, top configurations with intervals, paired comparisons."""
    z = ss.norm.ppf(1 - ALPHA / 2)
    lines = [
        f"# cardsim tune {result.game}: {result.objective} (lower is better)",
        "",
        f"{result.configurations} configurations of {', '.join(result.space)}; "
        f"{result.games_spent:,} games spent of a budget of {result.budget:,}; "
        f"{len(result.rungs)} rungs of successive halving on common deals.",
        "",
        f"**Best: {result.best.id}** {_rules(result.best.rules)}: objective "
        f"{result.best.estimate:.4f} [{max(0.0, result.best.estimate - z * result.best.se):.4f}, "
        f"{result.best.estimate + z * result.best.se:.4f}] over {result.best.games:,} games.",
        "",
        "| configuration | rules | rungs | games | objective [95 % interval] |",
        "|---|---|---|---|---|",
    ]
    for c in result.top:
        lo = max(0.0, c.estimate - z * c.se)
        lines.append(
            f"| {c.id} | {_rules(c.rules)} | {c.rungs} | {c.games:,} | "
            f"{c.estimate:.4f} [{lo:.4f}, {c.estimate + z * c.se:.4f}] |"
        )
    lines += [
        "",
        f"Is the best really best? Each against {result.best.id} on their shared deals "
        f"(paired; equivalence margin ±{result.margin:g}):",
        "",
        "| configuration | difference [95 % interval] | deals | one-sided p (worse) | verdict |",
        "|---|---|---|---|---|",
    ]
    for c in result.comparisons:
        lines.append(
            f"| {c.id} | {c.diff:+.4f} [{c.lo:+.4f}, {c.hi:+.4f}] | {c.deals:,} | "
            f"{c.p:.3g} | {c.verdict} |"
        )
    lines += ["", "Rungs:", ""]
    for r in result.rungs:
        lines.append(
            f"- rung {r['rung']} (seed {r['seed']}): {r['configurations']} configurations × "
            f"{r['games_per_configuration']:,} games; {r['dropped_by_test']} dropped by the paired "
            f"test; {r['kept']} kept; best {r['best']} ({r['best_estimate']:.4f})"
        )
    if result.log:
        lines += ["", "Notes:", "", *(f"- {line}" for line in result.log)]
    lines += [
        "",
        f"Verify the winner on fresh seeds: `cardsim study {result.verify} --out DIR`",
        "",
    ]
    return "\n".join(lines)


def _rules(rules: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.items()) or "(defaults)"
