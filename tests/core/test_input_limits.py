"""Hostile values (issue 9): safety limits with diagnostics, linear time, no tracebacks.

Inputs are generated here, small enough to fail fast against the code before the fixes:
``@string`` bombs, unclosed values and comments, deep nesting, numbers with thousands of
digits, deep CSL-JSON. Scaling tests compare the cost of an input with the cost of the same
input twice as large, in the same run (operation counts where they can be counted, otherwise
the best of three timings); they never assert a wall-clock time.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refbook import bibtex_csl, latex
from refbook.cli import main
from refbook.diagnostics import Code
from refbook.latex import SPACE, PFmt, PInline, PStr
from refbook.models import Bibliography, Entry, Field, Location
from refbook.names import _is_capitalized, parse_names, parse_names_pandoc
from refbook.readers import csl_json
from refbook.readers.bibtex import MAX_VALUE_CHARS, ParseResult, _Closers, parse_bibtex
from tests import growth
from tests.conftest import counts_python_calls

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path


def parse(text: str) -> ParseResult:
    return parse_bibtex(text, "t.bib")


def limits(result: ParseResult) -> list[tuple[int, str, str]]:
    return [(d.location.line if d.location else 0, d.key, d.field)
            for d in result.diagnostics if d.code is Code.INPUT_LIMIT]


def doubling_ratio(make: Callable[[int], str], run: Callable[[str], object], n: int) -> float:
    """The cost of one doubling of ``make(n)`` under ``run`` (``tests.growth``'s measure)."""
    return growth.doubling_ratio(lambda size, _attempt: make(size), run, n, min_seconds=0.03)


# -- @string expansion -----------------------------------------------------------------------


def bomb(levels: int, *, multiline: bool = False) -> str:
    sep = "\n   # " if multiline else " # "
    return ('@string{a0 = "xx"}\n'
            + "".join(f"@string{{a{i} = a{i - 1}{sep}a{i - 1}}}\n" for i in range(1, levels + 1))
            + f"@misc{{k, title = a{levels}}}\n@misc{{ok, title = {{Fine}}}}\n")


@pytest.mark.parametrize("multiline", [False, True])
def test_string_bomb_is_cut_at_the_limit_without_building_it(multiline: bool) -> None:
    # 25 doublings would be 64 MB (40: 4 GB); a19 is the first past MAX_VALUE_CHARS
    text = bomb(25, multiline=multiline)
    tracemalloc.start()
    try:
        result = parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * MAX_VALUE_CHARS
    assert [e.key for e in result.entries] == ["k", "ok"]
    assert result.entries[1].fields[0].value == "Fine"
    assert all(len(v) <= MAX_VALUE_CHARS for _, v in result.strings)
    assert all(len(f.value) <= MAX_VALUE_CHARS for e in result.entries for f in e.fields)
    a19_line = 2 * 19 if multiline else 1 + 19
    found = limits(result)
    assert found[0] == (a19_line, "", "")
    cut = result.diagnostics[[d.code for d in result.diagnostics].index(Code.INPUT_LIMIT)]
    assert "cut" in cut.message
    assert cut.hint


def test_expansion_budget_stops_one_macro_used_many_times() -> None:
    # a 512 kB macro (a18), then 200 entries that each use it: 100 MB without a budget
    macros = bomb(18).split("@misc{k,")[0]
    fast = "".join(f"@misc{{f{i}, title = a18}}\n" for i in range(100))
    slow = "".join(f"@misc{{s{i},\n title = a18 # {{.}}}}\n" for i in range(100))
    text = macros + fast + slow
    result = parse(text)
    assert len(result.entries) == 200
    total = sum(len(f.value) for e in result.entries for f in e.fields)
    assert total <= 4 * MAX_VALUE_CHARS + 8 * len(text)
    budget = [d for d in result.diagnostics
              if d.code is Code.INPUT_LIMIT and "not expanded" in d.message]
    assert len(budget) == 1  # once per file
    assert result.entries[-1].fields[0].value == "a18."  # the name is kept


def test_a_value_cut_at_the_limit_keeps_the_other_fields() -> None:
    macros = bomb(18).split("@misc{k,")[0]  # a18: 524,288 characters
    text = macros + "@misc{big,\n  note = {n},\n  title = a18 # a18 # {end},\n  year = 2001}\n"
    result = parse(text)
    (entry,) = result.entries
    values = {f.name: f.value for f in entry.fields}
    assert len(values["title"]) == MAX_VALUE_CHARS
    assert values["note"] == "n"
    assert values["year"] == "2001"
    assert limits(result) == [(text.count("\n", 0, text.index("title")) + 1, "big", "title")]


# -- linear recovery -------------------------------------------------------------------------

RECOVERY_CASES: dict[str, Callable[[int], str]] = {
    "unclosed brace": lambda n: "".join(
        f"@misc{{k{i}, title = {{abc\n  note = {{x}}\n" for i in range(n)),
    "unclosed quote": lambda n: "".join(f'@misc{{k{i}, title = "abc\n' for i in range(n)),
    "comment paren": lambda n: "@comment(abc\n" * n,
    "comment brace": lambda n: "@comment{abc\n" * n,
    "comment paren brace": lambda n: "@comment({abc\n" * n,
    "string": lambda n: "".join(f"@string{{a{i} = {{abc\n" for i in range(n)),
    "preamble": lambda n: '@preamble{"abc\n' * n,
}


@pytest.mark.parametrize("case", list(RECOVERY_CASES))
def test_recovery_from_unclosed_values_is_linear(case: str) -> None:
    make = RECOVERY_CASES[case]
    result = parse(make(50) + "@misc{ok, title = {Fine}}\n")
    assert result.entries[-1].key == "ok"
    assert doubling_ratio(make, parse, 500) <= 3


def naive_group_end(text: str, pos: int) -> int | None:
    depth = 1
    for i in range(pos, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def naive_paren_end(text: str, pos: int) -> int | None:
    depth = 0
    for i in range(pos, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ")" and depth <= 0:
            return i
    return None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="{}()a\n", max_size=60))
def test_comment_table_agrees_with_a_direct_scan(text: str) -> None:
    closers = _Closers(text, 0)
    for pos in range(1, len(text) + 1):
        assert closers.paren_end(pos) == naive_paren_end(text, pos)
        if text[pos - 1] == "{":
            assert closers.group_end(pos) == naive_group_end(text, pos)


def test_comments_after_an_unclosed_one_still_close() -> None:
    text = ("@comment{never closed\n@comment{ {a} @misc{x, title={X}} }\n@misc{k1, title={A}}\n"
            "@comment( a {)} b ) @misc{k2, title={B}}\n@comment(\n@misc{k3, title={C}}\n")
    assert [e.key for e in parse(text).entries] == ["k1", "k2", "k3"]


# -- LaTeX nesting -----------------------------------------------------------------------------

DEEP = {
    "braces": "{" * 1000 + "x" + "}" * 1000,
    "accents": "\\'" * 300 + "e",
    "braced accents": "\\'{" * 300 + "e" + "}" * 300,
    "backticks": "`" * 500,
    "quotes": "``" * 300 + "x" + "''" * 300,
    "commands": "\\emph{" * 300 + "x" + "}" * 300,
    "switches": "{\\it " * 300 + "x" + "}" * 300,
    "bgroup": "\\bgroup " * 300 + "x",
    "paragraphs": "\\par{" * 300 + "x" + "}" * 300,
}


def under_a_deep_stack(frames: int, run: Callable[[], object]) -> object:
    """``run()`` called from ``frames`` frames down, as a host (Sphinx, MkDocs) calls it."""
    if frames == 0:
        return run()
    return under_a_deep_stack(frames - 1, run)


@pytest.mark.parametrize("case", list(DEEP))
def test_deep_nesting_reads_as_plain_text(case: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    value = DEEP[case]
    assert latex.too_deep(value)

    def convert() -> object:
        entry = Entry("k", "article", (Field("title", value, Location("t.bib", 1)),
                                       Field("author", value, Location("t.bib", 1))),
                      Location("t.bib", 1))
        return (latex.parse(value), latex.to_text(value), latex.to_inlines(value),
                parse_names(value), parse_names_pandoc(value), bibtex_csl.entry_to_item(entry))

    assert under_a_deep_stack(300, convert)
    bib = tmp_path / "deep.bib"
    bib.write_text(f"@article{{k,\n  title = {{{value}}},\n  journal = {{J}}}}\n"
                   f"@misc{{ok, title = {{Fine}}}}\n", encoding="utf-8")
    for argv in (["render", str(bib)], ["render", str(bib), "--format", "html"],
                 ["cite", str(bib), "[@k; @ok]"], ["check", str(bib)]):
        main(argv)
        captured = capsys.readouterr()
        report = captured.err + captured.out  # `check` reports on stdout
        assert f"{bib}:2: error: field `title` nests braces" in report
        assert "Traceback" not in report


def test_nesting_below_the_limit_is_read_as_before() -> None:
    value = "{a" * 30 + "}" * 30
    assert not latex.too_deep(value)
    nodes = latex.parse(value)
    depth = 0
    while nodes and isinstance(nodes[-1], latex.PSpan):
        depth += 1
        nodes = nodes[-1].children
        assert nodes[0] == PStr("a")
    assert depth == 30
    assert nodes == (PStr("a"),)


def count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls = [0]
    real = getattr(latex._Parser, name)

    def counted(self: object, *args: object) -> object:
        calls[0] += 1
        return real(self, *args)

    monkeypatch.setattr(latex._Parser, name, counted)
    return calls


@counts_python_calls
def test_nested_groups_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # every level of "{{{…a}b}b}b" was read twice: 2^depth steps, 70 bytes took 20 s
    calls = count_calls(monkeypatch, "inline")

    def steps(n: int) -> int:
        calls[0] = 0
        latex._parse("{" * n + "a" + "}b" * n, None)
        return calls[0]

    assert steps(24) / steps(12) <= 2.2
    assert latex.to_text("{" * 40 + "a" + "}b" * 40) == "a" + "b" * 40


@counts_python_calls
def test_command_options_are_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # every unknown command looks for [options]; an unclosed "[" was scanned to the end each time
    calls = count_calls(monkeypatch, "peek")

    def steps(n: int) -> int:
        calls[0] = 0
        latex._parse("\\x[" * n, None)
        return calls[0]

    assert steps(1000) / steps(500) <= 2.2


@pytest.mark.parametrize("pattern", ["\\'ab", "\\emph ab ", "\\href{u}ab", "a\\&", "\\emph{a}"])
def test_arguments_and_merges_cost_linear_time(pattern: str) -> None:
    assert doubling_ratio(lambda n: pattern * n, lambda v: latex._parse(v, None), 1000) <= 3


class EditCountingList(list[object]):
    edits = 0

    def __setitem__(self, index: Any, value: Any) -> None:
        EditCountingList.edits += 1
        super().__setitem__(index, value)


def test_words_read_as_arguments_need_no_token_edits(monkeypatch: pytest.MonkeyPatch) -> None:
    # pandoc splits a word when a command takes its first letter (\'ab); inserting the split
    # into the token list copied the list's tail once per such argument
    real = latex._tokenize
    monkeypatch.setattr(latex, "_tokenize", lambda src: EditCountingList(real(src)))
    EditCountingList.edits = 0
    for value in ("\\'ab" * 50, "\\emph ab " * 50, "\\href{u}ab" * 50, "\\RN 12 \\'{ab}"):
        latex._parse(value, None)
    assert EditCountingList.edits == 0
    assert latex.to_text("\\'ab \\RN 12") == "áb XII"


@counts_python_calls
def test_merged_words_and_formatting_are_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # adjacent words and like formatting merge; rebuilding the merged node per addition copied
    # it whole each time (``a\\&a\\&…``, ``\\emph{a}\\emph{a}…``)
    built = [0]

    class CountingStr(PStr):
        __slots__ = ()

        def __init__(self, text: str) -> None:
            built[0] += len(text)
            super().__init__(text)

    class CountingFmt(PFmt):
        __slots__ = ()

        def __init__(self, kind: str, children: tuple[PInline, ...]) -> None:
            built[0] += len(children)
            super().__init__(kind, children)

    monkeypatch.setattr(latex, "PStr", CountingStr)
    monkeypatch.setattr(latex, "PFmt", CountingFmt)

    def work(value: str) -> int:
        built[0] = 0
        latex._parse(value, None)
        return built[0]

    for pattern in ("a\\&", "\\emph{a}"):
        assert work(pattern * 2000) / work(pattern * 1000) <= 2.2


def test_roman_numerals_as_pandoc() -> None:
    assert latex.to_text(r"\RN{12} \Rn{3999}") == "XII mmmcmxcix"
    # pandoc's toRomanNumeral gives "?" from 4000 on; 10^12 used to loop 10^9 times
    assert latex.to_text(r"\RN{4000} \RN{999999999999} \RN{" + "9" * 5000 + "}") == "? ? ?"
    assert latex.parse(r"\RN{²}") is None  # not a number for pandoc either


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "~"])
@pytest.mark.parametrize("field", ["title", "author", "pages", "location", "publisher"])
def test_runs_of_wide_spaces_cost_linear_time(field: str, space: str) -> None:
    # what ``~`` decodes to, and the ideographic space: both are ``\s`` for the patterns
    def run(value: str) -> None:
        entry = Entry("k", "book", (Field(field, value, Location("t.bib", 1)),
                                    Field("title" if field != "title" else "note", "T",
                                          Location("t.bib", 1))), Location("t.bib", 1))
        latex._read.cache_clear()
        bibtex_csl.entry_to_item(entry)

    assert doubling_ratio(lambda n: "a" + space * n + "b, c", run, 20_000) <= 3


