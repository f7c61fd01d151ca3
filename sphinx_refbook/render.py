"""IR → docutils nodes: the Sphinx counterpart of ``refbook.render.html``.

Where it sits: the writer turns the core's inline trees (``refbook.ir``) into nodes, never raw
HTML, so every builder (html, latex, epub, text …) renders them. Only http(s) links become
references (``refbook.render.safe_url``); quotes become typographic quotes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes

from refbook.ir import Link, Span, Styled, Text, margin_gap
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES, safe_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from refbook.ir import Inline, Inlines

_ELEMENTS: dict[str, type[nodes.TextElement]] = {
    "emph": nodes.emphasis,
    "strong": nodes.strong,
    "sup": nodes.superscript,
    "sub": nodes.subscript,
    "code": nodes.literal,
}


def item_key(span: Span) -> str:
    """The entry key of a ``cite-item`` span: the key as cited, never parsed (a cited key is
    page text, and one like ``(1+1+…)`` or ``('a', 'x')`` is only an odd key)."""
    return span.key


def to_nodes(ir: Inlines, on_item: Callable[[Span, list[nodes.Node]], list[nodes.Node]] | None = None,
             ) -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for n in ir:
        out.extend(_node(n, on_item, 0))
    return _joined(out)


def _joined(parts: list[nodes.Node]) -> list[nodes.Node]:
    """``parts`` with each run of adjacent texts made one text (a quoted title was three: its
    quotes and its words). Every builder writes a text node's characters as they are, so the
    output is the same, from fewer nodes: each of Sphinx's transforms, its search indexer and
    its writer visits every node of a list page."""
    if len(parts) < 2:
        return parts
    out: list[nodes.Node] = []
    run: list[str] = []
    for part in parts:
        if type(part) is nodes.Text:
            run.append(str(part))
            continue
        if run:
            out.append(nodes.Text("".join(run)))
            run = []
        out.append(part)
    if run:
        out.append(nodes.Text("".join(run)))
    return out


def _node(n: Inline, on_item: Callable[[Span, list[nodes.Node]], list[nodes.Node]] | None,
          qdepth: int) -> list[nodes.Node]:
    if isinstance(n, Text):
        return [nodes.Text(n.text)]
    children = _joined([c for child in n.children for c in _node(child, on_item, qdepth + (
        1 if isinstance(n, Styled) and n.kind == "quoted" else 0))])
    if isinstance(n, Styled):
        if n.kind == "quoted":
            return _joined([nodes.Text(OPEN_QUOTES[qdepth % 2]), *children,
                            nodes.Text(CLOSE_QUOTES[qdepth % 2])])
        if n.kind == "nocase":
            return children
        element = _ELEMENTS.get(n.kind)
        if element is not None:
            return [element("", "", *children)]
        return [nodes.inline("", "", *children, classes=[f"refbook-{n.kind}"])]
    if isinstance(n, Link):
        url = safe_url(n.url)
        if url is None:
            return children
        return [nodes.reference("", "", *children, refuri=url, internal=False)]
    if n.role == "cite-item" and on_item is not None:
        return on_item(n, children)
    if n.role == "csl-left-margin":
        # the class refbook.render.html gives it, which the shared stylesheet styles
        gap = margin_gap(n.children)
        return [nodes.inline("", "", *children, classes=["refbook-csl-left-margin"]),
                *([nodes.Text(gap)] if gap else [])]
    if n.role in _DISPLAYS:
        # CSL display="block" / "indent": the shared stylesheet's classes
        return [nodes.inline("", "", *children, classes=[f"refbook-{n.role}"])]
    return children


#: the CSL display spans refbook.css lays out as blocks (refbook.render.html writes every span
#: as one of class refbook-<role>; the right-inline part beside a left margin needs none)
_DISPLAYS = frozenset(("csl-block", "csl-indent"))
