"""``cardsim ladder``: the skill ladder — do the balance findings hold under stronger play?

A ladder names a game, its *levels* (strategies, weakest first by intent; e.g. ``random,
greedy, pimc:samples=4, pimc:samples=16``), the games per level and, for ATLAS, one or more
player counts. Per player count it is a set of ordinary run directories under ``DIR``
(docs/ladder.md)::

    DIR/[pK-]rating/            the levels compared on duplicate deals (as ``cardsim compare``)
    DIR/[pK-]L<i>-<level>/      self-play of level i: every seat plays it (as ``cardsim run``)
    DIR/ladder.html, .json      the report: "Does it hold under stronger play?"

(``pK-`` only for a game with several player counts.) Every sub-run is played by the study
runner (:func:`cardsim.workflows.study.run_study`), so a ladder is resumable and reproducible as a study is:
running the same ladder again reuses finished sub-runs (verified), completes unfinished ones,
and refuses a directory holding a different run unless ``force``. All sub-runs share the root
seed: the self-play runs of every level play the same deals. A study file's ``[[ladder]]``
table is the same ladder (:func:`parse_ladder_table`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from cardsim.sim import jsonio
from cardsim.sim.errors import CardsimError
from cardsim.sim.rundir import holding_out
from cardsim.workflows.ladder_plan import Ladder, build_ladder, ladder_data

REPORT = "ladder.html"


@dataclass
class LadderResult:
    out: Path
    report: Path
    numbers: Path
    runs: dict[str, Path]
    reused: list[str]
    looks: list = field(default_factory=list)  # --until-decided: the Look of each batch
    stopped_by: str | None = None  # --until-decided: decided, max-games or max-minutes

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        return html_of(self, "cardsim ladder")


def _check_report(out: Path, force: bool) -> None:
    """``ladder.html`` / ``ladder.json`` are replaced only when they are a ladder's report."""
    import json

    js = out / Path(REPORT).with_suffix(".json")
    html = out / REPORT
    if force or not (js.exists() or html.exists()):
        return
    try:
        doc = json.loads(js.read_text(encoding="utf-8"))
        ok = doc.get("format") == "cardsim-report" and any(
            s == "ladder" for s in doc.get("sections", {})
        )
    except (OSError, ValueError, AttributeError):
        ok = False
    if not ok:
        raise CardsimError(
            f"{html} exists and is not a ladder report; use --force to replace it, or another --out"
        )


@holding_out("ladder")  # one writer per ladder folder (sim/rundir.py)
def run_ladder(
    ladder: Ladder,
    out: Path | str,
    *,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    margins: dict[str, float] | None = None,
    scheduler=None,
) -> LadderResult:
    """Play every sub-run of ``ladder`` into ``out`` (reused / resumed as a study's scenarios)
    and write ``out/ladder.html`` (+ ``.json``). ``scheduler``: as for
    :func:`cardsim.workflows.study.run_study` (the levels' runs and the rating run on one Dask
    cluster; the same tables)."""
    from cardsim.analysis.ladder import write_ladder_report
    from cardsim.workflows.study import Study, run_study

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CardsimError(f"--out {out}: exists and is not a directory")
    _check_report(out, force)
    study = Study(f"ladder {ladder.game}", list(ladder.scenarios), [], "<ladder>")
    result = run_study(
        study, out, threads=threads, progress=progress, force=force, report=False,
        scheduler=scheduler, command="ladder",
    )  # fmt: skip
    html, js = write_ladder_report(ladder_data(ladder, result.runs), out / REPORT, margins)
    return LadderResult(out, html, js, result.runs, result.reused)


# --- --until-decided: looks of whole batches, alpha spending ------------------------------------

#: Beside the report: the looks of a sequential ladder (``--until-decided``), so that running
#: the same command again continues where it stopped.
LOOKS = "ladder-looks.json"
#: ``--until-decided`` without ``--max-games``: at most this many batches (looks).
DEFAULT_LOOKS = 8
#: ``--until-decided``: at most this many looks (each plays and judges a whole batch; the
#: per-look lists, e.g. the levels of alpha spending, are as long as this)
MAX_LOOKS = 1_000
#: ``--max-minutes``: at most a year
MAX_MINUTES = 525_600
#: whole chunks per look: the games (and deals) of a batch must share a divisor this large
MIN_LOOK_CHUNK = 20


