"""Checking many entries on every core.

Where it sits: under :func:`refbook.validate.entry_facts`. A first build of a book on a shared
bibliography checks every entry (tens of thousands); the rules are pure Python, so one process
uses one core. :func:`map_entries` forks worker processes that check a slice of the entries each
(the entries and the rules are inherited, not sent; only the results come back) and falls back to
checking in this process when forking is not possible or not safe: few entries, one core, no
``fork`` on the platform (only Linux forks), other threads running (``mkdocs serve``), or
``REFBOOK_JOBS=1``. On a 2-core machine a cold check of 20,000 entries takes about 1.3× less time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from refbook.forking import can_fork, worker_count

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from refbook.config import Config

__all__ = ["can_fork", "map_entries", "worker_count"]

T = TypeVar("T")
X = TypeVar("X")
#: below this many entries, starting processes costs more than it saves
MIN_ENTRIES = 3000
#: what the forked workers inherit: (entries, config, function)
_JOB: tuple[Sequence[Any], Config, Callable[[Any, Config], Any]] | None = None


def _run(bounds: tuple[int, int]) -> bytes:
    """A worker's results, pickled as the sealed cache files are (``refbook.sealed.pickled``:
    value classes as ``cls(*fields)``): the executor's own pickling of 10,000 validation facts
    went through each record's generic ``__getstate__``/``__setstate__``."""
    from refbook.sealed import pickled

    assert _JOB is not None  # set before the fork
    entries, config, fn = _JOB
    return pickled([fn(e, config) for e in entries[bounds[0]:bounds[1]]])


def map_entries(fn: Callable[[X, Config], T], entries: Sequence[X], config: Config, *,
                min_entries: int = MIN_ENTRIES) -> list[T]:
    """``[fn(e, config) for e in entries]``, on several processes when that is safe and worth it
    (``entries``: entries, or what ``fn`` makes of each, e.g. an entry and its memo key)."""
    workers = min(worker_count(), 8)
    if len(entries) < max(min_entries, 1) or workers < 2 or not can_fork():
        return [fn(e, config) for e in entries]
    import multiprocessing  # here: a small book never pays for importing it
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        return [fn(e, config) for e in entries]
    global _JOB  # noqa: PLW0603 - the one way to hand a forked worker its input without pickling
    _JOB = (entries, config, fn)
    step = -(-len(entries) // workers)
    bounds = [(i, min(i + step, len(entries))) for i in range(0, len(entries), step)]
    try:
        # an executor, not a Pool: a worker that dies (killed, out of memory) breaks the
        # executor with an error instead of leaving map() waiting forever
        with ProcessPoolExecutor(len(bounds), mp_context=context) as pool:
            parts = [pickle.loads(b) for b in pool.map(_run, bounds)]  # noqa: S301 - our forks
    except Exception:  # a worker that cannot start or dies: check here instead
        return [fn(e, config) for e in entries]
    finally:
        _JOB = None
    return [x for part in parts for x in part]