# -- numbers -----------------------------------------------------------------------------------


def test_numbers_with_thousands_of_digits(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    digits = "1" * 5000
    bib = tmp_path / "numbers.bib"
    bib.write_text(
        f"@article{{k, author = {{A, B}}, title = {{T}}, journal = {{J}}, year = {{{digits}}},\n"
        f"  volume = {{{digits}}}, number = {{{digits}}}, pages = {{{digits}--{digits}2}},\n"
        f"  edition = {{{digits}}}, month = {{{digits}}}, day = {{{digits}}}}}\n"
        f"@book{{d, title = {{D}}, date = {{y{digits}}}, volume = {{²}}, month = {{²}}}}\n"
        f"@book{{e, title = {{E}}, year = 1999, endyear = {{-{digits}}}, volume = {{7}}}}\n",
        encoding="utf-8")
    runs = [["render", str(bib)], ["render", str(bib), "--style", "numeric"],
            ["render", str(bib), "--format", "html"], ["check", str(bib)],
            ["cite", str(bib), f"[@k, p. {digits}; @d, vol. {digits}; @e]"]]
    for argv in runs:
        main(argv)
        captured = capsys.readouterr()
        report = captured.err + captured.out  # `check` reports on stdout
        assert "Traceback" not in report
        for name in ("year", "volume", "number", "pages", "edition", "month", "day", "date",
                     "endyear"):
            assert f"field `{name}` holds a number with more than 18 digits" in report


# -- CSL-JSON ----------------------------------------------------------------------------------


def test_deep_csl_json_is_a_diagnostic() -> None:
    items, diagnostics = csl_json.read_csl_json("[" * 100_000 + "]" * 100_000, "deep.json")
    assert items == ()
    assert [(d.code, d.location) for d in diagnostics] == [
        (Code.INPUT_LIMIT, Location("deep.json", 1))]
    assert diagnostics[0].hint
    nested = json.dumps([{"id": "a", "title": [[["x"]]]}, {"id": "b", "title": "B"}])
    nested = nested.replace('[[["x"]]]', "[" * 500 + "]" * 500)
    items, diagnostics = csl_json.read_csl_json(nested, "deep.json")
    assert [i.id for i in items] == ["b"]
    assert [d.code for d in diagnostics] == [Code.INPUT_LIMIT]


def test_deeply_nested_csl_json_markup_is_a_diagnostic_and_every_item_renders() -> None:
    """``<i>`` nested 50,000 times in a title: the engine recursed through the inline tree and
    stopped with a RecursionError (from 500 levels on), losing every entry. Markup nests at most
    MAX_NESTING levels; deeper tags print as written, and the reader says so."""
    from refbook.api import format_bibliography

    deep = "<i>" * 50_000 + "deep" + "</i>" * 50_000
    raw = [{"id": "a", "type": "book", "title": deep, "issued": {"date-parts": [[2000]]}},
           {"id": "b", "type": "book", "title": "Fine", "issued": {"date-parts": [[2001]]}}]
    items, diagnostics = csl_json.read_csl_json(json.dumps(raw), "deep.json")
    assert [i.id for i in items] == ["a", "b"]
    assert [d.code for d in diagnostics] == [Code.INPUT_LIMIT]
    assert "'a': title nests markup" in diagnostics[0].message
    texts = [str(e) for e in format_bibliography(raw, style="apa")]
    assert len(texts) == 2
    assert any("Fine" in t for t in texts)
    # a value nested within the limit is no diagnostic, and its markup is read
    ok = "<i>" * csl_json.MAX_NESTING + "x" + "</i>" * csl_json.MAX_NESTING
    assert csl_json.read_csl_json(json.dumps([{"id": "c", "title": ok}]), "ok.json")[1] == ()


@pytest.mark.parametrize("make", [
    lambda n: "<a" + " " * n,
    lambda n: "<span " + "a" * n + ">x</span>",
    lambda n: "<i " * n,
    lambda n: '<span style="x" ' + "b-" * n,
])
def test_csl_json_markup_is_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert doubling_ratio(make, csl_json.markup_to_inlines, 10_000) <= 3


# The patterns before the fix, as the reference for what a tag and an attribute are.
OLD_TAG = r"<(/?)([a-zA-Z]+)((?:\s+[^<>]*)?)\s*(/?)>"
OLD_ATTR = r"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')"""


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="<>/ ab=\"'-i", max_size=30))
def test_linear_markup_patterns_match_as_before(text: str) -> None:
    import re

    def found(pattern: str | re.Pattern[str]) -> list[tuple[int, int, tuple[str | None, ...]]]:
        return [(m.start(), m.end(), m.groups()) for m in re.finditer(pattern, text)]

    assert found(csl_json._TAG) == found(OLD_TAG)
    assert found(csl_json._ATTR) == found(OLD_ATTR)