@dataclass
class Sequential:
    """``--until-decided``: play batches of ``--games`` / ``--deals`` per level until every
    measure of ``decide`` (default: all) has a verdict at the look's level, or the budget is
    spent (``max_games`` self-play games per level; ``max_minutes`` of wall time)."""

    max_games: int | None = None
    max_minutes: float | None = None
    alpha: float = 0.05
    spending: str = "pocock"
    decide: list[str] = field(default_factory=list)  # measure keys; [] = every measure


@dataclass
class Look:
    look: int
    games_per_level: int
    deals: int
    level: float  # this look's share of alpha
    spent: float  # alpha spent up to and including this look
    verdicts: dict[str, str]  # "group: measure key" -> the ladder's verdict word
    decided: bool
    seconds: float
    scripted_games: int | None = None  # --scripted-games: a scripted level's self-play games


def _look_chunk(ladder: Ladder) -> int:
    """The chunk size of a sequential ladder's sub-runs: whole chunks per batch (each look
    extends every sub-run by one batch, runner.extend_run)."""
    import math

    from cardsim.sim.runner import DEFAULT_CHUNK_SIZE

    scripted = ladder.scripted_games or ladder.games
    sizes = f"--games {ladder.games}, --deals {ladder.deals}" + (
        f", --scripted-games {scripted}" if ladder.scripted_games else ""
    )
    if ladder.chunk_size is not None:
        if any(v % ladder.chunk_size for v in (ladder.games, ladder.deals, scripted)):
            raise CardsimError(
                f"--until-decided: {sizes} must be multiples of --chunk-size "
                f"{ladder.chunk_size} (each look adds whole chunks)"
            )
        return ladder.chunk_size
    g = math.gcd(ladder.games, ladder.deals, scripted)
    c = next(d for d in range(min(g, DEFAULT_CHUNK_SIZE), 0, -1) if g % d == 0)
    if c < min(MIN_LOOK_CHUNK, g):
        raise CardsimError(
            f"--until-decided: {sizes} share no chunk size of {MIN_LOOK_CHUNK} games or more "
            "(each look adds whole chunks); use round numbers, e.g. --games 2000 --deals 500"
        )
    return c


def check_sequential(ladder: Ladder, seq: Sequential) -> int:
    """Validate ``seq`` against ``ladder``; returns the planned number of looks."""
    from cardsim.analysis.ladder import measures_for
    from cardsim.analysis.stopping import SPENDING

    if seq.spending not in SPENDING:
        raise CardsimError(f"--spending must be one of {', '.join(SPENDING)}, got {seq.spending!r}")
    if not 0 < seq.alpha < 0.5:
        raise CardsimError(f"--alpha must be between 0 and 0.5, got {seq.alpha}")
    if seq.max_minutes is not None and not 0 < seq.max_minutes <= MAX_MINUTES:
        raise CardsimError(  # inf and nan fail the comparison too: one rule, one line
            f"--max-minutes must be a number of minutes above 0 and at most {MAX_MINUTES:,} "
            f"(a year), got {seq.max_minutes:g}"
        )
    max_games = seq.max_games if seq.max_games is not None else DEFAULT_LOOKS * ladder.games
    if max_games < ladder.games or max_games % ladder.games:
        raise CardsimError(
            f"--max-games {max_games} must be a multiple of --games {ladder.games} (the games "
            "per level of one look)"
        )
    if max_games // ladder.games > MAX_LOOKS:  # bounded before any list of looks is built
        raise CardsimError(
            f"--max-games {max_games:,} is {max_games // ladder.games:,} looks of --games "
            f"{ladder.games:,}; at most {MAX_LOOKS:,} looks (raise --games or lower --max-games)"
        )
    keys = [m.key for m in measures_for(ladder.game)]
    bad = [k for k in seq.decide if k not in keys]
    if bad:
        raise CardsimError(
            f"--decide: {ladder.game} has no measure {bad[0]!r} (has {', '.join(keys)})"
        )
    twice = next((k for i, k in enumerate(seq.decide) if k in seq.decide[:i]), None)
    if twice is not None:
        raise CardsimError(f"--decide names {twice!r} twice")
    _look_chunk(ladder)
    return max_games // ladder.games


def _identity(ladder: Ladder, seq: Sequential, looks: int, margins) -> dict:
    return {
        "game": ladder.game, "levels": ladder.levels, "games": ladder.games,
        "deals": ladder.deals, "seed": ladder.seed, "players": ladder.players,
        **({"scripted_games": ladder.scripted_games} if ladder.scripted_games else {}),
        "rules": ladder.rules, "chunk_size": _look_chunk(ladder), "looks": looks,
        "alpha": seq.alpha, "spending": seq.spending, "decide": sorted(seq.decide),
        "margins": dict(sorted((margins or {}).items())),
    }  # fmt: skip


