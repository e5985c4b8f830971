"""Built-in strategies with parameters in their name: ``NAME:key=value,key=value``.

``pimc``, ``pimc:samples=32`` and ``pimc:samples=16,rollout=greedy`` name the same strategy with
other settings (docs/strategies.md). :func:`parse_params` checks a name against the parameters a
strategy takes; :func:`split_strategies` splits a comma-separated list of strategies (as
``cardsim compare --strategies`` takes it) without cutting a parameter list apart.
:class:`PimcStrategy` builds the parameters, the strategy entry and the id parser of the search
strategy ``pimc`` for a game from its kernel module (both games share them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType

from cardsim.sim.errors import CardsimError
from cardsim.sim.game import StrategyInfo

#: how a number is spelt, in a strategy's parameters and every command-line option alike
#: (cardsim/cli.py): ASCII digits only (no ``８``, no ``1_0``), no spaces
INT_TEXT = re.compile(r"[+-]?[0-9]+")
DECIMAL_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Param:
    """One parameter of a strategy: an integer range or a set of words."""

    name: str
    default: int | float | str
    help: str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    decimals: int = 0  # > 0: a decimal number with at most this many digits after the point

    def parse(self, strategy: str, text: str) -> int | float | str:
        if self.choices:
            if text not in self.choices:
                raise CardsimError(
                    f"strategy {strategy!r}: {self.name}={text!r} is not one of "
                    f"{', '.join(self.choices)}"
                )
            return text
        if self.decimals:
            if not DECIMAL_TEXT.fullmatch(text):
                raise CardsimError(
                    f"strategy {strategy!r}: {self.name}={text!r} is not a number (ASCII "
                    "digits 0-9 only)"
                )
            num = float(text)
            if not self.lo <= num <= self.hi or round(num, self.decimals) != num:
                raise CardsimError(
                    f"strategy {strategy!r}: {self.name}={text} is outside {self.lo}..{self.hi} "
                    f"or has more than {self.decimals} decimal(s)"
                )
            return num
        if not INT_TEXT.fullmatch(text):
            raise CardsimError(
                f"strategy {strategy!r}: {self.name}={text!r} is not an integer (ASCII digits "
                "0-9 only)"
            )
        value = int(text)
        if not self.lo <= value <= self.hi:
            raise CardsimError(
                f"strategy {strategy!r}: {self.name}={value} is outside {self.lo}..{self.hi}"
            )
        return value

    def allowed(self) -> str:
        return "|".join(self.choices) if self.choices else f"{self.lo}..{self.hi}"

    def text(self, value: int | float | str) -> str:
        """The one spelling of ``value`` in a label: ``0.10`` and ``1e-1`` are ``0.1``."""
        if self.decimals:
            return f"{round(float(value), self.decimals):g}"
        return str(value)


def canonical_name(
    name: str, base: str, params: tuple[Param, ...], at_defaults: str | None = None
) -> str:
    """``name`` with its parameters in declared order and their values in one spelling, so
    that two spellings of one strategy are one label (issue 45 item 12): ``pimc:cap=4,
    samples=016`` is ``pimc:samples=16,cap=4``. A value equal to its default is left out, so
    ``pimc:samples=8`` (the default) is ``pimc``; with every value at its default the label is
    ``at_defaults`` (default: ``base``).

    >>> ps = (Param("eps", 0.2, "", 0.01, 1, decimals=2),)
    >>> [canonical_name(n, "greedy", ps) for n in ("greedy:eps=0.10", "greedy:eps=1e-1")]
    ['greedy:eps=0.1', 'greedy:eps=0.1']
    >>> canonical_name("greedy:eps=0.20", "greedy", ps, at_defaults="greedy:eps")
    'greedy:eps'
    """
    values = parse_params(name, base, params)
    given = {item.partition("=")[0] for item in name.partition(":")[2].split(",") if item}
    shown = [
        f"{p.name}={p.text(values[p.name])}"
        for p in params
        if p.name in given and p.text(values[p.name]) != p.text(p.default)
    ]
    return f"{base}:{','.join(shown)}" if shown else (at_defaults or base)


def parse_params(name: str, base: str, params: tuple[Param, ...]) -> dict[str, int | float | str]:
    """The parameter values of ``name`` (``base`` or ``base:k=v,...``), defaults filled in.

    >>> from cardsim.sim.strategy_params import Param, parse_params
    >>> ps = (Param("samples", 8, "", 1, 99), Param("rollout", "greedy", "", choices=("greedy",)))
    >>> parse_params("pimc:samples=16", "pimc", ps)
    {'samples': 16, 'rollout': 'greedy'}
    """
    head, sep, tail = name.partition(":")
    if head != base:
        raise CardsimError(f"strategy {name!r} is not {base!r}")
    if any(c.isspace() for c in name):
        raise CardsimError(f"strategy {name!r}: no spaces inside a strategy's name")
    known = {p.name: p for p in params}
    values: dict[str, int | float | str] = {p.name: p.default for p in params}
    if not sep:
        return values
    if not tail:
        first = params[0]
        raise CardsimError(
            f"strategy {name!r}: no parameters after ':' (e.g. {base}:{first.name}="
            f"{first.text(first.default)})"
        )
    seen: set[str] = set()
    for item in tail.split(","):
        key, eq, text = item.partition("=")
        if not eq or not key or not text:
            raise CardsimError(f"strategy {name!r}: {item!r} is not key=value")
        if key not in known:
            allowed = ", ".join(f"{p.name}={p.allowed()}" for p in params)
            raise CardsimError(f"strategy {name!r}: unknown parameter {key!r} (allowed: {allowed})")
        if key in seen:
            raise CardsimError(f"strategy {name!r}: parameter {key!r} is given twice")
        seen.add(key)
        values[key] = known[key].parse(name, text)
    return values


def parse_builtin(name: str, pimc: PimcStrategy, ismcts: IsmctsStrategy,
                  levels: LevelStrategies, learned=None) -> str:  # fmt: skip
    """A built-in strategy with parameters (``pimc:samples=16``, ``ismcts:iters=64``,
    ``greedy:eps=0.1``, ``soft:temp=2``, ``learned:FILE.npz,temp=1``), checked, as its
    canonical name (CardsimError). ``learned``: the game's ``sim.learned.LearnedStrategies``."""
    head = name.partition(":")[0]
    if learned is not None and learned.handles(name):
        return learned.canonical(name)
    if ismcts.handles(name):
        return ismcts.canonical(name)
    if levels.handles(name):
        return levels.canonical(name)
    if head == "pimc":
        return pimc.canonical(name)
    raise CardsimError(
        f"strategy {name!r}: {head} takes no parameters (those that do: pimc, ismcts, "
        "greedy:eps, soft, learned)"
    )


