"""A user strategy that never returns, for the Ctrl-C tests: it prints (Numba's print) once it
loops, so a test signals a process that is really inside the strategy."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

SOURCE = (
    "def choose(own, played, pub, legal, n_legal, rng):\n"
    '    print("stuck: entering the loop")\n'
    "    i = 1\n"
    "    while i > 0:\n"
    "        i = (i * 5 + 3) % 1000003 + 1\n"
    "    return 0\n"
)


def write(folder: Path) -> Path:
    """The strategy file ``folder/stuck.py`` (function ``choose``, 原子's signature)."""
    path = folder / "stuck.py"
    path.write_text(SOURCE)
    return path


def wait_until_looping(p: subprocess.Popen) -> None:
    """Return once process ``p`` (text stdout) prints that the strategy loops."""
    looping = threading.Event()

    def watch():
        for line in p.stdout:
            if "entering the loop" in line:
                looping.set()

    threading.Thread(target=watch, daemon=True).start()
    assert looping.wait(600), "the strategy never started (compiling took over 10 minutes?)"
