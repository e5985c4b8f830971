"""``cardsim report``: every balance analysis of one or more run directories, as one report.

:func:`write_report` opens the runs (:mod:`cardsim.analysis.io`), gathers the LazyFrame queries of every
analysis module for every run and collects them in one ``pl.collect_all``; each module then
turns its results into a :class:`~cardsim.analysis.model.Section`. Findings with a p-value are judged
together after Holm's correction. The writers (:mod:`cardsim.analysis.render`) produce a self-contained
HTML file, or Markdown plus PNG files, and optionally the same numbers as JSON.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl
from cardsim.analysis import (
    duplicate,
    length,
    measures,
    scores,
    seats,
    stats,
    strategy,
    verdicts,
)
from cardsim.analysis.exprs import Partwise, combine
from cardsim.analysis.facts import facts
from cardsim.analysis.games import analysis_of
from cardsim.analysis.io import Run, batches, open_runs, run_labels
from cardsim.analysis.model import Finding, RunData, Section, Table, pm
from cardsim.analysis.render import played_text
from cardsim.sim import __version__
from cardsim.sim.errors import CardsimError

#: Sections every game gets (they read the game facts); then the game's own modules.
COMMON = (duplicate, seats, measures, length, scores, strategy)
FORMATS = ("html", "md", "json")


def modules_for(game: str) -> tuple:
    """The analysis modules of ``game``'s report: the shared ones, then the game's own sections
    (its analysis declaration, ``analysis/games/<game>.py``)."""
    return (*COMMON, *analysis_of(game).sections)


@dataclass
class ReportResult:
    """What :func:`write_report` wrote and found."""

    out: Path
    json_out: Path | None
    warnings: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def _repr_html_(self) -> str:  # a notebook's view (sim/display.py)
        from cardsim.sim.display import html_of

        return html_of(self, "cardsim report")


@dataclass
class Report:
    """Everything a writer needs (built by :func:`build_report`)."""

    game: str
    runs: list[Run]
    labels: list[str]
    config: Section
    sections: list[Section]
    findings: list[tuple[str, Finding]]
    warnings: list[str]
    generated: str
    version: str = __version__
    margins: dict[str, float] = field(default_factory=dict)


# --- configuration -------------------------------------------------------------------------


def rule_defaults(game: str) -> dict[str, object] | None:
    """Default value of every rule option of ``game`` (None if the engine cannot be loaded)."""
    try:
        from cardsim.sim.games import get_engine

        return {o.name: o.default for o in get_engine(game).rule_options}
    except Exception:  # the engine module may be missing or broken; the report goes on
        return None


def _same(a, b) -> bool:
    return str(a).lower() == str(b).lower()


def stop_text(r: Run) -> str:
    """How a run ended: "" (its planned games), or the stop rule and the interval it reached."""
    if not r.stopped_early:
        return ""
    iv = r.main_interval
    if str(r.stopped_early).startswith("until_ci") and iv:
        target = iv.get("target_half_width")
        return (
            f"by --until-ci ±{target:g} after {iv.get('n', 0):,} "
            f"{'deals' if r.is_comparison else 'games'}: {iv.get('label', 'main interval')} "
            f"= {pm(iv['estimate'], iv['lo'], iv['hi'])}"
        )
    return f"by {r.stopped_early}"


def config_section(runs: list[Run], labels: list[str], warnings: list[str]) -> Section:
    game = runs[0].game
    defaults = rule_defaults(game)
    if defaults is None:
        warnings.append(f"could not load the {game} engine: non-default rules are not marked")
    sec = Section("config", "Configuration")
    rows = []
    for lab, r in zip(labels, runs, strict=True):
        m = r.manifest
        rows.append(
            {
                "run": lab,
                "path": str(r.path),
                "game": game,
                "players": r.players,
                "strategies": (
                    f"comparison of {', '.join(r.compared)} "
                    f"({len(r.assignments)} seat assignments per deal)"
                    if r.is_comparison
                    else ", ".join(f"{i}: {s}" for i, s in enumerate(r.strategies))
                ),
                "seed": str(m["seed"]),
                "games": played_text(r, planned=True),
                "status": (
                    "stopped early"
                    if r.stopped_early
                    else "complete"
                    if r.complete
                    else "INCOMPLETE"
                ),
                "stopped": stop_text(r),
                "cardsim": str(m.get("cardsim_version", "?")),
                "created": str(m.get("created", "")),
            }
        )
    sec.tables.append(Table("runs", "Runs", pl.DataFrame(rows)))
    for lab, r in zip(labels, runs, strict=True):
        if r.stopped_early:
            pre = f"{lab}: " if len(runs) > 1 else ""
            sec.findings.append(
                Finding(
                    f"{pre}The run stopped early: {stop_text(r)}; {r.games_done:,} of "
                    f"{r.games_planned:,} planned {'deals' if r.is_comparison else 'games'} "
                    "were played."
                )
            )
    names = sorted({k for r in runs for k in r.rules} | set(defaults or {}))
    rule_rows = []
    for name in names:
        row = {"option": name, "default": "" if defaults is None else str(defaults.get(name, "?"))}
        non_default = False
        for lab, r in zip(labels, runs, strict=True):
            v = r.rules.get(name, defaults.get(name) if defaults else None)
            row[lab] = str(v)
            if defaults is not None and not _same(v, defaults.get(name)):
                non_default = True
        row["non_default"] = non_default
        rule_rows.append(row)
    sec.tables.append(
        Table("rules", "Rule options (non-default values highlighted)", pl.DataFrame(rule_rows))
    )
    return sec


# --- comparison of several runs ------------------------------------------------------------


def _headline(
    items: list[RunData],
) -> list[tuple[str, str, Callable[[RunData], dict], Callable | None]]:
    """(measure, kind, getter, per-row definition) for the comparison of runs: the
    first-player advantage as the excess over each run's fair share, then each registered
    module's ``HEADLINE`` rates (with their ``HEADLINE_ROWS`` definition, for pairing)."""

    def first(it: RunData) -> dict:
        r = seats.first_player_row(it)
        return {"k": r["wins"], "n": r["n"], "fair": r["fair_share"]}

    f = facts(items[0].run.game)
    out = [(f"{f.first_player_label} wins (excess over the fair share)", "win rate", first, None)]
    for mod in modules_for(items[0].run.game):
        rows = getattr(mod, "HEADLINE_ROWS", {})
        for what, key, filt in getattr(mod, "HEADLINE", ()):

            def get(it: RunData, key=key, filt=filt) -> dict:
                df = it.get(key)
                for c, v in filt.items():
                    df = df.filter(pl.col(c) == v)
                r = df.row(0, named=True)
                return {"k": int(r["k"]), "n": int(r["n"]), "fair": 0.0}

            out.append((what, "rate", get, rows.get(what)))
    return out


