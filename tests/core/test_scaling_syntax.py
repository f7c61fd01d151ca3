"""The citation finder is linear on hostile pages, and keeps its answers on normal ones.

It runs over every page (MkDocs, Sphinx MyST, ``refbook check --docs``); a page of ``[`` used to
make it rescan the rest of the paragraph at every bracket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refbook.syntax import MAX_NESTED_BRACKETS, CiteRef, find_citations
from tests.growth import LIMIT, doubling_ratio

if TYPE_CHECKING:
    from collections.abc import Callable

HOSTILE: dict[str, Callable[[int], str]] = {
    "open brackets": lambda n: "[" * n,
    "open citations": lambda n: "[@" * (n // 2),
    "open author-suppressed": lambda n: "[-@" * (n // 3),
    "at signs": lambda n: "@" * n,
    "backticks": lambda n: "`" * n,
    "mixed": lambda n: "[@`-@;{" * (n // 7),
    "nested, key inside": lambda n: "[" * (n // 2) + "@a;x" + "]" * (n // 2),
    "nested, keyless last item": lambda n: "[@a;" * (n // 5) + "x" + "]" * (n // 5),
    "narrative then brackets": lambda n: "@a [;" * (n // 5) + "]" * (n // 5),
    "many citations, many lines": lambda n: "[@a]\n" * (n // 5),
    # adjacent brackets look at the next bracket's inside; link definitions at the line's start
    "adjacent citations": lambda n: "[@a]" * (n // 4),
    "citations before reference links": lambda n: "[@a][x]" * (n // 7),
    "nested adjacent citations": lambda n: "[[@a]" * (n // 5) + "]" * (n // 5),
    "link definitions": lambda n: "[@a]: x\n" * (n // 8),
    "colons after citations": lambda n: "[@a]:" * (n // 5),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_finder_is_linear_on_hostile_pages(name: str) -> None:
    make = HOSTILE[name]
    ratio = doubling_ratio(lambda n, _attempt: make(n), find_citations, 20_000)
    assert ratio <= LIMIT, (name, ratio)


def test_nested_citation_brackets_up_to_the_limit() -> None:
    # brackets inside a citation's brackets still work (Pandoc's `[see [x] @a]`) ...
    text = "[" * MAX_NESTED_BRACKETS + "[@a]" + "]" * MAX_NESTED_BRACKETS
    (c,) = find_citations(text)
    assert (c.start, c.end, c.refs[0].key) == (0, len(text), "a")
    assert find_citations("[see [x] @a]")[0].refs == (CiteRef("a", prefix="see [x]"),)
    # ... but one level deeper the outermost bracket is plain text, and the next one cites
    (c,) = find_citations("[" + text + "]")
    assert (c.start, c.end) == (1, len(text) + 1)


def test_blank_line_ends_a_bracket_and_escapes_count() -> None:
    assert [(c.mode, c.source) for c in find_citations("[@a\n\n]")] == [("narrative", "@a")]
    assert [c.source for c in find_citations(r"\[@a] [@b\]] x]")] == ["@a", "[@b\\]]"]
    text = "one\n[@a]\n\nthree @b [p. 4]\n@c"
    assert [(c.line, c.source) for c in find_citations(text)] == [
        (2, "[@a]"), (4, "@b [p. 4]"), (5, "@c")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]@;a b-\\\n{}(),p.:`x")) | st.characters(),
               max_size=80))
def test_finder_never_fails_and_reports_where_it_found(text: str) -> None:
    last = 0
    for c in find_citations(text):
        assert last <= c.start < c.end <= len(text)
        assert c.source == text[c.start:c.end]
        assert c.line == text.count("\n", 0, c.start) + 1
        assert c.refs
        last = c.end


def _bracketed(text: str, *, definitions: bool = True) -> list[str]:
    return [c.source for c in find_citations(text, definitions=definitions)
            if c.mode == "parenthetical"]


def test_adjacent_and_definition_rules_on_the_precomputed_brackets() -> None:
    # "[@a][@b]" is two citations; "[@a][x]" a reference link; "[@a]: x" at a line's start a
    # link definition (unless the host's Markdown already took definitions out)
    assert _bracketed("[@a][@b][@c]") == ["[@a]", "[@b]", "[@c]"]
    assert _bracketed("[@a][x] [@b](u)") == []
    assert _bracketed("[@a][[@b]]") == ["[@a]", "[[@b]]"]
    assert _bracketed("[@a]: http://x\n   [@b]:\n  y") == []
    assert _bracketed("x [@a]: y\n[@b]:\n\n    [@c]: z") == ["[@a]", "[@b]", "[@c]"]
    assert _bracketed("[@a]: x", definitions=False) == ["[@a]"]
