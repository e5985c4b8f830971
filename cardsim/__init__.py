"""cardsim's Python API: a thin facade over ``sim`` (simulation) and ``analysis`` (answers).

>>> import cardsim
>>> games, seats = cardsim.simulate("atlas", games=20, seed=1)
>>> games.height, seats.height
(20, 80)

Every function takes the same configuration words as the CLI (``docs/cli.md``): the game,
``games``, ``seed``, ``players``, ``strategy`` (all seats) or ``seats`` ({seat: strategy}),
``rules`` ({option: value}, see ``cardsim rules GAME``). Results depend only on those and the
seed. docs/python-api.md walks through each function.
"""

from __future__ import annotations

import os as _os
import sys as _sys


def _ctrl_c_hook(kind, value, tb) -> None:
    """The command's Ctrl-C before its own handling starts (while the modules load, ~2 s): one
    line and exit 130, as after it, never a traceback (issue 45 item 12)."""
    if issubclass(kind, KeyboardInterrupt):
        _sys.stdout.flush()
        print("cardsim: interrupted (nothing was written)", file=_sys.stderr, flush=True)
        _os._exit(130)
    _sys.__excepthook__(kind, value, tb)


# only the command line (`cardsim …`, `python -m cardsim…`) gets the hook, never a program or
# notebook that imports the API (its Ctrl-C stays its own)
if _sys.argv and _os.path.basename(_sys.argv[0]) in ("cardsim", "-m"):
    _sys.excepthook = _ctrl_c_hook

import functools  # noqa: E402
import re  # noqa: E402
from collections.abc import Callable, Mapping, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TypeVar  # noqa: E402

import polars as pl  # noqa: E402

from cardsim.sim import __version__  # noqa: E402
from cardsim.sim.errors import CardsimError  # noqa: E402

__all__ = [
    "CardsimError",
    "__version__",
    "compare",
    "config",
    "env",
    "exploit",
    "ladder",
    "open_run",
    "report",
    "run",
    "screen",
    "simulate",
    "study",
    "sweep",
    "train",
    "tune",
]

F = TypeVar("F", bound=Callable)
#: Command-line options whose API argument has another name; flags are ``name=True``.
_ARGUMENTS = {"rule": "rules", "seat": "seats"}
_FLAGS = {"resume", "force", "quiet"}
_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def api_words(message: str) -> str:
    """An error message in the API's words: command-line options become argument names.

    Examples
    --------
    >>> api_words("--out runs/x is not empty; use --resume to complete that run or --force to "
    ...           "replace it")
    'out runs/x is not empty; use resume=True to complete that run or force=True to replace it'
    >>> api_words("--chunk-size must be a positive integer; --rule dao_bomb is given twice")
    'chunk_size must be a positive integer; rules dao_bomb is given twice'
    """

    def word(m: re.Match) -> str:
        name = m.group(1).replace("-", "_")
        return f"{name}=True" if name in _FLAGS else _ARGUMENTS.get(name, name)

    return _OPTION.sub(word, message)


def _api(fn: F) -> F:
    """A function of this API: its :class:`CardsimError` speaks of arguments, not options."""

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except CardsimError as e:
            raise CardsimError(api_words(str(e))) from None

    return wrapper  # type: ignore[return-value]


def _out(out: Path | str) -> Path:
    """``out`` as a path; an empty one is refused (it would mean the current directory)."""
    if not str(out).strip():
        raise CardsimError("out is empty: name a directory (the current one is never written into)")
    return Path(out)


@_api
def config(
    game: str,
    *,
    games: int,
    seed: int = 0,
    players: int | None = None,
    strategy: str | None = None,
    seats: Mapping[int, str] | None = None,
    rules: Mapping[str, object] | None = None,
):
    """A validated :class:`cardsim.sim.game.RunConfig` (raises :class:`CardsimError` on bad input)."""
    from cardsim.sim.config import build_config
    from cardsim.sim.games import get_engine

    return build_config(
        get_engine(game),
        games=games,
        seed=seed,
        players=players,
        strategy=strategy,
        seat_strategies=dict(seats or {}),
        rules={k: v if isinstance(v, str) else _text(v) for k, v in (rules or {}).items()},
    )


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@_api
def env(game: str, players: int | None = None, rules: Mapping[str, object] | str | None = None,
        seed: int = 0, render_mode: str | None = None):  # fmt: skip
    """A PettingZoo AEC environment of ``game`` for your own agents (needs ``pip install
    "cardsim[agents]"``): agents ``player_0..``, observations ``{"observation", "action_mask"}``,
    dense action ids, the match scores as rewards at the end. ``reset(seed=s)`` deals game 0 of
    root seed ``s``, each ``reset()`` without a seed the next game of the same root seed (game
    *i* of root seed *s* is game *i* of ``cardsim run --seed s``). docs/python-api.md, "Step a
    game with your own agents"."""
    try:
        from cardsim.agents.pettingzoo_env import make_env
    except ImportError as e:  # PettingZoo is an optional extra
        raise CardsimError(
            f'cardsim.env needs PettingZoo: pip install "cardsim[agents]" ({e})'
        ) from None
    return make_env(game, players, rules, seed, render_mode)


