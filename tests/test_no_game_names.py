"""Shared code never names a game (issue 20 item 2).

Every string literal (docstrings aside: prose may give examples) and every identifier —
names, attributes, functions, classes, arguments, keywords, imports — of the shared code is
searched for a game's name, taken from the registry (``cardsim.sim.games.GAMES``; each game's
name and the name its notices use: 'yuanzi', '原子', 'atlas' in any case). Shared code is
every module of the installed packages (``cardsim/``, ``sim/``, ``kernels/``, ``analysis/``)
outside a game's own places:

- its engine package ``sim/games/<game>/`` (the reference rules inside, ``reference/``);
- its kernels ``kernels/<game>/``;
- its analysis package ``analysis/games/<game>/`` (declaration and report sections).

Comments are not searched. What must remain is listed in :data:`EXCEPTIONS`, each with the
reason; a listed exception that no longer occurs fails too (the list stays honest).
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

from cardsim.sim import games as registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cardsim", "sim", "kernels", "analysis")


def game_words(games: tuple[str, ...]) -> tuple[str, ...]:
    """The words that name the registry's games: each one's name and the name its notices
    use (``Warmup.name``: '原子', 'ATLAS'), lower case (the search ignores case)."""
    words = []
    for game in games:
        words.append(game)
        warmup = getattr(registry.get_engine(game), "warmup", None)
        if warmup is not None:
            words.append(warmup.name)
    return tuple(dict.fromkeys(w.lower() for w in words))


WORDS = game_words(registry.GAMES)  # ('yuanzi', '原子', 'atlas')
PATTERN = re.compile("|".join(map(re.escape, WORDS)), re.IGNORECASE)


def is_per_game(path: str, games: tuple[str, ...] | None = None) -> bool:
    """Whether ``path`` (repository-relative) is one game's own module (``games``: the
    registry's)."""
    for game in registry.GAMES if games is None else games:
        if path.startswith((f"sim/games/{game}/", f"kernels/{game}/", f"analysis/games/{game}/")):
            return True
    return False


#: (path, the text found) -> why it stays.
EXCEPTIONS = {
    ("sim/games/__init__.py", "yuanzi"): "GAMES, the registry of the built-in game packages: "
    "the one place a built-in game is listed (its order is the order of every listing)",
    ("sim/games/__init__.py", "atlas"): "GAMES, as above",
    ("sim/python_sdk.py", "cardsim.sim.games.yuanzi.sdk"): "the former import path of 原子's "
    "Python SDK, kept so that user strategy files written against it still run",
    ("cardsim/workflows/study.py", "# A cardsim balance study. Format: docs/study.md."): "the "
    "study template (``cardsim study --template``) names the built-in games' scenarios; moving "
    "its text into the game packages waits for the concurrent study-workflow changes (left to "
    "do, docs/architecture.md)",
    ("cardsim/workflows/study.py", 'name = "cardsim default balance study"'): "the default "
    "study's text, as above",
}
#: An exception's text is the whole literal or identifier, or (at least this long) a part of
#: one long literal.
LONG = 30


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _texts(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword):
        return [node.arg or ""]
    return []


def shared_files() -> list[str]:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *PACKAGES],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    return sorted(f for f in files if f.endswith(".py") and not is_per_game(f))


def game_names_in(path: str, source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal or identifier of ``source`` naming a game."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        for text in _texts(node):
            if text and PATTERN.search(text):
                found.append((getattr(node, "lineno", 0), text))
    return sorted(set(found))


def _excepted(path: str, text: str) -> tuple[str, str] | None:
    for key in EXCEPTIONS:
        if key[0] == path and (key[1] == text or (len(key[1]) >= LONG and key[1] in text)):
            return key
    return None


def test_shared_code_names_no_game():
    bad, used = [], set()
    for path in shared_files():
        for line, text in game_names_in(path, (ROOT / path).read_text()):
            key = _excepted(path, text)
            if key is None:
                bad.append(f"{path}:{line}: {text[:70]!r}")
            else:
                used.add(key)
    assert not bad, "shared code names a game:\n" + "\n".join(bad)
    assert used == set(EXCEPTIONS), f"exceptions that no longer occur: {set(EXCEPTIONS) - used}"


def test_the_check_sees_what_it_must():
    """A planted literal, identifier and import are found; a comment and a docstring are not."""
    src = (
        '"""about 原子"""\n'
        "# yuanzi in a comment\n"
        "from cardsim.kernels.atlas import driver\n"
        "def play_yuanzi(x):\n"
        '    """ATLAS docs."""\n'
        '    return x == "ATLAS"\n'
    )
    texts = {t for _, t in game_names_in("x.py", src)}
    assert texts == {"cardsim.kernels.atlas", "play_yuanzi", "ATLAS"}


def test_per_game_places():
    assert is_per_game("sim/games/atlas/adapter.py") and is_per_game("kernels/yuanzi/rules.py")
    assert is_per_game("analysis/games/yuanzi/dao.py") and is_per_game(
        "analysis/games/atlas/__init__.py"
    )
    assert is_per_game("sim/games/atlas/reference/melds.py")
    assert not is_per_game("analysis/games/__init__.py") and not is_per_game("sim/warmup.py")


def test_a_game_added_to_the_registry_is_searched_for_and_owns_its_places(monkeypatch):
    """The words and the per-game places come from the registry (``GAMES``), not a list here:
    a game registered beside the built-ins is searched for and its packages are its own."""
    import tests.fake_engine  # noqa: F401  (registers the game "fake")

    assert set(WORDS) == {"yuanzi", "原子", "atlas"}
    monkeypatch.setattr(registry, "GAMES", (*registry.GAMES, "fake"))
    assert "fake" in game_words(registry.GAMES)
    assert is_per_game("kernels/fake/driver.py") and is_per_game("analysis/games/fake/__init__.py")
    assert not is_per_game("kernels/fake/driver.py", ("yuanzi", "atlas"))
