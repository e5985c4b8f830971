"""Factorial-study and tuner benchmark (not a test): games/s of a design's cells, of its
analysis, and of ``cardsim tune``'s racing, against one plain run of the same games.

    .venv/bin/python benchmarks/bench_design.py [--game yuanzi] [--games N] [--repeats R]

A factorial study of 2^k cells × N games is played through ``run_study`` (one run directory
per cell, every cell on the same deals); the plain run plays 2^k × N games of the default
rules in one run directory, so the ratio is the cost of cells (directories, manifests, small
chunks). The tuner races every configuration of the same options with a budget of 2^k × N
games. Every figure is the median of the repeats; compilation is done before timing.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cardsim.analysis import factorial  # noqa: E402
from cardsim.sim import runner  # noqa: E402
from cardsim.sim.config import build_config  # noqa: E402
from cardsim.sim.games import get_engine  # noqa: E402

from cardsim.workflows.study import parse_study, run_study  # noqa: E402
from cardsim.workflows.tune import tune  # noqa: E402

OPTIONS = {
    "yuanzi": ("pass_only_if_unable", "dao_bomb", "lead_after_out"),
    "atlas": ("forced_claims", "claim_turn", "last_discard_wins"),
}


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="yuanzi", choices=sorted(OPTIONS))
    ap.add_argument("--games", type=int, default=5000, help="games per cell")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    engine = get_engine(a.game)
    opts = OPTIONS[a.game]
    cells = 2 ** len(opts)
    total = cells * a.games
    runner.set_threads(a.threads)
    engine.play_chunk(build_config(engine, games=1, seed=1), 0, 1)  # compile / load cache
    study_text = (
        f'[[design]]\nname = "bench"\ngame = "{a.game}"\ngames = {a.games}\nseed = 1\n'
        "options = { " + ", ".join(f'{o} = "all"' for o in opts) + " }\n"
    )
    study = parse_study(study_text, "bench.toml")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        n = [0]

        def fresh() -> Path:
            n[0] += 1
            return tmp / f"r{n[0]}"

        cfg = build_config(engine, games=total, seed=1)
        plain = median_time(
            lambda: runner.run(cfg, fresh(), progress=False, threads=a.threads), a.repeats
        )
        study_dirs = []

        def play_study():
            d = fresh()
            study_dirs.append(d)
            run_study(study, d, progress=False, report=False, threads=a.threads)

        design = median_time(play_study, a.repeats)
        (d,) = study.designs
        runs = [study_dirs[-1] / s.name for s in d.scenarios]
        facts = engine.facts

        fitted = []

        def analyse():
            fitted.append(
                factorial.analyse(d.spec, d.cells, factorial.read_cell_tables(runs), facts)
            )

        analysis = median_time(analyse, a.repeats)
        report = median_time(
            lambda: factorial.write_report(fitted[-1], tmp / "bench-factorial.html"), a.repeats
        )
        spent = []

        def race():
            r = tune(
                a.game, "first_excess", out=fresh(), options=",".join(opts), budget=total,
                progress=False, threads=a.threads,
            )  # fmt: skip
            spent.append(r.games_spent)

        racing = median_time(race, a.repeats)
    print(
        f"{a.game}: {cells} cells x {a.games:,} games, {a.threads} thread(s), median of {a.repeats}"
    )
    print(f"plain run, {total:,} games in one directory: {total / plain:,.0f} games/s")
    print(
        f"factorial study, {cells} cell runs: {total / design:,.0f} games/s "
        f"(ratio to plain {plain / design:.2f})"
    )
    measures = len(fitted[-1].measures)
    print(
        f"factorial analysis ({measures} measures, read + fit): {analysis:.2f} s "
        f"({total / analysis:,.0f} rows/s); report with plots: {report:.2f} s"
    )
    print(
        f"tune racing, {spent[-1]:,} games spent: {spent[-1] / racing:,.0f} games/s "
        f"(ratio to plain {(spent[-1] / racing) / (total / plain):.2f})"
    )


if __name__ == "__main__":
    main()
