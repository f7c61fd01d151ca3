"""Core data models: what the readers produce and every later stage consumes.

All models are frozen records (``refbook.records``: slotted dataclasses, made cheaply) with
tuple fields, so they can be cached, hashed, pickled across Sphinx's parallel workers and
compared in tests.
"""

from __future__ import annotations

import hashlib
import marshal
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

from refbook.records import field, record
from refbook.records import fields as record_fields

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from refbook.diagnostics import Diagnostic

#: More digits in a row than this are never read as a number (a year, a volume, a page, a
#: citation number): Python refuses to convert more than 4300, and nothing real has 19.
MAX_DIGITS = 18


@record(frozen=True, order=True)
class Location:
    """A place in a source file (1-based line; 0 means "the whole file")."""

    file: str
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@record(frozen=True)
class Person:
    """One name of a name list, split the way BibTeX splits it.

    The parts are plain Unicode (LaTeX decoded, braces removed). ``literal`` is set for a name
    written entirely in braces (``{{World Health Organization}}``) or that has no parts to split:
    it is rendered as written and never abbreviated or inverted. ``others`` marks BibTeX's
    ``and others``.
    """

    first: str = ""
    von: str = ""
    last: str = ""
    jr: str = ""
    literal: str = ""
    others: bool = False

    @property
    def is_literal(self) -> bool:
        return bool(self.literal)


@record(frozen=True)
class Field:
    """A field of an entry: lower-cased name, its value as LaTeX source, where it was written.

    ``value`` is the field after ``@string`` expansion and ``#`` concatenation, with the outer
    delimiters removed but inner braces and LaTeX commands kept (case protection and markup
    matter to styles). ``refbook.latex`` turns it into text or inline markup.
    """

    name: str
    value: str
    location: Location


def fields_from(file: str, packed: Iterable[tuple[str, str, int]]) -> tuple[Field, ...]:
    """``tuple(Field(name, value, Location(file, line)) for name, value, line in packed)``,
    built twice as fast: a frozen record's ``__init__`` sets each slot through
    ``object.__setattr__``, and a cache load of 20,000 entries builds 164,000 fields and as
    many locations (0.23 s → 0.10 s). The slots are set directly, as ``__init__`` would; the
    two classes have no ``__post_init__``, and ``_FAST_SLOTS`` below fails at import when
    their fields change."""
    new = object.__new__
    out = []
    for name, value, line in packed:
        loc = new(Location)
        _LOC_FILE(loc, file)
        _LOC_LINE(loc, line)
        f = new(Field)
        _FIELD_NAME(f, name)
        _FIELD_VALUE(f, value)
        _FIELD_LOCATION(f, loc)
        out.append(f)
    return tuple(out)


# the slot setters fields_from uses, checked against the classes' fields
_FAST_SLOTS = (tuple(f.name for f in record_fields(Location)),
               tuple(f.name for f in record_fields(Field)))
if _FAST_SLOTS != (("file", "line"), ("name", "value", "location")):  # pragma: no cover
    msg = f"refbook.models.fields_from is out of date with the models' fields: {_FAST_SLOTS}"
    raise RuntimeError(msg)
_LOC_FILE, _LOC_LINE = (vars(Location)[n].__set__ for n in _FAST_SLOTS[0])
_FIELD_NAME, _FIELD_VALUE, _FIELD_LOCATION = (vars(Field)[n].__set__ for n in _FAST_SLOTS[1])


@record(frozen=True)
class Entry:
    """One bibliography entry. ``type`` is lower-cased; fields keep their source order."""

    key: str
    type: str
    fields: tuple[Field, ...]
    location: Location
    #: name → the first field of that name (rules look fields up by name a million times)
    _by_name: dict[str, Field] = field(default_factory=dict, init=False, compare=False,
                                       repr=False, hash=False)
    #: the validation memo's digest of this entry (``refbook.validate``), worked out once per
    #: entry object: a long process re-uses the objects of unchanged entries after an edit
    _digest: bytes | None = field(default=None, init=False, compare=False, repr=False,
                                  hash=False)

    def __post_init__(self) -> None:
        by_name = self._by_name
        for f in self.fields:
            by_name.setdefault(f.name, f)

    def field(self, name: str) -> Field | None:
        return self._by_name.get(name)

    def get(self, name: str, default: str = "") -> str:
        f = self._by_name.get(name)
        return f.value if f is not None else default

    def __contains__(self, name: object) -> bool:
        return name in self._by_name



