"""Incremental parsing: a ``.bib`` edit re-parses only the entries whose bytes changed.

Where it sits: inside ``refbook.readers.read_bibliography``, on a miss of the whole-file parse
cache (``refbook.bibcache``). The text is cut at every line that starts an entry (``@type{`` or
``@type(`` at the start of a line, as the parser itself resynchronises), each piece — one
entry, ``@string`` or ``@preamble`` with the text after it — is keyed by a digest of its text
and of the ``@string`` macros visible before it, and only the pieces not seen before are parsed.
A piece is parsed on its own as if it started on line 1 and kept in that form; assembling
shifts its lines to where the piece starts now, so an edit that adds lines above an entry moves
that entry's (and its fields') locations without parsing it again.

The result must be what parsing the whole text gives. That holds when every piece reads
cleanly on its own, which :func:`assemble` checks: no reader diagnostic in any piece (a syntax
error, an unclosed value that runs into the next entry line, an input limit, ...), no
``@comment`` (its braces may span entry lines), no key or macro defined twice across pieces,
and macro expansion well within the file's budget. Anything else returns ``None`` and the
caller parses the whole text, as before — so a file with reader problems is still read exactly,
only not incrementally.

A long process (``mkdocs serve``) also keeps where the last version's pieces were
(:class:`_Layout`): the next edit of a file without ``@string`` is compared with that text, and
only the pieces around the changed characters are cut and digested again; the others are taken
by their keys, their lines moved by the lines the edit added (:func:`_edited_pieces`).

Pieces live in memory (``refbook.bibcache.piece_tables``: per file name, only those of the
file's last version) and, with a cache
folder, in one sealed file per ``.bib`` file (``refbook.sealed``), so a new process (a
``sphinx-build`` or ``mkdocs build`` after an edit) re-parses only the edited entries too.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from refbook import bibcache, sealed
from refbook.memo import REWRITE_SHARE
from refbook.models import (
    Entry,
    entry_digest,
    packed_entry,
    packed_of,
    packed_relative,
    packed_same_fields,
    piece_digest,
)
from refbook.readers.result import ParseResult

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

__all__ = ["Piece", "assemble", "clear_memory", "remember", "split"]

# The start of a line that starts an entry (the parser's own resynchronisation point).
_ENTRY_START = re.compile(r"^[ \t]*@[ \t]*[^\s\"#%'(),={}@]+[ \t]*[{(]", re.MULTILINE)
# The same lines in the UTF-8 bytes of a text: a text's ``\s`` is also U+001C-U+001F and the
# non-ASCII spaces, which bytes spell in two or three bytes (kept out by the lookahead, tried
# at character starts only: a continuation byte never starts one of them)
_UNICODE_SPACES = rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
_ENTRY_START_BYTES = re.compile(
    rb"^[ \t]*@[ \t]*(?:(?!" + _UNICODE_SPACES + rb")[^\s\x1c-\x1f\"#%'(),={}@])+[ \t]*[{(]",
    re.MULTILINE)
# What :func:`_cut` looks for: the same, from the ``@`` (a pattern that starts with a literal
# is searched for by that character: five times faster over 12 MB than one that starts with
# ``^``, tried at every position); the line before it must be blank
_ENTRY_AT = re.compile(_ENTRY_START.pattern.removeprefix("^[ \\t]*"))
_ENTRY_AT_BYTES = re.compile(_ENTRY_START_BYTES.pattern.removeprefix(b"^[ \\t]*"))
_COMMENT = re.compile(r"@[ \t]*comment[ \t]*([{(]?)", re.IGNORECASE)

#: A parsed piece: entries as plain tuples with lines counted from the piece's first line
#: (key, type, line, ((field, value, line), ...), digest), its ``@string`` definitions, its
#: preambles. The digest is the entry's ``refbook.models.entry_digest``, the validation memo's
#: key: a new process that reads an edited file from its pieces does not work it out again for
#: every entry (20,000 entries: ~60 ms).
Piece = tuple[
    tuple[tuple[str, str, int, tuple[tuple[str, str, int], ...], bytes], ...],
    tuple[tuple[str, str], ...],
    tuple[str, ...],
]


class _Placed(NamedTuple):
    """A piece of entries as a table held in memory keeps it: the entries it was read into
    where it started (``shift``: its first line - 1). The piece itself is what they read as
    (:func:`_full`): a table of pieces beside the entries they were read into was a second
    copy of every field (43 MB for a 20,000-entry file under ``mkdocs serve``)."""

    shift: int
    entries: tuple[Entry, ...]


def _full(found: Piece | _Placed) -> Piece:
    """The piece ``found`` stands for."""
    if not isinstance(found, _Placed):
        return found
    shift = found.shift
    out = []
    for e in found.entries:
        triples = packed_relative(e, shift)
        if triples is None:
            triples = tuple((f.name, f.value, f.location.line - shift) for f in e.fields)
        # (the digest is kept on the entry too: its validation needs it next)
        out.append((e.key, e.type, e.location.line - shift, triples, entry_digest(e)))
    return (tuple(out), (), ())


def _value_chars(e: Entry) -> int:
    """The characters of the entry's field values (fields not built for it)."""
    packed = packed_of(e)
    if packed is not None:
        return sum(len(v) for _, v, _ in packed[2])
    return sum(len(f.value) for f in e.fields)


