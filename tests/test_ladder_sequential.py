"""``cardsim ladder --until-decided`` (issue 23 item 4): batches of games per level, judged after
each look at an alpha-spending share, until every measure has a verdict or the budget is spent.

The error rate under repeated looks is checked by simulating the stopping rule on null data in
pure Python (the verdict code the ladder uses, :func:`cardsim.analysis.verdicts.judge`, at the
looks' levels, :func:`cardsim.analysis.stopping.look_levels`; no Numba); the ladder itself on a
small budget (reproducible, resumable, equal to a plain ladder of the same games)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.analysis import stats, verdicts
from cardsim.analysis.model import Finding
from cardsim.analysis.stopping import alpha_spent, look_levels
from cardsim.sim import runner
from cardsim.sim.errors import CardsimError
from polars.testing import assert_frame_equal
from scipy import stats as ss

from cardsim.cli import main


def cardsim(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(map(str, args)))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.mark.parametrize("kind", ["pocock", "obrien-fleming"])
def test_look_levels_spend_alpha_in_all_and_grow_or_shrink_as_documented(kind):
    levels = look_levels(8, 0.05, kind)
    assert len(levels) == 8 and math.isclose(sum(levels), 0.05, rel_tol=1e-12)
    assert all(x > 0 for x in levels)
    if kind == "pocock":  # nearly even shares, a little more early
        assert levels[0] > levels[-1] > levels[0] / 3
    else:  # almost nothing early, most of alpha late
        assert levels[0] < 1e-6 and levels[-1] > 0.01
    assert alpha_spent(0.5, 0.05, kind) < 0.05 and alpha_spent(1.0, 0.05, kind) == pytest.approx(
        0.05
    )
    with pytest.raises(CardsimError, match="--spending"):
        look_levels(3, 0.05, "linear")


def _null_looks(rng, sims: int, looks: int, delta: float, margin: float, se1: float):
    """Per simulation and look: the estimate of a change whose truth is ``delta``, after k
    batches (the mean of k independent batch estimates, each of standard error ``se1``)."""
    batches = rng.normal(delta, se1, size=(sims, looks))
    k = np.arange(1, looks + 1)
    return np.cumsum(batches, axis=1) / k, se1 / np.sqrt(k)


def _verdicts(est, se, level: float, margin: float, family: int) -> np.ndarray:
    """The verdict of every estimate of one look, as :func:`verdicts.judge` gives it, computed
    for all simulations at once (``est``: one row per family, one column per measure): Holm over
    the family's p-values, 'clear' below the look's level, else TOST within the margin."""
    p = 2 * ss.norm.sf(np.abs(est) / se)
    order = np.argsort(p, axis=1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=1) * (family - np.arange(family))
    holm = np.empty_like(p)
    np.put_along_axis(holm, order, np.minimum(1.0, np.maximum.accumulate(ranked, axis=1)), axis=1)
    tost = np.maximum(ss.norm.sf((est + margin) / se), ss.norm.cdf((est - margin) / se))
    return np.where(
        holm < level, stats.CLEAR, np.where(tost < level, stats.EQUIVALENT, stats.NOT_ENOUGH)
    )


def _wrong_verdicts(est, se, levels, margin, wrong: str, family: int) -> float:
    """Share of families (``family`` null measures judged together per look, Holm over them,
    as the ladder judges its measures) where some look gives some measure the ``wrong``
    verdict at the look's level."""
    looks = est.shape[1]
    hit = np.zeros(est.shape[0] // family, dtype=bool)
    for k in range(looks):
        rows = est[:, k].reshape(-1, family)
        hit |= (_verdicts(rows, se[k], levels[k], margin, family) == wrong).any(axis=1)
    return float(hit.mean())


def _judged(est, se: float, level: float, margin: float) -> list[str]:
    """One family's verdicts from the ladder's own verdict code."""
    found = [
        Finding(
            "",
            "",
            float(2 * ss.norm.sf(abs(e) / se)),
            estimate=float(e),
            se=se,
            n=100,
            margin=margin,
            measure="rate",
        )  # fmt: skip
        for e in est
    ]
    verdicts.judge([("ladder", f) for f in found], None, level)
    return [f.verdict for f in found]


def test_the_vectorised_verdicts_are_the_ladders_own():
    """The null-data test below judges 96,000 looks at once; here its array verdicts
    equal :func:`verdicts.judge`'s, family by family, on estimates that reach every verdict."""
    rng = np.random.default_rng(5)
    margin, se, family = 0.01, 0.003, 3
    est = rng.normal(0.0, 0.01, size=(150, family))
    for level in (0.05, 0.0079, 0.001):
        fast = _verdicts(est, se, level, margin, family)
        slow = [_judged(row, se, level, margin) for row in est]
        assert fast.tolist() == slow
        assert {stats.CLEAR, stats.EQUIVALENT, stats.NOT_ENOUGH} <= set(fast.ravel())


@pytest.mark.parametrize("kind", ["pocock", "obrien-fleming"])
def test_repeated_looks_keep_the_error_rate_on_null_data(kind):
    """Eight looks: with no trend at all, 'skill-dependent' at some look in at most ~5 % of
    ladders (naive 5 % at every look: far more); with a true change exactly at the margin,
    'stable' at some look in at most ~5 %."""
    rng = np.random.default_rng(23)
    looks, margin, se1, sims = 8, 0.01, 0.006, 4000
    levels = look_levels(looks, 0.05, kind)
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / sims)
    # 'skill-dependent' is judged with Holm over the measures: the family's error (3 measures)
    est, se = _null_looks(rng, 3 * sims, looks, 0.0, margin, se1)
    false_clear = _wrong_verdicts(est, se, levels, margin, stats.CLEAR, 3)
    naive = _wrong_verdicts(est, se, [0.05] * looks, margin, stats.CLEAR, 3)
    assert false_clear <= bound, false_clear
    assert naive > 0.09 and naive > 2 * false_clear, (naive, false_clear)
    # 'stable' is a TOST per measure (docs/report.md): each measure's error, truth at the margin
    est, se = _null_looks(rng, sims, looks, margin, margin, se1)
    false_equiv = _wrong_verdicts(est, se, levels, margin, stats.EQUIVALENT, 1)
    assert false_equiv <= bound, false_equiv


