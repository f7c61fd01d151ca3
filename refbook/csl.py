"""CSL items: the style-neutral record each entry is turned into before a style formats it.

The vocabulary is CSL's (types ``article-journal``, ``paper-conference`` …; variables ``title``,
``container-title``, ``page`` …), so BibTeX, BibLaTeX and CSL-JSON input meet in one shape.
``refbook.bibtex_csl`` maps a BibTeX entry here the way pandoc does; ``refbook.readers.csl_json``
reads CSL-JSON directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from refbook.ir import Inlines


@dataclass(frozen=True, slots=True)
class Name:
    """A CSL name. A corporate or otherwise unsplittable name has only ``literal``.
    ``others`` stands for BibTeX's ``and others`` (rendered as "et al.")."""

    family: str = ""
    given: str = ""
    non_dropping_particle: str = ""
    dropping_particle: str = ""
    suffix: str = ""
    literal: str = ""
    others: bool = False
    #: the suffix follows a comma even in display order ("Doe, Jr."; CSL-JSON ``comma-suffix``)
    comma_suffix: bool = False


@dataclass(frozen=True, slots=True)
class DatePart:
    """One date (year, month, day; 0 = absent). Month 13-16 are seasons as in CSL."""

    year: int = 0
    month: int = 0
    day: int = 0


@dataclass(frozen=True, slots=True)
class Date:
    """A date or a range (``end`` set), or a ``literal`` that could not be parsed."""

    start: DatePart | None = None
    end: DatePart | None = None
    circa: bool = False
    literal: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    """One entry as CSL sees it.

    ``text`` holds rich variables (title, container-title, publisher, note …) as inline trees;
    ``names`` the name variables (author, editor, translator …); ``dates`` the date variables
    (issued, accessed, event-date …). All three are tuples of (variable, value) pairs in a stable
    order, so items hash and compare.
    """

    id: str
    type: str
    text: tuple[tuple[str, Inlines], ...] = ()
    names: tuple[tuple[str, tuple[Name, ...]], ...] = ()
    dates: tuple[tuple[str, Date], ...] = ()
    language: str = ""

    def var(self, name: str) -> Inlines:
        for k, v in self.text:
            if k == name:
                return v
        return ()

    def has(self, name: str) -> bool:
        return bool(self.var(name)) or bool(self.name_list(name)) or self.date(name) is not None

    def name_list(self, name: str) -> tuple[Name, ...]:
        for k, v in self.names:
            if k == name:
                return v
        return ()

    def date(self, name: str) -> Date | None:
        for k, v in self.dates:
            if k == name:
                return v
        return None
