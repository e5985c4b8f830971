"""Declarative balance studies: scenarios (runs or strategy comparisons) and comparisons.

The study file format — every key, its default, an annotated example — is docs/study.md;
:data:`STUDY_TEMPLATE` is that example (``cardsim study --template`` writes it). Every scenario
runs into ``OUT/<name>/`` (resumable; a finished run with the same configuration is reused),
then one report covers the whole study.
A ``[[design]]`` table is a factorial rule study (docs/design.md): its cells are scenarios
named ``<design>-cNNN`` on one root seed.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from cardsim.sim.config import DEFAULT_SEED, check_until_ci
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig
from cardsim.sim.rundir import holding_out
from cardsim.workflows.ladder_plan import ladder_data, parse_ladder_table
from cardsim.workflows.plan import (
    NAME_RE,
    NAME_RULE,
    Scenario,
    integer_range,
    refusals,
    run_name_label,
    scenario_config,
)
from cardsim.workflows.sweep_plan import finish_sweep, parse_sweep_table

SCENARIO_KEYS = {
    "name", "game", "games", "seed", "strategy", "seats", "rules", "players", "until_ci",
    "chunk_size", "compare",
}  # fmt: skip


@dataclass
class Comparison:
    name: str
    scenarios: list[str]
    #: a tune objective (cardsim/workflows/tune.py) to re-test on the two scenarios: first minus second
    objective: str | None = None


@dataclass
class Design:
    """A factorial rule study: its cells are scenarios of one seed, differing in rules."""

    name: str
    game: str
    spec: object  # cardsim.analysis.factorial.DesignSpec
    cells: list[dict[str, int]]
    scenarios: list[Scenario]
    margins: dict[str, float] = field(default_factory=dict)
    raw: dict = field(default_factory=dict)  # the [[design]] table as written (for a fold-over)


@dataclass
class Study:
    name: str
    scenarios: list[Scenario]
    comparisons: list[Comparison]
    source: str  # file name, or "<default study>"
    #: equivalence margins of the report's verdicts ([margins] table: measure = value)
    margins: dict[str, float] = field(default_factory=dict)
    designs: list[Design] = field(default_factory=list)
    ladders: list = field(
        default_factory=list
    )  # cardsim.workflows.ladder_plan.Ladder ([[ladder]] tables)
    sweeps: list = field(default_factory=list)  # cardsim.workflows.sweep_plan.Sweep ([[sweep]])
    #: cardsim.workflows.screen_plan.ScreenPlan ([[screen]] tables, issue 47 item 3)
    screens: list = field(default_factory=list)


def _where(source: str, doc: str, key: str) -> str:
    """'file, line N (key)' for the first line of ``doc`` that mentions ``key``."""
    for i, line in enumerate(doc.splitlines(), 1):
        if re.search(rf"(^|[\s{{,\[]){re.escape(key)}\s*=", line):
            return f"{source}, line {i} ({key})"
    return f"{source} ({key})"


def parse_study(text: str, source: str = "<study>") -> Study:
    """Parse and validate a study file; every problem names the file, line or key, and what
    is allowed.

    Examples
    --------
    >>> s = parse_study('[[scenario]]\\nname = "a"\\ngame = "atlas"\\ngames = 10\\n')
    >>> s.scenarios[0].game, s.scenarios[0].seed
    ('atlas', 0)
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CardsimError(f"{source}: not valid TOML: {e}") from None
    margins, raw, designs_raw, ladders_raw, sweeps_raw = _check_sections(doc, source, text)
    screens = [
        _parse_screen(d, i, source, {s.get("name") for s in raw if isinstance(s, dict)})
        for i, d in enumerate(doc.get("screen", []), 1)
    ]
    scenarios: list[Scenario] = []
    for i, sc in enumerate(raw, 1):
        scenarios.append(_parse_scenario(sc, i, source, text, {s.name for s in scenarios}))
    by_name = {s.name: s for s in scenarios}
    comparisons = [
        _parse_comparison(c, i, source, text, by_name)
        for i, c in enumerate(doc.get("comparison", []), 1)
    ]
    designs, ladders, sweeps = _parse_parts(
        designs_raw, ladders_raw, sweeps_raw, source, text, {s.name for s in scenarios}
    )
    names = [s.name for d in [*designs, *ladders, *sweeps, *screens] for s in d.scenarios]
    names += [s.name for s in scenarios]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CardsimError(f"{source}: run name {dup[0]!r} is used by two scenarios or designs")
    name = _parse_study_table(doc.get("study", {}), source, text)
    return Study(
        name or Path(source).stem, scenarios, comparisons, source, margins, designs, ladders,
        sweeps,
        screens,
    )  # fmt: skip


def _parse_parts(designs_raw, ladders_raw, sweeps_raw, source: str, text: str, taken: set[str]):
    """The study's [[design]], [[ladder]] and [[sweep]] tables, each validated."""
    designs = [_parse_design(d, i, source, text, taken) for i, d in enumerate(designs_raw, 1)]
    ladders = [parse_ladder_table(d, i, source, taken) for i, d in enumerate(ladders_raw, 1)]
    sweeps = [parse_sweep_table(d, i, source, taken) for i, d in enumerate(sweeps_raw, 1)]
    return designs, ladders, sweeps


class _StudyFile(BaseModel):
    """The sections of a study file and their shapes (each table is read by its own model)."""

    model_config = ConfigDict(extra="forbid")
    study: dict[str, Any] = {}
    scenario: list[dict[str, Any]] = []
    comparison: list[dict[str, Any]] = []
    margins: Any = None  # _MarginsTable
    design: list[dict[str, Any]] | dict[str, Any] = []
    ladder: list[dict[str, Any]] = []
    sweep: list[dict[str, Any]] = []
    screen: list[dict[str, Any]] = []


