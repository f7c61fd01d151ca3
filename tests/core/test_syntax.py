"""Pandoc citation syntax → citation requests."""

from __future__ import annotations

import pytest

from refbook.syntax import CiteRef, find_citations, parse_citation, parse_locator


def one(text: str) -> tuple[str, tuple[CiteRef, ...]]:
    c = parse_citation(text)
    assert c is not None, text
    return c.mode, c.refs


def test_parenthetical_forms() -> None:
    assert one("[@a]") == ("parenthetical", (CiteRef("a"),))
    assert one("[@a; @b]")[1] == (CiteRef("a"), CiteRef("b"))
    assert one("[see @a, p. 3]")[1] == (CiteRef("a", prefix="see", locator="3", label="page"),)
    assert one("[-@a]")[1] == (CiteRef("a", suppress_author=True),)
    assert one("[@a, 45]")[1] == (CiteRef("a", locator="45", label="page"),)
    assert one("[@a, chap. 3]")[1] == (CiteRef("a", locator="3", label="chapter"),)
    assert one("[@a, pp. 33-35, and elsewhere]")[1] == (
        CiteRef("a", suffix=", and elsewhere", locator="33-35", label="page"),)
    assert one("[@a, and elsewhere]")[1] == (CiteRef("a", suffix=", and elsewhere"),)
    assert one("[@a, {pp. iv, vi-xi}]")[1] == (CiteRef("a", locator="iv, vi-xi", label="page"),)


def test_narrative_forms() -> None:
    assert one("@kwon2023efficient") == ("narrative", (CiteRef("kwon2023efficient"),))
    assert one("@a [p. 4]")[1] == (CiteRef("a", locator="4", label="page"),)
    assert one("@{odd.key/with:chars}")[1] == (CiteRef("odd.key/with:chars"),)


def test_keys_with_inner_punctuation_stop_before_sentence_end() -> None:
    cites = find_citations("As @smith:2020.x shows. And @doe2019.")
    assert [c.keys for c in cites] == [("smith:2020.x",), ("doe2019",)]


def test_not_citations() -> None:
    assert find_citations("mail me at user@example.org") == []
    assert find_citations(r"an escaped \@key stays") == []
    assert find_citations("[a link](http://x) and [text] only") == []


def test_lines_and_offsets() -> None:
    text = "first line\nsecond [@a; @b] and @c\n"
    cites = find_citations(text)
    assert [(c.line, text[c.start:c.end]) for c in cites] == [(2, "[@a; @b]"), (2, "@c")]


@pytest.mark.parametrize("text", ["@a and @b", "[@a] [@b]", "plain", "[no key here]"])
def test_parse_citation_wants_exactly_one(text: str) -> None:
    assert parse_citation(text) is None


def test_parse_locator_without_comma_is_suffix() -> None:
    assert parse_locator(" and more") == ("", "", " and more")


def test_a_braced_key_never_spans_lines() -> None:
    # found by tests/core/test_fuzz_outputs.py: "@{" and a "}" paragraphs later hid the citation
    found = find_citations("@{\n\n[@wellformed2020]\n\n}")
    assert [c.keys for c in found] == [("wellformed2020",)]


def test_adjacent_bracketed_citations_are_each_a_citation() -> None:
    # found on real mkdocs-bibtex sites (tests/mkdocs/test_real_sites.py): "[@a][@b]" rendered
    # "@a" as a narrative citation between literal brackets, as Pandoc does
    text = "tools [@r_core][@Lawrence_2013][@Wickham_2019]. Also [see @a, p. 3][@b]."
    cites = find_citations(text)
    assert [(c.mode, c.source) for c in cites] == [
        ("parenthetical", "[@r_core]"), ("parenthetical", "[@Lawrence_2013]"),
        ("parenthetical", "[@Wickham_2019]"), ("parenthetical", "[see @a, p. 3]"),
        ("parenthetical", "[@b]")]
    # a reference link "[text][label]" stays a link (its text may hold a narrative citation)
    assert [(c.mode, c.source) for c in find_citations("[text @a][label]")] == [("narrative", "@a")]


def test_a_citation_before_a_colon_inside_a_line_is_a_citation() -> None:
    # found on real mkdocs-bibtex sites: "a threshold[@Schulman2013]:" was taken for a link
    # reference definition and rendered as "@Schulman2013" between literal brackets
    text = "a threshold[@a]:\n\n   [@b]: http://x.org\n\nand ^[@c]: here\n[@d]:\n\ntext"
    assert [c.source for c in find_citations(text) if c.mode == "parenthetical"] == [
        "[@a]", "[@c]", "[@d]"]
    # a host that scans text its Markdown parser rid of definitions
    assert [c.mode for c in find_citations("[@b]: then text", definitions=False)] == ["parenthetical"]
