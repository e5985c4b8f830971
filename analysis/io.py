"""Open run directories for analysis: manifest, one ``scan_parquet`` per table, warnings.

A run directory (see ``sim/rundir.py``) holds ``manifest.json`` and the Parquet parts of every
finished chunk. :func:`open_run` checks the directory, checks each finished part's own metadata
and row count against the manifest (Parquet footers only; a mismatch is an error), scans the
parts of the chunks marked ``done`` (a half-finished run is analysed with the games it has, and
says so in :attr:`Run.warnings`) and never reads the data itself: the analyses get LazyFrames.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from cardsim.sim import rundir
from cardsim.sim.errors import CardsimError
from cardsim.sim.schema import strategy_label

MANIFEST = rundir.MANIFEST
TABLES = rundir.TABLES
_part = rundir.part_path


@dataclass(frozen=True)
class Run:
    """One run directory, ready to analyse: its manifest and lazily scanned tables."""

    path: Path
    manifest: dict
    games: pl.LazyFrame
    seats: pl.LazyFrame
    games_done: int
    chunks_done: int
    chunks_total: int
    warnings: tuple[str, ...] = field(default=())
    #: the finished chunks scanned (manifest entries, chunk order): see :func:`batches`
    chunks: tuple[dict, ...] = field(default=(), repr=False)

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        done = f"{self.games_done:,} of {self.games_planned:,} games"
        return html_of(
            self, f"cardsim run {self.game}: {done}", skip=("manifest", "games", "seats")
        )

    @property
    def game(self) -> str:
        return str(self.manifest["game"])

    @property
    def players(self) -> int:
        return int(self.manifest["players"])

    @property
    def strategies(self) -> list[str]:
        """The strategy label of each seat, as the tables name it (``mybot:choose`` for a user
        file: the manifest keeps its path, :func:`cardsim.sim.schema.strategy_label`)."""
        return [strategy_label(str(s)) for s in self.manifest["seats"]]

    @property
    def rules(self) -> dict:
        return dict(self.manifest["rules"])

    @property
    def games_planned(self) -> int:
        return int(self.manifest["games"])

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks_total

    @property
    def assignments(self) -> list[list[str]]:
        """A comparison run's seat assignments (strategy label per seat, as in the tables; the
        manifest keeps user files' paths); [] for a plain run."""
        return [[strategy_label(str(x)) for x in a] for a in self.manifest.get("assignments") or []]

    @property
    def is_comparison(self) -> bool:
        """Made by ``cardsim compare``: every deal played once per seat assignment."""
        return bool(self.assignments)

    @property
    def compared(self) -> list[str]:
        """The strategy labels of a comparison run, in the order given (``greedy``, ``greedy@2``)."""
        return list(dict.fromkeys(x for a in self.assignments for x in a))

    @property
    def stopped_early(self) -> str | None:
        """The stop rule that ended the run before its planned games (``until_ci: …``), or None."""
        stopped = self.manifest.get("stopped_by")
        return None if stopped in (None, "games") else str(stopped)

    @property
    def main_interval(self) -> dict | None:
        """The interval ``--until-ci`` watched (label, estimate, lo, hi, half widths), if any."""
        iv = self.manifest.get("main_interval")
        return dict(iv) if isinstance(iv, dict) else None


def read_manifest(path: Path) -> dict:
    """The manifest of run directory ``path``; :class:`CardsimError` if it is not a run."""
    return rundir.read_manifest(path)


