"""How result objects show themselves in a notebook: ``_repr_html_`` of a dataclass.

Every result the Python API returns (``RunResult``, ``StudyResult``, ``LadderResult``,
``ReportResult``, ``Run``) defines ``_repr_html_`` as :func:`html_of`: a small two-column table
of its fields, paths and texts escaped, long lists and mappings cut to their first entries.
"""

from __future__ import annotations

import html
from dataclasses import fields, is_dataclass
from pathlib import Path

#: Entries of a list or mapping shown before "… and N more".
MAX_ITEMS = 8
#: Characters of one value shown before it is cut.
MAX_TEXT = 300


def _value(v: object) -> str:
    if isinstance(v, Path):
        return f"<code>{html.escape(str(v))}</code>"
    if isinstance(v, float):
        return html.escape(f"{v:,.2f}")
    if isinstance(v, int) and not isinstance(v, bool):
        return html.escape(f"{v:,}")
    if isinstance(v, dict):
        if not v:
            return "—"
        items = [f"{html.escape(str(k))}: {_value(x)}" for k, x in list(v.items())[:MAX_ITEMS]]
        return "<br>".join(items + _more(len(v)))
    if isinstance(v, list | tuple):
        if not v:
            return "—"
        return "<br>".join([_value(x) for x in v[:MAX_ITEMS]] + _more(len(v)))
    if v is None:
        return "—"
    text = str(v)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + " …"
    return html.escape(text)


def _more(n: int) -> list[str]:
    return [f"… and {n - MAX_ITEMS:,} more"] if n > MAX_ITEMS else []


def html_of(obj: object, title: str, skip: tuple[str, ...] = ()) -> str:
    """A dataclass as a small HTML table under ``title`` (fields in ``skip`` left out).

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class R:
    ...     out: Path
    ...     games: int
    >>> text = html_of(R(Path("runs/x"), 1000), "run")
    >>> "<code>runs/x</code>" in text and "<td style='text-align:left'>1,000</td>" in text
    True
    """
    if not is_dataclass(obj):
        raise TypeError(f"html_of needs a dataclass instance, got {type(obj).__name__}")
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(f.name)}</th>"
        f"<td style='text-align:left'>{_value(getattr(obj, f.name))}</td></tr>"
        for f in fields(obj)
        if f.name not in skip
    )
    return f"<div><strong>{html.escape(title)}</strong><table>{rows}</table></div>"
