"""A sweep's plan and its finish (issue 47 items 1–2): the parameters' values, one scenario per
value (two parameters: per grid cell) on the same deals, the targets; after the runs, the
curves, the confirmation runs and the page. ``cardsim sweep`` (:mod:`cardsim.workflows.sweep`)
and a study's ``[[sweep]]`` tables both use it; the statistics are
:mod:`cardsim.analysis.sweep`. It imports no workflow (issue 46: no import circles)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr

from cardsim.sim.config import DEFAULT_SEED, build_config
from cardsim.sim.errors import CardsimError
from cardsim.sim.rundir import atomic_write_bytes
from cardsim.workflows.plan import (
    Scenario,
    integer_range,
    named_table,
    scenario_config,
)

REPORT = "sweep.html"
#: Most parameters of one sweep (one: curves and targets; two: a heat map per measure).
MAX_PARAMS = 2
#: Most runs of one sweep (values, or grid cells).
MAX_CELLS = 400
#: The confirmation runs play fresh deals: the sweep's root seed plus this.
CONFIRM_SEED_OFFSET = 1


@dataclass
class Sweep:
    """A planned sweep: its parameters' values, the fixed configuration and the targets."""

    game: str
    params: dict[str, list[int]]
    games: int
    seed: int
    players: int
    strategy: str | None
    seats: dict[int, str]
    rules: dict[str, str]
    targets: list[tuple[str, float]] = field(default_factory=list)  # (measure, value)
    scenarios: list[Scenario] = field(default_factory=list)
    name: str = ""  # a study's [[sweep]] name ("" for cardsim sweep): prefixes runs and report
    confirm: bool = True  # play a confirmation run for each target the curve reaches

    @property
    def report(self) -> str:
        return f"{self.name}-{REPORT}" if self.name else REPORT

    def run_name(self, cell: str) -> str:
        return f"{self.name}-{cell}" if self.name else cell

    def identity(self) -> dict:
        """What makes two sweeps the same (the report is replaced only for the same sweep)."""
        return {
            "game": self.game, "params": self.params, "games": self.games, "seed": self.seed,
            "players": self.players, "strategy": self.strategy,
            "seats": {str(k): v for k, v in self.seats.items()}, "rules": self.rules,
        }  # fmt: skip


def parse_param(engine, text: str) -> tuple[str, list[int]]:
    """``NAME=lo..hi[/step]`` or ``NAME=a,b,c`` of an integer rule option: (name, values)."""
    name, sep, spec = str(text).partition("=")
    name, spec = name.strip(), spec.strip()
    if not sep or not name or not spec:
        raise CardsimError(f"--param {text!r}: expected NAME=lo..hi[/step] or NAME=a,b,c")
    opts = {o.name: o for o in engine.rule_options}
    if name not in opts:
        raise CardsimError(
            f"--param {name}: not a rule option of {engine.name} (numeric options: "
            f"{', '.join(o.name for o in opts.values() if o.kind == 'int') or 'none'})"
        )
    o = opts[name]
    if o.kind != "int":
        raise CardsimError(
            f"--param {name}: a {o.kind} option, not numeric (a sweep needs an integer option; "
            "compare readings with cardsim study or cardsim screen)"
        )
    if ".." in spec:
        values = integer_range(o, spec)
    else:
        try:
            values = sorted({int(o.check(v.strip())) for v in spec.split(",")})
        except CardsimError as e:
            raise CardsimError(f"--param {text}: {e}") from None
    if len(values) < 2:
        raise CardsimError(f"--param {text}: a sweep needs at least two values")
    return name, values


def parse_target(facts, text: str) -> tuple[str, float]:
    """``MEASURE=VALUE`` (a measure's name or topic; a rate as a fraction): (name, value)."""
    from cardsim.analysis.sweep import resolve_measure

    name, sep, value = str(text).partition("=")
    try:
        target = float(value)
    except ValueError:
        target = math.nan
    if not sep or not math.isfinite(target):
        raise CardsimError(f"--target {text!r}: expected MEASURE=NUMBER, e.g. length=40")
    return resolve_measure(facts, name.strip()), target