def comparison_section(items: list[RunData]) -> Section:
    sec = Section(
        "comparison",
        "Comparison of the runs",
        f"Each run against the first ({items[0].label}). Rates that have a fair share (the "
        "first-player advantage) are compared as the **excess over each run's own fair share** "
        "(1 / number of sides), so runs with different player counts compare like with like. "
        "Difference with the paired interval when two runs share the root seed and the deal "
        "(the same cards: the same seed, player count and deck — a rule option that changes "
        "the deck or the hand size, the game's deal options, deals other cards), with a "
        "standard error clustered by deal; "
        "otherwise Newcomb's 95 % interval (independent runs). Verdicts as in 'Verdicts'.",
    )
    rows, meta = [], []
    unit = facts(items[0].run.game).row_unit
    for what, measure, get, per_row in _headline(items):
        try:
            b = get(items[0])
        except (KeyError, IndexError, pl.exceptions.PolarsError):
            continue
        for it in items[1:]:
            try:
                a = get(it)
            except (KeyError, IndexError, pl.exceptions.PolarsError):
                continue
            if a["k"] == 0 and b["k"] == 0:  # never happened in either: a note, not an answer
                sec.notes.append(
                    f"{it.label} vs {items[0].label}: {what}: no {unit} of either run "
                    "(nothing to compare)."
                )
                continue
            row, se, units = _diff_row(it, items[0], what, a, b, get, per_row)
            rows.append(row)
            meta.append((measure, se, units))
    if not rows:
        return sec
    df = pl.DataFrame(rows)
    sec.tables.append(
        Table(
            "diffs",
            "Differences from the first run (excess over the fair share where there is one)",
            df,
            ("value", "baseline", "diff"),
            unit=unit,
        )
    )
    _add_diff_findings(sec, df, meta, items[0].label, unit)
    return sec