def split(text: str) -> Iterator[tuple[int, str, bool]]:
    """``text`` cut before every entry line: (first line number, piece text, whether it is the
    last piece) in order, one piece at a time (a list of them all is a second copy of the
    text: 23 MB for a 20,000-entry file)."""
    return _cut(text, _ENTRY_AT, "\n", " \t")


def split_bytes(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """:func:`split` on the UTF-8 bytes of a text: the same cuts, each piece the bytes of
    the text's piece."""
    return _cut(data, _ENTRY_AT_BYTES, b"\n", b" \t")


def _cut(text: Any, entry_at: re.Pattern[Any], newline: Any, blank: Any,
         ) -> Iterator[tuple[int, Any, bool]]:
    """The pieces of :func:`split` and :func:`split_bytes`, one at a time (``text``, ``newline``
    and ``blank`` all ``str`` or all ``bytes``: typed ``Any``, as mypyc compiles no
    ``AnyStr``)."""
    starts = _starts(text, entry_at, newline, blank)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    line = 1
    last = len(starts) - 1
    for i, at in enumerate(starts):
        end = starts[i + 1] if i < last else len(text)
        piece = text[at:end]
        yield line, piece, i == last
        line += piece.count(newline)


def _starts(text: Any, entry_at: re.Pattern[Any], newline: Any, blank: Any) -> list[int]:
    """Where the lines that start an entry start (``_ENTRY_START``'s matches)."""
    starts = []
    for m in entry_at.finditer(text):
        at = m.start()
        line = text.rfind(newline, 0, at) + 1
        if line == at or not text[line:at].strip(blank):
            starts.append(line)
    return starts


def plain_utf8(data: bytes) -> bool:
    """Whether :func:`assemble` may read ``data`` as bytes: a text the reader takes as it is
    (no carriage return to normalize, no byte-order mark). Whether it is valid UTF-8 is found
    piece by piece: a piece known from before has the very bytes of a text that was."""
    return b"\r" not in data and not data.startswith(codecs.BOM_UTF8)


_BRACES = re.compile(r"[{}]")
_SPECIAL = re.compile(r"@[ \t]*(?:string|preamble|comment)", re.IGNORECASE)


#: file name → (piece key, line shift) → the entries that piece was read into at that place, in
#: the file's last version read here: an edit re-uses the unchanged pieces' entry objects where
#: they have not moved, so a long process (``mkdocs serve``) neither rebuilds nor holds twice the
#: entries a one-entry edit leaves alone
_placed: bibcache.Lru[str, dict[tuple[str, int], tuple[Entry, ...]]] = bibcache.Lru(64)


class _Layout(NamedTuple):
    """Where the pieces of a file's last version were, for a long process's next edit of it
    (:func:`_edited_pieces`): its text, and per piece in order its offset in the text, its first
    line and its key. Kept only for a file without ``@string`` read without macros of an
    earlier file: every piece's key is then of its text alone."""

    text: str | bytes
    starts: list[int]
    firsts: list[int]
    keys: list[str]


#: file name → the layout of its last version read here, while its pieces are held in memory
#: (``mkdocs serve``): the edit after it cuts and digests only the pieces around the change
_layouts: bibcache.Lru[str, _Layout] = bibcache.Lru(64)


def _common_prefix(a: str | bytes, b: str | bytes) -> int:
    """How many leading characters (or bytes) ``a`` and ``b`` share: a binary search of slice
    comparisons (memcmp), not a loop over 12 MB in Python."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 64:  # invariant: a[:lo] == b[:lo], a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return lo


def _common_suffix(a: str | bytes, b: str | bytes, limit: int) -> int:
    """How many trailing characters (or bytes), at most ``limit``, ``a`` and ``b`` share."""
    na, nb = len(a), len(b)
    lo, hi = 0, limit
    if a[na - hi:] == b[nb - hi:]:
        return hi
    while hi - lo > 64:  # invariant: the last lo are equal, the last hi are not
        mid = (lo + hi) // 2
        if a[na - mid:na - lo] == b[nb - mid:nb - lo]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[na - lo - 1] == b[nb - lo - 1]:
        lo += 1
    return lo


#: a piece as :func:`assemble` takes it: its offset in the text, its first line, its text
#: (``None``: a piece of the last version, unchanged, known by its key) and its key (``None``:
#: to be worked out from its text)
_Known = tuple[int, int, "str | bytes | None", "str | None"]


def _cut_pieces(text: str | bytes) -> Iterator[_Known]:
    """Every piece of ``text`` as :func:`assemble` takes it (cut from the text)."""
    at = 0
    for line, piece, _ in (split_bytes(text) if isinstance(text, bytes) else split(text)):
        yield at, line, piece, None
        at += len(piece)


def _edited_pieces(layout: _Layout, text: str | bytes) -> list[_Known] | None:
    """The pieces of ``text``, an edit of the version ``layout`` describes: those before and after
    the changed bytes as the last version had them (their keys, their lines moved by the lines
    the edit added), the ones around the change cut from the text. ``None`` when ``text`` is
    not an edit of that version (another type, the same text).

    Why the cuts stay where they were: a line starts an entry or not by its own characters
    (``_ENTRY_AT`` ends before the line does, and the blanks before it are the line's). A line
    wholly before the first changed character is unchanged, and so is a line that starts after
    the last one, its newline before it included: the cuts at those lines are the last
    version's. The piece that holds the first change and the one before it (the change may undo
    the cut between them) are cut again, up to the first piece the unchanged end holds whole."""
    old = layout.text
    if type(old) is not type(text) or old == text:
        return None
    starts = layout.starts
    n_old, n_new = len(old), len(text)
    p = _common_prefix(old, text)
    s = _common_suffix(old, text, min(n_old, n_new) - p)
    first = max(bisect_right(starts, p) - 2, 0)  # the piece of the first change, and the one before
    after = bisect_left(starts, n_old - s + 1)  # the first piece whose line and newline are kept
    begin = starts[first]
    end_old = starts[after] if after < len(starts) else n_old
    end_new = end_old + n_new - n_old
    window = text[begin:end_new]
    newline: str | bytes = "\n" if isinstance(text, str) else b"\n"
    moved = window.count(newline) - old[begin:end_old].count(newline)  # type: ignore[arg-type]
    firsts, keys = layout.firsts, layout.keys
    out: list[_Known] = [(starts[k], firsts[k], None, keys[k]) for k in range(first)]
    line0 = firsts[first] - 1
    for at, line, piece, _ in _cut_pieces(window):
        out.append((begin + at, line0 + line, piece, None))
    grown = n_new - n_old
    out.extend((starts[k] + grown, firsts[k] + moved, None, keys[k])
               for k in range(after, len(starts)))
    return out


def _disk_key(file: str) -> str:
    return "chunks-" + bibcache.digest(f"{bibcache.FORMAT}\0{file}".encode("utf-8", "surrogatepass"))


def _table(file: str, disk: Path | None,
           held: Mapping[str, Entry] | None = None) -> dict[str, Piece | _Placed]:
    """The pieces of the file's last version: in memory, else from the cache folder. ``held``:
    the entries of the file's last version held in memory (by key); a piece from the folder
    that reads as some of them is kept as them (:func:`_as_placed`), part by part as the file
    is read: the first ``.bib`` edit under ``mkdocs serve`` held the folder's 20,000 pieces
    (43 MB of tuples) beside those very entries."""
    found = bibcache.piece_tables.get(file)
    if found is not None:
        return cast("dict[str, Piece | _Placed]", found)
    if disk is not None:
        each = None
        if held:
            def each(item: tuple[str, Piece]) -> tuple[str, Piece | _Placed]:
                return item[0], _as_placed(item[1], held, file)
        loaded = bibcache.disk_load(disk, _disk_key(file), each=each)
        if isinstance(loaded, sealed.Joined) and loaded.head is None:
            return dict(loaded.items)
    return {}


def _as_placed(piece: Piece, held: Mapping[str, Entry], file: str) -> Piece | _Placed:
    """``piece`` as the held entries it reads as, all at one line shift, or as it is."""
    entries, strings, preambles = piece
    if not entries or strings or preambles:
        return piece
    shift = None
    priors = []
    for key, type_, line, triples, _ in entries:
        prior = held.get(key)
        if prior is None or prior.type != type_:
            return piece
        at = prior.location.line - line
        if (shift is not None and at != shift) or prior.location.file != file \
                or not packed_same_fields(prior, file, triples, at):
            return piece
        shift = at
        priors.append(prior)
    assert shift is not None
    return _Placed(shift, tuple(priors))


def _stored(table: Callable[[], Iterable[tuple[str, Piece | _Placed]]]) -> sealed.Parts:
    """A table's pieces as the cache folder stores them: written in parts, each piece whole."""
    return sealed.Parts(None, lambda: sealed.chunked(_full_pieces(table())))


def _full_pieces(table: Iterable[tuple[str, Piece | _Placed]]) -> Iterator[tuple[str, Piece]]:
    """``table``'s pieces whole (:func:`_full`), one at a time. A generator function, not a
    generator expression: compiled (mypyc), an expression passed to a call was made into a
    list first, every piece of a 20,000-entry file at once."""
    for k, v in table:
        yield k, _full(v)


def _keep(file: str, table: dict[str, Piece | _Placed],
          placed: dict[tuple[str, int], tuple[Entry, ...]], disk: Path | None, *,
          write: bool, on_disk: bool = False) -> None:
    """Keep the pieces of the file's version just read for the next one: in the cache folder
    (``write``), and in memory unless the folder has them (written now, or ``on_disk``: those
    of an earlier version, all but a few of them). A one-shot build (``sphinx-build``,
    ``mkdocs build``) then lets them go: the next version is read by the next process, from the
    folder, and the pieces of a 20,000-entry file held 20 MB through the rest of the build.
    ``mkdocs serve`` holds its cache writes until it stops (``refbook.sealed.defer_writes``):
    it keeps them in memory."""
    stored = disk is not None and write and bibcache.disk_store(
        disk, _disk_key(file), _stored(table.items))
    if (stored or (on_disk and not write)) and not sealed.deferring():
        _forget(file)
    else:
        bibcache.piece_tables.put(file, cast("dict[str, object]", table))
        _placed.put(file, placed)


def _forget(file: str) -> None:
    bibcache.piece_tables.pop(file)
    _placed.pop(file)
    _layouts.pop(file)


def _state(previous: str, strings: tuple[tuple[str, str], ...]) -> str:
    """The digest of the macros visible after ``strings`` are defined (a chain of digests)."""
    h = hashlib.blake2b(previous.encode("ascii"), digest_size=16)
    for name, value in strings:
        h.update(b"\0" + name.lower().encode("utf-8", "surrogatepass") + b"\0"
                 + value.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _piece_key(text: str | bytes, state: str) -> str:
    h = hashlib.blake2b(text if isinstance(text, bytes) else
                        text.encode("utf-8", "surrogatepass"), digest_size=16)
    h.update(state.encode("ascii"))
    return h.hexdigest()


def _comments_closed(text: str) -> bool:
    """Whether every ``@comment{`` of a piece closes inside it (JabRef writes its settings in
    such blocks). One whose braces run on into the next piece would hide entries from the whole
    parse, not from the piece: such a text is declined, as is ``@comment(`` (rare)."""
    for m in _COMMENT.finditer(text):
        if m.group(1) == "(":
            return False
        if m.group(1) == "{":
            depth = 0
            for b in _BRACES.finditer(text, m.end() - 1):
                depth += 1 if b.group() == "{" else -1
                if depth == 0:
                    break
            else:
                return False
    return True


def _parse_piece(text: str, file: str, macros: Mapping[str, str],
                 parse: Callable[..., ParseResult]) -> Piece | None:
    """One piece parsed alone; ``None`` if it does not read cleanly on its own."""
    if not _comments_closed(text):
        return None
    result = parse(text, file, macros=macros)
    if result.diagnostics:
        return None
    entries = []
    for e in result.entries:
        triples = tuple((f.name, f.value, f.location.line) for f in e.fields)
        entries.append((e.key, e.type, e.location.line, triples,
                        piece_digest(e.key, e.type, e.location.line, triples)))
    return tuple(entries), result.strings, result.preambles


def _initial_state(macros: Mapping[str, str]) -> str:
    return _state("", tuple(sorted(macros.items())))


def remember(text: str, file: str, macros: Mapping[str, str], disk: Path | None,
             result: ParseResult) -> None:
    """Keep the pieces of a whole-text parse (``result``), so that the next version of the file
    is assembled from them. Only a clean parse is cut up (see :func:`assemble`); the entries of
    a piece are those whose line falls in it; a piece that holds ``@string``/``@preamble`` is
    parsed alone (they carry no lines to place them by).

    A one-shot build with a cache folder writes the pieces there as they are cut, never holding
    them all (17 MB for a 20,000-entry file, at the peak of its cold build); one that holds its
    writes for a forked writer (``refbook.sealed.hold_writes``) hands it the table of pieces
    as entries (no copy of a field) and lets it go; a long process (``mkdocs serve``) or one
    without a folder keeps them in memory."""
    _layouts.pop(file)  # (the next edit is read against this version's table, cut afresh)
    if result.diagnostics:
        return
    if disk is not None and not sealed.holding() and bibcache.disk_store(
            disk, _disk_key(file), _stored(lambda: _pieces(text, file, macros, result, None))):
        _forget(file)
        return
    placed: dict[tuple[str, int], tuple[Entry, ...]] = {}
    try:
        table: dict[str, Piece | _Placed] = dict(_pieces(text, file, macros, result, placed))
    except _DeclinedError:
        return
    for (key, shift), entries in placed.items():  # pieces of entries: held as their entries
        table[key] = _Placed(shift, entries)
    # not written again when the write above failed (a read-only folder): kept in memory
    _keep(file, table, placed, disk, write=disk is not None and sealed.holding())


class _DeclinedError(Exception):
    """A piece that holds ``@string``/``@preamble``/``@comment`` does not read cleanly alone:
    the file's pieces are not kept (the write of those cut so far is abandoned)."""


def _pieces(text: str, file: str, macros: Mapping[str, str], result: ParseResult,
            placed: dict[tuple[str, int], tuple[Entry, ...]] | None,
            ) -> Iterator[tuple[str, Piece]]:
    """The pieces of :func:`remember` one by one, and into ``placed`` (unless ``None``) the
    entries of ``result`` each piece of entries holds, by (piece key, line shift)."""
    visible = dict(macros)
    state = _initial_state(macros)
    entries = result.entries
    at = 0
    for first, piece_text, last in split(text):
        end = None if last else first + piece_text.count("\n")  # the next piece's first line
        key = _piece_key(piece_text, state)
        if _SPECIAL.search(piece_text):  # parsed alone, with its @comment check
            from refbook.readers.bibtex import parse_bibtex

            piece = _parse_piece(piece_text, file, visible, parse_bibtex)
            if piece is None:
                raise _DeclinedError
            # skip the whole parse's entries of this piece (a piece parsed alone has them)
            while at < len(entries) and (end is None or entries[at].location.line < end):
                at += 1
            if piece[1]:
                for name, value in piece[1]:
                    visible[name.lower()] = value
                state = _state(state, piece[1])
        else:  # a piece of entries: those of the whole parse whose lines fall in it
            shift = first - 1
            start = at
            while at < len(entries) and (end is None or entries[at].location.line < end):
                at += 1
            piece = _full(_Placed(shift, entries[start:at]))
            if placed is not None:
                placed[(key, shift)] = entries[start:at]
        yield key, piece


def assemble(text: str | bytes, file: str, macros: Mapping[str, str], disk: Path | None,
             parse: Callable[..., ParseResult], *,
             last: Sequence[Entry] = ()) -> tuple[ParseResult, int] | None:
    """The parse of ``text`` from the pieces of the file's last version, parsing only the new
    ones with ``parse``, and how many pieces were parsed; ``None`` when there is no last version
    or the pieces cannot stand for the whole text (see the module docstring): the caller then
    parses the whole text and calls :func:`remember`. ``last``: the entries of the file's last
    version held in memory; one equal to an entry of the new version (same key, type, fields and
    lines) is re-used instead of built again.

    ``text`` may be the file's bytes when :func:`plain_utf8` says so: only the new pieces are
    decoded (``None`` if one is not UTF-8). An edit of a 20,000-entry file then never holds
    its decoded text (23 MB when a few of its characters are not Latin-1, beside its 12 MB
    of bytes)."""
    before = _placed.get(file) or {}
    held = {e.key: e for e in last} if last and not before else {}
    old = _table(file, disk, held)
    if not old:
        return None
    # an edit of the version read last in this process (``mkdocs serve``): only the pieces
    # around the change are cut and digested (a 20,000-entry file: 40 of every edit's 60 ms)
    layout = _layouts.get(file) if not macros else None
    known = _edited_pieces(layout, text) if layout is not None else None
    pieces: Iterable[_Known] = known if known is not None else _cut_pieces(text)
    # this version's layout, for the next edit: where the pieces are held in memory
    record = not macros and (disk is None or sealed.deferring())
    starts: list[int] = []
    firsts: list[int] = []
    piece_keys: list[str] = []
    new: dict[str, Piece | _Placed] = {}
    parsed = 0
    visible = dict(macros)
    state = _initial_state(macros)
    entries: list[Entry] = []
    strings: list[tuple[str, str]] = []
    preambles: list[str] = []
    keys: set[str] = set()
    expanded = 0
    placed: dict[tuple[str, int], tuple[Entry, ...]] = {}
    reused: list[tuple[Entry, ...]] = []  # pieces' entries taken as they were
    for start, first, piece_text, kept_key in pieces:
        if kept_key is not None:
            if strings:
                return None  # a piece cut again defined macros: the keys kept are not of them
            key = kept_key
        else:
            assert piece_text is not None
            key = _piece_key(piece_text, state)
        if record:
            starts.append(start)
            firsts.append(first)
            piece_keys.append(key)
        shift = first - 1
        found = new.get(key) or old.get(key)
        if found is None:
            if piece_text is None:
                return None  # not in the last version's table after all: read the whole text
            if isinstance(piece_text, bytes):
                try:
                    piece_text = piece_text.decode("utf-8")
                except UnicodeDecodeError:
                    return None  # the whole read reports it
            found = _parse_piece(piece_text, file, visible, parse)
            parsed += 1
            if found is None:
                return None
        same = before.get((key, shift))
        if same is None and isinstance(found, _Placed) and found.shift == shift:
            same = found.entries  # what the piece reads as at this very place
        if same is not None and isinstance(found, _Placed):
            # the entries this piece gave at this very place last time: re-used as they are
            for e in same:
                if e.key in keys:  # the whole parse reports the second one
                    return None
                keys.add(e.key)
            reused.append(same)
            new[key] = _Placed(shift, same)
            placed[(key, shift)] = same
            entries.extend(same)
            continue
        piece = _full(found)
        piece_entries, piece_strings, piece_preambles = piece
        built: list[Entry] = []
        for n, (k, type_, line, fields, digest) in enumerate(piece_entries):
            if k in keys:  # the whole parse reports the second one
                return None
            keys.add(k)
            expanded += sum(len(v) for _, v, _ in fields)
            # the entry this piece gave at this very place last time is equal to a new one
            if same is not None and n < len(same):
                built.append(same[n])
                continue
            prior = held.get(k)
            if prior is not None and _unchanged(prior, type_, line + shift, fields, shift, file):
                built.append(prior)
                continue
            built.append(packed_entry(file, k, type_, line, fields, shift, digest))
        if piece_entries:
            placed[(key, shift)] = tuple(built)
            entries.extend(built)
        # held in memory as its entries (a piece of @string/@preamble as it is)
        new[key] = _Placed(shift, tuple(built)) if piece_entries and not (
            piece_strings or piece_preambles) else piece
        if piece_strings:
            for name, value in piece_strings:
                if name.lower() in visible and visible[name.lower()] != macros.get(name.lower()):
                    return None  # defined twice in the file: the whole parse decides
                visible[name.lower()] = value
                expanded += len(value)
            strings.extend(piece_strings)
            state = _state(state, piece_strings)
        preambles.extend(piece_preambles)
    if (macros or strings) and _over_budget(
            expanded + sum(_value_chars(e) for same in reused for e in same), text):
        # without @string macros, expansion is of the month names alone: at most 9 characters
        # for 3 of the text, never near the budget (8 per character); the values of 20,000
        # re-used entries were counted for nothing (~30 ms of a `mkdocs serve` .bib edit)
        return None  # the whole parse might reach the file's expansion budget: it decides
    # a few new pieces are not worth rewriting the folder's table for (11 MB for a 20,000-entry
    # file): the next process parses them again. At most 1 in REWRITE_SHARE of them, and as
    # few pieces in the folder that this version no longer has (it never grows with versions)
    on_disk = old is not bibcache.piece_tables.get(file)
    limit = len(new) // REWRITE_SHARE
    few = on_disk and parsed <= limit and len(old) - (len(new) - parsed) <= limit
    _keep(file, new, placed, disk, write=parsed > 0 and not few, on_disk=on_disk)
    if record and not strings and bibcache.piece_tables.get(file) is new:
        _layouts.put(file, _Layout(text, starts, firsts, piece_keys))
    else:
        _layouts.pop(file)
    return ParseResult(tuple(entries), (), tuple(strings), tuple(preambles)), parsed


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def _over_budget(expanded: int, text: str | bytes) -> bool:
    """Whether macro expansion of ``expanded`` characters might reach the expansion budget of
    a whole parse of ``text`` (its characters: of UTF-8 bytes, the bytes that start one, at
    least a quarter of them; counted only when that bound does not answer)."""
    from refbook.readers.bibtex import expansion_budget

    if isinstance(text, str) or text.isascii():
        return expanded > expansion_budget(len(text))
    if expanded <= expansion_budget(len(text) // 4):
        return False
    return expanded > expansion_budget(len(text.translate(None, _CONTINUATION_BYTES)))


def _unchanged(entry: Entry, type_: str, line: int,
               fields: tuple[tuple[str, str, int], ...], shift: int, file: str) -> bool:
    """Whether ``entry`` is what a piece's entry (``type_``, ``fields``) reads as at ``line``."""
    if entry.type != type_ or entry.location.line != line or entry.location.file != file:
        return False
    same = packed_same_fields(entry, file, fields, shift)
    if same is not None:
        return same
    if len(entry.fields) != len(fields):
        return False
    return all(f.name == name and f.value == value and f.location.line == ln + shift
               and f.location.file == file
               for f, (name, value, ln) in zip(entry.fields, fields, strict=True))


def clear_memory() -> None:
    """Forget the pieces held in memory (tests: as a new process)."""
    bibcache.piece_tables.clear()
    _placed.clear()
    _layouts.clear()