#: A section of the wrong shape, in the order they are reported: its message after the file name.
_SECTION_SHAPES = {
    "design": "designs are [[design]] tables",
    "ladder": "ladders are [[ladder]] tables (double brackets)",
    "sweep": "sweeps are [[sweep]] tables (double brackets)",
    "screen": "screens are [[screen]] tables (double brackets)",
    "scenario": "a study needs one or more [[scenario]] (or [[design]], [[ladder]], [[sweep]], "
    "[[screen]]) "
    "tables",
    "comparison": "comparisons are [[comparison]] tables (double brackets)",
}


def _check_sections(doc: dict, source: str, text: str):
    """The file's sections are known and of the right shape: margins and the raw tables."""
    sections, refused = refusals(_StudyFile, doc)
    if refused.unknown:
        raise CardsimError(
            f"{_where(source, text, refused.unknown[0])}: unknown section "
            "(allowed: study, scenario, comparison, margins, design, ladder, sweep, screen)"
        )
    margins = _check_margins(doc, source, text)
    if "study" in refused.wrong:
        raise CardsimError(f"{_where(source, text, 'study')}: [study] must be a table")
    wrong = refused.first_wrong(_SECTION_SHAPES)
    if wrong:
        raise CardsimError(f"{source}: {_SECTION_SHAPES[wrong]}")
    designs = [sections.design] if isinstance(sections.design, dict) else sections.design
    if not (sections.scenario or designs or sections.ladder or sections.sweep or sections.screen):
        raise CardsimError(f"{source}: {_SECTION_SHAPES['scenario']}")
    return margins, sections.scenario, designs, sections.ladder, sections.sweep


#: A positive number (an integer is taken as a float; no bool, no NaN).
PositiveNumber = Annotated[float, Field(strict=True, gt=0)]


class _MarginsTable(RootModel[dict[str, PositiveNumber]]):
    """[margins]: a measure to a positive number."""


def _check_margins(doc: dict, source: str, text: str) -> dict[str, float]:
    """[margins] read by :class:`_MarginsTable`."""
    margins, _ = refusals(_MarginsTable, doc.get("margins", {}))
    if margins is None:
        raise CardsimError(
            f"{_where(source, text, 'margins')}: [margins] maps a measure to a positive "
            'number, e.g. "win rate" = 0.02 (two percentage points; docs/report.md)'
        )
    return margins.root


class _StudyTable(BaseModel):
    """[study]: the study's name (optional; default the file name)."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[StrictStr, Field(pattern=r"\S")] | None = None


def _parse_study_table(table: dict, source: str, text: str) -> str | None:
    """The [study] table's name (None: not given)."""
    study, refused = refusals(_StudyTable, table)
    if "name" in refused.wrong:
        raise CardsimError(
            f"{_where(source, text, 'name')}: [study] name must be a non-empty string, "
            f"got {table['name']!r}"
        )
    if refused.unknown:
        raise CardsimError(
            f"{_where(source, text, refused.unknown[0])}: unknown [study] key (allowed: name)"
        )
    return study.name


def _parse_scenario(sc: dict, i: int, source: str, text: str, taken: set[str]) -> Scenario:
    """One [[scenario]] table, checked as the CLI checks its options (``taken``: names so far)."""
    from cardsim.sim.games import game_names

    label = f"{source}, scenario {i}"
    _check_scenario_keys(sc, source, text, label)
    name = sc["name"]
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise CardsimError(f"{_where(source, text, 'name')}: scenario name {name!r} {NAME_RULE}")
    if name in taken:
        raise CardsimError(f"{label}: scenario name {name!r} is used twice")
    if sc["game"] not in game_names():  # built-in or registered (cardsim.sim.games)
        raise CardsimError(
            f"{label} ({name}): unknown game {sc['game']!r} (allowed: {', '.join(game_names())})"
        )
    until = sc.get("until_ci")
    if until is not None:
        check_until_ci(until, f"{label} ({name}): until_ci")
    seats = sc.get("seats", {})
    if not isinstance(seats, dict):
        raise CardsimError(f'{label} ({name}): seats must be a table like {{ 0 = "greedy" }}')
    try:
        seat_map = {int(k): str(v) for k, v in seats.items()}
    except ValueError:
        raise CardsimError(f"{label} ({name}): seats keys must be seat numbers") from None
    rules = sc.get("rules", {})
    if not isinstance(rules, dict):
        raise CardsimError(f"{label} ({name}): rules must be a table like {{ key = value }}")
    rule_items = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in rules.items()}
    compare = sc.get("compare", [])
    if not isinstance(compare, list) or (compare and len(compare) < 2):
        raise CardsimError(f"{label} ({name}): compare must list at least two strategies")
    scenario = Scenario(
        name=name, game=sc["game"], games=sc["games"], seed=sc.get("seed", DEFAULT_SEED),
        strategy=sc.get("strategy"), seats=seat_map, rules=rule_items,
        players=sc.get("players"), until_ci=until, chunk_size=sc.get("chunk_size"),
        compare=[str(c) for c in compare],
    )  # fmt: skip
    _check_scenario_config(scenario, f"{label} ({name})")
    return scenario


class _ScenarioTable(BaseModel):
    """One [[scenario]] table: its keys, and the types the CLI options have (strict: no bool
    for a number, no float for an integer). The other checks, with their own messages, follow
    in :func:`_parse_scenario`."""

    model_config = ConfigDict(extra="forbid")
    name: Any
    game: Any
    games: StrictInt
    seed: StrictInt | None = None
    players: StrictInt | None = None
    chunk_size: StrictInt | None = None
    strategy: StrictStr | None = None
    until_ci: StrictInt | StrictFloat | None = None
    seats: Any = None
    rules: Any = None
    compare: Any = None


