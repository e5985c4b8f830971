"""No dead code in sim/, analysis/, cardsim/ or kernels/ (issue 20 item 4): vulture, at
MIN_CONFIDENCE, finds no unused function, class, variable, attribute or import there.

Uses in tests/, benchmarks/ and examples/ count (they are read too, not reported); names used
where vulture cannot see it (click, pydantic, strings, NumPy records) are listed, each with its
reason, in tests/vulture_whitelist.py. Dead code found here is removed, not whitelisted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

vulture = pytest.importorskip("vulture")

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("sim", "analysis", "cardsim", "kernels")
#: read for their uses of the checked code, not reported
READ = ("tests", "benchmarks", "examples")
MIN_CONFIDENCE = 60


def unused(also: Path | None = None) -> list[str]:
    """``path:line: message`` of every unused name in the checked folders (and ``also``)."""
    v = vulture.Vulture(verbose=False)
    paths = [ROOT / p for p in (*CHECKED, *READ)] + ([also] if also else [])
    v.scavenge([str(p) for p in paths], exclude=["*/__pycache__/*"])
    found = []
    for item in v.get_unused_code(min_confidence=MIN_CONFIDENCE):
        path = Path(item.filename).resolve()
        if also and path.is_relative_to(also):
            rel = path.relative_to(also).as_posix()
        elif path.relative_to(ROOT).parts[0] in CHECKED:
            rel = path.relative_to(ROOT).as_posix()
        else:
            continue
        found.append(f"{rel}:{item.first_lineno}: {item.message} ({item.confidence}%)")
    return sorted(found)


def test_no_dead_code():
    found = unused()
    assert not found, (
        "dead code (remove it; if it is used where vulture cannot see, add it to "
        "tests/vulture_whitelist.py with the reason):\n" + "\n".join(found)
    )


def test_every_whitelist_entry_has_a_reason():
    lines = (ROOT / "tests" / "vulture_whitelist.py").read_text(encoding="utf-8").splitlines()
    entries = [line for line in lines if line.startswith("_.")]
    assert entries and all("  # " in line for line in entries)


@pytest.mark.heavy
def test_the_check_sees_dead_code(tmp_path):
    # a function nobody calls, and an unused import, are reported (a folder checked beside
    # the real ones: the source tree is left alone)
    (tmp_path / "probe.py").write_text(
        "import xml as _probe_xml\n\n\ndef _never_called():\n    return 1\n", encoding="utf-8"
    )
    found = unused(tmp_path.resolve())
    assert "probe.py:4: unused function '_never_called' (60%)" in found
    assert "probe.py:1: unused import '_probe_xml' (90%)" in found
