"""Whether this process may fork helpers, and how many cores they may use.

Where it sits: under the three places that fork — ``refbook.validate.workers`` (checking a big
bibliography's entries), ``refbook.readers.split`` (parsing a big file) and
``refbook.sealed.flush_in_background`` (writing a build's cache files while the host writes
its pages). Each falls back to doing its work in this process when :func:`can_fork` says no.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["can_fork", "worker_count"]


def worker_count() -> int:
    """How many processes may share a task (``REFBOOK_JOBS`` overrides the cores available)."""
    wanted = os.environ.get("REFBOOK_JOBS", "").strip()
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may fork: Linux (macOS: fork is unsafe, Windows: none) and no other
    thread running (``mkdocs serve``: a thread holding a lock at the fork would leave it held in
    the child forever)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1
