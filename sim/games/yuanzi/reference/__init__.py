"""The readable reference rules of yuanzi (docs/RULES-yuanzi.md): the oracle the kernel is checked
against. Written from the rulings alone; it imports no kernel."""
