"""The ``cardsim`` command line: thin click commands over ``sim/`` and ``analysis/``.

Each command parses its options, builds a validated config, calls the library and prints.
Problems in user input are :class:`~sim.errors.CardsimError`; :func:`main` prints them as one
line on stderr and exits with code 2 (no traceback).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sim import __version__
from sim.errors import CardsimError
from sim.games import GAMES, get_engine

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
        type=int,
        default=None,
        help="Number of players (ATLAS 2..10, default 4; 原子 always 4).",
    )(f)
    f = click.option("--seed", type=Seed(), default=0, show_default=True, help="Root seed.")(f)
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


def run_options(f):
    """Options of the runner (how, not what: they never change the tables)."""
    f = click.option("--quiet", is_flag=True, help="No progress bar.")(f)
    f = click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS|local:N",
        help="Run chunks on a Dask cluster: a scheduler address, or local:N "
        "worker processes started here. Same tables as a local run.",
    )(f)
    f = click.option("--force", is_flag=True, help="Replace an existing run in --out.")(f)
    f = click.option(
        "--resume", is_flag=True, help="Complete an interrupted run in --out (same configuration)."
    )(f)
    f = click.option(
        "--chunk-size",
        type=int,
        default=None,
        help="Games per chunk and part file (default 20000).",
    )(f)
    f = click.option(
        "--threads", type=int, default=None, help="Numba threads (default: all cores)."
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
    type=int,
    required=True,
    help="Number of games (matches; ATLAS: matches of --rule rounds=R rounds).",
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory.")
@config_options
@run_options
@click.option(
    "--until-ci",
    type=float,
    default=None,
    metavar="W",
    help="Stop early once the first-player advantage is known to ±W (95 %).",
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
    from sim.config import build_config
    from sim.runner import run

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
    _echo_result(result, game)


def _until_ci(width):
    if width is None:
        return None
    if not 0 < width < 1:
        raise CardsimError(f"--until-ci must be a number in (0, 1), got {width}")
    from analysis.stopping import until_ci_rule

    return until_ci_rule(width)


def _sprt(spec, config, delta, alpha, beta):
    if spec is None:
        return None
    from sim.config import is_user_strategy

    a, sep, b = spec.partition(">")
    a, b = (
        str(Path(x.rsplit(":", 1)[0]).resolve()) + ":" + x.rsplit(":", 1)[1]
        if is_user_strategy(x)
        else x
        for x in (a.strip(), b.strip())
    )
    labels = sorted({x for seats in config.assignments for x in seats})
    if not sep or a not in labels or b not in labels or a == b:
        raise CardsimError(f"--test must be A>B with A, B among {', '.join(labels)}; got {spec!r}")
    if not 0 < delta < 1 or not 0 < alpha < 0.5 or not 0 < beta < 0.5:
        raise CardsimError("--test: need 0 < --delta < 1 and 0 < --alpha, --beta < 0.5")
    from analysis.stopping import sprt_rule

    return sprt_rule(a, b, delta, alpha, beta)


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
    "--games", type=int, required=True, help="Deals (each played once per seat assignment)."
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory.")
@setup_options
@run_options
@click.option(
    "--until-ci",
    type=float,
    default=None,
    metavar="W",
    help="Stop early once every paired difference is known to ±W (95 %).",
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
    type=float,
    default=0.02,
    show_default=True,
    help="--test: the win-rate difference H1 asserts.",
)
@click.option(
    "--alpha",
    type=float,
    default=0.05,
    show_default=True,
    help="--test: rate of false 'A beats B'.",
)
@click.option(
    "--beta",
    type=float,
    default=0.05,
    show_default=True,
    help="--test: rate of missing a real --delta.",
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
) -> None:
    """Compare strategies on duplicate deals: every deal under every seat assignment.

    Example: cardsim compare yuanzi --strategies greedy,random --games 20000 --out runs/cmp
    """
    from analysis.compare import pairwise, ratings
    from analysis.stopping import first_of
    from sim.compare import DuplicateEngine, build_compare_config
    from sim.runner import run
    from sim.strategy_params import split_strategies

    engine = get_engine(game)
    config = build_compare_config(
        engine, split_strategies(strategies), games=games, seed=seed, players=players, rules=rules
    )
    result = run(
        config,
        out,
        chunk_size=chunk_size,
        threads=threads,
        resume=resume,
        force=force,
        progress=not quiet,
        engine=DuplicateEngine(engine),
        stop_rule=first_of(_until_ci(until_ci), _sprt(test_spec, config, delta, alpha, beta)),
        extra_manifest=_stop_spec(until_ci, test_spec, delta, alpha, beta),
        scheduler=scheduler,
    )
    _echo_result(result, game, unit="deals")
    from analysis.stopping import scan_finished

    seats = scan_finished(Path(out), "seats", result.manifest)
    pw = pairwise(seats).table
    click.echo(
        f"{len(config.assignments)} seat assignments per deal; "
        f"{result.manifest.get('games_done', result.games_done):,} deals"
    )
    for r in pw.iter_rows(named=True):
        click.echo(
            f"{r['a']} vs {r['b']}: win {r['win_a']:.4f} vs {r['win_b']:.4f}, "
            f"diff {r['diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}] paired 95 %, "
            f"Holm p = {r['p_holm']:.3g}; unpaired would be [{r['unpaired_lo']:+.4f}, "
            f"{r['unpaired_hi']:+.4f}] = {r['equivalent_unpaired_games']:,.0f} unpaired games"
        )
    rt = ratings(seats.collect(), game)
    for r in rt.table.sort("rating", descending=True).iter_rows(named=True):
        click.echo(
            f"rating {r['strategy']:<12} {r['rating']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]"
        )


@cli.command("study")
@click.argument(
    "study_file", required=False, type=click.Path(path_type=Path), metavar="[STUDY.toml]"
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("studies/default"),
    show_default=True,
    help="Study directory (one run directory per scenario).",
)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option(
    "--force",
    is_flag=True,
    help="Run every scenario afresh, replacing earlier runs (also changed ones).",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def study_cmd(study_file, out, threads, force, quiet) -> None:
    """Run a balance study (scenarios + comparisons) and write one report.

    Without STUDY.toml, runs the built-in default study: both games at default rules, one
    rule-variant comparison and one strategy comparison per game.
    """
    from sim.study import default_study, load_study, run_study

    study = load_study(study_file) if study_file else default_study()
    result = run_study(study, out, threads=threads, progress=not quiet, force=force)
    for name in result.reused:
        click.echo(f"reused finished run of scenario {name}", err=True)
    click.echo(f"study {study.name!r}: {len(result.runs)} scenarios in {result.out}")
    if result.report:
        click.echo(f"report: {result.report}")


@cli.command("rules")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
def rules_cmd(game) -> None:
    """List GAME's rule options: name, default, allowed values, ruling, meaning."""
    engine = get_engine(game)
    for o in engine.rule_options:
        default = str(o.default).lower() if isinstance(o.default, bool) else o.default
        click.echo(f"{o.name:<26} default {default!s:<14} [{o.allowed()}]  {o.ruling}  {o.help}")