# -- names and CSL mapping -------------------------------------------------------------------


def test_long_numbers_in_names_cost_linear_time() -> None:
    # a word of digits was sliced one digit at a time (text = text[1:])
    ratio = doubling_ratio(lambda n: "1" * n + "A", lambda v: _is_capitalized([PStr(v)]),
                           50_000)
    assert ratio <= 3


def old_concat_with(sep: str, parts: list[tuple[PInline, ...]]) -> tuple[PInline, ...]:
    """``_concat_with`` before it merged once: the reference for its result."""
    acc: tuple[PInline, ...] = ()
    for s in parts:
        if not s:
            continue
        if not acc:
            acc = s
            continue
        last = acc[-1]
        if isinstance(last, PStr) and last.text and last.text[-1] in "!?.,:;":
            acc = latex.merge((*acc, SPACE, *s))
        else:
            acc = latex.merge((*acc, PStr(sep), SPACE, *s))
    return acc


NODES = st.one_of(
    st.builds(PStr, st.sampled_from(["", "a", "b.", "c;", "!", "d"])),
    st.just(SPACE),
    st.builds(PFmt, st.sampled_from(["emph", "strong", "smallcaps"]),
              st.tuples(st.builds(PStr, st.sampled_from(["x", "y."])))),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(NODES, max_size=4).map(tuple), max_size=6))