class PackedEntry(Entry):
    """An :class:`Entry` loaded from a cache file, its fields built when first read.

    A cache load of a 20,000-entry file built 164,000 fields and as many locations, and an
    incremental Sphinx build that only re-cites (the book's resolution asks for the cited
    entries and the keys of the rest) read none of them. Made by :func:`packed_entry`: the key,
    type and location are set; ``fields`` and the by-name table are built from the packed
    ``(name, value, line)`` triples on the first read of either (``__getattr__``: their slots
    are empty until then), and the triples dropped. ``name in entry`` answers from the triples
    without building anything.

    It is an ``Entry`` in every respect: equal to and hashed as the ``Entry`` of the same key,
    type, fields and location, shown and pickled as one (``Entry`` is what a cache file holds).
    """

    __slots__ = ("_packed",)
    _packed: tuple[str, int, tuple[tuple[str, str, int], ...]] | None

    def __getattr__(self, name: str) -> object:
        # only for slots still empty: the fields and the table, and _packed on an object
        # made by Entry's own __init__ (refbook.records.replace)
        if name == "_packed":
            return None
        if name not in ("fields", "_by_name"):
            raise AttributeError(name)
        packed = self._packed
        if packed is None:  # pragma: no cover - both slots are set whenever _packed is None
            raise AttributeError(name)
        file, shift, triples = packed
        fields = fields_from(file, triples if not shift else
                             ((n, v, line + shift) for n, v, line in triples))
        _ENTRY_FIELDS(self, fields)
        _ENTRY_BY_NAME(self, {})
        Entry.__post_init__(self)  # the by-name table, as Entry builds it
        _PACKED(self, None)
        return fields if name == "fields" else self._by_name

    def __contains__(self, name: object) -> bool:
        packed = self._packed
        if packed is None:
            return name in self._by_name
        return name in map(_NAME, packed[2])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.key == other.key and self.type == other.type
                and self.location == other.location and self.fields == other.fields)

    def __hash__(self) -> int:
        return hash((self.key, self.type, self.fields, self.location))

    def __repr__(self) -> str:
        return (f"Entry(key={self.key!r}, type={self.type!r}, fields={self.fields!r}, "
                f"location={self.location!r})")

    def __reduce__(self) -> tuple[type[Entry], tuple[str, str, tuple[Field, ...], Location]]:
        return (Entry, (self.key, self.type, self.fields, self.location))


def field_names(entry: Entry) -> Iterator[str]:
    """The names of the entry's fields in order, repeats included, without building the
    fields of a :class:`PackedEntry` that has not built them."""
    if type(entry) is PackedEntry:
        packed = entry._packed
        if packed is not None:
            return map(_NAME, packed[2])
    return map(_FIELD_NAME_OF, entry.fields)


def packed_of(entry: Entry) -> tuple[str, int, tuple[tuple[str, str, int], ...]] | None:
    """``(file, shift, triples)`` of a :class:`PackedEntry` whose fields were never built, as
    it holds them: the file of the entry and of every field, and each field's
    ``(name, value, line)``, the field being on line ``line + shift`` (an entry assembled from a
    piece keeps the piece's triples, counted from its first line). ``None`` for any other entry
    (read its fields)."""
    if type(entry) is not PackedEntry:
        return None
    return entry._packed


def packed_relative(entry: Entry, shift: int) -> tuple[tuple[str, str, int], ...] | None:
    """For a :class:`PackedEntry` whose fields were never built: each field's (name, value,
    line - ``shift``), its own triples when they are counted from that very line (no copy);
    ``None`` for any other entry (read its fields)."""
    packed = packed_of(entry)
    if packed is None:
        return None
    own_shift, own = packed[1], packed[2]
    if own_shift == shift:
        return own
    move = own_shift - shift
    return tuple((n, v, line + move) for n, v, line in own)


