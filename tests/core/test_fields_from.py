"""Fast constructors: ``refbook.models.fields_from`` builds the fields of a cache load without the dataclasses'
``__init__`` (twice as fast on 164,000 fields): what it builds must be what the constructors
build, on every field of the real files in ``shared/testdata``, through the reader's own
pack/unpack round trip (the disk cache's form); ``Diagnostic.at`` (a diagnostic relocated, as
hosts do for tens of thousands) is ``refbook.records.replace``."""

from __future__ import annotations

import pickle
from pathlib import Path

from refbook import bibcache, readers, sealed
from refbook.models import Field, Location, fields_from
from refbook.readers import parse_bibtex
from tests.conftest import SEED, TESTDATA

REAL_FILES = sorted(p for p in TESTDATA.rglob("*") if p.suffix in (".bib", ".bibtex"))


def test_fields_from_builds_what_the_constructors_build() -> None:
    packed = [("title", "A {B} c", 3), ("author", "Doe, J.", 4)]
    built = fields_from("x.bib", packed)
    made = tuple(Field(n, v, Location("x.bib", ln)) for n, v, ln in packed)
    assert built == made
    assert [hash(f) for f in built] == [hash(f) for f in made]
    assert [(f.name, f.value, f.location.file, f.location.line) for f in built] == [
        (n, v, "x.bib", ln) for n, v, ln in packed]
    assert pickle.loads(pickle.dumps(built)) == made
    assert str(built[0].location) == "x.bib:3"


def test_a_cache_round_trip_gives_the_parsed_entries_on_real_files(tmp_path: Path) -> None:
    seen = 0
    for n, path in enumerate([*REAL_FILES, SEED / "references.raw.bib"]):
        name = str(path)
        parsed = parse_bibtex(path.read_text(encoding="utf-8", errors="replace"), name)
        assert readers._packable(parsed, name)
        # written in parts of 7 entries (several parts per file, each with a fresh memo)
        stored = readers._stored(parsed, name)
        whole = [entry for part in stored.parts() for entry in part]
        assert len(whole) == len(parsed.entries)
        small = sealed.Parts(stored.head, lambda w=whole: sealed.chunked(w, 7))
        assert bibcache.disk_store(tmp_path, f"f{n}", small)
        loaded = readers._unpack(bibcache.disk_load(tmp_path, f"f{n}"))
        assert loaded is not None
        assert loaded.entries == parsed.entries, name
        for a, b in zip(loaded.entries, parsed.entries, strict=True):
            assert [hash(f) for f in a.fields] == [hash(f) for f in b.fields]
            assert a.get("title") == b.get("title")
        seen += sum(len(e.fields) for e in parsed.entries)
    assert seen > 10_000


def test_a_diagnostic_moved_elsewhere_is_the_replaced_one() -> None:
    from refbook.diagnostics import Code, Diagnostic, Severity
    from refbook.records import fields, replace

    d = Diagnostic(Code.UNKNOWN_FIELD, "m", Location("a.bib", 3), "h", "k", "f", Severity.INFO)
    for loc in (Location("b.bib", 9), None):
        assert d.at(loc) == replace(d, location=loc)
    # every field is carried: a field added to Diagnostic and not to ``at`` fails here
    assert [f.name for f in fields(Diagnostic)] == [
        "code", "message", "location", "hint", "key", "field", "severity"]
