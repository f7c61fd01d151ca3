"""Field rules on hostile values: linear time on long runs of spaces, dashes and slashes, and
no exception on any text.

``~`` reads as U+00A0 and CJK text brings U+3000: a field rule with two overlapping ``\\s*``
(or one tried from each position of a run) took 25-55 s on 50k of them (month, isbn, issn, a
title ending in a year, an arXiv URL).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refbook.models import Bibliography, Entry, Field, Location
from refbook.validate import check_bibliography
from tests.growth import LIMIT, doubling_ratio

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: every field a rule reads (and a few it only reads as text)
FIELDS = ("pages", "month", "title", "subtitle", "maintitle", "booktitle", "journal",
          "journaltitle", "isbn", "issn", "year", "volume", "number", "doi", "url", "urldate",
          "author", "editor", "date", "eprint", "note", "howpublished", "publisher", "series",
          "address", "location", "edition", "chapter", "organization", "institution", "school",
          "type", "keywords", "shorttitle")

#: the runs a rule with overlapping \s* trips on (what ~ reads as, CJK text, plain spaces)
SPACES = {"nbsp": "\u00a0", "ideographic space": "\u3000", "space": " ", "tab": "\t"}
#: runs of what separates ranges and lists
SEPARATORS = {"hyphen": "-", "en dash": "–", "slash": "/", "spaced and": " and "}

#: shapes of a value around a run of filler: a rule matches a prefix, then meets the run
SHAPES: tuple[Callable[[str], str], ...] = (
    lambda run: run,
    lambda run: "1" + run + "x",
    lambda run: "A" + run + "2",
    lambda run: "123" + run + "-" + run + "4x",
    lambda run: "T, 2000" + run + "x",
    lambda run: "arxiv.org/" + run + "x",
    lambda run: "10.1/" + run + " x",
)


def _bibliography(names: Iterable[str], fillers: Iterable[str], n: int,
                  attempt: int) -> Bibliography:
    """One entry per field, filler and shape, the value in that field (with the other fields
    of a real entry around it, so every rule that reads the field runs)."""
    where = Location("hostile.bib", 1)
    entries = []
    for i, (name, shape, filler) in enumerate(itertools.product(names, SHAPES, fillers)):
        base = {"author": "Doe, Jane", "title": "A Title", "journal": "J", "year": "2000",
                "eprinttype": "arXiv", name: shape(filler * n)}
        fields = tuple(Field(k, v, where) for k, v in base.items())
        entries.append(Entry(f"k{attempt}x{i}", "article", fields, where))
    return Bibliography(tuple(entries))


@pytest.mark.parametrize("name", FIELDS)
def test_field_rules_are_linear_on_runs_of_spaces(name: str) -> None:
    ratio = doubling_ratio(lambda n, attempt: _bibliography((name,), SPACES.values(), n, attempt),
                           check_bibliography, 2_000)
    assert ratio <= LIMIT, (name, ratio)


def test_field_rules_are_linear_on_runs_of_separators() -> None:
    ratio = doubling_ratio(
        lambda n, attempt: _bibliography(FIELDS, SEPARATORS.values(), n, attempt),
        check_bibliography, 200)
    assert ratio <= LIMIT, ratio


def test_a_month_of_digits_that_are_no_numbers_is_invalid() -> None:
    # "²" is a digit to str.isdigit() but int() refuses it; thousands of digits exceed int()'s
    # limit: both are bad months (and bad page ranges), not exceptions
    where = Location("m.bib", 1)
    for month, pages in (("²", "2²-1"), ("1" * 5000, "9" * 5000 + "-" + "1" * 5000)):
        entry = Entry("k", "article", (Field("month", month, where), Field("pages", pages, where),
                                       Field("isbn", "²" * 13, where)), where)
        codes = {d.code.slug for d in check_bibliography(Bibliography((entry,)))}
        assert "month-invalid" in codes


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=40), min_size=1))
def test_field_rules_never_fail(values: dict[str, str]) -> None:
    where = Location("random.bib", 1)
    fields = tuple(Field(name, value, where) for name, value in values.items())
    entry = Entry("k", "article", (*fields, Field("eprinttype", "arXiv", where)), where)
    for d in check_bibliography(Bibliography((entry,))):
        assert d.location is not None
