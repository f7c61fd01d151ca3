"""Sealed cache files: pickles that are unpickled only when they carry refbook's own HMAC.

Where it sits: under every cache that survives the process — the validation and style memos
(``refbook.memo``), the parse cache (``refbook.bibcache``: ``REFBOOK_CACHE_DIR`` or
``cache_dir=``), and the Sphinx extension's book and ``.bib`` check files in the doctree folder.
They all write with :func:`dump` and read with :func:`load`, never with ``pickle`` directly.

Why: unpickling runs code named by the file, so whoever can write a cache folder (a CI cache
restored from a pull-request build, a shared build folder) could run commands at the next
build. Every file therefore starts with an HMAC-SHA256 tag over its payload and its own file
name, made with a key kept outside the cache folders, and the tag is checked (in constant time)
before a byte is unpickled. A file without a valid tag — planted, written with another key,
truncated, corrupt, or copied from another cache file's name — is a miss, never an error.

The key, in order: ``REFBOOK_CACHE_KEY`` (a secret, e.g. a CI secret, so that a cache restored
on another machine stays usable); else a per-user key file, ``$XDG_CONFIG_HOME/refbook/cache-key``
or ``~/.config/refbook/cache-key``, created once with mode 0600; else (no writable home, a key
file that others could read or write, a key file inside the cache folder itself) a random key of
this process, so caches are reused only within the process. See ``docs/security.md``.
"""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import hmac
import io
import operator
import os
import pickle
import secrets
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from refbook.gcpause import paused_gc
from refbook.records import fields, is_record

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = ["KEY_ENV", "MAX_BYTES", "Joined", "Later", "Parts", "cache_key", "dump", "flush_in_background",
           "hold_writes", "holding", "key_file", "load", "pickled", "seal", "settle",
           "take_rejected", "unseal"]

#: Environment variable holding the cache key (any non-empty string; a long random secret).
KEY_ENV = "REFBOOK_CACHE_KEY"

# The first bytes of every sealed file: a format change gives a new magic, so old files are
# simply misses. Then the 32-byte tag, then the payload.
_MAGIC = b"refbook-sealed-1\n"
_TAG = hashlib.sha256().digest_size
_HEADER = len(_MAGIC) + _TAG

#: the default of ``header`` in :func:`dump` and :func:`load`: a file of one pickle
_NO_HEADER: Any = object()

#: The largest cache file read or written. refbook's own files are far smaller (a parse is about
#: the size of its ``.bib``); a bigger file under a cache name was planted, and reading it would
#: take the memory (a sparse file of terabytes costs no disk) before the tag could reject it.
MAX_BYTES = 1 << 30

_lock = threading.Lock()
_process_key: bytes | None = None
# Files that existed under a cache name but were refused (corrupt, truncated, planted, sealed
# with another key): hosts say so in one info line (:func:`take_rejected`). Bounded: a long
# ``mkdocs serve`` never grows it past this.
_rejected: list[Path] = []
_REJECTED_MAX = 64
_file_keys: dict[Path, bytes | None] = {}


def key_file() -> Path | None:
    """Where the per-user key lives (``None`` when there is no home folder to put it in)."""
    config = os.environ.get("XDG_CONFIG_HOME", "")
    # the XDG rules: a relative value is ignored
    if config and os.path.isabs(config):
        return Path(config) / "refbook" / "cache-key"
    try:
        return Path.home() / ".config" / "refbook" / "cache-key"
    except RuntimeError:  # no HOME and no password entry
        return None


def cache_key(folder: Path | None = None) -> bytes:
    """The key that seals files in ``folder`` (see the module docstring for where it comes from).

    A key file inside ``folder`` is refused: whoever can write the cache could read it there.
    """
    secret = os.environ.get(KEY_ENV, "")
    if secret:
        return _derived(secret)
    path = key_file()
    if path is not None and not (folder is not None and _inside(path, folder)):
        with _lock:
            if path not in _file_keys:
                _file_keys[path] = _read_or_create(path)
            found = _file_keys[path]
        if found is not None:
            return found
    return _per_process()


