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

Output in ``OUT``: ``tune.json``, ``tune.md`` and ``tune.html`` (the objective; the winner
against the default rules on fresh seeds with the objective's own comparison; the top
configurations with intervals, the comparison of each against the best with its verdict; the
racing history) and ``verify.toml``, a study file that replays the winner and the default rules
on fresh seeds and re-tests the objective (played into ``OUT/verify`` unless ``run_verify`` is
False).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scipy import stats as ss

from cardsim.analysis.objective import (
    LENGTH_MEASURES,
    DealData,
    deal_data,
    deal_differences,
    objective_comparison,
    objective_values,
    paired_difference,
    parse_objective,
    se_of_mean,
    side_labels,
    term_measures,
)
from cardsim.kernels.options import RuleOption
from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import GameEngine
from cardsim.sim.games import config_warnings
from cardsim.sim.rundir import LOCK, atomic_write_bytes, holding_out, refuse_link
from cardsim.sim.runner import DEFAULT_CHUNK_SIZE, MAX_CHUNKS
from cardsim.workflows.plan import integer_range

ALPHA = 0.05
#: a rung plays at least this many games per configuration (fewer make the first halvings
#: little better than chance: a 2-point edge has an SE of ~2.5 points at 400 games)
MIN_GAMES = 400
MANIFEST = "tune-manifest.json"
#: a rung's run of one configuration may use at most the runner's chunk count at its default
#: chunk size (runner.MAX_CHUNKS × DEFAULT_CHUNK_SIZE games), so the budget is capped there
MAX_BUDGET = MAX_CHUNKS * DEFAULT_CHUNK_SIZE


# --- the search space -----------------------------------------------------------------------------


#: a bare integer option (``--options shuangjia_threshold``) searches at most this many levels
MAX_GRID_LEVELS = 21


