"""Incremental parsing (``refbook.readers.chunks``): a ``.bib`` edit re-parses only the entries
whose text changed — counted, not timed — and the result is exactly what parsing the whole
edited file gives, locations of the entries below a shifted edit included."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from refbook import bibcache, readers
from refbook.memo import REWRITE_SHARE
from refbook.models import packed_of
from refbook.readers import chunks, read_bibliography
from refbook.readers.bibtex import ParseResult, parse_bibtex
from tests.conftest import counts_python_calls

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


def test_a_few_new_pieces_do_not_rewrite_the_folders_table(
        tmp_path: Path, counted: list[int]) -> None:
    """The pieces of a big file are not written again for a one-entry edit: the next process
    parses that entry again instead; more new pieces than the share rewrite the table."""
    n = 2 * REWRITE_SHARE  # a share of 2 pieces
    text = "@string{jabbr = {J. Abbr.}}\n\n" + "".join(entry(i) for i in range(n))
    path = tmp_path / "refs.bib"
    cache = tmp_path / "cache"
    path.write_text(text, encoding="utf-8")
    fresh()
    read_bibliography([path], cache_dir=cache)
    [table] = cache.glob("chunks-*")
    written = table.read_bytes()

    def edit(*which: int) -> list[int]:
        """The new version in a new process: the entries each parse read."""
        new = text
        for i in which:
            new = new.replace(entry(i), entry(i, year=1900))
        path.write_text(new, encoding="utf-8")
        counted.clear()
        fresh()
        bib = read_bibliography([path], cache_dir=cache)
        parsed = list(counted)
        assert (bib.entries, bib.diagnostics) == read_fresh(path)
        return parsed

    assert edit(5) == [1]
    assert table.read_bytes() == written  # not rewritten for one piece
    assert edit(5, 9) == [1, 1]  # the first edit's piece again, then the second's
    assert table.read_bytes() == written
    # the control: more new pieces than the share rewrite the table, which then has them
    assert edit(5, 9, 13) == [1, 1, 1]
    assert table.read_bytes() != written
    assert edit(5, 9, 13, 17) == [1]


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
    # the same edit read from its bytes (new pieces decoded alone): the same answer
    chunks.clear_memory()
    chunks.remember(text, name, {}, None, whole)
    from_bytes = chunks.assemble(edited.encode("utf-8", "surrogatepass"), name, {}, None,
                                 parse_bibtex)
    assert (from_bytes is None) == (assembled is None)
    if from_bytes is not None:
        assert from_bytes[0] == expected


SPACES = [chr(c) for c in range(0x110000) if re.match(r"\s", chr(c))]


def _assert_cut_at_entry_lines(text: str) -> None:
    """Text and bytes are cut alike, at the lines the anchored pattern (``^...``, the
    reader's resynchronisation point) finds, which the cut finds from each ``@``."""
    data = text.encode("utf-8", "surrogatepass")
    assert chunks._starts(text, chunks._ENTRY_AT, "\n", " \t") == [
        m.start() for m in chunks._ENTRY_START.finditer(text)]
    assert chunks._starts(data, chunks._ENTRY_AT_BYTES, b"\n", b" \t") == [
        m.start() for m in chunks._ENTRY_START_BYTES.finditer(data)]
    assert [(line, piece.encode("utf-8", "surrogatepass"), last)
            for line, piece, last in chunks.split(text)] == list(chunks.split_bytes(data))


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.bib")), ids=lambda p: p.name)
def test_bytes_are_cut_where_their_text_is(path: Path) -> None:
    _assert_cut_at_entry_lines(
        path.read_bytes().decode("utf-8", errors="replace").replace("\r\n", "\n"))


def test_bytes_are_cut_where_their_text_is_around_every_kind_of_space() -> None:
    """A text's ``\\s`` is more than ASCII whitespace (U+001C-U+001F, U+0085, U+00A0, the
    Unicode spaces): a type or key spelled with one is no entry line, in bytes as in text."""
    assert len(SPACES) == 29
    rng = random.Random(5)
    lines = []
    for i, space in enumerate(SPACES):
        lines += [f"@art{space}icle{{k{i}, title = {{a{space}b}}}}",
                  f"@{space}book{{b{i},}}", f"{space}@misc{{m{i},}}", f"@misc{space}{{s{i},}}",
                  f"@misc{{é{i}, note = {{ü}}}}", f"@{rng.choice('αβγ')}x{{u{i},}}",
                  f"x @misc{{n{i},}}", f"@ @misc{{a{i},}}", f" \t@@misc{{d{i},}}",
                  f"@misc{{e{i}, email = {{a@b.c}}}} @book{{f{i},}}", f"\t @ misc ({{g{i},}}"]
    rng.shuffle(lines)
    text = "\n".join(lines) + "\n"
    cuts = list(chunks.split(text))
    assert 3 * len(SPACES) < len(cuts) < len(lines) // 2  # some lines start entries
    _assert_cut_at_entry_lines(text)


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


def test_an_edit_keeps_the_entry_objects_of_unchanged_pieces_that_did_not_move(
        tmp_path: Path) -> None:
    """In one process, an edit that keeps every line in place re-uses the other entries' objects
    (no rebuild, no second copy held by a long ``mkdocs serve``); an edit that adds a line moves
    the entries below it, which are built again at their new lines. Either way the result is the
    whole parse's."""
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    first = read_bibliography([str(path)])
    path.write_text(TEXT.replace("Title 20", "Title twenty"), encoding="utf-8")
    second = read_bibliography([str(path)])
    same = [k for k in ("key3", "key19", "key21", "key49") if second.get(k) is first.get(k)]
    assert same == ["key3", "key19", "key21", "key49"]
    assert second.get("key20") is not first.get("key20")
    path.write_text(TEXT.replace("Title 20", "Title twenty").replace(
        "  title = {Title 30},\n", "  title = {Title 30},\n  note = {added},\n"), encoding="utf-8")
    third = read_bibliography([str(path)])
    assert third.get("key29") is second.get("key29")
    assert third.get("key31") is not second.get("key31")
    whole = parse_bibtex(path.read_text(encoding="utf-8"), str(path))
    assert third.entries == whole.entries


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each validation memo digest worked out (``refbook.models.entry_digest``'s hash calls)."""
    import hashlib
    import types

    from refbook import models

    found: list[int] = []
    real = hashlib.blake2b

    def counting(*args: object, **kw: object) -> object:
        found.append(1)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(models, "hashlib", types.SimpleNamespace(blake2b=counting))
    return found


@pytest.mark.parametrize("new_process", [False, True])
def test_a_rebuild_after_an_edit_digests_only_the_entries_it_built_again(
        tmp_path: Path, digests: list[int], new_process: bool) -> None:
    """The validation memo's per-entry digest is kept on the entry object, and with a cache
    folder in the file's pieces: re-checking the file after a one-entry edit, in the same
    process or in a new one that reads the folder, digests only that entry (counted: the
    digest's hash calls), and reports what a clean read reports."""
    from refbook import validate

    def fresh() -> None:
        bibcache.clear_memory_cache()
        chunks.clear_memory()
        validate._MEMO.clear()

    fresh()
    path = tmp_path / "refs.bib"
    cache = str(tmp_path / "cache") if new_process else None
    memo = str(tmp_path / "memo") if new_process else None
    path.write_text(TEXT, encoding="utf-8")
    validate.validate(read_bibliography([str(path)], cache_dir=cache), memo_dir=memo)
    assert len(digests) == 50  # one per entry, worked out once
    if new_process:
        fresh()
    digests.clear()
    path.write_text(TEXT.replace("Title 20", "Title {twenty}"), encoding="utf-8")
    edited = read_bibliography([str(path)], cache_dir=cache)
    found = validate.validate(edited, memo_dir=memo)
    assert len(digests) == 1
    fresh()
    assert found == validate.validate(read_bibliography([str(path)]))


def test_an_edit_after_a_cache_folder_read_reuses_the_unchanged_entries(tmp_path: Path) -> None:
    """A serve process whose first read came whole from the cache folder (no pieces placed in
    memory) still re-uses, after an edit, every entry that reads the same at the same lines (one
    object per entry, not a second copy), and builds the edited one; the result is the whole
    parse's."""
    cache = tmp_path / "cache"
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    read_bibliography([str(path)], cache_dir=str(cache))
    bibcache.clear_memory_cache()  # a new process, with the cache folder
    chunks.clear_memory()
    first = read_bibliography([str(path)], cache_dir=str(cache))
    path.write_text(TEXT.replace("Title 20", "Title twenty"), encoding="utf-8")
    second = read_bibliography([str(path)], cache_dir=str(cache))
    # each compared with its piece without building its fields (they are read when asked for)
    assert [e.key for e in second.entries if packed_of(e) is None] == []
    kept = [k for k in ("key3", "key19", "key21", "key49") if second.get(k) is first.get(k)]
    assert kept == ["key3", "key19", "key21", "key49"]
    assert second.get("key20") is not first.get("key20")
    assert second.entries == parse_bibtex(path.read_text(encoding="utf-8"), str(path)).entries


def test_a_held_back_parse_cache_write_packs_the_parse_only_when_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While cache writes are held back (``mkdocs serve``), the parse cache file's value is the
    parse itself, packed when the file is written, not a packed copy held beside it; the file
    written then reads back as the same entries in a new process."""
    from refbook import sealed

    packs: list[int] = []
    real = readers._packed_entries

    def counting(result: ParseResult, name: str) -> object:
        packs.append(len(result.entries))
        return real(result, name)

    monkeypatch.setattr(readers, "_packed_entries", counting)
    cache = tmp_path / "cache"
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    sealed.defer_writes()
    try:
        first = read_bibliography([str(path)], cache_dir=str(cache))
        assert packs == []
    finally:
        assert sealed.flush() >= 1
    assert packs == [50]
    bibcache.clear_memory_cache()  # a new process
    chunks.clear_memory()
    again = read_bibliography([str(path)], cache_dir=str(cache))
    assert again.entries == first.entries
    assert again.get("key1") is not first.get("key1")  # read from the file, not memory


def test_a_cold_read_with_a_cache_folder_never_holds_its_pieces_or_a_packed_copy_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The piece table of a whole-file parse goes to the cache folder as it is cut, and the
    parse cache file is packed a part at a time (``refbook.sealed.Parts``): neither write holds
    the file's pieces or a packed copy of its parse whole (with the pickler's memo, 60 MB at
    the peak of a cold 20,000-entry build). Traced allocations, against controls that hold
    them whole: the same pieces kept in memory (no folder), the same parse packed whole."""
    import tracemalloc

    def peak(action: Callable[[], object]) -> int:
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            action()
            return tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()

    from refbook import sealed

    monkeypatch.setattr(sealed, "PART_SIZE", 250)  # parts as small against 3,000 entries as
    # the real size (2,048) is against 20,000
    text = "@string{jabbr = {J. Abbr.}}\n\n" + "".join(entry(i) for i in range(3000))
    name = str(tmp_path / "refs.bib")
    result = parse_bibtex(text, name)
    assert not result.diagnostics
    disk = tmp_path / "cache"
    fresh()
    streamed = peak(lambda: chunks.remember(text, name, {}, disk, result))
    assert bibcache.piece_tables.get(name) is None  # a one-shot build holds nothing after
    from_disk = chunks._table(name, disk)
    held = peak(lambda: chunks.remember(text, name, {}, None, result))
    kept = chunks._table(name, None)  # the same pieces, kept in memory (as their entries)
    assert {key: chunks._full(piece) for key, piece in kept.items()} == from_disk
    assert len(from_disk) == 3001  # the @string's piece and each entry's
    assert streamed * 3 < held, (streamed, held)
    fresh()

    packed_whole = peak(lambda: bibcache.disk_store(disk, "whole", (
        name, tuple(readers._packed_entries(result, name)), result.diagnostics,
        result.strings, result.preambles)))
    in_parts = peak(lambda: bibcache.disk_store(disk, "parts", readers._stored(result, name)))
    assert in_parts * 3 < packed_whole, (in_parts, packed_whole)
    loaded = readers._unpack(bibcache.disk_load(disk, "parts"))
    assert loaded is not None
    assert loaded.entries == result.entries


def test_a_long_process_holds_its_pieces_as_the_entries_they_were_read_into(
        tmp_path: Path) -> None:
    """In memory (``mkdocs serve``), a piece of entries is held as the entries it was read into,
    not as a second copy of their fields; what it stands for is the piece a new process reads
    from the cache folder, after edits too (one re-parsed, one moving every entry)."""
    path = tmp_path / "refs.bib"
    versions = [TEXT, TEXT.replace("Title 20", "Title twenty"), "\n\n" + TEXT]
    fresh()
    kept = []
    for text in versions:  # one long process, no cache folder
        path.write_text(text, encoding="utf-8")
        bib = read_bibliography([str(path)])
        table = bibcache.piece_tables.get(str(path))
        assert table is not None
        held = [e for piece in table.values() if isinstance(piece, chunks._Placed)
                for e in piece.entries]
        assert len(held) == 50
        assert {id(e) for e in held} == {id(e) for e in bib.entries}  # the very objects
        kept.append({key: chunks._full(piece) for key, piece in table.items()})
    for n, text in enumerate(versions):  # each a new process, with a cache folder
        path.write_text(text, encoding="utf-8")
        fresh()
        read_bibliography([str(path)], cache_dir=str(tmp_path / f"cache{n}"))
        assert kept[n] == chunks._table(str(path), tmp_path / f"cache{n}")


def test_a_plain_utf8_edit_is_assembled_from_its_bytes_decoding_only_new_pieces(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``.bib`` edit of a plain UTF-8 file (no carriage return, no byte-order mark) never
    decodes the whole file: the pieces are cut from its bytes and only the new ones decoded
    (counted). A file with CRLF line ends is decoded and normalized as before (the control);
    a new piece that is not UTF-8 leaves the read to the whole file, which says so."""
    decoded: list[int] = []
    real = readers._decode

    def counting(data: bytes, name: str) -> tuple[str, object]:
        decoded.append(len(data))
        return real(data, name)  # type: ignore[return-value]

    monkeypatch.setattr(readers, "_decode", counting)
    path = tmp_path / "refs.bib"
    for crlf in (False, True):
        text = TEXT.replace("\n", "\r\n") if crlf else TEXT
        fresh()
        path.write_bytes(text.encode("utf-8"))
        read_bibliography([str(path)], cache_dir=str(tmp_path / f"cache{crlf}"))
        assert len(decoded) == 1  # the first read: the whole text
        decoded.clear()
        path.write_bytes(text.replace("Title 20", "Títle 20").encode("utf-8"))
        fresh()  # a new process, with the cache folder
        bib = read_bibliography([str(path)], cache_dir=str(tmp_path / f"cache{crlf}"))
        assert bib.get("key20").get("title") == "Títle 20"
        assert len(decoded) == int(crlf)
        decoded.clear()
        assert bib.entries == read_fresh(path)[0]
        decoded.clear()
    path.write_bytes(TEXT.encode("utf-8"))
    fresh()
    read_bibliography([str(path)])
    path.write_bytes(TEXT.replace("Title 20", "Title \xe9 20").encode("latin-1"))
    bib = read_bibliography([str(path)])
    assert [d.code.slug for d in bib.diagnostics] == ["encoding"]
    assert bib.get("key20").get("title") == "Title \xe9 20"  # read as Latin-1, and said
    assert len(bib.entries) == 50


def test_a_folder_table_read_beside_held_entries_keeps_its_pieces_as_them(tmp_path: Path) -> None:
    """The first ``.bib`` edit under ``mkdocs serve`` reads the folder's piece table while the
    last version's entries (from the parse cache) are held: each piece that reads as some of
    them is kept as them, as the table is read (not as a second copy of their fields); a piece
    whose held entry differs, or has no held entry, stays as it is. Each stands for the same
    piece as the folder's."""
    cache = tmp_path / "cache"
    path = tmp_path / "refs.bib"
    path.write_text(TEXT, encoding="utf-8")
    read_bibliography([str(path)], cache_dir=str(cache))
    fresh()
    held_bib = read_bibliography([str(path)], cache_dir=str(cache))  # from the parse cache
    held = {e.key: e for e in held_bib.entries}
    other = parse_bibtex(TEXT.replace("Title 7,", "Title seven,"), str(path))
    held["key7"] = next(e for e in other.entries if e.key == "key7")  # another version
    del held["key9"]
    fresh()
    plain = chunks._table(str(path), cache)
    kept = chunks._table(str(path), cache, held)
    assert kept.keys() == plain.keys()
    placed = {key: piece for key, piece in kept.items() if isinstance(piece, chunks._Placed)}
    assert len(placed) == 48  # of 50 entry pieces: not key7's, not key9's
    assert {e.key for piece in placed.values() for e in piece.entries} == set(held) - {"key7"}
    assert all(e is held[e.key] for piece in placed.values() for e in piece.entries)
    assert {key: chunks._full(piece) for key, piece in kept.items()} == plain
    # and the edit assembled from it is the whole parse, re-using the held entries
    path.write_text(TEXT.replace("Title 20", "Title twenty"), encoding="utf-8")
    bibcache.parsed_files.put(("held",), held_bib, slot=(str(path), ()))
    again = read_bibliography([str(path)], cache_dir=str(cache))
    assert again.entries == parse_bibtex(path.read_text(encoding="utf-8"), str(path)).entries
    assert again.get("key3") is held_bib.get("key3")


def test_an_edit_that_takes_macro_expansion_over_the_budget_reads_as_the_whole_file(
        tmp_path: Path) -> None:
    """The pieces' values are counted against the file's expansion budget when the file
    defines @string macros: an edit that adds uses of a long macro past the budget is read
    whole, with the reader's input-limit diagnostic, as a new process reads it."""
    big = "x" * 100_000
    head = f"@string{{big = {{{big}}}}}\n\n"
    uses = "".join(f"@misc{{use{i},\n  note = big,\n}}\n\n" for i in range(40))
    path = tmp_path / "refs.bib"
    path.write_text(head + uses, encoding="utf-8")  # 4.0 M expanded: under the budget
    fresh()
    first = read_bibliography([path])
    assert not first.diagnostics
    assert len(first.entries) == 40
    more = "".join(f"@misc{{more{i},\n  note = big,\n}}\n\n" for i in range(20))
    path.write_text(head + uses + more, encoding="utf-8")  # 6.0 M: over it
    bib = read_bibliography([path])
    assert [d.code.value[0] for d in bib.diagnostics] == ["input-limit"]
    assert (bib.entries, bib.diagnostics) == read_fresh(path)


@counts_python_calls
def test_an_edit_of_a_file_without_macros_counts_no_values(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without @string macros expansion is of the month names alone (never near the budget):
    the re-used entries' values are not counted (a 20,000-entry file's edit counted them all)."""
    text = "".join(entry(i) for i in range(50)).replace("journal = jabbr", "journal = {J}")
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    fresh()
    read_bibliography([path])
    counted: list[int] = []
    real = chunks._value_chars
    monkeypatch.setattr(chunks, "_value_chars", lambda e: counted.append(1) or real(e))
    path.write_text(text.replace("Title 7}", "Title seven}"), encoding="utf-8")
    bib = read_bibliography([path])
    assert bib.get("key7").get("title") == "Title seven"
    assert counted == []
    with_macro = "@string{j = {J}}\n\n" + text
    path.write_text(with_macro, encoding="utf-8")
    read_bibliography([path])
    path.write_text(with_macro.replace("Title 8}", "Title eight}"), encoding="utf-8")
    bib = read_bibliography([path])
    assert bib.get("key8").get("title") == "Title eight"
    assert len(counted) == 49  # with a macro, every re-used entry's values are counted
    assert (bib.entries, bib.diagnostics) == read_fresh(path)


def _plain(i: int) -> str:
    """An entry without macros (the layout of an edit is kept only for such files)."""
    return (f"@article{{key{i},\n  author = {{Author{i}, Alice and Writer, Bob}},\n"
            f"  title = {{Title {i}}},\n  journal = {{J}},\n  year = {{{2000 + i}}},\n}}\n\n")


def _mutate(text: str, rng: random.Random, n: int) -> str:
    """One random edit of ``text``: of a value, of the lines, of the entry lines themselves."""
    starts = _entry_lines(text) or [0]
    at = rng.choice(starts)
    kind = rng.randrange(12)
    if kind == 0:  # a value, same lines
        return text[:at] + re.sub(r"Title [^}]*", f"Title edited {n}", text[at:], count=1)
    if kind == 1:  # a line more
        end = text.find("\n", at) + 1
        return text[:end] + f"  note = {{added {n}}},\n" + text[end:]
    if kind == 2:  # an entry less
        nxt = [s for s in starts if s > at]
        return text[:at] + (text[nxt[0]:] if nxt else "")
    if kind == 3:  # an entry more, here or at the very end
        where = at if rng.random() < 0.7 else len(text)
        return text[:where] + _plain(1000 + n) + text[where:]
    if kind == 4:  # another entry type
        return text[:at] + text[at:].replace("@article{", "@book{", 1)
    if kind == 5:  # no longer an entry line (text outside entries reads as a comment)
        return text[:at] + "x" + text[at:]
    if kind == 6:  # an entry line again
        return text.replace("\nx@", "\n@", 1)
    if kind == 7:  # characters that are not ASCII, inside a value
        return text[:at] + text[at:].replace("Alice", f"Alïce ß {n} —", 1)
    if kind == 8:  # a macro defined in the middle (the layout no longer serves)
        return text[:at] + f"@string{{m{n} = {{M}}}}\n\n" + text[at:]
    if kind == 9:  # the start or the end of the file
        return (f"% comment {n}\n" + text) if rng.random() < 0.5 else text + f"\n% end {n}\n"
    if kind == 10:  # an entry's braces broken (the whole parse reports it)
        return text[:at] + text[at:].replace("},\n}", "},\n", 1)
    # a key defined twice
    return text[:at] + _plain(int(rng.choice(starts) > 0)) + text[at:]


@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_long_process_reads_random_edits_as_the_whole_parse(as_bytes: bool) -> None:
    """``mkdocs serve`` reads version after version of a file: with the layout of the last one,
    only the pieces around each edit are cut again (``chunks._edited_pieces``). Random edits of
    every kind (values, lines added and removed, entries added, removed and retyped, entry
    lines broken and mended, non-ASCII text, macros, the file's start and end, broken braces,
    duplicate keys), from the text and from its bytes: each read is the whole parse of the
    text, or declines and the whole parse is taken (as ``readers`` does)."""
    name = "/books/refs.bib"
    rng = random.Random(20261207 + as_bytes)
    text = "".join(_plain(i) for i in range(120))
    chunks.clear_memory()
    chunks.remember(text, name, {}, None, parse_bibtex(text, name))
    used = assembled = 0
    for n in range(160):
        edited = _mutate(text, rng, n)
        # the edits that make the file unreadable by pieces (a macro, broken braces, a key
        # defined twice) are undone by the next one, as a writer mends a typo
        versions = [edited, text] if parse_bibtex(edited, name).diagnostics or (
            "@string" in edited) else [edited]
        for version in versions:
            if version == text and len(versions) == 1:
                continue
            expected = parse_bibtex(version, name)
            layout = chunks._layouts.get(name)
            found = chunks.assemble(version.encode("utf-8") if as_bytes else version, name, {},
                                    None, parse_bibtex)
            if found is None:
                chunks.remember(version, name, {}, None, expected)
                continue
            assembled += 1
            used += layout is not None
            assert found[0] == expected, n
        text = versions[-1]
    assert assembled > 60  # most edits read from pieces,
    assert used > 40  # and most of those from the last version's layout
