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
    from collections.abc import Callable, Iterator
    from pathlib import Path


class _Collections:
    """The collections that start while a wrapped function runs (``gc.callbacks``), and how
    many times it ran."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.runs = 0
        self._inside = False

    def wrap(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def inside(*args: Any, **kw: Any) -> Any:
            self.runs += 1
            self._inside = True
            try:
                return real(*args, **kw)
            finally:
                self._inside = False

        return inside

    def _count(self, phase: str, info: dict[str, int]) -> None:
        if self._inside and phase == "start":
            self.seen.append(info["generation"])

    @contextlib.contextmanager
    def listening(self) -> Iterator[None]:
        gc.callbacks.append(self._count)
        try:
            yield
        finally:
            gc.callbacks.remove(self._count)


def test_resolving_the_book_sets_off_no_garbage_collection(
        copy_root: Callable[[str], Path], build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (with the collector running, this test book's resolution sets off 64)
    counted = _Collections()
    monkeypatch.setattr(book_module, "resolve_book", counted.wrap(book_module.resolve_book))
    with counted.listening():
        built = build(copy_root("modes"), "text")
    assert built.warnings == ""
    assert counted.runs == 1
    assert counted.seen == []
    assert gc.isenabled()


def test_writing_the_citations_and_lists_into_pages_sets_off_no_garbage_collection(
        copy_root: Callable[[str], Path], build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The post-transform that turns each page's citations and lists into nodes runs with the
    collector paused too (its node allocations set off full collections over the environment);
    the pages are the same as with the collector running (the control build)."""
    from sphinx_refbook import writer

    def pages(root: Path) -> dict[str, str]:
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.txt"))}

    counted = _Collections()
    monkeypatch.setattr(writer.ResolveCitations, "_run",
                        counted.wrap(writer.ResolveCitations._run))
    with counted.listening():
        built = build(copy_root("modes"), "text")
    assert built.warnings == ""
    assert counted.runs
    assert counted.seen == []
    assert gc.isenabled()
    first = pages(built.outdir)
    shutil.rmtree(built.outdir)
    with monkeypatch.context() as m:  # the control: never paused, the same pages
        m.setattr(writer, "paused_gc", lambda **_: contextlib.nullcontext())
        again = build(built.srcdir, "text")
    assert pages(again.outdir) == first != {}


@pytest.mark.parametrize("settings", [
    {},  # info, the default: the first ones and a count
    {"per_entry_ignore": {"e0003": ["unused-entry"], "e0500": ["unused-entry"]}},
    {"severity": {"unused-entry": "warning"}},  # each one
    {"ignore": ["unused-entry"]},
])
def test_unused_entry_infos_are_what_configuring_every_diagnostic_gives(
        tmp_path: Path, settings: dict[str, Any]) -> None:
    """The book's unused-entry infos, made only for the entries the log shows, are exactly
    those of making one diagnostic per unused entry, configuring them all and summing them up
    (two files, so that the order by place differs from the bibliography's; entries that
    suppress the code themselves, or through the configuration)."""
    from refbook.config import Config
    from refbook.diagnostics import Code
    from refbook.readers import read_bibliography
    from refbook.validate import apply_config
    from refbook.validate.citations import unused_entries
    from sphinx_refbook.book import _summed_up, _unused_infos

    def entry(i: int, ignore: bool = False) -> str:
        extra = "  refbook-ignore = {unused-entry},\n" if ignore else ""
        return f"@book{{e{i:04d},\n  title = {{T{i}}},\n{extra}  year = {{2001}},\n}}\n\n"

    b_file, a_file = tmp_path / "b.bib", tmp_path / "a.bib"
    b_file.write_text("".join(entry(i, ignore=i % 97 == 5) for i in range(600)),
                      encoding="utf-8")
    a_file.write_text("".join(entry(i) for i in range(600, 700)), encoding="utf-8")
    bib = read_bibliography([str(b_file), str(a_file)])
    check = Config.from_mapping(settings)
    for used in ({f"e{i:04d}" for i in range(0, 700, 3)}, {f"e{i:04d}" for i in range(696)},
                 set()):
        every = _summed_up(apply_config(unused_entries(bib, used, syntaxes=("rst",)) if
                                        check.enabled(Code.UNUSED_ENTRY) else [], check, bib))
        assert _unused_infos(bib, used, check, ("rst",)) == every