def seal(data: bytes, *, label: str = "", folder: Path | None = None) -> bytes:
    """``data`` with the header that :func:`unseal` checks. ``label`` binds it to a name (the
    file's name): a sealed blob presented under another label does not unseal."""
    return _MAGIC + _tag(cache_key(folder), label, data) + data


def unseal(blob: bytes | memoryview, *, label: str = "",
           folder: Path | None = None) -> memoryview | None:
    """The payload of ``blob`` if its tag is valid for this key and ``label``, else ``None``."""
    view = memoryview(blob)
    if len(view) < _HEADER or view[:len(_MAGIC)] != _MAGIC:
        return None
    payload = view[_HEADER:]
    expected = _tag(cache_key(folder), label, payload)
    return payload if hmac.compare_digest(expected, view[len(_MAGIC):_HEADER]) else None


def load(path: Path, *, header: object = _NO_HEADER,
         each: Callable[[Any], Any] | None = None) -> object | None:
    """The object :func:`dump` stored at ``path``, or ``None``: missing, unreadable, not sealed
    with this key under this name, or not unpicklable. The file is read once, and nothing in it
    is unpickled before its tag is verified; a file over :data:`MAX_BYTES` is not read.
    (``None`` is never a stored value.)

    ``header``: the file was dumped with a header (see :func:`dump`), and its value is
    unpickled only when the header equals this one; another header is a plain miss (a file
    of an older version of its source, not a rejected one), which costs unpickling the header
    only (the parse of a 20,000-entry file is 11 MB). ``each``: for a value written from
    :class:`Parts`, what to keep of each item, applied part by part as they are read (a part's
    items are let go before the next part is read). A value held back for ``path`` under
    another header (:func:`defer_writes`) is such a miss too, found without writing it or
    reading the file (``mkdocs serve`` asked for each ``.bib`` edit's parse so, and wrote and
    read back the last edit's, 11 MB each way)."""
    if _writers:
        settle(path)  # a child of flush_in_background may still be writing it
    if header is not _NO_HEADER and _held_under_another(path, header):
        return None
    _held(path)
    blob = _read_regular(path)
    if blob is None:
        if os.path.lexists(path):  # a pipe, a device, an oversized file
            _reject(path)
        return None
    payload = unseal(blob, label=path.name, folder=path.parent)
    if payload is None:
        _reject(path)
        return None
    try:
        # authenticated: written by refbook with this key under this very name; unpickled
        # with the collector paused (a memo file holds tens of thousands of objects, all kept)
        with paused_gc():
            # read from the file's bytes themselves (a stream over the payload's view would
            # copy it), past the header
            source = io.BytesIO(blob)
            source.seek(_HEADER)
            if header is not _NO_HEADER and _load_value(source) != header:
                return None
            value: object = _load_value(source, each)
    except Exception:  # an object of an older shape (a changed class): only a miss
        _reject(path)
        return None
    return value


def take_rejected() -> tuple[Path, ...]:
    """The cache files :func:`load` found but refused since the last call (and forget them).

    A missing file is a plain miss and not listed; a listed file is rewritten by the next
    :func:`dump` under its name, so the cache heals itself."""
    with _lock:
        found = tuple(dict.fromkeys(_rejected))
        _rejected.clear()
    return found


def _reject(path: Path) -> None:
    with _lock:
        if len(_rejected) < _REJECTED_MAX:
            _rejected.append(path)


