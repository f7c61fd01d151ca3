"""The rules that ask "does the style's output change?" (``refbook.validate.output``) resolve the
style once, not once per entry: on a real 20,000-entry file (entries of ``shared/testdata``) they
ask for 13,564 renders, and each used to read and digest the style file and walk all its elements
twice (36 s of a single-process check; 8 s after). The answers must stay the fresh ones."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest

import refbook.styles
import refbook.validate as validation
from refbook.config import Config
from refbook.readers import read_bibliography
from refbook.styles import get_style
from refbook.styles.csl.style import Node, Style, load_style
from refbook.validate import output, validate
from tests.conftest import SEED, TESTDATA, counts_python_calls

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

FILES = [SEED / "references.raw.bib", TESTDATA / "biblatex" / "biblatex-examples.bib"]


def _forget() -> None:
    validation._MEMO.clear()
    output._STYLES.clear()
    output._as_written.cache_clear()
    output._written_item.cache_clear()
    output._output_changes.cache_clear()


def _counted_get_style(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = refbook.styles.get_style

    def counting(spec: object, **kw: object) -> object:
        calls.append(str(spec))
        return real(spec, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(refbook.styles, "get_style", counting)
    return calls


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_output_rules_resolve_the_style_once_and_answer_as_before(
        monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    bib = read_bibliography([str(path)])
    config = Config()
    _forget()
    calls = _counted_get_style(monkeypatch)
    kept = validate(bib, config)
    assert calls == ["chicago-author-date"]  # many entries asked, one resolution
    # control: the style resolved afresh for every render (what the rules did before)
    _forget()
    calls.clear()
    monkeypatch.setattr(output, "_STYLES", _Forgetful())
    fresh = validate(bib, config)
    assert len(calls) > 10  # the file's entries do ask the style
    assert fresh == kept


class _Forgetful(dict):  # type: ignore[type-arg]
    """A ``_STYLES`` that keeps nothing."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def test_an_edited_style_file_is_resolved_again_in_the_next_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    csl = tmp_path / "mine.csl"
    shutil.copy(get_style("chicago-author-date").path, csl)
    _forget()
    output.new_pass()
    stamps: list[object] = []
    real = output._stamp
    monkeypatch.setattr(output, "_stamp", lambda style: stamps.append(style) or real(style))
    first = output._style_named(str(csl))
    assert output._style_named(str(csl)) is first
    assert output._style_named(str(csl)) is first
    assert len(stamps) == 1  # a pass looks at the file once, not once per question
    csl.write_text(csl.read_text(encoding="utf-8") + "<!-- edited -->\n", encoding="utf-8")
    output.new_pass()
    second = output._style_named(str(csl))
    assert second is not first
    assert second.digest != first.digest
    # what a host's next check (a mkdocs serve rebuild) does: the edit is seen
    bib = read_bibliography([str(FILES[0])])
    before = validate(bib, Config(style=str(csl)))
    csl.write_text(csl.read_text(encoding="utf-8").replace(
        'text-case="title"', 'text-case="uppercase"'), encoding="utf-8")
    validation._MEMO.clear()
    output._output_changes.cache_clear()
    output._as_written.cache_clear()
    assert validate(bib, Config(style=str(csl))) != before


def _walk(style: Style, test: object) -> bool:
    stack: list[Node] = [style.root]
    while stack:
        n = stack.pop()
        if test(n):  # type: ignore[operator]
            return True
        stack.extend(n.children)
    return False


@pytest.mark.parametrize("name", ["chicago-author-date", "numeric"])
def test_what_a_style_uses_is_found_once_and_right(name: str) -> None:
    csl = get_style(name)
    style = load_style(str(csl.path), None, csl.digest + "-fresh")  # a Style of its own
    assert style._scan is None
    number = _walk(style, lambda n: any("citation-number" in v for v in n.attrs.values()))
    suffix = _walk(style, lambda n: n.tag == "text" and n.attrs.get("variable") == "year-suffix")
    assert (style.uses_citation_number(), style.uses_year_suffix_variable()) == (number, suffix)
    assert style._scan is not None
    assert style._scan[:2] == (number, suffix)
    assert name != "numeric" or number  # the numeric style does number its items


def _item(key: str, title: str, author: str = "Doe, Jane") -> object:
    from refbook.bibtex_csl import entry_to_item

    bib = read_bibliography_text(
        f"@article{{{key}, author = {{{author}}}, title = {{{title}}}, journal = {{J}},"
        " year = {2020}, abstract = {An \\emph{abstract}}}\n")
    return entry_to_item(bib.entries[0])


