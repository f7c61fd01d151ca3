"""``refbook check --fix``: where it edits (values of real entries only), how it writes (a
temporary file renamed over the .bib, keeping mode, owner, line ends and links), what it refuses,
and that it stays linear, idempotent and lossless (hypothesis, bounded)."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refbook.cli import main
from refbook.diagnostics import Code
from refbook.readers.bibtex import parse_with_spans
from refbook.validate import fix
from refbook.validate.fix import fix_file, fix_files, fix_text
from tests.conftest import ROOT
from tests.scaling import assert_linear

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

ENTRY = "@article{a,\n  doi = {https://doi.org/10.1/x},\n  pages = {12-15},\n  month = {jan},\n}\n"
ENTRY_FIXED = "@article{a,\n  doi = {10.1/x},\n  pages = {12--15},\n  month = jan,\n}\n"


def _many(n: int) -> str:
    return "".join(f"@misc{{k{i},\n  title = {{Title {i}}},\n  pages = {{{i}-{i + 3}}},\n}}\n"
                   for i in range(n))


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- where it edits ----------------------------------------------------------------------------

LOOKALIKES = (
    "doi = {https://doi.org/10.1/between}\n"
    "@comment{\n  pages = {1-2},\n}\n"
    "@string{long = {first line\n  month = {jan},\n  doi = {https://doi.org/10.1/s}}}\n"
    '@preamble{"\n  pages = {3-4},\n"}\n'
    "@article{a,\n"
    "  abstract = {We study\n  pages = {5-6},\n  and more},\n"
    "  pages = {7-8},\n"
    "  pages = {9-10},\n"
    "}\n"
    "@article{a, pages = {11-12}}\n"
    "@article{broken, pages = {13-14}; title = {x}}\n"
    "  url = {https://https://after.org}\n"
)


def test_only_fields_of_real_entries_are_edited() -> None:
    text, changes = fix_text(LOOKALIKES)
    # Only the kept `pages` of entry `a`: not the text between entries, @comment, @string,
    # @preamble, another field's multi-line value, a field set twice, a duplicate key or an
    # entry with a syntax error.
    assert text == LOOKALIKES.replace("pages = {7-8}", "pages = {7--8}")
    assert changes == [(15, "pages '7-8' -> '7--8'")]


def test_a_redefined_month_macro_stays_braced(tmp_path: Path) -> None:
    own = "@string{jan = {Janvier}}\n@misc{a, month = {jan}}\n@misc{b, month = {feb}}\n"
    assert fix_text(own)[0] == own.replace("{feb}", "feb")
    # An earlier file's @string counts too, as in BibTeX.
    first = tmp_path / "a.bib"
    first.write_text("@string{mar = {Mars}}\n", encoding="utf-8")
    second = tmp_path / "b.bib"
    second.write_text("@misc{c, month = {mar}, pages = {1-2}}\n", encoding="utf-8")
    report = fix_files([str(first), str(second)])
    assert report.fixed == (f"{second}:1: fixed: pages '1-2' -> '1--2'",)
    assert second.read_text(encoding="utf-8") == "@misc{c, month = {mar}, pages = {1--2}}\n"


def test_a_non_bib_file_is_never_rewritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A note in a JSON file that the BibTeX reader would take for an entry.
    notes = tmp_path / "notes.json"
    body = b'{"note": "@misc{n,\n  pages = {1-2}}"}\n'
    notes.write_bytes(body)
    bib = tmp_path / "r.bib"
    bib.write_text(ENTRY, encoding="utf-8")
    main(["check", str(notes), str(bib), "--fix"])
    err = capsys.readouterr().err
    assert notes.read_bytes() == body
    assert f"{notes}: not fixed: --fix rewrites only .bib files" in err
    assert bib.read_text(encoding="utf-8") == ENTRY_FIXED


def test_a_file_that_is_not_utf8_is_not_fixed_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Never rewritten (it would not round-trip), but --fix used to pass it over in silence
    while the report's hints said "refbook check --fix does this"."""
    p = tmp_path / "refs.bib"
    body = ENTRY.replace("@article{a,", "@article{a,\n  author = {M\u00fcller, Hans},").encode(
        "latin-1")
    p.write_bytes(body)
    clean = tmp_path / "clean.bib"
    clean.write_bytes("@misc{b, author = {M\u00fcller, Hans}}\n".encode("latin-1"))
    main(["check", str(p), str(clean), "--fix"])
    err = capsys.readouterr().err
    assert p.read_bytes() == body
    assert err.splitlines() == [
        (f"{p}: not fixed: 3 fixable defect(s), but --fix rewrites only UTF-8 files "
         "(save it as UTF-8 and run it again)")]