def _diff_row(it: RunData, first: RunData, what: str, a: dict, b: dict, get, per_row):
    """One run against the first on one headline measure: the row, its se and the units."""
    d, lo, hi, p = stats.diff_proportions(a["k"], a["n"], b["k"], b["n"])
    shift = a["fair"] - b["fair"]
    ra, rb = a["k"] / a["n"], b["k"] / b["n"]
    se = float(np.sqrt(ra * (1 - ra) / a["n"] + rb * (1 - rb) / b["n"]))
    row = {
        "measure": what,
        "run": it.label,
        "value": ra - a["fair"],
        "n": a["n"],
        "baseline": rb - b["fair"],
        "n_baseline": b["n"],
        "diff": float(d[0]) - shift,
        "diff_lo": max(float(lo[0]) - shift, -1.0),
        "diff_hi": min(float(hi[0]) - shift, 1.0),
        "p": _p_shifted(a, b, shift) if shift else float(p[0]),
        "interval": newcomb_label(it.run, first.run),
    }
    if get.__name__ == "first":
        paired = _paired_first(it, first)
    else:
        paired = _paired_rate(it, first, per_row) if per_row else None
    units = None  # the units the se is over (deals when paired by deal)
    if paired is not None:
        row.update(paired)
        se = paired.pop("_se")
        units = paired.pop("_deals", None)
        for k in ("_se", "_n", "_deals"):
            row.pop(k, None)
    return row, se, units


def _add_diff_findings(
    sec: Section, df: pl.DataFrame, meta: list, first_label: str, unit: str
) -> None:
    for i, (r, (measure, se, units)) in enumerate(zip(df.iter_rows(named=True), meta, strict=True)):
        base = (
            f"{r['run']} vs {first_label}: {r['measure']}: "
            f"{100 * r['value']:+.1f} vs {100 * r['baseline']:+.1f} points, difference "
            f"{pm(r['diff'], r['diff_lo'], r['diff_hi']).replace(' %', '')} points."
            if "excess" in r["measure"]
            else f"{r['run']} vs {first_label}: {r['measure']}: {100 * r['value']:.1f} % vs "
            f"{100 * r['baseline']:.1f} %, difference "
            f"{pm(r['diff'], r['diff_lo'], r['diff_hi']).replace(' %', '')} points."
        )
        sec.findings.append(
            Finding(
                base,
                base,
                r["p"],
                unit=unit,
                estimate=r["diff"],
                se=se,
                n=units or min(r["n"], r["n_baseline"]),
                measure=measure,
                table="diffs",
                row=i,
                answer=True,
            )
        )


def deal_differences(a: Run, b: Run) -> list[str]:
    """The rule options that change the cards dealt (``facts.deal_options``: ATLAS AT-D1..D3)
    and differ between the runs: runs that differ in one share the deal stream, not the cards."""
    opts = facts(a.game).deal_options
    return [o for o in opts if str(a.rules.get(o)).lower() != str(b.rules.get(o)).lower()]


def shares_deals(a: Run, b: Run) -> bool:
    """Runs of one root seed, player count and deal rules play the same deals (game ``i`` of
    both is dealt the same cards)."""
    return (
        str(a.manifest.get("seed")) == str(b.manifest.get("seed"))
        and a.players == b.players
        and not a.is_comparison
        and not b.is_comparison
        and not deal_differences(a, b)
    )


def newcomb_label(a: Run, b: Run) -> str:
    """The interval label of an unpaired comparison, saying why it is not paired."""
    same_seed = str(a.manifest.get("seed")) == str(b.manifest.get("seed"))
    diff = deal_differences(a, b)
    if same_seed and a.players == b.players and diff:
        return f"Newcomb (independent: {', '.join(diff)} changes the cards dealt)"
    return "Newcomb (independent runs)"


