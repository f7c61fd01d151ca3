"""Readers: the bibliography files of a book → one ``Bibliography`` with its diagnostics.

Where it sits: the start of the flow. Hosts (Sphinx, MkDocs, the CLI) call
:func:`read_bibliography` with the configured paths; it reads each file (``refbook.bibcache``
first, ``refbook.readers.bibtex.parse_bibtex`` on a miss), merges them in order and resolves
``crossref``/``xdata`` book-wide. Every later stage (validation, styles) consumes the result.

File problems (missing, a directory, not UTF-8) are diagnostics, never exceptions.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, cast

from refbook import bibcache, sealed
from refbook.diagnostics import Code, Diagnostic
from refbook.gcpause import paused_gc
from refbook.models import (
    Bibliography,
    DeferredBibliography,
    Entry,
    Field,
    Location,
    field_names,
    is_bibtex_file,
    packed_entry,
    packed_of,
)
from refbook.readers.result import ParseResult

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

__all__ = ["ParseResult", "is_bibtex_file", "parse_bibtex", "read_bibliography",
           "read_bibliography_deferred", "read_digest", "resolve_crossrefs"]


def _files_of(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The paths as given, each file once (a path listed twice is read once)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]  # one path, not a sequence of one-letter paths
    files: list[str] = []
    seen: set[str] = set()
    for p in paths:
        name = os.fsdecode(os.fspath(p))
        ident = os.path.normcase(os.path.abspath(name))
        if ident not in seen:
            seen.add(ident)
            files.append(name)
    return files


def _contents(files: list[str]) -> tuple[list[tuple[str, bytes | None, str]], list[Diagnostic]]:
    """Each file's bytes and digest (a file that cannot be read: no bytes, its problem)."""
    contents: list[tuple[str, bytes | None, str]] = []
    file_diagnostics: list[Diagnostic] = []
    for name in files:
        data, problem = _read_bytes(name)
        if data is None:
            assert problem is not None
            file_diagnostics.append(problem)
            contents.append((name, None, "!" + problem.message))
        else:
            contents.append((name, data, bibcache.digest(data)))
    return contents, file_diagnostics


#: each list of files' last read in this process: its (file, content digest) pairs
#: (:func:`read_digest`); a few lists at most
_LAST_READ: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}


def _remember_read(files: list[str], memo_key: tuple[tuple[str, str], ...]) -> None:
    if len(_LAST_READ) >= 16 and tuple(files) not in _LAST_READ:
        _LAST_READ.clear()
    _LAST_READ[tuple(files)] = memo_key