# -- how it writes -----------------------------------------------------------------------------


def test_line_ends_mode_owner_and_links_are_kept(tmp_path: Path) -> None:
    real = tmp_path / "data" / "refs.bib"
    real.parent.mkdir()
    real.write_bytes(("\ufeff" + ENTRY).replace("\n", "\r\n").encode("utf-8"))
    real.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(real, 4321, 4321)  # root can give the file away; --fix must give it back
    before = real.stat()
    link = tmp_path / "refs.bib"
    link.symlink_to(os.path.join("data", "refs.bib"))
    result = fix_file(link)
    assert [line for line, _ in result.changes] == [2, 3, 4]
    assert link.is_symlink()
    assert os.readlink(link) == os.path.join("data", "refs.bib")
    assert real.read_bytes() == ("\ufeff" + ENTRY_FIXED).replace("\n", "\r\n").encode("utf-8")
    after = real.stat()
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert _files(real.parent) == ["refs.bib"]


def _full_disk(monkeypatch: pytest.MonkeyPatch, room: int) -> None:
    """Writes to --fix's temporary files get ``room`` bytes in all, then fail as on a full disk.

    Only those files: a module imported meanwhile may keep a reference to ``os.write`` (as
    ``multiprocessing.connection`` does), so every other write must go on working.
    """
    real_write, real_mkstemp = os.write, tempfile.mkstemp
    ours: dict[int, tuple[int, int]] = {}  # fd → (device, inode): fd numbers are reused
    left = [room]

    def mkstemp(**kwargs: str | Path) -> tuple[int, str]:
        fd, name = real_mkstemp(**kwargs)  # type: ignore[call-overload]
        st = os.fstat(fd)
        ours[fd] = (st.st_dev, st.st_ino)
        return fd, name

    def write(fd: int, data: bytes | memoryview) -> int:
        st = os.fstat(fd) if fd in ours else None
        if st is None or ours[fd] != (st.st_dev, st.st_ino):
            return real_write(fd, data)
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real_write(fd, bytes(data[: left[0]]))
        left[0] -= n
        return n

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_leaves_the_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(_many(3000), encoding="utf-8")
    original = p.read_bytes()
    _full_disk(monkeypatch, len(original) // 3)
    result = fix_file(p)
    assert p.read_bytes() == original
    assert _files(tmp_path) == ["refs.bib"]  # the temporary file is gone
    assert result.changes == ()
    [d] = result.diagnostics
    assert d.code is Code.FILE
    assert (d.location.file, d.location.line) == (str(p), 1) if d.location else False
    assert "left as it was" in d.message
    assert "free some disk space" in d.hint
    # Through the command: a diagnostic and exit 1, no traceback, nothing reported as fixed.
    assert main(["check", str(p), "--fix"]) == 1
    out = capsys.readouterr()
    assert f"{p}:1: error: --fix could not write {p}" in out.out
    assert "[refbook.file]" in out.out
    assert "fixed:" not in out.err
    assert p.read_bytes() == original


KILLER = """
import os, signal, sys
from pathlib import Path
from refbook.validate.fix import fix_file

def die(*args):
    if sys.argv[2] == "write":
        real(args[0], bytes(args[1][: len(args[1]) // 2]))
    os.kill(os.getpid(), signal.SIGKILL)

name = "write" if sys.argv[2] == "write" else "replace"
real = getattr(os, name)
setattr(os, name, die)
fix_file(Path(sys.argv[1]))
"""


@pytest.mark.parametrize("moment", ["write", "replace"])
def test_a_kill_leaves_the_file_as_it_was(tmp_path: Path, moment: str) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(_many(300), encoding="utf-8")
    original = p.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", KILLER, str(p), moment], env=env,
                         capture_output=True, timeout=120, check=False)
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert p.read_bytes() == original


