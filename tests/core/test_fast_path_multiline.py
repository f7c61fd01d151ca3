"""The reader's fast path takes the entries JabRef and most exporters write: blank lines between
fields and values wrapped over several lines (on the 20,000 real entries of the MkDocs
benchmark, 8,861 entries went down the general path for these alone). It must read exactly what
the general path reads: every entry, field, line and diagnostic, on every real file of
``shared/testdata``, the seed, and the broken inputs below; and it must take those entries
(counted)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

import refbook.readers.bibtex as reader
from refbook.readers.bibtex import parse_bibtex
from tests.conftest import SEED, TESTDATA, counts_python_calls

if TYPE_CHECKING:
    from refbook.readers import ParseResult

REAL_FILES = sorted(p for p in TESTDATA.rglob("*") if p.suffix in (".bib", ".bibtex"))

BROKEN = [
    # a value missing its `}`: the next entry's line stops it (reported there)
    "@article{a,\n  title = {Open\n  and on,\n  year = 2001,\n}\n\n@book{b,\n  title = {B}}\n",
    # a line starting with @ inside a value
    "@misc{a,\n  note = {first line\n@book{b, title = {B}}\n",
    # a quoted value over lines, a blank line, then a field
    '@book{h,\n   AUTHOR="Horace Hart",\n   TITLE="Rules\n     [at the Press]",\n\n   YEAR="1983"}\n',
    # a concatenation over two lines, with an undefined macro on the second
    "@string{j = {J. Foo}}\n@article{c,\n  journal = j # {\n  and} # undefinedmacro,\n  year = 1\n}\n",
    # a swallowed field: the value's own `}` missing, the entry's closes it
    "@article{s,\n  title = {Open,\n  year = {2000}}\n\n@misc{t, title = {T}}\n",
    # a `}` too many: the entry closes early
    "@article{e,\n  title = {A}},\n  year = {2000},\n}\n",
    # a duplicate field after a blank line, values over lines
    "@misc{d,\n  title = {A\n   B},\n\n  Title = {C},\n}\n",
    # deep braces over lines (four levels: the general path)
    "@misc{deep,\n  title = {a {b {c {d\n e} f} g} h},\n}\n",
]


def _parse(text: str, name: str, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> ParseResult:
    monkeypatch.setattr(reader, "_FAST_ENTRY_RE",
                        reader._FAST_ENTRY_RE if fast else re.compile(r"(?!)"))
    return parse_bibtex(text, name)


def _same(text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> ParseResult:
    real = reader._FAST_ENTRY_RE
    fast = _parse(text, name, fast=True, monkeypatch=monkeypatch)
    monkeypatch.setattr(reader, "_FAST_ENTRY_RE", real)
    slow = _parse(text, name, fast=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(reader, "_FAST_ENTRY_RE", real)
    assert fast.entries == slow.entries, name  # keys, types, fields, values and lines
    assert fast.diagnostics == slow.diagnostics, name
    assert (fast.strings, fast.preambles) == (slow.strings, slow.preambles), name
    return fast


def test_the_fast_path_reads_what_the_general_path_reads_on_real_files(
        monkeypatch: pytest.MonkeyPatch) -> None:
    entries = 0
    for path in [*REAL_FILES, SEED / "references.raw.bib", SEED / "references.bib"]:
        text = path.read_text(encoding="utf-8", errors="replace")
        entries += len(_same(text, str(path), monkeypatch).entries)
    assert entries > 1000


@pytest.mark.parametrize("text", BROKEN)
def test_the_fast_path_reads_what_the_general_path_reads_on_broken_input(
        monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    _same(text, "broken.bib", monkeypatch)


@counts_python_calls
def test_wrapped_values_and_blank_lines_take_the_fast_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []
    real = reader._Parser.fast_entry

    def counting(self: reader._Parser, m: re.Match[str], start: int) -> int:
        taken.append(m.group(2))
        return real(self, m, start)

    monkeypatch.setattr(reader._Parser, "fast_entry", counting)
    text = ("@Article{jab,\n  Title                    = {A long title wrapped by\n JabRef},\n"
            "  Year                     = {1995},\n\n  Month                    = {Dec},\n}\n\n"
            "@misc{cat,\n  note = {a} # {\n b},\n}\n")
    result = parse_bibtex(text, "t.bib")
    assert taken == ["jab"]  # the concatenation over two lines went the general way
    (jab, cat) = result.entries
    assert [(f.name, f.value, f.location.line) for f in jab.fields] == [
        ("title", "A long title wrapped by JabRef", 2), ("year", "1995", 4),
        ("month", "Dec", 6)]
    assert cat.get("note") == "a b"
