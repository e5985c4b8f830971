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


class KeyValue(click.ParamType):
    """``KEY=VALUE`` (``--rule``)."""

    name = "KEY=VALUE"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        key, sep, val = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(f"{value!r} is not KEY=VALUE", param, ctx)
        return key.strip(), val.strip()


class SeatStrategy(click.ParamType):
    """``I=NAME`` (``--seat``)."""

    name = "SEAT=STRATEGY"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        seat, sep, name = str(value).partition("=")
        if not sep or not seat.strip().lstrip("-").isdigit() or not name.strip():
            self.fail(f"{value!r} is not SEAT=STRATEGY (e.g. 0=greedy)", param, ctx)
        return int(seat), name.strip()


class Seed(click.ParamType):
    """A non-negative 64-bit integer."""

    name = "SEED"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            v = value
        else:
            text = str(value).strip()
            if not text.isdigit():
                self.fail(f"{value!r} is not a non-negative integer", param, ctx)
            v = int(text)
        if v > 2**64 - 1:
            self.fail(f"{value!r} is larger than 2**64 - 1", param, ctx)
        return v


def config_options(f):
    """Options shared by every command that builds a run configuration."""
    f = click.option(
        "--rule",
        "rules",
        multiple=True,
        type=KeyValue(),
        help="Rule option KEY=VALUE (repeatable); see `cardsim rules GAME`.",
    )(f)
    f = click.option(
        "--seat",
        "seats",
        multiple=True,
        type=SeatStrategy(),
        help="Strategy of one seat, I=NAME (repeatable); overrides --strategy.",
    )(f)
    f = click.option(
        "--strategy",
        default=None,
        help="Strategy of every seat (default greedy); or path/to/file.py:function.",
    )(f)
    f = click.option(
        "--players",
        type=int,
        default=None,
        help="Number of players (ATLAS 2..10, default 4; 原子 always 4).",
    )(f)
    f = click.option("--seed", type=Seed(), default=0, show_default=True, help="Root seed.")(f)
    return f


def run_options(f):
    """Options of the runner (how, not what: they never change the tables)."""
    f = click.option("--quiet", is_flag=True, help="No progress bar.")(f)
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
@click.argument("game", type=GAME, metavar="GAME")
@click.option(
    "--games", type=int, required=True, help="Number of games (rounds for ATLAS x rounds)."
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run directory.")
@config_options
@run_options
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
) -> None:
    """Play GAME --games N times and write outcome tables to --out.

    Example: cardsim run yuanzi --games 100000 --seed 1 --out runs/yz
    """
    from sim.config import build_config
    from sim.runner import DEFAULT_CHUNK_SIZE, run

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
        chunk_size=chunk_size or DEFAULT_CHUNK_SIZE,
        threads=threads,
        resume=resume,
        force=force,
        progress=not quiet,
        engine=engine,
    )
    rate = result.games_done / result.seconds if result.seconds > 0 else float("nan")
    click.echo(
        f"{result.games_done:,} games of {game} in {out} "
        f"({result.seconds:.1f} s, {rate:,.0f} games/s)",
        err=True,
    )


@cli.command("rules")
@click.argument("game", type=GAME, metavar="GAME")
def rules_cmd(game) -> None:
    """List GAME's rule options: name, default, allowed values, ruling, meaning."""
    engine = get_engine(game)
    for o in engine.rule_options:
        default = str(o.default).lower() if isinstance(o.default, bool) else o.default
        click.echo(f"{o.name:<26} default {default!s:<14} [{o.allowed()}]  {o.ruling}  {o.help}")


@cli.command("strategies")
@click.argument("game", type=GAME, metavar="GAME")
def strategies_cmd(game) -> None:
    """List GAME's built-in strategies with a one-line description."""
    for s in get_engine(game).strategies:
        click.echo(f"{s.name:<10} {s.description}")
    click.echo("path/to/file.py:function  a user-written strategy (see docs/strategies.md)")


@cli.command("replay")
@click.argument("game", type=GAME, metavar="GAME")
@click.option("--game", "game_index", type=int, required=True, help="Game index to replay.")
@config_options
def replay_cmd(game, game_index, seed, players, strategy, seats, rules) -> None:
    """Print the event log of one game: deal, every decision, result.

    Give the same configuration as the run (or --from DIR) to see the same game.
    """
    from sim.config import build_config

    engine = get_engine(game)
    if game_index < 0:
        raise CardsimError(f"--game must be a non-negative game index, got {game_index}")
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


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and exit code 2."""
    try:
        cli.main(args=argv, prog_name="cardsim", standalone_mode=False)
    except CardsimError as e:
        click.echo(f"cardsim: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("cardsim: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        click.echo(f"cardsim: error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("cardsim: interrupted (use --resume to complete the run)", err=True)
        sys.exit(130)
    sys.exit(0)


if __name__ == "__main__":
    main()
