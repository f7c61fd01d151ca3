"""Work a Sphinx build does for refbook, counted (never timed).

Resolving the book (formatting every cited entry with the style engine) allocates millions of
short-lived objects; with the cyclic collector running, each few hundred of them set off a
collection that rescanned Sphinx's whole environment too (docs/design/performance.md, "Fourth
part"). The collector is paused while the book is resolved.
"""

from __future__ import annotations

import contextlib
import gc
import shutil
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


def test_writing_the_citations_and_lists_into_pages_sets_off_no_garbage_collection(
        copy_root: Callable[[str], Path], build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The post-transform that turns each page's citations and lists into nodes runs with the
    collector paused too (its node allocations set off full collections over the environment);
    the pages are the same as with the collector running (the control build)."""
    from sphinx_refbook import writer

    collections: list[int] = []
    runs: list[int] = []
    inside = [False]

    def count(phase: str, info: dict[str, int]) -> None:
        if inside[0] and phase == "start":
            collections.append(info["generation"])

    real = writer.ResolveCitations._run

    def running(self: Any, *args: Any) -> Any:
        runs.append(1)
        inside[0] = True
        try:
            return real(self, *args)
        finally:
            inside[0] = False

    def pages(root: Path) -> dict[str, str]:
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.txt"))}

    monkeypatch.setattr(writer.ResolveCitations, "_run", running)
    gc.callbacks.append(count)
    try:
        built = build(copy_root("modes"), "text")
    finally:
        gc.callbacks.remove(count)
    assert built.warnings == ""
    assert runs
    assert collections == []
    assert gc.isenabled()
    first = pages(built.outdir)
    shutil.rmtree(built.outdir)
    with monkeypatch.context() as m:  # the control: never paused, the same pages
        m.setattr(writer, "paused_gc", contextlib.nullcontext)
        again = build(built.srcdir, "text")
    assert pages(again.outdir) == first != {}