def paired_rate(ya: pl.Expr, yb: pl.Expr, deal: pl.Expr, frame: pl.LazyFrame) -> dict | None:
    """Paired difference of proportions on shared deals: ``frame`` holds one row per unit
    present in both runs (``ya``, ``yb`` its 0/1 outcomes, ``deal`` its deal). Estimate
    ``d̄ = Σ (ya − yb) / N``; standard error clustered by deal (CR1, the ratio estimator's):
    ``se² = G/(G−1) Σ_g (Σ_{i∈g} d_i − d̄ n_g)² / N²`` — with one unit per deal, ``sd(d)/√N``
    up to the factor (N−1)/N. Normal 95 % interval and two-sided p. One frame's case of
    :func:`paired_moments` + :func:`paired_rate_from`."""
    return paired_rate_from(paired_moments(ya, yb, deal, [frame]))


def _paired_rate(it: RunData, base: RunData, per_row: Callable) -> dict | None:
    """A headline rate of two runs on the same deals, paired unit by unit (the rows of both
    runs that count for it: ``per_row()`` gives the indicator and the rows counted). Joined
    batch by batch of ``it``'s parts (:func:`aligned`), the per-deal sums folded into moments."""
    if not shares_deals(it.run, base.run):
        return None
    keys = [c for c in ("game", "round") if c in it.run.games.collect_schema().names()]
    ind, counted = per_row()

    def side(games: pl.LazyFrame, tag: str) -> pl.LazyFrame:
        return games.select(*keys, ind.alias(f"y{tag}"), counted.alias(f"c{tag}"))

    frames = (
        side(a, "a").join(side(b, "b"), on=keys).filter(pl.col("ca") & pl.col("cb"))
        for a, b in aligned(it.run, base.run)
    )
    m = paired_moments(pl.col("ya"), pl.col("yb"), pl.col("game"), frames)
    return paired_rate_from(m)


#: per-deal moments of a paired difference (:func:`paired_moments`)
PAIRED_MOMENTS = ("g", "n", "s", "ss", "sm", "mm")


def paired_moments(ya: pl.Expr, yb: pl.Expr, deal: pl.Expr, frames) -> dict[str, float]:
    """Sums over deals of ``1, m, s, s², s·m, m²`` (``s`` the deal's summed ``ya − yb``, ``m``
    its units) over the joined ``frames`` (deals do not straddle frames): what
    :func:`paired_rate` needs, gathered frame by frame."""
    tot = dict.fromkeys(PAIRED_MOMENTS, 0.0)
    for frame in frames:
        per = (
            frame.select(deal.alias("_g"), (ya.cast(pl.Float64) - yb.cast(pl.Float64)).alias("_d"))
            .group_by("_g")
            .agg(s=pl.col("_d").sum(), m=pl.len().cast(pl.Float64))
            .select(
                g=pl.len().cast(pl.Float64),
                n=pl.col("m").sum(),
                s=pl.col("s").sum(),
                ss=(pl.col("s") ** 2).sum(),
                sm=(pl.col("s") * pl.col("m")).sum(),
                mm=(pl.col("m") ** 2).sum(),
            )
            .collect(engine="streaming")
            .row(0, named=True)
        )
        for k in PAIRED_MOMENTS:
            tot[k] += float(per[k] or 0.0)
    return tot


def paired_rate_from(m: dict[str, float]) -> dict | None:
    """:func:`paired_rate` from the moments of :func:`paired_moments`:
    ``Σ_g (s_g − d̄ m_g)² = Σ s² − 2 d̄ Σ s m + d̄² Σ m²``."""
    from scipy.stats import norm

    g, n = int(m["g"]), m["n"]
    if g < 2 or n == 0:
        return None
    dbar = m["s"] / n
    resid2 = max(m["ss"] - 2 * dbar * m["sm"] + dbar * dbar * m["mm"], 0.0)
    se = float(np.sqrt(g / (g - 1) * resid2) / n)
    half = float(norm.ppf(0.975) * se)
    # no spread (e.g. a rule that changes nothing at this player count): the difference is
    # exact — p 1 when it is 0, 0 otherwise (issue 47 item 3)
    p = float(2 * norm.sf(abs(dbar) / se)) if se > 0 else float(dbar == 0)
    return {
        "diff": dbar,
        "diff_lo": max(dbar - half, -1.0),
        "diff_hi": min(dbar + half, 1.0),
        "p": p,
        "interval": f"paired on {g:,} shared deals (same root seed; se clustered by deal)",
        "_se": se,
        "_n": int(n),
        "_deals": g,
    }