#: The value classes cache files hold by the thousand (entries, CSL items, IR nodes, cited
#: places, diagnostics, validation's facts per entry, the style engine's output trees that
#: its memo keeps), by module. Each is a record (``refbook.records``; frozen, but for the
#: output tree's nodes, which nothing changes once built) with slots whose fields are all
#: ``__init__`` arguments (``Entry._by_name`` excepted: ``__post_init__`` rebuilds it; and
#: ``Item._hash``, ``Item._anon``, ``Name._hash`` and ``Entry._digest``, computed on first use
#: and never stored), so it is stored as ``cls(*fields)``. The default for slotted frozen records calls ``__getstate__``
#: for every object when writing and ``object.__setattr__`` per field when reading: the fast
#: form writes the 300-entry bench book's formatting, items and resolution files 2-3x faster
#: and reads them ~1.5x faster (docs/design/performance.md). Files in either form load alike.
_VALUE_CLASSES = {
    "refbook.models": ("Location", "Person", "Field", "Entry"),
    "refbook.csl": ("Name", "DatePart", "Date", "Item"),
    "refbook.ir": ("Text", "Styled", "Link", "Span"),
    "refbook.syntax": ("CiteRef", "Citation"),
    "refbook.registry": ("CitationSite", "Resolution"),
    "refbook.diagnostics": ("Diagnostic",),
    "refbook.styles.csl.processor": ("CiteItem",),
    "refbook.styles.csl.output": ("Formatting", "Lit", "Fmt", "Tag", "Linked"),
    "refbook.validate": ("_Facts",),
    "refbook.validate.keys": ("Signals",),
}
_tables: dict[frozenset[str], dict[type, Callable[[Any], Any]]] = {}


def _reducer(cls: type) -> Callable[[Any], Any]:
    names = [f.name for f in fields(cls) if f.init]
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (cls, (get(obj),))
    return lambda obj: (cls, get(obj))


def dispatch_table() -> dict[type, Callable[[Any], Any]]:
    """The reducers :func:`dump` uses for :data:`_VALUE_CLASSES`, over the modules already
    imported (a class not imported yet is in no value; sealing never imports a module)."""
    loaded = frozenset(m for m in _VALUE_CLASSES if m in sys.modules)
    table = _tables.get(loaded)
    if table is None:
        table = dict(copyreg.dispatch_table)
        for module in loaded:
            for name in _VALUE_CLASSES[module]:
                cls = getattr(sys.modules[module], name, None)
                if isinstance(cls, type) and is_record(cls):
                    table[cls] = _reducer(cls)
        _tables[loaded] = table
    return table


def pickled(value: object) -> bytes:
    """``value`` pickled with :func:`dispatch_table` (value classes as ``cls(*fields)``), not
    sealed: what :func:`dump` seals, and what validation's forked workers send back."""
    out = io.BytesIO()
    _pickle_into(out, value)
    return out.getvalue()


class Parts:
    """A big value for :func:`dump`, written in parts: ``head`` (small), then the lists that
    ``parts()`` gives, one at a time, each pickled with a fresh memo. The pickler's memo holds an
    entry per object pickled until it is cleared: pickled whole, the 164,000 fields of a
    20,000-entry parse took 31 MB of memo beside the parse, the peak of a cold build; in parts
    of :data:`PART_SIZE` items it never holds more than one part's objects. ``parts`` is called
    when the file is written (a deferred write calls it then), so it may build each part from
    the data as it goes; an exception from it abandons the write (nothing is cached).

    :func:`load` gives a :class:`Joined`: the head and the parts' items, in order."""

    __slots__ = ("head", "parts")

    def __init__(self, head: object, parts: Callable[[], Iterable[list[Any]]]) -> None:
        self.head = head
        self.parts = parts


class Later:
    """A value for :func:`dump` made only when the file is written: ``make()`` then gives it.
    While writes are deferred (``mkdocs serve`` holds them until it stops) a value that a later
    rebuild replaces is never made (packing the 27,000 diagnostics of a 20,000-entry file's
    check, ~15 ms, after every ``.bib`` edit); a one-shot build that hands its writes to a forked
    child (:func:`flush_in_background`) makes it there. ``make`` must not depend on anything that
    changes meanwhile; an exception from it abandons the write (nothing is cached)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


class Joined(NamedTuple):
    """What :func:`load` gives for a file written from :class:`Parts`."""

    head: object
    items: list[Any]


#: the items of a part of :class:`Parts` that :func:`chunked` makes
PART_SIZE = 2048


def chunked(items: Iterable[Any], size: int | None = None) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (default :data:`PART_SIZE`; the last one shorter): parts
    for :class:`Parts`."""
    size = size or PART_SIZE
    part: list[Any] = []
    for item in items:
        part.append(item)
        if len(part) >= size:
            yield part
            part = []
    if part:
        yield part