def split_strategies(text: str) -> list[str]:
    """Split ``a,b,pimc:samples=16,rollout=greedy`` into strategies: a piece ``key=value``
    (no ':' and no '.py') continues the parameter list of the strategy before it.

    >>> split_strategies("pimc:samples=16,rollout=greedy,greedy")
    ['pimc:samples=16,rollout=greedy', 'greedy']
    """
    out: list[str] = []
    for piece in text.split(","):
        part = piece.strip()
        if out and "=" in part and ":" not in part and ":" in out[-1] and ".py:" not in out[-1]:
            out[-1] = f"{out[-1]},{part}"
        else:
            out.append(part)
    return out


@dataclass(frozen=True)
class PimcStrategy:
    """The ``pimc`` search strategy of one game: its parameters, its entry in the engine's list
    of strategies and the kernel id of a name (docs/strategies.md, "Search").

    ``kernel`` is the game's ``kernels/<game>/pimc.py``: it provides ``MAX_SAMPLES``,
    ``MAX_CAP``, ``ROLLOUTS`` and ``encode(samples, cap, rollout, z)``; ``default`` is
    (samples, cap, rollout index, z) of the plain name ``pimc``.
    """

    kernel: ModuleType
    default: tuple[int, int, int, float]
    cap_help: str
    description: str

    @property
    def params(self) -> tuple[Param, ...]:
        samples, cap, rollout, z = self.default
        k = self.kernel
        return (
            Param("samples", samples, "determinizations per decision", 1, k.MAX_SAMPLES),
            Param("cap", cap, self.cap_help, 2, k.MAX_CAP),
            Param("rollout", k.ROLLOUTS[rollout], "rollout policy", choices=k.ROLLOUTS),
            Param("z", z, "standard errors a gain over greedy's pick must pass", 0, 6, decimals=1),
        )

    @property
    def info(self) -> StrategyInfo:
        return StrategyInfo("pimc", self.kernel.encode(*self.default), self.description)

    def canonical(self, name: str) -> str:
        """``name`` checked, in its one spelling (:func:`canonical_name`)."""
        self.id(name)
        return canonical_name(name, "pimc", self.params)

    def id(self, name: str) -> int:
        """Kernel id of ``pimc`` / ``pimc:samples=..,cap=..,rollout=..,z=..`` (CardsimError if
        invalid)."""
        v = parse_params(name, "pimc", self.params)
        rollout = self.kernel.ROLLOUTS.index(str(v["rollout"]))
        return self.kernel.encode(int(v["samples"]), int(v["cap"]), rollout, float(v["z"]))


