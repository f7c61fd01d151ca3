"""The public Python API: format a bibliography and citations with any CSL style and locale.

This module is the stable entry point for programs (and the CSL test-suite runner,
``benchmarks/csl_suite.py``); the modules behind it (``refbook.styles.csl.*``) may change.
It sits beside the hosts: like them it reads items (BibTeX, CSL-JSON or CSL-JSON data already
in memory), looks the style up the way ``--style`` does (``refbook.styles.get_style``) and runs
the CSL engine; unlike them it knows nothing of documents.

Two levels:

- :func:`format_bibliography` and :func:`format_citations` return strings (``text``, ``html``
  or ``markdown``);
- :class:`Formatter` keeps one processor for a set of items and returns inline trees
  (``refbook.ir``) that :func:`render` writes in a format, for callers that format several
  times or want their own output.

Citations are given in document order; each cite's position (``first``, ``subsequent``,
``ibid``, ``ibid-with-locator``, ``near-note``) is computed from that order and the citations'
note numbers, as CSL 1.0.2 defines it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from refbook import csl
from refbook.diagnostics import Code, Diagnostic
from refbook.models import Location
from refbook.records import record
from refbook.styles import CslStyle, get_style
from refbook.styles.csl.processor import CiteItem

if TYPE_CHECKING:
    from refbook.ir import Inlines
    from refbook.styles.csl.processor import Processor

__all__ = [
    "Citation",
    "Cite",
    "Formatter",
    "Source",
    "SourceError",
    "format_bibliography",
    "format_citations",
    "load_items",
    "render",
]

Format = Literal["text", "html", "markdown"]
#: what items can be given as: a path to a ``.bib``/``.bibtex`` or ``.json`` (CSL-JSON) file,
#: CSL-JSON items (dicts, as ``json.load`` returns them), or :class:`refbook.csl.Item` objects
Source = str | os.PathLike[str] | Sequence[Mapping[str, Any]] | Sequence[csl.Item]

#: how far back (in notes) a cite of the same item makes ``near-note`` true, unless the style
#: says otherwise (``near-note-distance``)
NEAR_NOTE_DISTANCE = 5


@record(frozen=True)
class Cite:
    """One cited item inside a citation.

    ``label`` is a CSL locator term (``page``, ``chapter``, ``section`` …; ``page`` when a
    locator has none); ``mode`` is ``normal``, ``suppress-author`` or ``author-only``.
    ``position`` (``first``, ``subsequent``, ``ibid``, ``ibid-with-locator``) overrides the
    position the citations' order gives the cite (a host that knows better, or a test)."""

    id: str
    locator: str = ""
    label: str = ""
    prefix: str = ""
    suffix: str = ""
    mode: str = "normal"
    position: str = ""


@record(frozen=True)
class Citation:
    """A citation (one or more cites). ``note``: the number of the footnote it sits in, 0 for a
    citation in the running text."""

    cites: tuple[Cite, ...]
    note: int = 0


class SourceError(OSError):
    """``format_bibliography``/``format_citations`` were given a file they cannot read (a
    missing path, a folder, no permission). ``diagnostic`` says which file and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _checked(f: Formatter, problems: list[Diagnostic] | None) -> Formatter:
    """The convenience functions' rule for the source's problems: an unreadable file raises
    (as ``open`` would); any other problem (a bad entry, a bad item) goes to ``problems``
    when the caller gives a list, and the items that could be read are formatted."""
    for d in f.diagnostics:
        if d.code is Code.FILE:
            raise SourceError(d)
    if problems is not None:
        problems.extend(f.diagnostics)
    return f


def load_items(source: Source) -> tuple[tuple[csl.Item, ...], tuple[Diagnostic, ...]]:
    """The CSL items of ``source`` and the problems met reading it (never raises for bad
    input: an unreadable file or a bad item is a diagnostic)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix.lower() == ".json":
            from refbook.readers.csl_json import read_csl_json

            try:
                text = path.read_text(encoding="utf-8-sig")
            except OSError as exc:
                return (), (Diagnostic(Code.FILE, f"cannot read {path}: {exc.strerror or exc}",
                                       Location(str(path)),
                                       hint="check that the path names a readable file"),)
            return read_csl_json(text, str(path))
        from refbook.items import items_for
        from refbook.readers import read_bibliography

        bib = read_bibliography([path])
        items = items_for(bib)
        return tuple(items.many(items)), tuple(bib.diagnostics)
    found: list[csl.Item] = []
    diags: list[Diagnostic] = []
    for i, raw in enumerate(source):
        if isinstance(raw, csl.Item):
            found.append(raw)
        elif isinstance(raw, Mapping) and raw.get("id") not in (None, ""):
            from refbook.readers.csl_json import item_from_json

            found.append(item_from_json(raw))
        else:
            diags.append(Diagnostic(Code.SYNTAX, f"item {i + 1} has no id and is left out",
                                    None, hint='give every CSL-JSON item an "id"'))
    return tuple(found), tuple(diags)


