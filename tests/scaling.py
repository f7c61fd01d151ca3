"""Scaling checks shared by the tests: does the work grow linearly with a hostile input?

Never an absolute time: ``tests.growth`` times the same function on inputs of size n and 4n in
one run (best of several repetitions each, a failing measurement repeated) and reports the cost
of one doubling, about 2 for linear work and 4 for quadratic. This module keeps the older call
shape (``make(size)`` returns the call to time) for the tests written against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests import growth

if TYPE_CHECKING:
    from collections.abc import Callable


def assert_linear(make: Callable[[int], Callable[[], object]], n: int, *,
                  per_doubling: float = 2.5) -> None:
    """Fail unless one doubling of the input costs at most ``per_doubling`` times the work.

    ``make(size)`` prepares the input of that size (untimed) and returns the call to time.
    """
    ratio = growth.doubling_ratio(lambda size, _attempt: make(size), lambda run: run(), n,
                                  limit=per_doubling)
    assert ratio <= per_doubling, (f"work grows faster than linearly: one doubling costs "
                                   f"{ratio:.2f}x (bound {per_doubling})")