def _read_looks(out: Path, ident: dict, force: bool) -> list[Look]:
    import json

    path = out / LOOKS
    if force or not path.is_file():
        return []
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        have, looks = doc["identity"], [Look(**x) for x in doc["looks"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CardsimError(f"{path}: unreadable ({e}); use --force to start afresh") from None
    if have != ident:
        diff = sorted(k for k in {**have, **ident} if have.get(k) != ident.get(k))
        raise CardsimError(
            f"{out} holds a different sequential ladder ({', '.join(diff)} differ); use "
            "--force to replace it, or another --out"
        )
    return looks


def _write_looks(out: Path, ident: dict, looks: list[Look], stopped_by: str | None) -> None:
    from dataclasses import asdict

    from cardsim.sim.rundir import atomic_write_bytes

    doc = {"format": "cardsim-ladder-looks", "identity": ident, "stopped_by": stopped_by,
           "looks": [asdict(x) for x in looks]}  # fmt: skip
    atomic_write_bytes(out / LOOKS, jsonio.dump_bytes(doc, indent=1))


def _scaled(ladder: Ladder, look: int, chunk: int) -> Ladder:
    """The ladder of ``look`` batches: the same sub-runs, ``look`` × the games and deals."""
    scripted = look * ladder.scripted_games if ladder.scripted_games else None
    return build_ladder(
        ladder.game, ladder.levels, games=look * ladder.games, deals=look * ladder.deals,
        seed=ladder.seed, players=ladder.players, rules=ladder.rules, chunk_size=chunk,
        name=ladder.name, scripted_games=scripted,
    )  # fmt: skip


def _verdicts(sec, game: str, decide: list[str]) -> tuple[dict[str, str], bool]:
    """The trends table's verdict of each measure ("[group: ]measure label" -> the ladder's
    word), and whether every measure of ``decide`` (keys; [] = all) has one."""
    from cardsim.analysis import stats
    from cardsim.analysis.ladder import WORDS, measures_for

    trends = next((t.df for t in sec.tables if t.key == "trends"), None)
    if trends is None or trends.height == 0:
        return {}, False
    labels = {m.label for m in measures_for(game) if m.key in decide}
    out, chosen = {}, []
    for r in trends.iter_rows(named=True):
        group = r.get("group") or ""
        out[f"{group + ': ' if group else ''}{r['measure']}"] = r["verdict"]
        if not decide or r["measure"] in labels:
            chosen.append(r["verdict"])
    return out, bool(chosen) and all(v != WORDS[stats.NOT_ENOUGH] for v in chosen)


def scripted_text(scripted: int | None) -> str:
    """`` (N per scripted level)`` where ``--scripted-games`` gave them N, else nothing."""
    return f" ({scripted:,} per scripted level)" if scripted else ""


def answer_text(looks: list[Look], planned: int, seq: Sequential, stopped_by: str) -> str:
    """The Answers line of a sequential ladder: looks, games per level, the budget."""
    last = looks[-1]
    which = "every measure" if not seq.decide else ", ".join(seq.decide)
    if stopped_by == "decided":
        how = f"stopped: {which} has a verdict"
    elif stopped_by == "max-games":
        how = f"the budget of games ran out (--max-games) before {which} had a verdict"
    else:
        how = (
            f"the budget of time ran out (--max-minutes {seq.max_minutes:g}) before {which} "
            "had a verdict"
        )
    return (
        f"Played until decided: {len(looks)} look{'s' if len(looks) != 1 else ''} of "
        f"{looks[0].games_per_level:,} games per level (of {planned} planned, "
        f"{planned * looks[0].games_per_level:,} games per level at most); "
        f"{last.games_per_level:,} self-play games per level"
        f"{scripted_text(last.scripted_games)} and {last.deals:,} rating deals in "
        f"all; {how}. Verdicts at this look's level {last.level:.3g} ({seq.spending}-type alpha "
        f"spending of {seq.alpha:g} over the looks, union bound: valid under repeated looks; "
        f"{last.spent:.3g} spent)."
    )


@holding_out("ladder")
def run_ladder_until_decided(
    ladder: Ladder,
    out: Path | str,
    seq: Sequential,
    *,
    threads: int | None = None,
    progress: bool = True,
    force: bool = False,
    margins: dict[str, float] | None = None,
    scheduler=None,
) -> LadderResult:
    """``cardsim ladder --until-decided``: look k plays games ``(k−1)·N .. k·N − 1`` of every
    sub-run (``N`` = ``--games`` self-play games per level, ``--deals`` rating deals), on the
    same root seed — so after k looks each sub-run is exactly the run of ``k·N`` games, and a
    run is reproducible. After each look the ladder is judged at the look's level (the
    increments of an alpha-spending function over the planned looks,
    :func:`cardsim.analysis.stopping.look_levels`); it stops once every measure (of
    ``seq.decide``) has a verdict — skill-dependent or stable — or the budget is spent. The
    looks are recorded in ``out/ladder-looks.json``: running the same command again continues
    (a finished look is never replayed; a larger ``--max-minutes`` may add looks)."""
    import time

    from cardsim.analysis.ladder import section, write_ladder_report
    from cardsim.analysis.stopping import alpha_spent, look_levels
    from cardsim.sim import runner
    from cardsim.workflows.study import Study, run_study

    out = Path(out)
    planned = check_sequential(ladder, seq)
    chunk = _look_chunk(ladder)
    runner.check_scheduler(None if isinstance(scheduler, runner.ClusterSession) else scheduler)
    _check_report(out, force)
    ident = _identity(ladder, seq, planned, margins)
    looks = _read_looks(out, ident, force)
    levels = look_levels(planned, seq.alpha, seq.spending)
    elapsed = sum(x.seconds for x in looks)
    stopped_by = None
    if looks and looks[-1].decided:
        stopped_by = "decided"
    result = None
    with runner.cluster_session(scheduler) as session:
        while stopped_by is None:
            k = len(looks) + 1
            stopped_by = _why_stop(looks, k, planned, seq, elapsed)
            if stopped_by is not None:
                break
            t0 = time.monotonic()
            now = _scaled(ladder, k, chunk)
            _extend_runs(now, out, k)
            if progress:
                print(f"cardsim: ladder look {k} of at most {planned}: {now.games:,} games per "
                      f"level{scripted_text(now.scripted_games)}, {now.deals:,} rating deals",
                      file=sys.stderr, flush=True)  # fmt: skip
            study = Study(f"ladder {ladder.game}", list(now.scenarios), [], "<ladder>")
            result = run_study(
                study, out, threads=threads, progress=progress, force=force and k == 1,
                report=False, scheduler=session, command="ladder",
            )  # fmt: skip
            sec = section(ladder_data(now, result.runs), margins, levels[k - 1])
            verdicts, decided = _verdicts(sec, ladder.game, seq.decide)
            seconds = time.monotonic() - t0
            elapsed += seconds
            looks.append(Look(k, now.games, now.deals, levels[k - 1],
                              alpha_spent(k / planned, seq.alpha, seq.spending), verdicts,
                              decided, round(seconds, 3), now.scripted_games))  # fmt: skip
            _write_looks(out, ident, looks, None)
            if progress:
                shown = "; ".join(f"{m}: {v}" for m, v in verdicts.items())
                print(f"cardsim: look {k} (level {levels[k - 1]:.3g}): {shown}", file=sys.stderr,
                      flush=True)  # fmt: skip
            if decided:
                stopped_by = "decided"
    _write_looks(out, ident, looks, stopped_by)
    last = _scaled(ladder, len(looks), chunk)
    runs = {s.name: out / s.name for s in last.scenarios}
    data = ladder_data(last, runs)
    data.answers.append(answer_text(looks, planned, seq, stopped_by))
    html, js = write_ladder_report(data, out / REPORT, margins, looks[-1].level)
    reused = result.reused if result is not None else list(runs)
    return LadderResult(out, html, js, runs, reused, looks=looks, stopped_by=stopped_by)


def _why_stop(looks: list, k: int, planned: int, seq: Sequential, elapsed: float) -> str | None:
    """Why look ``k`` is not played: the planned looks are done, or it would overrun the time."""
    if k > planned:
        return "max-games"
    over = looks and seq.max_minutes is not None  # would the next look overrun?
    if over and elapsed + looks[-1].seconds > 60 * seq.max_minutes:
        return "max-minutes"
    return None


def _extend_runs(now: Ladder, out: Path, k: int) -> None:
    """One batch more for every sub-run already played: the next range of game indices."""
    from cardsim.sim import runner

    for s in now.scenarios:  # one batch more: the next range of game indices
        d = out / s.name
        if k > 1 and not d.is_symlink() and (d / runner.MANIFEST).is_file():
            m = runner.read_manifest(d)
            if int(m["games"]) < s.games:
                runner.extend_run(d, s.games)
