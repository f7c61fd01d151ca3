"""The style engine does no work twice for the same content: entries that differ only in their
key (duplicates under two keys, common in merged bibliographies) share sort keys and memoized
renders, since no CSL variable shows the key. Counted, never timed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.styles.csl.engine import Evaluator
from refbook.styles.csl.processor import CiteItem
from tests.conftest import counts_python_calls

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _item(key: str, family: str, year: int, title: str) -> Item:
    return Item(key, "book", text=(("title", (Text(title),)),),
                names=(("author", (Name(family=family, given="Ann"),)),),
                dates=(("issued", Date(start=DatePart(year))),))


def _counting(monkeypatch: pytest.MonkeyPatch, method: str) -> list[str]:
    calls: list[str] = []
    original = getattr(Evaluator, method)

    def counting(self: Evaluator, area, item, *args, **kw):  # type: ignore[no-untyped-def]
        calls.append(item.id)
        return original(self, area, item, *args, **kw)

    def counting_key(self: Evaluator, area, key, item, disamb):  # type: ignore[no-untyped-def]
        calls.append(item.id)
        return original(self, area, key, item, disamb)

    monkeypatch.setattr(Evaluator, method, counting_key if method == "sort_key" else counting)
    return calls


def test_entries_differing_only_in_key_sort_as_equal_without_sort_keys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "sort_key")
    # unique names, so that no memo of another test answers for them
    twin_b = _item("twin-b", "Twinsortauthor", 2001, "Same")
    twin_a = _item("twin-a", "Twinsortauthor", 2001, "Same")
    p = get_style("chicago-author-date").processor([twin_b, twin_a])
    entries = [(k, to_text(x)) for k, x in p.bibliography()]
    # the same order and output as before: a stable sort, year suffixes by sort key, then id
    assert [k for k, _ in entries] == ["twin-b", "twin-a"]
    assert entries[0][1].startswith("Twinsortauthor, Ann. 2001b.")
    assert entries[1][1].startswith("Twinsortauthor, Ann. 2001a.")
    # the style has 11 sort keys: equal content decides the comparison, none is computed;
    # the year suffixes' order (by sort key, then id) needs none either
    assert calls == []


@counts_python_calls
def test_entries_differing_only_in_key_share_the_basic_render(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "layout")
    twins = [_item(f"twin{i}", "Twinbasicauthor", 1999, "Alike") for i in range(3)]
    other = _item("other", "Twinbasicother", 1999, "Else")
    p = get_style("chicago-author-date").processor([*twins, other])
    # one citation render per distinct content for disambiguation (before: one per key), then
    # again for the three twins once their year suffixes set them apart
    assert sorted(calls) == ["other", "twin0", "twin0", "twin1", "twin2"]
    texts = [to_text(x) for _, x in p.bibliography()]
    assert [t.split(".")[1].strip() for t in texts[:3]] == ["1999a", "1999b", "1999c"]


def test_superscript_characters_are_looked_up_as_met_with_the_same_result() -> None:
    from refbook.ir import Span, Styled
    from refbook.styles.csl import output

    output._raised.cache_clear()
    text = (Text("1ᵉʳ édition, 2ⁿᵈ ed. ℠"),)
    raised = output.raise_superscripts(text)
    # the table of every superscript character (what was built up front before) agrees
    table = output.superscripts()
    expected: list[object] = []
    run = ""
    for c in text[0].text:
        if c in table:
            if run:
                expected.append(Text(run))
                run = ""
            # the raised letters, kept with the character they come from (plain text prints it)
            expected.append(Styled("sup", (Span("raised", (Text(table[c]),), c),)))
        else:
            run += c
    if run:
        expected.append(Text(run))
    assert list(raised) == expected
    output._raised.cache_clear()
    output.raise_superscripts(text)
    # only the characters of the text were looked up, not the whole plane (65,000)
    assert output._raised.cache_info().currsize < 20


def _chunks_by_definition(text: str) -> list[str]:
    """citeproc's chunks character by character (the definition split_chunks implements)."""
    import unicodedata

    def cls(c: str) -> int:
        if c.isalnum():
            return 1
        if c.isspace():
            return 2
        return 3 if unicodedata.category(c)[0] == "P" else 0

    chunks: list[str] = []
    cur, k0 = "", -1
    for c in text:
        k = cls(c)
        if cur and k == k0 and k != 0:
            cur += c
        else:
            if cur:
                chunks.append(cur)
            cur, k0 = c, k
    if cur:
        chunks.append(cur)
    return chunks


