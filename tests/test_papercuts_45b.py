"""First-use papercuts, the rest of issue 45 item 10, and order-exact report sums (item 11)."""

from types import SimpleNamespace

import polars as pl
import pytest
from cardsim.sim.errors import CardsimError
from cardsim.sim.games import get_engine

import cardsim


def test_engine_unknown_strategy_suggests_the_close_name():
    """issue 45 item 10: the engines' own "unknown strategy" lines offer "did you mean"."""
    atlas = get_engine("atlas")
    config = SimpleNamespace(players=4, seats=("gready",) * 4, rules={})
    with pytest.raises(CardsimError, match="did you mean 'greedy'"):
        atlas.seat_ids(config)
    with pytest.raises(CardsimError, match="did you mean 'greedy'"):
        get_engine("yuanzi").strategy_ids(("gready",) * 4)


def test_every_part_carries_every_enum_category(tmp_path):
    """issue 45 item 10: a part's Enum columns carry their full category list, not only the
    values present (pandas saw 6 of 8 ``end`` values): read back with pyarrow (as pandas does)."""
    pq = pytest.importorskip("pyarrow.parquet")
    run = tmp_path / "r"
    cardsim.run("atlas", run, games=12, seed=1)
    part = run / "games" / "part-00000.parquet"
    schema = pl.read_parquet_schema(part)
    ends = pl.read_parquet(part)["end"]
    assert ends.n_unique() < len(schema["end"].categories)  # some `end` values absent here
    table = pq.read_table(part)
    enums = [n for n, d in schema.items() if isinstance(d, pl.Enum)]
    assert "end" in enums
    for name in enums:
        for chunk in table.column(name).chunks:
            assert chunk.dictionary.to_pylist() == list(schema[name].categories), name


def test_docs_list_the_atlas_decision_constants_in_full():
    """issue 45 item 10: docs/strategies.md lists every decision constant a ``py:`` ATLAS
    strategy compares ``dtype`` with, with its value (``SELF`` was guessed for ``SELF_MELD``)."""
    import re
    from pathlib import Path

    from cardsim.sim.games.atlas.reference import rules as ref

    text = (Path(__file__).parents[1] / "docs" / "strategies.md").read_text()
    rows = dict(re.findall(r"^\| `([A-Z_]+)` \| (\d) \|", text, re.M))
    assert len(rows) == len(ref.DECISION_NAMES) == 6
    for name, value in rows.items():
        assert getattr(ref, name) == int(value), name


@pytest.mark.heavy
def test_strategy_check_stops_at_the_first_exception():
    """issue 45 item 10: a ``py:`` strategy using an undefined constant failed every decision of
    every game (132 s) before the report; the check stops at its first exception."""
    from pathlib import Path

    from cardsim.workflows.strategy_check import check

    spec = Path(__file__).parent / "user_strategy_files" / "undefined_constant.py"
    lines: list[str] = []
    code = check("atlas", f"py:{spec}:choose", games=3, echo=lines.append)
    assert code == 1
    stopped = [x for x in lines if "STOPPED at the first exception" in x]
    assert len(stopped) == 1 and "game 0, decision 0" in stopped[0]
    assert "has no attribute 'SELF'" in stopped[0]
    assert not any(x.startswith("vs ") for x in lines)  # no comparison


def test_compare_header_counts_deals_and_rounds(tmp_path):
    """issue 45 item 10: the report of a comparison said "4,000 games" for 4,000 deals played
    in 4 seat assignments (16,000 rounds): it says deals, assignments and rounds."""
    from cardsim.analysis.io import open_run
    from cardsim.analysis.report import config_section

    out = tmp_path / "c"
    cardsim.compare("atlas", ["random", "greedy", "careful"], out, games=5,
                    rules={"rounds": 2})  # fmt: skip
    run = open_run(out)
    sec = config_section([run], ["c"], [])
    cell = sec.tables[0].df["games"][0]
    a = len(run.assignments)  # 4 seats: the 3 strategies rotated over 4 assignments
    assert cell == f"5 of 5 deals × {a} seat assignments = {5 * a} games, {10 * a} rounds"


