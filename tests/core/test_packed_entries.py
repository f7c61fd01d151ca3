"""Entries loaded from the cache folder build their fields when first read
(``refbook.models.PackedEntry``): an incremental build that re-cites reads the cited entries and
the keys of the rest. Checked on every real file of the shared test data: the entries of a
cache load are the entries of a fresh parse in every respect (equality both ways, hash, repr,
fields, look-ups, pickles, crossref resolution), and a load builds no fields until asked
(counted, never timed)."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING

import pytest

from refbook import bibcache
from refbook.models import Entry, PackedEntry, field_names
from refbook.readers import chunks, read_bibliography
from refbook.records import replace
from refbook.validate import _signature
from tests.conftest import SEED, TESTDATA

if TYPE_CHECKING:
    from pathlib import Path

FILES = [SEED / "references.raw.bib", *sorted(TESTDATA.rglob("*.bib"))]


def _forget() -> None:
    """As a new process: nothing held in memory, only the cache folder."""
    bibcache.clear_memory_cache()
    chunks.clear_memory()


def _built(entries: tuple[Entry, ...]) -> int:
    return sum(1 for e in entries if type(e) is PackedEntry and e._packed is None)


def test_a_cache_load_gives_the_entries_of_a_fresh_parse(tmp_path: Path) -> None:
    assert len(FILES) > 100
    packed_files = 0
    for n, path in enumerate(FILES):
        folder = tmp_path / str(n)
        _forget()
        fresh = read_bibliography([path])
        _forget()
        read_bibliography([path], cache_dir=folder)  # writes the folder
        _forget()
        loaded = read_bibliography([path], cache_dir=folder)
        packed = [e for e in loaded.entries if type(e) is PackedEntry]
        if not packed:
            continue  # a file the cache does not store packed (entries of other files)
        packed_files += 1
        # compared before anything reads a field: equality builds them, look-ups must not
        for e, f in zip(loaded.entries, fresh.entries, strict=True):
            assert (e.key, e.type, e.location) == (f.key, f.type, f.location)
            for name in ("title", "author", "crossref", "refbook-ignore", "nosuchfield"):
                assert (name in e) == (name in f)
            assert list(field_names(e)) == [x.name for x in f.fields]
            # validation's memo key, made from the packed triples
            assert _signature(e) == _signature(f)
        if not any("crossref" in f or "xdata" in f for f in fresh.entries):
            assert _built(loaded.entries) == 0  # (crossref resolution reads the fields)
        assert loaded == fresh
        assert fresh == loaded
        assert loaded.diagnostics == fresh.diagnostics
        for e, f in zip(loaded.entries, fresh.entries, strict=True):
            assert e == f
            assert f == e
            assert not e != f  # noqa: SIM202 - __ne__ itself
            assert hash(e) == hash(f)
            assert repr(e) == repr(f)
            assert e.fields == f.fields
            assert {x.name: e.get(x.name) for x in f.fields} == {
                x.name: f.get(x.name) for x in f.fields}
            assert all(e.field(x.name) == f.field(x.name) for x in f.fields)
            again = pickle.loads(pickle.dumps(e))
            assert type(again) is Entry
            assert again == f
    assert packed_files > 100


def test_a_load_builds_only_the_fields_asked_for(tmp_path: Path) -> None:
    path = SEED / "references.raw.bib"
    # as a new process: a parse of the file that an earlier test left in memory would be
    # given back without writing the cache folder (then the load below parses afresh)
    _forget()
    read_bibliography([path], cache_dir=tmp_path)
    _forget()
    bib = read_bibliography([path], cache_dir=tmp_path)
    entries = bib.entries
    assert len(entries) > 200
    assert all(type(e) is PackedEntry for e in entries)
    assert _built(entries) == 0
    # what a re-citing build asks of every entry: its key, whether it holds a field
    assert len(bib.keys()) == len(entries)
    assert sum(1 for e in entries if "refbook-ignore" in e) == 0
    assert _built(entries) == 0
    # one cited entry read: only it is built
    one = bib[entries[7].key]
    assert one.get("title")
    assert _built(entries) == 1
    assert one._packed is None  # the packed triples are let go
    # the control: reading every entry builds every entry
    assert all(e.fields for e in entries)
    assert _built(entries) == len(entries)


def test_a_packed_entry_replaced_or_shifted_is_a_whole_entry() -> None:
    from refbook.models import Location, fields_from, packed_entry

    triples = (("title", "A {B}", 4), ("year", "2020", 5))
    e = packed_entry("f.bib", "k", "article", 3, triples, shift=10)
    assert e.location == Location("f.bib", 13)
    whole = Entry("k", "article", fields_from("f.bib", (
        ("title", "A {B}", 14), ("year", "2020", 15))), Location("f.bib", 13))
    # validation's memo key from the triples: that of the built entry, no field built for it
    assert _signature(e) == _signature(whole)
    assert e._packed is not None
    # and it changes with a value or with a field's line within the entry, as the built one's
    for changed in ((("title", "A {B}", 4), ("year", "2021", 5)),
                    (("title", "A {B}", 4), ("year", "2020", 6))):
        assert _signature(packed_entry("f.bib", "k", "article", 3, changed, shift=10)) != (
            _signature(e))
    assert e == whole
    other = replace(e, key="z")
    assert other.key == "z"
    assert "year" in other
    assert other.get("title") == "A {B}"
    with pytest.raises(AttributeError):
        e.no_such_attribute  # noqa: B018 - an unknown attribute still raises


def test_crossrefs_resolve_from_a_cache_load(tmp_path: Path) -> None:
    bib = tmp_path / "x.bib"
    bib.write_text("@book{parent,\n  title = {The Whole},\n  publisher = {P},\n  year = {2001}\n}\n\n"
                   "@inbook{child,\n  crossref = {parent},\n  title = {A Part},\n  author = {A. B}\n}\n",
                   encoding="utf-8")
    fresh = read_bibliography([bib])
    _forget()
    read_bibliography([bib], cache_dir=tmp_path / "c")
    _forget()
    loaded = read_bibliography([bib], cache_dir=tmp_path / "c")
    assert type(loaded.entries[0]) is PackedEntry
    assert loaded["child"].get("booktitle") == "The Whole" == fresh["child"].get("booktitle")
    assert loaded == fresh
