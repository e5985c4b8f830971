"""A study plan's vocabulary, read by ``study``, ``ladder`` and ``tune`` alike: a scenario (one
run), the checks of names and of refused keys, and integer ranges of rule levels. It imports no
workflow, so the three commands sit above it (issue 46: no import circles)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from cardsim.kernels.options import RuleOption
from cardsim.sim.config import DEFAULT_SEED
from cardsim.sim.errors import CardsimError
from cardsim.sim.game import RunConfig

#: Longest scenario, design or ladder name: each names a folder (and a design or ladder prefixes
#: its sub-runs' folders and report files with it), so it must fit a file name with room left.
MAX_NAME = 64
NAME_RE = re.compile(rf"^[A-Za-z0-9_-]{{1,{MAX_NAME}}}$")
#: How a name must look, for the messages.
NAME_RULE = f"must use letters, digits, '-' and '_' only (at most {MAX_NAME} characters)"


@dataclass
class Scenario:
    name: str
    game: str
    games: int
    seed: int = DEFAULT_SEED  # the CLI's --seed default too
    strategy: str | None = None
    seats: dict[int, str] = field(default_factory=dict)
    rules: dict[str, str] = field(default_factory=dict)
    players: int | None = None
    until_ci: float | None = None
    chunk_size: int | None = None
    compare: list[str] = field(default_factory=list)

    @property
    def is_compare(self) -> bool:
        return bool(self.compare)


@dataclass
class Refusals:
    """What a pydantic model refused in one table, by top-level key."""

    unknown: list[str] = field(default_factory=list)  # sorted
    missing: set[str] = field(default_factory=set)
    wrong: set[str] = field(default_factory=set)  # a wrong type or value

    def first_wrong(self, order) -> str | None:
        """The first key of ``order`` with a wrong type or value."""
        return next((key for key in order if key in self.wrong), None)


def refusals(model: type[BaseModel], table: dict) -> tuple[Any, Refusals]:
    """``table`` read by ``model``: (the model, or None if refused; what was refused)."""
    try:
        return model.model_validate(table), Refusals()
    except ValidationError as e:
        found = Refusals()
        for er in e.errors():
            key = str(er["loc"][0]) if er["loc"] else ""
            if er["type"] == "extra_forbidden":
                found.unknown.append(key)
            elif er["type"] == "missing":
                found.missing.add(key)
            else:
                found.wrong.add(key)
        found.unknown.sort()
        return None, found


def named_table(
    model: type[BaseModel],
    d: dict,
    kind: str,
    label: str,
    required: tuple[str, ...],
    taken: set[str],
) -> tuple[Any, Refusals, str]:
    """A study file's ``[[kind]]`` table read by ``model``: an unknown key or a missing
    ``required`` one refused in one line, the name checked (:func:`run_name_label`). Returns the
    model (None if refused), what was refused and the label with the name added."""
    table, refused = refusals(model, d)
    if refused.unknown:
        raise CardsimError(
            f"{label}: unknown {kind} key {refused.unknown[0]!r} "
            f"(allowed: {', '.join(sorted(model.model_fields))})"
        )
    for key in required:
        if key in refused.missing:
            raise CardsimError(f"{label}: missing key {key!r}")
    return table, refused, run_name_label(kind, d["name"], label, taken)


def run_name_label(kind: str, name, label: str, taken: set[str]) -> str:
    """Check the name of a design or ladder (``kind``); the label with the name added."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise CardsimError(f"{label}: {kind} name {name!r} {NAME_RULE}")
    label = f"{label} ({name})"
    if name in taken:
        raise CardsimError(f"{label}: the name is also a scenario's")
    return label


def integer_range(o: RuleOption, text: str) -> list[int]:
    """The levels ``lo..hi[/step]`` of an integer option: ``lo, lo + step, … <= hi``; the step
    defaults to the option's own (1 if it has none) and must be a multiple of it; every level is
    checked against the option's range and step (:class:`CardsimError` otherwise).

    >>> from cardsim.kernels.yuanzi.options import OPTIONS
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


def scenario_config(scenario: Scenario) -> RunConfig:
    """The validated :class:`~cardsim.sim.game.RunConfig` of a scenario."""
    from cardsim.sim.compare import build_compare_config
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    engine = get_engine(scenario.game)
    if scenario.is_compare:
        return build_compare_config(
            engine, scenario.compare, games=scenario.games, seed=scenario.seed,
            players=scenario.players, rules=scenario.rules,
        )  # fmt: skip
    return build_config(
        engine, games=scenario.games, seed=scenario.seed, players=scenario.players,
        strategy=scenario.strategy, seat_strategies=scenario.seats, rules=scenario.rules,
    )  # fmt: skip
