"""The documentation covers what users see: every command, option, rule option, strategy and
output column is named in README.md or docs/."""

import importlib
import re
from pathlib import Path

import pytest
from cardsim.sim.config import build_config
from cardsim.sim.games import GAMES, get_engine
from cardsim.sim.schema import TableSchema, markdown_table

from cardsim.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def text(*names):
    return "\n".join((ROOT / n).read_text(encoding="utf-8") for n in names)


def test_readme_has_exactly_the_two_setup_commands_ci_uses():
    readme = text("README.md")
    assert ".venv/bin/pip install -e . && .venv/bin/cardsim study" in readme
    test_cmd = '.venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest -q -n auto'
    assert test_cmd in readme
    ci = text(".ci/run")
    assert 'pip install -q -e ".[test]"' in ci and "-m pytest -q -n auto" in ci


def test_every_command_and_option_is_documented():
    # docs/cli.md is the reference; a command's own page (docs/report.md, docs/study.md) counts
    docs = text("README.md", *sorted(p.relative_to(ROOT) for p in ROOT.glob("docs/*.md")))
    for name, command in cli.commands.items():
        assert f"cardsim {name}" in docs, name
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and opt != "--help":
                    assert opt in docs, f"{name} {opt}"


def check_doc(text: str, schema: TableSchema) -> str | None:
    """None if ``text`` holds the schema's table between its markers, else what is wrong."""
    start, end = f"<!-- schema:{schema.name} -->\n", f"<!-- /schema:{schema.name} -->"
    if start not in text or end not in text:
        return f"markers {start.strip()} … {end} missing"
    block = text.split(start, 1)[1].split(end, 1)[0]
    return None if block == markdown_table(schema) else "table differs from the schema"


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_option_and_strategy_is_documented(game):
    engine = get_engine(game)
    rules_doc = text(f"docs/RULES-{game}.md")
    for o in engine.rule_options:
        assert o.name in rules_doc, o.name
        assert o.ruling in rules_doc, o.ruling
    strategies_doc = text("docs/strategies.md")
    for s in engine.strategies:
        assert re.search(rf"`{re.escape(s.name)}`", strategies_doc), s.name


@pytest.mark.parametrize("game", GAMES)
def test_every_output_column_is_documented(game):
    from cardsim.sim.compare import DuplicateEngine, build_compare_config

    engine = get_engine(game)
    games, seats = engine.play_chunk(build_config(engine, games=3, seed=1), 0, 3)
    cmp = build_compare_config(engine, ["greedy", "random"], games=3, seed=1)
    cmp_games, cmp_seats = DuplicateEngine(engine).play_chunk(cmp, 0, 3)
    assert "assignment" in cmp_games.columns and "assignment" in cmp_seats.columns
    doc = text(f"docs/{game}-columns.md")
    tables = importlib.import_module(f"cardsim.sim.games.{game}.tables")
    for schema in (tables.GAMES, tables.SEATS):  # the generated tables match the declarations
        assert check_doc(doc, schema) is None, (
            f"docs/{game}-columns.md {schema.name}: run python -m cardsim.sim.schema"
        )
    documented = set(re.findall(r"`([A-Za-z0-9_]+)`", doc))
    for col in {*games.columns, *seats.columns, *cmp_games.columns, *cmp_seats.columns}:
        generic = re.sub(r"\d+", "N", col)  # e.g. points_0_s2 documented as points_N_sN
        assert col in documented or generic in documented, (
            f"{game}: column {col} is not documented in docs/{game}-columns.md"
        )


def test_the_documented_sql_of_the_atlas_end_column_runs(tmp_path):
    """Issue 19 #19: ``end`` is reserved in SQL; the quoted query of docs/atlas-columns.md runs
    on a real ATLAS run in Polars SQL (and in DuckDB, which refuses it unquoted, if installed)."""
    import polars as pl
    from cardsim.sim.runner import run

    out = tmp_path / "atlas"
    run(build_config(get_engine("atlas"), games=20, seed=1), out, progress=False)
    doc = text("docs/atlas-columns.md")
    query = re.search(r"```sql\n(.*?)```", doc, re.S).group(1)
    assert '"end"' in query
    query = query.replace("runs/atlas", str(out))
    rounds = pl.sql(query).collect()
    assert rounds["rounds"].sum() == 20 and rounds.columns == ["end", "rounds"]
    try:
        import duckdb
    except ImportError:
        return
    assert dict(duckdb.sql(query).fetchall()) == dict(rounds.iter_rows())
    with pytest.raises(duckdb.ParserException, match="end"):
        duckdb.sql(query.replace('"end"', "end")).fetchall()