#: The typed keys of a scenario, in the order their errors are reported, and what each must be.
_TYPED = {
    "games": "an integer (no decimal point)",
    "seed": "an integer (no decimal point)",
    "players": "an integer (no decimal point)",
    "chunk_size": "an integer (no decimal point)",
    "strategy": "a string",
    "until_ci": "a number",
}


def _check_scenario_keys(sc: dict, source: str, text: str, label: str) -> None:
    """Types of the typed keys, no unknown key, the required keys present (pydantic)."""
    try:
        _ScenarioTable.model_validate(sc)
    except ValidationError as e:
        raise CardsimError(_scenario_error(e, sc, source, text, label)) from None


def _scenario_error(e: ValidationError, sc: dict, source: str, text: str, label: str) -> str:
    """The one-line message for a [[scenario]] table pydantic refused: the first wrong type
    (in the order of ``_TYPED``), else the first unknown key, else the first missing key."""
    errors = e.errors()
    kinds = {(er["type"], er["loc"][0]) for er in errors if er["loc"]}
    for key, what in _TYPED.items():
        if any(k == key and t not in ("missing", "extra_forbidden") for t, k in kinds):
            return f"{_where(source, text, key)}: {key} must be {what}, got {sc[key]!r}"
    extra = sorted(str(k) for t, k in kinds if t == "extra_forbidden")
    if extra:
        return (
            f"{_where(source, text, extra[0])}: unknown scenario key "
            f"(allowed: {', '.join(sorted(SCENARIO_KEYS))})"
        )
    for key in ("name", "game", "games"):
        if ("missing", key) in kinds:
            return f"{label}: missing key {key!r}"
    return f"{label}: {errors[0]['msg']}"


class _ComparisonTable(BaseModel):
    """One [[comparison]] table's keys (the values are checked in :func:`_parse_comparison`)."""

    model_config = ConfigDict(extra="forbid")
    name: Any = None
    scenarios: Any = None
    objective: Any = None


def _check_scenario_config(scenario: Scenario, where: str) -> None:
    """Validate with the same rules as the CLI (``build_config``, ``build_compare_config``)."""
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    try:  # validate with the same rules as the CLI
        build_config(
            get_engine(scenario.game), games=scenario.games, seed=scenario.seed,
            players=scenario.players, strategy=scenario.strategy,
            seat_strategies=scenario.seats, rules=scenario.rules,
        )  # fmt: skip
        if scenario.is_compare:
            from cardsim.sim.compare import build_compare_config

            build_compare_config(
                get_engine(scenario.game), scenario.compare, games=scenario.games,
                seed=scenario.seed, players=scenario.players, rules=scenario.rules,
            )  # fmt: skip
    except CardsimError as e:
        raise CardsimError(f"{where}: {e}") from None
    if scenario.chunk_size is not None and (
        not isinstance(scenario.chunk_size, int) or scenario.chunk_size <= 0
    ):
        raise CardsimError(f"{where}: chunk_size must be a positive integer")


def _parse_comparison(c: dict, i: int, source: str, text: str, by_name: dict) -> Comparison:
    """One [[comparison]] table: two or more runs of one game, and an optional objective."""
    label = f"{source}, comparison {i}"
    try:
        _ComparisonTable.model_validate(c)
    except ValidationError as e:
        bad = sorted(str(er["loc"][0]) for er in e.errors() if er["type"] == "extra_forbidden")
        raise CardsimError(
            f"{_where(source, text, sorted(bad)[0])}: unknown comparison key "
            "(allowed: name, scenarios, objective)"
        ) from None
    names = c.get("scenarios", [])
    if not isinstance(names, list) or len(names) < 2:
        raise CardsimError(f"{label}: scenarios must list at least two scenario names")
    if len(set(map(str, names))) != len(names):
        raise CardsimError(f"{label}: scenarios lists a scenario twice ({', '.join(names)})")
    for n in names:
        if n not in by_name:
            raise CardsimError(f"{label}: unknown scenario {n!r} (defined: {', '.join(by_name)})")
        if by_name[n].is_compare:
            raise CardsimError(f"{label}: {n!r} is a strategy comparison, not a run")
    if len({by_name[n].game for n in names}) > 1:
        raise CardsimError(f"{label}: all scenarios of a comparison must be of one game")
    objective = c.get("objective")
    if objective is not None:  # verify.toml of cardsim tune: the tuned objective, re-tested
        from cardsim.analysis.objective import parse_objective

        if len(names) != 2 or not isinstance(objective, str):
            raise CardsimError(
                f'{label}: objective is a text like "first_excess" and compares exactly '
                "two scenarios"
            )
        try:
            objective = parse_objective(objective).text()
        except CardsimError as e:
            raise CardsimError(f"{label}: {e}") from None
    return Comparison(str(c.get("name", " vs ".join(names))), list(names), objective)


class _ScreenTable(BaseModel):
    """One [[screen]] table (issue 47 item 3): a game's readings screened against its defaults."""

    model_config = ConfigDict(extra="forbid")
    name: StrictStr
    game: StrictStr
    games: StrictInt
    seed: StrictInt = DEFAULT_SEED
    players: StrictInt | None = None


