"""``cardsim tune`` with two or more objectives: the Pareto front of the search space (issue 47
item 4; docs/design.md, "Several objectives: the trade-off").

One objective has a best configuration; several have a **front**: the configurations no other
evaluated configuration beats on every objective (at least as good on all, better on one).
Every configuration of the space (a seeded sample when the budget cannot give each
:data:`~cardsim.workflows.tune.MIN_GAMES` games; the default rules always in it) plays the same
number of games on the same deals (root seed ``SEED``) into ``OUT/configs/<id>/r0/`` —
resumable like a race's rung; each objective is estimated per configuration with its interval
(the delta method over deals, as for one objective), and so is each objective's measure itself
(e.g. turns per round 47.6 [47.1, 48.1]). The front is judged on the estimates: a point of the
front whose interval overlaps another's may trade places with more games. Output: ``tune.json``,
``tune.md`` and ``tune.html`` (the front with its measures and intervals, a trade-off plot of
the first two objectives, every configuration with the point that dominates it).
"""

from __future__ import annotations

import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cardsim.analysis.objective import (
    DealData,
    Objective,
    deal_data,
    objective_values,
    parse_objective,
    se_of_mean,
    side_labels,
    term_measures,
)
from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.rundir import atomic_write_bytes

Z = 1.959963984540054


@dataclass
class ParetoPoint:
    """One evaluated configuration: each objective and each objective's measure with its 95 %
    interval, whether it is on the front, and if not the first point that dominates it."""

    id: str
    rules: dict[str, str]
    games: int
    objectives: list[dict]  # {objective, estimate, lo, hi, se}
    measures: list[dict]  # {objective, term, measure, estimate, lo, hi, text}
    front: bool = False
    dominated_by: str | None = None


@dataclass
class ParetoResult:
    game: str
    objectives: list[str]
    space: dict[str, list[str]]
    configurations: int
    budget: int
    games_per_configuration: int
    games_spent: int
    seed: int
    players: int
    points: list[ParetoPoint]
    out: str
    edges: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    html: str | None = None

    @property
    def front(self) -> list[ParetoPoint]:
        """The front, ordered by the first objective."""
        return sorted(
            (p for p in self.points if p.front), key=lambda p: p.objectives[0]["estimate"]
        )

    def _repr_html_(self) -> str:
        from cardsim.sim.display import html_of

        return html_of(self, "cardsim tune (Pareto front)", skip=("log", "points"))


def parse_objectives(texts) -> list[Objective]:
    """Two or more objectives (each a ``--objective`` text); a repeated one is refused."""
    objs = [parse_objective(t) for t in texts]
    seen = [o.text() for o in objs]
    if len(set(seen)) != len(seen):
        raise CardsimError(f"--objective: {seen[0]} is given twice; give different objectives")
    return objs


def dominates(a: list[float], b: list[float]) -> bool:
    """``a`` is at least as good as ``b`` on every objective and better on one (lower wins)."""
    return all(x <= y for x, y in zip(a, b, strict=True)) and any(
        x < y for x, y in zip(a, b, strict=True)
    )


def mark_front(points: list[ParetoPoint]) -> None:
    """Set ``front`` and ``dominated_by`` of every point from the objectives' estimates."""
    for p in points:
        mine = [o["estimate"] for o in p.objectives]
        p.dominated_by = next(
            (q.id for q in points if q is not p and dominates([o["estimate"] for o in q.objectives], mine)),
            None,
        )  # fmt: skip
        p.front = p.dominated_by is None


def _measures(obj: Objective, d: DealData, label: str) -> list[dict]:
    """Each term's measure itself with its interval (``first_excess``: the first side's win
    share; ``length``: the mean length; ``seat_spread``: the spread of the sides' shares)."""
    texts = term_measures(obj, d, label)
    out = []
    for t in obj.terms:
        key = t.text().rsplit("*", 1)[0]
        if t.name == "first_excess":
            x, name = d.first, "first side's win share"
            est, se = float(x.mean()), se_of_mean(x)
        elif t.name == "length":
            x, name = d.length, label
            est, se = float(x.mean()), se_of_mean(x)
        else:
            est, psi = objective_values(parse_objective("seat_spread"), d)
            name, se = "spread of the sides' win shares", se_of_mean(psi)
        out.append({"objective": obj.text(), "term": key, "measure": name, "estimate": est,
                    "lo": est - Z * se, "hi": est + Z * se, "text": texts[key]})  # fmt: skip
    return out


def evaluate(objs: list[Objective], data: DealData, label: str) -> tuple[list[dict], list[dict]]:
    """Every objective (estimate, interval) and every measure of one configuration."""
    objectives, measures = [], []
    for obj in objs:
        est, psi = objective_values(obj, data)
        se = se_of_mean(psi)
        objectives.append({"objective": obj.text(), "estimate": est,
                           "lo": max(0.0, est - Z * se), "hi": est + Z * se, "se": se})  # fmt: skip
        measures += _measures(obj, data, label)
    return objectives, measures