def test_reference_rows_read_reference(tmp_path):
    """issue 45 item 10: the rating model's reference strategy and position 0 are fixed at 0:
    their rows read "reference", not "0 [0, 0]"."""
    from cardsim.analysis.model import display_rows
    from cardsim.analysis.report import build_report

    out = tmp_path / "c"
    cardsim.compare("atlas", ["greedy", "careful"], out, games=30, seed=2)
    report = build_report([out], only={"duplicate"})
    tables = {t.key: t for s in report.sections for t in s.tables}
    for key, col in (("ratings", "rating"), ("position", "effect")):
        head, rows = display_rows(tables[key])
        j = next(i for i, h in enumerate(head) if h.startswith(col))
        cells = [r[j] for r in rows]
        assert cells.count("reference") == 1, (key, cells)
        assert not any(c.startswith("0 [0, 0]") or c == "0.00 [0.00, 0.00]" for c in cells)
        assert "reference" not in head  # the marker column itself is hidden


def _shown(table) -> tuple[list[str], list[list[str]]]:
    from cardsim.analysis.model import Table, display_rows

    df = table.display if table.display is not None else table.df
    return display_rows(Table(table.key, table.title, df, table.percent))


def test_no_filler_rows_and_words_not_snake_case(tmp_path):
    """issue 45 item 10: a share of nothing ("0.0 % ± 2.3 % of rounds end with no winner and
    0.0 % ± 2.3 % hit the turn cap") is no Answer and an end no round reached no table row;
    labels are words ("last card paired by a draw", not ``last_card_draw``; the headline
    measures by their label, not ``first_side_wins``); the JSON keeps every row and name."""
    from cardsim.analysis.report import build_report

    cardsim.run("atlas", tmp_path / "r", games=30, seed=1)
    report = build_report([tmp_path / "r"], only={"atlas_end", "measures"})
    ends = report.runs[0].games.select("end").collect()["end"].cast(pl.String)
    assert "no_winner" not in ends.to_list() and "turn_cap" not in ends.to_list()
    texts = [f.text for _, f in report.findings]
    assert not any("no winner" in t or "turn cap" in t for t in texts), texts
    tables = {t.key: t for s in report.sections for t in s.tables}
    head, rows = _shown(tables["ends"])
    assert len(rows) == ends.n_unique() and not any(r[1] == "0" for r in rows)
    assert all("_" not in r[0] for r in rows)
    assert tables["ends"].df.height == 8  # the JSON: every end, zero-filled
    head, rows = _shown(tables["table"])
    assert "measure" not in head and all("_" not in r[0] for r in rows)
    notes = [n for s in report.sections for n in s.notes]
    assert any("never seen (0 rounds each)" in n and "no winner" in n for n in notes)


def test_yuanzi_bomb_kinds_in_words(tmp_path):
    """issue 45 item 10: the bombs table says "刀 bombs", not ``dao_bombs``."""
    from cardsim.analysis.report import build_report

    cardsim.run("yuanzi", tmp_path / "y", games=10, seed=1)
    report = build_report([tmp_path / "y"], only={"yuanzi_bombs"})
    table = next(t for s in report.sections for t in s.tables if t.key == "summary")
    _head, rows = _shown(table)
    kinds = {r[1] for r in rows}
    assert "刀 bombs" in kinds and not any("_" in k for k in kinds)
    assert "dao_bombs" in table.df["kind"].to_list()  # the JSON keeps the name


def test_an_equivalent_verdict_prints_one_p_value_the_tost_one():
    """issue 45 item 10: "Equivalent within ±1 point (TOST p = 0.000). (Holm-adjusted p =
    1.000)" printed two p-values; one is left, and it says it is the TOST one."""
    import re

    from cardsim.analysis import render, verdicts
    from cardsim.analysis.model import Finding

    f = Finding("a differs", "a vs b: +0.05 ± 0.3 points.", pvalue=0.9, estimate=0.0005,
                se=0.001, n=40_000, margin=0.01, measure="rate", unit="round")  # fmt: skip
    verdicts.judge([("s", f)])
    assert f.verdict == "equivalent"
    line = f.text + render._p_text(f)
    assert len(re.findall(r"\bp [=<]", line)) == 1, line
    assert "TOST p" in line and "Holm" not in line