def integer_grid(o: RuleOption) -> list[int]:
    """The levels a bare integer option searches: every value of its range ``min..max`` by its
    step when there are at most :data:`MAX_GRID_LEVELS`, else that many evenly spaced values of
    the range (both ends included, all on the step); the default is added and comes first.

    >>> from cardsim.kernels.yuanzi.options import OPTIONS
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


def parse_space(engine: GameEngine, options: str | None) -> dict[str, list]:
    """``a,b=x|y,n=lo..hi[/step]`` -> {option: levels}; default: every choice and bool option.

    A choice or bool option alone means all its values; an integer option alone its range by
    its step (:func:`integer_grid`: at most 21 levels), the default first; ``n=a|b|c`` lists
    levels, ``n=lo..hi[/step]`` is a range (:func:`integer_range`).
    """
    table = engine.rule_options
    if options is not None and not isinstance(options, str):  # issue 45 item 12: no bare error
        raise CardsimError(
            f"options is one text, e.g. 'hand_size=6..8,claim_turn', got {type(options).__name__} "
            f"{options!r}"
        )
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
    #: each objective term's measure itself over its games (the objective is its distance)
    measures: dict[str, str] = field(default_factory=dict)


@dataclass
class Comparison:
    id: str
    diff: float  # objective of this configuration minus the best's (on their shared deals)
    lo: float
    hi: float
    p: float  # one-sided: this one is worse than the best
    deals: int
    verdict: str
    #: on shared deals (paired); False when a deck or hand-size option (AT-D1..D3) differs:
    #: the same seed then deals other cards, and the difference is of independent samples
    paired: bool = True


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
    #: the winner against the default rules on the fresh seeds of verify.toml (played by tune
    #: unless verify=False): :func:`objective_comparison`'s dict, else None
    verification: dict | None = None
    html: str | None = None  # OUT/tune.html
    #: the winner's values at an end of the searched range of an integer option (the best may
    #: lie beyond it; at the option's own limit, the target may be unreachable)
    edges: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """A notebook shows the result as a small table (the other API results do too)."""
        from cardsim.sim.display import html_of

        return html_of(self, "cardsim tune", skip=("log", "rungs", "top", "comparisons"))


def _holm(p: list[float]) -> list[float]:
    from cardsim.analysis.stats import holm

    return list(holm(p)) if p else []


@holding_out("tune")  # one writer per tune folder (sim/rundir.py)
def tune(
    game: str,
    objective: str,
    *,
    out: Path | str,
    options: str | None = None,
    budget: int = 200_000,
    seed: int = 0,
    players: int | None = None,
    strategy: str | None = None,
    eta: int = 2,
    min_games: int = MIN_GAMES,
    max_configurations: int | None = None,
    verify_games: int | None = None,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    run_verify: bool = True,
    scheduler=None,
) -> TuneResult:
    """Race the configurations of ``options`` for ``objective`` within ``budget`` games, then
    (``run_verify``) play ``OUT/verify.toml`` — the winner and the default rules on fresh seeds,
    ``verify_games`` games each, beyond the budget — into ``OUT/verify``.

    ``scheduler`` (``--scheduler local:N|ADDRESS``): every rung's runs and the verify study
    play their chunks on one Dask cluster, connected once before anything is written; the
    tables, the race and its result are those of a local run."""
    from cardsim.analysis.factorial import verdict
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    runner.check_scheduler(scheduler)
    engine = get_engine(game)
    obj = parse_objective(objective)
    _check_length(obj, engine, game)
    space = parse_space(engine, options)
    _check_budget(budget, min_games, eta)
    base = build_config(engine, games=1, seed=seed, players=players, strategy=strategy)
    players = base.players
    out = Path(out)
    combos, unplayable, degenerate = _playable(engine, space, seed, players, strategy)
    if degenerate and progress:
        print(f"cardsim tune: warning: {len(degenerate)} of {len(combos)} configurations are "
              f"degenerate, e.g. {degenerate[0]}", file=sys.stderr, flush=True)  # fmt: skip
    combos = _sample(combos, max_configurations, min_games, eta, budget, seed)
    cands = [
        Candidate(f"c{i:03d}", {n: _text(v) for n, v in zip(space, c, strict=True)})
        for i, c in enumerate(combos)
    ]
    ident = {
        "game": game, "objective": obj.text(), "space": {k: [_text(v) for v in vs] for k, vs in space.items()},
        "budget": budget, "seed": seed, "players": players, "strategy": strategy, "eta": eta, "min_games": min_games,
        "configurations": [c.rules for c in cands],
    }  # fmt: skip
    with runner.cluster_session(scheduler) as session:  # reachable before writing
        _check_out(out, ident, force)
        spent, rung_log, log, data = _race(
            cands, obj, engine, out, budget=budget, eta=eta, min_games=min_games, seed=seed,
            players=players, strategy=strategy, threads=threads, progress=progress,
            session=session, unplayable=unplayable,
        )  # fmt: skip
        best, top = _ranked(cands)
        margin = obj.margin()
        comps = _comparisons(obj, top, best, data, engine, margin, verdict)
        verify = write_verify(
            out, engine, best, players, strategy, seed, verify_games or max(budget // 4, 2000),
            obj.text(),
        )  # fmt: skip
        result = TuneResult(
            game, obj.text(), ident["space"], len(cands), budget, spent, rung_log, best, top,
            comps, margin, str(verify), str(out), log,
        )  # fmt: skip
        result.edges = edge_notes(engine, space, best)
        if run_verify:  # the winner and the defaults on fresh seeds, the objective re-tested
            result.verification = _run_verify(verify, out, obj, threads, progress, force, session)
        write_outputs(result, out)
        return result


def _length_label(engine) -> str:
    """What the length objective measures: the game's length measure's label."""
    m = next((m for m in engine.facts.headline if m.name in LENGTH_MEASURES), None)
    return m.label if m else "length"


def edge_notes(engine, space: dict, best: Candidate) -> list[str]:
    """A sentence per integer option (three or more levels searched) whose winning value is the
    lowest or highest searched: the best may lie beyond the range — or, at the option's own
    limit, cannot, and the objective's target may be unreachable (issue 45 item 4)."""
    notes = []
    for name, levels in space.items():
        o = engine.rule_options[name]
        if o.kind != "int" or len(levels) < 3:
            continue
        value, lo, hi = int(best.rules[name]), min(levels), max(levels)
        if value not in (lo, hi):
            continue
        end = "lowest" if value == lo else "highest"
        limit = o.min if value == lo else o.max
        text = f"{name}={value} is the {end} value searched ({lo}..{hi})"
        if value == limit:
            text += (
                f" and the option's own limit: the objective may be best beyond what the rules "
                f"allow — the target may be unreachable ({'; '.join(best.measures.values())})"
            )
        else:
            text += ": the best may lie beyond it; search a wider range"
        notes.append(text + ".")
    return notes