def _parse_screen(d: dict, i: int, source: str, taken: set) -> object:
    """One [[screen]] table: its plan (cardsim/workflows/screen_plan.py), its scenarios
    ``<name>-default`` and ``<name>-<option>-<value>`` checked as [[scenario]] tables."""
    from cardsim.workflows.screen_plan import plan_screen

    label = f"{source}, screen {i}"
    table, refused = refusals(_ScreenTable, d)
    if table is None:
        for key in ("name", "game", "games"):
            if key in refused.missing:
                raise CardsimError(f"{label}: missing key {key!r}")
        bad = (refused.unknown or sorted(refused.wrong))[0]
        raise CardsimError(
            f"{label}: {'unknown' if refused.unknown else 'wrong type of'} key {bad!r} (keys: "
            "name, game, games as strings and integers; seed, players optional integers)"
        )
    label = run_name_label("screen", table.name, label, taken)
    try:
        plan = plan_screen(table.game, players=table.players, games=table.games,
                           seed=table.seed, name=table.name)  # fmt: skip
    except CardsimError as e:
        raise CardsimError(f"{label}: {e}") from None
    for sc in plan.scenarios:
        if not NAME_RE.match(sc.name):
            raise CardsimError(f"{label}: run name {sc.name!r} {NAME_RULE}; use a shorter name")
        _check_scenario_config(sc, label)
    return plan


class _DesignTable(BaseModel):
    """One [[design]] table. ``games`` and the keys passed on to the cells are checked as the
    cells' scenario keys, ``options`` against the game's rule options (:func:`_design_levels`)."""

    model_config = ConfigDict(extra="forbid")
    name: Any
    game: Any
    games: Any
    options: Any
    seed: Any = None
    strategy: Any = None
    seats: Any = None
    players: Any = None
    chunk_size: Any = None
    rules: dict[str, Any] = {}
    fraction: Annotated[StrictInt, Field(ge=0)] = 0
    generators: dict[str, Any] = {}
    interactions: StrictBool = True
    margins: dict[str, PositiveNumber] = {}
    foldover: list[StrictStr] = []


DESIGN_KEYS = set(_DesignTable.model_fields)
#: A design key of a wrong type or value, in the order they are reported, and the message.
_DESIGN_WRONG = {
    "rules": "rules must be a table like { key = value }",
    "fraction": "fraction must be an integer p >= 0 (2^(k-p) cells)",
    "generators": "generators is a table and needs fraction >= 1",
    "interactions": "interactions must be true or false",
    "margins": "margins must be a table of positive numbers",
}


def _foldover_rule(levels: dict) -> str:
    return (
        "foldover lists design options to switch (each once), like "
        f'["a", "b"], and needs fraction >= 1 (options: {", ".join(levels)})'
    )


def _parse_design(d: dict, i: int, source: str, text: str, taken: set[str]) -> Design:
    """Validate one [[design]] table and expand it into its cell scenarios."""
    from cardsim.analysis.factorial import DesignSpec, design_cells
    from cardsim.sim.games import get_engine

    label = f"{source}, design {i}"
    table, refused = refusals(_DesignTable, d)
    if refused.unknown:
        raise CardsimError(
            f"{_where(source, text, refused.unknown[0])}: unknown design key "
            f"(allowed: {', '.join(sorted(DESIGN_KEYS))})"
        )
    for key in ("name", "game", "games", "options"):
        if key in refused.missing:
            raise CardsimError(f"{label}: missing key {key!r}")
    label = run_name_label("design", d["name"], label, taken)
    try:
        engine = get_engine(d["game"])
    except CardsimError as e:
        raise CardsimError(f"{label}: {e}") from None
    levels = _design_levels(engine, d["options"], label)
    wrong = refused.first_wrong([*_DESIGN_WRONG, "foldover"])
    if wrong:
        why = _foldover_rule(levels) if wrong == "foldover" else _DESIGN_WRONG[wrong]
        raise CardsimError(f"{label}: {why}")
    _check_design_keys(table, levels, label)
    spec = DesignSpec(
        levels, table.fraction, {str(k): str(v) for k, v in table.generators.items()},
        table.interactions, list(table.foldover),
    )  # fmt: skip
    try:
        cells = design_cells(spec)
    except CardsimError as e:
        raise CardsimError(f"{label}: {e}") from None
    if len(cells) > 4096:
        raise CardsimError(f"{label}: {len(cells)} cells is too many (at most 4096); use fraction")
    scenarios = _design_scenarios(d, spec, cells, label)
    return Design(d["name"], d["game"], spec, cells, scenarios, dict(table.margins), dict(d))


def _check_design_keys(table: _DesignTable, levels: dict[str, list], label: str) -> None:
    """The checks across keys: fixed rules are not options, generators and foldover need a
    fraction, foldover names options."""
    both = sorted(set(table.rules) & set(levels))
    if both:
        raise CardsimError(f"{label}: {both[0]} is both a fixed rule and a design option")
    if table.generators and not table.fraction:
        raise CardsimError(f"{label}: {_DESIGN_WRONG['generators']}")
    foldover = table.foldover
    if (
        (foldover and not table.fraction)
        or not all(f in levels for f in foldover)
        or len(set(foldover)) != len(foldover)
    ):
        raise CardsimError(f"{label}: {_foldover_rule(levels)}")


def _design_levels(engine, options, label: str) -> dict[str, list]:
    """A design's ``options`` table: each rule option's levels, the baseline first."""
    if not isinstance(options, dict) or not options:
        raise CardsimError(
            f'{label}: options must be a table like {{ dao_bomb = "all", turn_cap = [500, 2000] }}'
        )
    table = engine.rule_options
    levels: dict[str, list] = {}
    for opt, given in options.items():
        if opt not in table:
            raise CardsimError(
                f"{label}: unknown {engine.name} rule option {opt!r} "
                f"(allowed: {', '.join(table.names())})"
            )
        levels[opt] = _option_levels(table[opt], opt, given, label)
    return levels