def read_digest(paths: Sequence[str | os.PathLike[str]]) -> str | None:
    """A digest of the names and contents of the files that the last :func:`read_bibliography`
    (or :func:`read_bibliography_deferred`) of ``paths`` in this process read: the bytes it
    parsed, or will parse; ``None`` if they were not read here. What a host keys its cached
    book-wide results by, without reading and hashing every file a second time (a 12 MB
    ``.bib`` file: 15 ms per ``mkdocs serve`` rebuild)."""
    found = _LAST_READ.get(tuple(_files_of(paths)))
    if found is None:
        return None
    h = hashlib.blake2b(digest_size=20)
    for name, dig in found:
        h.update(os.fsencode(name) + b"\0" + dig.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def read_bibliography(
    paths: Sequence[str | os.PathLike[str]],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Bibliography:
    """Read ``.bib`` files in order into one ``Bibliography``.

    As in BibTeX, ``@string`` macros of a file are visible in the files after it, and the first
    definition of a key wins (later ones are reported). A path listed twice is read once.
    Locations name each file as it was given in ``paths``.

    Parses are cached by file content in memory; ``cache_dir`` (default: the environment
    variable ``REFBOOK_CACHE_DIR``, unset = none) adds a disk cache that survives the process.
    """
    files = _files_of(paths)
    contents, file_diagnostics = _contents(files)
    memo_key = tuple((name, dig) for name, _, dig in contents)
    _remember_read(files, memo_key)
    cached = bibcache.bibliographies.get(memo_key)
    if cached is not None:
        return cached
    return _read_now(files, contents, file_diagnostics, memo_key, cache_dir)


def read_bibliography_deferred(
    paths: Sequence[str | os.PathLike[str]],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Bibliography:
    """:func:`read_bibliography`, with the parse put off until the bibliography is first used
    (a :class:`~refbook.models.DeferredBibliography`): the files are read and digested now, and
    parsed, from those very bytes, when an entry, a key or a diagnostic is first asked for. A
    host whose results for these digests are all in its cache folder never parses them.

    The same files with the same contents give the same object again (parsed or not), as
    :func:`read_bibliography` gives the same bibliography: hosts key their work by identity."""
    files = _files_of(paths)
    contents, file_diagnostics = _contents(files)
    memo_key = tuple((name, dig) for name, _, dig in contents)
    _remember_read(files, memo_key)
    held = bibcache.deferred.get(tuple(files))
    if held is not None and held[0] == memo_key:
        return held[1]
    cached = bibcache.bibliographies.get(memo_key)
    if cached is not None:
        return cached
    bib = DeferredBibliography(
        lambda: _read_now(files, contents, file_diagnostics, memo_key, cache_dir))
    bibcache.deferred.put(tuple(files), (memo_key, bib))  # one version per list of files
    return bib


def _read_now(files: list[str], contents: list[tuple[str, bytes | None, str]],
              file_diagnostics: list[Diagnostic], memo_key: tuple[tuple[str, str], ...],
              cache_dir: str | os.PathLike[str] | None) -> Bibliography:

    disk = Path(cache_dir) if cache_dir is not None else bibcache.cache_dir_from_env()
    macros: dict[str, str] = {}
    results: list[ParseResult] = []
    with paused_gc():
        for name, data, dig in contents:
            if data is None:
                continue
            result = _parse_cached(name, data, dig, macros, disk)
            for macro, value in result.strings:
                macros[macro.lower()] = value
            results.append(result)
        bib = _merge(files, results, file_diagnostics)
    # one version per list of files: the read of their earlier contents is dropped
    bibcache.bibliographies.put(memo_key, bib, slot=tuple(name for name, _, _ in contents))
    return bib


def _read_bytes(name: str) -> tuple[bytes | None, Diagnostic | None]:
    path = Path(name)
    where = Location(name)
    try:
        data = path.read_bytes()
        if path.suffix.lower() == ".json" and data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (
                b"[", b"{"):
            # read as BibTeX it held no entry, and said nothing: every reference lost
            return None, Diagnostic(
                Code.FILE, f"{name} is CSL-JSON: the builds and the command line read .bib "
                "files only (refbook.api reads CSL-JSON)", where,
                "list the .bib file instead, or convert it: pandoc -f csljson -t biblatex "
                f"{path.name} -o {path.stem}.bib")
        return data, None
    except FileNotFoundError:
        return None, Diagnostic(
            Code.FILE, f"bibliography file not found: {name}", where,
            f"check the path (it is resolved from {os.getcwd()}) or create the file",
        )
    except IsADirectoryError:
        return None, Diagnostic(
            Code.FILE, f"bibliography path is a directory, not a file: {name}", where,
            "name the .bib file itself, e.g. references.bib inside that directory",
        )
    except PermissionError:
        return None, Diagnostic(
            Code.FILE, f"no permission to read the bibliography file {name}", where,
            "make the file readable by the user that builds the book",
        )
    except OSError as err:
        return None, Diagnostic(
            Code.FILE, f"cannot read the bibliography file {name}: {err.strerror or err}",
            where, "check that the path names a readable file",
        )


def _decode(data: bytes, name: str) -> tuple[str, Diagnostic | None]:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        byte = data[err.start]
        return data.decode("latin-1"), Diagnostic(
            Code.ENCODING,
            f"the file is not valid UTF-8 (byte 0x{byte:02x} on line {line}); it was read as "
            f"Latin-1, so non-ASCII characters may be wrong",
            Location(name, line),
            "save the file as UTF-8 (most editors offer it under 'Save with encoding'), or "
            "write accented letters as LaTeX commands such as {\\'e}",
        )


def _parse_cached(
    name: str, data: bytes, dig: str, macros: dict[str, str], disk: Path | None
) -> ParseResult:
    key = bibcache.parse_key(name, dig, tuple(macros.items()))
    result = bibcache.parsed_files.get(key)
    if result is not None:
        return result
    if disk is not None:
        # one file per .bib file (rewritten on a change, so old versions never pile up), headed
        # by the key of the content it was parsed from: an older version is not unpickled
        stored = bibcache.disk_load(disk, bibcache.file_slot(name), version=key)
        loaded = _unpack(stored) if stored is not None else None
        if loaded is not None:
            bibcache.parsed_files.put(key, loaded, slot=(name, tuple(macros.items())))
            return loaded
    # imported when a file is parsed: a build whose files all come from the cache never is
    from refbook.readers import chunks

    # plain UTF-8 bytes are assembled as they are (only new pieces decoded); any other text
    # once decoded and normalized
    plain = chunks.plain_utf8(data)
    result = _assembled(name, data, macros, disk) if plain else None
    if result is None:
        result = _parse_text(name, data, macros, disk, assemble=not plain)
    bibcache.parsed_files.put(key, result, slot=(name, tuple(macros.items())))
    if disk is not None and _packable(result, name):
        bibcache.disk_store(disk, bibcache.file_slot(name), _stored(result, name), version=key)
    if (disk is not None and sealed.holding() and not sealed.deferring()
            and len(data) >= _split_min()):
        # a one-shot build holding its writes (sealed.hold_writes): a big file's parse and
        # pieces, the largest of its cache files, are written by a child from now on, while
        # the book is resolved and checked, not after it
        sealed.flush_in_background(keep_holding=True)
    return result


def _split_min() -> int:
    """The size of a file parsed on every core (``refbook.readers.split.MIN_CHARS``): its
    cache files are handed to a writer as soon as it is parsed; a smaller one's are written
    with the build's other files."""
    from refbook.readers import split

    return split.MIN_CHARS


def _parse_text(name: str, data: bytes, macros: dict[str, str],
                disk: Path | None, *, assemble: bool) -> ParseResult:
    """The parse of a file's text when its bytes were not assembled from pieces (its text is
    let go on return, before the cache write: 23 MB for 20,000 entries); ``assemble``: try
    the decoded text's pieces first (its bytes were not tried)."""
    from refbook.readers import chunks

    text, problem = _decode(data, name)
    if problem is not None:
        whole = _parse_whole(text, name, macros=macros)
        return ParseResult(
            whole.entries, (problem, *whole.diagnostics), whole.strings, whole.preambles
        )
    text = _normalized(text)
    result = _assembled(name, text, macros, disk) if assemble else None
    if result is None:
        result = _parse_whole(text, name, macros=macros)
        chunks.remember(text, name, macros, disk, result)
    return result


def _assembled(name: str, text: str | bytes, macros: dict[str, str],
               disk: Path | None) -> ParseResult | None:
    """An edit of a file read before: the parse assembled from its last version's pieces,
    only the entries whose text changed parsed (:func:`refbook.readers.chunks.assemble`);
    ``None`` if it cannot be. ``text``: the decoded, normalized text, or the bytes of a file
    that :func:`refbook.readers.chunks.plain_utf8` says may be read as they are."""
    from refbook.readers import chunks

    # the file's last version read here: its unchanged entries are re-used as they are
    last = bibcache.parsed_files.in_slot((name, tuple(macros.items())))
    assembled = chunks.assemble(text, name, macros, disk, _parse_piece,
                                last=last.entries if last is not None else ())
    return assembled[0] if assembled is not None else None


def _stored(result: ParseResult, name: str) -> sealed.Parts:
    """A parse as the cache folder stores it (plain tuples), packed as it is written,
    a part at a time: a ``mkdocs serve`` process holds its cache writes until it stops, and
    the packed copy of a 20,000-entry file (17 MB) was built whole beside the parse itself."""
    return sealed.Parts((name, result.diagnostics, result.strings, result.preambles),
                        lambda: sealed.chunked(_packed_entries(result, name)))


def _packable(result: ParseResult, name: str) -> bool:
    """Whether :func:`_stored` can store ``result`` (every entry and field read from ``name``)."""
    return all(_in_file(e, name) for e in result.entries)


def _in_file(entry: Entry, name: str) -> bool:
    """Whether the entry and its fields were read from ``name`` (an entry of the cache folder
    answers without building its fields)."""
    packed = packed_of(entry)
    if packed is not None:
        return packed[0] == name
    return entry.location.file == name and all(f.location.file == name for f in entry.fields)


def _normalized(text: str) -> str:
    """The text as ``parse_bibtex`` reads it (``\\n`` line ends, no byte-order mark), so that
    pieces are cut from what the parser sees."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.removeprefix("\ufeff")


def _parser() -> Callable[..., ParseResult]:
    """``parse_bibtex``, imported on the first parse: a build whose parses all come from the
    cache folder never imports the parser (``tests/mkdocs/test_lazy_imports.py``). Looked up
    in this module's globals at each call: tests count the parses through this module's name."""
    found = globals().get("parse_bibtex")
    if found is None:
        from refbook.readers.bibtex import parse_bibtex as found

        globals()["parse_bibtex"] = found
    return cast("Callable[..., ParseResult]", found)


def __getattr__(name: str) -> object:
    """``parse_bibtex``, a public name of this package, imported when first asked for."""
    if name == "parse_bibtex":
        return _parser()
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def _parse_whole(text: str, file: str, *, macros: Mapping[str, str]) -> ParseResult:
    from refbook.readers import split

    parse = _parser()
    if len(text) >= _split_min():  # a big file: on every core (refbook.readers.split)
        found = split.parse_split(text, file, macros, parse)
        if found is not None:
            return found
    return parse(text, file, macros=macros)


def _parse_piece(text: str, file: str, *, macros: Mapping[str, str]) -> ParseResult:
    return _parser()(text, file, macros=macros)


# On disk a parse is stored as plain tuples: pickling the records themselves is several times
# slower both ways (one Python-level ``__setstate__`` per field and location). Its head (file
# name, diagnostics, @string macros, @preambles), then its entries, in parts (``_stored``):
# (key, type, line, ((name, value, line), ...), shift), every line being ``line + shift`` (an
# entry assembled from a piece keeps the piece's triples, counted from its first line: they
# are stored as they are, not copied at their lines).
_PackedEntry = tuple[str, str, int, tuple[tuple[str, str, int], ...], int]
_Head = tuple[str, tuple[Diagnostic, ...], tuple[tuple[str, str], ...], tuple[str, ...]]


def _packed_entries(result: ParseResult, name: str) -> Iterator[_PackedEntry]:
    """The entries of ``result`` as :data:`_PackedEntry`; raises ``ValueError`` at one not read
    from ``name`` (:func:`_packable` checks first)."""
    for e in result.entries:
        packed = packed_of(e)  # an entry of the cache folder, its fields never built
        if packed is not None:
            file, shift, triples = packed
            if file != name:
                raise ValueError(name)
            yield (e.key, e.type, e.location.line - shift, triples, shift)
        elif _in_file(e, name):
            yield (e.key, e.type, e.location.line,
                   tuple((f.name, f.value, f.location.line) for f in e.fields), 0)
        else:
            raise ValueError(name)


def _unpack(packed: object) -> ParseResult | None:
    if not isinstance(packed, sealed.Joined) or not isinstance(packed.head, tuple) \
            or len(packed.head) != 4:
        return None
    name, diagnostics, strings, preambles = cast("_Head", packed.head)
    entries = cast("list[_PackedEntry]", packed.items)
    try:
        # the fields are built when first read: an incremental build that re-cites reads
        # few of them (refbook.models.PackedEntry)
        built = tuple(packed_entry(name, key, type_, line, fields, shift)
                      for key, type_, line, fields, shift in entries)
        result = ParseResult(built, tuple(diagnostics), tuple(strings), tuple(preambles))
    except (TypeError, ValueError):
        return None
    ok = all(isinstance(d, Diagnostic) for d in result.diagnostics)
    return result if ok else None


def _merge(
    files: list[str], results: list[ParseResult], file_diagnostics: list[Diagnostic]
) -> Bibliography:
    entries: list[Entry] = []
    diagnostics = list(file_diagnostics)
    first: dict[str, Entry] = {}
    for i, result in enumerate(results):
        diagnostics.extend(result.diagnostics)
        if i == 0:
            # Keys are already unique within a file.
            entries.extend(result.entries)
            if len(results) > 1:
                first = {e.key: e for e in result.entries}
            continue
        for e in result.entries:
            earlier = first.get(e.key)
            if earlier is None:
                first[e.key] = e
                entries.append(e)
            else:
                diagnostics.append(Diagnostic(
                    Code.DUPLICATE_KEY,
                    f"duplicate key `{e.key}`: already defined in {earlier.location}; "
                    f"this entry is ignored",
                    e.location,
                    f"rename one of them, or delete this copy if it is the same work "
                    f"(the first is at {earlier.location})",
                    key=e.key,
                ))
    resolved, problems = resolve_crossrefs(entries)
    diagnostics.extend(problems)
    rank = {name: i for i, name in enumerate(files)}
    unknown = len(files)
    diagnostics.sort(key=lambda d: (rank.get(d.location.file, unknown), d.location.line)
                     if d.location is not None else (unknown + 1, 0))
    return Bibliography(tuple(resolved), tuple(diagnostics), tuple(files))


# -- crossref / xdata ------------------------------------------------------------------------

# biblatex never copies these from a parent (``\DefaultInheritance`` in biblatex.def).
_NO_INHERIT = frozenset({
    "ids", "crossref", "xref", "xdata", "entryset", "entrysubtype", "execute", "label",
    "options", "presort", "related", "relatedoptions", "relatedstring", "relatedtype",
    "shorthand", "shorthandintro", "sortkey",
})
_TITLE_FIELDS = ("title", "subtitle", "titleaddon")
_TITLE_NOT_INHERITED = frozenset({"shorttitle", "sorttitle", "indextitle", "indexsorttitle"})
_MAX_DEPTH = 32
_LINKS = frozenset({"crossref", "xdata"})


def _rename(prefix: str, name: str) -> tuple[str, ...]:
    if name in _TITLE_NOT_INHERITED:
        return ()
    return (prefix + name,) if name in _TITLE_FIELDS else (name,)


def _targets(parent: str, child: str, name: str, *, biblatex: bool) -> tuple[str, ...]:
    """Which fields of a ``child`` entry a ``parent``'s field ``name`` fills (pandoc's
    ``transformKey``, biblatex's inheritance table); BibTeX copies every field as it is."""
    if not biblatex:
        return (name,)
    if name in _NO_INHERIT:
        return ()
    if name == "author" and (
        (parent in ("mvbook", "book") and child in ("inbook", "bookinbook", "suppbook"))
        or (parent == "mvbook" and child == "book")
    ):
        return ("bookauthor", "author")
    if parent == "mvbook" and child in ("book", "inbook", "bookinbook", "suppbook"):
        return _rename("main", name)
    if parent in ("mvcollection", "mvreference") and child in (
        "collection", "reference", "incollection", "inreference", "suppcollection",
    ):  # fmt: skip
        return _rename("main", name)
    if parent == "mvproceedings" and child in ("proceedings", "inproceedings"):
        return _rename("main", name)
    if parent == "book" and child in ("inbook", "bookinbook", "suppbook"):
        return _rename("book", name)
    if parent in ("collection", "reference") and child in (
        "incollection", "inreference", "suppcollection",
    ):  # fmt: skip
        return _rename("book", name)
    if parent == "proceedings" and child == "inproceedings":
        return _rename("book", name)
    if parent == "periodical" and child in ("article", "suppperiodical"):
        if name in ("title", "subtitle"):
            return ("journal" + name,)
        if name in _TITLE_NOT_INHERITED:
            return ()
    return (name,)


def _inherit(child: list[Field], have: set[str], parent: Entry, child_type: str, *,
             biblatex: bool) -> None:
    """Append to ``child`` the fields of ``parent`` it lacks (parent's locations kept)."""
    for f in parent.fields:
        if f.name in _LINKS:
            continue
        for target in _targets(parent.type, child_type, f.name, biblatex=biblatex):
            if target not in have:
                have.add(target)
                child.append(f if target == f.name else Field(target, f.value, f.location))


def resolve_crossrefs(
    entries: Iterable[Entry], *, biblatex: bool | None = None
) -> tuple[list[Entry], list[Diagnostic]]:
    """Give every entry with ``xdata``/``crossref`` the fields it inherits, book-wide.

    As pandoc's BibTeX reader does it (the one implementation; ``refbook.bibtex_csl`` maps the
    result): in a ``.bibtex`` file a child gets every field it lacks; elsewhere biblatex's
    inheritance table applies: an ``@inbook`` gets its ``@book``'s ``title`` as ``booktitle``
    (an ``@incollection`` only from a ``@collection``, an ``@inproceedings`` from a
    ``@proceedings``; a ``@book`` parent's own ``booktitle`` fills an ``@incollection``'s),
    ``main*`` from a multi-volume parent, ``journal*`` from a periodical, ``author`` also as
    ``bookauthor`` from a book, and never the fields biblatex keeps per entry (``ids``,
    ``label``, ``shorthand``...). ``biblatex`` forces one mode for every entry (the default
    follows each child's file). ``xdata`` is applied before ``crossref``; chains resolve
    parent first. Keys are case-sensitive (biber, pandoc); a key that matches only when case
    is ignored is reported with a "did you mean". Inherited fields keep their parent's
    location; ``crossref`` stays.
    """
    entries = list(entries)
    # an entry from the cache names its fields without building them (models.PackedEntry)
    if _LINKS.isdisjoint(chain.from_iterable(map(field_names, entries))):
        return entries, []
    index = {e.key: e for e in entries}
    done: dict[str, Entry] = {}
    active: list[str] = []
    diagnostics: list[Diagnostic] = []
    lower_index: dict[str, str] = {}

    def missing_hint(target: str, link: str) -> str:
        # Keys are case-sensitive, as in biber and pandoc (BibTeX alone ignores case here).
        if not lower_index:
            lower_index.update((k.lower(), k) for k in reversed(index))
        near = lower_index.get(target.lower())
        if near is not None:
            return f"did you mean `{near}`? Keys are case-sensitive"
        return f"add an entry with key `{target}`, or correct the {link} value"

    def resolve(entry: Entry) -> Entry:
        ready = done.get(entry.key)
        if ready is not None:
            return ready
        links = [f for f in entry.fields if f.name in _LINKS]
        if not links:
            done[entry.key] = entry
            return entry
        active.append(entry.key)
        fields = list(entry.fields)
        have = {f.name for f in fields}
        # xdata first: its values take precedence over the crossref parent's (biber's order).
        links.sort(key=lambda f: f.name != "xdata")
        for link in links:
            for target in (k.strip() for k in link.value.split(",")) if link.name == "xdata" \
                    else (link.value.strip(),):
                if not target:
                    continue
                parent = index.get(target)
                if parent is None:
                    diagnostics.append(Diagnostic(
                        Code.CROSSREF_MISSING,
                        f"entry `{entry.key}` has {link.name} `{target}`, but no entry has "
                        f"that key; nothing is inherited from it",
                        link.location, missing_hint(target, link.name),
                        key=entry.key, field=link.name,
                    ))
                    continue
                if target in active or len(active) > _MAX_DEPTH:
                    chain = " → ".join([*active[active.index(target):], target]) \
                        if target in active else f"more than {_MAX_DEPTH} levels"
                    diagnostics.append(Diagnostic(
                        Code.CROSSREF_CYCLE,
                        f"{link.name} of `{entry.key}` loops back: {chain}",
                        link.location,
                        f"remove the {link.name} field from one entry of the loop",
                        key=entry.key, field=link.name,
                    ))
                    continue
                parent = resolve(parent)
                mode = not is_bibtex_file(entry.location.file) if biblatex is None else biblatex
                _inherit(fields, have, parent, entry.type, biblatex=mode)
        active.pop()
        result = entry if len(fields) == len(entry.fields) else \
            Entry(entry.key, entry.type, tuple(fields), entry.location)
        done[entry.key] = result
        return result

    return [resolve(e) for e in entries], diagnostics