class _PartsHead:
    """The first pickle of a value written from :class:`Parts`: its head. The parts follow,
    each with a fresh memo, then ``None``."""

    __slots__ = ("head",)

    def __init__(self, head: object) -> None:
        self.head = head

    def __reduce__(self) -> tuple[type, tuple[object]]:
        return (_PartsHead, (self.head,))


def _pickle_into(file: Any, *values: object) -> None:
    """``values`` pickled one after the other by one pickler, each pickle with a fresh memo
    (read back by :func:`_load_value`, an unpickler per pickle); a :class:`Parts` as its head,
    its parts, then ``None``."""
    pickler = pickle.Pickler(file, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = dispatch_table()

    def dump(value: object) -> None:
        pickler.clear_memo()
        pickler.dump(value)

    for value in values:
        if isinstance(value, Later):
            value = value.make()
        if not isinstance(value, Parts):
            dump(value)
            continue
        dump(_PartsHead(value.head))
        for part in value.parts():
            dump(part)
        dump(None)


def _load_value(source: io.BytesIO, each: Callable[[Any], Any] | None = None) -> object:
    """The next value of ``source``, as :func:`_pickle_into` wrote it. An unpickler per pickle:
    one unpickler's memo cannot be cleared between pickles (CPython's keeps counting its
    entries from where they were, and the next pickle's references miss)."""
    value = pickle.Unpickler(source).load()  # noqa: S301 - authenticated by the caller
    if not isinstance(value, _PartsHead):
        return value
    items: list[Any] = []
    while True:
        part = pickle.Unpickler(source).load()  # noqa: S301
        if part is None:
            return Joined(value.head, items)
        if not isinstance(part, list):
            msg = "a part of a sealed file is not a list"
            raise TypeError(msg)
        items.extend(part if each is None else map(each, part))


#: path -> the value last given to :func:`dump` for it while writes are deferred (None: not)
_deferred: dict[Path, object] | None = None


def defer_writes() -> None:
    """From now on :func:`dump` keeps each file's latest value in memory instead of writing it,
    until :func:`flush`. A host that rebuilds in one long process (``mkdocs serve``) writes its
    cache folder once when it stops, not after every rebuild (each write pickles and seals the
    whole memo); :func:`load` of a file still held writes it first, so reads see it."""
    global _deferred, _brief
    with _lock:
        if _deferred is None or _brief:
            _deferred, _brief = _deferred or {}, False


#: the files are held only until :func:`flush_in_background` (:func:`hold_writes`)
_brief = False


def hold_writes() -> None:
    """As :func:`defer_writes`, for a one-shot build's step that ends with
    :func:`flush_in_background`: the caches that keep data in memory for a later write
    (:func:`deferring`) behave as if their files were written at once."""
    global _deferred, _brief
    with _lock:
        if _deferred is None:
            _deferred, _brief = {}, True


def deferring() -> bool:
    """Whether :func:`dump` holds its files back for a long while (:func:`defer_writes`:
    ``mkdocs serve``, until it stops) rather than writing: a cache that would let its data go
    once written keeps it in memory then."""
    return _deferred is not None and not _brief


def holding() -> bool:
    """Whether :func:`dump` holds its files back, for long or briefly (:func:`hold_writes`)."""
    return _deferred is not None


def flush() -> int:
    """Write every file :func:`defer_writes` held back and stop deferring; how many were
    written."""
    global _deferred, _brief
    with _lock:
        held, _deferred, _brief = _deferred or {}, None, False
    return sum(_write(value, path) for path, value in held.items())


#: the forked children of :func:`flush_in_background` not yet waited for (:func:`settle`),
#: each with the files it writes
_writers: list[tuple[int, frozenset[Path]]] = []


def flush_in_background(*, keep_holding: bool = False) -> bool:
    """:func:`flush`, in a forked child: the files held back are written while this process
    goes on (a one-shot build's cache files — the parse of its ``.bib`` files and their pieces,
    the validation and style memos — while the host writes the pages, on the other core), and
    writes are no longer deferred here. Whether a child was forked; without fork
    (``refbook.forking.can_fork``) the files are written here, as :func:`flush` does.

    The child writes each file as :func:`dump` would have (atomically: a reader sees the old
    file or the new one) and exits without running anything of this process's (``os._exit``).
    A read of one of its files in this process first waits for it (:func:`settle`:
    :func:`load` and ``refbook.memo.load_memo`` call it; a read of another file does not
    wait), as the hosts do when their build finishes, and so does this process's exit: no
    build returns with its cache folder half written.

    ``keep_holding``: the files held so far go to the child, and this process holds the next
    ones (:func:`hold_writes`) for a later call (the reader hands over a big file's parse as
    soon as it is made, so that it is written during the work that follows, not after it)."""
    from refbook.forking import can_fork, worker_count

    global _deferred, _brief
    with _lock:
        held = _deferred or {}
        _deferred, _brief = ({}, True) if keep_holding else (None, False)
    if not held:
        return False
    for path in held:  # the key decided here: a per-process key must be this process's
        cache_key(path.parent)
        if _writers:
            settle(path)  # an older value of the file being written: the newer one lands last
    pid = -1
    if can_fork() and worker_count() > 1:  # (REFBOOK_JOBS=1: everything in this process)
        with contextlib.suppress(OSError):
            pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: measured by the files it writes
        import gc

        gc.disable()  # a short life: a collection would scan (and copy) the inherited heap
        code = 1
        try:
            for path, value in held.items():
                _write(value, path)
            code = 0
        finally:
            os._exit(code)
    if pid < 0:
        for path, value in held.items():
            _write(value, path)
        return False
    if not _writers and not _AT_EXIT:
        import atexit

        atexit.register(settle)
        _AT_EXIT.append(True)
    _writers.append((pid, frozenset(held)))
    return True


_AT_EXIT: list[bool] = []


def settle(path: Path | None = None) -> None:
    """Wait for the children of :func:`flush_in_background` to finish writing: all of them, or
    (``path``) those writing that file or one named after it (a memo's added files,
    ``<stem>+<n><suffix>``)."""
    for child in list(_writers):
        pid, files = child
        if path is not None and not any(
                p.parent == path.parent and p.name.startswith(path.stem) for p in files):
            continue
        with contextlib.suppress(ChildProcessError):  # waited for elsewhere
            os.waitpid(pid, 0)
        with contextlib.suppress(ValueError):  # (another thread took it meanwhile)
            _writers.remove(child)


def _held_under_another(path: Path, header: object) -> bool:
    """Whether the value held back for ``path`` was dumped with a header other than this."""
    if _deferred is None:
        return False
    with _lock:
        value = (_deferred or {}).get(path)
    return isinstance(value, _Headed) and value.header != header


def _held(path: Path) -> None:
    """Write ``path`` now if a deferred value waits for it (before it is read)."""
    if _deferred is None:
        return
    with _lock:
        value = _deferred.pop(path, _MISSING)
    if value is not _MISSING:
        _write(value, path)


_MISSING = object()


def dump(value: object, path: Path, *, header: object = _NO_HEADER) -> bool:
    """Pickle and seal ``value`` into ``path`` atomically (a temporary file in the same folder,
    then a rename: a reader sees the old file or the new one). Best effort: a folder that
    cannot be written, a full disk or an unpicklable value only means nothing is cached;
    returns whether the file was written (or, while writes are deferred, held to be).

    ``header``: a small value pickled before ``value``, which :func:`load` compares before it
    unpickles ``value`` (e.g. the key of the content the value was made from)."""
    if header is not _NO_HEADER:
        value = _Headed(header, value)
    if _deferred is not None:
        with _lock:
            if _deferred is not None:
                _deferred[path] = value
                return True
    return _write(value, path)


class _Headed:
    """A value held for :func:`_write` with the header to pickle before it."""

    __slots__ = ("header", "value")

    def __init__(self, header: object, value: object) -> None:
        self.header = header
        self.value = value


def _write(value: object, path: Path) -> bool:
    # pickled straight into the file, the tag worked out on the way and written last over its
    # place in the header: the pickle is never held whole in memory (11 MB for the parse of a
    # 20,000-entry file, the peak of a cold build)
    folder = path.parent
    mac = _mac(cache_key(folder), path.name)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".sealed")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC)
            fh.write(bytes(_TAG))  # the tag's place
            sink = _Sink(fh, mac)
            try:
                if isinstance(value, _Headed):  # two pickles: the header, then the value
                    _pickle_into(sink, value.header, value.value)
                else:
                    _pickle_into(sink, value)
            except Exception:  # unpicklable, too deep, or the disk failed: nothing to cache
                ok = False
            else:
                ok = _HEADER + sink.size <= MAX_BYTES  # a bigger file load would refuse
            if ok:
                fh.seek(len(_MAGIC))
                fh.write(mac.digest())
        if not ok:
            os.unlink(tmp)
            return False
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