def _ranked(cands: list) -> tuple:
    """The winner (best estimate among those that ran the most rungs) and the top eight."""
    best = min(
        (c for c in cands if c.rungs == max(x.rungs for x in cands)), key=lambda c: c.estimate
    )
    ranked = sorted(cands, key=lambda c: (-c.rungs, c.estimate))
    return best, ranked[: min(8, len(ranked))]


def _run_verify(verify: Path, out: Path, obj, threads, progress: bool, force: bool, session):
    """Play OUT/verify.toml into OUT/verify and re-test the objective, winner vs default."""
    from cardsim.workflows.study import load_study, run_study

    done = run_study(
        load_study(verify),
        out / "verify",
        threads=threads,
        progress=progress,
        force=force,
        scheduler=session,
    )
    return objective_comparison(obj.text(), done.runs["winner"], done.runs["default"])


def _check_length(obj, engine, game: str) -> None:
    if any(t.name == "length" for t in obj.terms) and not any(
        m.name in LENGTH_MEASURES for m in engine.facts.headline
    ):
        raise CardsimError(f"--objective length: game {game!r} declares no length measure")


def _check_budget(budget, min_games: int, eta: int) -> None:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < min_games * 2:
        raise CardsimError(f"--budget must be at least {2 * min_games} games, got {budget!r}")
    if budget > MAX_BUDGET:  # checked before anything is written (issue 19, point 18)
        raise CardsimError(f"--budget must be at most {MAX_BUDGET:,} games, got {budget:,}")
    if eta < 2:
        raise CardsimError("eta must be at least 2")


def _playable(engine, space: dict, seed: int, players: int, strategy: str | None):
    """The configurations that can be played, those that cannot (why) and the degenerate ones."""
    from cardsim.sim.config import build_config

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
    return combos, unplayable, degenerate


def _sample(
    combos: list, max_configurations, min_games: int, eta: int, budget: int, seed: int
) -> list:
    """At most as many configurations as the budget can race (a seeded sample, default kept)."""
    cap = max_configurations or len(combos)
    while cap > 2 and cap * min_games * _rungs(cap, eta) > budget:
        cap -= 1  # every rung must give each configuration at least min_games games
    if len(combos) > cap:  # more than the budget can race: a seeded sample, default included
        rng = random.Random(seed)
        combos = [combos[0], *rng.sample(combos[1:], cap - 1)]
    return combos


def _race(cands, obj, engine, out: Path, *, budget, eta, min_games, seed, players, strategy,
          threads, progress, session, unplayable):  # fmt: skip
    """Successive halving with paired tests over the rungs: games spent, the rung log, the
    notes and every candidate's per-deal data (the candidates' fields are updated)."""
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
        dirs = _play_rung(alive, engine, out, r, n, seed=seed, players=players,
                          strategy=strategy, threads=threads, progress=progress,
                          session=session)  # fmt: skip
        spent += n * len(alive)
        if sides is None:
            sides = side_labels(dirs, engine, players)
        for c, d in zip(alive, dirs, strict=True):
            data[c.id].append(deal_data(d, engine, players, sides))
            c.rungs, c.games = r + 1, c.games + n
            est, psi = objective_values(obj, DealData.concat(data[c.id]))
            c.estimate, c.se = est, se_of_mean(psi)
            c.measures = term_measures(obj, DealData.concat(data[c.id]), _length_label(engine))
        survivors, entry = _cull(alive, obj, data, r, n, eta, seed, last=r == rungs_total - 1)
        rung_log.append(entry)
        alive = survivors
        if len(alive) == 1:
            break
    return spent, rung_log, log, data


