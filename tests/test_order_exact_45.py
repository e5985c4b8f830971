"""Order-exact report numbers (issue 45 item 11): the same data, split into parts or batches in
another order, give bit-identical means and SDs (two identical ladders printed floats differing
in the last bits: Polars' streaming ``std`` merges partial float states in arrival order)."""

import json

import numpy as np
import polars as pl
import pytest
from cardsim.analysis.exprs import length_summary
from cardsim.analysis.ladder import clustered_mean

RNG = np.random.default_rng(5)
PARTS = [pl.DataFrame({"y": RNG.integers(0, 200, RNG.integers(50, 500))}) for _ in range(12)]
ORDERS = [RNG.permutation(len(PARTS)) for _ in range(8)]


def _split(order) -> pl.LazyFrame:
    return pl.concat([PARTS[i].lazy() for i in order])


def test_mean_sd_is_the_same_in_every_part_order():
    """issue 45 item 11: integer-valued columns from integer sums: one answer per data set."""
    from cardsim.analysis.exprs import mean_sd

    got = {mean_sd(_split(o), pl.col("y")) for o in ORDERS}
    assert len(got) == 1
    n, mean, sd = got.pop()
    y = pl.concat(PARTS)["y"].to_numpy()
    assert n == y.size and mean == pytest.approx(y.mean()) and sd == pytest.approx(y.std(ddof=1))


def test_mean_sd_of_non_integer_values_is_order_exact():
    """issue 45 item 11: other values are summed in value order (fsum), not arrival order."""
    from cardsim.analysis.exprs import mean_sd

    parts = [p.with_columns(pl.col("y") / 7.0) for p in PARTS]
    got = {mean_sd(pl.concat([parts[i].lazy() for i in o]), pl.col("y")) for o in ORDERS}
    assert len(got) == 1


def test_length_summary_and_ladder_mean_are_order_exact():
    """issue 45 item 11: the report's length summary (melds per round) and the ladder's plain
    mean (its `sd / √n` interval) agree to the last bit over part orders."""
    summaries = {
        _split(o).select(length_summary(pl.col("y"))[:3]).collect(engine="streaming").row(0)
        for o in ORDERS
    }
    assert len(summaries) == 1
    ladder = {tuple(clustered_mean(_split(o), pl.col("y"), None).values()) for o in ORDERS}
    assert len(ladder) == 1


def _numbers(path) -> dict:
    def flat(x, p=""):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from flat(v, f"{p}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from flat(v, f"{p}[{i}]")
        elif isinstance(x, float):
            yield p, x

    return dict(flat(json.loads(path.read_text())))


@pytest.mark.heavy
def test_report_numbers_do_not_depend_on_the_parts(tmp_path):
    """issue 45 item 11: one ATLAS run played in 8 parts and in 1 part (same seed, same games):
    every float of the two reports' JSON is bit-identical."""
    import cardsim

    nums = []
    for k, chunk in enumerate((250, 2000)):
        run = tmp_path / f"r{k}"
        cardsim.run("atlas", run, games=2000, seed=3, chunk_size=chunk)
        cardsim.report(run, tmp_path / f"r{k}.md", json_out=tmp_path / f"r{k}.json")
        nums.append(_numbers(tmp_path / f"r{k}.json"))
    assert nums[0].keys() == nums[1].keys() and len(nums[0]) > 100
    differ = {k: (a, nums[1][k]) for k, a in nums[0].items() if a != nums[1][k]
              and not (a != a and nums[1][k] != nums[1][k])}  # fmt: skip
    assert not differ