def pareto_tune(game: str, objectives, *, out: Path | str, options: str | None = None,
                budget: int = 200_000, seed: int = 0, players: int | None = None,
                strategy: str | None = None, min_games: int | None = None,
                threads: int | None = None, progress: bool = True, force: bool = False,
                scheduler=None) -> ParetoResult:  # fmt: skip
    """Every configuration of ``options`` (a sample within ``budget``) on the same deals; each
    of the two or more ``objectives`` estimated; the Pareto front (see the module docstring)."""
    from cardsim.sim import runner
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine
    from cardsim.workflows import tune as t

    runner.check_scheduler(scheduler)
    engine = get_engine(game)
    objs = parse_objectives(objectives)
    for obj in objs:
        t._check_length(obj, engine, game)
    space = t.parse_space(engine, options)
    min_games = min_games or t.MIN_GAMES
    t._check_budget(budget, min_games, 2)
    players = build_config(engine, games=1, seed=seed, players=players, strategy=strategy).players
    combos, unplayable, _ = t._playable(engine, space, seed, players, strategy)
    combos = _sample(combos, budget // min_games, seed)
    n = budget // len(combos)
    cands = [
        t.Candidate(f"c{i:03d}", {k: t._text(v) for k, v in zip(space, c, strict=True)})
        for i, c in enumerate(combos)
    ]
    ident = {
        "game": game, "objectives": [o.text() for o in objs],
        "space": {k: [t._text(v) for v in vs] for k, vs in space.items()}, "budget": budget,
        "seed": seed, "players": players, "strategy": strategy, "min_games": min_games,
        "configurations": [c.rules for c in cands],
    }  # fmt: skip
    out = Path(out)
    with runner.cluster_session(scheduler) as session:
        t._check_out(out, ident, force)
        dirs = t._play_rung(cands, engine, out, 0, n, seed=seed, players=players,
                            strategy=strategy, threads=threads, progress=progress,
                            session=session)  # fmt: skip
    sides = side_labels(dirs, engine, players)
    label = t._length_label(engine)
    points = []
    for c, d in zip(cands, dirs, strict=True):
        objectives_, measures = evaluate(objs, deal_data(d, engine, players, sides), label)
        points.append(ParetoPoint(c.id, c.rules, n, objectives_, measures))
        c.measures = {m["term"]: m["text"] for m in measures}
    mark_front(points)
    result = ParetoResult(
        game, ident["objectives"], ident["space"], len(cands), budget, n, n * len(cands), seed,
        players, points, str(out), log=[f"left out (cannot be played): {u}" for u in unplayable],
    )  # fmt: skip
    by_id = {c.id: c for c in cands}
    for p in result.front:
        result.edges += [f"{p.id}: {e}" for e in t.edge_notes(engine, space, by_id[p.id])]
    write_outputs(result, out)
    if progress:
        print(f"cardsim tune: {len(result.front)} configurations on the front", file=sys.stderr)
    return result


def _sample(combos: list, cap: int, seed: int) -> list:
    """At most ``cap`` configurations (a seeded sample, the default rules kept first)."""
    cap = max(2, cap)
    if len(combos) <= cap:
        return combos
    rng = random.Random(seed)
    return [combos[0], *rng.sample(combos[1:], cap - 1)]


def summary(result: ParetoResult) -> str:
    """Markdown: the front with each point's objectives and measures, with intervals."""

    def iv(d: dict, digits: int = 4) -> str:
        return f"{d['estimate']:.{digits}f} [{d['lo']:.{digits}f}, {d['hi']:.{digits}f}]"

    lines = [
        f"# cardsim tune {result.game}: Pareto front of {' ; '.join(result.objectives)} "
        "(lower is better on each)",
        "",
        f"{result.configurations} configurations of {', '.join(result.space)}, "
        f"{result.games_per_configuration:,} games each on the same deals (seed {result.seed}); "
        f"{len(result.front)} on the front (no other configuration is at least as good on "
        "every objective and better on one).",
        *(f"\n**At the edge:** {e}" for e in result.edges),
        "",
        "| configuration | rules | " + " | ".join(result.objectives) + " | measures |",
        "|---|---|" + "---|" * len(result.objectives) + "---|",
    ]
    for p in result.front:
        ms = "; ".join(
            f"{m['measure']} {iv(m, 3 if 'share' in m['measure'] or 'spread' in m['measure'] else 1)}"
            for m in p.measures
        )
        lines.append(
            f"| {p.id} | {_rules(p.rules)} | " + " | ".join(iv(o) for o in p.objectives)
            + f" | {ms} |"
        )  # fmt: skip
    return "\n".join(lines) + "\n"


def _rules(rules: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.items()) or "(defaults)"


def write_outputs(result: ParetoResult, out: Path) -> None:
    """``tune.json``, ``tune.md`` and ``tune.html`` (analysis/tune_report.py's Pareto page)."""
    from cardsim.analysis.tune_report import write_pareto_html

    result.html = str(write_pareto_html(result, out / "tune.html"))
    doc = {**asdict(result), "front": [p.id for p in result.front]}
    atomic_write_bytes(out / "tune.json", jsonio.dump_bytes(doc, indent=2))
    atomic_write_bytes(out / "tune.md", summary(result).encode("utf-8"))


__all__ = ["ParetoPoint", "ParetoResult", "dominates", "mark_front", "pareto_tune", "summary"]