LADDER = ["ladder", "yuanzi", "--levels", "random,greedy", "--games", 40, "--deals", 20,
          "--quiet"]  # fmt: skip


def tables(d: Path) -> list[pl.DataFrame]:
    keys = ("game", "assignment", "seat")
    out = []
    for t in runner.TABLES:
        df = pl.read_parquet(d / t / "*.parquet")
        out.append(df.sort([k for k in keys if k in df.columns]))
    return out


def same_runs(a: Path, b: Path) -> None:
    names = sorted(p.parent.name for p in a.glob(f"*/{runner.MANIFEST}"))
    assert names == sorted(p.parent.name for p in b.glob(f"*/{runner.MANIFEST}")) and names
    for n in names:
        for x, y in zip(tables(a / n), tables(b / n), strict=True):
            assert_frame_equal(x, y)


def looks_of(d: Path) -> tuple[str, list[dict]]:
    doc = json.loads((d / "ladder-looks.json").read_text())
    return doc["stopped_by"], [{k: v for k, v in x.items() if k != "seconds"} for x in doc["looks"]]


def answers(d: Path) -> list[str]:
    doc = json.loads((d / "ladder.json").read_text())
    return [f["text"] for f in doc["findings"] if f["text"].startswith("Played until decided")]


@pytest.mark.heavy
def test_a_small_budget_stops_with_a_verdict_or_budget_spent_and_is_reproducible(capsys, tmp_path):
    args = [*LADDER, "--until-decided", "--max-games", 120]
    code, out, err = cardsim(capsys, *args, "--out", tmp_path / "a")
    assert code == 0, err
    stopped, looks = looks_of(tmp_path / "a")
    assert stopped in ("decided", "max-games") and 1 <= len(looks) <= 3
    assert [x["games_per_level"] for x in looks] == [40 * (i + 1) for i in range(len(looks))]
    assert [x["deals"] for x in looks] == [20 * (i + 1) for i in range(len(looks))]
    assert sum(x["level"] for x in looks) <= 0.05 + 1e-12
    (line,) = answers(tmp_path / "a")
    assert f"{len(looks)} look" in line and "40 games per level" in line
    assert ("budget of games ran out" in line) == (stopped == "max-games")
    assert f"{len(looks)} looks, {looks[-1]['games_per_level']} games per level: {stopped}" in out
    # the same command again elsewhere: the same looks, verdicts and tables
    assert cardsim(capsys, *args, "--out", tmp_path / "b")[0] == 0
    assert looks_of(tmp_path / "a") == looks_of(tmp_path / "b")
    same_runs(tmp_path / "a", tmp_path / "b")
    # after k looks every sub-run is the plain run of k batches (the next range of game indices)
    n = looks[-1]["games_per_level"]
    plain = ["ladder", "yuanzi", "--levels", "random,greedy", "--games", n, "--deals",
             looks[-1]["deals"], "--chunk-size", 20, "--quiet"]  # fmt: skip
    assert cardsim(capsys, *plain, "--out", tmp_path / "plain")[0] == 0
    same_runs(tmp_path / "a", tmp_path / "plain")
    # run again in place: nothing played, the same looks
    assert cardsim(capsys, *args, "--out", tmp_path / "a")[0] == 0
    assert looks_of(tmp_path / "a") == looks_of(tmp_path / "b")