def aligned(a: Run, b: Run):
    """``(games of a, games of b)`` for the same games, batch by batch of ``a``'s parts: ``b``
    filtered to the batch's game range (its parts outside are skipped by their statistics), so
    a join on the game holds one batch, whatever ``b``'s chunk sizes."""
    for bt in batches(a):
        yield bt.games, b.games.filter(pl.col("game").is_between(bt.lo, bt.hi, closed="left"))


def _paired_first(it: RunData, base: RunData) -> dict | None:
    """The first-player advantage of two runs on the same deals, paired by game: the mean
    over the games decided in both of ``won_a − won_b`` with a Student-t interval (joined
    batch by batch of parts, :func:`aligned`; the deal's luck cancels)."""
    if not shares_deals(it.run, base.run):
        return None
    f = facts(it.run.game)
    keys = [c for c in ("game", "round") if c in it.run.games.collect_schema().names()]

    def side(games: pl.LazyFrame, tag: str) -> pl.LazyFrame:
        return games.select(
            *keys,
            (f.winner_side() == f.first_side()).alias(f"y{tag}"),
            f.winner_side().is_not_null().alias(f"d{tag}"),
        )

    n = s1 = s2 = 0.0
    for a, b in aligned(it.run, base.run):
        j = (
            side(a, "a")
            .join(side(b, "b"), on=keys)
            .filter(pl.col("da") & pl.col("db"))
            .select(d=pl.col("ya").cast(pl.Float64) - pl.col("yb").cast(pl.Float64))
            .select(n=pl.len(), s1=pl.col("d").sum(), s2=(pl.col("d") ** 2).sum())
            .collect(engine="streaming")
            .row(0, named=True)
        )
        n, s1, s2 = n + j["n"], s1 + (j["s1"] or 0.0), s2 + (j["s2"] or 0.0)
    n = int(n)
    if n < 2:
        return None
    mean = s1 / n
    sd = float(np.sqrt(max(s2 - n * mean * mean, 0.0) / (n - 1)))
    from scipy.stats import t as student

    se = sd / np.sqrt(n)
    half = float(student.ppf(0.975, n - 1) * se)
    p = float(2 * student.sf(abs(mean) / se, n - 1)) if se > 0 else float(mean == 0)
    return {
        "diff": float(mean),
        "diff_lo": max(float(mean) - half, -1.0),
        "diff_hi": min(float(mean) + half, 1.0),
        "p": p,
        "interval": f"paired on {n:,} shared deals (same root seed), Student t",
        "_se": float(se),
    }


def _p_shifted(a: dict, b: dict, shift: float) -> float:
    """Two-sided p of "the excesses are equal" (a Wald test of the rate difference = shift)."""
    from scipy.stats import norm

    ra, rb = a["k"] / a["n"], b["k"] / b["n"]
    se = np.sqrt(ra * (1 - ra) / a["n"] + rb * (1 - rb) / b["n"])
    if se == 0:
        return 1.0 if ra - rb == shift else 0.0
    return float(2 * norm.sf(abs(ra - rb - shift) / se))


# --- building ------------------------------------------------------------------------------


def judge(findings: list[tuple[str, Finding]], margins: dict[str, float] | None = None) -> None:
    """Verdicts for the questions (Holm over them), pass / fail for the checks."""
    verdicts.judge(findings, margins)


