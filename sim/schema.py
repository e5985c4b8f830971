"""Output schema v2: each game declares its tables once, as a list of :class:`Column` rows.

Both kernels hand the engine a structured NumPy record array per table (raw fields, compact
integer types, the kernel's sentinels); :func:`build_frame` turns it into the published Polars
table: v2 names, Enums with readable labels, nulls for what does not exist. The declarations
are also what docs/<game>-columns.md is checked against (tests/test_docs.py).

Naming scheme (all tables): halves are a prefix (``h1_``, ``h2_``), seats a suffix ``_sN``,
teams a suffix ``_tN``; no other suffixes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

SCHEMA_VERSION = 2

#: Pattern variables: ``{h}`` half 1/2, ``{s}`` seat, ``{t}`` team.
_VARS = ("h", "s", "t")


@dataclass(frozen=True)
class Context:
    """What a table's columns depend on besides the kernel's records."""

    players: int
    seat_labels: tuple[str, ...]  # the strategy label of each seat
    labels: tuple[str, ...]  # every strategy label of the run: the strategy Enum's categories

    @property
    def strategy_dtype(self) -> pl.Enum:
        return pl.Enum(list(self.labels))


@dataclass(frozen=True)
class Column:
    """One published column (or a family of them, by pattern), declared once.

    ``raw`` names the record field it comes from (a pattern: ``{h0}`` is the 0-based half);
    ``labels`` make it an Enum decoded from the raw codes 0, 1, …; ``expr`` replaces ``raw``
    with any expression of the raw fields; ``null_if`` gives the rows where it does not exist.
    """

    pattern: str
    dtype: pl.DataType | Callable[[Context], pl.DataType]
    doc: str
    raw: str | None = None
    labels: tuple[str, ...] = ()
    expr: Callable[[Context, dict], pl.Expr] | None = None
    null_if: Callable[[dict], pl.Expr] | None = None
    halves: tuple[int, ...] = (1, 2)
    null_doc: str = "null where it does not exist"

    def variables(self) -> tuple[str, ...]:
        return tuple(v for v in _VARS if "{" + v + "}" in self.pattern)

    def expand(self, ctx: Context) -> list[tuple[str, dict]]:
        """Concrete (name, variables) pairs of this column for a context."""
        ranges = {"h": self.halves, "s": range(ctx.players), "t": (0, 1)}
        names = self.variables()
        out = []
        for values in itertools.product(*(ranges[v] for v in names)):
            env = dict(zip(names, values, strict=True))
            if "h" in env:
                env["h0"] = env["h"] - 1
            out.append((self.pattern.format(**env), env))
        return out

    def type_of(self, ctx: Context) -> pl.DataType:
        if self.labels:
            return pl.Enum(list(self.labels))
        return self.dtype if _is_dtype(self.dtype) else self.dtype(ctx)

    def build(self, ctx: Context, env: dict) -> pl.Expr:
        dtype = self.type_of(ctx)
        if self.expr is not None:
            e = self.expr(ctx, env)
        else:
            e = pl.col((self.raw or self.pattern).format(**env))
        if self.labels:
            e = e.cast(pl.Int64).replace_strict(
                dict(enumerate(self.labels)), default=None, return_dtype=pl.String
            )
        e = e.cast(dtype)
        if self.null_if is not None:
            e = pl.when(self.null_if(env)).then(None).otherwise(e)
        return e

    def doc_type(self) -> str:
        if self.labels or not _is_dtype(self.dtype):
            return "Enum"
        return str(self.dtype)


def _is_dtype(x: object) -> bool:
    return isinstance(x, pl.DataType) or (isinstance(x, type) and issubclass(x, pl.DataType))


@dataclass(frozen=True)
class TableSchema:
    """The published columns of one table, in order."""

    name: str  # "games" / "seats"
    columns: tuple[Column, ...]
    extra: dict = field(default_factory=dict)

    def expanded(self, ctx: Context) -> list[tuple[Column, str, dict]]:
        """Every concrete column in table order: a run of half columns is written half by half
        (all ``h1_`` fields, then all ``h2_`` fields)."""
        out: list[tuple[Column, str, dict]] = []
        group: list[Column] = []

        def flush() -> None:
            pairs = [(c, n, env) for c in group for n, env in c.expand(ctx)]
            out.extend(sorted(pairs, key=lambda p: p[2]["h"]))  # stable: declaration order kept
            group.clear()

        for c in self.columns:
            if "h" in c.variables():
                group.append(c)
                continue
            flush()
            out.extend((c, n, env) for n, env in c.expand(ctx))
        flush()
        return out

    def names(self, ctx: Context) -> list[str]:
        return [n for _, n, _ in self.expanded(ctx)]


def build_frame(records: np.ndarray, schema: TableSchema, ctx: Context) -> pl.DataFrame:
    """The published table of a chunk's raw records (``schema`` applied in one select)."""
    raw = pl.from_numpy(records)
    exprs = [c.build(ctx, env).alias(n) for c, n, env in schema.expanded(ctx)]
    return raw.select(exprs)