@pytest.mark.heavy
def test_a_time_budget_stops_between_looks_and_the_same_command_continues(capsys, tmp_path):
    """--max-minutes that one look already spends: one look, 'budget of time'; the command
    without it continues from look 2 to the same looks and tables as an uninterrupted run."""
    args = [*LADDER, "--until-decided", "--max-games", 120, "--decide", "first_excess"]
    assert cardsim(capsys, *args, "--max-minutes", 1e-6, "--out", tmp_path / "t")[0] == 0
    stopped, looks = looks_of(tmp_path / "t")
    assert (stopped, len(looks)) == ("max-minutes", 1) or (stopped, looks[-1]["decided"]) == (
        "decided",
        True,
    )
    if stopped == "max-minutes":
        assert "budget of time ran out (--max-minutes 1e-06)" in answers(tmp_path / "t")[0]
    assert cardsim(capsys, *args, "--out", tmp_path / "t")[0] == 0
    assert cardsim(capsys, *args, "--out", tmp_path / "u")[0] == 0
    assert looks_of(tmp_path / "t") == looks_of(tmp_path / "u")
    same_runs(tmp_path / "t", tmp_path / "u")
    # another budget of games is another plan (other levels per look): refused
    other = [*LADDER, "--until-decided", "--max-games", 160, "--decide", "first_excess"]
    code, _, err = cardsim(capsys, *other, "--out", tmp_path / "t")
    assert code == 2 and "different sequential ladder (looks differ)" in err, err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--max-games", 100], "--max-games 100 must be a multiple of --games 40"),
        (["--decide", "nonsense"], "--decide: yuanzi has no measure 'nonsense'"),
        (["--chunk-size", 30], "must be multiples of --chunk-size 30"),
    ],
)
def test_bad_sequential_options_are_one_line(capsys, tmp_path, extra, message):
    code, _, err = cardsim(capsys, *LADDER, "--until-decided", *extra, "--out", tmp_path / "x")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x").exists()


def test_budget_options_need_until_decided(capsys, tmp_path):
    code, _, err = cardsim(capsys, *LADDER, "--max-games", 80, "--out", tmp_path / "x")
    assert code == 2 and "--max-games need --until-decided" in err, err


