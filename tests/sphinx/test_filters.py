"""The ``:filter:`` option: a bad expression or regular expression is a ``bad-filter`` warning
at the directive's line (the build goes on, the list shows no entry), and ``%`` cannot be made
to run for minutes by a pattern or a title.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sphinx_refbook.filters import MAX_SEARCHED, FilterError, compile_filter, evaluate
from tests.growth import LIMIT, doubling_ratio
from tests.sphinx.test_modes import _entries

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

# a title on which "^(a+)+$" backtracks 2^30 times
HOSTILE_ENTRY = ("\n@article{hostile, author = {Doe, A.}, title = {" + "a" * 30 + "!}, "
                 "journal = {J}, year = {2021}}\n")


@pytest.mark.parametrize(("flt", "why"), [
    ('title % "("', ("'(' is not a regular expression (missing ), unterminated subpattern at "
                     "position 0)")),
    ('title % "^(a+)+$"', ("the regular expression '^(a+)+$' repeats a repeated part (as in "
                           "(a+)+), which can take very long to match; write it without")),
    ('title % "a.*b.*c"', ("the regular expression 'a.*b.*c' can match in too many ways (as in "
                           "a.*b.*c), which can take very long to match; write it without")),
    ("title % author", "the right side of % must be a string (the regular expression)"),
])
def test_bad_filter_is_a_warning_at_its_line(copy_root: Callable[[str], Path],
                                             build: Callable[..., Built], flt: str,
                                             why: str) -> None:
    src = copy_root("modes")
    with (src / "refs.bib").open("a", encoding="utf-8") as bib:
        bib.write(HOSTILE_ENTRY)
    (src / "filtered.rst").write_text(
        f"Filtered\n========\n\nText.\n\n.. bibliography::\n   :filter: {flt}\n",
        encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/filtered.rst:6: WARNING: invalid filter {flt!r}: {why} [refbook.bad-filter]\n"
    )
    assert _entries(b.read("filtered.txt")) == []
    # the other lists are built as usual
    assert _entries(b.read("one.txt"))[1:] == ["Knuth, Donald E 1984", "Lamport, Leslie 1994"]


def test_a_good_regular_expression_filters(copy_root: Callable[[str], Path],
                                           build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    with (src / "refs.bib").open("a", encoding="utf-8") as bib:
        bib.write(HOSTILE_ENTRY)
    (src / "filtered.rst").write_text(
        'Filtered\n========\n\n.. bibliography::\n   :filter: title % "^a+!$" or author % "Knuth"\n',
        encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == ""
    assert _entries(b.read("filtered.txt")) == ["Doe, A 2021", "Knuth, Donald E 1984"]


def test_percent_searches_a_bounded_prefix() -> None:
    # one unbounded repeat is allowed; the value it searches is cut, so a long title costs
    # no more than a short one
    flt = compile_filter('title % "a.*z"')

    def run(title: str) -> None:
        assert not evaluate(flt, {"title": title})

    ratio = doubling_ratio(lambda n, attempt: "a" * (n + attempt), run, 2 * MAX_SEARCHED)
    assert ratio <= LIMIT, ratio
    assert evaluate(flt, {"title": "a" + "x" * (MAX_SEARCHED - 2) + "z"})
    assert not evaluate(flt, {"title": "a" + "x" * MAX_SEARCHED + "z"})


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | st.builds(lambda p: f"title % {p!r}", st.text(max_size=30)))
def test_any_filter_text_compiles_or_is_a_filter_error(text: str) -> None:
    try:
        flt = compile_filter(text)
    except FilterError:
        return
    evaluate(flt, {"title": "Some Title", "author": "Doe, A.", "year": "2020"})


@pytest.mark.parametrize(("flt", "names", "expected"), [
    ('key in {"a", "b"} | {"c"}', {"key": "c"}, True),
    ('key in {"a", "b"} & {"b", "c"}', {"key": "a"}, False),
    ('docnames & {"intro"}', {"docnames": {"intro", "other"}}, True),
    ('docnames & {"intro"}', {"docnames": {"other"}}, False),
    ('title % "^deep"', {"title": "DEEP Learning"}, True),  # % ignores case
])
def test_set_operators_and_case_insensitive_search(flt: str, names: dict[str, object],
                                                   expected: bool) -> None:
    """sphinxcontrib-bibtex's filter language: ``|`` and ``&`` on sets, ``%`` ignoring case."""
    assert evaluate(compile_filter(flt), names) is expected