def build_sweep(
    game: str,
    params: list[str] | dict[str, list[int]],
    *,
    games: int = 2000,
    seed: int = DEFAULT_SEED,
    players: int | None = None,
    strategy: str | None = None,
    seats: dict[int, str] | None = None,
    rules: dict[str, str] | None = None,
    targets: list[str] | None = None,
    name: str = "",
    confirm: bool = True,
) -> Sweep:
    """Validate a sweep: its parameters (``["hand_size=7..20"]`` or ``{"hand_size": [7, 9]}``),
    the fixed configuration and the targets; every run's configuration is checked here."""
    from cardsim.sim.games import get_engine

    engine = get_engine(game)
    parsed = _parse_params(engine, params)
    rules = {str(k): str(v).lower() if isinstance(v, bool) else str(v)
             for k, v in (rules or {}).items()}  # fmt: skip
    both = sorted(set(rules) & set(parsed))
    if both:
        raise CardsimError(f"--rule {both[0]}: also a --param of the sweep (give it once)")
    base = build_config(engine, games=games, seed=seed, players=players, strategy=strategy,
                        seat_strategies=seats or {}, rules=rules)  # fmt: skip
    tg = [parse_target(engine.facts, t) for t in (targets or [])]
    if tg and len(parsed) != 1:
        raise CardsimError("--target needs exactly one --param (two parameters give heat maps)")
    sweep = Sweep(game, parsed, games, seed, base.players, strategy, dict(seats or {}), rules, tg,
                  name=name, confirm=confirm)  # fmt: skip
    for cell in _grid(parsed):
        cell_name = sweep.run_name("_".join(f"{k}-{v}" for k, v in cell))
        sweep.scenarios.append(_scenario(sweep, cell_name, dict(cell), seed))
    for s in sweep.scenarios:
        scenario_config(s)  # every cell validated before anything is played
    return sweep


def _parse_params(engine, params: list[str] | dict[str, list[int]]) -> dict[str, list[int]]:
    """The swept options and their values (one or two, each an integer option)."""
    if isinstance(params, dict):
        parsed = {k: [int(v) for v in vs] for k, vs in params.items()}
        for k in parsed:
            parse_param(engine, f"{k}={','.join(map(str, parsed[k]))}")
    else:
        parsed = dict(parse_param(engine, p) for p in params)
        if len(parsed) != len(params):
            raise CardsimError("--param: a parameter is given twice")
    if not 1 <= len(parsed) <= MAX_PARAMS:
        raise CardsimError(f"a sweep takes 1 or {MAX_PARAMS} --param options, got {len(parsed)}")
    cells = math.prod(len(v) for v in parsed.values())
    if cells > MAX_CELLS:
        raise CardsimError(f"the sweep has {cells:,} runs; at most {MAX_CELLS} (fewer values)")
    return parsed


def _grid(params: dict[str, list[int]]) -> list[list[tuple[str, int]]]:
    """Every cell of the sweep, the first parameter varying slowest."""
    names = list(params)
    grid = [[(names[0], a)] for a in params[names[0]]]
    if len(names) == 2:
        grid = [[*g, (names[1], b)] for g in grid for b in params[names[1]]]
    return grid


def _scenario(sweep: Sweep, name: str, values: dict[str, int], seed: int) -> Scenario:
    return Scenario(
        name=name, game=sweep.game, games=sweep.games, seed=seed, strategy=sweep.strategy,
        seats=dict(sweep.seats), rules={**sweep.rules, **{k: str(v) for k, v in values.items()}},
        players=sweep.players,
    )  # fmt: skip


def allowed_values(sweep: Sweep) -> list[int]:
    """The values the rules allow for the (first) parameter inside the swept range."""
    from cardsim.sim.games import get_engine

    name, values = next(iter(sweep.params.items()))
    o = next(o for o in get_engine(sweep.game).rule_options if o.name == name)
    step = o.step or 1
    start = o.min if o.min is not None else values[0]
    return [v for v in range(values[0], values[-1] + 1) if (v - start) % step == 0]


def _setting(sweep: Sweep) -> str:
    seats = ", ".join(f"seat {k}: {v}" for k, v in sorted(sweep.seats.items()))
    rules = ", ".join(f"{k}={v}" for k, v in sweep.rules.items())
    return "; ".join(
        x for x in (f"{sweep.players} players", f"every seat {sweep.strategy or 'greedy'}",
                    seats, f"rules {rules}" if rules else "other rules at their defaults") if x
    )  # fmt: skip


def facts_value(facts, measure: str, lf):
    """(rows of ``measure``, cell 0, deal) of one run's games table."""
    import numpy as np
    import polars as pl

    from cardsim.analysis.sweep import measures_of

    (d,) = [d for m, _, _, d in measures_of(facts) if m == measure]
    df = lf.select(pl.col("game"), d.value(facts).cast(pl.Float64).alias("y")).collect()
    df = df.drop_nulls("y")
    y = df["y"].to_numpy()
    return y, np.zeros(y.size, dtype=np.int64), df["game"].to_numpy()