def strategy_label(name: str) -> str:
    """The label a strategy has in tables and reports: a user file as ``stem:function``.

    >>> strategy_label("/home/me/bots/mybot.py:choose"), strategy_label("greedy@2")
    ('mybot:choose', 'greedy@2')
    """
    from cardsim.sim.user_strategies import label  # the one user-strategy mechanism

    return label(name)


def context_for(players: int, seats: Sequence[str], all_names: Sequence[str] = ()) -> Context:
    """The :class:`Context` of a run: per-seat labels and the sorted label set (the Enum)."""
    seat_labels = tuple(strategy_label(s) for s in seats)
    labels = sorted({*seat_labels, *(strategy_label(s) for s in all_names)})
    return Context(players=players, seat_labels=seat_labels, labels=tuple(labels))


def doc_name(pattern: str) -> str:
    """A column pattern as documented: every variable written ``N`` (``hN_finish_sN``)."""
    for v in _VARS:
        pattern = pattern.replace("{" + v + "}", "N")
    return pattern


def markdown_table(schema: TableSchema) -> str:
    """The documentation table of a schema (docs/<game>-columns.md holds exactly this)."""
    rows = ["| column | type | meaning |", "|---|---|---|"]
    for c in schema.columns:
        doc = c.doc
        if len(c.labels) > 16:
            doc += f" — Enum of {len(c.labels)} labels, in card-id order"
        elif c.labels:
            doc += " — Enum: " + ", ".join(f"`{x}`" for x in c.labels)
        if c.null_if is not None:
            doc += f"; {c.null_doc}"
        rows.append(f"| `{doc_name(c.pattern)}` | {c.doc_type()} | {doc} |")
    return "\n".join(rows) + "\n"


def write_doc(path: Path, schemas: Sequence[TableSchema]) -> None:
    """Rewrite the schema tables between their markers in ``path`` (``python -m cardsim.sim.schema``)."""
    text = path.read_text()
    for schema in schemas:
        start, end = f"<!-- schema:{schema.name} -->\n", f"<!-- /schema:{schema.name} -->"
        head, rest = text.split(start, 1)
        text = head + start + markdown_table(schema) + end + rest.split(end, 1)[1]
    path.write_text(text)


if __name__ == "__main__":  # regenerate docs/<game>-columns.md tables
    import importlib

    from cardsim.sim.games import GAMES

    docs = Path(__file__).resolve().parent.parent / "docs"
    for game in GAMES:  # each game package's tables.py declares GAMES and SEATS
        tables = importlib.import_module(f"cardsim.sim.games.{game}.tables")
        write_doc(docs / f"{game}-columns.md", (tables.GAMES, tables.SEATS))
