"""Memo files: results that survive the process, in a host's cache folder.

Where it sits: beside the stages that memoize (the style processor's formatting memo, the
validation memo). A host gives them its cache folder (Sphinx: the doctree folder), so that the
next ``sphinx-build`` run redoes only what changed. Files are sealed pickles
(``refbook.sealed``: read only when they carry refbook's HMAC, written atomically); a missing,
corrupt, foreign or planted file is ignored, never an error and never unpickled.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from refbook import sealed

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, MutableMapping

__all__ = ["MAX_ADDED", "REWRITE_SHARE", "code_stamp", "forget", "load_memo", "save_memo"]

#: A cache file of many results is not rewritten for a few new ones: at most 1 in
#: ``REWRITE_SHARE`` of what it holds (the validation memo, a .bib file's piece table). The next
#: process computes those again — about what the rewrite costs: checking an entry costs some 70
#: times writing its facts — and rewrites the file once they are more; so a file never holds
#: more than the current results and a share, and a one-entry edit of a 20,000-entry file does
#: not rewrite 20,000 results to keep one. (The style memo keeps every new render: skipping its
#: write rendered again what was not written, no faster in alternated runs; its new renders go
#: into an added file instead, :data:`MAX_ADDED`.)
REWRITE_SHARE = 200

K = TypeVar("K")
V = TypeVar("V")

_LOADED: set[Path] = set()
_SAVED_SIZES: dict[Path, int] = {}

#: A memo that only grows (the style's formatting memo) is saved by adding a file of its new
#: entries beside the main one (``<main name>+<n>.pickle``), read back after it: a citation
#: edit of the 300-entry bench book wrote 1,230 formatting results (14-16 ms, in each Sphinx
#: edit) to keep two or three. After this many added files the next save writes the whole
#: memo into the main file again and removes them.
MAX_ADDED = 8

#: path -> (id of the memo dict, its first key): a dict a save may add to instead of rewriting
#: (the same dict, its first entry the same object: entries only appended since the files
#: took its first ``_SAVED_SIZES[path]``)
_STORED: dict[Path, tuple[int, object]] = {}
#: path -> the added files known to belong to it (found when loading, written since)
_ADDED: dict[Path, list[Path]] = {}


def forget() -> None:
    """Forget which memo files were loaded and saved (tests use it to act as a new process)."""
    _LOADED.clear()
    _SAVED_SIZES.clear()
    _STORED.clear()
    _ADDED.clear()


def _added_files(path: Path) -> list[Path]:
    """The added files of ``path`` on disk, in the order they were written."""
    prefix = path.stem + "+"
    found = []
    try:
        with os.scandir(path.parent) as it:
            for e in it:
                name = e.name
                if name.startswith(prefix) and name.endswith(path.suffix):
                    number = name[len(prefix):len(name) - len(path.suffix)]
                    if number.isdigit():
                        found.append((int(number), Path(e.path)))
    except OSError:
        return []
    return [p for _, p in sorted(found)]


def load_memo(memo: MutableMapping[K, V], path: Path) -> None:
    """Add the entries of ``path`` (and of its added files) to ``memo`` (once per process and
    file)."""
    if path in _LOADED:
        return
    sealed.settle(path)  # a forked child may still be writing it (sealed.flush_in_background)
    if not path.is_file():
        return
    _LOADED.add(path)
    was_empty = not memo
    added = _added_files(path)
    whole = True
    for file in (path, *added):
        data = sealed.load(file)
        if isinstance(data, sealed.Joined) and data.head is None:
            for k, v in data.items:
                memo.setdefault(k, v)
        else:  # refused (corrupt, planted): the next save rewrites the main file
            whole = False
    _SAVED_SIZES[path] = len(memo)
    _ADDED[path] = added
    if was_empty and whole and memo:  # the files' entries, and only they, come first
        _STORED[path] = (id(memo), next(iter(memo)))


def save_memo(memo: Mapping[K, V], path: Path, *, changed: bool | None = None,
              grows: bool = False, keep: Callable[[K], bool] | None = None,
              prune: Callable[[K], bool] | None = None) -> None:
    """Write ``memo`` to ``path`` atomically (best effort).

    ``changed``: whether anything new went into the memo; by default, whether its size differs
    from what this process last loaded or saved. ``grows``: ``memo`` is the dict loaded (or
    saved) before, whose entries are only ever added (never replaced or removed but by
    clearing it): its new entries then go into an added file (:data:`MAX_ADDED`). ``keep``:
    which entries are written (all by default). ``prune``: which entries a file written whole
    again keeps (its stale ones dropped), beside ``keep``.
    """
    if changed is False or (changed is None and _SAVED_SIZES.get(path) == len(memo)):
        return
    stored = _STORED.get(path)
    saved = _SAVED_SIZES.get(path, 0)
    added = _ADDED.get(path, [])
    if (grows and stored is not None and stored[0] == id(memo) and 0 < saved < len(memo)
            and len(added) < MAX_ADDED and not sealed.deferring()
            and next(iter(memo)) is stored[1]):
        # copied before any filter runs (no Python code while the dict is iterated: another
        # thread may be adding to it)
        new = list(itertools.islice(memo.items(), saved, None))
        if keep is not None:
            new = [(k, v) for k, v in new if keep(k)]
        number = int(added[-1].stem.rsplit("+", 1)[1]) + 1 if added else 1
        file = path.with_name(f"{path.stem}+{number}{path.suffix}")
        if not new or sealed.dump(sealed.Parts(None, lambda: sealed.chunked(new)), file):
            _ADDED[path] = [*added, file] if new else added
            _SAVED_SIZES[path] = len(memo)
        return
    # written in parts (refbook.sealed.Parts): the pickler's memo of a 20,000-entry
    # validation memo took 14 MB at the peak of a cold build; a copy of the items, so that
    # a held-back write (mkdocs serve) writes what the memo holds now
    items = list(memo.items())
    first = items[0][0] if items else None
    if keep is not None:
        items = [(k, v) for k, v in items if keep(k)]
    if prune is not None and path in _LOADED:  # a file written before: its stale entries go
        items = [(k, v) for k, v in items if prune(k)]
    if sealed.dump(sealed.Parts(None, lambda: sealed.chunked(items)), path):
        _LOADED.add(path)
        _SAVED_SIZES[path] = len(memo)
        _STORED.pop(path, None)
        if grows and memo:
            _STORED[path] = (id(memo), first)
        # the added files' entries are in the main file now
        for file in added:
            with contextlib.suppress(OSError):
                file.unlink()
        _ADDED[path] = []


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """A short digest of refbook's own source files (names, sizes, modification times), and of
    whether the compiled engine is in use.

    Memo file names carry it with the version: results that a changed rule or style engine
    would compute differently (an editable install, a development checkout) are not reused.
    """
    root = Path(__file__).parent
    h = hashlib.blake2b(digest_size=6)
    # the compiled engine's objects (refbook.accel) may pickle otherwise than plain Python's:
    # each keeps its own memo files
    from refbook import accel

    h.update(b"compiled\n" if accel.active() else b"python\n")
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".csl", ".xml") and path.is_file():
            st = path.stat()
            h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()