def _play_rung(alive, engine, out: Path, r: int, n: int, *, seed, players, strategy, threads,
               progress, session) -> list[Path]:  # fmt: skip
    """Play ``n`` games of every live configuration on rung ``r``'s seed (resuming a played one)."""
    from cardsim.sim import runner
    from cardsim.sim.config import build_config

    dirs = []
    for c in alive:
        cfg = build_config(
            engine,
            games=n,
            seed=seed + r,
            players=players,
            strategy=strategy,
            rules=c.rules,
        )
        run_dir = out / "configs" / c.id / f"r{r}"
        for d in (run_dir.parent, run_dir):  # as a study refuses a linked scenario folder
            refuse_link(d, "tune writes and deletes its runs only inside --out")
        resume = (run_dir / runner.MANIFEST).is_file()
        if progress:
            print(f"cardsim tune: rung {r}, {c.id} ({n:,} games)", file=sys.stderr, flush=True)
        runner.run(
            cfg, run_dir, chunk_size=min(n, runner.DEFAULT_CHUNK_SIZE), threads=threads,
            resume=resume, progress=False, command="tune", scheduler=session,
        )  # fmt: skip
        dirs.append(run_dir)
    return dirs


def _cull(alive, obj, data, r: int, n: int, eta: int, seed: int, *, last: bool):
    """Rank the live configurations; drop those the paired test (Holm) or the halving drops."""
    alive.sort(key=lambda c: c.estimate)
    best = alive[0]
    others = alive[1:]
    pvals = []
    for c in others:
        diff, se, _ = paired_difference(obj, data[c.id], data[best.id])
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
    survivors = keep[:quota] if not last else keep
    entry = (
        {
            "rung": r, "seed": seed + r, "games_per_configuration": n,
            "configurations": len(alive),
            "dropped_by_test": sum(1 for c in others if c.dropped_by == "paired test" and c.dropped_at == r),
            "kept": len(survivors), "best": best.id, "best_estimate": best.estimate,
        }
    )  # fmt: skip
    return survivors, entry


def _comparisons(obj, top, best, data, engine, margin: float, verdict) -> list:
    """Each of the top configurations against the winner: paired difference and verdict."""
    comps = []
    for c in top[1:]:
        diff, se, deals = paired_difference(obj, data[c.id], data[best.id])
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
                not deal_differences(engine, c.rules, best.rules),
            )  # fmt: skip
        )
    return comps


def _rungs(configurations: int, eta: int) -> int:
    """Rungs of successive halving: the halvings that leave one configuration (at least 1)."""
    r, n = 0, configurations
    while n > 1:
        n, r = math.ceil(n / eta), r + 1
    return max(r, 1)


def _check_out(out: Path, ident: dict, force: bool) -> None:
    path = out / MANIFEST
    configs = out / "configs"

    refuse_link(configs, "tune writes and deletes its runs only inside --out", f"--out {out}")
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
    if force and configs.is_dir():
        import shutil

        shutil.rmtree(configs)
    out.mkdir(parents=True, exist_ok=True)
    from cardsim.sim.rundir import atomic_write_bytes

    atomic_write_bytes(path, jsonio.dump_bytes(ident, indent=2))