def _option_levels(o, opt: str, given, label: str) -> list:
    """One option's levels: "all", a range "lo..hi[/step]" (integers), or a list of two or more."""
    if given == "all":
        if o.kind == "int":
            raise CardsimError(
                f"{label}: {opt} is an integer option ({o.allowed()}); list its levels "
                f'like [40, 60, 80] or give a range like "40..80/20"'
            )
        values = [False, True] if o.kind == "bool" else list(o.choices)
        values.sort(key=lambda v: v != o.default)  # the default is the baseline
        return values
    if isinstance(given, str) and ".." in given and o.kind == "int":
        try:
            values = integer_range(o, given)
        except CardsimError as e:
            raise CardsimError(f"{label}: {e}") from None
        if len(values) < 2:
            raise CardsimError(f"{label}: {opt} = {given!r} gives fewer than two levels")
        return values
    if isinstance(given, list) and len(given) >= 2:
        try:
            values = [o.check(str(v).lower() if isinstance(v, bool) else v) for v in given]
        except CardsimError as e:
            raise CardsimError(f"{label}: {e}") from None
        if len(set(values)) != len(values):
            raise CardsimError(f"{label}: {opt} lists a level twice")
        return values
    raise CardsimError(f'{label}: {opt} must list two or more levels, or be "all" ({o.allowed()})')