def read_bibliography_text(text: str) -> object:
    from refbook.readers.bibtex import parse_bibtex

    return parse_bibtex(text, "t.bib")


def _citation_layouts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    from refbook.styles.csl.engine import Evaluator

    calls: list[bool] = []
    real = Evaluator.layout

    def counting(self: Evaluator, area: object, *a: object, **kw: object) -> object:
        calls.append(bool(kw.get("bibliography")))
        return real(self, area, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Evaluator, "layout", counting)
    return calls


@counts_python_calls
def test_a_lone_item_renders_no_citation_to_tell_it_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """The output rules render one entry at a time: disambiguating it against nothing rendered
    its citation for nothing (one render in three)."""
    style = get_style("chicago-author-date")
    calls = _citation_layouts(monkeypatch)
    one = style.processor([_item("a", "One")])  # type: ignore[list-item]
    assert calls.count(False) == 0
    lone = one.bibliography()
    # control: two items that look alike are compared through their citations
    calls.clear()
    two = style.processor([_item("a", "One"), _item("b", "Two")])  # type: ignore[list-item]
    assert calls.count(False) >= 2
    assert dict(two.bibliography())["a"] != lone[0][1]  # "2020a": told apart from "b"
    calls.clear()
    other = style.processor([_item("a", "One"), _item("b", "Two", "Roe, Rick")])  # type: ignore[list-item]
    assert calls.count(False) >= 1  # "b" ("a"'s citation is in the style's memo by now)
    assert dict(other.bibliography())["a"] == lone[0][1]


def test_the_style_words_are_found_once_per_style() -> None:
    """An item with LaTeX variables (an abstract) makes the evaluator ask which variables the
    style names anywhere: one walk of the style, shared by every processor."""
    style = get_style("chicago-author-date")
    first = style.processor([_item("a", "Words one")])  # type: ignore[list-item]
    first.bibliography()
    second = style.processor([_item("b", "Words two")])  # type: ignore[list-item]
    second.bibliography()
    words = first.ev._style_words
    assert words is not None
    assert second.ev._style_words is words
    assert words == frozenset(w for n in _nodes(first.style.root) for v in n.attrs.values()
                              for w in v.split())


def _nodes(root: Node) -> list[Node]:
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(n.children)
    return out


# the styles of the style issue's evidence, and the built-ins
CYCLE_STYLES = ["chicago-author-date", "numeric", "apa", "ieee", "nature",
                "nlm-citation-sequence", "harvard-cite-them-right",
                "chicago-notes-bibliography", "din-1505-2"]


@pytest.mark.parametrize("name", CYCLE_STYLES)
def test_a_processor_leaves_no_cycle_for_the_paused_collector(name: str) -> None:
    """``validate`` pauses the collector while the rules render entries one processor at a time:
    a processor caught in a reference cycle (its sort keys' closures, a self-calling nested
    walk) stayed in memory until the pause ended (+120 MB on 20,000 real entries). Every
    processor and what it made must go by reference counting alone."""
    import gc

    from refbook.bibtex_csl import entry_to_item
    from refbook.render.text import to_text
    from refbook.styles.csl.processor import CiteItem

    style = get_style(name)
    entries = list(read_bibliography([str(SEED / "references.bib")]))[:60]
    items = [entry_to_item(e) for e in entries]
    style.processor(items[:1], memo={}).bibliography()  # the style read (once per process)

    def run() -> None:
        for item in [*items, None]:
            processor = style.processor(items if item is None else [item], memo={})
            texts = [to_text(n) for _, n in processor.bibliography()]
            first = (items if item is None else [item])[0].id
            cites = [processor.cite([CiteItem(first)]), processor.cite([CiteItem(first, locator="12")])]
            del processor, texts, cites

    assert cyclic_garbage(run) == (0, [])
    # control: the check does see a cycle
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        loop: list[object] = []
        loop.append(loop)
        del loop
        assert gc.collect() == 1
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def cyclic_garbage(run: Callable[[], object]) -> tuple[int, list[str]]:
    """What ``run`` leaves to the cyclic collector: the count and the kinds of objects it finds
    after ``run``, which runs with the collector off (as validation pauses it)."""
    import gc

    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        found = gc.collect()
        return found, sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


