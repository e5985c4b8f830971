"""Issue 45 ("Trust at the edges, round 2"), items 3 and 12 (and the folder parts of 10 and 11):
strict JSON from one encoder, TOML from a TOML writer, one writer per folder (sub-runs, other
threads), one folder one product, and the minor refusals."""

from __future__ import annotations

import json
import math
import threading
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cardsim.sim import jsonio, rundir, runner
from cardsim.sim.config import build_config
from cardsim.sim.errors import CardsimError

import tests.test_tune  # noqa: F401  (registers the "tunable" fake engine)
from tests.fake_engine import FakeEngine


def strict(text: str | bytes):
    """json.loads that refuses NaN / Infinity (what a strict parser does)."""

    def refuse(name):
        raise ValueError(f"bare {name}")

    return json.loads(text, parse_constant=refuse)


def strict_files(folder: Path) -> list[Path]:
    """Every .json file under ``folder`` parsed strictly, plus every part's JSON metadata."""
    files = sorted(folder.rglob("*.json"))
    for f in files:
        strict(f.read_bytes())
    for part in folder.rglob("part-*.parquet"):
        for k, v in pl.read_parquet_metadata(part).items():
            if k in ("cardsim.seats", "cardsim.rules", "cardsim.assignments"):
                strict(v)
    return files


# --- item 3: one strict encoder -------------------------------------------------------------


def test_3_the_encoder_writes_null_for_every_non_finite_number():
    """issue 45 item 3: NaN / inf (Python's and NumPy's, in arrays too) become null."""
    doc = {
        "a": math.nan, "b": [math.inf, -math.inf, 1.5], "c": np.float32("nan"),
        "d": np.int64(3), "e": np.array([1.0, np.nan]), "f": (np.float64("inf"),),
    }  # fmt: skip
    text = jsonio.dumps(doc, indent=1)
    assert strict(text) == {"a": None, "b": [None, None, 1.5], "c": None, "d": 3,
                            "e": [1.0, None], "f": [None]}  # fmt: skip
    with pytest.raises(ValueError):
        jsonio.strict_loads('{"x": NaN}')


def test_3_tune_json_is_strict_json_after_verify(tmp_path):
    """issue 45 item 3: tune.json held bare NaN (p_tost, needed) whenever verify ran; every
    JSON file of the folder (verify study report, run manifests, part metadata) is strict."""
    from cardsim.workflows.tune import tune

    out = tmp_path / "t"
    tune("tunable", "first_excess", out=out, options="cap=5..7", budget=1_200, seed=2,
         progress=False, min_games=100, verify_games=300)  # fmt: skip
    doc = strict((out / "tune.json").read_bytes())
    assert doc["configurations"] == 3
    assert doc["verification"]
    names = {p.name for p in strict_files(out)}
    assert {"tune.json", "tune-manifest.json", "manifest.json", "report.json"} <= names


def test_3_every_writer_goes_through_the_one_encoder():
    """issue 45 item 3: no module of the package calls json.dump(s) itself but sim/jsonio.py
    (a hash of a document is not a file: study.py's identity digest is the one exception)."""
    root = Path(__file__).resolve().parents[1]
    offenders = []
    for folder in ("sim", "analysis", "cardsim"):
        for f in (root / folder).rglob("*.py"):
            if f.name == "jsonio.py":
                continue
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if ("json.dumps(" in line or "json.dump(" in line) and "hashlib" not in line:
                    offenders.append(f"{f.relative_to(root)}:{n}")
    assert offenders == []