def write_verify(
    out: Path, engine: GameEngine, best: Candidate, players: int, strategy: str | None,
    seed: int, games: int, objective: str | None = None,
) -> Path:  # fmt: skip
    """A study file that plays the winner and the default rules on fresh seeds; its comparison
    re-tests the tuned ``objective`` (the study report's finding "tuned objective")."""
    import tomli_w

    fresh = seed + 1000  # the race used seed .. seed + rungs - 1
    scenarios = []
    for name, rules in (("winner", best.rules), ("default", {})):
        sc = {"name": name, "game": engine.name, "games": games, "seed": fresh, "players": players}
        if strategy:
            sc["strategy"] = strategy
        if rules:
            sc["rules"] = dict(rules)
        scenarios.append(sc)
    comparison = {"name": "tune winner vs default rules", "scenarios": ["winner", "default"]}
    if objective:
        comparison["objective"] = objective
    doc = {
        "study": {"name": f"verify tune winner {best.id}"},
        "scenario": scenarios,
        "comparison": [comparison],
    }
    head = (
        "# Verifies a cardsim tune winner on fresh deals (seed not used by the race).\n"
        "# Run: cardsim study verify.toml --out verify\n"
    )
    # a TOML writer, never an f-string: a strategy path with a quote, a backslash or a
    # newline stays one string (issue 45 item 12)
    path = out / "verify.toml"
    atomic_write_bytes(path, (head + tomli_w.dumps(doc)).encode("utf-8"))
    return path


def write_outputs(result: TuneResult, out: Path) -> None:
    """``tune.json`` (everything), ``tune.md`` (the tables) and ``tune.html`` (the page:
    analysis/tune_report.py)."""
    from cardsim.analysis.tune_report import write_tune_html

    result.html = str(write_tune_html(result, out / "tune.html"))
    atomic_write_bytes(out / "tune.json", jsonio.dump_bytes(asdict(result), indent=2))
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
        f"**Best: {result.best.id}** {_rules(result.best.rules)}: "
        f"{'; '.join(result.best.measures.values()) or 'objective'} — objective (distance) "
        f"{result.best.estimate:.4f} [{max(0.0, result.best.estimate - z * result.best.se):.4f}, "
        f"{result.best.estimate + z * result.best.se:.4f}] over {result.best.games:,} games.",
        *(f"\n**At the edge:** {e}" for e in result.edges),
        "",
        "| configuration | rules | rungs | games | measure | objective [95 % interval] |",
        "|---|---|---|---|---|---|",
    ]
    for c in result.top:
        lo = max(0.0, c.estimate - z * c.se)
        lines.append(
            f"| {c.id} | {_rules(c.rules)} | {c.rungs} | {c.games:,} | "
            f"{'; '.join(c.measures.values())} | "
            f"{c.estimate:.4f} [{lo:.4f}, {c.estimate + z * c.se:.4f}] |"
        )
    lines += [
        "",
        f"Is the best really best? Each against {result.best.id} on the same seeds, paired "
        "on the shared deals (unless a deck or hand-size option differs: then independent); "
        f"equivalence margin ±{result.margin:g}:",
        "",
        "| configuration | difference [95 % interval] | deals | pairing | one-sided p (worse) "
        "| verdict |",
        "|---|---|---|---|---|---|",
    ]
    for c in result.comparisons:
        lines.append(
            f"| {c.id} | {c.diff:+.4f} [{c.lo:+.4f}, {c.hi:+.4f}] | {c.deals:,} | "
            f"{'paired' if c.paired else 'independent (other cards)'} | {c.p:.3g} | "
            f"{c.verdict} |"
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
    v = result.verification
    if v:
        lines += [
            "",
            f"On fresh seeds ({v['a']['deals']:,} deals each): winner {result.best.id} "
            f"{v['a']['estimate']:.4f} [{v['a']['lo']:.4f}, {v['a']['hi']:.4f}], default rules "
            f"{v['b']['estimate']:.4f} [{v['b']['lo']:.4f}, {v['b']['hi']:.4f}]; difference "
            f"{v['diff']:+.4f} [{v['lo']:+.4f}, {v['hi']:+.4f}] ({v['label']}): {v['verdict']}.",
        ]
    lines += [
        "",
        f"Verify the winner on fresh seeds: `cardsim study {result.verify} --out DIR`"
        + (f" (played into {result.out}/verify)" if v else ""),
        "",
    ]
    if result.html:
        lines += [f"Page: {result.html}", ""]
    return "\n".join(lines)


def _rules(rules: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.items()) or "(defaults)"