def _rule_text(v) -> str:
    """A rule value as the rule table reads it (TOML's true is "true")."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def _design_scenarios(d: dict, spec, cells: list[dict[str, int]], label: str) -> list[Scenario]:
    """The cell scenarios of a design, each checked as a [[scenario]] table."""
    # a fold-over's first half is the fraction itself: the same cell names (a rerun into the
    # study's folder reuses them); the folded half is <name>-fNNN
    name = d["name"]
    half = len(cells) // 2 if spec.foldover else len(cells)
    width = max(3, len(str(half - 1)))
    scenarios = []
    for c, cell in enumerate(cells):
        rules = {k: _rule_text(v) for k, v in d.get("rules", {}).items()}
        for opt, li in cell.items():
            rules[opt] = _rule_text(spec.options[opt][li])
        sc = {
            "name": f"{name}-c{c:0{width}d}" if c < half else f"{name}-f{c - half:0{width}d}",
            "game": d["game"], "games": d["games"],
            "seed": d.get("seed", 1), "rules": rules,
            **{k: d[k] for k in ("strategy", "seats", "players", "chunk_size") if k in d},
        }  # fmt: skip
        one = parse_study(_scenario_toml(sc), f"{label}, cell {c}")
        scenarios.append(one.scenarios[0])
    return scenarios


def _scenario_toml(sc: dict) -> str:
    """A one-scenario study file (the cell's checks are the scenario's), written by a TOML
    writer (issue 45 item 12: no value can end a string or add a key)."""
    import tomli_w

    return tomli_w.dumps({"scenario": [sc]})


def load_study(path: Path | str) -> Study:
    """Read and validate a study file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise CardsimError(f"study file {p}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise CardsimError(f"study file {p}: not UTF-8 text") from None
    return parse_study(text, str(p))


#: The annotated example study of docs/study.md; ``cardsim study --template FILE`` writes it.
STUDY_TEMPLATE = """\
# A cardsim balance study. Format: docs/study.md. Run it with
#   cardsim study my-study.toml --out studies/mine
# Every scenario runs into studies/mine/<name>/ (resumable; a finished run with the same
# configuration is reused); one report covers the study: studies/mine/report.html.

[study]
name = "my first study"          # optional; default: the file name without .toml

# A run: one configuration, played `games` times.
[[scenario]]
name = "yuanzi-default"          # required; letters, digits, '-', '_'; names its directory
game = "yuanzi"                  # required; yuanzi or atlas
games = 20000                    # required; matches (ATLAS: matches of `rounds` rounds)
seed = 0                         # optional; root seed, default 0 (as --seed on the command line)
strategy = "greedy"              # optional; every seat's strategy, default greedy
chunk_size = 20000               # optional; games per part file, default 20000

# The same game under a rule variant (cardsim rules yuanzi lists the options).
[[scenario]]
name = "yuanzi-dao-bomb-same-count"
game = "yuanzi"
games = 20000
rules = { dao_bomb = "same_count_only" }  # optional; rule options, default: the defaults

# ATLAS, 6 players, one seat playing another strategy, stopping once the answer is clear.
[[scenario]]
name = "atlas-6p"
game = "atlas"
players = 6                      # optional; ATLAS 2..10, default 4 (原子: always 4)
games = 50000
seats = { 0 = "careful" }        # optional; strategy per seat, overrides strategy
until_ci = 0.01                  # optional; stop once the first-player advantage is known
                                 # to ±0.01 (±1 percentage point, 95 %); 0.0001..0.1

# A strategy comparison on duplicate deals, like `cardsim compare`; games counts deals.
[[scenario]]
name = "yuanzi-points-vs-greedy"
game = "yuanzi"
compare = ["points", "greedy"]   # two or more strategies (strategy and seats do not apply)
games = 5000

# Runs of one game side by side in the report (strategy comparisons are reported on their own).
[[comparison]]
name = "原子: 刀 bomb over all bombs vs same count only (YZ-15)"  # optional; default "a vs b"
scenarios = ["yuanzi-default", "yuanzi-dao-bomb-same-count"]     # two or more run scenarios
# objective = "first_excess"     # optional, two scenarios: re-test a cardsim tune objective
#                                  (first − second; verify.toml of `cardsim tune` sets it)

# Optional: equivalence margins of the report's verdicts (docs/report.md, "Verdicts"), per
# measure in its unit; a difference inside ±margin is "equivalent". Defaults: win rate and
# rate 0.01 (±1 percentage point), mean 0.5.
[margins]
"win rate" = 0.02                # ±2 percentage points

# Optional: a factorial rule study (docs/design.md): every combination of the listed option
# levels is a cell, all cells play the same deals; the report gets the main effects and
# two-way interactions of each option with intervals and verdicts (DIR/<name>-factorial.html).
[[design]]
name = "yuanzi-rules"
game = "yuanzi"
games = 2000                     # deals per cell
options = { pass_only_if_unable = [false, true], lead_after_out = "all" }  # first level = baseline
# fraction = 1                   # optional: a 2^(k-p) fraction (two levels per option)
# foldover = ["a", "b"]          # optional: add the fold-over on these options (the report of
#                                  a fraction writes DIR/<name>-foldover.toml when one is needed)

# Optional: a skill ladder (docs/ladder.md): the levels are rated on duplicate deals and each
# plays itself; is every headline measure stable across levels or skill-dependent?
# (DIR/<name>-ladder.html). Search levels such as "pimc:samples=4" are stronger and slower.
[[ladder]]
name = "yuanzi-ladder"
game = "yuanzi"
levels = ["random", "greedy"]    # optional; default random, greedy, pimc:samples=4, pimc:samples=16
games = 2000                     # self-play games per level
deals = 500                      # optional; duplicate deals rating the levels, default: games

# Optional: a sweep (docs/design.md): one run per value of an integer rule option, all on the
# same deals; a curve with its band per headline measure, and where it reaches each target
# (with an interval and a confirmation run on fresh deals). (DIR/<name>-sweep.html)
[[sweep]]
name = "threshold"
game = "yuanzi"
param = { shuangjia_threshold = "30..90/30" }   # or a list of values: [30, 60, 90]
games = 2000                     # games per value
target = { shuangjia = 0.5 }     # optional: MEASURE = VALUE (a rate as a fraction)
# confirm = false                # optional: no confirmation run

# Optional: a screen of the readings (docs/design.md, "Screening the readings"): the default
# rules and every variant of every reading the rule text leaves open (`cardsim rules yuanzi`,
# role "reading"), each on the same deals; which change an answer? (DIR/<name>-screen.html)
[[screen]]
name = "yuanzi-screen"
game = "yuanzi"
games = 20000                    # deals per reading
"""

DEFAULT_STUDY = """
[study]
name = "cardsim default balance study"

# 原子 at default rules: first-player advantage, 刀, 双夹, bombs ...
[[scenario]]
name = "yuanzi-default"
game = "yuanzi"
games = 40000
strategy = "greedy"

# one rule variant: a 刀 bomb beats only ordinary bombs of its own size (YZ-15)
[[scenario]]
name = "yuanzi-dao-bomb-same-count"
game = "yuanzi"
games = 40000
strategy = "greedy"
rules = { dao_bomb = "same_count_only" }

# one strategy comparison on duplicate deals
[[scenario]]
name = "yuanzi-points-vs-greedy"
game = "yuanzi"
compare = ["points", "greedy"]
games = 10000

# ATLAS, 4 players, default rules
[[scenario]]
name = "atlas-4p-default"
game = "atlas"
players = 4
games = 40000
strategy = "greedy"

# one rule variant: claims jump the turn to the claimant, mahjong-style (AT-15)
[[scenario]]
name = "atlas-4p-claim-jump"
game = "atlas"
players = 4
games = 40000
strategy = "greedy"
rules = { claim_turn = "jump" }

[[scenario]]
name = "atlas-4p-careful-vs-greedy"
game = "atlas"
players = 4
compare = ["careful", "greedy"]
games = 10000

[[comparison]]
name = "原子: 刀 bomb over all bombs vs same count only (YZ-15)"
scenarios = ["yuanzi-default", "yuanzi-dao-bomb-same-count"]

[[comparison]]
name = "ATLAS: claim turn stay vs jump (AT-15)"
scenarios = ["atlas-4p-default", "atlas-4p-claim-jump"]
"""


def default_study() -> Study:
    """The built-in study that ``cardsim study`` runs without a file (the README's main job)."""
    return parse_study(DEFAULT_STUDY, "<default study>")


@dataclass
class StudyResult:
    out: Path
    runs: dict[str, Path]
    reused: list[str]
    report: Path | None
    stopped_by: dict[str, str]
    designs: dict[str, Path] = field(default_factory=dict)  # design -> factorial report
    ladders: dict[str, Path] = field(default_factory=dict)  # ladder -> its report
    screens: dict[str, Path] = field(default_factory=dict)  # screen -> its page
    #: sweep -> (its report, its :class:`cardsim.analysis.sweep.SweepResult`)
    sweeps: dict[str, tuple] = field(default_factory=dict)

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        return html_of(self, f"cardsim study: {len(self.runs)} scenarios")


#: Beside a study's report: the digest of the study it reports (so a rerun may refresh it).
STUDY_MARKER = ".cardsim-study"


def study_digest(study: Study) -> str:
    """A digest of what a study's report covers: its scenarios' configurations and comparisons."""
    import hashlib
    import json

    doc = {
        "name": study.name,
        "scenarios": {s.name: scenario_config(s).identity() for s in study.scenarios},
        "until_ci": {s.name: s.until_ci for s in study.scenarios},
        "comparisons": [
            [c.name, c.scenarios, *([c.objective] if c.objective else [])]
            for c in study.comparisons
        ],
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def _read_marker(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _say(text: str) -> None:
    print(f"cardsim: {text}", file=sys.stderr, flush=True)


def with_games(study: Study, games: int) -> Study:
    """``study`` with every scenario playing ``games`` games (deals for comparisons): a quick
    trial of a study file (``cardsim study --games N``)."""
    from dataclasses import replace

    if isinstance(games, bool) or not isinstance(games, int) or games <= 0:
        raise CardsimError(f"--games must be a positive integer, got {games!r}")
    designs = [
        replace(d, scenarios=[replace(c, games=games) for c in d.scenarios]) for d in study.designs
    ]
    ladders = [
        replace(lad, scenarios=[replace(c, games=games) for c in lad.scenarios])
        for lad in study.ladders
    ]
    screens = [
        replace(sc, games=games, scenarios=[replace(c, games=games) for c in sc.scenarios])
        for sc in study.screens
    ]
    sweeps = [
        replace(sw, games=games, scenarios=[replace(c, games=games) for c in sw.scenarios])
        for sw in study.sweeps
    ]
    return replace(
        study, scenarios=[replace(s, games=games) for s in study.scenarios], designs=designs,
        ladders=ladders, screens=screens, sweeps=sweeps,
    )  # fmt: skip


@holding_out("study")  # one writer per study folder (sim/rundir.py)
def run_study(
    study: Study,
    out: Path | str,
    *,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    report: bool = True,
    scheduler=None,
    command: str = "study",
) -> StudyResult:
    """Run every scenario of ``study`` into ``out/<name>/`` and write ``out/report.html``.
    ``command``: the command whose sub-runs these are (``ladder`` runs its levels as a study),
    named in the line after Ctrl-C.

    A scenario directory holding a finished run of the same configuration is reused; an
    unfinished one is resumed; one holding a different run is an error unless ``force``.
    A scenario folder that is a symbolic link is refused (never followed: ``force`` would
    delete the linked run's parts). ``scheduler`` (``--scheduler``: ``local:N``, an address,
    or an open :class:`cardsim.sim.runner.ClusterSession`) plays the chunks of every scenario
    on one Dask cluster, connected once after every directory is checked and before anything
    is written; the tables are those of a local run.
    """
    from cardsim.sim import runner

    out = Path(out)
    if not isinstance(scheduler, runner.ClusterSession):
        runner.check_scheduler(scheduler)
    cells = [s for d in [*study.designs, *study.ladders, *study.sweeps, *study.screens]
             for s in d.scenarios]  # fmt: skip
    configs = {s.name: scenario_config(s) for s in [*study.scenarios, *cells]}  # validate all
    plans: dict[str, tuple[int, bool, dict | None]] = {}  # (chunk size, resume, stop spec)
    runs, reused, stopped = {}, [], {}
    for s in [*study.scenarios, *cells]:  # check every directory before anything is written
        plan = _plan_scenario(s, configs[s.name], out / s.name, force)
        if isinstance(plan, str):  # a finished run of the same configuration: reused
            runs[s.name] = out / s.name
            reused.append(s.name)
            stopped[s.name] = plan
        else:
            plans[s.name] = plan
    _check_study_report(study, out, report, force)
    with runner.cluster_session(scheduler if plans else None) as session:
        _play_scenarios(
            study,
            out,
            cells,
            configs,
            plans,
            runs,
            stopped,
            threads,
            progress,
            force,
            session,
            command,
        )
    design_reports, ladder_reports = _write_part_reports(study, out, runs) if report else ({}, {})

    def play(more: list[Scenario]) -> dict[str, Path]:  # a sweep's confirmation runs
        sub = Study(f"{study.name} confirmations", more, [], study.source)
        done = run_study(sub, out, threads=threads, progress=progress, force=force,
                         report=False, scheduler=scheduler, command=command)  # fmt: skip
        runs.update(done.runs)
        return done.runs

    sweeps = {sw.name: finish_sweep(sw, out, runs, play) for sw in study.sweeps}
    screen_pages = {}
    for sc in study.screens if report else ():  # docs/study.md: <name>-screen.html (+ .json)
        from cardsim.workflows.screen_plan import analyse_screen

        screen_pages[sc.name] = analyse_screen(sc, runs, out, study.margins or None)[1]
    report_path = None
    if report and study.scenarios:
        report_path = _write_study_report(study, out, runs)
    return StudyResult(out, runs, reused, report_path, stopped, design_reports, ladder_reports,
                       screen_pages, sweeps)  # fmt: skip


def _plan_scenario(s: Scenario, cfg: RunConfig, run_dir: Path, force: bool):
    """How a scenario plays into ``run_dir``: (chunk size, resume, stop spec), or the stop
    reason of the finished run there that it reuses. Refuses a link, a folder that is not a run
    directory, and (unless ``force``) a different run."""
    from cardsim.sim import runner

    chunk = s.chunk_size or runner.DEFAULT_CHUNK_SIZE
    stop = {"stop": {"until_ci": s.until_ci}} if s.until_ci else None
    _check_run_dir(s, run_dir)
    if not (run_dir / runner.MANIFEST).is_file() or force:
        return chunk, False, stop
    m = runner.read_manifest(run_dir)
    ident = runner.same_run(m, cfg, stop)
    if ident["have"] != ident["want"]:
        raise CardsimError(
            f"{run_dir} holds a different run than scenario {s.name!r}; use --force to replace it"
        )
    if runner.finished_and_intact(run_dir, m):  # verified as --resume verifies
        return m.get("stopped_by") or "games"
    return m.get("chunk_size", chunk), True, stop


def _check_run_dir(s: Scenario, run_dir: Path) -> None:
    """A scenario's folder is not a link and, if it exists, a run directory (or vacant)."""
    from cardsim.sim import runner
    from cardsim.sim.rundir import refuse_link

    refuse_link(run_dir, "a study writes and deletes runs only inside its folder")
    if run_dir.is_dir() and not (run_dir / runner.MANIFEST).is_file():
        from cardsim.sim.rundir import is_vacant

        if not is_vacant(run_dir):
            raise CardsimError(
                f"{run_dir}: not a cardsim run directory (no manifest.json) but scenario "
                f"{s.name!r} runs there; move its files away or choose another --out"
            )


def _check_study_report(study: Study, out: Path, report: bool, force: bool) -> None:
    """An existing ``out/report.html`` is replaced only when it is this study's report."""
    # only a study with scenarios writes report.html (a design-only one, e.g. a fold-over
    # file run into its study's folder, leaves that study's report alone)
    stale = report and study.scenarios and not force and (out / "report.html").exists()
    if stale and _read_marker(out / STUDY_MARKER) != study_digest(study):
        raise CardsimError(
            f"{out / 'report.html'} exists and is not this study's report; use --force to "
            "replace it, or another --out"
        )


def _write_part_reports(study: Study, out: Path, runs: dict[str, Path]):
    """The reports of the study's designs and ladders: ({design: path}, {ladder: path})."""
    design_reports, ladder_reports = {}, {}
    for d in study.designs:
        design_reports[d.name] = write_design_report(d, [runs[s.name] for s in d.scenarios], out)
    for lad in study.ladders:  # docs/ladder.md: its own report, <name>-ladder.html
        from cardsim.analysis.ladder import write_ladder_report

        ladder_reports[lad.name], _ = write_ladder_report(
            ladder_data(lad, runs), out / f"{lad.name}-ladder.html", study.margins
        )
    return design_reports, ladder_reports


def _write_study_report(study: Study, out: Path, runs: dict[str, Path]) -> Path:
    """``out/report.html`` of the study's scenarios and ladder runs, and its marker."""
    from cardsim.analysis.study_report import write_study_report
    from cardsim.sim.rundir import atomic_write_bytes

    plain = {s.name: runs[s.name] for s in study.scenarios}
    plain |= {s.name: runs[s.name] for lad in study.ladders for s in lad.scenarios}
    report_path = write_study_report(study, plain, out / "report.html")
    atomic_write_bytes(out / STUDY_MARKER, study_digest(study).encode())
    return report_path


def _play_scenarios(study, out, cells, configs, plans, runs, stopped, threads, progress, force,
                    session, command: str = "study") -> None:  # fmt: skip
    """Play the scenarios of ``plans`` in study order (locally, or on ``session``'s cluster)."""
    from cardsim.sim import runner, warmup
    from cardsim.sim.compare import DuplicateEngine
    from cardsim.sim.games import get_engine

    compiling = None  # cardsim.sim.warmup: compiles the games still to play concurrently
    for s in [*study.scenarios, *cells]:
        if s.name not in plans:
            continue
        cfg, run_dir = configs[s.name], out / s.name
        chunk, resume, stop = plans[s.name]
        _check_run_dir(s, run_dir)  # again just before playing: a link made meanwhile (item 11)
        engine = get_engine(s.game)
        if cfg.assignments:
            engine = DuplicateEngine(engine)
        rule = None
        if s.until_ci:
            from cardsim.analysis.stopping import until_ci_rule

            rule = until_ci_rule(s.until_ci)
        if compiling is None:  # first-run compilation of every game still to play, at once
            rest = [configs[name] for name in plans]
            compiling = warmup.start(rest, say=_say if progress else None)
        compiling.wait(s.game)
        if progress:
            _say(f"scenario {s.name}")
        result = runner.run(
            cfg, run_dir, chunk_size=chunk, threads=threads, resume=resume,
            force=force, progress=progress, stop_rule=rule, engine=engine,
            extra_manifest=stop, command=command, scheduler=session,
        )  # fmt: skip
        runs[s.name] = run_dir
        stopped[s.name] = result.stopped_by
    if compiling is not None:
        compiling.close()


def write_design_report(design: Design, run_dirs: list[Path], out: Path) -> Path:
    """Analyse a design's cell runs (analysis/factorial.py) into ``out/<name>-factorial.html``
    (and ``.json``)."""
    from cardsim.analysis import factorial
    from cardsim.sim.games import get_engine

    result = factorial.analyse(
        design.spec, design.cells, factorial.read_cell_tables(run_dirs),
        get_engine(design.game).facts, name=design.name, game=design.game,
        margins=design.margins,
    )  # fmt: skip
    stem = f"{design.name}-foldover" if design.spec.foldover else design.name
    if result.suggested_foldover:
        path = write_foldover(design, result.suggested_foldover, Path(out))
        result.foldover_file = str(path)
    return factorial.write_report(result, Path(out) / f"{stem}-factorial.html")


def foldover_toml(design: Design, factors: list[str]) -> str:
    """A study file of ``design``'s fold-over on ``factors``: the same [[design]] table (the
    games its cells played) with ``foldover`` added, so its first half is the cells already
    played (same names and configurations) and only the folded half is new."""
    import tomli_w

    doc = {**design.raw, "games": design.scenarios[0].games, "foldover": list(factors)}
    lines = [
        f"# Fold-over of design {design.name!r} on {', '.join(factors)}: separates the terms its",
        "# report reads 'clear, but aliased with …' (docs/design.md, 'Aliases and the fold-over').",
        "# Run it into the study's folder to reuse the cells already played:",
        f"#   cardsim study {design.name}-foldover.toml --out DIR",
    ]
    return "\n".join(lines) + "\n" + tomli_w.dumps({"design": [doc]})


def write_foldover(design: Design, factors: list[str], out: Path) -> Path:
    """Write ``out/<design>-foldover.toml`` (:func:`foldover_toml`); returns its path."""
    from cardsim.sim.rundir import atomic_write_bytes

    path = Path(out) / f"{design.name}-foldover.toml"
    atomic_write_bytes(path, foldover_toml(design, factors).encode("utf-8"))
    return path
