"""Resolved IR → the HTML MkDocs pages show: linked citations, reference lists, back-links.

Where it sits: the end of the MkDocs flow, after the book is resolved (``on_env``). Every value is
escaped by ``refbook.render.html``; this module only adds the host's structure: anchors
``ref-<key>``, relative links between pages, ``title`` tooltips and back-links. The plugin passes
in where things live as plain data (:class:`Links`), never MkDocs objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import quote

from refbook.ir import Span
from refbook.render.html import escape_title, to_html
from refbook.render.text import to_line

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from refbook.ir import Inlines


STYLESHEET_PATH = "assets/refbook.css"
STYLESHEET = """\
/* refbook: reference lists and citations (mkdocs_refbook, option `stylesheet`) */
.refbook-bibliography .csl-entry { padding-left: 2em; text-indent: -2em; margin: 0 0 .6em;
  overflow-wrap: anywhere; }
.refbook-bibliography .refbook-csl-left-margin { display: inline-block; min-width: 2em;
  text-indent: 0; }
.refbook-backlinks { font-size: .85em; opacity: .85; }
.refbook-unresolved { color: #c62828; }
:target.csl-entry { background: rgba(255, 200, 0, .18); }
"""


def anchor(key: str) -> str:
    """The stable id of an entry: ``ref-<key>`` (never order-dependent)."""
    return f"ref-{key}"


def fragment(key: str) -> str:
    """``#ref-<key>`` as a URL fragment (browsers decode it before matching the id)."""
    return "#" + quote(anchor(key), safe="-._~:@!$&'()*+,;=/?")


def cite_item_key(node: Span) -> str:
    """The entry key of a ``cite-item`` span."""
    return node.key


@dataclass(frozen=True, slots=True)
class Backlink:
    """One place that cites an entry: a relative URL and the text to show (plain text)."""

    href: str
    text: str


@dataclass(frozen=True, slots=True)
class Links:
    """Where things are, seen from the page being written."""

    #: key → relative URL of the page holding its ``ref-<key>`` anchor ("" = this page)
    entry_page: Callable[[str], str | None]
    #: key → formatted entry (for tooltips), or None when the key is unknown
    entry_text: Callable[[str], str | None]
    tooltips: bool = True


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


def entry_text(ir: Inlines) -> str:
    """Plain text on one line (for a tooltip or a title); escape it with ``escape_title``."""
    return to_line(ir)


def bibliography_html(entries: Iterable[tuple[str, Inlines]], *, with_ids: bool,
                      backlinks: Mapping[str, tuple[Backlink, ...]], scope: str) -> str:
    """A reference list. Only the book's main list carries the ``ref-<key>`` ids."""
    out = [f'<div class="refbook-bibliography csl-bib-body" data-scope="{escape(scope)}">']
    for key, ir in entries:
        ident = f' id="{escape(anchor(key))}"' if with_ids else ""
        parts = [f'<div class="csl-entry refbook-entry"{ident} data-key="{escape(key)}">',
                 to_html(ir)]
        back = backlinks.get(key, ())
        if back:
            parts.append(' <span class="refbook-backlinks">Cited in: ')
            parts.append(", ".join(f'<a href="{escape(b.href)}">{escape_title(b.text)}</a>' for b in back))
            parts.append("</span>")
        parts.append("</div>")
        out.append("".join(parts))
    out.append("</div>")
    return "\n".join(out)