def write_sweep_report(result, sweep: Sweep, out: Path) -> tuple[Path, Path]:
    """``out/sweep.html`` (answers, a figure and a table per measure) and ``out/sweep.json``."""
    from cardsim.analysis.sweep_report import sweep_html
    from cardsim.sim import jsonio

    doc = {"format": "cardsim-sweep", "identity": sweep.identity(), **result.to_dict()}
    js = out / Path(sweep.report).with_suffix(".json")
    atomic_write_bytes(js, jsonio.dump_bytes(doc, indent=1))
    html = out / sweep.report
    atomic_write_bytes(html, sweep_html(result).encode("utf-8"))
    return html, js


def summary(result, out: Path) -> str:
    """The lines ``cardsim sweep`` prints: every answer, then where the report is."""
    lines = [m.sentence for m in result.measures]
    lines += [t.sentence for t in result.targets]
    lines += result.notes
    lines.append(f"report: {Path(out) / REPORT}")
    return "\n".join(lines)


def finish_sweep(
    sweep: Sweep, out: Path, runs: dict[str, Path], play: Callable[[list[Scenario]], dict]
):
    """After the sweep's runs: the curves and targets, a confirmation run (played by ``play``,
    the study runner) for each target the curve reaches, and ``out/<report>`` (+ ``.json``).
    Returns (the report's path, the :class:`cardsim.analysis.sweep.SweepResult`)."""
    from cardsim.analysis.factorial import read_cell_tables
    from cardsim.analysis.sweep import analyse_sweep, cell_points
    from cardsim.analysis.sweep import confirm as confirm_target
    from cardsim.sim.games import get_engine

    facts = get_engine(sweep.game).facts
    tables = read_cell_tables([runs[s.name] for s in sweep.scenarios])
    result, fits = analyse_sweep(
        sweep.params, tables, facts, game=sweep.game, players=sweep.players, games=sweep.games,
        seed=sweep.seed, setting=_setting(sweep), targets=sweep.targets,
        allowed=allowed_values(sweep),
    )  # fmt: skip
    param = next(iter(sweep.params))
    chosen = sorted({a.crossings[0].value for a in result.targets if a.crossings})
    if sweep.confirm and chosen:
        seed = sweep.seed + CONFIRM_SEED_OFFSET
        name = {v: sweep.run_name(f"confirm-{param}-{v}") for v in chosen}
        more = play([_scenario(sweep, name[v], {param: v}, seed) for v in chosen])
        for ans in result.targets:
            if ans.crossings:
                v = ans.crossings[0].value
                (lf,) = read_cell_tables([more[name[v]]])
                ms = next(m for m in result.measures if m.name == ans.measure)
                point = cell_points([float(v)], *facts_value(facts, ans.measure, lf))[0]
                confirm_target(ans, ms, fits[ans.measure], point, seed)
    html, _ = write_sweep_report(result, sweep, out)
    return html, result


class _SweepTable(BaseModel):
    """One ``[[sweep]]`` table of a study file (values checked by :func:`build_sweep`)."""

    model_config = ConfigDict(extra="forbid")
    name: Any
    game: StrictStr
    param: dict[str, Any]
    games: StrictInt = 2000
    seed: StrictInt = DEFAULT_SEED
    players: StrictInt | None = None
    strategy: StrictStr | None = None
    rules: dict[str, Any] = {}
    target: dict[str, float] = {}
    confirm: StrictBool = True


def parse_sweep_table(d: dict, i: int, source: str, taken: set[str]) -> Sweep:
    """One ``[[sweep]]`` table of a study file (docs/study.md): its runs are named
    ``<name>-<param>-<value>`` and its report ``<name>-sweep.html``."""
    label = f"{source}, sweep {i}"
    table, refused, label = named_table(
        _SweepTable, d, "sweep", label, ("name", "game", "param"), taken
    )
    if table is None:
        raise CardsimError(
            f"{label}: wrong type of {', '.join(sorted(refused.wrong))} (param and target are "
            'tables like { hand_size = "7..20" } and { length = 40 })'
        )
    params = [f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
              for k, v in table.param.items()]  # fmt: skip
    try:
        return build_sweep(
            table.game, params, games=table.games, seed=table.seed, players=table.players,
            strategy=table.strategy, rules={k: str(v).lower() if isinstance(v, bool) else str(v)
                                            for k, v in table.rules.items()},
            targets=[f"{k}={v}" for k, v in table.target.items()],
            name=d["name"], confirm=table.confirm,
        )  # fmt: skip
    except CardsimError as e:
        raise CardsimError(f"{label}: {str(e).replace('--', '')}") from None
