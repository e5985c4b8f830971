"""The ``cardsim`` command line: thin click commands over ``sim/`` and ``analysis/``.

Each command parses its options, builds a validated config, calls the library and prints.
Problems in user input are :class:`~cardsim.sim.errors.CardsimError`; :func:`main` prints them as one
line on stderr and exits with code 2 (no traceback).
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import click

from cardsim.sim import __version__
from cardsim.sim.config import DEFAULT_SEED
from cardsim.sim.errors import CardsimError
from cardsim.sim.games import GAMES, get_engine
from cardsim.sim.strategy_params import DECIMAL_TEXT, INT_TEXT

GAME = click.Choice(GAMES)
GAME_METAVAR = "{" + "|".join(GAMES) + "}"


class Pair(click.ParamType):
    """``LEFT=RIGHT`` options: ``--rule KEY=VALUE`` and ``--seat SEAT=STRATEGY``."""

    def __init__(self, name: str, example: str, seat: bool = False) -> None:
        self.name, self.example, self.seat = name, example, seat

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        left, sep, right = (x.strip() for x in str(value).partition("="))
        ok = bool(sep and left and (right or not self.seat))
        if ok and self.seat:
            ok = left.isascii() and left.isdigit()
        if not ok:
            self.fail(f"{value!r} is not {self.name} (e.g. {self.example})", param, ctx)
        return (int(left), right) if self.seat else (left, right)


def parse_int(text: str) -> int | None:
    """The one integer parser of every option: ASCII digits with an optional sign — no
    underscores (``1_0``), no other scripts' digits (``２``), no spaces inside."""
    text = str(text).strip()
    return int(text) if INT_TEXT.fullmatch(text) else None


class Integer(click.ParamType):
    """An integer option, parsed by :func:`parse_int` (ranges are checked where it is used)."""

    name = "INTEGER"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        v = parse_int(value)
        if v is None:
            self.fail(f"{value!r} is not an integer (ASCII digits 0-9 only)", param, ctx)
        return v


class Number(click.ParamType):
    """A decimal number option (ASCII digits only, like :class:`Integer`); ``infinite``: ``inf``
    is taken too, for the option's own check to refuse with its bound (``--max-minutes``)."""

    name = "NUMBER"

    def __init__(self, infinite: bool = False) -> None:
        self.infinite = infinite

    def convert(self, value, param, ctx):
        if isinstance(value, float | int) and not isinstance(value, bool):
            return float(value)
        text = str(value).strip()
        if self.infinite and text.lower() in ("inf", "+inf", "infinity"):
            return float("inf")
        if not DECIMAL_TEXT.fullmatch(text):
            self.fail(f"{value!r} is not a number (ASCII digits 0-9 only)", param, ctx)
        return float(text)


class OutPath(click.ParamType):
    """An output path (``--out``, ``--json``): an empty one is refused, never taken as the
    current directory."""

    name = "PATH"

    def convert(self, value, param, ctx):
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail("is empty: name the directory or file to write", param, ctx)
        return Path(value)


INT = Integer()
NUMBER = Number()
OUT = OutPath()


class Seed(click.ParamType):
    """A non-negative 64-bit integer."""

    name = "SEED"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            v = value
        else:
            text = str(value).strip()
            if not (text.isascii() and text.isdigit()):
                self.fail(f"{value!r} is not a non-negative integer", param, ctx)
            v = int(text)
        if v > 2**64 - 1:
            self.fail(f"{value!r} is larger than 2**64 - 1", param, ctx)
        return v


def setup_options(f):
    """What every configuration has: seed, players and rule options."""
    f = click.option(
        "--rule",
        "rules",
        multiple=True,
        type=Pair("KEY=VALUE", "dao_bomb=same_count_only"),
        help="Rule option KEY=VALUE (repeatable); see `cardsim rules GAME`.",
    )(f)
    f = click.option(
        "--players",
        type=INT,
        default=None,
        help="Number of players (allowed counts and default: the game's own, `cardsim rules GAME`).",
    )(f)
    f = click.option(
        "--seed", type=Seed(), default=DEFAULT_SEED, show_default=True, help="Root seed."
    )(f)
    return f


def config_options(f):
    """Options of a single configuration: setup_options plus a strategy per seat."""
    f = click.option(
        "--seat",
        "seats",
        multiple=True,
        type=Pair("SEAT=STRATEGY", "0=greedy", seat=True),
        help="Strategy of one seat, I=NAME (repeatable); overrides --strategy.",
    )(f)
    f = click.option(
        "--strategy",
        default=None,
        help="Strategy of every seat (default greedy); or path/to/file.py:function.",
    )(f)
    return setup_options(f)


def scheduler_option(f):
    """``--scheduler``: where chunks are played (never changes the tables)."""
    return click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS|local:N",
        help="Run chunks on a Dask cluster: a scheduler address, or local:N "
        "worker processes started here. Same tables as a local run.",
    )(f)


