"""Code masking before citation scanning: CommonMark's code spans and fences, in linear time.

The regular expressions it replaces were cubic on a page of backticks (1 kB: 28 s in a build).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refbook.codemask import code_spans, mask_code
from refbook.syntax import find_citations
from refbook.validate.citations import scan_text
from tests.growth import LIMIT, doubling_ratio

if TYPE_CHECKING:
    from collections.abc import Callable


def spans(text: str) -> list[str]:
    return [text[s:e] for s, e in code_spans(text)]


def test_code_spans_follow_commonmark() -> None:
    assert spans("a `b` c ``d`e`` f") == ["`b`", "``d`e``"]
    assert spans("``a` b") == []  # no closer of the same length: plain text
    assert spans("`a``b`") == ["`a``b`"]  # a longer run inside does not close
    assert spans(r"\`a` b`") == ["` b`"]  # an escaped backtick opens nothing
    assert spans(r"`a\` b`") == [r"`a\`"]  # inside a span a backslash is literal
    assert spans("`a\nb`") == ["`a\nb`"]  # a span crosses a line break ...
    assert spans("`a\n\nb`") == []  # ... but not a paragraph end
    assert spans("| `a | b |\n| c` |") == []  # ... nor a table row


def test_masking_keeps_offsets_and_hides_citations_in_code() -> None:
    page = "See [@a] `[@b]`.\n\n```md\n[@c]\n```\n\n~~~~\n@d\n~~~\n~~~~\nthen @e, ```[@f]``` and"
    masked = mask_code(page)
    assert len(masked) == len(page)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(page) if c == "\n"]
    assert [(c.source, c.line) for c in find_citations(masked)] == [("[@a]", 1), ("@e", 11)]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert find_citations(mask_code("[@a]\n```\n[@b]\n")) == find_citations("[@a]")


HOSTILE: dict[str, Callable[[int], str]] = {
    "backticks": lambda n: "`" * n,
    "backtick-letter": lambda n: "`a" * (n // 2),
    "growing runs": lambda n: "".join("`" * k + "a" for k in range(1, int((2 * n) ** 0.5))),
    "escaped backticks": lambda n: "\\`" * (n // 2),
    "fence lines": lambda n: "```\n" * (n // 4),
    "shrinking fences": lambda n: "".join("`" * k + "\n" for k in range(int((2 * n) ** 0.5), 2, -1)),
    "mixed": lambda n: "`[@`-@;{\n" * (n // 9),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_masking_is_linear(name: str) -> None:
    make = HOSTILE[name]
    ratio = doubling_ratio(lambda n, _attempt: make(n), mask_code, 20_000)
    assert ratio <= LIMIT, (name, ratio)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_check_docs_scan_is_linear(name: str) -> None:
    make = HOSTILE[name]
    ratio = doubling_ratio(lambda n, _attempt: make(n), lambda t: scan_text(t, "p.md"), 20_000)
    assert ratio <= LIMIT, (name, ratio)


@pytest.mark.parametrize(("text", "rst"), [("{cite}`a` ", False), (":cite:p:`a` ", True),
                                           ("[@a]\n", False), ("[" , False)])
def test_check_docs_scan_of_many_citations_is_linear(text: str, rst: bool) -> None:
    ratio = doubling_ratio(lambda n, _attempt: text * (n // len(text)),
                           lambda t: scan_text(t, "p.md", rst=rst), 20_000)
    assert ratio <= LIMIT, (text, ratio)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("`~\\\n |a@[]")) | st.characters(), max_size=80))
def test_masking_never_fails_and_keeps_shape(text: str) -> None:
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert all(m == c or (m == " " and c != "\n") for m, c in zip(masked, text, strict=True))
