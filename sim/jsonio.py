"""The one JSON encoder every cardsim writer uses (issue 45 item 3).

Strict JSON only: a number that is not finite (an estimate that does not exist, a bound
that is not there) is written as ``null``, never as the bare ``NaN`` / ``Infinity`` tokens
that Python's :mod:`json` writes by default and that strict parsers (JavaScript, ``jq``,
most JSON libraries) refuse. ``allow_nan=False`` makes any value that slipped past the
cleaning an error rather than invalid output. NumPy scalars are written as plain numbers.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (NumPy's too) replaced by ``None``, NumPy
    scalars made plain Python numbers, tuples made lists, recursively."""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return finite(value.item())  # a NumPy scalar (no NumPy import here)
    return value


def _default(value: Any) -> Any:
    """What a value JSON has no type for becomes: a NumPy scalar or array its Python
    value (non-finite floats inside as null), anything else its text (a path, a date)."""
    if hasattr(value, "tolist"):
        return finite(value.tolist())
    return str(value)


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as strict JSON text (UTF-8 characters kept, non-finite numbers as null)."""
    return json.dumps(
        finite(value),
        indent=indent,
        sort_keys=sort_keys,
        ensure_ascii=False,
        allow_nan=False,
        default=_default,
    )


def dump_bytes(value: Any, *, indent: int | None = None) -> bytes:
    """:func:`dumps` encoded as UTF-8 (what a file receives)."""
    return dumps(value, indent=indent).encode("utf-8")
