"""Scaling checks shared by the tests: does the work grow linearly with a hostile input?

Never an absolute time: the same function is timed on inputs of size n, 2n and 4n in one run
(best of several repetitions each), and the growth from n to 4n must stay within
``per_doubling ** 2``. Linear work grows 4x over that span and quadratic work 16x, so the bound
(2.5 per doubling: 6.25x) separates them widely. A machine busy with other work can still
spoil one measurement, so a failing measurement is repeated (``attempts``): a truly quadratic
path fails every attempt.
"""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


def _best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def growth(make: Callable[[int], Callable[[], object]], n: int, *, repeat: int = 3) -> list[float]:
    """Times of ``make(size)()`` for sizes n, 2n, 4n, each relative to the first."""
    runs = [make(n * k) for k in (1, 2, 4)]
    times = [_best(run, repeat) for run in runs]
    return [t / times[0] for t in times]


def assert_linear(make: Callable[[int], Callable[[], object]], n: int, *,
                  per_doubling: float = 2.5, attempts: int = 3, repeat: int = 3) -> None:
    """Fail unless the work at 4n is at most ``per_doubling ** 2`` times the work at n.

    ``make(size)`` prepares the input of that size (untimed) and returns the call to time.
    """
    seen = []
    for _ in range(attempts):
        ratios = growth(make, n, repeat=repeat)
        seen.append(ratios)
        if ratios[2] <= per_doubling ** 2:
            return
    raise AssertionError(f"work grows faster than linearly: n, 2n, 4n cost {seen} "
                         f"(bound {per_doubling ** 2:.2f} at 4n)")