def collect_queries(runs: list[Run], queries: list[pl.LazyFrame | Partwise]) -> list[pl.DataFrame]:
    """Collect each query (of ``runs[i]``) with the streaming engine; a :class:`Partwise` one
    batch by batch of its run's parts (:func:`cardsim.analysis.io.batches`), its sums folded after
    every batch, so peak memory is bounded by a batch of parts and not by the run."""
    out: list[pl.DataFrame | None] = [
        None if isinstance(q, Partwise) else q.collect(engine="streaming") for q in queries
    ]
    by_run: dict[int, tuple[Run, list[int]]] = {}
    for j, q in enumerate(queries):
        if isinstance(q, Partwise):
            by_run.setdefault(id(runs[j]), (runs[j], []))[1].append(j)
    for run, idx in by_run.values():
        acc: dict[int, pl.DataFrame] = {}
        for b in batches(run):
            got = pl.collect_all(
                [queries[j].part(b.games, b.seats) for j in idx], engine="streaming"
            )
            for j, df in zip(idx, got, strict=True):
                keys = queries[j].keys
                acc[j] = (
                    df if j not in acc else combine(pl.concat([acc[j], df]).lazy(), keys).collect()
                )
        for j in idx:
            q = queries[j]
            out[j] = q.finish(combine(acc[j].lazy(), q.keys)).collect()
    return out


def _unreadable_part(runs: list[Run]) -> str | None:
    """The first part of ``runs`` whose data cannot be read, as the report's one line (issue
    45 item 12: a part damaged past its footer failed the report without naming it). Read
    only when a query failed: each part alone, in run and chunk order."""
    from cardsim.sim import rundir

    for r in runs:
        by_table = (rundir.finished_parts(r.path, r.manifest, t) for t in rundir.TABLES)
        for chunk in zip(*by_table, strict=True):  # each finished chunk's parts, in chunk order
            for t, part in zip(rundir.TABLES, chunk, strict=True):
                try:
                    pl.read_parquet(part)
                except (pl.exceptions.ComputeError, OSError) as e:
                    why = str(e).splitlines()[0][:120]
                    return (
                        f"{r.path}: {t}/{part.name} is unreadable ({why}); nothing is reported "
                        f"(cardsim verify {r.path} checks every part; cardsim run … --resume "
                        "redoes such chunks)"
                    )
    return None


def build_report(
    run_dirs: list[Path],
    margins: dict[str, float] | None = None,
    only: Collection[str] | None = None,
) -> Report:
    """Open the runs, run every analysis (one ``collect_all``) and build the sections (those
    whose keys ``only`` names, when given). Figures are drawn when a writer reads them
    (:class:`~cardsim.analysis.model.Figure`): the JSON writer never does."""
    runs = open_runs([Path(p) for p in run_dirs])
    game = runs[0].game
    try:
        facts(game)
    except CardsimError as e:
        raise CardsimError(f"{runs[0].path}: {e}") from None
    labels = run_labels(runs)
    warnings = [w for r in runs for w in r.warnings]
    modules = modules_for(game)
    items = [RunData(lab, r, {}) for lab, r in zip(labels, runs, strict=True)]
    _collect_analyses(runs, modules, items)
    config = config_section(runs, labels, warnings)
    several = any(r.is_comparison or len(set(r.strategies)) > 1 for r in runs)
    sections = [
        mod.section(items)
        for mod in modules
        if (mod is not duplicate or any(r.is_comparison for r in runs))
        and (mod is not strategy or several)  # every seat one strategy: no empty card
        and (only is None or mod.KEY in only)
    ]
    if len(items) > 1:
        sections.insert(0, comparison_section(items))
    findings = [(s.key, f) for s in [config, *sections] for f in s.findings]
    judge(findings, margins)
    verdicts.fill_tables(sections)
    return Report(
        game=game,
        runs=runs,
        labels=labels,
        config=config,
        sections=sections,
        findings=findings,
        warnings=warnings,
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        margins=dict(margins or {}),
    )


def _collect_analyses(runs: list, modules: list, items: list[RunData]) -> None:
    """Every analysis module's queries on every run, collected into ``items[i].data`` (keyed
    ``<module>.<query>``)."""
    keys: list[tuple[int, str]] = []
    lazy: list[pl.LazyFrame | Partwise] = []
    for i, r in enumerate(runs):
        for mod in modules:
            try:
                qs = mod.queries(r)
            except pl.exceptions.ColumnNotFoundError as e:
                raise CardsimError(
                    f"{r.path}: the tables lack a column the report needs ({e})"
                ) from None
            for name, lf in qs.items():
                keys.append((i, f"{mod.KEY}.{name}"))
                lazy.append(lf)
    try:
        # one query at a time with the streaming engine: peak memory is that of the largest
        # query, not of all of them together; queries with per-game group-bys go batch by
        # batch of parts (Partwise): none grows with the run beyond its groups
        frames = collect_queries([runs[i] for i, _ in keys], lazy)
    except (pl.exceptions.ColumnNotFoundError, pl.exceptions.SchemaError) as e:
        first = str(e).splitlines()[0]
        raise CardsimError(
            f"the run tables do not have the columns the report expects ({first}); "
            "were they written by another cardsim version?"
        ) from None
    except (pl.exceptions.ComputeError, OSError) as e:
        first = str(e).splitlines()[0]
        raise CardsimError(
            _unreadable_part(runs) or f"cannot read the run tables ({first})"
        ) from None
    for (i, key), df in zip(keys, frames, strict=True):
        items[i].data[key] = df