@dataclass(frozen=True)
class IsmctsStrategy:
    """The ``ismcts`` search strategy of one game (SO-ISMCTS; docs/strategies.md, "ismcts"):
    its parameters, its entry in the engine's list of strategies and the kernel id of a name.

    ``kernel`` is the game's ``kernels/<game>/ismcts.py``: it provides ``MAX_ITERS``,
    ``MAX_CAP``, ``ROLLOUTS``, ``DROPS`` and ``encode(iters, cap, rollout, c, z, drop)``;
    ``default`` is (iters, cap, rollout index, c, z, drop index) of the plain name ``ismcts``.
    """

    kernel: ModuleType
    default: tuple[int, int, int, float, float, int]
    cap_help: str
    description: str

    @property
    def params(self) -> tuple[Param, ...]:
        iters, cap, rollout, c, z, drop = self.default
        k = self.kernel
        return (
            Param("iters", iters, "search iterations (determinizations) per decision, at most",
                  1, k.MAX_ITERS),
            Param("c", c, "UCB exploration constant (rewards in units of one match/round result)",
                  0, 5, decimals=1),
            Param("rollout", k.ROLLOUTS[rollout], "rollout policy", choices=k.ROLLOUTS),
            Param("cap", cap, self.cap_help, 2, k.MAX_CAP),
            Param("z", z, "standard errors a move's paired gain must beat greedy's pick by",
                  0, 6, decimals=1),
            Param("drop", k.DROPS[drop], "racing: a move whose paired gain plus this many "
                  "standard errors is not above 0 is dropped (every 8 iterations)",
                  choices=k.DROPS),
        )  # fmt: skip

    @property
    def info(self) -> StrategyInfo:
        return StrategyInfo("ismcts", self.kernel.encode(*self.default), self.description)

    def handles(self, name: str) -> bool:
        """Is ``name`` ``ismcts`` or ``ismcts:...``?"""
        return name.partition(":")[0].strip() == "ismcts"

    def canonical(self, name: str) -> str:
        """``name`` checked, in its one spelling (:func:`canonical_name`)."""
        self.id(name)
        return canonical_name(name, "ismcts", self.params)

    def id(self, name: str) -> int:
        """Kernel id of ``ismcts`` / ``ismcts:iters=..,c=..,rollout=..,cap=..,z=..,drop=..``
        (CardsimError if invalid)."""
        v = parse_params(name, "ismcts", self.params)
        rollout = self.kernel.ROLLOUTS.index(str(v["rollout"]))
        drop = self.kernel.DROPS.index(str(v["drop"]))
        return self.kernel.encode(
            int(v["iters"]), int(v["cap"]), rollout, float(v["c"]), float(v["z"]), drop
        )


