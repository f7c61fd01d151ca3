"""``read_bibliography_deferred``: the bibliography of ``read_bibliography``, its files read
and digested at once but parsed only when it is first used (a host whose results all come from
its cache folder never parses). Checked on every real file of the shared test data: the same
entries, keys, diagnostics and sources; one parse however it is used; the bytes parsed are
those that were digested."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

import pytest

from refbook import bibcache, readers
from refbook.models import Bibliography, DeferredBibliography
from refbook.readers import read_bibliography, read_bibliography_deferred
from tests.conftest import SEED, TESTDATA

if TYPE_CHECKING:
    from pathlib import Path

FILES = [SEED / "references.raw.bib", *sorted(TESTDATA.rglob("*.bib"))]


@pytest.fixture(autouse=True)
def _cold() -> None:
    bibcache.clear_memory_cache()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    real = readers._read_now

    def reading(files: list[str], *args: Any) -> Any:
        calls.append(tuple(files))
        return real(files, *args)

    monkeypatch.setattr(readers, "_read_now", reading)
    return calls


def test_every_real_file_reads_the_same_deferred() -> None:
    assert len(FILES) > 100
    for path in FILES:
        bibcache.clear_memory_cache()
        later = read_bibliography_deferred([path])
        assert isinstance(later, DeferredBibliography)
        assert not later.parsed
        bibcache.clear_memory_cache()
        now = read_bibliography([path])
        assert later == now
        assert now == later
        assert hash(later) == hash(now)
        assert later.entries == now.entries
        assert later.diagnostics == now.diagnostics
        assert later.sources == now.sources
        assert later.keys() == now.keys()
        assert len(later) == len(now)
        assert list(later) == list(now)
        for key in now.keys()[:5]:
            assert later[key] == now[key]
            assert later.get(key) == now.get(key)
            assert key in later
        assert later.get("no such key") is None


def test_nothing_is_parsed_until_used_and_then_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    path = str(SEED / "references.raw.bib")
    bib = read_bibliography_deferred([path])
    assert calls == []
    assert repr(bib) == "DeferredBibliography(<not parsed yet>)"
    assert read_bibliography_deferred([path]) is bib  # the same files, the same contents
    assert len(bib) > 200
    assert calls == [(path,)]
    assert bib.keys()
    assert bib.diagnostics == bib.read().diagnostics
    assert [e.key for e in bib][:1] == [bib.keys()[0]]
    assert read_bibliography_deferred([path]) is bib  # still the same object, parsed
    assert calls == [(path,)]


def test_it_pickles_as_the_bibliography_it_reads() -> None:
    bib = read_bibliography_deferred([str(SEED / "references.raw.bib")])
    back = pickle.loads(pickle.dumps(bib))
    assert type(back) is Bibliography
    assert back == bib


def test_the_bytes_parsed_are_those_digested(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    bib_file = tmp_path / "refs.bib"
    bib_file.write_text("@book{first, title = {One}, year = {2001}}\n", encoding="utf-8")
    bib = read_bibliography_deferred([str(bib_file)])
    # edited after it was read, before it was used: the results a host keys by the digest
    # taken then describe the first version, and so does the parse
    bib_file.write_text("@book{second, title = {Two}, year = {2002}}\n", encoding="utf-8")
    assert bib.keys() == ("first",)
    edited = read_bibliography_deferred([str(bib_file)])
    assert edited is not bib
    assert edited.keys() == ("second",)
    assert len(calls) == 2


def test_a_missing_file_is_the_same_diagnostic(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.bib")
    later = read_bibliography_deferred([missing])
    bibcache.clear_memory_cache()
    now = read_bibliography([missing])
    assert later.diagnostics == now.diagnostics
    assert [d.code for d in later.diagnostics] == [d.code for d in now.diagnostics]
    assert len(later) == 0
