"""Cache of parsed ``.bib`` files, keyed by their content: in memory, and optionally on disk.

Where it sits: between the file system and ``refbook.readers.bibtex.parse_bibtex``.
``refbook.readers.read_bibliography`` hashes each file's bytes, asks this module for the parse
of that exact content, and parses only on a miss. A rebuild (Sphinx incremental build, ``mkdocs
serve``) of an unchanged book therefore costs one hash per file.

The memory cache is a small LRU shared by the whole process. The disk cache is opt-in: a
directory passed by the caller or named by ``REFBOOK_CACHE_DIR``; it holds one sealed pickle per
parsed file (``refbook.sealed``: unpickled only after its HMAC, made with a key kept outside the
directory, checks out), named after the file (:func:`file_slot`) and holding the key of the
content it was parsed from, so an edit replaces it instead of adding a file. A cache file that
cannot be read (corrupt, truncated, from another refbook version, written with another key,
planted) is ignored and rewritten; a directory that cannot be written is simply not used.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from refbook import __version__, sealed

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Sequence

    from refbook.models import Bibliography
    from refbook.readers.bibtex import ParseResult

__all__ = [
    "CACHE_DIR_ENV",
    "FORMAT",
    "Lru",
    "bibliographies",
    "cache_dir_from_env",
    "clear_memory_cache",
    "digest",
    "disk_load",
    "disk_store",
    "file_slot",
    "files_digest",
    "parse_key",
    "parsed_files",
    "piece_tables",
]

#: Environment variable naming the on-disk cache directory (unset or empty: no disk cache).
CACHE_DIR_ENV = "REFBOOK_CACHE_DIR"

# Part of every key: a new refbook version or a change of the cached shape starts afresh.
_FORMAT = f"refbook-bibcache-4/{__version__}"
#: the same, public: other caches of parses (``refbook.readers.chunks``) key by it too
FORMAT = _FORMAT

K = TypeVar("K", bound="Hashable")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A small thread-safe least-recently-used mapping."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        #: slot → the key last put in it (see :meth:`put`)
        self._slots: dict[object, K] = {}

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V, *, slot: object = None) -> None:
        """Keep ``value`` under ``key``. With a ``slot`` (e.g. a file name), the value last put in
        that slot under another key is dropped: a long process (``mkdocs serve``) that reads
        version after version of a 20,000-entry file keeps the latest, not the last 64."""
        with self._lock:
            if slot is not None:
                previous = self._slots.get(slot)
                if previous is not None and previous != key:
                    self._data.pop(previous, None)
                self._slots[slot] = key
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def pop(self, key: K) -> None:
        """Forget the value kept under ``key`` (if any)."""
        with self._lock:
            self._data.pop(key, None)

    def in_slot(self, slot: object) -> V | None:
        """The value last put in ``slot``, if still kept."""
        with self._lock:
            key = self._slots.get(slot)
            return self._data.get(key) if key is not None else None

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._slots.clear()

    def __len__(self) -> int:
        return len(self._data)


#: Parsed files by :func:`parse_key`.
parsed_files: Lru[str, ParseResult] = Lru(64)
#: Whole read results by the sequence of (file, content digest) they were read from: crossref
#: resolution and the merge are pure functions of that, so a hit skips them too.
bibliographies: Lru[tuple[tuple[str, str], ...], Bibliography] = Lru(8)
#: The bibliographies read with their parse put off (``read_bibliography_deferred``), by their
#: list of files: the sequence of (file, content digest) they stand for, and the object.
deferred: Lru[tuple[str, ...], tuple[tuple[tuple[str, str], ...], Bibliography]] = Lru(8)


#: File name → the parsed pieces of its last version read (``refbook.readers.chunks``).
piece_tables: Lru[str, dict[str, object]] = Lru(64)


def clear_memory_cache() -> None:
    """Forget everything held in memory (tests and benchmarks use it for cold reads)."""
    parsed_files.clear()
    bibliographies.clear()
    deferred.clear()
    piece_tables.clear()


def digest(data: bytes) -> str:
    """Hex digest of a file's bytes (BLAKE2b: several hundred MB/s, collision-safe)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def file_slot(file: str) -> str:
    """The name (without suffix) of the disk cache file of one ``.bib`` file's parse: one per
    file name, so a new version of the file replaces the old one's parse."""
    return digest(f"{_FORMAT}\0{file}".encode("utf-8", "surrogatepass"))


def files_digest(paths: Sequence[str]) -> str:
    """A digest of the bibliography files' names and bytes (a missing file counts apart): what
    a host keys its cached book-wide results by."""
    h = hashlib.blake2b(digest_size=20)
    for p in paths:
        h.update(os.fsencode(p) + b"\0")
        try:
            h.update(digest(Path(p).read_bytes()).encode("ascii"))
        except OSError:
            h.update(b"\1missing")
    return h.hexdigest()


def parse_key(file: str, content_digest: str, macros: tuple[tuple[str, str], ...]) -> str:
    """Key of one parse: the file name (it is in every location), its content and the
    ``@string`` macros inherited from earlier files."""
    h = hashlib.blake2b(digest_size=20)
    for part in (_FORMAT, file, content_digest, repr(macros)):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def cache_dir_from_env() -> Path | None:
    value = os.environ.get(CACHE_DIR_ENV, "")
    return Path(value) if value else None


def disk_load(cache_dir: Path, key: str, *, version: str | None = None,
              each: Callable[[Any], Any] | None = None) -> object:
    """The object cached under ``key``, or ``None`` if absent, unreadable or not authentic.
    ``version``: the one stored with it (:func:`disk_store`); a file of another version is
    a miss found without unpickling its object. ``each``: see :func:`refbook.sealed.load`.

    The caller checks the type: a stale file of another shape is just a miss.
    """
    path = cache_dir / f"{key}.pickle"
    value = (sealed.load(path, each=each) if version is None else
             sealed.load(path, header=(_FORMAT, version), each=each))
    if isinstance(value, sealed.Joined):  # stored from sealed.Parts: given back joined
        head = value.head
        if not isinstance(head, tuple) or len(head) != 2 or head[0] != _FORMAT:
            return None
        return sealed.Joined(head[1], value.items)
    if not isinstance(value, tuple) or len(value) != 2 or value[0] != _FORMAT:
        return None
    return value[1]


def disk_store(cache_dir: Path, key: str, result: object, *, version: str | None = None) -> bool:
    """Write ``result`` atomically; any failure (read-only folder, full disk) is ignored.
    Whether it was written (or, while writes are deferred, held to be). ``version``: what
    :func:`disk_load` must be given to read it (e.g. a digest of the content it was made of),
    one file per ``key`` holding its latest version. A :class:`refbook.sealed.Parts` is written
    in parts, and :func:`disk_load` gives it back as a :class:`refbook.sealed.Joined`."""
    path = cache_dir / f"{key}.pickle"
    value: object = ((_FORMAT, result) if not isinstance(result, sealed.Parts) else
                     sealed.Parts((_FORMAT, result.head), result.parts))
    if version is None:
        return sealed.dump(value, path)
    return sealed.dump(value, path, header=(_FORMAT, version))