class _Sink:
    """A file the pickler writes to: each chunk goes to the file and into the tag's HMAC."""

    __slots__ = ("_fh", "_mac", "size")

    def __init__(self, fh: Any, mac: hmac.HMAC) -> None:
        self._fh = fh
        self._mac = mac
        self.size = 0

    def write(self, chunk: bytes | memoryview) -> int:
        self._mac.update(chunk)
        self.size += len(chunk)
        return int(self._fh.write(chunk))


def _read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of at most :data:`MAX_BYTES`. A named pipe
    or a device planted under a cache file's name would block the build or never end: without
    waiting for a writer (``O_NONBLOCK`` does nothing to a regular file), such a file is a
    miss. So is a bigger file, judged by its size before reading (and by what a read returns,
    for a file that grows meanwhile or claims a size of 0)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                return None
            # refbook replaces its files by renaming: one that reads longer than it said it
            # was is not one of them
            data = fh.read(st.st_size + 1)
            return data if len(data) <= st.st_size else None
    except (OSError, MemoryError):
        return None


def _tag(key: bytes, label: str, payload: bytes | memoryview) -> bytes:
    mac = _mac(key, label)
    mac.update(payload)
    return mac.digest()


def _mac(key: bytes, label: str) -> hmac.HMAC:
    """The HMAC of a payload sealed under ``label``, before the payload."""
    mac = hmac.new(key, _MAGIC, hashlib.sha256)
    name = label.encode("utf-8", "surrogatepass")
    # the label's length first, so that no (label, payload) pair reads as another
    mac.update(len(name).to_bytes(4, "big"))
    mac.update(name)
    return mac