def packed_same_fields(entry: Entry, file: str, triples: Iterable[tuple[str, str, int]],
                       shift: int) -> bool | None:
    """For a :class:`PackedEntry` whose fields were never built: whether its fields are
    ``triples`` (name, value, line + ``shift``) read from ``file``, answered from its own
    triples without building a field; ``None`` for any other entry (compare its fields). An
    edit of a 20,000-entry file under ``mkdocs serve`` compared every unchanged entry
    with its piece, and built 164,000 fields (20 MB) to do so."""
    packed = packed_of(entry)
    if packed is None:
        return None
    own_file, own_shift, own = packed
    if own_file != file:
        return False
    mine = tuple(triples)
    if len(own) != len(mine):
        return False
    return all(n == name and v == value and ln + own_shift == line + shift
               for (n, v, ln), (name, value, line) in zip(own, mine, strict=True))


def entry_digest(entry: Entry) -> bytes:
    """The validation memo's digest of an entry (``refbook.validate``): everything the
    per-entry rules read, its key, type and each field's (name, value, line counted from the
    entry's line; (file, line) for a field of another file). A digest, not the values: the
    memo of a 20,000-entry file stays small on disk. Kept on the (frozen) entry: a
    ``mkdocs serve`` rebuild after a one-entry edit has the other entries' objects, and their
    digests, from the last read. The pieces of ``refbook.readers.chunks`` keep it in the cache
    folder too, so ``refbook.bibcache.FORMAT`` changes with this function."""
    found = entry._digest
    if found is not None:
        return found
    packed = packed_of(entry)
    if packed is not None:
        # an entry from the cache folder whose fields were never read: the same text from its
        # (name, value, line) triples, every one in the entry's file, without building the
        # fields (a .bib edit's check of 20,000 entries built 164,000 of them for this digest)
        # nor the triples at their lines now (line + shift)
        digest = piece_digest(entry.key, entry.type, entry.location.line - packed[1], packed[2])
    else:
        base = entry.location
        digest = _rows_digest(entry.key, entry.type, tuple(
            (f.name, f.value, f.location.line - base.line
             if f.location.file == base.file else (f.location.file, f.location.line))
            for f in entry.fields))
    object.__setattr__(entry, "_digest", digest)
    return digest


def piece_digest(key: str, type_: str, line: int,
                 triples: tuple[tuple[str, str, int], ...]) -> bytes:
    """:func:`entry_digest` of an entry on ``line`` whose fields are ``triples``
    (name, value, line), every one in the entry's file, lines counted alike."""
    return _rows_digest(key, type_, tuple((n, v, at - line) for n, v, at in triples))


def _rows_digest(key: str, type_: str,
                 rows: tuple[tuple[str, str, int | tuple[str, int]], ...]) -> bytes:
    # marshal's version 0 (no references, no interning: the same bytes for equal values in
    # any process) is an unambiguous form of these strings, numbers and tuples, made 2x faster
    # than their repr (20,000 entries: 130 -> 60 ms)
    return hashlib.blake2b(marshal.dumps((key, type_, rows), 0), digest_size=16).digest()


def packed_entry(file: str, key: str, type_: str, line: int,
                 triples: tuple[tuple[str, str, int], ...], shift: int = 0,
                 digest: bytes | None = None) -> Entry:
    """``Entry(key, type_, fields_from(file, triples), Location(file, line + shift))``, every
    field line moved by ``shift`` too, with the fields built when first read
    (:class:`PackedEntry`); ``digest``: its :func:`entry_digest` when known."""
    e = object.__new__(PackedEntry)
    loc = object.__new__(Location)
    _LOC_FILE(loc, file)
    _LOC_LINE(loc, line + shift)
    _ENTRY_KEY(e, key)
    _ENTRY_TYPE(e, type_)
    _ENTRY_LOCATION(e, loc)
    _ENTRY_DIGEST(e, digest)
    _PACKED(e, (file, shift, triples))
    return e