def render(inlines: Inlines, format: Format = "text") -> str:
    """Write an inline tree as plain text, HTML or Markdown."""
    if format == "html":
        from refbook.render.html import to_html

        return to_html(inlines)
    if format == "markdown":
        from refbook.render.markdown import to_markdown

        return to_markdown(inlines)
    if format == "text":
        from refbook.render.text import to_text

        return to_text(inlines)
    raise ValueError(f"unknown format {format!r}: use text, html or markdown")


def _as_citation(c: Citation | Sequence[str | Cite] | str) -> Citation:
    if isinstance(c, Citation):
        return c
    if isinstance(c, str):
        return Citation((Cite(c),))
    return Citation(tuple(Cite(x) if isinstance(x, str) else x for x in c))


class Formatter:
    """One style and locale over one set of items: the bibliography and citations agree
    (disambiguation, year suffixes and citation numbers are computed over all the items).

    ``style`` is what ``--style`` takes: a built-in name, a path to a ``.csl`` file (relative
    to ``base``, default the working directory) or a CSL repository style name; ``locale``
    overrides the style's ``default-locale``. Raises :class:`refbook.styles.StyleError`
    (with a diagnostic) for a style that cannot be used.
    """

    def __init__(self, source: Source, *, style: str | CslStyle = "chicago-author-date",
                 locale: str | None = None,
                 base: str | os.PathLike[str] | None = None) -> None:
        self.style = get_style(style, base=base, locale=locale)
        items, diags = load_items(source)
        self.items: tuple[csl.Item, ...] = items
        self.diagnostics: tuple[Diagnostic, ...] = diags
        self._processors: dict[tuple[str, ...], Processor] = {}

    def _processor(self, cited: Sequence[str] = ()) -> Processor:
        # citeproc numbers items in the order they are first cited (the bibliography's own
        # <sort>, if any, reorders it): the cited items come first, the others after
        order = tuple(dict.fromkeys(k for k in cited if any(i.id == k for i in self.items)))
        if order not in self._processors:
            by_id = {i.id: i for i in reversed(self.items)}
            first = [by_id[k] for k in order]
            rest = [i for i in self.items if i.id not in set(order)]
            self._processors[order] = self.style.processor([*first, *rest], cited=order)
        return self._processors[order]

    def bibliography(self, ids: Sequence[str] | None = None, *,
                     citations: Sequence[Citation | Sequence[str | Cite] | str] = ()
                     ) -> list[tuple[str, Inlines]]:
        """(id, entry) pairs in the style's bibliography order: every item, or ``ids``.
        ``citations``: the document's citations, which decide citation numbers."""
        cited = [c.id for x in citations for c in _as_citation(x).cites]
        return self._processor(cited).bibliography(ids)

    def citations(self, citations: Sequence[Citation | Sequence[str | Cite] | str]
                  ) -> list[Inlines]:
        """Each citation formatted, in document order (positions follow that order)."""
        cits = [_as_citation(c) for c in citations]
        proc = self._processor([c.id for x in cits for c in x.cites])
        distance = int(proc.style.citation.attrs.get("near-note-distance", NEAR_NOTE_DISTANCE)
                       if proc.style.citation is not None else NEAR_NOTE_DISTANCE)
        return [proc.cite(cites) for cites in positions(cits, distance)]


