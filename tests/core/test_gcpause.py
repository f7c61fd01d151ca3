"""``refbook.gcpause``: where a pause sends what was made during it, and the heap held out of
the collector while a host writes pages. Checked through the collector's generations and its
freeze count, in this process (each test restores what it changed); never timed."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from refbook import gcpause


class _Cyclic:
    """A cyclic object (as a page's tree, through its parent links): only the collector
    frees it."""

    def __init__(self) -> None:
        self.me: Any = self


def _generation_of(obj: object) -> int | None:
    for generation in range(3):
        if any(o is obj for o in gc.get_objects(generation=generation)):
            return generation
    return None  # frozen, or not tracked


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Thresholds far above what a test allocates: an object then stays in the generation a
    pause left it in (the look-ups themselves allocate, and would set off collections)."""
    before = gc.get_threshold()
    gc.set_threshold(10**9, 10**9, 10**9)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@pytest.mark.usefixtures("no_automatic_collection")
def test_what_a_large_lasting_pause_makes_goes_to_the_oldest_generation() -> None:
    assert gc.get_freeze_count() == 0
    with gcpause.paused_gc():
        made = [_Cyclic() for _ in range(2 * gcpause.PROMOTE_AT)]
    assert gc.isenabled()
    assert _generation_of(made[0]) == 2
    assert _generation_of(made) == 2


@pytest.mark.usefixtures("no_automatic_collection")
def test_what_a_small_lasting_pause_makes_stays_young() -> None:
    # a serve rebuild's pauses: promoting would move the host's young objects too
    assert gc.get_freeze_count() == 0
    with gcpause.paused_gc():
        made = [_Cyclic() for _ in range(gcpause.PROMOTE_AT // 4)]
    assert gc.isenabled()
    assert _generation_of(made[0]) == 0


@pytest.mark.usefixtures("no_automatic_collection")
def test_objects_made_and_freed_during_a_pause_do_not_count() -> None:
    assert gc.get_freeze_count() == 0
    with gcpause.paused_gc():
        for _ in range(gcpause.PROMOTE_AT):
            gone = [[]]  # two containers, freed at the next turn
        del gone
        made = _Cyclic()
    assert _generation_of(made) == 0


def test_what_a_passing_pause_makes_stays_young_and_is_collected_young() -> None:
    assert gc.get_freeze_count() == 0
    with gcpause.paused_gc(lasting=False):
        made = _Cyclic()
    assert gc.isenabled()
    assert _generation_of(made) == 0
    # dead, it goes with a collection of the youngest generation: no full collection needed
    import weakref

    gone = weakref.ref(made)
    del made
    gc.collect(generation=0)
    assert gone() is None


def test_the_held_heap_is_out_of_every_collection_until_released() -> None:
    assert gc.get_freeze_count() == 0
    before = _Cyclic()
    gcpause.hold_heap()
    try:
        assert gc.get_freeze_count() > 0
        assert _generation_of(before) is None  # frozen: no collection scans it
        gcpause.hold_heap()  # again: nothing more
        after = _Cyclic()
        assert _generation_of(after) == 0  # made while held: young, collected as usual
    finally:
        gcpause.release_heap()
    assert gc.get_freeze_count() == 0
    assert _generation_of(before) == 2  # back to the collector
    gcpause.release_heap()  # again: nothing


def test_a_freeze_of_the_program_itself_is_neither_taken_nor_undone() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        gcpause.hold_heap()
        mine = _Cyclic()
        assert _generation_of(mine) == 0  # not frozen by hold_heap
        gcpause.release_heap()
        assert gc.get_freeze_count() == frozen  # the program's freeze stays
        with gcpause.paused_gc():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