def _check_out(path: Path, what: str) -> Path:
    path = Path(path)
    if path.is_dir():
        raise CardsimError(f"{what} {path}: is a directory; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CardsimError(f"{what} {path}: cannot create its folder ({e.strerror or e})") from None
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CardsimError(f"{what} {path}: cannot write there (permission denied)")
    return path


SUFFIX_FORMAT = {".html": "html", ".htm": "html", ".md": "md", ".json": "json"}


def pick_format(out: Path, fmt: str | None) -> str:
    """The output format: ``fmt`` if given, else from ``out``'s suffix (default html); a
    ``fmt`` that contradicts a known suffix is an error."""
    by_suffix = SUFFIX_FORMAT.get(Path(out).suffix.lower())
    if fmt is None:
        return by_suffix or "html"
    if fmt not in FORMATS:
        raise CardsimError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if by_suffix is not None and by_suffix != fmt:
        raise CardsimError(
            f"--out {out} is a {by_suffix} file name but --format is {fmt}; "
            "drop --format (the suffix picks the format) or change the suffix"
        )
    return fmt


def parse_margins(items: list[str] | tuple[str, ...] | None) -> dict[str, float]:
    """``["win rate=0.02", "mean=1"]`` → margins; :class:`CardsimError` for a bad item."""
    out: dict[str, float] = {}
    for item in items or ():
        name, sep, value = str(item).partition("=")
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        if not sep or not name.strip() or not (v > 0):
            raise CardsimError(
                f"--margin {item!r}: give MEASURE=VALUE with a positive value, e.g. "
                "'win rate=0.02' (two percentage points)"
            )
        out[name.strip()] = v
    return out


def write_report(
    run_dirs: list[Path],
    out: Path,
    fmt: str | None = None,
    json_out: Path | None = None,
    margins: dict[str, float] | None = None,
) -> ReportResult:
    """Write the balance report of ``run_dirs`` (one game) to ``out``.

    The format is ``fmt`` (``html``, ``md``, ``json``) or, without it, ``out``'s suffix.
    ``margins`` override the default equivalence margins (:data:`cardsim.analysis.verdicts.DEFAULT_MARGINS`).
    Raises :class:`~cardsim.sim.errors.CardsimError` for a missing, empty or foreign directory,
    directories of different games, a format that contradicts the suffix, or an unwritable
    output.

    Examples
    --------
    >>> r = write_report([Path("runs/yz")], Path("reports/yz.html"))  # doctest: +SKIP
    >>> r.findings[0]  # doctest: +SKIP
    'The first leader's team wins ...'
    """
    import time

    from cardsim.analysis import render

    t0 = time.perf_counter()
    fmt = pick_format(Path(out), fmt)
    out = _check_out(Path(out), "--out")
    if json_out is not None:
        json_out = _check_out(Path(json_out), "--json")
    report = build_report(list(run_dirs), margins)
    main = {"html": render.write_html, "md": render.write_markdown, "json": render.write_json}
    writers = [(out, main[fmt])] + ([(json_out, render.write_json)] if json_out else [])
    for path, write in writers:
        try:
            write(report, path)
        except OSError as e:  # a full disk names no file: name the one being written
            raise CardsimError(f"cannot write the report {path}: {e.strerror or e}") from None
    return ReportResult(
        out=out,
        json_out=json_out,
        warnings=list(report.warnings),
        findings=[f.text for _, f in report.findings],
        seconds=time.perf_counter() - t0,
    )