def _derived(secret: str) -> bytes:
    # any string works as a secret; the HMAC key is a fixed-size digest of it
    return hashlib.sha256(b"refbook cache key\0" + secret.encode("utf-8", "surrogatepass")).digest()


def _per_process() -> bytes:
    global _process_key  # noqa: PLW0603 - one random key for the life of the process
    with _lock:
        if _process_key is None:
            _process_key = secrets.token_bytes(32)
        return _process_key


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a symlink loop: treat as inside, i.e. refuse
        return True


def _read_or_create(path: Path) -> bytes | None:
    """The key stored in ``path``, creating the file if it does not exist; ``None`` if it
    cannot be created or cannot be trusted (not ours, readable or writable by others)."""
    with contextlib.suppress(FileNotFoundError):
        return _read_key(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")  # mode 0600
    except OSError:
        return None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        # publish the complete file under its name, failing if another process was first (the
        # link is the O_EXCL step): nobody ever reads a half-written key
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: create the name exclusively
            _create_exclusive(path, Path(tmp).read_text(encoding="ascii"))
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    try:
        return _read_key(path)
    except FileNotFoundError:
        return None


def _create_exclusive(path: Path, text: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(text)


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``, or ``None`` if it is not usable; raises ``FileNotFoundError`` if
    there is no such file."""
    try:
        # O_NONBLOCK: a named pipe under this name is refused below instead of waiting for a
        # writer (it does nothing to a regular file)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        # like ssh with its keys: a key others may read or replace is no secret
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            return None
        text = fh.read(200).strip()
    try:
        raw = bytes.fromhex(text.decode("ascii"))
    except ValueError:
        return None
    return raw if len(raw) >= 32 else None