def test_concat_with_merges_as_before(parts: list[tuple[PInline, ...]]) -> None:
    assert bibtex_csl._concat_with(";", parts) == old_concat_with(";", parts)


@counts_python_calls
def test_long_place_lists_are_joined_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    merged = [0]
    real = latex.merge

    def counting(nodes: Iterable[PInline]) -> tuple[PInline, ...]:
        nodes = tuple(nodes)
        merged[0] += len(nodes)
        return real(nodes)

    monkeypatch.setattr(latex, "merge", counting)

    def work(n: int) -> int:
        merged[0] = 0
        places = " and ".join(f"P{i}" for i in range(n))
        entry = Entry("p", "patent", (Field("location", places, Location("t.bib", 1)),),
                      Location("t.bib", 1))
        bibtex_csl.entry_to_item(entry)
        return merged[0]

    assert work(2000) / work(1000) <= 2.2


def test_bibliography_of_limits_renders(capsys: pytest.CaptureFixture[str]) -> None:
    """The entries that hit a limit still format, next to ordinary ones."""
    from refbook.items import items_for
    from refbook.registry import Registry
    from refbook.render.html import to_html

    result = parse(bomb(22) + "@misc{deep, title = {" + DEEP["accents"] + "}}\n")
    bib = Bibliography(result.entries, result.diagnostics, ("t.bib",))
    resolution = Registry().resolve(bib, items_for(bib), "chicago-author-date", nocite=["*"])
    html = [to_html(e) for _, e in resolution.entries]
    assert len(html) == 3
    assert sys.getrecursionlimit() >= 1000


def test_a_url_with_a_stray_bracket_is_reported_not_raised(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # found by the fuzz campaign: urllib raises "Invalid IPv6 URL" on an unbalanced "["
    bib = tmp_path / "url.bib"
    bib.write_text("@misc{k, title = {T}, url = {http://[x/a}}\n", encoding="utf-8")
    assert main(["check", str(bib)]) == 1
    out = capsys.readouterr().out
    assert "url.bib:1: error: k: url 'http://[x/a' is not a valid URL" in out
    assert "[refbook.url-malformed]" in out
