"""Memo files: results that survive the process, in a host's cache folder.

Where it sits: beside the stages that memoize (the style processor's formatting memo, the
validation memo). A host gives them its cache folder (Sphinx: the doctree folder), so that the
next ``sphinx-build`` run redoes only what changed. Files are sealed pickles
(``refbook.sealed``: read only when they carry refbook's HMAC, written atomically); a missing,
corrupt, foreign or planted file is ignored, never an error and never unpickled.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from refbook import sealed

if TYPE_CHECKING:
    from collections.abc import Mapping, MutableMapping

__all__ = ["REWRITE_SHARE", "code_stamp", "load_memo", "save_memo"]

#: A cache file of many results is not rewritten for a few new ones: at most 1 in
#: ``REWRITE_SHARE`` of what it holds (the validation memo, a .bib file's piece table). The next
#: process computes those again — about what the rewrite costs: checking an entry costs some 70
#: times writing its facts — and rewrites the file once they are more; so a file never holds
#: more than the current results and a share, and a one-entry edit of a 20,000-entry file does
#: not rewrite 20,000 results to keep one. (The style memo is rewritten for any new render: a
#: citation edit of the 300-entry bench book saved its 11 ms write and rendered again what it
#: had not written, no faster in alternated runs.)
REWRITE_SHARE = 200

K = TypeVar("K")
V = TypeVar("V")

_LOADED: set[Path] = set()
_SAVED_SIZES: dict[Path, int] = {}


def load_memo(memo: MutableMapping[K, V], path: Path) -> None:
    """Add the entries of ``path`` to ``memo`` (once per process and file)."""
    if path in _LOADED or not path.is_file():
        return
    _LOADED.add(path)
    data = sealed.load(path)
    if isinstance(data, sealed.Joined) and data.head is None:
        for k, v in data.items:
            memo.setdefault(k, v)
        _SAVED_SIZES[path] = len(memo)


def save_memo(memo: Mapping[K, V], path: Path, *, changed: bool | None = None) -> None:
    """Write ``memo`` to ``path`` atomically (best effort).

    ``changed``: whether anything new went into the memo; by default, whether its size differs
    from what this process last loaded or saved.
    """
    if changed is False or (changed is None and _SAVED_SIZES.get(path) == len(memo)):
        return
    # written in parts (refbook.sealed.Parts): the pickler's memo of a 20,000-entry
    # validation memo took 14 MB at the peak of a cold build; a copy of the items, so that
    # a held-back write (mkdocs serve) writes what the memo holds now
    items = list(memo.items())
    if sealed.dump(sealed.Parts(None, lambda: sealed.chunked(items)), path):
        _LOADED.add(path)
        _SAVED_SIZES[path] = len(memo)


@lru_cache(maxsize=1)
def code_stamp() -> str:
    """A short digest of refbook's own source files (names, sizes, modification times).

    Memo file names carry it with the version: results that a changed rule or style engine
    would compute differently (an editable install, a development checkout) are not reused.
    """
    root = Path(__file__).parent
    h = hashlib.blake2b(digest_size=6)
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".csl", ".xml") and path.is_file():
            st = path.stat()
            h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()
