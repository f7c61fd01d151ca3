"""HTML renderer. Every text value is escaped; only http(s) links become ``<a>`` elements.

:func:`to_html` renders markup for the body of a page. :func:`to_title` (and :func:`escape_title`
for text that is already plain) is the one function for entry text where markup does not belong:
a hover ``title=``, a page title, a nav or table-of-contents item, the text of a back-link, any
attribute value. Themes insert titles as HTML, so the text is escaped, never trusted.
"""

from __future__ import annotations

from html import escape

from refbook.ir import Inlines, Link, Span, Styled, Text, margin_gap
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES, safe_url
from refbook.render.text import one_line, to_line

_TAGS = {
    "emph": ("<em>", "</em>"),
    "strong": ("<strong>", "</strong>"),
    "smallcaps": ('<span style="font-variant:small-caps">', "</span>"),
    "sup": ("<sup>", "</sup>"),
    "sub": ("<sub>", "</sub>"),
    "code": ("<code>", "</code>"),
    "underline": ('<span style="text-decoration:underline">', "</span>"),
    "nocase": ("", ""),
}


#: follows each "<" of a title: invisible, and no tag can start with it
WORD_JOINER = "\u2060"


def escape_title(text: str) -> str:
    """Plain ``text`` as one line of HTML, safe in element text and in a quoted attribute.

    ``& < > " '`` are all escaped, so the result means the same text in either context (a theme
    may put a title into ``title="…"`` or ``aria-label='…'`` as well as into a ``<a>``). Each
    ``<`` is followed by an invisible word joiner: a template that unescapes a title before
    writing it (Jinja's ``striptags`` does, and Material for MkDocs writes
    ``<title>{{ page.title | striptags }}</title>``) still gets no tag and no ``</title>``.
    """
    return escape(one_line(text).replace("<", "<" + WORD_JOINER), quote=True)


def to_title(nodes: Inlines) -> str:
    """Entry text for an HTML title, nav or toc item, tooltip or attribute: :func:`escape_title`
    of the plain text (emphasis, links and the like dropped)."""
    return escape_title(to_line(nodes))


def to_html(nodes: Inlines) -> str:
    out: list[str] = []
    _walk(nodes, out, 0)
    return "".join(out)


def _walk(nodes: Inlines, out: list[str], qdepth: int) -> None:
    for n in nodes:
        if isinstance(n, Text):
            out.append(escape(n.text, quote=True))
        elif isinstance(n, Styled):
            if n.kind == "quoted":
                out.append(OPEN_QUOTES[qdepth % 2])
                _walk(n.children, out, qdepth + 1)
                out.append(CLOSE_QUOTES[qdepth % 2])
                continue
            start, end = _TAGS[n.kind]
            out.append(start)
            _walk(n.children, out, qdepth)
            out.append(end)
        elif isinstance(n, Link):
            url = safe_url(n.url)
            if url is None:
                _walk(n.children, out, qdepth)
                continue
            out.append(f'<a href="{escape(url, quote=True)}">')
            _walk(n.children, out, qdepth)
            out.append("</a>")
        elif isinstance(n, Span) and n.role in ("group", "raised"):
            # a brace group of a field, a superscript character's letters inside <sup>: no
            # element of their own
            _walk(n.children, out, qdepth)
        elif isinstance(n, Span):
            role = escape(n.role, quote=True)
            # a math span's key is its TeX source, no entry key
            key = f' data-key="{escape(n.key, quote=True)}"' if n.key and n.role != "math" else ""
            out.append(f'<span class="refbook-{role}"{key}>')
            _walk(n.children, out, qdepth)
            out.append("</span>")
            if n.role == "csl-left-margin":
                out.append(margin_gap(n.children))
