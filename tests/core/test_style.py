"""Unit tests of the default style through the CSL engine: names, et al., disambiguation,
year suffixes, sorting, n.d., corporate authors, and escaping of hostile values."""

from __future__ import annotations

import re

from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Inlines, Link, Text
from refbook.render.html import to_html
from refbook.render.markdown import to_markdown
from refbook.render.text import to_text
from refbook.styles import CiteItem, get_style


def item(key: str, authors: list[str | tuple[str, str]], year: int | None, title: str,
         typ: str = "book", **text: str) -> Item:
    names = tuple(
        Name(literal=a) if isinstance(a, str) and a.startswith("{") is False and " " not in a and a.isupper()
        else Name(literal=a[1:-1]) if isinstance(a, str) and a.startswith("{")
        else Name(family=a[0], given=a[1]) if isinstance(a, tuple)
        else Name(literal=a)
        for a in authors
    )
    vars_ = [("title", (Text(title),))] + [(k.replace("_", "-"), (Text(v),)) for k, v in text.items()]
    dates = (("issued", Date(start=DatePart(year))),) if year is not None else ()
    return Item(key, typ, text=tuple(vars_), names=(("author", names),) if names else (),
                dates=dates)


def people(n: int, family: str = "Smith") -> list[str | tuple[str, str]]:
    return [(f"{family}{i}" if i else family, f"Given{i} Middle") for i in range(n)]


def bib(items: list[Item]) -> list[str]:
    p = get_style("chicago-author-date").processor(items)
    return [to_text(x) for _, x in p.bibliography()]


def cite(items: list[Item], *keys: str, **kw: str) -> str:
    p = get_style("chicago-author-date").processor(items)
    return to_text(p.cite([CiteItem(k, **kw) for k in keys]))  # type: ignore[arg-type]


def test_up_to_six_names_listed_in_bibliography() -> None:
    six = item("six", people(6), 2020, "Six Authors")
    [entry] = bib([six])
    assert entry.startswith("Smith, Given0 Middle, Given1 Middle Smith1, Given2 Middle Smith2, "
                            "Given3 Middle Smith3, Given4 Middle Smith4, and Given5 Middle Smith5. 2020.")


def test_seven_names_become_three_and_et_al() -> None:
    seven = item("seven", people(7), 2020, "Seven Authors")
    [entry] = bib([seven])
    assert entry.startswith("Smith, Given0 Middle, Given1 Middle Smith1, Given2 Middle Smith2, et al. 2020.")


def test_citation_et_al_from_three_names() -> None:
    two = item("two", people(2), 2020, "Two")
    three = item("three", people(3, "Jones"), 2021, "Three")
    assert cite([two, three], "two") == "(Smith and Smith1 2020)"
    assert cite([two, three], "three") == "(Jones et al. 2021)"


def test_year_suffixes_in_citation_and_list_follow_title_order() -> None:
    a = item("a", [("Doe", "Jane")], 2024, "Zebra Studies")
    b = item("b", [("Doe", "Jane")], 2024, "Aardvark Studies")
    assert cite([a, b], "a", "b") == "(Doe 2024b, 2024a)"
    entries = bib([a, b])
    assert entries[0].startswith("Doe, Jane. 2024a. Aardvark Studies.")
    assert entries[1].startswith("Doe, Jane. 2024b. Zebra Studies.")


def test_same_author_collapse_and_cluster_delimiter() -> None:
    a = item("a", [("Doe", "Jane")], 2020, "A")
    b = item("b", [("Doe", "Jane")], 2021, "B")
    c = item("c", [("Roe", "Rick")], 2019, "C")
    assert cite([a, b, c], "a", "b", "c") == "(Doe 2020, 2021; Roe 2019)"


def test_given_name_added_to_tell_authors_apart() -> None:
    a = item("a", [("Smith", "John")], 2020, "A")
    b = item("b", [("Smith", "Adam")], 2020, "B")
    assert cite([a, b], "a") == "(J. Smith 2020)"
    assert cite([a, b], "b") == "(A. Smith 2020)"


def test_names_added_to_tell_et_al_groups_apart() -> None:
    a = item("a", [("Kim", "A"), ("Lee", "B"), ("Park", "C")], 2020, "A")
    b = item("b", [("Kim", "A"), ("Cho", "D"), ("Park", "C")], 2020, "B")
    assert cite([a, b], "a") == "(Kim, Lee, et al. 2020)"
    assert cite([a, b], "b") == "(Kim, Cho, et al. 2020)"


