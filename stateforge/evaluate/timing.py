"""`Stopwatch`: wall and CPU milliseconds of the named parts of an episode.

    watch = Stopwatch()
    with watch.part("open"):
        ...
    watch.wall, watch.cpu          # {"open": 31.2}, {"open": 18.9}

CPU is the calling thread's (`time.thread_time`): an episode's DuckDB instances run one thread, the
caller's, so its queries count too, and other episodes running at once do not. On a loaded machine wall
time grows with the load and CPU time much less, so benchmarks compare the CPU figures.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class Stopwatch:
    """Milliseconds per part, wall and thread CPU (a part timed twice adds up)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        """Time the block as `name`."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.wall[name] = round(self.wall.get(name, 0.0) + (time.perf_counter() - wall) * 1000, 3)
            self.cpu[name] = round(self.cpu.get(name, 0.0) + (time.thread_time() - cpu) * 1000, 3)