def test_title_chunks_match_their_definition() -> None:
    import random
    from pathlib import Path

    from refbook.casing import split_chunks

    texts = ["", "a", "_", "a_b", "x__y", "Hello, world!!", "don't—stop…", "3½ ²x", "a\u00a0b",
             "\u2028\n\t x", "¿Qué? «Oui» — «non».", "C++/C#", "e\u0301t\u00e9", "٣٤ ١"]
    for path in sorted(Path("/work/shared/testdata").rglob("*.bib"))[:30]:
        texts.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    rng = random.Random(13)  # reproducible test data
    alphabet = "aZ9_ \t\n.,;:!?-–—'\"()[]{}«»¿¡½²ﬃ\u0301\u00a0\u2028€$+*/\\é漢字"
    texts.extend("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
                 for _ in range(5000))
    # code points across the planes: every general category
    texts.extend("".join(chr(rng.randrange(0x20, 0x30000)) for _ in range(rng.randint(1, 6)))
                 for _ in range(5000))
    assert [t for t in texts if split_chunks(t) != _chunks_by_definition(t)] == []


@counts_python_calls
def test_global_given_name_rule_and_ambiguity_passes_share_one_citation_render(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # APA's givenname-disambiguation-rule (primary-name-with-initials) reads every item's
    # first cite before the ambiguity passes read it again: an item whose state none of the
    # passes changes is rendered once (it was rendered once per pass of the rule and again
    # for the ambiguities)
    calls = _counting(monkeypatch, "layout")
    smith_a = Item("sa", "book", text=(("title", (Text("One"),)),),
                   names=(("author", (Name(family="Globalsmith", given="Ann"),)),),
                   dates=(("issued", Date(start=DatePart(2001))),))
    smith_b = Item("sb", "book", text=(("title", (Text("Two"),)),),
                   names=(("author", (Name(family="Globalsmith", given="Bob"),)),),
                   dates=(("issued", Date(start=DatePart(2002))),))
    alone = _item("alone", "Globalalone", 2003, "Three")
    p = get_style("apa").processor([smith_a, smith_b, alone])
    assert calls.count("alone") == 1
    # the Smiths got their initials (the rule's work), rendered again in that state
    assert calls.count("sa") == 2
    assert calls.count("sb") == 2
    assert to_text(p.cite([CiteItem("sa")])).startswith("(A. Globalsmith")


def young_at_most_once(collections: list[int], pauses: int = 1) -> bool:
    """No collection during the paused work; after each of its ``pauses``, at most one of the
    young generations (never a full one): a pause that made fewer than ``PROMOTE_AT`` objects
    leaves them young (``refbook.gcpause.paused_gc``), and the next allocation's collection
    scans them once (the middle generation's too when its own count is due)."""
    return len(collections) <= pauses and all(g < 2 for g in collections)


def test_sorting_disambiguating_and_listing_set_off_no_garbage_collection() -> None:
    """The processor pauses the cyclic collector while it renders every item (refbook.gcpause):
    its allocations set off ~100 collections on the seed book otherwise, each rescanning the
    young objects and now and then the whole heap (counted, not timed)."""
    import gc

    from refbook.items import items_for
    from refbook.readers import read_bibliography
    from tests.conftest import SEED

    items = items_for(read_bibliography([str(SEED / "references.bib")]))
    style = get_style("chicago-author-date")
    wanted = [items[k] for k in items]
    style.style().memo.clear()
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        entries = style.processor(wanted).bibliography()
    finally:
        gc.callbacks.remove(count)
    assert len(entries) == len(wanted) > 250
    # two pauses: the processor's setup (sorting, disambiguating) and the list
    assert young_at_most_once(collections, pauses=2)
    assert gc.isenabled()


def test_converting_a_bibliographys_items_sets_off_no_garbage_collection() -> None:
    """``Items.many`` (what the registry, the API and the CLI convert with) pauses the collector:
    converting the seed book entry by entry sets off collections (full ones too, which rescan
    the whole heap: a fifth of a cold 2,000-entry run), converting it in one call none; the
    items are the same either way (counted, not timed)."""
    import gc

    from refbook.items import clear_memo, items_for
    from refbook.readers import read_bibliography
    from tests.conftest import SEED

    items = items_for(read_bibliography([str(SEED / "references.bib")]))
    keys = list(items)
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    def converted(one_call: bool) -> tuple[list[Item], list[int]]:
        clear_memo()
        collections.clear()
        gc.callbacks.append(count)
        try:
            got = items.many(keys) if one_call else [items[k] for k in keys]
        finally:
            gc.callbacks.remove(count)
        return got, list(collections)

    one_by_one, set_off = converted(False)
    at_once, none = converted(True)
    assert len(keys) > 250
    assert set_off  # the control: without the pause this work does collect
    assert young_at_most_once(none)
    assert at_once == one_by_one
    assert gc.isenabled()


def test_resolving_a_book_and_loading_a_memo_file_set_off_no_garbage_collection(
        tmp_path: Path) -> None:
    """``Registry.resolve`` (conversions, the processor, every citation, the list) and
    ``sealed.load`` (a cache file's tens of thousands of objects) run with the collector paused;
    the same work with the pause taken out collects (the control). Counted, not timed."""
    import gc

    import refbook.gcpause
    from refbook import sealed
    from refbook.items import clear_memo, items_for
    from refbook.readers import read_bibliography
    from refbook.registry import Registry
    from refbook.syntax import find_citations
    from tests.conftest import SEED

    bib = read_bibliography([str(SEED / "references.bib")])
    keys = [e.key for e in bib][:200]
    registry = Registry()
    registry.set_document("ch1", find_citations(" ".join(f"[@{k}]" for k in keys)))
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    def counted(work: Callable[[], object]) -> tuple[object, list[int]]:
        collections.clear()
        gc.callbacks.append(count)
        try:
            return work(), list(collections)
        finally:
            gc.callbacks.remove(count)

    def resolve() -> object:
        clear_memo()
        style = get_style("chicago-author-date")
        style.style().memo.clear()
        return registry.resolve(bib, items_for(bib), style)

    path = tmp_path / "memo.pickle"
    assert sealed.dump({i: (str(i), [i]) for i in range(30_000)}, path)
    resolution, none = counted(resolve)
    loaded, none_either = counted(lambda: sealed.load(path))
    with pytest.MonkeyPatch.context() as mp:  # the control: the same work, never paused
        mp.setattr(refbook.gcpause.gc, "disable", lambda: None)
        again, some = counted(resolve)
        _, some_too = counted(lambda: sealed.load(path))
    assert young_at_most_once(none)
    assert young_at_most_once(none_either)
    assert some
    assert some_too
    assert again == resolution
    assert isinstance(loaded, dict)
    assert len(loaded) == 30_000
    assert gc.isenabled()


@counts_python_calls
def test_a_plain_cite_is_its_basic_render_and_others_evaluate_their_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # disambiguation evaluated every item's basic cite (first position, no locator): a plain
    # cite is that evaluation, not a second one; a locator, or a later position in a style
    # whose output depends on it, evaluates its own
    calls = _counting(monkeypatch, "layout")
    a = _item("pa", "Plaincitefirst", 2004, "Four")
    b = _item("pb", "Plaincitesecond", 2005, "Five")
    p = get_style("chicago-author-date").processor([a, b])
    assert sorted(calls) == ["pa", "pb"]  # the disambiguation's renders
    plain = to_text(p.cite([CiteItem("pa")]))
    later = to_text(p.cite([CiteItem("pa", position="subsequent")]))  # author-date: the same
    assert sorted(calls) == ["pa", "pb"]
    assert plain == later == "(Plaincitefirst 2004)"
    assert to_text(p.cite([CiteItem("pa", locator="7", label="page")])) == "(Plaincitefirst 2004, 7)"
    assert sorted(calls) == ["pa", "pa", "pb"]


@counts_python_calls
def test_a_later_cite_in_a_note_style_is_evaluated_in_its_position(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "layout")
    a = _item("na", "Notecitefirst", 2006, "Six")
    p = get_style("chicago-notes-bibliography").processor([a])
    first = to_text(p.cite([CiteItem("na")]))
    before = len(calls)
    later = to_text(p.cite([CiteItem("na", position="subsequent")]))
    assert len(calls) == before + 1  # the short form is evaluated, not the first cite reused
    assert first.startswith("Ann Notecitefirst, ")
    assert later == "Notecitefirst, Six."


@counts_python_calls
def test_a_plain_group_around_one_formatted_output_adds_no_node() -> None:
    from refbook.styles.csl.compiled import _group
    from refbook.styles.csl.output import NO_FORMAT, Fmt, Formatting, lit

    class _Ev:  # what a group step reads of the evaluator
        def __init__(self) -> None:
            self.var_count = [0, 0]

        def _is_english(self) -> bool:
            return True

    bold = Fmt(Formatting(font_weight="bold"), [lit("x")])
    boxed = Fmt(Formatting(display="block"), [lit("y")])

    def one(ev: object, out: list[object]) -> None:
        out.append(bold)

    def box(ev: object, out: list[object]) -> None:
        out.append(boxed)

    def run(step: object) -> list[object]:
        out: list[object] = []
        step(_Ev(), out)  # type: ignore[operator]
        return out

    # a plain macro call or group around one formatted output: the output itself
    assert run(_group((one,), NO_FORMAT, is_macro=True)) == [bold]
    assert run(_group((one,), NO_FORMAT, is_macro=False))[0] is bold
    # kept: a group with formatting of its own, two outputs, or a display box inside (the
    # layout's suffix goes into an entry's last box, found at the top)
    italic = Formatting(font_style="italic")
    assert run(_group((one,), italic, is_macro=False)) == [Fmt(italic, [bold])]
    assert run(_group((one, one), NO_FORMAT, is_macro=False)) == [Fmt(NO_FORMAT, [bold, bold])]
    assert run(_group((box,), NO_FORMAT, is_macro=True)) == [Fmt(NO_FORMAT, [boxed])]


def test_a_second_processor_of_the_same_items_finds_the_memo_by_identity(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebuild (``mkdocs serve``, Sphinx) makes a new processor of the same items: its memo
    keys (each item without its id) are the objects the first one stored, so no look-up
    compares two items field by field (before: 10,266 comparisons per citation edit of the
    300-entry bench book)."""
    items = [_item(f"anon{i}", f"Anonidentity{i % 7}", 1990 + i % 5, f"Title {i}")
             for i in range(40)]
    style = get_style("chicago-author-date")
    first = style.processor(items)
    assert items[0].anonymous() is items[0].anonymous()
    assert items[0].anonymous() == Item("", "book", items[0].text, items[0].names,
                                        items[0].dates)
    compared: list[object] = []
    original = Item.__eq__

    def counting(self: Item, other: object) -> bool:
        compared.append(self)
        return original(self, other)

    monkeypatch.setattr(Item, "__eq__", counting)
    second = style.processor(items)
    texts = [to_text(x) for _, x in second.bibliography()]
    assert compared == []
    monkeypatch.undo()
    assert texts == [to_text(x) for _, x in first.bibliography()]
    # the control: copies of the items (a new parse) are found by value, field by field
    monkeypatch.setattr(Item, "__eq__", counting)
    copies = [Item(i.id, i.type, i.text, i.names, i.dates) for i in items]
    style.processor(copies)
    assert compared


def test_a_memo_read_from_a_file_is_compared_field_by_field_once_per_item(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new build process reads the style's memo from the cache folder and makes its items
    anew (a parse, or the items cache): every memo key holds an item equal to, but not the
    same object as, the processor's. The first comparison of a key with an equal one makes it
    hold the processor's item, and the later look-ups of that item find it by identity: at
    most one field-by-field comparison per stored key (before: 2,022 for the 300 entries of a
    Sphinx citation edit, ~7 per item). The output is the output of a fresh memo."""
    import pickle

    from refbook.styles.csl import processor as processor_module

    items = [_item(f"file{i}", f"Filememo{i % 7}", 1990 + i % 5, f"Title {i}")
             for i in range(40)]
    style = get_style("chicago-author-date")
    memo: dict[object, object] = {}
    fresh = style.processor(items, memo=memo)
    expected = [to_text(x) for _, x in fresh.bibliography()]
    stored = len({id(k[1]) for k in memo if isinstance(k, tuple) and len(k) > 1
                  and isinstance(k[1], processor_module._ContentKey)})

    def again(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
        loaded = pickle.loads(pickle.dumps(memo))  # our own memo, as a file holds it
        copies = pickle.loads(pickle.dumps(items))  # the items of a new process
        compared: list[object] = []
        original = Item.__eq__

        def counting(self: Item, other: object) -> bool:
            compared.append(self)
            return original(self, other)

        with monkeypatch.context() as m:
            m.setattr(Item, "__eq__", counting)
            texts = [to_text(x) for _, x in style.processor(copies, memo=loaded).bibliography()]
        return texts, len(compared)

    texts, compared = again(monkeypatch)
    assert texts == expected
    assert 0 < compared <= stored, (compared, stored)
    # the control: keys that keep their own item compare field by field at each look-up
    def keeping(self: object, other: object) -> bool:
        if not isinstance(other, processor_module._ContentKey):
            return NotImplemented
        return self.item is other.item or (  # type: ignore[attr-defined]
            self._hash == other._hash and self.item == other.item)  # type: ignore[attr-defined]

    monkeypatch.setattr(processor_module._ContentKey, "__eq__", keeping)
    texts, compared_before = again(monkeypatch)
    assert texts == expected
    assert compared_before > 3 * stored, (compared_before, stored)


def test_a_new_process_sorts_with_the_collation_keys_of_the_memo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The style's memo (kept in a host's cache folder) holds each sorted word's collation key:
    a new build process sorting the same words collates none of them and never loads the
    collation table (8 ms of a Sphinx citation edit). The order is the one collating gives."""
    import pickle

    from refbook.styles.csl import processor

    items = [_item(f"k{i}", f"Ångström{i % 5}" if i % 3 else f"Zeta{i % 4}", 1990 + i % 7,
                   f"Title {i}") for i in range(30)]
    style = get_style("chicago-author-date")
    memo: dict[object, object] = {}
    first = [k for k, _ in style.processor(items, memo=memo).bibliography()]
    assert any(isinstance(k, tuple) and k[0] == "uca" for k in memo)
    # as a new process: the memo read back from its file, nothing collated in memory
    stored = pickle.loads(pickle.dumps(memo))
    processor._collate_word.cache_clear()
    processor._collator.cache_clear()
    collated: list[str] = []
    real = processor._collate_word

    def counting(w: str) -> object:
        collated.append(w)
        return real(w)

    monkeypatch.setattr(processor, "_collate_word", counting)
    again = [k for k, _ in style.processor(items, memo=stored).bibliography()]
    assert again == first
    assert collated == []
    assert processor._collator.cache_info().currsize == 0  # the table never loaded
    # the control: without the memo's keys every word is collated again
    fresh = {k: v for k, v in stored.items() if not (isinstance(k, tuple) and k[0] == "uca")}
    assert [k for k, _ in style.processor(items, memo=fresh).bibliography()] == first
    assert collated


@counts_python_calls
def test_a_name_list_formats_only_the_names_it_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    # Chicago's citation shows the first of four or more authors ("Manyauthorsa et al. 2009"),
    # its bibliography (CMOS 18) the first three of more than six and then "et al.": the names
    # after those are not formatted to be dropped
    formatted: list[str] = []
    original = Evaluator.format_name

    def counting(self: Evaluator, name: Name, *args, **kw):  # type: ignore[no-untyped-def]
        formatted.append(name.family)
        return original(self, name, *args, **kw)

    monkeypatch.setattr(Evaluator, "format_name", counting)
    authors = tuple(Name(family=f"Manyauthors{chr(97 + i)}", given="Ann") for i in range(20))
    item = Item("many", "book", text=(("title", (Text("Twenty"),)),),
                names=(("author", authors),), dates=(("issued", Date(start=DatePart(2009))),))
    p = get_style("chicago-author-date").processor([item, _item("few", "Fewauthors", 2009, "One")])
    formatted.clear()  # the sort keys' and the disambiguation's renders are done
    cite = to_text(p.cite([CiteItem("many")]))
    assert cite == "(Manyauthorsa et al. 2009)"
    assert formatted == []  # the basic render of the disambiguation serves the plain cite
    assert to_text(p.cite([CiteItem("many", locator="3", label="page")])) == (
        "(Manyauthorsa et al. 2009, 3)")
    assert formatted == ["Manyauthorsa"]
    formatted.clear()
    entry = to_text(dict(p.bibliography(["many"]))["many"])
    assert entry.startswith("Manyauthorsa, Ann, Ann Manyauthorsb, Ann Manyauthorsc, et al. 2009.")
    assert formatted == ["Manyauthorsa", "Manyauthorsb", "Manyauthorsc"]


@counts_python_calls
def test_a_node_around_one_formatted_node_is_not_joined_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering a node whose one child is a formatted node takes the child's rendering (already
    joined) and formats it: one join, the child's, for three nested nodes; the same inlines."""
    from refbook.styles.csl import output
    from refbook.styles.csl.output import NO_FORMAT, Fmt, Formatting, Lit, render

    joined: list[int] = []
    real = output._joined

    def counting(f: Formatting, parts: list[object]) -> object:
        joined.append(len(parts))
        return real(f, parts)  # type: ignore[arg-type]

    monkeypatch.setattr(output, "_joined", counting)
    inner = Fmt(Formatting(delimiter=", "), [Lit((Text("Doe"),)), Lit((Text("Roe"),))])
    tree = Fmt(NO_FORMAT, [Fmt(Formatting(suffix=".", font_style="italic"), [inner])])
    got = render(tree, link_items=True)
    assert joined == [2]
    assert to_text(got) == "Doe, Roe."
    assert got == output.add_formatting(Formatting(suffix=".", font_style="italic"),
                                        real(inner.f, [(Text("Doe"),), (Text("Roe"),)]))