def open_run(path: Path | str) -> Run:
    """Check a run directory and scan the parts of its finished chunks.

    Examples
    --------
    >>> run = open_run("runs/yz")  # doctest: +SKIP
    >>> run.games.select(pl.len()).collect().item()  # doctest: +SKIP
    200000
    """
    path = Path(path)
    manifest = read_manifest(path)
    rundir.check_plan(manifest, path / MANIFEST)
    chunks = manifest["chunks"]
    warnings: list[str] = []
    writer = rundir.writer_pid(path)
    if writer is not None:
        who = f" (pid {writer})" if writer > 0 else ""
        warnings.append(
            f"{path}: a cardsim process{who} is writing this run now; the report covers the "
            "chunks finished so far"
        )
    done, missing, wrong = [], [], []
    for c in chunks:
        if c.get("status") != "done":
            continue
        if not all(_part(path, t, c["index"]).is_file() for t in TABLES):
            missing.append(c["index"])
            continue
        # each part's own metadata and row count against the manifest (footers only)
        wrong += rundir.chunk_problems(path, manifest, c, sha256=False)
        done.append(c)
    if wrong:
        more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
        raise CardsimError(
            f"{path}: {wrong[0]}{more}; nothing is "
            f"reported (cardsim verify {path} checks every part; cardsim run … --resume "
            "redoes such chunks)"
        )
    if missing:
        warnings.append(
            f"{path}: {len(missing)} chunk(s) marked done have missing part files "
            f"(chunks {', '.join(map(str, missing[:5]))}{', …' if len(missing) > 5 else ''}); "
            "they are left out"
        )
    games_done = sum(rundir.chunk_games(c) for c in done)
    if not done:
        raise CardsimError(
            f"{path}: the run has no finished games yet (0 of {len(chunks)} chunks done); "
            "finish it with cardsim run … --resume"
        )
    if len(done) < len(chunks):
        stopped = manifest.get("stopped_by")
        if manifest.get("status") == "complete" and stopped not in (None, "games"):
            warnings.append(
                f"{path}: the run was stopped early by {stopped!r} after "
                f"{games_done:,} of {int(manifest['games']):,} planned games"
            )
        else:
            warnings.append(
                f"{path}: half-finished run: {games_done:,} of {int(manifest['games']):,} games "
                f"({len(done)} of {len(chunks)} chunks) are done; the report covers only those "
                "(complete it with cardsim run … --resume)"
            )
    scans = {t: pl.scan_parquet([_part(path, t, c["index"]) for c in done]) for t in TABLES}
    return Run(
        path=path,
        manifest=manifest,
        games=scans["games"],
        seats=scans["seats"],
        games_done=games_done,
        chunks_done=len(done),
        chunks_total=len(chunks),
        warnings=tuple(warnings),
        chunks=tuple(done),
    )


#: Games per batch of parts the streaming report aggregates at once (docs/report.md, "How the
#: report scales"): its peak memory is bounded by a batch, not by the run.
BATCH_GAMES = 500_000


@dataclass(frozen=True)
class Batch:
    """Consecutive finished chunks of a run: their scans and game index range ``[lo, hi)``."""

    games: pl.LazyFrame
    seats: pl.LazyFrame
    lo: int
    hi: int


def batches(run: Run, max_games: int | None = None) -> Iterator[Batch]:
    """The run's finished chunks in batches of at most ``max_games`` (default
    :data:`BATCH_GAMES`) games (at least one chunk each). Every row of a game (its seats, rounds, seat assignments) lies in its chunk, so sums
    per game, per deal or per round computed batch by batch add up to those of the run."""
    limit = max_games or BATCH_GAMES
    group: list[dict] = []
    total = 0

    def batch() -> Batch:
        return Batch(
            pl.scan_parquet([_part(run.path, "games", c["index"]) for c in group]),
            pl.scan_parquet([_part(run.path, "seats", c["index"]) for c in group]),
            min(int(c["first"]) for c in group),
            max(int(c["first"]) + int(c["count"]) for c in group),
        )

    for c in run.chunks:
        n = rundir.chunk_games(c)
        if group and total + n > limit:
            yield batch()
            group, total = [], 0
        group.append(c)
        total += n
    if group:
        yield batch()


def open_runs(paths: list[Path] | list[str]) -> list[Run]:
    """Open several run directories of one game; :class:`CardsimError` if games differ."""
    if not paths:
        raise CardsimError("give at least one run directory")
    runs = [open_run(p) for p in paths]
    games = {r.game for r in runs}
    if len(games) > 1:
        listing = ", ".join(f"{r.path} ({r.game})" for r in runs)
        raise CardsimError(f"the run directories are of different games: {listing}")
    return runs


def run_labels(runs: list[Run]) -> list[str]:
    """Short distinct labels for runs: the directory names, made unique where they clash."""
    names = [r.path.name or str(r.path) for r in runs]
    if len(set(names)) == len(names):
        return names
    return (
        [str(r.path) for r in runs]
        if len({str(r.path) for r in runs}) == len(runs)
        else [f"{n} #{i + 1}" for i, n in enumerate(names)]
    )
