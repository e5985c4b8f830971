"""ATLAS kernels name their numbers (issue 46 item 3): a loop over the cells, continents,
classes, card types, species or seats says so (``range(N_CELLS)``, not ``range(20)``)."""

from __future__ import annotations

import ast
from pathlib import Path

from cardsim.kernels.atlas import encoding as enc
from cardsim.kernels.atlas.state import MAX_PLAYERS

ROOT = Path(__file__).resolve().parents[3]
#: numbers that stand for a named constant when a loop runs over them
NAMED = {
    enc.N_CELLS: "N_CELLS",
    enc.N_CONTINENTS: "N_CONTINENTS",
    enc.N_TYPES: "N_TYPES",
    enc.N_SPECIES: "N_SPECIES",
    enc.HAND_SIZE: "HAND_SIZE",
    enc.MAX_SPECIAL: "MAX_SPECIAL",
    MAX_PLAYERS: "MAX_PLAYERS",
    enc.SPECIES_PER_CELL * enc.SPECIES_COPIES: "SPECIES_PER_CELL * SPECIES_COPIES",
}


def test_no_loop_over_a_bare_number_that_has_a_name():
    """Issue 46 item 3: no ``range(k)`` with a literal ``k`` that is one of the named counts of
    the ATLAS encoding (before: ``range(20)`` / ``range(5)`` over cells and continents in
    rules.py and strategies.py)."""
    found = []
    for path in sorted((ROOT / "kernels" / "atlas").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "range":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and arg.value in NAMED:
                        found.append(
                            f"{path.name}:{node.lineno} range({arg.value}): {NAMED[arg.value]}"
                        )
    assert found == []


def test_the_named_counts_are_the_rules_numbers():
    """AT-01, AT-02: 60 species in 20 cells of 3, 3 copies each, 4 specials of 6 copies: 204
    cards; the largest deck (12 of each special, AT-D2, AT-D3) 228."""
    assert enc.N_CELLS * enc.SPECIES_PER_CELL == enc.N_SPECIES
    assert enc.N_CELLS == enc.N_CONTINENTS * enc.N_CLASSES
    assert enc.N_SPECIES + enc.N_SPECIALS == enc.N_TYPES
    assert enc.N_CARDS == 204 and enc.MAX_CARDS == 228
    assert len(enc.canonical_deck()) == enc.N_CARDS
