"""Cache files store refbook's value classes as ``cls(*fields)`` (``refbook.sealed``'s dispatch
table), not through the slotted dataclasses' generic ``__getstate__``: what is read back equals
what was written, and the generic path is not taken at all (counted with a spy, never timed)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from refbook import sealed
from refbook.csl import Item, Name
from refbook.items import items_for
from refbook.models import Entry
from refbook.readers import read_bibliography
from refbook.records import fields, is_record
from refbook.registry import Registry, Resolution
from refbook.styles import get_style
from refbook.syntax import find_citations

BIB = """@article{doe2020, author = {Doe, Jane and Roe, Richard}, title = {A study of {GPU} caches},
  journal = {J. Caches}, year = {2020}, volume = {3}, pages = {1--10}, doi = {not a doi}}
@book{knuth1984, author = {Donald E. Knuth}, title = {The {\\TeX}book}, year = 1984,
  publisher = {Addison-Wesley}}
@misc{odd, title = {No author}, year = {20x0}, month = {jan}}
"""


OUTPUT = "refbook.styles.csl.output"


def _classes() -> list[type]:
    return [getattr(importlib.import_module(module), name)
            for module, names in sealed._VALUE_CLASSES.items() for name in names]


def test_every_listed_class_is_a_frozen_slotted_record_built_from_its_init_fields() -> None:
    for cls in _classes():
        assert is_record(cls), cls
        # the output tree's nodes are not frozen, but nothing changes them once built
        assert cls.__record_frozen__ or cls.__module__ == OUTPUT, cls  # type: ignore[attr-defined]
        assert "__slots__" in cls.__dict__, cls
        derived = [f.name for f in fields(cls) if not f.init]
        # a field __init__ does not take must be one __post_init__ rebuilds, or a cache
        # computed on first use (Item's hash: never stored, string hashes vary per process;
        # Entry's validation digest)
        assert derived == {Entry: ["_by_name", "_digest"], Item: ["_hash", "_anon"],
                           Name: ["_hash"]}.get(cls, []), cls
        assert cls in sealed.dispatch_table(), cls


def _book(tmp_path: Path) -> tuple[object, Resolution]:
    bib_file = tmp_path / "refs.bib"
    bib_file.write_text(BIB, encoding="utf-8")
    bib = read_bibliography([bib_file])
    style = get_style("chicago-author-date")
    items = items_for(bib, style.language)
    reg = Registry()
    reg.set_document("ch1", find_citations("[@doe2020; @knuth1984, p. 3] and @odd and [@nokey]"))
    resolution = reg.resolve(bib, items, style)
    return {(e, "en-US"): items[e.key] for e in bib}, resolution


def test_cache_values_read_back_equal_without_the_generic_getstate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items, resolution = _book(tmp_path)
    assert resolution.diagnostics  # the unknown key: diagnostics are stored too
    generic: list[str] = []
    for cls in _classes():
        real = cls.__getstate__  # type: ignore[attr-defined]

        def spy(self: object, real: object = real) -> object:
            generic.append(type(self).__name__)
            return real(self)  # type: ignore[operator]

        monkeypatch.setattr(cls, "__getstate__", spy)
    for name, value in (("items.pickle", items), ("resolution.pickle", resolution)):
        assert sealed.dump(value, tmp_path / name)
        again = sealed.load(tmp_path / name)
        assert again == value
        assert type(again) is type(value)
    assert generic == []
    # an Entry read back answers field lookups (its derived index was rebuilt)
    entry = next(iter(items))[0]
    again_items = sealed.load(tmp_path / "items.pickle")
    assert isinstance(again_items, dict)
    again_entry = next(iter(again_items))[0]
    assert again_entry.get("title") == entry.get("title") != ""


def test_files_written_the_generic_way_still_load(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _, resolution = _book(tmp_path)
    monkeypatch.setattr(sealed, "dispatch_table", dict)  # no reducers: the generic form
    assert sealed.dump(resolution, tmp_path / "resolution.pickle")
    monkeypatch.undo()
    assert sealed.load(tmp_path / "resolution.pickle") == resolution