def positions(citations: Sequence[Citation], distance: int = NEAR_NOTE_DISTANCE
              ) -> list[list[CiteItem]]:
    """The cites of each citation with their CSL positions (CSL 1.0.2, "Position").

    A cite is ``ibid`` when it cites the same item as the cite just before it: the one before
    it in its citation (or in its note), or the only cite of the previous note. Citations in
    the running text (note 0) and in notes are two separate sequences, as in citeproc-js."""
    last_note: dict[str, int] = {}
    first_note: dict[str, int] = {}
    out: list[list[CiteItem]] = []
    # per sequence (in the text, in notes): the cites of the last note (or text citation)
    previous: dict[bool, tuple[int, list[Cite]]] = {}
    for cit in citations:
        row: list[CiteItem] = []
        stream = cit.note > 0
        last = previous.get(stream)
        same_note = last is not None and stream and last[0] == cit.note
        for j, c in enumerate(cit.cites):
            before: Cite | None = None
            if j > 0:
                before = cit.cites[j - 1]
            elif last is not None and (same_note or len(last[1]) == 1):
                before = last[1][-1]
            if c.id not in last_note:
                pos = "first"
            elif before is not None and before.id == c.id:
                pos = _ibid(c, before)
            else:
                pos = "subsequent"
            pos = c.position or pos
            near = (c.id in last_note and cit.note > 0
                    and cit.note - last_note[c.id] <= distance)
            row.append(CiteItem(c.id, prefix=_inl(c.prefix), suffix=_inl(c.suffix),
                                locator=c.locator, label=c.label, mode=c.mode,
                                position=pos, near_note=near,
                                first_note=first_note.get(c.id, 0)))
            last_note[c.id] = cit.note
            first_note.setdefault(c.id, cit.note)
        out.append(row)
        cites = [*last[1], *cit.cites] if same_note and last is not None else list(cit.cites)
        previous[stream] = (cit.note, cites)
    return out


def _ibid(c: Cite, before: Cite) -> str:
    """The position of a cite of the item the cite before it cites."""
    here = (c.label or "page", c.locator) if c.locator else None
    there = (before.label or "page", before.locator) if before.locator else None
    if here == there:
        return "ibid"
    if here is not None:
        return "ibid-with-locator"
    return "subsequent"  # the cite before pointed somewhere this one does not


def _inl(text: str) -> Inlines:
    if not text:
        return ()
    from refbook.readers.csl_json import markup_to_inlines

    return markup_to_inlines(text)


def format_bibliography(source: Source, *, style: str | CslStyle = "chicago-author-date",
                        locale: str | None = None, format: Format = "text",
                        base: str | os.PathLike[str] | None = None,
                        problems: list[Diagnostic] | None = None) -> list[str]:
    """Every item of ``source`` as a bibliography entry, in the style's order.

    A file that cannot be read raises :class:`SourceError`; the other problems of the source
    (``file:line`` diagnostics) are appended to ``problems`` when a list is given.

    >>> format_bibliography([{"id": "a", "type": "book", "title": "Tides",
    ...                       "author": [{"family": "Doe", "given": "Jane"}],
    ...                       "issued": {"date-parts": [[2001]]}}])
    ['Doe, Jane. 2001. Tides.']
    """
    f = _checked(Formatter(source, style=style, locale=locale, base=base), problems)
    return [render(entry, format) for _, entry in f.bibliography()]


def format_citations(source: Source, citations: Sequence[Citation | Sequence[str | Cite] | str],
                     *, style: str | CslStyle = "chicago-author-date", locale: str | None = None,
                     format: Format = "text",
                     base: str | os.PathLike[str] | None = None,
                     problems: list[Diagnostic] | None = None) -> list[str]:
    """Each citation (a key, a list of keys or :class:`Cite`, or a :class:`Citation`) formatted
    in document order. ``problems`` and :class:`SourceError` as in :func:`format_bibliography`.

    >>> items = [{"id": "a", "type": "book", "title": "Tides",
    ...           "author": [{"family": "Doe", "given": "Jane"}],
    ...           "issued": {"date-parts": [[2001]]}}]
    >>> format_citations(items, ["a", [Cite("a", locator="12")]])
    ['(Doe 2001)', '(Doe 2001, 12)']
    """
    f = _checked(Formatter(source, style=style, locale=locale, base=base), problems)
    return [render(c, format) for c in f.citations(citations)]

