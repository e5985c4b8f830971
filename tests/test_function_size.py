"""Functions a reader can hold (issue 20 item 4).

No function in sim/, analysis/, cardsim/ or kernels/ is over MAX_LINES lines (def line to last
line, docstring included) or over MAX_COMPLEXITY cyclomatic complexity (radon's count). The
EXCEPTIONS list is empty since issue 46 split the last long kernels; an entry may only be
removed: a listed function back under both limits fails the test until it leaves the list, and
one that grows past its recorded size fails too.
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

MAX_LINES = 80
MAX_COMPLEXITY = 20
ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("sim", "analysis", "cardsim", "kernels")

# "path::qualified.name" -> (its recorded size: it may shrink, never grow; why it is still over)
EXCEPTIONS: dict[str, tuple[str, str]] = {}


def _blocks(path: Path):
    """Every function and method radon sees in one file (closures included)."""

    def walk(blocks, prefix=""):
        for block in blocks:
            kind = type(block).__name__
            name = f"{prefix}{block.name}"
            if kind == "Function":
                yield name, block
                yield from walk(block.closures, name + ".")
            elif kind == "Class":
                yield from walk(block.methods, name + ".")
                yield from walk(block.inner_classes, name + ".")

    yield from walk(cc_visit(path.read_text(encoding="utf-8")))


def _offenders() -> dict[str, str]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:  # generated (the user-strategy driver variants)
                continue
            rel = path.relative_to(ROOT).as_posix()
            for name, block in _blocks(path):
                lines = block.endline - block.lineno + 1
                problems = []
                if lines > MAX_LINES:
                    problems.append(f"{lines} lines > {MAX_LINES}")
                if block.complexity > MAX_COMPLEXITY:
                    problems.append(f"complexity {block.complexity} > {MAX_COMPLEXITY}")
                if problems:
                    found[f"{rel}::{name}"] = ", ".join(problems)
    return found


def test_no_function_over_the_limits():
    offenders = _offenders()
    new = {key: why for key, why in offenders.items() if key not in EXCEPTIONS}
    assert not new, "functions over the limits (split them):\n" + "\n".join(
        f"  {key}: {why}" for key, why in sorted(new.items())
    )


def _numbers(text: str) -> list[int]:
    """The measured sizes of a problem text: ``99 lines > 80, complexity 29 > 20`` → [99, 29]
    (0 for a limit the function is within)."""
    lines = next((int(p.split()[0]) for p in text.split(", ") if "lines" in p), 0)
    cc = next((int(p.split()[1]) for p in text.split(", ") if "complexity" in p), 0)
    return [lines, cc]


def test_exceptions_only_shrink():
    offenders = _offenders()
    fixed = sorted(key for key in EXCEPTIONS if key not in offenders)
    assert not fixed, "no longer over the limits, remove from EXCEPTIONS:\n" + "\n".join(
        f"  {key}" for key in fixed
    )
    grown = [
        f"  {key}: {offenders[key]} (recorded {size})"
        for key, (size, _) in sorted(EXCEPTIONS.items())
        if any(a > b for a, b in zip(_numbers(offenders[key]), _numbers(size), strict=True))
    ]
    assert not grown, "a listed function grew (split it instead):\n" + "\n".join(grown)


def test_the_measure_sees_functions():
    # The walk must see real functions, or the limits check nothing.
    names = dict(_blocks(ROOT / "tests" / "test_function_size.py"))
    assert "_offenders" in names and names["_offenders"].endline > names["_offenders"].lineno