def test_a_read_only_file_is_a_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(ENTRY, encoding="utf-8")
    p.chmod(0o444)  # refused from the mode bits, so this holds for root too
    assert main(["check", str(p), "--fix"]) == 1
    out = capsys.readouterr()
    assert f"{p}:1: error: --fix left {p} as it was: the file is read-only [refbook.file]" in out.out
    assert "chmod u+w" in out.out
    assert p.read_text(encoding="utf-8") == ENTRY
    assert stat.S_IMODE(p.stat().st_mode) == 0o444


def test_a_file_with_hard_links_is_a_diagnostic(tmp_path: Path) -> None:
    """A rename gives the name a new file: the other names of a hard-linked .bib (another
    project's copy) silently kept the old text. Such a file is left alone and reported."""
    p = tmp_path / "refs.bib"
    p.write_text(ENTRY, encoding="utf-8")
    other = tmp_path / "other" / "refs.bib"
    other.parent.mkdir()
    os.link(p, other)
    [d] = fix_file(p).diagnostics
    assert d.code is Code.FILE
    assert d.message == (f"--fix left {p} as it was: the file has 2 names (hard links), and "
                         "a fixed copy would leave the other names with the old text")
    assert "cp " in d.hint
    assert p.read_text(encoding="utf-8") == other.read_text(encoding="utf-8") == ENTRY
    assert os.path.samefile(p, other)
    assert _files(tmp_path) == ["other", "refs.bib"]
    # given its own copy, it is fixed
    other.unlink()
    assert fix_file(p).diagnostics == ()
    assert p.read_text(encoding="utf-8") == ENTRY_FIXED


