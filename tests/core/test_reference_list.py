"""The reference list both hosts write (``refbook.render.reference_list``): back-link wording,
order and punctuation, section titles with their citations formatted, the list's structure."""

from __future__ import annotations

import re
from collections.abc import Callable

from refbook.ir import Span, Styled, Text
from refbook.render.reference_list import (
    STYLESHEET,
    BackLink,
    CitingPlace,
    anchor,
    backlinks,
    local_anchor,
    place_label,
    reference_list,
    rendered_title,
)
from tests.scaling import assert_linear


def test_backlinks_wording_separators_and_final_period() -> None:
    found = backlinks([
        CitingPlace("index", "Home", "", "index#c0"),
        CitingPlace("ch1", "Chapter, One", "Chapter, One", "ch1#c0"),
        CitingPlace("ch1", "Chapter, One", "Results, in part", "ch1#c3"),
    ])
    assert found is not None
    assert found.text() == "Cited in: Home; Chapter, One; Chapter, One › Results, in part."
    assert found.parts == (
        "Cited in: ", BackLink("index#c0", "Home"), "; ", BackLink("ch1#c0", "Chapter, One"), "; ",
        BackLink("ch1#c3", "Chapter, One › Results, in part"), ".")


def test_one_link_per_section_to_its_first_citation_in_reading_order() -> None:
    found = backlinks([
        CitingPlace("ch2", "Two", "B", "ch2#c0"),
        CitingPlace("ch1", "One", "A", "ch1#c0"),
        CitingPlace("ch2", "Two", "B", "ch2#c5"),
        CitingPlace("ch1", "One", "A", "ch1#c1"),
        CitingPlace("ch3", "Two", "B", "ch3#c0"),  # same titles, another page: its own link
    ])
    assert found is not None
    assert [(b.target, b.text) for b in found.links] == [
        ("ch2#c0", "Two › B"), ("ch1#c0", "One › A"), ("ch3#c0", "Two › B")]


def test_no_place_no_backlinks() -> None:
    assert backlinks([]) is None


def test_labels_are_one_line_and_name_the_page_alone_at_its_top() -> None:
    assert place_label("Home", "") == "Home"
    assert place_label("Home", "Home") == "Home"
    assert place_label("Two\nlines", "A\tsection ") == "Two lines › A section"


def test_section_titles_show_their_citations_formatted() -> None:
    lee = (Text("(Lee 2021)"),)
    doe = (Text("Doe (2019)"),)
    # the heading's citation, then the section's body citations (not in the title)
    cited = [("[@lee2021]", lee), ("@doe2019", doe), ("[@lee2021]", lee)]
    assert rendered_title("Results of [@lee2021]", cited) == "Results of (Lee 2021)"
    assert rendered_title("Following @doe2019 and [@lee2021]",
                          [("@doe2019", doe), ("[@lee2021]", lee)]) == (
        "Following Doe (2019) and (Lee 2021)")
    # formatted text with markup: plain, on one line
    emph = (Styled("emph", (Text("Title\nhere"),)), Span("x", (Text("!"),)))
    assert rendered_title("See [@t]", [("[@t]", emph)]) == "See Title here!"
    # an unknown or unformatted citation stays as written, and a title without one is itself
    assert rendered_title("Of [@nobody]", [("[@nobody]", None)]) == "Of [@nobody]"
    assert rendered_title("Plain", cited) == "Plain"


def test_the_same_citation_twice_in_a_title_is_replaced_in_order() -> None:
    cited = [("[@a]", (Text("(A 1)"),)), ("[@a]", (Text("(A 1)"),))]
    assert rendered_title("[@a] vs [@a]", cited) == "(A 1) vs (A 1)"


def test_rendered_title_is_linear_in_the_citations() -> None:
    """A long section (thousands of citations, none in its title) costs one scan each."""
    def make(n: int) -> Callable[[], object]:
        cited = [(f"[@k{i}]", (Text("x"),)) for i in range(n)]
        title = "A title " * 50
        return lambda: [rendered_title(title, cited) for _ in range(20)]

    assert_linear(make, 3000)


def test_list_structure_anchors_and_backlinks() -> None:
    back = backlinks([CitingPlace("index", "Home", "", "index#c0")])
    found = reference_list([("b", (Text("B."),)), ("a", (Text("A."),))], kind="author-date",
                           anchors={"b": anchor("b")}, backlinks={"b": back})
    assert found.classes == ("refbook-bibliography", "csl-bib-body", "refbook-author-date")
    assert [(e.key, e.anchor, e.classes, e.backlinks) for e in found.entries] == [
        ("b", "ref-b", ("csl-entry", "refbook-entry"), back),
        ("a", None, ("csl-entry", "refbook-entry"), None),
    ]


def test_anchors() -> None:
    assert anchor("Smith:2020/x") == "ref-Smith:2020/x"
    assert local_anchor("k", "part/Chapter One", 2) == "ref-k-part-chapter-one-2"


def test_the_stylesheet_wraps_long_urls_in_entries() -> None:
    rule = re.search(r"\.refbook-bibliography \.refbook-entry \{(.*?)\}", STYLESHEET, re.S)
    assert rule is not None
    assert "overflow-wrap: anywhere;" in rule.group(1)