def run_options(f):
    """Options of the runner (how, not what: they never change the tables)."""
    f = click.option(
        "--quiet", is_flag=True, help="Nothing on stderr but errors (no progress, no notices)."
    )(f)
    f = scheduler_option(f)
    f = click.option("--force", is_flag=True, help="Replace an existing run in --out.")(f)
    f = click.option(
        "--resume", is_flag=True, help="Complete an interrupted run in --out (same configuration)."
    )(f)
    f = click.option(
        "--chunk-size",
        type=INT,
        default=None,
        help="Games per chunk and part file (default 20000).",
    )(f)
    f = click.option(
        "--threads", type=INT, default=None, help="Numba threads (default: all cores)."
    )(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cardsim")
def cli() -> None:
    """cardsim: Monte Carlo balance studies of the ATLAS card game and 原子 (yuanzi)."""


@cli.command("run")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option(
    "--games",
    type=INT,
    required=True,
    help="Number of games (matches; a game played in rounds: matches of --rule rounds=R rounds).",
)
@click.option("--out", type=OUT, required=True, help="Run directory.")
@config_options
@run_options
@click.option(
    "--until-ci",
    type=NUMBER,
    default=None,
    metavar="W",
    help="Stop early once the first-player advantage is known to ±W (95 %); W is a "
    "proportion, 0.0001..0.1 (0.01 = ±1 percentage point).",
)
def run_cmd(
    game,
    games,
    out,
    seed,
    players,
    strategy,
    seats,
    rules,
    threads,
    chunk_size,
    resume,
    force,
    quiet,
    scheduler,
    until_ci,
) -> None:
    """Play GAME --games N times and write outcome tables to --out.

    Example: cardsim run yuanzi --games 100000 --seed 1 --out runs/yz
    """
    from cardsim.sim.config import build_config
    from cardsim.sim.runner import run

    engine = get_engine(game)
    config = build_config(
        engine,
        games=games,
        seed=seed,
        players=players,
        strategy=strategy,
        seat_strategies=seats,
        rules=rules,
    )
    result = run(
        config,
        out,
        chunk_size=chunk_size,
        threads=threads,
        resume=resume,
        force=force,
        progress=not quiet,
        engine=engine,
        stop_rule=_until_ci(until_ci),
        extra_manifest=_stop_spec(until_ci),
        scheduler=scheduler,
    )
    if not quiet:
        _echo_result(result, game)


def _until_ci(width):
    if width is None:
        return None
    from cardsim.analysis.stopping import until_ci_rule
    from cardsim.sim.config import check_until_ci

    return until_ci_rule(check_until_ci(width))


def _test_labels(spec, engine, config) -> tuple[str, str]:
    """``--test A>B`` as the two strategy labels of the tables (``mybot:choose``), checked
    against the comparison before anything is written. A and B may be written as labels or
    as the strategies were given (a path, relative or through a link, ``pimc:samples=4``)."""
    from cardsim.sim.config import check_strategy
    from cardsim.sim.schema import strategy_label

    labels = sorted({strategy_label(x) for seats in config.assignments for x in seats})
    a, sep, b = str(spec).partition(">")

    def as_label(x: str) -> str:
        x = x.strip()
        if x in labels:
            return x
        try:
            return strategy_label(check_strategy(engine, x))
        except CardsimError:
            return x

    a, b = as_label(a), as_label(b)
    if not sep or a not in labels or b not in labels or a == b:
        raise CardsimError(f"--test must be A>B with A, B among {', '.join(labels)}; got {spec!r}")
    return a, b


def _sprt(spec, config, delta, alpha, beta):
    if spec is None:
        return None
    if not 0 < delta < 1 or not 0 < alpha < 0.5 or not 0 < beta < 0.5:
        raise CardsimError("--test: need 0 < --delta < 1 and 0 < --alpha, --beta < 0.5")
    from cardsim.analysis.stopping import sprt_rule

    a, b = spec  # labels (_test_labels)
    return sprt_rule(a, b, delta, alpha, beta)


def _p_words(p: float) -> str:
    """``= 0.023``, ``< 1e-300`` (a p that underflows is never "= 0")."""
    from cardsim.analysis.model import p_value

    text = p_value(p)
    return text if text.startswith("<") else f"= {text}"


def _stop_spec(until_ci=None, test_spec=None, delta=None, alpha=None, beta=None):
    """What the manifest records of the stopping rule (``--resume`` must repeat it)."""
    spec = {}
    if until_ci is not None:
        spec["until_ci"] = until_ci
    if test_spec is not None:
        spec["test"] = {"test": test_spec, "delta": delta, "alpha": alpha, "beta": beta}
    return {"stop": spec} if spec else None


def _echo_result(result, game, unit: str = "games") -> None:
    rate = result.played / result.seconds if result.seconds > 0 else 0.0
    click.echo(
        f"{result.games_done:,} {unit} of {game} in {result.out} "
        f"({result.played:,} played now in {result.seconds:.1f} s, {rate:,.0f} {unit}/s)",
        err=True,
    )
    test = result.manifest.get("sequential_test")
    if test:
        click.echo(
            f"sequential test {test['test']} (delta {test['delta']}, alpha {test['alpha']}, "
            f"beta {test['beta']}): LLR {test['llr']:.2f} after {test['deals']:,} deals — "
            f"{test['verdict'] or 'undecided'}",
            err=True,
        )
    iv = result.manifest.get("main_interval")
    if result.stopped_by != "games" and iv:
        click.echo(
            f"stopped early: {iv['label']} = {iv['estimate']:.4f} "
            f"[{iv['lo']:.4f}, {iv['hi']:.4f}] after {iv['n']:,} games",
            err=True,
        )


@cli.command("compare")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option(
    "--strategies", required=True, help="Comma-separated strategies to compare, e.g. greedy,random."
)
@click.option(
    "--games", type=INT, required=True, help="Deals (each played once per seat assignment)."
)
@click.option("--out", type=OUT, required=True, help="Run directory.")
@setup_options
@run_options
@click.option(
    "--until-ci",
    type=NUMBER,
    default=None,
    metavar="W",
    help="Stop early once every paired difference is known to ±W (95 %); W is a "
    "proportion, 0.0001..0.1 (0.01 = ±1 percentage point).",
)
@click.option(
    "--test",
    "test_spec",
    default=None,
    metavar="A>B",
    help="Sequential test (SPRT) of 'A beats B by --delta': stop once decided.",
)
@click.option(
    "--delta",
    type=NUMBER,
    default=None,
    help="--test (default 0.02): the win-rate difference H1 asserts.",
)
@click.option(
    "--alpha",
    type=NUMBER,
    default=None,
    help="--test (default 0.05): rate of false 'A beats B'.",
)
@click.option(
    "--beta",
    type=NUMBER,
    default=None,
    help="--test (default 0.05): rate of missing a real --delta.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the comparison as JSON (pairwise, ratings)."
)
def compare_cmd(
    game,
    strategies,
    games,
    out,
    players,
    seed,
    rules,
    threads,
    chunk_size,
    resume,
    force,
    quiet,
    scheduler,
    until_ci,
    test_spec,
    delta,
    alpha,
    beta,
    as_json,
) -> None:
    """Compare strategies on duplicate deals: every deal under every seat assignment.

    Example: cardsim compare yuanzi --strategies greedy,random --games 20000 --out runs/cmp
    """
    from cardsim.analysis.stopping import first_of
    from cardsim.sim.compare import DuplicateEngine, build_compare_config
    from cardsim.sim.runner import run
    from cardsim.sim.strategy_params import split_strategies

    delta, alpha, beta = _sequential_defaults(test_spec, delta, alpha, beta)
    engine = get_engine(game)
    config = build_compare_config(
        engine, split_strategies(strategies), games=games, seed=seed, players=players, rules=rules
    )
    if test_spec is not None:  # the manifest records the labels: --resume may spell them anew
        test_spec = ">".join(_test_labels(test_spec, engine, config))
    pair = None if test_spec is None else tuple(test_spec.split(">"))
    stop_rule = first_of(_until_ci(until_ci), _sprt(pair, config, delta, alpha, beta))
    result = run(
        config,
        out,
        chunk_size=chunk_size,
        threads=threads,
        resume=resume,
        force=force,
        progress=not quiet,
        engine=DuplicateEngine(engine),
        stop_rule=stop_rule,
        extra_manifest=_stop_spec(until_ci, test_spec, delta, alpha, beta),
        scheduler=scheduler,
        unit="deals",
    )
    if not quiet:
        _echo_result(result, game, unit="deals")
    _echo_compare(result, config, game, out, as_json)


def _sequential_defaults(test_spec, delta, alpha, beta) -> tuple[float, float, float]:
    """--delta, --alpha, --beta need --test; their defaults otherwise."""
    given = [
        n for n, v in (("--delta", delta), ("--alpha", alpha), ("--beta", beta)) if v is not None
    ]
    if given and test_spec is None:
        raise CardsimError(f"{', '.join(given)} set the sequential test: give --test A>B too")
    delta = 0.02 if delta is None else delta
    alpha = 0.05 if alpha is None else alpha
    beta = 0.05 if beta is None else beta
    return delta, alpha, beta


def _echo_compare(result, config, game: str, out, as_json: bool) -> None:
    """The pairwise differences and the ratings of a finished comparison (text or --json)."""
    from cardsim.analysis.compare import pairwise, rating_text, ratings, shown_ratings
    from cardsim.analysis.stopping import scan_finished

    seats = scan_finished(Path(out), "seats", result.manifest)
    pw = pairwise(seats).table
    if as_json:
        rt = ratings(seats.collect(), game)
        _echo_json(
            {
                "game": game,
                "out": str(out),
                "assignments": [list(a) for a in config.assignments],
                "deals": int(result.manifest.get("games_done", result.games_done)),
                "stopped_by": result.stopped_by,
                "pairwise": pw.to_dicts(),
                "ratings": shown_ratings(rt.table.sort("rating", descending=True)).to_dicts(),
                "position": rt.position.to_dicts(),
            }
        )
        return
    click.echo(
        f"{len(config.assignments)} seat assignments per deal; "
        f"{result.manifest.get('games_done', result.games_done):,} deals"
    )
    for r in pw.iter_rows(named=True):
        click.echo(
            f"{r['a']} vs {r['b']}: win {r['win_a']:.4f} vs {r['win_b']:.4f}, "
            f"diff {r['diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}] paired 95 %, "
            f"Holm p {_p_words(r['p_holm'])}; unpaired would be [{r['unpaired_lo']:+.4f}, "
            f"{r['unpaired_hi']:+.4f}] = {r['equivalent_unpaired_games']:,.0f} unpaired games"
        )
    rt = ratings(seats.collect(), game)
    for r in rt.table.sort("rating", descending=True).iter_rows(named=True):
        ref = r["rating"] == 0 and r["se"] == 0  # fixed at 0: it has no interval
        click.echo(f"rating {r['strategy']:<12} {rating_text(r, 3, reference=ref)}")


@cli.command("study")
@click.argument(
    "study_file", required=False, type=click.Path(path_type=Path), metavar="[STUDY.toml]"
)
@click.option(
    "--out",
    type=OUT,
    default=Path("studies/default"),
    show_default=True,
    help="Study directory (one run directory per scenario).",
)
@click.option("--threads", type=INT, default=None, help="Numba threads (default: all cores).")
@click.option(
    "--force",
    is_flag=True,
    help="Run every scenario afresh, replacing earlier runs (also changed ones).",
)
@click.option(
    "--quiet", is_flag=True, help="Nothing on stderr but errors (no progress, no notices)."
)
@click.option(
    "--games",
    type=int,
    default=None,
    help="Play N games (deals for comparisons) in every scenario instead of the file's "
    "counts: a quick trial.",
)
@click.option(
    "--template",
    is_flag=True,
    help="Write the annotated example study (docs/study.md) to STUDY.toml, or print it.",
)
@scheduler_option
def study_cmd(study_file, out, threads, force, quiet, games, template, scheduler) -> None:
    """Run a balance study (scenarios + comparisons) and write one report.

    Without STUDY.toml, runs the built-in default study: both games at default rules, one
    rule-variant comparison and one strategy comparison per game. The file format is
    docs/study.md; `cardsim study --template my-study.toml` writes an annotated example.
    """
    from cardsim.workflows.study import (
        STUDY_TEMPLATE,
        default_study,
        load_study,
        run_study,
        with_games,
    )

    if template:
        if study_file is None:
            click.echo(STUDY_TEMPLATE, nl=False)
            return
        if study_file.exists():
            raise CardsimError(f"--template: {study_file} exists; not overwriting it")
        try:
            study_file.write_text(STUDY_TEMPLATE, encoding="utf-8")
        except OSError as e:
            raise CardsimError(f"--template: cannot write {study_file} ({e.strerror})") from None
        if not quiet:
            click.echo(f"study template written to {study_file} (format: docs/study.md)", err=True)
        return
    study = load_study(study_file) if study_file else default_study()
    if games is not None:
        study = with_games(study, games)
    result = run_study(
        study, out, threads=threads, progress=not quiet, force=force, scheduler=scheduler
    )
    for name in result.reused if not quiet else ():
        click.echo(f"reused finished run of scenario {name}", err=True)
    click.echo(f"study {study.name!r}: {len(result.runs)} scenarios in {result.out}")
    if result.report:
        click.echo(f"report: {result.report}")
    for name, path in result.designs.items():
        click.echo(f"factorial report of design {name}: {path}")
    for name, path in result.ladders.items():
        click.echo(f"ladder report of {name}: {path}")
    for name, (path, _) in result.sweeps.items():
        click.echo(f"sweep report of {name}: {path}")
    for name, path in result.screens.items():
        click.echo(f"screen of {name}: {path}")


@cli.command("ladder")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--levels", default=None, help="Strategies, weakest first (default "
              "random,greedy:eps=0.2,soft,greedy,learned).")  # fmt: skip
@click.option("--games", type=INT, required=True, help="Self-play games per level.")
@click.option("--deals", type=INT, default=None, help="Duplicate deals rating the levels (default: --games).")  # fmt: skip
@click.option("--scripted-games", type=INT, default=None, help="Self-play games of each scripted "
              "level (built-ins that do not search; default: --games).")  # fmt: skip
@click.option("--out", type=OUT, required=True, help="Ladder directory.")
@click.option(
    "--players",
    default=None,
    help="Player count, or a list: 2,4,6 (a game with several counts; default: the game's).",
)
@click.option("--seed", type=Seed(), default=DEFAULT_SEED, show_default=True, help="Root seed.")
@click.option("--rule", "rules", multiple=True, type=Pair("KEY=VALUE", "dao_bomb=same_count_only"), help="Rule option KEY=VALUE (repeatable).")  # fmt: skip
@click.option("--margin", "margins", multiple=True, metavar="MEASURE=VALUE", help="Equivalence margin of a measure (repeatable), as for report.")  # fmt: skip
@click.option("--threads", type=INT, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", type=INT, default=None, help="Games per chunk (default 20000).")
@click.option("--force", is_flag=True, help="Replay every sub-run afresh.")
@click.option("--quiet", is_flag=True, help="Nothing on stderr but errors.")
@scheduler_option
@click.option("--until-decided", is_flag=True, help="Play batches of --games (--deals) per "
              "level until every measure has a verdict or the budget is spent (alpha spending "
              "over the looks).")  # fmt: skip
@click.option("--max-games", type=INT, default=None, help="--until-decided: self-play games "
              "per level at most, a multiple of --games (default 8 × --games).")  # fmt: skip
@click.option("--max-minutes", type=Number(infinite=True), default=None, help="--until-decided: no new look "
              "once this much wall time would be passed.")  # fmt: skip
@click.option("--spending", type=click.Choice(["pocock", "obrien-fleming"]), default="pocock",
              show_default=True, help="--until-decided: how the 5 % error rate is spread over "
              "the looks.")  # fmt: skip
@click.option("--decide", default=None, metavar="KEY,…", help="--until-decided: stop once "
              "these measures have a verdict (keys: first_excess, turns, …; default all).")  # fmt: skip
def ladder_cmd(game, levels, games, deals, scripted_games, out, players, seed, rules, margins,
               threads, chunk_size, force, quiet, scheduler, until_decided, max_games, max_minutes,
               spending, decide) -> None:  # fmt: skip
    """Does each balance finding hold under stronger play? Rate the levels on duplicate deals,
    replay the headline measures in self-play at every level, judge the trend (docs/ladder.md).

    Running it again reuses finished sub-runs and completes unfinished ones.
    Example: cardsim ladder yuanzi --levels random,greedy,pimc:samples=4 --games 2000 --out lad/yz
    """
    from cardsim.analysis.report import parse_margins
    from cardsim.workflows.ladder import run_ladder
    from cardsim.workflows.ladder_plan import build_ladder

    m = parse_margins(margins)
    ladder = build_ladder(game, levels, games=games, deals=deals, seed=seed, players=players,
                          rules=rules, chunk_size=chunk_size,
                          scripted_games=scripted_games)  # fmt: skip
    given = [n for n, v in (("--max-games", max_games), ("--max-minutes", max_minutes),
                            ("--decide", decide)) if v is not None]  # fmt: skip
    if given and not until_decided:
        raise CardsimError(f"{', '.join(given)} need --until-decided")
    kw = dict(threads=threads, progress=not quiet, force=force, margins=m, scheduler=scheduler)
    if until_decided:
        from cardsim.workflows.ladder import Sequential, run_ladder_until_decided, scripted_text

        keys = [k.strip() for k in decide.split(",") if k.strip()] if decide else []
        seq = Sequential(max_games, max_minutes, spending=spending, decide=keys)
        result = run_ladder_until_decided(ladder, out, seq, **kw)
    else:
        result = run_ladder(ladder, out, **kw)
    from cardsim.sim.schema import strategy_label

    names = ", ".join(map(strategy_label, ladder.levels))
    click.echo(f"ladder of {len(ladder.levels)} levels ({names}) in {out}")
    if result.looks:
        last = result.looks[-1]
        click.echo(
            f"{len(result.looks)} looks, {last.games_per_level:,} games per level"
            f"{scripted_text(last.scripted_games)}: {result.stopped_by}; "
            + "; ".join(f"{k}: {v}" for k, v in last.verdicts.items())
        )
    click.echo(f"report: {result.report}")


@cli.command("tune")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option(
    "--objective",
    "objectives",
    required=True,
    multiple=True,
    help="first_excess, seat_spread, length=TARGET, or weighted: NAME[=T][*W],… (lower wins). "
    "Give it two or more times for the Pareto front of several objectives.",
)
@click.option(
    "--options",
    default=None,
    help="Options to search: a,b=x|y,n=lo..hi[/step]; an integer option alone: its range by "
    "its step (default: every choice/bool option).",
)
@click.option("--budget", type=int, default=200_000, show_default=True, help="Games in all.")
@click.option("--seed", type=Seed(), default=0, show_default=True, help="Root seed of the race.")
@click.option(
    "--players",
    type=int,
    default=None,
    help="Players (the game's allowed counts; default: the game's).",
)
@click.option("--strategy", default=None, help="Strategy of every seat.")
@click.option("--out", type=OUT, required=True, help="Tune directory.")
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--force", is_flag=True, help="Replace a different tune run in --out.")
@click.option(
    "--no-verify",
    is_flag=True,
    help="Write verify.toml but do not play it (tune.html then has no fresh-seed test).",
)
@click.option("--quiet", is_flag=True, help="No progress lines.")
@scheduler_option
def tune_cmd(
    game, objectives, options, budget, seed, players, strategy, out, threads, force, no_verify,
    quiet, scheduler,
):  # fmt: skip
    """Search rule options for the most balanced rule set (racing on common deals); with two
    or more --objective, the Pareto front of the trade-off (every configuration on the same
    deals).

    Rerunning the same command resumes: finished rungs are reused (cardsim/workflows/tune.py).
    """
    from cardsim.sim.runner import RunInterrupted
    from cardsim.workflows.tune import summary, tune

    kw = dict(out=out, options=options, budget=budget, seed=seed, players=players,
              strategy=strategy, threads=threads, progress=not quiet, force=force,
              scheduler=scheduler)  # fmt: skip
    if len(objectives) > 1:  # the Pareto front of several objectives (workflows/pareto.py)
        from cardsim.workflows.pareto import pareto_tune
        from cardsim.workflows.pareto import summary as pareto_summary

        if no_verify:
            raise CardsimError("--no-verify: a tune of several objectives plays no verify study")
        click.echo(pareto_summary(pareto_tune(game, list(objectives), **kw)))
        return
    try:
        result = tune(game, objectives[0], run_verify=not no_verify, **kw)
    except RunInterrupted:
        raise
    except KeyboardInterrupt:  # between runs: tune has no --resume, rerunning resumes
        raise RunInterrupted(
            f"interrupted; {out} is resumable (run the same cardsim tune command again: "
            "finished rungs are reused)"
        ) from None
    click.echo(summary(result))


@cli.command("sweep")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option(
    "--param",
    "params",
    multiple=True,
    required=True,
    help="An integer rule option and its values: NAME=lo..hi[/step] or NAME=a,b,c (once for "
    "curves and targets, twice for heat maps).",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="MEASURE=VALUE: where the curve reaches VALUE (a measure's name or topic, e.g. "
    "length=40; a rate as a fraction, first_side_wins=0.3). Repeatable.",
)
@click.option("--games", type=INT, default=2000, show_default=True, help="Games per value.")
@click.option("--out", type=OUT, required=True, help="Sweep directory.")
@config_options
@click.option("--threads", type=INT, default=None, help="Numba threads (default: all cores).")
@click.option("--force", is_flag=True, help="Replace a different sweep's runs or report in --out.")
@click.option(
    "--no-confirm", is_flag=True, help="Play no confirmation run at a target's chosen value."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--quiet", is_flag=True, help="No progress lines.")
@scheduler_option
def sweep_cmd(
    game, params, targets, games, out, seed, players, strategy, seats, rules, threads, force,
    no_confirm, as_json, quiet, scheduler,
):  # fmt: skip
    """Sweep integer rule options: per-value means, a fitted curve with its band, and the value
    that hits a --target (with an interval and a confirmation run).

    Example: cardsim sweep atlas --players 4 --param hand_size=7..20 --target length=55 --out sw

    Rerunning the same command resumes: finished runs are reused (cardsim/workflows/sweep.py).
    """
    from cardsim.sim.runner import RunInterrupted
    from cardsim.workflows.sweep import run_sweep
    from cardsim.workflows.sweep_plan import build_sweep, summary

    sw = build_sweep(
        game, list(params), games=games, seed=seed, players=players, strategy=strategy,
        seats=dict(seats), rules=dict(rules), targets=list(targets),
    )  # fmt: skip
    try:
        result = run_sweep(sw, out, threads=threads, progress=not quiet, force=force,
                           confirm=not no_confirm, scheduler=scheduler)  # fmt: skip
    except RunInterrupted:
        raise
    except KeyboardInterrupt:  # between runs: rerunning the command resumes
        raise RunInterrupted(
            f"interrupted; {out} is resumable (run the same cardsim sweep command again: "
            "finished runs are reused)"
        ) from None
    if as_json:
        _echo_json(result.to_dict())
    else:
        click.echo(summary(result, out))


@cli.command("screen")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--players", type=INT, default=None, help="Player count (default: the game's).")
@click.option("--games", type=INT, default=None, help="Deals per reading (each reading and the "
              "default rules play the same deals; default 100000).")  # fmt: skip
@click.option("--seed", type=Seed(), default=DEFAULT_SEED, show_default=True, help="Root seed of every run.")  # fmt: skip
@click.option("--out", type=OUT, default=None, help="Screen directory: one run per reading, "
              "screen.html and screen.json (default screens/GAME).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the screen's numbers as JSON (screen.json) instead of the summary.")  # fmt: skip
@click.option("--threads", type=INT, default=None, help="Numba threads (default: all cores).")
@click.option("--force", is_flag=True, help="Replay every run afresh, replacing earlier ones.")
@click.option("--quiet", is_flag=True, help="Nothing on stderr but errors.")
@scheduler_option
def screen_cmd(game, players, games, seed, out, as_json, threads, force, quiet, scheduler):
    """Which readings the rule texts leave open change an answer? Every variant of every rule
    option of role `reading` (`cardsim rules GAME`) against the default rules, each on the same
    deals, on every headline measure; three verdicts with Holm over the whole screen
    (docs/design.md, "Screening the readings").

    Running it again reuses finished runs and completes unfinished ones.
    Example: cardsim screen atlas --players 4 --out screens/atlas
    """
    from cardsim.workflows.screen import DEFAULT_GAMES, plan_screen, run_screen, summary

    plan = plan_screen(game, players=players, seed=seed,
                       games=DEFAULT_GAMES if games is None else games)  # fmt: skip
    run = run_screen(plan, Path("screens") / game if out is None else out, threads=threads,
                     progress=not quiet, force=force, scheduler=scheduler)  # fmt: skip
    for name in run.reused if not quiet else ():
        click.echo(f"reused finished run of {name}", err=True)
    if as_json:
        from cardsim.analysis.screen_report import json_doc

        _echo_json(json_doc(run.result))
    else:
        click.echo(summary(run))


def _echo_json(doc) -> None:
    """``doc`` as strict JSON on stdout (NaN and infinities as null: sim/jsonio.py)."""
    from cardsim.sim import jsonio

    click.echo(jsonio.dumps(doc, indent=1))


@cli.command("train")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--teacher", default="ismcts", show_default=True, help="The search strategy "
              "distilled (a built-in name with parameters, e.g. ismcts:iters=32).")  # fmt: skip
@click.option("--decisions", type=INT, required=True, help="Positions (decisions with 2+ legal "
              "moves) per round.")  # fmt: skip
@click.option("--dagger", type=INT, default=0, show_default=True, help="DAgger rounds after the "
              "first: fresh deals played by the learner, labelled by the teacher.")  # fmt: skip
@click.option("--l2", type=NUMBER, default=1e-3, show_default=True, help="L2 penalty of the fit.")
@click.option("--improve", type=INT, default=0, show_default=True, help="Deals of policy "
              "improvement after the fit (CMA-ES against --improve-field, as cardsim exploit).")  # fmt: skip
@click.option("--improve-field", default="greedy", show_default=True, help="The field the "
              "improvement plays against, comma-separated.")  # fmt: skip
@click.option("--improve-rounds", type=INT, default=1, show_default=True, help="Rounds of "
              "improvement, each against the field and the earlier rounds' weights.")  # fmt: skip
@click.option("--out", type=OUT, required=True, help="Weights file (.npz); positions are kept "
              "in OUT.parts/ so that the same command resumes.")  # fmt: skip
@click.option("--force", is_flag=True, help="Replace another training's positions in OUT.parts/.")
@click.option("--quiet", is_flag=True, help="Nothing on stderr but errors.")
@setup_options
@scheduler_option
def train_cmd(game, teacher, decisions, dagger, l2, improve, improve_field, improve_rounds, out,
              force, quiet, seed, players, rules, scheduler) -> None:  # fmt: skip
    """Distil a search strategy into a learned policy: a conditional-logit fit of the teacher's
    choices over the documented move features (docs/strategies.md, "Learned").

    Example: cardsim train yuanzi --teacher ismcts --decisions 20000 --seed 1 --out w.npz

    The same command gives the same weights bit for bit, and resumes when interrupted.
    """
    from cardsim.sim.runner import RunInterrupted
    from cardsim.sim.strategy_params import split_strategies
    from cardsim.workflows.train import build_plan, summary, train

    plan = build_plan(game, teacher, decisions, seed, players=players, rules=rules,
                      dagger=dagger, l2=l2, improve=improve,
                      improve_field=tuple(split_strategies(improve_field)),
                      improve_rounds=improve_rounds)  # fmt: skip
    try:
        result = train(plan, out, scheduler=scheduler, progress=not quiet, force=force)
    except KeyboardInterrupt:
        raise RunInterrupted(
            f"interrupted; run the same cardsim train command again to resume "
            f"(positions kept in {out}.parts)"
        ) from None
    click.echo(summary(result))


@cli.command("exploit")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--field", "field_", default="greedy", show_default=True, help="The strategies "
              "to exploit, comma-separated (e.g. greedy,ismcts).")  # fmt: skip
@click.option("--budget", type=INT, default=2000, show_default=True, help="Deals the search may "
              "play, summed over its candidates.")  # fmt: skip
@click.option("--verify", type=INT, default=1000, show_default=True, help="Fresh deals that "
              "verify the answer (and that --restricted plays per mechanic).")  # fmt: skip
@click.option("--margin", type=NUMBER, default=0.01, show_default=True, help="Smallest "
              "advantage (win rate per game) called an exploit.")  # fmt: skip
@click.option("--sigma", type=NUMBER, default=0.5, show_default=True, help="CMA-ES's first step size.")  # fmt: skip
@click.option("--popsize", type=INT, default=0, show_default=True, help="Candidates per generation (0: CMA-ES's default).")  # fmt: skip
@click.option("--start", default="greedy", show_default=True, help="Where the search starts: "
              "greedy, learned or a weights file.")  # fmt: skip
@click.option("--restricted", is_flag=True, help="Restricted play instead: what --start loses "
              "when forbidden each mechanic (one table).")  # fmt: skip
@click.option("--out", type=OUT, required=True, help="Folder: exploit.json, exploit.npz, candidates/.")  # fmt: skip
@click.option("--force", is_flag=True, help="Replace another exploit's answer in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@click.option("--quiet", is_flag=True, help="Nothing on stderr but errors.")
@setup_options
@scheduler_option
def exploit_cmd(game, field_, budget, verify, margin, sigma, popsize, start, restricted, out,
                force, as_json, quiet, seed, players, rules, scheduler) -> None:  # fmt: skip
    """Search the learned-policy family (CMA-ES, raced on common deals) for a strategy that
    beats a field, verified on fresh deals; or, with --restricted, the value of each mechanic
    (docs/strategies.md, "Exploits and restricted play").

    Example: cardsim exploit yuanzi --field greedy --budget 2000 --out exploits/yuanzi
    """
    from cardsim.sim.strategy_params import split_strategies
    from cardsim.workflows import exploit as ex

    plan = ex.build_plan(game, split_strategies(field_), budget, seed, players=players,
                         rules=rules, verify=verify, margin=margin, sigma=sigma,
                         popsize=popsize, start=start)  # fmt: skip
    if restricted:
        table = ex.restricted_play(plan, out, scheduler=scheduler)
        if as_json:
            _echo_json(table.to_dicts())
        else:
            click.echo(ex.restricted_summary(plan, table))
        return
    result = ex.run_exploit(plan, out, scheduler=scheduler, progress=not quiet, force=force)
    if as_json:
        _echo_json(result.to_dict())
    else:
        click.echo(ex.summary(result))


@cli.command("rules")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def rules_cmd(game, as_json) -> None:
    """List GAME's rule options: name, default, allowed values, ruling, role, meaning.

    The role says what an option is: a reading of the rule text (`cardsim screen` plays every
    variant of these), a design parameter (a number a designer turns) or a run setting."""
    engine = get_engine(game)
    if as_json:
        _echo_json(
            [
                {
                    "name": o.name,
                    "default": o.default,
                    "kind": o.kind,
                    "allowed": o.allowed(),
                    "choices": list(o.choices),
                    "min": o.min,
                    "max": o.max,
                    "step": o.step,
                    "ruling": o.ruling,
                    "role": o.role,
                    "help": o.help,
                }
                for o in engine.rule_options
            ]
        )
        return
    for o in engine.rule_options:
        default = str(o.default).lower() if isinstance(o.default, bool) else o.default
        click.echo(
            f"{o.name:<26} default {default!s:<14} [{o.allowed()}]  {o.ruling}  "
            f"{o.role or '-'}  {o.help}"
        )


@cli.command("strategies")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--json", "as_json", is_flag=True, help="Print the strategies as JSON.")
def strategies_cmd(game, as_json) -> None:
    """List GAME's built-in strategies with a one-line description."""
    if as_json:
        _echo_json(
            {
                "builtin": [
                    {"name": s.name, "description": s.description}
                    for s in get_engine(game).strategies
                ],
                "user": "path/to/file.py:function (see docs/strategies.md)",
            }
        )
        return
    for s in get_engine(game).strategies:
        click.echo(f"{s.name:<10} {s.description}")
    click.echo("path/to/file.py:function  a user-written strategy (see docs/strategies.md)")


@cli.group("strategy")
def strategy_group() -> None:
    """Work on a user strategy (docs/strategies.md): `cardsim strategy check`."""


@strategy_group.command("check")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.argument("function", metavar="FILE.py:FUNC")
@click.option("--games", type=INT, default=None, help="Games (deals) to play (300; py: 100).")
@click.option("--against", default="greedy", show_default=True, help="Strategy to compare with.")
@click.option("--threads", type=INT, default=None, help="Numba threads (default: all cores).")
@setup_options
def strategy_check_cmd(game, function, games, against, threads, seed, players, rules) -> None:
    """Compile FILE.py:FUNC (or py:FILE.py:FUNC), play it, report illegal answers, speed and
    its result against greedy. Exit code 1 when it answers illegally.

    Example: cardsim strategy check yuanzi examples/yuanzi_strategy.py:choose
    """
    from cardsim.workflows.strategy_check import check

    code = check(
        game, function, games=games, seed=seed, players=players, rules=rules,
        against=against, threads=threads, echo=click.echo,
    )  # fmt: skip
    if code:
        sys.exit(code)


@cli.command("replay")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--game", "game_index", type=INT, required=True, help="Game index to replay.")
@click.option(
    "--from",
    "from_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Take the configuration from this run directory's manifest.",
)
@click.option(
    "--assignment",
    type=INT,
    default=0,
    show_default=True,
    help="With --from a comparison run: which seat assignment to replay.",
)
@config_options
def replay_cmd(
    game, game_index, from_dir, assignment, seed, players, strategy, seats, rules
) -> None:
    """Print the event log of one game: deal, every decision, result.

    Give the same configuration as the run, or --from DIR, to see the same game.
    Example: cardsim replay yuanzi --from runs/yz --game 17
    """
    from dataclasses import replace

    from cardsim.sim.compare import strategy_of
    from cardsim.sim.config import build_config
    from cardsim.sim.runner import config_from_manifest, read_manifest

    engine = get_engine(game)
    from cardsim.sim.config import MAX_GAMES

    if not 0 <= game_index < MAX_GAMES:
        raise CardsimError(f"--game must be a game index in 0..{MAX_GAMES - 1}, got {game_index}")
    if from_dir is not None and (seed or players or strategy or seats or rules):
        raise CardsimError(
            "--from takes the configuration from the run; drop --seed/--players/--strategy/"
            "--seat/--rule"
        )
    if from_dir is None and assignment:
        raise CardsimError("--assignment needs --from a comparison run")
    if from_dir is not None:
        manifest = read_manifest(from_dir)
        config = config_from_manifest(manifest)
        _check_strategy_files(from_dir, manifest, config)
        if config.game != game:
            raise CardsimError(f"{from_dir} is a {config.game} run, not {game}")
        if game_index >= config.games:
            raise CardsimError(f"--game {game_index}: that run has games 0..{config.games - 1}")
        if not config.assignments and assignment:
            raise CardsimError(f"--assignment: {from_dir} is not a comparison run")
        if config.assignments:
            if not 0 <= assignment < len(config.assignments):
                raise CardsimError(
                    f"--assignment must be 0..{len(config.assignments) - 1} for that comparison"
                )
            seats_of = tuple(strategy_of(x) for x in config.assignments[assignment])
            config = replace(config, seats=seats_of, assignments=())
    else:
        config = build_config(
            engine,
            games=game_index + 1,
            seed=seed,
            players=players,
            strategy=strategy,
            seat_strategies=seats,
            rules=rules,
        )
    from cardsim.sim.warmup import notice_for

    text = notice_for(config, "replay")
    if text:  # before the (first) replay compiles its kernels: stderr, so stdout is the log
        click.echo(f"cardsim: {text}", err=True)
    click.echo(engine.replay(config, game_index))


def _check_strategy_files(from_dir: Path, manifest: dict, config) -> None:
    """Refuse to replay with a user strategy file that changed since the run: the replay would
    show a different game than the one in the tables."""
    from cardsim.sim.game import user_strategy_files

    recorded = manifest.get("strategy_files") or {}
    for path, digest in user_strategy_files(config).items():
        if path in recorded and recorded[path] != digest:
            state = "is missing" if digest == "missing" else "has changed"
            raise CardsimError(
                f"--from {from_dir}: strategy file {path} {state} since the run (sha256 "
                f"{recorded[path][:12]}… recorded); the replay would not be the recorded game"
            )


def _check_outputs(run_dirs: list[Path], outputs: dict[str, Path | None]) -> None:
    """Outputs never overwrite inputs or each other: not inside a run directory, not the same
    path twice."""
    from cardsim.sim import rundir

    seen: dict[Path, str] = {}
    for opt, path in outputs.items():
        if path is None:
            continue
        resolved = path.resolve()
        if resolved in seen:
            raise CardsimError(f"{opt} {path}: the same file as {seen[resolved]}")
        seen[resolved] = f"{opt} {path}"
        for parent in resolved.parents:
            if (parent / rundir.MANIFEST).is_file():
                raise CardsimError(
                    f"{opt} {path}: inside the run directory {parent}; write reports elsewhere"
                )
        for d in run_dirs:
            if resolved == d.resolve():
                raise CardsimError(f"{opt} {path}: that is a run directory given as input")


@cli.command("report")
@click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR..."
)
@click.option(
    "--out",
    type=OUT,
    required=True,
    help="Report file; its suffix picks the format: .html, .md (plus PNG files) or .json.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "md", "json"]),
    default=None,
    help="Format when the suffix does not say (an error if it contradicts the suffix).",
)
@click.option(
    "--margin",
    "margins",
    multiple=True,
    metavar="MEASURE=VALUE",
    help="Equivalence margin of a measure (repeatable), e.g. 'win rate=0.02' for ±2 "
    "percentage points; defaults in docs/report.md.",
)
@click.option(
    "--json",
    "json_out",
    type=OUT,
    default=None,
    help="Also write every number of the report as JSON to this file.",
)
@click.option("--quiet", is_flag=True, help="Print nothing but warnings and errors.")
def report_cmd(run_dirs, out, fmt, json_out, margins, quiet) -> None:
    """Write a balance report for one or more run directories of the same game.

    Example: cardsim report runs/yz --out reports/yz.html
    """
    from cardsim.analysis.report import parse_margins, write_report

    _check_outputs(list(run_dirs), {"--out": out, "--json": json_out})
    result = write_report(
        list(run_dirs), out, fmt=fmt, json_out=json_out, margins=parse_margins(margins)
    )
    for w in result.warnings:
        click.echo(f"cardsim: warning: {w}", err=True)
    if quiet:
        return
    click.echo(f"report written to {result.out}", err=True)
    if result.json_out:
        click.echo(f"numbers written to {result.json_out}", err=True)


@cli.command("verify")
@click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR..."
)
def verify_cmd(run_dirs) -> None:
    """Check every part of each run directory against its manifest (sha256, rows, metadata).

    A study, ladder or tune folder is walked: every run in it is checked. One line per run;
    exit 0 when all are intact, 1 when a part does not match.
    Example: cardsim verify runs/yz my-study
    """
    from cardsim.sim.rundir import find_runs, verify

    bad = 0
    for d in run_dirs:
        for run_dir in find_runs(d) or [d]:  # no run in d: verify(d) says what it is
            ok, line = verify(run_dir)
            click.echo(line)
            bad += not ok
    if bad:
        sys.exit(1)


def one_line(message: str) -> str:
    """A multi-line error (e.g. Numba's, for a user strategy) as one line: its first line and
    the first place in the user's own file it names; ``CARDSIM_DEBUG=1`` shows it all."""
    import os
    import re

    lines = [ln.strip() for ln in str(message).splitlines() if ln.strip()]
    if len(lines) <= 1 or os.environ.get("CARDSIM_DEBUG"):
        return str(message)
    head = lines[0]
    for ln in lines[1:]:
        m = re.match(r'File "([^"]+)", line (\d+)', ln)
        if m and not re.search(r"(^|[/\\])(kernels|sim|numba)[/\\]", m.group(1)):
            head += f" (at {m.group(1)} line {m.group(2)})"
            break
    return head + " [CARDSIM_DEBUG=1 for details]"


def _os_error_line(e: OSError) -> str:
    from cardsim.sim.rundir import os_error

    return str(os_error(e, e.filename or "?", "cannot write" if e.filename else "OS error:"))


#: What Ctrl-C outside a run's own handling advises, by command (the runner's RunInterrupted
#: says it itself); commands that write a run directory resume, the others wrote nothing.
_AFTER_INTERRUPT = {
    "run": "a run completes with --resume",
    "compare": "a comparison completes with --resume",
    "study": "run the same command again: finished scenarios are reused",
    "ladder": "run the same command again: finished sub-runs are reused",
    "tune": "run the same command again: finished rungs are reused",
    "report": "the report was not written; run the command again",
    "exploit": "no answer was written; run the command again (the search starts afresh)",
}


def _interrupted(e: BaseException, command: str | None = None) -> None:
    """Ctrl-C / SIGTERM: one line, exit 130 / 143; a kernel still running in its thread (a
    nogil Numba call, or a user strategy stuck in a loop) is not waited for."""
    from cardsim.sim.runner import RunInterrupted, kernel_busy

    cause = e.__cause__ or e.__context__ if isinstance(e, click.exceptions.Abort) else e
    if isinstance(cause, RunInterrupted):
        text, code = cause.message, 128 + int(cause.signum)
    else:  # files are written whole (a temporary, then renamed): nothing is half-written
        advice = _AFTER_INTERRUPT.get(command or "", "run the command again")
        text, code = f"interrupted ({advice})", 130
    click.echo(f"cardsim: {text}", err=True)
    if kernel_busy():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2."""
    if hasattr(signal, "SIGXFSZ"):  # over `ulimit -f`: an EFBIG error to report, not a kill
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        cli.main(args=argv, prog_name="cardsim", standalone_mode=False)
    except CardsimError as e:
        click.echo(f"cardsim: error: {one_line(str(e))}", err=True)
        sys.exit(2)
    except (click.exceptions.Abort, KeyboardInterrupt) as e:  # click: KeyboardInterrupt -> Abort
        words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
        _interrupted(e, words[0] if words else None)
    except click.ClickException as e:
        click.echo(f"cardsim: error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except OSError as e:  # disk full, file too large, read-only, permission, name too long
        click.echo(f"cardsim: error: {_os_error_line(e)}", err=True)
        sys.exit(2)
    except Exception as e:
        cause = _os_cause(e)
        if cause is None:
            raise
        click.echo(f"cardsim: error: {cause}", err=True)
        sys.exit(2)
    sys.exit(0)


def _os_cause(e: BaseException) -> str | None:
    """An OS error wrapped by a library (a polars ComputeError on a full disk, …), as one line."""
    seen = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError):
            return _os_error_line(cur)
        cur = cur.__cause__ or cur.__context__
    text = str(e)
    m = re.search(
        r"(No space left on device|File too large|Read-only file system|"
        r"Permission denied|Operation not permitted|File name too long)",
        text,
    )
    if m:
        return f"{type(e).__name__}: {m.group(1)} ({text.splitlines()[0][:200]})"
    return None


if __name__ == "__main__":
    main()
