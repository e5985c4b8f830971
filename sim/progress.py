"""The progress display of runs, on stderr: a live bar in a terminal, plain lines otherwise.

In a terminal the bar (tqdm) moves at every :meth:`Progress.advance` (the runner calls it per
sub-chunk) and counts in the run's unit (``games``; ``deals`` for duplicate-deal comparisons).
When stderr is not a terminal (a log file, CI) it writes plain lines instead — no carriage
returns — at most one every ``interval`` seconds, plus the last one. Disabled (``--quiet``), it
writes nothing at all; errors are not its business.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

#: Seconds between two plain progress lines when stderr is not a terminal.
PLAIN_INTERVAL_S = 10.0


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal (a live bar) rather than a file or pipe."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """Progress of one run: ``done`` of ``total`` units, labelled ``label``.

    ``message(text)`` prints a notice (``cardsim: text``) above the bar; ``advance(n)`` counts
    ``n`` more units; ``close()`` ends the display. ``t0`` is the start of the rate clock: the
    runner resets it after compiling, so rate and ETA count play only.
    """

    def __init__(
        self,
        total: int,
        done: int,
        label: str,
        enabled: bool,
        unit: str = "games",
        *,
        stream: TextIO | None = None,
        interval: float = PLAIN_INTERVAL_S,
    ) -> None:
        self.total, self.done, self.label, self.enabled, self.unit = (
            total,
            done,
            label,
            enabled,
            unit,
        )
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.start_done = done
        self._t0 = time.perf_counter()
        self._last_line: float | None = None  # when the last plain line was written
        self._printed_done: int | None = None
        self._bar = None
        if enabled and is_terminal(self.stream):
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=done,
                desc=label,
                unit=f" {unit}",
                file=self.stream,
                dynamic_ncols=True,
                mininterval=0.2,
                smoothing=0.3,
                leave=True,
            )

    @property
    def t0(self) -> float:
        """``time.perf_counter()`` at the start of the rate clock."""
        return self._t0

    @t0.setter
    def t0(self, value: float) -> None:
        self._t0 = value
        self.start_done = self.done
        if self._bar is not None:  # tqdm keeps its own clock (time.time)
            self._bar.start_t = self._bar._time() - (time.perf_counter() - value)
            self._bar.initial = self.done
            self._bar.last_print_n = self.done
            self._bar.last_print_t = self._bar._time()  # the rate's first sample: play only

    def message(self, text: str) -> None:
        """A one-line notice, ``cardsim: text`` (nothing when disabled)."""
        if not self.enabled:
            return
        line = f"cardsim: {text}"
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def rate(self) -> float:
        """Units per second since ``t0``."""
        elapsed = max(time.perf_counter() - self._t0, 1e-9)
        return (self.done - self.start_done) / elapsed

    def line(self) -> str:
        """The plain progress line: label, done/total in the unit, percent, rate, ETA."""
        rate = self.rate()
        left = max(self.total - self.done, 0)
        eta = f"ETA {left / rate:,.0f} s" if rate > 0 and left else "done" if not left else ""
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (
            f"{self.label}: {self.done:,}/{self.total:,} {self.unit} ({pct:.0f} %), "
            f"{rate:,.0f} {self.unit}/s, {eta}".rstrip(", ")
        )

    def advance(self, n: int) -> None:
        """Count ``n`` more units done."""
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.perf_counter()
        due = self._last_line is None or now - self._last_line >= self.interval
        if due or self.done >= self.total:
            self._plain()

    def _plain(self) -> None:
        print(self.line(), file=self.stream, flush=True)
        self._last_line, self._printed_done = time.perf_counter(), self.done

    def close(self) -> None:
        """End the display (the last plain line shows where the run stopped)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._printed_done != self.done and self.done > self.start_done:
            self._plain()
