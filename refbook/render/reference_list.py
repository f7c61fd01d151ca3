"""The reference list as both hosts show it: entries, their anchors and "Cited in:" back-links.

Where it sits: after the book is resolved (``refbook.registry``), before a host writes a page.
:func:`reference_list` decides the structure of a list — the classes of the list and of each
entry, each entry's anchor (``ref-<key>``), and the back-links after it — and :func:`backlinks`
decides their wording, separators, order and final punctuation. The Sphinx extension turns the
result into docutils nodes and the MkDocs plugin into HTML, each element for element, so the two
hosts cannot drift apart. :data:`STYLESHEET` is the one stylesheet both hosts ship.

Link targets are opaque here: the host says what a citing place links to (a relative URL, a
``docname#anchor``) and gets it back in the :class:`BackLink` it renders.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.records import record
from refbook.render.text import one_line, to_line

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from refbook.ir import Inlines

#: classes of the element holding a list; the host adds ``refbook-<style kind>``
LIST_CLASSES = ("refbook-bibliography", "csl-bib-body")
#: classes of the paragraph holding one entry
ENTRY_CLASSES = ("csl-entry", "refbook-entry")
#: class of the inline element holding an entry's back-links
BACKLINKS_CLASS = "refbook-backlinks"
#: text between an entry and its back-links (outside the back-links element)
BACKLINKS_GAP = " "
BACKLINKS_LABEL = "Cited in: "
#: between the links (a page or section title may hold a comma, never this pair)
BACKLINKS_SEPARATOR = "; "
BACKLINKS_END = "."
#: between a page's title and a section's title in a back-link
SECTION_SEPARATOR = " \u203a "

#: the stylesheet both hosts add to their HTML pages (Sphinx: ``_static/refbook.css``, MkDocs:
#: ``assets/refbook.css``)
STYLESHEET_FILE = Path(__file__).with_name("refbook.css")
STYLESHEET = STYLESHEET_FILE.read_text(encoding="utf-8")


def anchor(key: str) -> str:
    """The stable id of an entry in the book's list (its home): ``ref-<key>``."""
    return f"ref-{key}"


def local_anchor(key: str, document: str, index: int) -> str:
    """The id of an entry in another list (the ``index``-th list of ``document``)."""
    return f"ref-{key}-{slug(document)}-{index}"


def slug(text: str) -> str:
    """``text`` as lowercase ASCII letters, digits and hyphens (never empty)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


@record(frozen=True)
class CitingPlace:
    """One place citing an entry, as the host found it.

    ``page`` and ``section`` are the titles as shown (plain text, citations rendered: see
    :func:`rendered_title`); ``section`` is empty for a citation above the page's first
    sub-section. ``target`` is what the back-link points to, in the host's terms.
    """

    document: str
    page: str
    section: str
    target: str


@record(frozen=True)
class BackLink:
    """One back-link: where it points (the place's ``target``) and its text (plain text)."""

    target: str
    text: str


@record(frozen=True)
class BackLinks:
    """An entry's back-links: ``parts`` in the order shown, each either text or a link."""

    parts: tuple[str | BackLink, ...]

    @property
    def links(self) -> tuple[BackLink, ...]:
        return tuple(p for p in self.parts if isinstance(p, BackLink))

    def text(self) -> str:
        """What a reader sees, as plain text."""
        return "".join(p if isinstance(p, str) else p.text for p in self.parts)


def place_label(page: str, section: str) -> str:
    """A back-link's text: the page's title, then the section's unless it is the same."""
    page, section = one_line(page), one_line(section)
    if not section or section == page:
        return page
    return f"{page}{SECTION_SEPARATOR}{section}"


def backlinks(places: Iterable[CitingPlace]) -> BackLinks | None:
    """The back-links of one entry: one per section citing it, in the order given (the book's
    reading order), the first citation of each section being the target. ``None`` for none."""
    seen: set[tuple[str, str]] = set()
    parts: list[str | BackLink] = [BACKLINKS_LABEL]
    for place in places:
        text = place_label(place.page, place.section)
        if (place.document, text) in seen:
            continue
        seen.add((place.document, text))
        if len(parts) > 1:
            parts.append(BACKLINKS_SEPARATOR)
        parts.append(BackLink(place.target, text))
    if len(parts) == 1:
        return None
    parts.append(BACKLINKS_END)
    return BackLinks(tuple(parts))


def rendered_title(title: str, citations: Iterable[tuple[str, Inlines | None]]) -> str:
    """A page or section title as shown, from its text holding citations as written.

    ``citations`` are the (source, formatted text) of the citations that may sit in the title,
    in reading order: each source found (left to right) is replaced by its text on one line. A
    citation that is not in the title (one of the section's body) is not found and is skipped;
    an unformatted one (``None``) stays as written.
    """
    out: list[str] = []
    pos = 0
    for source, ir in citations:
        if not source or ir is None:
            continue
        at = title.find(source, pos)
        if at < 0:
            continue
        out.append(title[pos:at])
        out.append(to_line(ir))
        pos = at + len(source)
    out.append(title[pos:])
    return one_line("".join(out))


@record(frozen=True)
class ListEntry:
    """One entry of a list: a paragraph with ``classes`` and the id ``anchor`` (if any) holding
    ``content``, then :data:`BACKLINKS_GAP` and an inline element of class
    :data:`BACKLINKS_CLASS` holding ``backlinks`` (if any)."""

    key: str
    anchor: str | None
    content: Inlines
    backlinks: BackLinks | None
    classes: tuple[str, ...] = ENTRY_CLASSES


@record(frozen=True)
class ReferenceList:
    """A reference list: an element with ``classes`` holding the entries in order."""

    classes: tuple[str, ...]
    entries: tuple[ListEntry, ...]


def reference_list(entries: Iterable[tuple[str, Inlines]], *, kind: str,
                   anchors: Mapping[str, str],
                   backlinks: Mapping[str, BackLinks | None]) -> ReferenceList:
    """The structure of a list of ``entries`` (key, formatted entry) in a style of ``kind``
    (``author-date``, ``numeric`` …); ``anchors`` gives the id of each entry that has one."""
    return ReferenceList(
        (*LIST_CLASSES, f"refbook-{slug(kind)}"),
        tuple(ListEntry(key, anchors.get(key), ir, backlinks.get(key)) for key, ir in entries))