def test_a_read_only_folder_is_a_diagnostic(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    p = folder / "refs.bib"
    p.write_text(ENTRY, encoding="utf-8")
    made: list[str] = []
    if os.geteuid() == 0:
        # root writes into any folder, so the refusal the folder would give is simulated.
        def refused(**kwargs: object) -> tuple[int, str]:
            made.append(str(kwargs["dir"]))
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

        monkeypatch.setattr(tempfile, "mkstemp", refused)
    else:
        folder.chmod(0o555)
        made.append(str(folder))
    try:
        result = fix_file(p)
    finally:
        folder.chmod(0o755)
    assert made == [str(folder)]  # the temporary file goes next to the .bib
    assert p.read_text(encoding="utf-8") == ENTRY
    assert _files(folder) == ["refs.bib"]
    [d] = result.diagnostics
    assert d.code is Code.FILE
    assert "make the folder and the file writable" in d.hint


def test_a_file_changed_meanwhile_is_not_overwritten(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(ENTRY, encoding="utf-8")
    real = os.fsync
    edits = [ENTRY + "% an edit saved meanwhile\n"]

    def edit_then_sync(fd: int) -> None:
        if edits:  # once: another module may keep a reference to this function
            p.write_text(edits.pop(), encoding="utf-8")
        real(fd)

    monkeypatch.setattr(os, "fsync", edit_then_sync)
    [d] = fix_file(p).diagnostics
    assert "changed while it was being fixed" in d.message
    assert p.read_text(encoding="utf-8") == ENTRY + "% an edit saved meanwhile\n"
    assert _files(tmp_path) == ["refs.bib"]


def test_a_fix_that_would_read_differently_is_not_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The safety net behind the fixes: the result is read again before it is written.
    p = tmp_path / "refs.bib"
    p.write_text(ENTRY, encoding="utf-8")
    monkeypatch.setattr(fix, "_fix_value", lambda span, raw, redefined: ("{unclosed", "bad"))
    [d] = fix_file(p).diagnostics
    assert d.code is Code.FILE
    assert "would read differently" in d.message
    assert p.read_text(encoding="utf-8") == ENTRY


# -- cost --------------------------------------------------------------------------------------


def test_fix_is_linear() -> None:
    # One fix per entry; the old fixer counted lines from the start of the file per change.
    assert len(fix_text(_many(4000))[1]) == 4000

    def make(n: int) -> Callable[[], object]:
        text = _many(n)
        return lambda: fix_text(text)

    assert_linear(make, 1500)


# -- properties --------------------------------------------------------------------------------

VALUES = ["https://doi.org/10.1/x", "https://https://a.org/p", "doi:10.2/y", " 12-15 ", "7 - 9",
          "1--2", "jan", "Feb", " mar ", "http://dx.doi.org/10.3/z", "{B}ig {\\url{https://https://q}}",
          "x\n  pages = {1-2},\n  y", "e1-e9", "", "10.4/ok", "3-4, 7-9", "a\\\"b"]
NAMES = ["doi", "pages", "month", "url", "note", "title", "howpublished", "volume", "abstract"]


@st.composite
def _value(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(VALUES))
    form = draw(st.sampled_from(["braced", "quoted", "macro", "number", "concat"]))
    if form == "quoted" and '"' not in text:
        return f'"{text}"'
    if form == "macro":
        return draw(st.sampled_from(["jan", "feb", "foo"]))
    if form == "number":
        return "1999"
    if form == "concat":
        return f"{{{text}}} # jan"
    return f"{{{text}}}"


@st.composite
def _entry(draw: st.DrawFn) -> str:
    fields = draw(st.lists(st.tuples(st.sampled_from(NAMES), _value()), max_size=6))
    sep = draw(st.sampled_from([",\n  ", ", ", ",\n\t% a comment\n  "]))
    key = draw(st.sampled_from(["a", "b", "c", "d", "e", "f"]))
    body = sep.join(f"{name} = {value}" for name, value in fields)
    end = draw(st.sampled_from(["", ","]))
    if draw(st.booleans()):
        return f"@article({key}{sep}{body}{end}\n)\n"
    return f"@article{{{key}{sep}{body}{end}\n}}\n"


PIECES = [
    "% pages = {1-2}\n",
    "doi = {https://doi.org/10.1/between}\n",
    "@comment{\n  month = {jan},\n}\n",
    "@comment{ url = {https://https://c.org} }\n",
    '@preamble{"\n  pages = {3-4},\n"}\n',
    "@string{jan = {Janvier}}\n",
    '@string(feb = "F{\\\'e}vrier")\n',
    "@comment without braces pages = {1-2}\n",
    "@string{foo = {first\n  doi = {https://doi.org/10.1/s}}}\n",
    "@article{broken, pages = {13-14}; title = {x}}\n",
    "@misc{one, pages={7 - 9}, month=\"Feb\"}\n",
]
BIB_TEXTS = st.lists(st.one_of(_entry(), st.sampled_from(PIECES)), max_size=8).map("".join)


def _spans_and_gaps(text: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The text between field values, and each value as (key, field, raw)."""
    _, spans = parse_with_spans(text, "t.bib")
    gaps, values, pos = [], [], 0
    for s in spans:
        gaps.append(text[pos : s.start])
        values.append((s.key, s.field, text[s.start : s.end]))
        pos = s.end
    gaps.append(text[pos:])
    return gaps, values


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BIB_TEXTS, st.booleans())
def test_fix_is_idempotent_and_lossless(text: str, bom: bool) -> None:
    if bom:
        text = "\ufeff" + text
    fixed, changes = fix_text(text)
    # Idempotent: a second run finds nothing.
    assert fix_text(fixed) == (fixed, [])
    # Line ends: a CRLF file gets the same fixes, its CRLFs kept.
    assert fix_text(text.replace("\n", "\r\n")) == (fixed.replace("\n", "\r\n"), changes)
    # Lossless: every byte between field values is unchanged, and only fixable fields change.
    body, fixed_body = text.lstrip("\ufeff"), fixed.lstrip("\ufeff")
    gaps, values = _spans_and_gaps(body)
    fixed_gaps, fixed_values = _spans_and_gaps(fixed_body)
    assert fixed_gaps == gaps
    assert [(k, f) for k, f, _ in fixed_values] == [(k, f) for k, f, _ in values]
    edited = [(old, new) for old, new in zip(values, fixed_values, strict=True) if old != new]
    assert len(edited) == len(changes)
    assert all(f in ("doi", "pages", "month", "url", "note", "title", "howpublished")
               for (_, f, _), _ in edited)
    # The re-read bibliography equals the original except for the edited fields' values.
    before, _ = parse_with_spans(body, "t.bib")
    after, _ = parse_with_spans(fixed_body, "t.bib")
    assert (after.strings, after.preambles, after.diagnostics) == (
        before.strings, before.preambles, before.diagnostics)
    touched = {(k, f) for (k, f, _), _ in edited}
    for a, b in zip(before.entries, after.entries, strict=True):
        assert (a.key, a.type, a.location) == (b.key, b.type, b.location)
        for fa, fb in zip(a.fields, b.fields, strict=True):
            assert (fa.name, fa.location) == (fb.name, fb.location)
            assert fa.value == fb.value or (a.key, fa.name) in touched
