"""Rules for dates: ``year`` and ``date`` values, a year pasted into the title, arXiv years."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from refbook.diagnostics import Code
from refbook.latex import to_text
from refbook.validate.identifiers import ARXIV_NEW, arxiv_of
from refbook.validate.report import at, show

if TYPE_CHECKING:
    from collections.abc import Iterator

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry

__all__ = ["check_entry"]

YEAR_RANGE = re.compile(r"^(\d{4})\s*(?:-{1,3}|–|—|/)\s*(\d{4})$")
_FOUR_DIGITS = re.compile(r"\d{4}")
# ISO 8601 / EDTF level 1 as BibLaTeX reads it: negative years, times, ?, ~, %.
ISO_DATE = re.compile(r"^(-?\d{4})(?:-(\d{2})(?:-(\d{2})(?:T\d{2}:\d{2}(?::\d{2})?"
                      r"(?:Z|[+-]\d{2}:?\d{2})?)?)?)?[?~%]?$")
# (possessive \s*+: "\s*\.?\s*$" split a long run of spaces between its two \s* in every way)
TITLE_YEAR = re.compile(r"(?:,\s*+((?:19|20)\d{2})|\s\(((?:19|20)\d{2})\))\s*+(?:\.\s*+)?$")
# What comes before a year that belongs to the title: a day or a month ("…, September 6-9,
# 2022", "…, 6 June, 2021") in a proceedings title that ends in its dates.
_MONTH_WORDS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
                r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
DATE_BEFORE = re.compile(rf"(?:\d|\b(?:{_MONTH_WORDS})\.?)\s*+$", re.IGNORECASE)
# A title that names a meeting or a volume of its papers ends in the meeting's date by nature.
MEETING = re.compile(r"\b(?:proceedings|proc\.|conference|symposium|workshop|congress|meeting)\b",
                     re.IGNORECASE)


def check_entry(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    """The family's rules on one entry (they look at no other entry)."""
    yield from _year(entry)
    yield from _date(entry)
    yield from _title_year(entry)
    yield from _arxiv_year(entry)


def _year(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("year")
    if f is None:
        return
    text = to_text(f.value).strip()
    if not text:
        yield at(Code.YEAR_EMPTY, entry, f, "year is empty",
                 "write the year of publication, or remove the field for an undated work "
                 "(the style then prints n.d.)")
        return
    m = YEAR_RANGE.match(text)
    if m:
        yield at(Code.YEAR_RANGE, entry, f, f"year {show(text)} is a range",
                 f"write date = {{{m.group(1)}/{m.group(2)}}} and year = {{{m.group(2)}}} "
                 f"(or the single year the work was published)")
        return
    if not _FOUR_DIGITS.fullmatch(text):
        m2 = re.search(r"\b(1[5-9]\d{2}|20\d{2})\b", text)
        hint = (f"write year = {{{m2.group(1)}}}" if m2 else
                "write a four-digit year, e.g. year = {2023}; a full date goes in date = {2023-06-01}")
        yield at(Code.YEAR_INVALID, entry, f, f"year {show(text)} is not a four-digit year", hint)


def _date_years(text: str) -> tuple[int, ...] | None:
    parts = text.split("/")
    if len(parts) > 2:
        return None
    years: list[int] = []
    for p in parts:
        p = p.strip()
        if p in ("", ".."):
            continue
        m = ISO_DATE.match(p)
        if not m:
            return None
        mo, d = m.group(2), m.group(3)
        if (mo and not (1 <= int(mo) <= 12 or 21 <= int(mo) <= 24)) or (d and not 1 <= int(d) <= 31):
            return None
        years.append(int(m.group(1)))
    return tuple(years) if years else None


def _date(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("date")
    if f is None or not f.value.strip():
        return
    text = to_text(f.value).strip()
    years = _date_years(text)
    if years is None:
        yield at(Code.DATE_INVALID, entry, f, f"date {show(text)} is not an ISO 8601 date",
                 "write YYYY, YYYY-MM or YYYY-MM-DD, or a range start/end, e.g. date = {2023-06-01}")
        return
    y = entry.field("year")
    if y is not None and re.fullmatch(r"\d{4}", to_text(y.value).strip()):
        year = int(to_text(y.value).strip())
        if year not in years and not (len(years) == 2 and years[0] <= year <= years[1]):
            yield at(Code.DATE_YEAR_MISMATCH, entry, y, f"year {year} disagrees with date "
                     f"{show(text)} (its date field)",
                     f"keep one of them: remove year, or set it to {years[-1]}")


def _title_year(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("title")
    if f is None:
        return
    m = TITLE_YEAR.search(f.value)
    if m and m.group(1) and (DATE_BEFORE.search(f.value, 0, m.start())
                             or MEETING.search(f.value) or entry.type.endswith("proceedings")):
        return  # "…, September 6-9, 2022": the meeting's date, part of the title
    if m:
        fixed = f.value[: m.start()].rstrip()
        year = m.group(1) or m.group(2)
        yield at(Code.YEAR_IN_TITLE, entry, f, f"title {show(f.value)} ends with the year "
                 f"{year}", f"write title = {{{fixed}}} and put {year} in year")


def _arxiv_year(entry: Entry) -> Iterator[Diagnostic]:
    y = entry.field("year")
    ident, source = arxiv_of(entry)
    m = ARXIV_NEW.match(ident) if ident else None
    if y is None or m is None or not re.fullmatch(r"\d{4}", to_text(y.value).strip()):
        return
    year = int(to_text(y.value).strip())
    arxiv_year = 2000 + int(m.group(1))
    if year < arxiv_year:
        yield at(Code.YEAR_BEFORE_ARXIV, entry, y, f"year {year} is before {arxiv_year}, the year "
                 f"of its arXiv id {ident} (in {source})",
                 f"check the year (the preprint appeared in {arxiv_year}) and the arXiv id")