def test_undated_work_is_n_d_with_suffixes() -> None:
    a = item("a", [("Doe", "Jane")], None, "Alpha")
    b = item("b", [("Doe", "Jane")], None, "Beta")
    assert cite([a], "a") == "(Doe, n.d.)"
    assert cite([a, b], "a", "b") == "(Doe, n.d.-a, n.d.-b)"
    assert bib([a, b])[0].startswith("Doe, Jane. n.d.-a. Alpha.")


def test_corporate_author_is_not_inverted_and_sorts_by_full_name() -> None:
    corp = item("corp", ["{World Health Organization}"], 2020, "Report")
    person = item("p", [("Adams", "Zoe")], 2020, "Other")
    entries = bib([corp, person])
    assert entries[0].startswith("Adams, Zoe.")
    assert entries[1].startswith("World Health Organization. 2020. Report.")
    assert cite([corp, person], "corp") == "(World Health Organization 2020)"


def test_sorting_by_author_then_year_then_title() -> None:
    items = [
        item("c", [("Brown", "B")], 2019, "Gamma"),
        item("a", [("Adams", "A")], 2021, "Beta"),
        item("b", [("Adams", "A")], 2020, "Alpha"),
    ]
    assert [e.split(".")[1].strip() for e in bib(items)] == ["2020", "2021", "2019"]


def test_locator_prefix_and_suffix() -> None:
    a = item("a", [("Kwon", "W"), ("Li", "Z"), ("Zhuang", "S")], 2023, "Paged")
    p = get_style("chicago-author-date").processor([a])
    out = p.cite([CiteItem("a", prefix=(Text("see "),), locator="45", label="page")])
    assert to_text(out) == "(see Kwon et al. 2023, 45)"


def test_unknown_key_renders_visible_marker() -> None:
    assert cite([], "nope") == "(nope?)"


def test_doi_becomes_link_and_article_title_quoted() -> None:
    art = item("art", [("Breiman", "Leo")], 2001, "Random Forests", typ="article-journal",
               container_title="Machine Learning", volume="45", issue="1", page="5-32",
               DOI="10.1023/A:1010933404324")
    [entry] = bib([art])
    assert entry == ("Breiman, Leo. 2001. \u201cRandom Forests.\u201d Machine Learning 45 (1): 5\u201332. "
                     "https://doi.org/10.1023/A:1010933404324.")


def _one(x: Item) -> Inlines:
    p = get_style("chicago-author-date").processor([x])
    return p.bibliography()[0][1]


def test_hostile_values_are_escaped_in_html_and_markdown() -> None:
    evil = item("evil", [("<script>alert(1)</script>", "X")], 2020,
                "Title <img src=x onerror=alert(1)> & [link](javascript:alert(1))",
                URL="javascript:alert(1)")
    out = _one(evil)
    html = to_html(out)
    assert "<script>" not in html
    assert "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    md = to_markdown(out)
    assert re.search(r"(?<!\\)\]\(javascript", md) is None
    assert "&lt;script\\>" in md


def test_only_http_links_are_rendered() -> None:
    good = to_html((Link("https://example.org/?a=1&b=\"2\"", (Text("ok"),)),))
    assert good == '<a href="https://example.org/?a=1&amp;b=&quot;2&quot;">ok</a>'
    for bad in ("javascript:alert(1)", "data:text/html,hi", "  JAVASCRIPT:x", "vbscript:x", "//evil"):
        assert "<a" not in to_html((Link(bad, (Text("x"),)),))


def test_numeric_style_numbers_by_first_citation() -> None:
    items = [item("z", [("Zed", "A")], 2020, "Z"), item("a", [("Abe", "B")], 2021, "A"),
             item("m", [("Mid", "C")], 2019, "M"), item("n", [("Nod", "D")], 2018, "N")]
    p = get_style("numeric").processor(items)
    assert to_text(p.cite([CiteItem("a")])) == "[2]"
    assert to_text(p.cite([CiteItem("z"), CiteItem("a"), CiteItem("m")])) == "[1\u20133]"
    assert to_text(p.cite([CiteItem("z"), CiteItem("m")])) == "[1, 3]"
    entries = [to_text(x) for _, x in p.bibliography()]
    assert entries[0].startswith("[1] A. Zed")
    assert entries[1].startswith("[2] B. Abe")


def test_all_names_option_lists_every_author() -> None:
    three = item("three", people(3, "Jones"), 2021, "Three")
    p = get_style("chicago-author-date").processor([three])
    assert to_text(p.cite([CiteItem("three")])) == "(Jones et al. 2021)"
    assert to_text(p.cite([CiteItem("three", all_names=True)])) == \
        "(Jones, Jones1, and Jones2 2021)"
    narrative = [CiteItem("three", mode="author-only", all_names=True),
                 CiteItem("three", mode="suppress-author", all_names=True)]
    assert to_text(p.cite(narrative)) == "Jones, Jones1, and Jones2 (2021)"
