"""A host's persistent cache folder: checked for its format before use, and reported on.

Where it sits: beside the caches that survive the process (``refbook.bibcache``'s parses,
``refbook.memo``'s formatting and validation memos, the Sphinx extension's book). The hosts
name a folder — MkDocs ``.cache/refbook`` next to ``mkdocs.yml``, Sphinx
``<doctrees>/refbook-cache`` — and call :func:`prepare` once per build before anything reads
it, and :func:`note` at the end for the one info line that says what was ignored.

Why a marker file: every cache file's name already carries refbook's version, so a file of
another version is never read; but without a check, every upgrade would leave the old files
behind for ever (a CI cache restored run after run only grows). The folder holds a ``VERSION``
file; when it names another format or refbook version (or is missing, unreadable or not ours),
refbook's own files in the folder are deleted and the cache starts afresh. Nothing else in the
folder is touched, and nothing in it is ever trusted: each file is sealed (``refbook.sealed``).

The folder is safe to delete at any time (the next build is a cold one and fills it again),
and safe to keep between CI runs: files are written atomically and read only after their HMAC
checks out.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from refbook import __version__, sealed
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.models import Location
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["FORMAT", "MARKER", "Prepared", "note", "pack_diagnostics", "prepare",
           "unpack_diagnostics"]

#: Bumped when the folder's layout changes (what :func:`prepare` accepts as "ours").
FORMAT = 2
#: The marker file's name and the line it holds.
MARKER = "VERSION"
_STAMP = f"refbook-cache {FORMAT} refbook {__version__}\n"
# The standard tag (https://bford.info/cachedir/): backup tools skip the folder.
_TAG_NAME = "CACHEDIR.TAG"
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This folder is a cache written by refbook; it is safe to delete.\n")
# What refbook writes there (sealed files, their temporary names, the markers): only these
# are deleted when the folder is reset.
_OURS = (".pickle", ".sealed")


@record(frozen=True)
class Prepared:
    """What :func:`prepare` found: whether the folder can be used, and what was reset."""

    folder: Path
    usable: bool
    #: the marker named another version or format (or was missing from a non-empty folder)
    reset_from: str | None = None


# Folders prepared by this process (a host may ask several times per build, and `mkdocs serve`
# once per rebuild): checked once; a reset is reported once.
_PREPARED: dict[Path, Prepared] = {}
_REPORTED: set[Path] = set()


def prepare(folder: str | os.PathLike[str]) -> Prepared:
    """Make ``folder`` ready for this refbook: create it, check its marker, reset it when the
    marker is foreign. Best effort: a folder that cannot be created or written is reported
    unusable (the host builds without a cache), never an error. Call it before anything reads
    or writes the folder (once per process is enough; later calls return the first answer)."""
    path = Path(folder)
    done = _PREPARED.get(path)
    if done is not None and done.usable and _marker(path) == _STAMP:
        return done
    _PREPARED[path] = found = _prepare(path)
    return found


def _marker(path: Path) -> str | None:
    marker = path / MARKER
    try:
        return marker.read_text(encoding="utf-8", errors="replace")[:200] \
            if marker.is_file() else None
    except OSError:
        return None


def _prepare(path: Path) -> Prepared:
    marker = path / MARKER
    found = _marker(path)
    if found == _STAMP:
        return Prepared(path, usable=True)
    reset_from: str | None = None
    try:
        existing = [p for p in path.iterdir() if p.name not in (MARKER, _TAG_NAME)] \
            if path.is_dir() else []
    except OSError:
        existing = []
    if found is not None or existing:
        reset_from = (found or "").strip() or "an unknown version"
        for p in existing:
            if p.suffix in _OURS and p.is_file() and not p.is_symlink():
                with contextlib.suppress(OSError):
                    p.unlink()
    try:
        path.mkdir(parents=True, exist_ok=True)
        tmp = path / f".tmp-{os.getpid()}-{MARKER}"
        tmp.write_text(_STAMP, encoding="utf-8")
        os.replace(tmp, marker)
        tag = path / _TAG_NAME
        if not tag.exists():
            tag.write_text(_TAG, encoding="utf-8")
    except OSError:
        return Prepared(path, usable=False, reset_from=reset_from)
    return Prepared(path, usable=True, reset_from=reset_from)


def note(prepared: Prepared | None) -> str | None:
    """The one info line for the host to log about its cache this build (``None``: nothing to
    say). It covers :func:`prepare`'s reset and every cache file ``refbook.sealed`` refused
    since the last call (corrupt, truncated, planted, sealed with another key)."""
    rejected = sealed.take_rejected()
    if prepared is None:
        return None
    where = str(prepared.folder)
    if not prepared.usable:
        return f"the cache folder {where} cannot be written; building without a cache"
    mine = [p for p in rejected if p.parent == prepared.folder]
    parts = []
    if prepared.reset_from is not None and prepared.folder not in _REPORTED:
        _REPORTED.add(prepared.folder)
        parts.append(f"was written by {prepared.reset_from}; it was cleared")
    if mine:
        names = ", ".join(p.name for p in mine[:3]) + (", …" if len(mine) > 3 else "")
        parts.append(f"had {len(mine)} unreadable file(s) ({names}: corrupt, truncated or not "
                     f"written by this machine's refbook), ignored and rebuilt")
    if not parts:
        return None
    return f"the cache in {where} " + " and ".join(parts)


# Diagnostics as plain tuples of strings and numbers: unpickling thousands of records (one
# Python-level ``__setstate__`` each, their enums looked up by reduce) costs more than building
# them again from tuples.
_Packed = tuple[str, str, str | None, int, str, str, str, str | None]


def pack_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[_Packed, ...]:
    """``diagnostics`` in the form :func:`unpack_diagnostics` reads back."""
    return tuple((d.code.name, d.message,
                  d.location.file if d.location is not None else None,
                  d.location.line if d.location is not None else 0,
                  d.hint, d.key, d.field, d.severity.name if d.severity is not None else None)
                 for d in diagnostics)


def unpack_diagnostics(packed: object) -> list[Diagnostic] | None:
    """The diagnostics of :func:`pack_diagnostics`; ``None`` for anything of another shape (a
    file of an older layout is a miss)."""
    if not isinstance(packed, tuple):
        return None
    codes, severities = Code.__members__, Severity.__members__
    out = []
    try:
        for code, message, file, line, hint, key, field, severity in packed:
            out.append(Diagnostic(codes[code], message,
                                  Location(file, line) if file is not None else None,
                                  hint, key, field,
                                  severities[severity] if severity is not None else None))
    except (KeyError, TypeError, ValueError):
        return None
    return out