# the slot setters packed_entry and PackedEntry use, checked against Entry's fields
_ENTRY_SLOTS = tuple(f.name for f in record_fields(Entry))
if _ENTRY_SLOTS != ("key", "type", "fields", "location", "_by_name", "_digest"):  # pragma: no cover
    msg = f"refbook.models.PackedEntry is out of date with Entry's fields: {_ENTRY_SLOTS}"
    raise RuntimeError(msg)
_ENTRY_KEY, _ENTRY_TYPE, _ENTRY_FIELDS, _ENTRY_LOCATION, _ENTRY_BY_NAME, _ENTRY_DIGEST = (
    vars(Entry)[n].__set__ for n in _ENTRY_SLOTS)
_PACKED = vars(PackedEntry)["_packed"].__set__
_NAME = itemgetter(0)
_FIELD_NAME_OF = attrgetter("name")



@record(frozen=True)
class Bibliography:
    """All entries of a book (one or several files), in reading order, with reading diagnostics.

    When two files define the same key, the first definition wins and the second is reported.
    """

    entries: tuple[Entry, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    sources: tuple[str, ...] = ()
    _index: dict[str, Entry] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = self._index
        for e in self.entries:
            index.setdefault(e.key, e)

    def __getitem__(self, key: str) -> Entry:
        return self._index[key]

    def get(self, key: str) -> Entry | None:
        return self._index.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def keys(self) -> tuple[str, ...]:
        return tuple(e.key for e in self.entries)


class DeferredBibliography(Bibliography):
    """A :class:`Bibliography` whose files are parsed when it is first used: made by
    :func:`refbook.readers.read_bibliography_deferred`, for a host whose book-wide results
    (checks, resolution) may all come from its cache folder, keyed by the files' digests. Such a
    build never parses the files, nor builds their entries (a 20,000-entry file: 164,000 fields).

    It is a ``Bibliography`` in every respect: each attribute and method reads the files first
    (once; the bytes it parses are those that were digested when it was made, so the parse and
    the results keyed by their digest agree); it compares and hashes as the bibliography it
    reads, and pickles as that bibliography."""

    __slots__ = ("_bib", "_load")
    _bib: Bibliography | None
    _load: Callable[[], Bibliography] | None

    def __init__(self, load: Callable[[], Bibliography]) -> None:  # no record __init__
        object.__setattr__(self, "_load", load)
        object.__setattr__(self, "_bib", None)

    def read(self) -> Bibliography:
        """The bibliography, its files parsed now if they were not yet."""
        bib: Bibliography | None = self._bib
        if bib is None:
            load = self._load
            assert load is not None
            bib = load()
            object.__setattr__(self, "_bib", bib)
            object.__setattr__(self, "_load", None)  # nor the bytes it held
        return bib

    @property
    def parsed(self) -> bool:
        """Whether the files have been parsed (the bibliography used)."""
        return self._bib is not None

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.read().entries

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.read().diagnostics

    @property
    def sources(self) -> tuple[str, ...]:
        return self.read().sources

    @property
    def _index(self) -> dict[str, Entry]:
        return self.read()._index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DeferredBibliography):
            other = other.read()
        return self.read() == other

    def __hash__(self) -> int:
        return hash(self.read())

    def __repr__(self) -> str:
        return f"DeferredBibliography({self.read()!r})" if self.parsed else (
            "DeferredBibliography(<not parsed yet>)")

    def __reduce__(self) -> tuple[Callable[[Bibliography], Bibliography], tuple[Bibliography]]:
        return (_as_read, (self.read(),))


def _as_read(bib: Bibliography) -> Bibliography:
    return bib


def is_bibtex_file(file: str) -> bool:
    """pandoc reads a ``.bibtex`` file as BibTeX, any other bibliography as BibLaTeX."""
    return file.lower().endswith(".bibtex")
