"""Pausing Python's cyclic garbage collector around work that allocates heavily.

Where it sits: a utility of the core, used by the ``.bib`` reader (a parse builds objects that all
stay alive), the style engine (formatting a bibliography builds millions of short-lived ones) and
the Sphinx domain around the book's resolution. Neither kind of work leaves cyclic garbage worth
collecting while it runs, and every collection the allocations set off rescans the young
generations, and now and then the whole heap of the host (docs/design/performance.md).
"""

from __future__ import annotations

import contextlib
import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


#: the container objects a pause must have made for :func:`paused_gc` to promote them (a
#: 300-entry file's parse makes ~10,000, a check of biblatex-examples.bib ~32,000, the first
#: formatting of a 300-entry book ~61,000; a serve rebuild's pauses fewer than 4,000)
PROMOTE_AT = 20_000


@contextlib.contextmanager
def paused_gc(*, lasting: bool = True) -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects that all stay alive.

    A parse (or a cache load) allocates two or three objects per field and frees none. With the
    collector running, CPython rescans the growing young generations again and again (as long
    as the parse itself on a 20,000-entry file); even after a pause, the first collection would
    scan them all once more. So on the way out the new objects go straight to the oldest
    generation (``freeze`` + ``unfreeze``), unless the program froze objects itself, which we
    must not undo. Nested use is fine; the previous state is restored.

    ``lasting=False``: what is made while paused does not outlive the caller's unit of work
    (a page's nodes, freed once Sphinx has written the page), so it stays young. Sent to the
    oldest generation, every page's tree, cyclic through its parent links, waited there for a
    full collection, which CPython runs only once the objects promoted since the last one
    reach a quarter of those it kept: a 300-entry Sphinx book's writing phase grew by 16 MB
    of dead pages (docs/design/performance.md).

    Small work is not promoted either (fewer than :data:`PROMOTE_AT` objects made): the freeze
    moves every young object of the process, the host's too, and in a long-running host
    (``mkdocs serve``) those were the last rebuild's pages, files and Markdown converters,
    cyclic, freed by the next rebuild, and then left in the oldest generation. Moved there
    this way they do not count towards the next full collection, so none came: the serve
    process grew by 4.5 MB per three rebuilds, without end. Left young, a few thousand objects
    cost the young collections next to nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    # the youngest generation's count goes on while the collector is off: one up per
    # container object made, one down per one freed, so what it gains is what the work made
    made_before = gc.get_count()[0]
    try:
        yield
    finally:
        if was_enabled:
            if (lasting and gc.get_freeze_count() == 0
                    and gc.get_count()[0] - made_before >= PROMOTE_AT):
                gc.freeze()
                gc.unfreeze()
            gc.enable()


#: holds True while :func:`hold_heap`'s freeze is in force (until :func:`release_heap`)
_HELD: list[bool] = []


def hold_heap() -> None:
    """Keep the collector off every object alive now, until :func:`release_heap`.

    For a phase that only adds short-lived objects to a large heap that stays: Sphinx's
    writing phase, after the environment (and the book refbook resolved into it) is complete.
    Each page's tree is cyclic (parent links) and freed only by the collector; CPython runs a
    full collection only once the objects promoted since the last one reach a quarter of those
    it kept, so a larger heap let more dead pages wait (16 MB for a 300-entry book), and each
    full collection rescanned the whole heap (80 ms). Frozen (``gc.freeze``), the heap is out
    of every collection: the pages' trees are collected young and cheaply. Nothing is lost:
    objects that die meanwhile are still freed by reference counting, and cyclic garbage among
    the frozen ones is collected after :func:`release_heap` (``gc.unfreeze``). A program that
    froze objects itself keeps its freeze (this then does nothing); calling it again before the
    release does nothing."""
    if _HELD or gc.get_freeze_count():
        return
    gc.freeze()
    _HELD.append(True)


def release_heap() -> None:
    """End :func:`hold_heap`'s freeze (nothing if none is in force)."""
    if _HELD:
        _HELD.clear()
        gc.unfreeze()


def settle_heap() -> None:
    """One full collection, for a long-running host about to wait for edits (``mkdocs serve``
    after its first build).

    CPython starts a full collection when the objects promoted to the oldest generation since
    the last one exceed a quarter of those that last one kept. :func:`paused_gc` moves what a
    large piece of work made straight there without counting it: after a first build of a
    20,000-entry book the oldest generation held ~650,000 objects while the last full
    collection (during the host's imports) had kept a few thousand, so the next full
    collection came at whatever rebuild made the count tip over, and scanned all of them:
    0.25-0.28 s in the middle of an edit's live preview (docs/design/performance.md,
    "Twentieth part"). Run here instead, it also frees the first build's cyclic garbage and
    leaves the collector's count true: later full collections come at CPython's usual rate.
    """
    gc.collect()


#: holds True once :func:`skip_final_collection` has registered its exit handler here
_AT_EXIT: list[bool] = []


def skip_final_collection() -> None:
    """At interpreter exit, spare the collector's last pass over the objects still alive.

    When a ``mkdocs build``, a ``sphinx-build`` or a ``refbook check`` returns, CPython's
    finalization runs one more full collection over every object left (the parsed entries,
    the caches and memos of a 20,000-entry book: millions of them) before freeing memory the
    operating system takes back anyway; that pass was 0.43 s of a 1.55 s warm MkDocs build
    (docs/design/performance.md). An exit handler moves them to the permanent generation first
    (``gc.freeze``), which that pass skips. Nothing else changes: exit handlers still run
    (this one is registered after the host's, so it runs before theirs, and freezing changes
    no object), and Python never promised to finalize objects alive at exit. Registered once
    per process, by the hosts and the CLI; a process that does not exit (tests building in
    the same process, ``mkdocs serve`` between rebuilds) is untouched until it does."""
    if _AT_EXIT:
        return
    import atexit

    atexit.register(gc.freeze)
    _AT_EXIT.append(True)