# -- answers without rendering the fixed entry --------------------------------------------------
#
# ``output_changes`` renders the fixed entry only when its CSL item differs from the written one
# in a variable the render as written read (its value, or its presence when the presence
# changes). These tests ask every question validation asks on real files, with four styles, and
# compare each answer with the full render of both forms (the rules' test before the change).

REAL_FILES = sorted(p for p in TESTDATA.rglob("*") if p.suffix in (".bib", ".bibtex"))
STYLES = ("chicago-author-date", "apa", "ieee", "din-1505-2")


def _full_render_answer(entry: object, name: str, fixed: str, style: str,
                        rename: str = "") -> bool:
    from refbook.records import replace

    before = output._render(entry, style)  # type: ignore[arg-type]
    if before is None:
        return True
    fields = tuple(replace(f, name=rename or name, value=fixed) if f.name == name else f
                   for f in entry.fields)  # type: ignore[attr-defined]
    after = output._render(replace(entry, fields=fields), style)  # type: ignore[type-var]
    return after is None or after != before


def test_answers_without_the_fixed_render_are_the_full_renders_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import refbook.validate.fields as fields_rules
    import refbook.validate.titles as title_rules
    import refbook.validate.values as value_rules

    assert len(REAL_FILES) > 100
    fast = output._output_changes.__wrapped__

    asked: list[tuple[object, ...]] = []
    differ: list[tuple[object, ...]] = []
    fast_renders = [0]

    def both(entry: object, name: str, fixed: str, style: str, rename: str = "") -> bool:
        n0 = renders[0]
        answer = fast(entry, name, fixed, style, rename)
        took = renders[0] - n0
        fast_renders[0] += took
        control = _full_render_answer(entry, name, fixed, style, rename)
        asked.append((name, control, took))
        if answer != control:
            differ.append((entry.key, name, fixed, style, answer, control))  # type: ignore[attr-defined]
        return control

    renders = _renders_for(monkeypatch)  # the control's too: only ``took`` is the fast path's
    for module in (fields_rules, title_rules, value_rules):
        monkeypatch.setattr(module, "output_changes", both)
    _forget()
    for style in STYLES:
        for path in [*REAL_FILES, SEED / "references.raw.bib"]:
            validate(read_bibliography([str(path)]), Config(style=style))
    assert differ == []
    kinds = {name for name, _, _ in asked}
    assert {"title", "pages", "month"} <= kinds
    assert {True, False} == {answer for _, answer, _ in asked}
    # the full render costs two renders per question; the answers above took fewer, and a
    # page range's or a month's question (the conversion writes the dash, reads the month)
    # seldom any
    assert len(asked) > 1000
    assert fast_renders[0] < 2 * len(asked) * 0.7
    dashes = [took for name, _, took in asked if name in ("pages", "month")]
    assert len(dashes) > 300
    assert sum(dashes) < len(dashes) / 4


def _entry(fields: dict[str, str], kind: str = "article") -> object:
    from refbook.readers import parse_bibtex

    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items())
    return parse_bibtex(f"@{kind}{{k,\n{body}\n}}\n", "t.bib").entries[0]


def _renders_for(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the renders: whole (``_render``) or up to the layouts (``_evaluate``, the render
    as written, whose text is made when asked)."""
    count = [0]
    for name in ("_render", "_evaluate"):
        real = getattr(output, name)

        def counted(*args: object, _real: Any = real, **kw: object) -> object:
            count[0] += 1
            return _real(*args, **kw)

        monkeypatch.setattr(output, name, counted)
    return count


def _finishes_for(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the processors' last steps, from a layout to inlines (what a text costs)."""
    from refbook.styles.csl.processor import Processor

    count = [0]
    real = Processor.finish

    def counted(self: Processor, out: Any) -> Any:
        count[0] += 1
        return real(self, out)

    monkeypatch.setattr(Processor, "finish", counted)
    return count


def test_a_variable_the_style_never_reads_needs_no_second_render(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _forget()
    count = _renders_for(monkeypatch)
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "journal": "J", "year": "2001",
                    "keyword": "physics", "city": "Paris"})
    # the style prints no keywords: renaming keyword -> keywords changes nothing, and only the
    # written form was rendered
    assert output.output_changes(entry, "keyword", "physics", "", "keywords") is False
    assert count[0] == 1
    # it prints an article's place ("J (Paris)"): the fixed form is rendered too, and the answer
    # is that it changes
    assert output.output_changes(entry, "city", "Paris", "", "address") is True
    assert count[0] == 2


