"""Work a Sphinx build does for refbook, counted (never timed).

Resolving the book (formatting every cited entry with the style engine) allocates millions of
short-lived objects; with the cyclic collector running, each few hundred of them set off a
collection that rescanned Sphinx's whole environment too (docs/design/performance.md, "Fourth
part"). The collector is paused while the book is resolved.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

import pytest

import sphinx_refbook.book as book_module

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def test_resolving_the_book_sets_off_no_garbage_collection(
        copy_root: Callable[[str], Path], build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    collections: list[int] = []
    inside = [False]

    def count(phase: str, info: dict[str, int]) -> None:
        if inside[0] and phase == "start":
            collections.append(info["generation"])

    real = book_module.resolve_book
    calls: list[int] = []

    def resolving(**kw: Any) -> Any:
        calls.append(1)
        inside[0] = True
        try:
            # (with the collector running, this test book's resolution sets off 64)
            return real(**kw)
        finally:
            inside[0] = False

    monkeypatch.setattr(book_module, "resolve_book", resolving)
    gc.callbacks.append(count)
    try:
        built = build(copy_root("modes"), "text")
    finally:
        gc.callbacks.remove(count)
    assert built.warnings == ""
    assert calls == [1]
    assert collections == []
    assert gc.isenabled()
