"""Incremental parsing (``refbook.readers.chunks``): a ``.bib`` edit re-parses only the entries
whose text changed — counted, not timed — and the result is exactly what parsing the whole
edited file gives, locations of the entries below a shifted edit included."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from refbook import bibcache, readers
from refbook.readers import chunks, read_bibliography
from refbook.readers.bibtex import ParseResult, parse_bibtex

CORPUS = Path("/work/shared/testdata")


def entry(i: int, year: int = 2000) -> str:
    return (f"@article{{key{i},\n  author = {{Author{i}, Alice and Writer, Bob}},\n"
            f"  title = {{Title {i}}},\n  journal = jabbr,\n  year = {{{year + i}}},\n}}\n\n")


TEXT = "Text before the first entry.\n@string{jabbr = {J. Abbr.}}\n\n" + "".join(
    entry(i) for i in range(50))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The entries each parse call read (the reader's parses go through ``readers``)."""
    calls: list[int] = []
    real = readers.parse_bibtex

    def counting(text: str, file: str, **kw: object) -> ParseResult:
        result = real(text, file, **kw)  # type: ignore[arg-type]
        calls.append(len(result.entries))
        return result

    monkeypatch.setattr(readers, "parse_bibtex", counting)
    return calls


def fresh() -> None:
    bibcache.clear_memory_cache()
    chunks.clear_memory()


def read_fresh(path: Path) -> tuple[object, ...]:
    """The bibliography as a new process without any cache reads it."""
    fresh()
    bib = read_bibliography([path])
    fresh()
    return bib.entries, bib.diagnostics


@pytest.mark.parametrize("disk", [False, True])
def test_an_edit_reparses_only_the_edited_entry_and_shifts_the_rest(
        tmp_path: Path, counted: list[int], disk: bool) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    cache = str(tmp_path / "cache") if disk else None
    fresh()
    first = read_bibliography([path], cache_dir=cache)
    assert counted == [50]  # one whole parse
    counted.clear()
    # entry 20 gets two more lines: every entry below it moves down by two lines
    edited = TEXT.replace("  title = {Title 20},\n",
                          "  title = {Title 20, revised},\n  note = {two\n  lines},\n")
    path.write_text(edited, encoding="utf-8")
    if disk:  # a new process: only the cache folder is left
        fresh()
    second = read_bibliography([path], cache_dir=cache)
    assert counted == [1]
    assert (second.entries, second.diagnostics) == read_fresh(path)
    assert second.get("key21").location.line == first.get("key21").location.line + 2
    assert second.get("key19").location == first.get("key19").location
    # and a diagnostic of a later entry names its new line
    counted.clear()
    broken = edited.replace("  year = {2045},\n", "  year = {2045},\n  year = {2046},\n")
    path.write_text(broken, encoding="utf-8")
    third = read_bibliography([path], cache_dir=cache)
    assert (third.entries, third.diagnostics) == read_fresh(path)
    assert third.diagnostics
    assert third.diagnostics[0].location.line == broken[:broken.index("year = {2046}")].count(
        "\n") + 1
    if disk:  # one file for the parse, one for its pieces: versions replace each other
        names = sorted(p.name for p in (tmp_path / "cache").iterdir())
        assert len(names) == 2, names
        assert sum(n.startswith("chunks-") for n in names) == 1


def test_a_macro_edit_reparses_the_entries_after_it(tmp_path: Path, counted: list[int]) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    fresh()
    read_bibliography([path])
    counted.clear()
    path.write_text(TEXT.replace("{J. Abbr.}", "{Journal of Abbreviations}"), encoding="utf-8")
    bib = read_bibliography([path])
    assert sum(counted) == 50  # every entry after the @string saw another macro
    assert bib.get("key7").get("journal") == "Journal of Abbreviations"
    assert (bib.entries, bib.diagnostics) == read_fresh(path)


def test_moving_and_deleting_entries_reparses_nothing(tmp_path: Path, counted: list[int]) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    fresh()
    read_bibliography([path])
    counted.clear()
    moved = TEXT.replace(entry(3), "").replace(entry(40), entry(40) + entry(3)).replace(
        entry(10), "")
    path.write_text(moved, encoding="utf-8")
    bib = read_bibliography([path])
    assert counted == []
    assert (bib.entries, bib.diagnostics) == read_fresh(path)


def _entry_lines(text: str) -> list[int]:
    return [m.start() for m in re.finditer(r"^@\w+\{", text, re.M)]


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.bib")), ids=lambda p: p.name)
def test_pieces_read_as_the_whole_file_on_real_files(path: Path) -> None:
    """On every real file: the pieces of the file reassembled, and after an edit that inserts a
    line into one entry, give exactly the whole parse of that text (or decline, and the whole
    parse is used)."""
    text = path.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n")
    text = text.removeprefix("\ufeff")
    name = str(path)
    chunks.clear_memory()
    whole = parse_bibtex(text, name)
    chunks.remember(text, name, {}, None, whole)
    again = chunks.assemble(text, name, {}, None, parse_bibtex)
    if whole.diagnostics:
        assert again is None
        return
    assert again is not None
    assert again == (whole, 0) or again[0] == whole
    starts = _entry_lines(text)
    if len(starts) < 2:
        return
    rng = random.Random(path.name)
    at = text.find("\n", rng.choice(starts)) + 1
    if at == 0:
        return
    edited = text[:at] + "  note = {An added line},\n" + text[at:]
    assembled = chunks.assemble(edited, name, {}, None, parse_bibtex)
    expected = parse_bibtex(edited, name)
    if assembled is not None:
        assert assembled[0] == expected
        assert assembled[1] <= 2


def test_a_long_process_keeps_one_version_of_each_file_in_memory(tmp_path: Path) -> None:
    """``mkdocs serve`` reads version after version of a ``.bib``: the memory caches keep the
    latest parse and read of each file, not one per version (a 20,000-entry file held 64 times
    was gigabytes); another file's parse is kept alongside, and an earlier version read again
    is parsed again, right."""
    bibcache.clear_memory_cache()
    path, other = tmp_path / "refs.bib", tmp_path / "other.bib"
    other.write_text(entry(900), encoding="utf-8")
    read_bibliography([str(other)])
    for version in range(5):
        path.write_text(TEXT.replace("Title 7", f"Title 7 v{version}"), encoding="utf-8")
        bib = read_bibliography([str(path)])
        assert bib.get("key7") is not None
        assert bib.get("key7").get("title") == f"Title 7 v{version}"
    assert len(bibcache.parsed_files) == 2  # refs.bib's last version, and other.bib
    assert len(bibcache.bibliographies) == 2
    path.write_text(TEXT.replace("Title 7", "Title 7 v0"), encoding="utf-8")
    again = read_bibliography([str(path)])
    assert again.get("key7") is not None
    assert again.get("key7").get("title") == "Title 7 v0"
    assert len(bibcache.parsed_files) == 2