@counts_python_calls
def test_an_answer_from_the_reads_alone_makes_no_text(monkeypatch: pytest.MonkeyPatch) -> None:
    _forget()
    count = _renders_for(monkeypatch)
    finishes = _finishes_for(monkeypatch)
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "journal": "J", "year": "2001",
                    "keyword": "physics", "city": "Paris"})
    # the render as written is evaluated up to its layout; keywords are never read, so the
    # answer needs no text: the layout is never turned into one
    assert output.output_changes(entry, "keyword", "physics", "", "keywords") is False
    assert (count[0], finishes[0]) == (1, 0)
    # the place is printed: the written text is made from the kept layout (no new render),
    # and the fixed entry is rendered whole
    assert output.output_changes(entry, "city", "Paris", "", "address") is True
    assert (count[0], finishes[0]) == (2, 2)
    # the texts are those of whole renders
    reads = output._as_written(entry, "")
    assert reads is not None
    assert reads.text() == output._render(entry, "")
    assert finishes[0] == 3  # the control's own


def test_the_same_item_needs_no_render_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    _forget()
    count = _renders_for(monkeypatch)
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "journal": "J", "year": "2001",
                    "pages": "1-10"})
    # the conversion writes a page range's dash itself: the fixed item is the written one
    assert output.output_changes(entry, "pages", "1--10", "") is False
    assert count[0] == 0
    # a style that cannot be read still answers "changes" (the rule reports as before)
    assert output.output_changes(entry, "pages", "1--10", "no-such-style") is True


PROBE_STYLE = """<?xml version="1.0" encoding="utf-8"?>
<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">
  <info><title>Probe</title><id>probe</id><updated>2024-01-01T00:00:00+00:00</updated></info>
  <citation><layout><text variable="title"/></layout></citation>
  <bibliography><layout>
    <text variable="title"/>
    <choose><if variable="publisher-place"><text value=" (printed somewhere)"/></if></choose>
  </layout></bibliography>
</style>
"""


def _probe_style(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 text: str) -> tuple[Path, list[int]]:
    """A style file of ``text``, the memos emptied, and the renders counted from now on."""
    style = tmp_path / "probe.csl"
    style.write_text(text, encoding="utf-8")
    _forget()
    return style, _renders_for(monkeypatch)


def test_a_tested_variable_the_entry_lacks_counts_as_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The style tests publisher-place and prints a text of its own when present, never the
    # place itself: the render as written reads no value of it, and the written entry has no
    # place at all. Renaming city -> address adds one, and the output changes.
    style, count = _probe_style(tmp_path, monkeypatch, PROBE_STYLE)
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "publisher": "P", "year": "2001",
                    "city": "Paris"}, kind="book")
    assert _full_render_answer(entry, "city", "Paris", str(style), "address") is True
    count[0] = 0
    assert output.output_changes(entry, "city", "Paris", str(style), "address") is True
    assert count[0] == 2  # the choose's test was recorded: the fixed form was rendered
    # control: a variable that choose does not test still needs no second render
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "publisher": "P", "year": "2001",
                    "keyword": "physics"}, kind="book")
    count[0] = 0
    assert output.output_changes(entry, "keyword", "physics", str(style), "keywords") is False
    assert count[0] == 1


def test_a_title_question_reuses_the_written_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    _forget()
    count = _renders_for(monkeypatch)
    entry = _entry({"author": "Doe, Jane", "title": "Optimizing I/O for LLM Datasets",
                    "journal": "J", "year": "2001"})
    # the conversion lowercases an unbraced "I/O" ("i/o"): braced, it prints as written
    assert output.output_changes(entry, "title", "Optimizing {I/O} for LLM Datasets", "") is True
    # one render (the entry as written); the fixed title went into its layout's title leaf
    assert count[0] == 1
    # "LLM" prints alike either way, from the same layout
    assert output.output_changes(entry, "title", "Optimizing I/O for {LLM} Datasets", "") is False
    assert count[0] == 1
    for fixed in ("Optimizing {I/O} for LLM Datasets", "Optimizing I/O for {LLM} Datasets"):
        assert output.output_changes(entry, "title", fixed, "") == _full_render_answer(
            entry, "title", fixed, "")