def test_is_scripted_names_the_built_ins_that_do_not_search():
    from cardsim.sim.games import get_engine

    from cardsim.workflows.ladder_plan import is_scripted

    for game in ("yuanzi", "atlas"):
        engine = get_engine(game)
        for level in ("random", "greedy", "greedy:eps=0.2", "soft", "soft:temp=2"):
            assert is_scripted(engine, level), level
        for level in ("pimc", "pimc:samples=2", "ismcts:iters=8", "examples/x.py:choose",
                      "py:examples/x.py:choose"):  # fmt: skip
            assert not is_scripted(engine, level), level


@pytest.mark.heavy
def test_scripted_games_give_the_scripted_levels_more_games_and_stay_reproducible(capsys, tmp_path):
    """--scripted-games: the built-in levels that do not search play that many self-play games
    per look, the others (here a user strategy) --games; after k looks every sub-run is the
    plain ladder's of k batches, and the Answers line and trends table say so."""
    user = str(Path(__file__).resolve().parents[1] / "examples" / "yuanzi_strategy.py") + ":choose"
    seq = ["ladder", "yuanzi", "--levels", f"random,greedy,{user}", "--games", 20,
           "--scripted-games", 60, "--deals", 20, "--quiet", "--until-decided",
           "--max-games", 40]  # fmt: skip
    code, _, err = cardsim(capsys, *seq, "--out", tmp_path / "a")
    assert code == 0, err
    stopped, looks = looks_of(tmp_path / "a")
    k = len(looks)
    assert [x["scripted_games"] for x in looks] == [60 * (i + 1) for i in range(k)]
    assert [x["games_per_level"] for x in looks] == [20 * (i + 1) for i in range(k)]
    games = {
        p.parent.name: int(runner.read_manifest(p.parent)["games"])
        for p in (tmp_path / "a").glob(f"*/{runner.MANIFEST}")
    }
    assert games == {"rating": 20 * k, "L0-random": 60 * k, "L1-greedy": 60 * k,
                     "L2-yuanzi_strategy-choose": 20 * k}  # fmt: skip
    assert f"({60 * k} per scripted level)" in answers(tmp_path / "a")[0]
    trends = _trends(tmp_path / "a")
    first = trends.filter(pl.col("measure").str.contains("excess")).row(0, named=True)
    assert (first["n_per_level"], first["n_per_level_max"]) == (20 * k, 60 * k)
    plain = ["ladder", "yuanzi", "--levels", f"random,greedy,{user}", "--games", 20 * k,
             "--scripted-games", 60 * k, "--deals", 20 * k, "--chunk-size", 20, "--quiet"]  # fmt: skip
    assert cardsim(capsys, *plain, "--out", tmp_path / "plain")[0] == 0
    same_runs(tmp_path / "a", tmp_path / "plain")
    # another --scripted-games is another plan: refused
    other = [*seq[:7], 80, *seq[8:]]
    code, _, err = cardsim(capsys, *other, "--out", tmp_path / "a")
    assert code == 2 and "different sequential ladder (scripted_games differ)" in err, err
    code, _, err = cardsim(capsys, *seq[:7], 0, *seq[8:], "--out", tmp_path / "z")
    assert code == 2 and "--scripted-games must be a positive integer" in err, err


def _trends(d: Path) -> pl.DataFrame:
    doc = json.loads((d / "ladder.json").read_text())
    t = doc["sections"]["ladder"]["tables"]["trends"]
    return pl.DataFrame(t["rows"])


def test_a_study_ladder_table_takes_scripted_games():
    from cardsim.workflows.ladder_plan import parse_ladder_table

    table = {"name": "l", "game": "atlas", "levels": ["random", "pimc"], "games": 10,
             "scripted_games": 500, "players": [3]}  # fmt: skip
    lad = parse_ladder_table(table, 0, "s.toml", set())
    assert {s.name: s.games for s in lad.scenarios} == {
        "l-p3-rating": 10, "l-p3-L0-random": 500, "l-p3-L1-pimc": 10,
    }  # fmt: skip
    with pytest.raises(CardsimError, match="scripted_games must be an integer"):
        parse_ladder_table({**table, "scripted_games": "many"}, 0, "s.toml", set())
