"""The readable reference rules of atlas (docs/RULES-atlas.md): the oracle the kernel is checked
against. Written from the rulings alone; it imports no kernel."""