#: ``greedy:eps`` alone: a random legal move at one decision in five.
EPS_DEFAULT = 0.2
#: ``soft`` alone: a move one step of greedy's score worse is e² ≈ 7.4 times less likely.
TEMP_DEFAULT = 0.5


@dataclass(frozen=True)
class LevelStrategies:
    """The weak levels ``greedy:eps=E`` and ``soft:temp=T`` of one game (docs/strategies.md,
    "Levels"; kernels/levels.py): their entries in the engine's list and the kernel id of a
    name. ``base`` is the game's ``LEVEL_BASE``; ``unit`` says what one step of soft's score is.
    """

    base: int
    unit: str

    EPS = (Param("eps", EPS_DEFAULT, "probability of a random legal move", 0.01, 1, decimals=2),)
    TEMP = (
        Param(
            "temp",
            TEMP_DEFAULT,
            "softmax temperature in steps of greedy's score",
            0.01,
            100,
            decimals=2,
        ),
    )

    @property
    def infos(self) -> tuple[StrategyInfo, ...]:
        return (
            StrategyInfo(
                "greedy:eps",
                self.id("greedy:eps"),
                f"a careless beginner: a uniformly random legal move with probability eps "
                f"(default {EPS_DEFAULT}), else greedy's; greedy:eps=E, 0.01 <= E <= 1",
            ),
            StrategyInfo(
                "soft",
                self.id("soft"),
                f"a casual player: greedy's move scores, option chosen with probability "
                f"∝ exp(score/temp), score in steps of {self.unit} (default temp "
                f"{TEMP_DEFAULT}); soft:temp=T, 0.01 <= T <= 100",
            ),
        )

    def handles(self, name: str) -> bool:
        """Is ``name`` one of the levels (``greedy:...`` or ``soft``/``soft:...``)?"""
        head, sep, _ = name.partition(":")
        return (head == "greedy" and bool(sep)) or head == "soft"

    def canonical(self, name: str) -> str:
        """``name`` checked, in its one spelling: ``greedy:eps=0.10`` is ``greedy:eps=0.1``,
        ``greedy:eps=0.2`` (the default) is ``greedy:eps`` and ``soft:temp`` at its default
        ``soft``."""
        self.id(name)
        head, _, tail = name.partition(":")
        if not tail:
            return name
        if head == "greedy":  # plain greedy plays no random moves: eps at its default is named
            return canonical_name(name, head, self.EPS, at_defaults="greedy:eps")
        return canonical_name(name, head, self.TEMP)

    def id(self, name: str) -> int:
        """Kernel id of ``greedy:eps[=E]`` / ``soft[:temp=T]`` (CardsimError if invalid)."""
        from cardsim.kernels import levels

        head, _, tail = name.partition(":")
        if head == "greedy":
            kind, params = levels.KIND_EPS, self.EPS
        elif head == "soft":
            kind, params = levels.KIND_SOFT, self.TEMP
        else:
            raise CardsimError(f"strategy {name!r} is not greedy:eps=E or soft:temp=T")
        if tail == params[0].name:  # ``greedy:eps`` alone: the default
            name = head
        elif head == "greedy" and not tail:
            raise CardsimError(f"strategy {name!r}: no parameters after ':' (e.g. greedy:eps=0.2)")
        v = parse_params(name, head, params)
        return levels.encode(self.base, kind, round(float(v[params[0].name]) * 100))
