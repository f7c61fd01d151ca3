"""Work a build does not need is not done: the collation table is read on demand (with the same
sort keys as pyuca's own collator), sort keys past the first that differs are never computed,
and a book that cites nothing never imports the heavy modules it does not use.

Counted or compared, never timed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pyuca
from pyuca import Collator

from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.styles.csl import uca
from refbook.styles.csl.engine import Evaluator
from refbook.styles.csl.uca import LazyCollator
from tests.conftest import counts_python_calls

TESTDATA = Path("/work/shared/testdata")


def _words() -> list[str]:
    words: set[str] = set()
    for path in sorted(TESTDATA.rglob("*.bib"))[:60]:
        words.update(path.read_text(encoding="utf-8", errors="replace").split())
    rng = random.Random(15)  # reproducible test data
    # random code points across the planes: implicit weights, unassigned, CJK, astral
    words.update("".join(chr(rng.randrange(0x20, 0x30000)) for _ in range(rng.randint(1, 5)))
                 for _ in range(3000))
    # contractions and non-starters: the trie's longest match and pyuca's non-starter rule
    words.update(["L·l", "l·L", "Ạ̈", "ﬃ", "a\u0301\u0323", "a\u0323\u0301", "\u0e40\u0e01",
                  "ช้า", "一二", "𠀀", "\u0fb2\u0f71\u0f80", "ŀl", "Ǆ", "ǆa", "", " "])
    return sorted(words)


def test_lazy_collator_gives_pyuca_sort_keys() -> None:
    ours, theirs = LazyCollator(), Collator()
    words = _words()
    assert len(words) > 3000
    differing = [w for w in words if ours.sort_key(w) != theirs.sort_key(w)]
    assert differing == []


def test_every_pyuca_table_has_what_the_sorted_lines_rely_on() -> None:
    # LazyCollator finds a code point's lines by bisecting the sorted lines: each weight line
    # must start with its first code point and a space, and no code point sequence may have two
    # lines (pyuca keeps the later one; sorted lines would not know which came later)
    tables = sorted(Path(pyuca.__file__).parent.glob("allkeys-*.txt"))
    assert tables
    for table in tables:
        seen: set[str] = set()
        for m in uca._LINE.finditer(table.read_text(encoding="utf-8")):
            line = m.string[m.start():m.string.find("\n", m.start())]
            assert line.startswith(m.group(1) + " "), (table.name, line)
            sequence = m.group(1) + m.group(2)
            assert sequence not in seen, (table.name, line)
            seen.add(sequence)


def test_lazy_collator_reads_any_pyuca_table_as_pyuca_does() -> None:
    words = _words()[::7]
    for table in sorted(Path(pyuca.__file__).parent.glob("allkeys-*.txt")):
        ours, theirs = LazyCollator(str(table)), Collator(str(table))
        assert ours.implicit_weights == theirs.implicit_weights, table.name
        assert [w for w in words if ours.sort_key(w) != theirs.sort_key(w)] == [], table.name


def test_the_ascii_sort_keys_are_pyuca_s() -> None:
    """``fast_sort_key`` builds an ASCII string's key from its characters' weights: the same key
    as pyuca's on real words, random printable ASCII and every table pyuca ships."""
    rng = random.Random(7)  # reproducible test data
    ascii_words = ["".join(rng.choice([chr(c) for c in range(0x80)])
                           for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    words = _words() + ascii_words
    assert sum(w.isascii() for w in words) > 3000
    for table in sorted(Path(pyuca.__file__).parent.glob("allkeys-*.txt")):
        ours, theirs = LazyCollator(str(table)), Collator(str(table))
        assert [w for w in words if ours.fast_sort_key(w) != theirs.sort_key(w)] == [], table.name
        assert ours._levels  # the characters' weights were used (no table joins ASCII)


def test_a_table_joining_ascii_characters_takes_pyuca_s_way(tmp_path: Path) -> None:
    """The control: with a line that makes "ab" one collation element, the per-character key
    would be wrong; the collator sees the line and keys every string as pyuca does."""
    default = Path(pyuca.__file__).parent / "allkeys-9.0.0.txt"
    if not default.exists():
        default = sorted(Path(pyuca.__file__).parent.glob("allkeys-*.txt"))[-1]
    table = tmp_path / "allkeys-joined.txt"
    table.write_text(default.read_text(encoding="utf-8")
                     + "0061 0062 ; [.0300.0020.0002] # a joined 'ab'\n", encoding="utf-8")
    ours, theirs = LazyCollator(str(table)), Collator(str(table))
    per_character = LazyCollator(str(default)).fast_sort_key("xaby")
    assert theirs.sort_key("xaby") != per_character
    assert ours.fast_sort_key("xaby") == theirs.sort_key("xaby")
    assert ours._levels is None


def _item(key: str, family: str, year: int, title: str) -> Item:
    return Item(key, "book", text=(("title", (Text(title),)),),
                names=(("author", (Name(family=family, given="Ann"),)),),
                dates=(("issued", Date(start=DatePart(year))),))


@counts_python_calls
def test_sort_keys_are_computed_only_as_far_as_comparisons_need(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = Evaluator.sort_key

    def counting(self: Evaluator, area, key, item, disamb):  # type: ignore[no-untyped-def]
        calls.append(item.id)
        return original(self, area, key, item, disamb)

    monkeypatch.setattr(Evaluator, "sort_key", counting)
    # distinct authors (unique names, so no memo of another test answers for them)
    families = [f"Lazysortauthor{chr(97 + i)}" for i in range(20)]
    items = [_item(f"k{i}", f, 2000 + i, f"Title {i}") for i, f in enumerate(reversed(families))]
    p = get_style("chicago-author-date").processor(items)
    order = [k for k, _ in p.bibliography()]
    assert order == [f"k{i}" for i in reversed(range(20))]  # by author
    # the style has 11 sort keys; distinct authors decide every comparison with the first
    assert len(calls) == len(items)


def test_ties_on_the_first_keys_still_sort_by_the_later_ones() -> None:
    a = _item("a", "Lazysorttie", 2001, "Zebra")
    b = _item("b", "Lazysorttie", 2000, "Yak")
    c = _item("c", "Lazysorttie", 2001, "Aardvark")
    p = get_style("chicago-author-date").processor([a, b, c])
    entries = [(k, to_text(x)) for k, x in p.bibliography()]
    assert [k for k, _ in entries] == ["b", "c", "a"]  # year, then title
    assert entries[1][1].startswith("Lazysorttie, Ann. 2001a.")


def _counted_scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The entry-point groups scanned from now on (each scan reads every installed
    distribution's metadata); refbook.styles imports ``entry_points`` when it first looks."""
    import importlib.metadata

    scans: list[str] = []
    original = importlib.metadata.entry_points

    def counting(**kw):  # type: ignore[no-untyped-def]
        scans.append(kw["group"])
        return original(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", counting)
    return scans


def test_style_plugins_are_looked_up_once_per_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from refbook import styles

    scans = _counted_scans(monkeypatch)
    monkeypatch.setattr(sys, "path", [*sys.path, "/nonexistent-refbook-test-path"])
    first = styles.available_styles()
    for _ in range(50):  # a Sphinx build asks once per page
        assert styles.available_styles() == first
    assert scans == ["refbook.styles"]
    assert "chicago-author-date" in first
    # a plugin made importable mid-process is found: a new sys.path scans again
    monkeypatch.setattr(sys, "path", [*sys.path, "/another-refbook-test-path"])
    styles.available_styles()
    assert len(scans) == 2


def _counting_layouts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = Evaluator.layout

    def counting(self: Evaluator, area, item, disamb, **kw):  # type: ignore[no-untyped-def]
        if kw.get("bibliography"):
            calls.append(item.id)
        return original(self, area, item, disamb, **kw)

    monkeypatch.setattr(Evaluator, "layout", counting)
    return calls


@counts_python_calls
def test_one_new_citation_formats_one_entry_in_an_unnumbered_style(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # chicago-author-date never prints or tests citation-number: a new item that sorts first
    # renumbers every other item, which must not make their memoized entries miss
    calls = _counting_layouts(monkeypatch)
    families = [f"Renumberauthor{chr(98 + i)}" for i in range(10)]
    items = [_item(f"r{i}", f, 2000, f"Title {i}") for i, f in enumerate(families)]
    style = get_style("chicago-author-date")
    before = [to_text(x) for _, x in style.processor(items).bibliography()]
    assert len(calls) == len(items)
    calls.clear()
    first = _item("r-new", "Renumberauthora", 2000, "New")
    after = [to_text(x) for _, x in style.processor([*items, first]).bibliography()]
    assert calls == ["r-new"]
    assert after[1:] == before


@counts_python_calls
def test_a_numbered_style_formats_renumbered_entries_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the numeric style prints the number: a renumbered entry is a different entry
    calls = _counting_layouts(monkeypatch)
    items = [_item(f"n{i}", f"Numberedauthor{chr(98 + i)}", 2000, f"Title {i}")
             for i in range(5)]
    style = get_style("numeric")
    style.processor(items).bibliography()
    calls.clear()
    first = _item("n-new", "Numberedauthora", 2000, "New")
    texts = [to_text(x) for _, x in style.processor([first, *items]).bibliography()]
    assert sorted(calls) == sorted(["n-new", *(i.id for i in items)])
    assert [t.split()[0] for t in texts] == [f"[{i}]" for i in range(1, 7)]


def test_a_built_in_style_is_named_without_a_scan_and_no_plugin_takes_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming a built-in style never scans the installed distributions' entry points (~6 ms of
    a new process; a warm MkDocs build's own work is ~60); a plugin registering a built-in's
    name is not used under it, and its own names still resolve. The plugin here is a real
    distribution on ``sys.path``, found by importlib.metadata."""
    import sys

    from refbook import styles
    from refbook.styles.chicago_author_date import ChicagoAuthorDate
    from refbook.styles.numeric import Numeric

    info = tmp_path / "refbook_test_styles-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: refbook-test-styles\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[refbook.styles]\nmine = refbook_test_styles:Mine\n"
        "numeric = refbook_test_styles:Mine\n", encoding="utf-8")
    (tmp_path / "refbook_test_styles.py").write_text(
        "from refbook.styles.numeric import Numeric\n\n\nclass Mine(Numeric):\n"
        "    name = 'mine'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "refbook_test_styles", raising=False)
    scans = _counted_scans(monkeypatch)
    assert type(styles.get_style("numeric")) is Numeric
    assert type(styles.get_style("chicago-author-date", locale="en-GB")) is ChicagoAuthorDate
    assert scans == []
    mine = styles.get_style("mine")  # not built in: the plugins are looked up
    assert scans == ["refbook.styles"]
    assert type(mine).__name__ == "Mine"
    assert type(mine).__module__ == "refbook_test_styles"
    found = styles.available_styles()
    assert found["numeric"] is Numeric
    assert found["chicago-author-date"] is ChicagoAuthorDate
    assert found["mine"] is type(mine)
