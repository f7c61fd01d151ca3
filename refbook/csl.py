"""CSL items: the style-neutral record each entry is turned into before a style formats it.

The vocabulary is CSL's (types ``article-journal``, ``paper-conference`` …; variables ``title``,
``container-title``, ``page`` …), so BibTeX, BibLaTeX and CSL-JSON input meet in one shape.
``refbook.bibtex_csl`` maps a BibTeX entry here the way pandoc does; ``refbook.readers.csl_json``
reads CSL-JSON directly.

Rich variables that styles seldom print (``abstract``, ``annote``, ``keyword``) stay as their
LaTeX source in :attr:`Item.latex` and are converted when something first reads them
(:meth:`Item.var`): a style that never prints an abstract never pays for decoding one
(docs/design/performance.md, "Converting only what a style prints").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from refbook.ir import Inlines
from refbook.records import field, record, replace


@record(frozen=True)
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
    # names are memo keys of the style engine on their own: hashed once (as Item, below)
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        h = self._hash
        if h == 0:
            h = hash((self.family, self.given, self.non_dropping_particle,
                      self.dropping_particle, self.suffix, self.literal, self.others,
                      self.comma_suffix))
            object.__setattr__(self, "_hash", h)
        return h

    def __reduce__(self) -> tuple[Callable[..., Name], tuple[object, ...]]:
        # the constructor's arguments only: a cached hash must not travel to another process
        return (Name, (self.family, self.given, self.non_dropping_particle,
                       self.dropping_particle, self.suffix, self.literal, self.others,
                       self.comma_suffix))


@record(frozen=True)
class DatePart:
    """One date (year, month, day; 0 = absent). Month 13-16 are seasons as in CSL."""

    year: int = 0
    month: int = 0
    day: int = 0


@record(frozen=True)
class Date:
    """A date or a range (``end`` set), or a ``literal`` that could not be parsed."""

    start: DatePart | None = None
    end: DatePart | None = None
    circa: bool = False
    literal: str = ""


#: a variable's LaTeX candidates → its inlines, ``None`` when none is readable (pandoc then
#: ignores the field); set by ``refbook.bibtex_csl`` when it is first imported (it converts
#: the source the way ``entry_to_item`` converts eager variables)
_from_latex: Callable[[tuple[str, ...]], Inlines | None] | None = None


def latex_value(sources: tuple[str, ...]) -> Inlines | None:
    """The inlines of a variable kept as LaTeX (memoized, bounded, in ``refbook.bibtex_csl``)."""
    convert = _from_latex
    if convert is None:
        # imported on the first lazy read only: a build whose styles print no abstract never
        # decodes LaTeX for one (tests/mkdocs/test_lazy_imports.py)
        from refbook import bibtex_csl  # noqa: F401  (sets _from_latex)

        convert = _from_latex
        assert convert is not None
    return convert(sources)


@record(frozen=True)
class Item:
    """One entry as CSL sees it.

    ``text`` holds rich variables (title, container-title, publisher, note …) as inline trees;
    ``names`` the name variables (author, editor, translator …); ``dates`` the date variables
    (issued, accessed, event-date …). All three are tuples of (variable, value) pairs in a stable
    order, so items hash and compare. ``latex`` holds rich variables not converted yet: (variable,
    LaTeX candidates, the first readable one wins); :meth:`var` converts them on first read, so
    hash and equality stay those of the content (the source), whoever read what.

    The hash is computed once per item (items are memo keys of the style engine, hashed for every
    lookup) and never pickled: string hashes differ between processes.
    """

    id: str
    type: str
    text: tuple[tuple[str, Inlines], ...] = ()
    names: tuple[tuple[str, tuple[Name, ...]], ...] = ()
    dates: tuple[tuple[str, Date], ...] = ()
    language: str = ""
    latex: tuple[tuple[str, tuple[str, ...]], ...] = ()
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    #: the same item with an empty id, made on first use (``anonymous``) and never pickled
    _anon: Item | None = field(default=None, init=False, repr=False, compare=False)
    #: whether :meth:`tested` records anything (a recording subclass's, in
    #: ``refbook.validate.output``): the engine tests this flag, not a call per ``<choose>``
    logged: ClassVar[bool] = False

    def tested(self, names: frozenset[str]) -> None:
        """Told by the engine, when :attr:`logged`, which variables a ``<choose>`` it runs
        tests for presence (its branch depends on these and the type alone)."""

    def __hash__(self) -> int:
        h = self._hash
        if h == 0:
            h = hash((self.id, self.type, self.text, self.names, self.dates, self.language,
                      self.latex))
            object.__setattr__(self, "_hash", h)
        return h

    def anonymous(self) -> Item:
        """This item without its id (the style engine's memo keys: its output never shows the
        id), one object per item: each new processor of the same items (a rebuild under
        ``mkdocs serve``, a Sphinx rebuild) then finds the memo's entries by identity, where a
        new copy had to be compared with the stored one field by field."""
        anon = self._anon
        if anon is None:
            if not self.id:
                return self  # no copy: an item pointing to itself would be a reference cycle
            anon = replace(self, id="")
            object.__setattr__(self, "_anon", anon)
        return anon

    def __reduce__(self) -> tuple[Callable[..., Item], tuple[object, ...]]:
        # the constructor's arguments only: a cached hash must not travel to another process
        return (Item, (self.id, self.type, self.text, self.names, self.dates, self.language,
                       self.latex))

    def var(self, name: str) -> Inlines:
        for k, v in self.text:
            if k == name:
                return v
        for k, sources in self.latex:
            if k == name:
                return latex_value(sources) or ()
        return ()

    def rich(self) -> tuple[tuple[str, Inlines], ...]:
        """Every rich variable with its inlines, by name (those kept as LaTeX converted, left out
        when unreadable): what an export of the whole item shows."""
        if not self.latex:
            return self.text
        out = list(self.text)
        for k, sources in self.latex:
            value = latex_value(sources)
            if value is not None:
                out.append((k, value))
        return tuple(sorted(out, key=lambda kv: kv[0]))

    def has(self, name: str) -> bool:
        return bool(self.var(name)) or bool(self.name_list(name)) or self.date(name) is not None

    def present(self, named: frozenset[str] | None = None) -> frozenset[str]:
        """The variables :meth:`has` finds, all at once (which branch of a style's ``choose``
        holds). Variables still LaTeX count only when in ``named`` (the words a style uses: a
        variable it never names cannot change a branch), so the others are not converted.

        Every look-up here is :class:`Item`'s own, not an override's: a reader that records
        what the engine reads (``refbook.validate.output``) tells a presence test (which
        :meth:`tested` reports, per ``<choose>``) from a read of the value."""
        present = ([k for k, _ in self.text if Item.var(self, k)]
                   + [k for k, _ in self.names if Item.name_list(self, k)]
                   + [k for k, _ in self.dates if Item.date(self, k) is not None])
        if self.latex and named:
            present += [k for k, _ in self.latex if k in named and Item.var(self, k)]
        return frozenset(present)

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
