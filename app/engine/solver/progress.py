"""A small text progress bar for long offline runs (stderr)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``done/total`` with a bar, rate and time left, redrawn at most a few times a second."""

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None) -> None:
        self.total = max(total, 0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.note = ""
        self.start = time.monotonic()
        self._last = 0.0

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if note:
            self.note = note
        now = time.monotonic()
        if now - self._last >= 0.2 or self.done >= self.total:
            self._last = now
            self.draw()

    def render(self) -> str:
        width = 30
        frac = self.done / self.total if self.total else 1.0
        filled = int(width * frac)
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        bar = "#" * filled + "-" * (width - filled)
        return (
            f"{self.label} [{bar}] {self.done}/{self.total} {100 * frac:5.1f}% "
            f"{rate:6.1f}/s eta {int(left) // 60}m{int(left) % 60:02d}s {self.note}"
        )

    def draw(self) -> None:
        self.stream.write("\r" + self.render())
        self.stream.flush()

    def close(self) -> None:
        self.draw()
        self.stream.write("\n")
        self.stream.flush()
