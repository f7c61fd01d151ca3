"""A big ``.bib`` file parsed on several cores (``refbook.readers.split``): the parts' entries
put together are exactly the whole text's parse — keys, types, fields and every line — and a
text that would read otherwise in parts (macros, comments, a cut inside a value, a key in two
parts, a syntax error) is parsed whole instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbook import bibcache
from refbook.diagnostics import Code
from refbook.readers import chunks, read_bibliography, split
from refbook.readers.bibtex import parse_bibtex
from tests.conftest import SEED, TESTDATA


@pytest.fixture(autouse=True)
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork whatever else runs in the test process (a thread left by another test would make
    ``can_fork`` decline, and these tests are about what the parts give)."""
    monkeypatch.setattr(split, "can_fork", lambda: True)


def entry_lines(text: str) -> list[int]:
    return [m.start() for m in chunks._ENTRY_START.finditer(text) if m.start() > 0]


def read_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")


def test_parts_give_the_whole_parse_on_the_shared_test_data() -> None:
    """Every real file of the shared test data and the seed, cut at up to 12 entry lines each
    (two and three parts): where the parts are used, they are the whole parse; they are used
    for about half the cuts (files with macros, comments or reader diagnostics are not cut)."""
    used = declined = files = 0
    paths = [SEED / "references.raw.bib", SEED / "references.bib", *sorted(TESTDATA.rglob("*.bib"))]
    for path in paths:
        text = read_text(path)
        whole = parse_bibtex(text, path.name)
        lines = entry_lines(text)
        if not lines:
            continue
        files += 1
        step = max(len(lines) // 12, 1)
        for i, at in enumerate(lines[::step]):
            later = [x for x in lines if x > at]
            starts = [at, later[len(later) // 2]] if i % 2 and later else [at]
            got = split.parse_split(text, path.name, {}, parse_bibtex, parts=len(starts) + 1,
                                    min_chars=0, starts=starts)
            if got is None:
                declined += 1
                continue
            used += 1
            assert list(got.entries) == list(whole.entries), (path.name, at)
            assert [e.location for e in got.entries] == [e.location for e in whole.entries]
            assert not whole.diagnostics
            assert not whole.strings
            assert not whole.preambles
    assert files > 100
    assert used > 300, (used, declined)  # 393 uses, 373 declined on this data


def test_a_text_that_reads_otherwise_in_parts_is_parsed_whole() -> None:
    def art(key: str, extra: str = "") -> str:
        return f"@article{{{key},\n  title = {{A title of {key}}},{extra}\n  year = 2001,\n}}\n\n"

    plain = art("a") + art("b") + art("c")
    cut = plain.index("@article{b")
    assert split.parse_split(plain, "x.bib", {}, parse_bibtex, parts=2, min_chars=0,
                             starts=[cut]) is not None
    cases = {
        # the whole parse drops the second "a" with a duplicate-key diagnostic
        "a key in two parts": art("a") + art("b") + art("a"),
        # a macro defined in the first part is used in the second
        "a macro": "@string{j = {Journal}}\n" + art("a") + art("b", "\n  journal = j,"),
        "a comment": "@comment{jabref-meta: x}\n" + art("a") + art("b"),
        # a syntax error in the second part
        "a syntax error": art("a") + art("b") + "@article{c,\n  title = {x}\n  year = 1,\n}\n",
        # a value holding a line that starts like an entry: the cut falls inside it
        "a cut inside a value": ("@article{a,\n  note = {see\n@article{b, title = {B}}\n"
                                 "  in the note},\n}\n\n" + art("c")),
    }
    for why, text in cases.items():
        whole = parse_bibtex(text, "x.bib")
        starts = [max(entry_lines(text))] if why != "a cut inside a value" else [
            text.index("@article{b")]
        got = split.parse_split(text, "x.bib", {}, parse_bibtex, parts=2, min_chars=0,
                                starts=starts)
        assert got is None, why
        if why == "a key in two parts":
            assert [d.code for d in whole.diagnostics] == [Code.DUPLICATE_KEY]


def test_cuts_fall_on_entry_lines_and_give_the_first_part_more() -> None:
    text = "".join(f"@misc{{k{i},\n  title = {{T {i}}},\n}}\n\n" for i in range(1000))
    two = split.cuts(text, 2)
    assert len(two) == 1
    assert text[two[0] - 1:two[0] + 1] == "\n@"
    assert 0.55 < two[0] / len(text) < 0.62  # FIRST_SHARE: 0.58 of the text
    three = split.cuts(text, 3)
    assert len(three) == 2
    assert three[0] < three[1]
    assert split.cuts("@misc{a, title={x}}\n", 2) == []  # no entry line after the first


def test_a_big_file_is_read_in_parts_as_it_is_read_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``read_bibliography`` on a file over ``MIN_CHARS`` characters: parsed in parts (counted)
    and equal, entry for entry and line for line, to the parse of one process
    (``REFBOOK_JOBS=1``); its cache folder then gives the same entries."""
    path = big_bib(tmp_path / "big.bib", int(split.MIN_CHARS * 1.2))
    calls: list[int] = []
    real = split.parse_split

    def counting(*args: object, **kw: object) -> object:
        found = real(*args, **kw)  # type: ignore[arg-type]
        calls.append(found is not None)
        return found

    monkeypatch.setattr(split, "parse_split", counting)
    monkeypatch.setenv("REFBOOK_JOBS", "2")
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    parted = read_bibliography([path], cache_dir=str(tmp_path / "cache"))
    assert calls == [True]
    monkeypatch.setenv("REFBOOK_JOBS", "1")
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    one = read_bibliography([path])
    assert calls == [True, False]
    assert len(one.entries) > 1000
    assert list(parted.entries) == list(one.entries)
    assert list(parted.diagnostics) == list(one.diagnostics)
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    cached = read_bibliography([path], cache_dir=str(tmp_path / "cache"))
    assert calls == [True, False]  # from the cache folder: no parse
    assert list(cached.entries) == list(one.entries)
    bibcache.clear_memory_cache()
    chunks.clear_memory()


def big_bib(path: Path, chars: int) -> Path:
    """A clean bibliography of at least ``chars`` characters at ``path``: copies of the seed's
    cleaned file, each copy's keys made unique."""
    body = read_text(SEED / "references.bib")
    copies: list[str] = []
    while sum(len(c) for c in copies) < chars:
        copies.append(_renamed(body, f"c{len(copies)}x"))
    path.write_text("\n".join(copies), encoding="utf-8")
    return path


def _renamed(body: str, prefix: str) -> str:
    """The entries of ``body`` under keys with ``prefix`` (crossref targets renamed alike)."""
    import re

    return re.sub(r"(@\w+\{)([^,\s]+),", lambda m: f"{m.group(1)}{prefix}{m.group(2)},", body)
