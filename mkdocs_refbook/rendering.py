"""Resolved IR → the HTML MkDocs pages show: linked citations, reference lists, back-links.

Where it sits: after the book is resolved (``on_nav``, again in ``on_env`` if a plugin changed
citations): citations and lists are written while Markdown becomes HTML, lists again with their
back-links in ``on_page_context``. Every value is escaped by ``refbook.render.html``; the reference
list's structure and back-links are the core's (``refbook.render.reference_list``). This module
writes them as HTML and adds relative links between pages and ``title`` tooltips. The plugin passes
in where things live as plain data (:class:`Links`), never MkDocs objects.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING
from urllib.parse import quote

from refbook.ir import Span
from refbook.records import record
from refbook.render import reference_list
from refbook.render.html import escape_title, to_html
from refbook.render.text import to_line
from refbook.styles import CslStyle, get_style

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from refbook.ir import Inlines
    from refbook.render.reference_list import BackLinks


STYLESHEET_PATH = "assets/refbook.css"
#: the core's stylesheet, the Sphinx extension's too
STYLESHEET = reference_list.STYLESHEET


def fragment(key: str) -> str:
    """``#ref-<key>`` as a URL fragment (browsers decode it before matching the id)."""
    return "#" + quote(reference_list.anchor(key), safe="-._~:@!$&'()*+,;=/?")


def cite_item_key(node: Span) -> str:
    """The entry key of a ``cite-item`` span."""
    return node.key


@record(frozen=True)
class Links:
    """Where things are, seen from the page being written."""

    #: key → relative URL of the page holding its ``ref-<key>`` anchor ("" = this page)
    entry_page: Callable[[str], str | None]
    #: key → formatted entry (for tooltips), or None when the key is unknown
    entry_text: Callable[[str], str | None]
    tooltips: bool = True
    #: what ``entry_page`` and ``entry_text`` answer from besides the book's resolution (the
    #: plugin: the URL of the page holding the entries, seen from this one), for memo keys
    where: str | None = None


def citation_html(ir: Inlines, anchor_id: str, links: Links) -> str:
    """One citation: each cited key links to its entry; unknown keys are a visible marker."""
    out: list[str] = [f'<span class="refbook-cite" id="{escape(anchor_id)}">']
    for node in ir:
        if isinstance(node, Span) and node.role == "cite-item":
            key = cite_item_key(node)
            page = links.entry_page(key)
            inner = to_html(node.children)
            if page is None:
                out.append(f'<span class="refbook-unresolved" data-key="{escape(key)}" '
                           f'title="unknown citation key: {escape(key)}">{inner}</span>')
                continue
            title = ""
            text = links.entry_text(key) if links.tooltips else None
            if text:
                title = f' title="{escape_title(text)}"'
            out.append(f'<a class="refbook-cite-item" href="{escape(page + fragment(key))}"'
                       f'{title}>{inner}</a>')
        else:
            out.append(to_html((node,)))
    out.append("</span>")
    return "".join(out)


def cite_targets(ir: Inlines, links: Links) -> tuple[tuple[str, str | None, str | None], ...]:
    """What :func:`citation_html` takes from ``links`` for ``ir``: for each cited key, the page
    its link points to and its tooltip text. With ``ir`` and the id, all its output depends on."""
    out = []
    for node in ir:
        if isinstance(node, Span) and node.role == "cite-item":
            key = cite_item_key(node)
            page = links.entry_page(key)
            text = links.entry_text(key) if links.tooltips and page is not None else None
            out.append((key, page, text))
    return tuple(out)


#: formatted text → its HTML (``to_html``) and its one-line text (``to_line``), by the object:
#: the style's memo gives an unchanged entry the same object in every resolution, so a
#: ``mkdocs serve`` rebuild after a citation edit, whose lists and tooltips are all made again
#: (their back-links changed), converts only the entries that changed (271 of each per rebuild
#: of the 300-entry bench book before). The object is kept with its result: its id is never
#: another's while the entry is held here.
_HTML: dict[int, tuple[Inlines, str]] = {}
_LINE: dict[int, tuple[Inlines, str]] = {}
_KEPT = 1 << 15


def _by_object(table: dict[int, tuple[Inlines, str]], ir: Inlines,
               convert: Callable[[Inlines], str]) -> str:
    hit = table.get(id(ir))
    if hit is not None and hit[0] is ir:
        return hit[1]
    out = convert(ir)
    if len(table) >= _KEPT:
        table.clear()
    table[id(ir)] = (ir, out)
    return out


def entry_text(ir: Inlines) -> str:
    """Plain text on one line (for a tooltip or a title); escape it with ``escape_title``."""
    return _by_object(_LINE, ir, to_line)


def bibliography_html(entries: Iterable[tuple[str, Inlines]], *, home: bool,
                      place: tuple[str, int], backlinks: Mapping[str, BackLinks | None],
                      style: str | CslStyle) -> str:
    """A reference list as the core lays it out (``refbook.render.reference_list``), element
    for element what the Sphinx extension writes as nodes. The book's list (``home``) anchors
    its entries ``ref-<key>``; another, the ``place[1]``-th list of the page ``place[0]``,
    ``ref-<key>-<page>-<n>``. A back-link's target is the citation's relative URL."""
    entries = tuple(entries)
    anchors = {key: reference_list.anchor(key) if home else reference_list.local_anchor(key, *place)
               for key, _ in entries}
    listing = reference_list.reference_list(entries, kind=get_style(style).kind,
                                            anchors=anchors, backlinks=backlinks)
    out = [f'<div class="{_classes(listing.classes)}">']
    for entry in listing.entries:
        ident = f' id="{escape(entry.anchor)}"' if entry.anchor is not None else ""
        parts = [f'<p class="{_classes(entry.classes)}"{ident}>',
                 _by_object(_HTML, entry.content, to_html)]
        if entry.backlinks is not None:
            parts.append(backlinks_html(entry.backlinks))
        parts.append("</p>")
        out.append("".join(parts))
    out.append("</div>")
    return "\n".join(out)


def backlinks_html(links: BackLinks) -> str:
    """An entry's back-links as the core words them, after the gap that separates them from
    the entry (a reference list's entry, or a footnote of mkdocs-bibtex's full list)."""
    parts = [escape(reference_list.BACKLINKS_GAP),
             f'<span class="{_classes((reference_list.BACKLINKS_CLASS,))}">']
    parts.extend(escape(p) if isinstance(p, str)
                 else f'<a href="{escape(p.target)}">{escape_title(p.text)}</a>'
                 for p in links.parts)
    parts.append("</span>")
    return "".join(parts)


def _classes(names: Iterable[str]) -> str:
    return escape(" ".join(names))
