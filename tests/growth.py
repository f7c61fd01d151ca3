"""How the cost of a function grows when its input doubles: the scaling tests' one measure.

Tests never assert a wall-clock time; they compare the time of size N and 2N measured side by
side in the same run (best of three each, inputs built before the clock starts), so a loaded
machine slows both alike. A linear path gives a ratio near 2, a quadratic one near 4.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")

#: the ratio a scaling test allows: ~2.2 for linear work, with room for a busy machine
LIMIT = 3.0


def _best(prepare: Callable[[int, int], T], run: Callable[[T], object], n: int,
          repeats: int) -> float:
    best = float("inf")
    for attempt in range(repeats):
        data = prepare(n, attempt)
        start = time.perf_counter()
        run(data)
        best = min(best, time.perf_counter() - start)
    return best


def doubling_ratio(prepare: Callable[[int, int], T], run: Callable[[T], object], n: int, *,
                   repeats: int = 3, tries: int = 3, limit: float = LIMIT,
                   min_seconds: float = 0.03, max_n: int = 4_000_000) -> float:
    """``time(run(prepare(2n)))`` / ``time(run(prepare(n)))``, best of ``repeats`` each.

    ``prepare(size, attempt)`` builds the input untimed (``attempt`` lets it vary the data so
    no cache answers a repeat). ``n`` is doubled first (up to ``max_n``) while one run takes
    less than ``min_seconds``, so timer noise cannot decide. A ratio over ``limit`` is measured
    again, up to ``tries`` times, and the smallest is returned: a stray pause cannot fail a
    test, a real quadratic (about 4 every time) still does.
    """
    # grow a size too small to time into one that takes some tens of milliseconds
    while n < max_n and _best(prepare, run, n, 1) < min_seconds:
        n *= 2
    ratios: list[float] = []
    for _ in range(tries):
        small = _best(prepare, run, n, repeats)
        big = _best(prepare, run, 2 * n, repeats)
        ratios.append(big / max(small, 1e-9))
        if ratios[-1] <= limit:
            break
    return min(ratios)
