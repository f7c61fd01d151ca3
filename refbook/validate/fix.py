"""``refbook check --fix``: rewrite only unambiguous defects in field values, byte for byte.

Where it sits: ``refbook.validate.command`` calls :func:`fix_files` on the ``.bib`` files before
it reads and checks them, so the report shows what remains. The fixes:

- a resolver prefix in ``doi`` (``https://doi.org/10.…`` → ``10.…``);
- a doubled URL scheme (``https://https://`` → ``https://``) in ``url``, ``doi`` and the text
  fields the ``url-scheme-duplicated`` rule looks at (``note``, ``howpublished``, …);
- a single dash in ``pages`` (``12-15`` → ``12--15``);
- a month macro in braces or quotes (``{jan}`` → ``jan``), unless this file or an earlier one
  redefines that macro with ``@string``.

Where: only values of fields of real entries, found by the reader's spans
(:func:`refbook.readers.bibtex.parse_with_spans`), and only values written as one ``{…}`` or
``"…"``. Text between entries, ``@comment``, ``@preamble``, ``@string``, entries with a syntax
error, duplicate keys and fields set twice are never touched. No fix adds or removes a line
break, and the result is read again before it is written: if anything but the fixed values
would read differently, nothing is written.

How: the new text is built in one pass from the sorted spans (linear time), written to a
temporary file in the same folder, flushed to disk, then renamed over the file; the mode (and
the owner when permitted) is kept, line ends are kept as written, and a symbolic link stays a
link (its target is rewritten). A file with several hard links is left alone (a new file would
part it from its other names). Any failure leaves the file as it was and becomes a
``refbook.file`` diagnostic.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic
from refbook.models import Location
from refbook.readers.bibtex import MONTH_MACROS, parse_with_spans
from refbook.records import record
from refbook.validate.identifiers import DOI_PREFIX, SCHEME_TWICE, TEXT_FIELDS
from refbook.validate.values import SINGLE_DASH

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from refbook.readers.bibtex import ParseResult, ValueSpan

__all__ = ["FileFix", "FixReport", "fix_file", "fix_files", "fix_text"]

_SCHEME_FIELDS = frozenset({"url", "doi", *TEXT_FIELDS})
_FIXABLE_FIELDS = _SCHEME_FIELDS | {"pages", "month"}
_DASH = re.compile(r"(\S)\s*(?:-|–|‐|‑)\s*(\S)")
_CRLF = re.compile(r"\r\n")


@record(frozen=True)
class FileFix:
    """What fixing one file did: ``(line, what)`` per change made (none when nothing was
    written), the problems that kept it from writing, the file's ``@string`` definitions
    (visible in the files after it, as in BibTeX), and a note when it was left alone on
    purpose."""

    changes: tuple[tuple[int, str], ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    strings: tuple[tuple[str, str], ...] = ()
    #: why fixable defects were left on purpose ("" when none were)
    note: str = ""


@record(frozen=True)
class FixReport:
    """What ``--fix`` did to the files of one run: ``fixed`` lines (``file:line: fixed: …``),
    ``notes`` for files it left alone on purpose, and ``diagnostics`` for files it could not
    write."""

    fixed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


@record(frozen=True)
class _Fixed:
    text: str
    changes: tuple[tuple[int, str], ...]
    strings: tuple[tuple[str, str], ...]
    problem: str = ""


# -- the text ---------------------------------------------------------------------------------


def fix_text(text: str, *, macros: Mapping[str, str] | None = None) -> tuple[str, list[tuple[int, str]]]:
    """The fixed text and ``(line, what)`` for each change.

    ``macros`` are the ``@string`` definitions of earlier files (lower-case names). When the
    fixed text would read differently anywhere but in the fixed values, ``text`` comes back
    unchanged with no changes.
    """
    fixed = _fix(text, "", macros or {})
    return fixed.text, list(fixed.changes)


def _fix(text: str, file: str, macros: Mapping[str, str]) -> _Fixed:
    # The reader sees "\n" line ends and no byte-order mark; its offsets are mapped back to
    # ``text`` so that every byte outside an edited value (a "\r" too) is copied as it was.
    bom = 1 if text.startswith("\ufeff") else 0
    body = text[bom:]
    # Reader offsets of the "\n"s that stand for a "\r\n" of the file (one "\r" dropped each).
    dropped = [m.start() - i for i, m in enumerate(_CRLF.finditer(body))]
    norm = body.replace("\r\n", "\n").replace("\r", "\n") if "\r" in body else body
    result, spans = parse_with_spans(norm, file, macros=macros)
    redefined = {k.lower() for k in macros} | {name.lower() for name, _ in result.strings}

    edits: list[tuple[int, int, str]] = []
    changes: list[tuple[int, str]] = []
    fixed_fields: set[tuple[str, str]] = set()
    k = 0  # dropped[:k] lie before the current span
    for span in sorted(spans, key=lambda s: s.start):
        if span.field not in _FIXABLE_FIELDS:
            continue
        while k < len(dropped) and dropped[k] < span.start:
            k += 1
        start = span.start + bom + k
        j = k
        while j < len(dropped) and dropped[j] < span.end:
            j += 1
        end = span.end + bom + j
        edit = _fix_value(span, text[start:end], redefined)
        if edit is not None:
            new, what = edit
            edits.append((start, end, new))
            changes.append((span.line, what))
            fixed_fields.add((span.key, span.field))
    if not edits:
        return _Fixed(text, (), result.strings)
    out: list[str] = []
    pos = 0
    for start, end, new in edits:
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    new_text = "".join(out)
    # Read the result again: the fixes must change the fixed values and nothing else.
    new_norm = new_text[bom:].replace("\r\n", "\n").replace("\r", "\n")
    again, _ = parse_with_spans(new_norm, file, macros=macros)
    problem = _difference(result, again, fixed_fields)
    if problem:
        return _Fixed(text, (), result.strings, problem)
    return _Fixed(new_text, tuple(changes), result.strings)


def _single_piece(raw: str) -> bool:
    """Whether ``raw`` is one ``{…}`` or ``"…"`` (not ``{a} # {b}``)."""
    if len(raw) < 2:
        return False
    opener, closer = raw[0], raw[-1]
    if (opener, closer) not in (("{", "}"), ('"', '"')):
        return False
    inner = raw[1:-1]
    if "{" not in inner and "}" not in inner:
        return opener == "{" or '"' not in inner
    depth = 0
    for c in inner:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
        elif c == '"' and opener == '"' and depth == 0:
            return False
    return depth == 0


def _fix_value(span: ValueSpan, raw: str, redefined: set[str]) -> tuple[str, str] | None:
    """The new raw value of one field and what changed, or None."""
    if not _single_piece(raw):
        return None
    name = span.field
    inner = raw[1:-1]
    if name == "month":
        word = inner.strip().lower()
        if word not in MONTH_MACROS or word in redefined or "\n" in inner or "\r" in inner:
            return None
        return word, f"month {raw} -> {word}"
    new = inner
    if name in _SCHEME_FIELDS:
        new = SCHEME_TWICE.sub("", new)
    if name == "doi":
        m = DOI_PREFIX.match(new)
        if m is not None and new[m.end() :].lstrip().startswith("10."):
            # Only the prefix goes; white space before it stays (it may hold a line break).
            lead = new[: len(new) - len(new.lstrip())]
            new = lead + new[m.end() :].lstrip(" \t")
    elif name == "pages":
        # Only the dash changes; spaces around the parts are kept as written.
        new = ",".join(_DASH.sub(r"\1--\2", p) if SINGLE_DASH.match(p) else p
                       for p in new.split(","))
    if new == inner or new.count("\n") != inner.count("\n") or new.count("\r") != inner.count("\r"):
        return None
    if name in _SCHEME_FIELDS and name not in ("url", "doi"):
        return raw[0] + new + raw[-1], f"{name}: doubled URL scheme removed"
    return raw[0] + new + raw[-1], f"{name} {inner!r} -> {new!r}"


def _difference(before: ParseResult, after: ParseResult, fixed: set[tuple[str, str]]) -> str:
    """How ``after`` reads differently from ``before`` beyond the fixed fields' values ("" if
    it does not)."""
    if (before.strings, before.preambles, before.diagnostics) != (
            after.strings, after.preambles, after.diagnostics):
        return "the @string definitions, preambles or reader messages would change"
    if len(before.entries) != len(after.entries):
        return "the number of entries would change"
    for a, b in zip(before.entries, after.entries, strict=True):
        if (a.key, a.type, a.location) != (b.key, b.type, b.location) or len(a.fields) != len(
                b.fields):
            return f"entry `{a.key}` would change"
        for fa, fb in zip(a.fields, b.fields, strict=True):
            if (fa.name, fa.location) != (fb.name, fb.location) or (
                    fa.value != fb.value and (a.key, fa.name) not in fixed):
                return f"field `{fa.name}` of entry `{a.key}` would change"
    return ""


# -- the file ---------------------------------------------------------------------------------


def fix_files(paths: Iterable[str]) -> FixReport:
    """Fix the ``.bib`` files among ``paths`` in order (``@string`` definitions carry over to
    the next file, as in BibTeX); other files are left alone with a note."""
    fixed: list[str] = []
    notes: list[str] = []
    diagnostics: list[Diagnostic] = []
    macros: dict[str, str] = {}
    seen: set[str] = set()
    for name in paths:
        ident = os.path.normcase(os.path.abspath(name))
        if ident in seen:
            continue
        seen.add(ident)
        if Path(name).suffix.lower() != ".bib":
            notes.append(f"{name}: not fixed: --fix rewrites only .bib files")
            continue
        result = fix_file(Path(name), macros)
        fixed.extend(f"{name}:{line}: fixed: {what}" for line, what in result.changes)
        if result.note:
            notes.append(f"{name}: not fixed: {result.note}")
        diagnostics.extend(result.diagnostics)
        for macro, value in result.strings:
            macros[macro.lower()] = value
    return FixReport(tuple(fixed), tuple(notes), tuple(diagnostics))


def fix_file(path: Path, macros: Mapping[str, str] | None = None) -> FileFix:
    """Fix ``path`` (only when something changes) by replacing it atomically.

    A file that cannot be read, or is not UTF-8, is left alone with no diagnostic (the reader
    reports it; a note says what was not fixed); one that cannot be written is left as it was, with a ``refbook.file``
    diagnostic.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return FileFix()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Never rewrite a file we cannot round-trip; its macros still count for later files,
        # and the report's "--fix does this" hints need a word on why it did not.
        found = _fix(data.decode("latin-1"), str(path), macros or {})
        note = (f"{len(found.changes)} fixable defect(s), but --fix rewrites only UTF-8 files "
                "(save it as UTF-8 and run it again)") if found.changes else ""
        return FileFix(strings=found.strings, note=note)
    fixed = _fix(text, str(path), macros or {})
    if fixed.problem:
        return FileFix((), (_problem(
            path, f"--fix left {path} as it was: the fixed text would read differently "
                  f"({fixed.problem})",
            "this is a bug in refbook; please report it with the file, and fix the "
            "reported defects by hand"),), fixed.strings)
    if not fixed.changes:
        return FileFix(strings=fixed.strings)
    problem = _replace(path, data, fixed.text.encode("utf-8"))
    if problem is not None:
        return FileFix((), (problem,), fixed.strings)
    return FileFix(fixed.changes, (), fixed.strings)


def _problem(path: Path, message: str, hint: str) -> Diagnostic:
    return Diagnostic(Code.FILE, message, Location(str(path), 1), hint)


def _replace(path: Path, old: bytes, new: bytes) -> Diagnostic | None:
    """Write ``new`` over ``path`` through a temporary file and a rename; None when done."""
    # A symbolic link stays a link: its target is what gets replaced.
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(target)
    except OSError as err:
        return _write_problem(path, err)
    if not os.access(target, os.W_OK) or not st.st_mode & 0o222:
        # The rename would succeed on a read-only file in a writable folder (and root may
        # write anything); read-only is the owner's choice, so respect it.
        return _problem(path, f"--fix left {path} as it was: the file is read-only",
                        "make it writable (chmod u+w) and run `refbook check --fix` again, "
                        "or apply the fixes by hand")
    if st.st_nlink > 1:
        # The rename gives this name a new file; the other names would keep the old one.
        return _problem(path, f"--fix left {path} as it was: the file has {st.st_nlink} names "
                              "(hard links), and a fixed copy would leave the other names with "
                              "the old text",
                        "apply the fixes by hand (editing in place keeps the links), or, if the "
                        "other names should keep the old text, give this one its own copy "
                        f"(cp {target} {target}.new && mv {target}.new {target}) and run "
                        "`refbook check --fix` again")
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            view = memoryview(new)
            while view:
                view = view[os.write(fd, view):]
            _keep_owner(fd, st)
            # After chown, which may clear set-id bits; Windows has no fchmod before 3.13.
            if hasattr(os, "fchmod"):
                os.fchmod(fd, st.st_mode & 0o7777)
            else:
                os.chmod(tmp, st.st_mode & 0o7777)
            os.fsync(fd)
        finally:
            os.close(fd)
        now = os.stat(target)
        if (now.st_ino, now.st_size, now.st_mtime_ns) != (st.st_ino, st.st_size, st.st_mtime_ns) \
                or target.read_bytes() != old:
            os.unlink(tmp)
            return _problem(path, f"--fix left {path} as it was: the file changed while it "
                                  f"was being fixed", "run `refbook check --fix` again")
        os.replace(tmp, target)
    except OSError as err:
        if tmp:
            # The original is intact; a stray temporary file would be the lesser harm.
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return _write_problem(path, err)
    _sync_folder(target.parent)
    return None


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """Give the temporary file the owner and group of the file it replaces, as far as allowed."""
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) == (st.st_uid, st.st_gid) or not hasattr(os, "fchown"):
        return
    for uid in (st.st_uid, -1):  # only root may give a file away; a group of ours is fine
        try:
            os.fchown(fd, uid, st.st_gid)
        except PermissionError:
            continue
        return


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk (best effort: not every system can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_problem(path: Path, err: OSError) -> Diagnostic:
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "free some disk space, then run `refbook check --fix` again"
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = ("--fix writes a temporary file next to the .bib and renames it over the file: "
                "make the folder and the file writable, then run it again")
    else:
        hint = "check the file and its folder, then run `refbook check --fix` again"
    return _problem(path, f"--fix could not write {path}: {err.strerror or err}; the file was "
                          f"left as it was", hint)