@cli.command("strategies")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
def strategies_cmd(game) -> None:
    """List GAME's built-in strategies with a one-line description."""
    for s in get_engine(game).strategies:
        click.echo(f"{s.name:<10} {s.description}")
    click.echo("path/to/file.py:function  a user-written strategy (see docs/strategies.md)")


@cli.command("replay")
@click.argument("game", type=GAME, metavar=GAME_METAVAR)
@click.option("--game", "game_index", type=int, required=True, help="Game index to replay.")
@click.option(
    "--from",
    "from_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Take the configuration from this run directory's manifest.",
)
@click.option(
    "--assignment",
    type=int,
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

    from sim.compare import strategy_of
    from sim.config import build_config
    from sim.runner import config_from_manifest, read_manifest

    engine = get_engine(game)
    from sim.config import MAX_GAMES

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
        config = config_from_manifest(read_manifest(from_dir))
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
    click.echo(engine.replay(config, game_index))


@cli.command("report")
@click.argument(
    "run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="DIR..."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="Report file (.html, or .md with --format md).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "md"]),
    default="html",
    show_default=True,
    help="Self-contained HTML, or Markdown plus PNG files.",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write every number of the report as JSON to this file.",
)
def report_cmd(run_dirs, out, fmt, json_out) -> None:
    """Write a balance report for one or more run directories of the same game.

    Example: cardsim report runs/yz --out reports/yz.html
    """
    from analysis.report import write_report

    result = write_report(list(run_dirs), out, fmt=fmt, json_out=json_out)
    for w in result.warnings:
        click.echo(f"cardsim: warning: {w}", err=True)
    click.echo(f"report written to {result.out}", err=True)
    if result.json_out:
        click.echo(f"numbers written to {result.json_out}", err=True)


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


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2."""
    try:
        cli.main(args=argv, prog_name="cardsim", standalone_mode=False)
    except CardsimError as e:
        click.echo(f"cardsim: error: {one_line(str(e))}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:  # Ctrl-C: click turns KeyboardInterrupt into Abort
        click.echo("cardsim: interrupted (a run completes with --resume)", err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"cardsim: error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    sys.exit(0)


if __name__ == "__main__":
    main()