@_api
def simulate(game: str, *, games: int, seed: int = 0, **kw) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Play ``games`` games in memory: (games table, seats table) as Polars frames.

    For large runs use :func:`run`, which streams chunks to a run directory.
    """
    from cardsim.sim.games import get_engine

    cfg = config(game, games=games, seed=seed, **kw)
    return get_engine(game).play_chunk(cfg, 0, cfg.games)


@_api
def run(game: str, out: Path | str, *, games: int, seed: int = 0, threads: int | None = None,
        chunk_size: int | None = None, resume: bool = False, force: bool = False,
        progress: bool = False, until_ci: float | None = None, **kw):  # fmt: skip
    """Play into the run directory ``out``; returns :class:`cardsim.sim.runner.RunResult`.

    ``out`` must be new or empty, unless ``resume=True`` (complete the same run there; a
    finished one is returned as it is) or ``force=True`` (replace the run there).
    ``until_ci``: stop early once the first player's win rate is known to ± this half-width
    (``cardsim run --until-ci``; ``games`` is then the budget)."""
    from cardsim.sim import runner

    cfg = config(game, games=games, seed=seed, **kw)
    stop, spec = None, None
    if until_ci is not None:
        from cardsim.analysis.stopping import until_ci_rule
        from cardsim.sim.config import check_until_ci

        stop = until_ci_rule(check_until_ci(until_ci, "until_ci"))
        spec = {"stop": {"until_ci": until_ci}}  # as the CLI records it (resume repeats it)
    return runner.run(cfg, _out(out), chunk_size=chunk_size, threads=threads, resume=resume,
                      force=force, progress=progress, stop_rule=stop,
                      extra_manifest=spec)  # fmt: skip


@_api
def open_run(path: Path | str):
    """A run directory as an :class:`cardsim.analysis.io.Run`: ``.games`` / ``.seats`` LazyFrames."""
    from cardsim.analysis.io import open_run as _open

    return _open(path)


@_api
def compare(game: str, strategies: Sequence[str], out: Path | str, *, games: int, seed: int = 0,
            players: int | None = None, rules: Mapping[str, object] | None = None,
            threads: int | None = None, chunk_size: int | None = None, resume: bool = False,
            force: bool = False, progress: bool = False) -> pl.DataFrame:  # fmt: skip
    """Duplicate-deal comparison of ``strategies`` into ``out``; returns the pairwise table
    (one row per pair: win-rate difference, paired 95 % interval, deals).

    ``resume=True`` completes (or, finished, just reads) the same comparison in ``out``;
    ``force=True`` replaces what is there; without either ``out`` must be new or empty."""
    from cardsim.analysis.compare import pairwise
    from cardsim.sim import runner
    from cardsim.sim.compare import DuplicateEngine, build_compare_config
    from cardsim.sim.games import get_engine

    if isinstance(strategies, str):
        raise CardsimError("strategies is a list of names, e.g. ['greedy', 'random']")
    engine = get_engine(game)
    rule_items = {k: v if isinstance(v, str) else _text(v) for k, v in (rules or {}).items()}
    cfg = build_compare_config(engine, list(strategies), games=games, seed=seed,
                               players=players, rules=rule_items)  # fmt: skip
    runner.run(cfg, _out(out), chunk_size=chunk_size, threads=threads, resume=resume,
               force=force, progress=progress, engine=DuplicateEngine(engine))  # fmt: skip
    return pairwise(open_run(out).seats).table


@_api
def report(run_dirs: Path | str | Sequence[Path | str], out: Path | str,
           json_out: Path | str | None = None):  # fmt: skip
    """Write the balance report of one or more run directories to ``out`` (Markdown for a
    ``.md`` suffix, else HTML), and its numbers as JSON to ``json_out`` if given.
    Returns :class:`cardsim.analysis.report.ReportResult`."""
    from cardsim.analysis.report import write_report

    dirs = [run_dirs] if isinstance(run_dirs, str | Path) else list(run_dirs)
    fmt = "md" if Path(out).suffix.lower() == ".md" else "html"
    return write_report([Path(d) for d in dirs], _out(out), fmt=fmt,
                        json_out=None if json_out is None else Path(json_out))  # fmt: skip


@_api
def study(study_file: Path | str | None, out: Path | str, *, threads: int | None = None,
          force: bool = False, progress: bool = False):  # fmt: skip
    """Run a study file (None: the built-in default study) into ``out`` with its report."""
    from cardsim.workflows.study import default_study, load_study, run_study

    s = default_study() if study_file is None else load_study(study_file)
    return run_study(s, _out(out), threads=threads, progress=progress, force=force)


@_api
def ladder(game: str, out: Path | str, *, games: int, levels: Sequence[str] | None = None,
           deals: int | None = None, seed: int = 0, players: int | Sequence[int] | None = None,
           rules: Mapping[str, object] | None = None, threads: int | None = None,
           force: bool = False, progress: bool = False,
           scripted_games: int | None = None):  # fmt: skip
    """The skill ladder (like ``cardsim ladder``, docs/ladder.md) into ``out``: returns
    ``cardsim.workflows.ladder.LadderResult`` (``report``: ``out/ladder.html``; ``numbers``: its
    JSON). ``scripted_games``: as ``--scripted-games``."""
    from cardsim.workflows.ladder import run_ladder
    from cardsim.workflows.ladder_plan import build_ladder

    lad = build_ladder(
        game, None if levels is None else list(levels), games=games, deals=deals, seed=seed,
        players=list(players) if isinstance(players, list | tuple) else players,
        rules={k: _text(v) for k, v in (rules or {}).items()}, scripted_games=scripted_games,
    )  # fmt: skip
    return run_ladder(lad, _out(out), threads=threads, progress=progress, force=force)


@_api
def tune(game: str, objective: str | Sequence[str], out: Path | str, *, options: str | None = None,
         budget: int = 200_000, seed: int = 0, players: int | None = None,
         strategy: str | None = None, threads: int | None = None, force: bool = False,
         progress: bool = False):  # fmt: skip
    """Search rule options for the most balanced rule set (like ``cardsim tune``): returns
    ``cardsim.workflows.tune.TuneResult``; with a list of two or more objectives, their Pareto
    front (``cardsim.workflows.pareto.ParetoResult``: ``front``, ``points``). Calling it again with the same arguments resumes (finished rungs
    are reused); ``force=True`` replaces a different tune run in ``out``."""
    from cardsim.workflows.tune import tune as _tune

    if not isinstance(objective, str) and len(objective) > 1:
        from cardsim.workflows.pareto import pareto_tune

        return pareto_tune(game, list(objective), out=_out(out), options=options, budget=budget,
                           seed=seed, players=players, strategy=strategy, threads=threads,
                           progress=progress, force=force)  # fmt: skip
    if not isinstance(objective, str):
        objective = next(iter(objective), "")
    return _tune(game, objective, out=_out(out), options=options, budget=budget, seed=seed,
                 players=players, strategy=strategy, threads=threads, progress=progress,
                 force=force)  # fmt: skip


@_api
def sweep(game: str, out: Path | str, *, params: Sequence[str] | Mapping[str, object],
          targets: Sequence[str] | Mapping[str, float] | None = None, games: int = 2000,
          seed: int = 0, players: int | None = None, strategy: str | None = None,
          seats: Mapping[int, str] | None = None, rules: Mapping[str, object] | None = None,
          threads: int | None = None, force: bool = False, progress: bool = False,
          confirm: bool = True, scheduler=None):  # fmt: skip
    """A sweep of one or two integer rule options (like ``cardsim sweep``, docs/design.md):
    ``params`` as ``["hand_size=7..20"]`` or ``{"hand_size": "7..20"}`` / ``{"hand_size": [7,
    9, 11]}``; ``targets`` as ``["length=40"]`` or ``{"length": 40}``. Returns
    ``cardsim.analysis.sweep.SweepResult`` (per measure: points, curve, sentence; per target:
    crossings with intervals, or the closest value; the confirmation run) and writes
    ``out/sweep.html`` and ``out/sweep.json``. Calling it again resumes."""
    from cardsim.workflows.sweep import run_sweep
    from cardsim.workflows.sweep_plan import build_sweep

    if isinstance(params, Mapping):
        params = [f"{k}={','.join(map(str, v)) if isinstance(v, list | tuple) else v}"
                  for k, v in params.items()]  # fmt: skip
    if isinstance(targets, Mapping):
        targets = [f"{k}={v}" for k, v in targets.items()]
    sw = build_sweep(game, list(params), games=games, seed=seed, players=players,
                     strategy=strategy, seats=dict(seats or {}),
                     rules={k: _text(v) for k, v in (rules or {}).items()},
                     targets=list(targets or []))  # fmt: skip
    return run_sweep(sw, _out(out), threads=threads, progress=progress, force=force,
                     confirm=confirm, scheduler=scheduler)  # fmt: skip


@_api
def screen(game: str, out: Path | str, *, games: int | None = None, seed: int = 0,
           players: int | None = None, threads: int | None = None, force: bool = False,
           progress: bool = False, scheduler=None, margins: Mapping[str, float] | None = None):  # fmt: skip
    """Every variant of every open reading of ``game`` against the default rules on the same
    deals (like ``cardsim screen``, docs/design.md): returns
    ``cardsim.workflows.screen.ScreenRun`` (``result.rows``: one row per reading and headline
    measure with its verdict; ``result.changes``: the clear differences, largest first;
    ``report``: ``out/screen.html``). Calling it again resumes (finished runs are reused).
    ``margins``: equivalence margins by measure name (default: the measure's own)."""
    from cardsim.workflows.screen import DEFAULT_GAMES, plan_screen, run_screen

    plan = plan_screen(game, players=players, seed=seed,
                       games=DEFAULT_GAMES if games is None else games)  # fmt: skip
    return run_screen(plan, _out(out), threads=threads, progress=progress, force=force,
                      scheduler=scheduler, margins=dict(margins or {}))  # fmt: skip


@_api
def train(game: str, out: Path | str, *, decisions: int, teacher: str = "ismcts", seed: int = 0,
          players: int | None = None, rules: Mapping[str, object] | None = None, dagger: int = 0,
          l2: float = 1e-3, improve: int = 0, improve_field: Sequence[str] = ("greedy",),
          improve_rounds: int = 1, force: bool = False, progress: bool = False, scheduler=None):  # fmt: skip
    """Distil ``teacher`` into learned weights (like ``cardsim train``, docs/strategies.md
    "Learned"): writes the weights file ``out`` (``.npz``; positions kept in ``out.parts``, so a
    second call resumes) and returns ``cardsim.workflows.train.TrainResult`` (``weights``, the
    fit's figures per round, the improvement). Play them as ``learned:OUT``."""
    from cardsim.workflows.train import build_plan
    from cardsim.workflows.train import train as _train

    plan = build_plan(game, teacher, decisions, seed, players=players,
                      rules=tuple((k, _text(v)) for k, v in (rules or {}).items()),
                      dagger=dagger, l2=l2, improve=improve, improve_field=tuple(improve_field),
                      improve_rounds=improve_rounds)  # fmt: skip
    return _train(plan, _out(out), scheduler=scheduler, progress=progress, force=force)


@_api
def exploit(game: str, out: Path | str, *, field: Sequence[str] = ("greedy",), budget: int = 2000,
            verify: int = 1000, margin: float = 0.01, seed: int = 0, players: int | None = None,
            rules: Mapping[str, object] | None = None, start: str = "greedy",
            restricted: bool = False, force: bool = False, progress: bool = False,
            scheduler=None):  # fmt: skip
    """Search the learned family for a best response to ``field`` (like ``cardsim exploit``):
    returns ``cardsim.workflows.exploit.ExploitResult`` (``verdict``: exploit / none /
    undecided, ``verification``: the fresh-deal interval, ``moved``, ``examples``); with
    ``restricted=True`` the restricted-play table (a Polars frame) instead."""
    from cardsim.workflows import exploit as ex

    plan = ex.build_plan(game, list(field), budget, seed, players=players,
                         rules=tuple((k, _text(v)) for k, v in (rules or {}).items()),
                         verify=verify, margin=margin, start=start)  # fmt: skip
    if restricted:
        return ex.restricted_play(plan, _out(out), scheduler=scheduler)
    return ex.run_exploit(plan, _out(out), scheduler=scheduler, progress=progress, force=force)
