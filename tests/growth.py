"""How the cost of a function grows when its input doubles: the scaling tests' one measure.

Tests never assert a wall-clock time; they compare the time of size N and 4N measured side by
side in the same run (best of three each, inputs built before the clock starts), so a loaded
machine slows both alike, and report the cost of one doubling: near 2 for a linear path, near
4 for a quadratic one.
"""

from __future__ import annotations

import gc
import itertools
import math
import time
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

T = TypeVar("T")

#: the ratio a scaling test allows: ~2.2 for linear work, with room for a busy machine
LIMIT = 3.0


def _best(prepare: Callable[[int, int], T], run: Callable[[T], object], n: int,
          repeats: int, attempts: Iterator[int]) -> float:
    best = float("inf")
    for _ in range(repeats):
        data = prepare(n, next(attempts))
        # The cycle collector is off while the clock runs: its full passes scan every object
        # of the process (other tests' too), so one would land in a run of one size and not
        # of the other, whatever the code under test does. (Its passes are amortized linear
        # in the allocations anyway.)
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run(data)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def doubling_ratio(prepare: Callable[[int, int], T], run: Callable[[T], object], n: int, *,
                   repeats: int = 3, tries: int = 3, limit: float = LIMIT,
                   min_seconds: float = 0.05, max_n: int = 4_000_000) -> float:
    """What doubling the input costs: the square root of ``time(run(prepare(4n)))`` /
    ``time(run(prepare(n)))`` (best of ``repeats`` each), about 2 for linear work, 4 for
    quadratic.

    ``prepare(size, attempt)`` builds the input untimed (``attempt`` never repeats, so data
    that varies with it is never answered by a cache). ``n`` is doubled first (up to
    ``max_n``) while one run takes less than ``min_seconds``, so timer noise cannot decide. A first ratio over ``limit`` is
    measured up to ``tries`` times in all and the best is returned: one stray pause can neither
    fail a linear path nor let a quadratic one pass.
    """
    attempts = itertools.count()  # every measurement gets fresh data, even when sizes repeat
    # grow a size too small to time into one that takes some tens of milliseconds
    while n < max_n and _best(prepare, run, n, 1, attempts) < min_seconds:
        n *= 2
    ratios: list[float] = []
    for _ in range(tries):
        small = _best(prepare, run, n, repeats, attempts)
        big = _best(prepare, run, 4 * n, repeats, attempts)
        # the mean ratio of the two doublings from n to 4n: noise in one size counts a
        # quarter as much as in a single doubling
        ratios.append(math.sqrt(big / max(small, 1e-9)))
        if ratios[0] <= limit:
            break
    return min(ratios)  # a quadratic path fails every try; one spoiled by load does not count
