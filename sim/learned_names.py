"""The parts of a learned strategy's name (``learned[:FILE.npz][,temp=T]``): plain text (only
the error type imported), so that the run identity (``cardsim.sim.game``) and the strategies (``sim/learned.py``)
read names the same way without an import circle."""

from __future__ import annotations

from cardsim.sim.errors import CardsimError


def split(name: str) -> tuple[str | None, str]:
    """(the weights file of ``learned:…`` or None for the built-in weights, the rest
    ``learned[:temp=T]``)."""
    head, _, tail = name.partition(":")
    if head != "learned":
        raise CardsimError(f"strategy {name!r} is not learned")
    items = tail.split(",") if tail else []
    files = [x for x in items if x and "=" not in x]
    rest = [x for x in items if x not in files]
    if len(files) > 1:
        raise CardsimError(f"strategy {name!r}: one weights file at most")
    base = "learned" + (":" + ",".join(rest) if rest else "")
    return (files[0] if files else None), base
