"""Memo files: results that survive the process, in a host's cache folder.

Where it sits: beside the stages that memoize (the style processor's formatting memo, the
validation memo). A host gives them its cache folder (Sphinx: the doctree folder), so that the
next ``sphinx-build`` run redoes only what changed. Files are pickles written atomically; a
missing, corrupt or foreign file is ignored, never an error.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping, MutableMapping

__all__ = ["code_stamp", "load_memo", "save_memo"]

K = TypeVar("K")
V = TypeVar("V")

_LOADED: set[Path] = set()
_SAVED_SIZES: dict[Path, int] = {}


def load_memo(memo: MutableMapping[K, V], path: Path) -> None:
    """Add the entries of ``path`` to ``memo`` (once per process and file)."""
    if path in _LOADED or not path.is_file():
        return
    _LOADED.add(path)
    try:
        with path.open("rb") as fh:
            data: Any = pickle.load(fh)  # noqa: S301 - our own cache file, in the host's build folder
    except Exception:  # a corrupt or foreign cache is simply ignored
        return
    if isinstance(data, dict):
        for k, v in data.items():
            memo.setdefault(k, v)
        _SAVED_SIZES[path] = len(memo)


def save_memo(memo: Mapping[K, V], path: Path, *, changed: bool | None = None) -> None:
    """Write ``memo`` to ``path`` atomically (best effort).

    ``changed``: whether anything new went into the memo; by default, whether its size differs
    from what this process last loaded or saved.
    """
    if changed is False or (changed is None and _SAVED_SIZES.get(path) == len(memo)):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump(dict(memo), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        _LOADED.add(path)
        _SAVED_SIZES[path] = len(memo)
    except (OSError, pickle.PicklingError):
        return


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