NUMERIC_TITLE_STYLE = PROBE_STYLE.replace(
    '<choose><if variable="publisher-place"><text value=" (printed somewhere)"/></if></choose>',
    '<choose><if is-numeric="title"><text value=" (a number)"/></if></choose>')


def test_a_title_that_decides_something_is_rendered_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the style tests whether the title is a number: a read of the title that leaves no leaf in
    # the layout, so the layout cannot be reused; the fixed entry is rendered
    style, count = _probe_style(tmp_path, monkeypatch, NUMERIC_TITLE_STYLE)
    entry = _entry({"author": "Doe, Jane", "title": "12", "journal": "J", "year": "2001"})
    assert output.output_changes(entry, "title", "12a", str(style)) is True
    assert count[0] == 2
    assert _full_render_answer(entry, "title", "12a", str(style)) is True


def test_a_page_question_converts_no_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    import refbook.bibtex_csl as conversion

    _forget()
    count = _renders_for(monkeypatch)
    converted: list[str] = []
    real = conversion.entry_to_item

    def counting(entry: object, **kw: object) -> object:
        converted.append(entry.key)  # type: ignore[attr-defined]
        return real(entry, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(conversion, "entry_to_item", counting)
    entry = _entry({"author": "Doe, Jane", "title": "A Title", "journal": "J", "year": "2001",
                    "pages": "1-10"})
    # the page variable alone tells: neither entry is converted, nothing is rendered
    assert output.output_changes(entry, "pages", "1--10", "") is False
    assert (converted, count[0]) == ([], 0)
    # control: a value whose page variable differs goes the whole way, and changes the output
    assert output.output_changes(entry, "pages", "2--10", "") is True
    assert len(converted) == 2
    assert count[0] == 2


def test_the_page_variable_is_the_conversions_on_real_files() -> None:
    from refbook.bibtex_csl import entry_to_item, page_variable

    seen = 0
    for path in [*REAL_FILES, SEED / "references.raw.bib"]:
        for entry in read_bibliography([str(path)]):
            pages = [f for f in entry.fields if f.name == "pages"]
            if len(pages) != 1:
                continue
            seen += 1
            item = entry_to_item(entry)
            assert dict(item.text).get("page") == page_variable(pages[0].value), entry.key
    assert seen > 500


def test_the_logged_item_records_reads_through_copies() -> None:
    from refbook.bibtex_csl import entry_to_item
    from refbook.records import replace

    _forget()
    logged_class = output._logged_item_class()
    item = entry_to_item(_entry({"author": "Doe, Jane", "title": "T", "year": "2001"}))
    logged = logged_class(id=item.id, type=item.type, text=item.text, names=item.names,
                          dates=item.dates, language=item.language, latex=item.latex)
    reads = output._Reads()
    output._LOG.__dict__.setdefault("stack", []).append(reads)
    try:
        copy = replace(logged, text=(*logged.text, ("citation-number", ())))
        assert type(copy) is logged_class  # the processor's numbered copy records too
        copy.var("title")
        copy.name_list("author")
        copy.date("issued")
        copy.present(frozenset())  # the engine's presence set: no test of any variable yet
        copy.tested(frozenset({"publisher-place", "title"}))  # what a <choose> tests
    finally:
        output._LOG.stack.pop()
    assert reads.values == {"title", "author", "issued"}
    assert reads.presence == {"publisher-place", "title"}  # a variable the item lacks, too
    logged.var("note")  # outside a render: nothing to record into, and no error


def test_a_render_asked_about_is_freed_without_the_collector() -> None:
    """Validation runs with the collector paused (``refbook.gcpause``): a render the rules asked
    about must be freed as soon as the memo lets it go, not kept by a reference cycle until the
    end (the evaluator's layout wrapper held the render's log, which held the processor: every
    render of a 20,000-entry check stayed, ~35 MB per worker). Counted with ``gc.get_objects``,
    which lists uncollected cycles too."""
    import gc

    from refbook.styles.csl.processor import Processor

    bib = read_bibliography([str(FILES[0])])
    _forget()
    gc.collect()
    gc.disable()
    try:
        for entry in list(bib)[:20]:
            assert output._as_written(entry, "") is not None
        alive = sum(1 for o in gc.get_objects() if type(o) is Processor)
        assert alive >= 20  # the memo holds them (the control: they are counted)
        output._as_written.cache_clear()
        assert sum(1 for o in gc.get_objects() if type(o) is Processor) == 0
    finally:
        gc.enable()
