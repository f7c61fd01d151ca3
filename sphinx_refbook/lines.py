"""A reST citation's own line: the line its role starts on, not its paragraph's first line.

Where it sits: read time, right after the parser. Docutils calls every role of a paragraph with
the paragraph's first line (MyST gives each role its own line), so the roles leave their
``citation_node`` / ``footcite_node`` — and the problems found in a role, held back — at that
line, and :class:`CitationLines` moves each to the line its role starts on: the text element
that holds the role (a paragraph, a list item's or a table cell's paragraph, a term, a line of
a line block …) keeps its source (``rawsource``) and its own line; the role's place in that
source, found past every inline element before it (an inline literal showing the same role, the
same role written earlier), gives the number of lines to add. Then the held-back problems are
reported, at their line.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst.states import Inliner
from sphinx.transforms import SphinxTransform

from sphinx_refbook import report

if TYPE_CHECKING:
    from docutils.nodes import Element

__all__ = ["CitationLines", "hold_problem", "mark_rst"]

#: the node attribute naming a role that docutils' reST parser read (its line is the paragraph's)
RST = "refbook_rst"
#: the node attribute holding a role's problems, reported once the role's line is known
PROBLEMS = "refbook_problems"


def mark_rst(node: Element, inliner: Any) -> None:
    """Mark ``node`` as a role of a reST page (MyST gives roles their own line already)."""
    if isinstance(inliner, Inliner):
        node[RST] = True


def hold_problem(node: Element, slug: str, text: str, line: int) -> None:
    """Keep a problem of a role on its node until :class:`CitationLines` knows the role's line."""
    node[PROBLEMS] = (*node.get(PROBLEMS, ()), (slug, text, line))


class CitationLines(SphinxTransform):
    """Each reST citation at the line its role starts on; then the roles' problems, reported."""

    # before docutils' substitutions (220) copy a substitution's text, roles included, elsewhere
    default_priority = 200

    def apply(self, **kwargs: Any) -> None:
        from sphinx_refbook.domain import domain_of

        def marked(node: nodes.Node) -> bool:
            return isinstance(node, nodes.Element) and (RST in node or PROBLEMS in node)

        found = list(self.document.findall(marked))
        hosts: dict[int, Element] = {}
        for node in found:
            if node.get(RST):
                host = _text_host(node)
                if host is not None:
                    hosts.setdefault(id(host), host)
        moved: dict[int, int] = {}
        for host in hosts.values():
            moved.update(_offsets(host))
        for node in found:
            shift = moved.get(id(node))
            host = _text_host(node) if shift is not None else None
            line = _line(node)
            if shift is not None and host is not None:
                line = _base(host, node, self.document) + shift
                if "citation" in node:
                    node["citation"] = replace(node["citation"], line=line)
                node.line = line
            for slug, text, role_line in node.get(PROBLEMS, ()):
                where = (self.env.docname, line if shift is not None else role_line)
                if report.warn(slug, text, where, self.env):
                    domain_of(self.env).note_problem(self.env.docname, slug, text, where[1])
            node.attributes.pop(PROBLEMS, None)
            node.attributes.pop(RST, None)


def _line(node: Element) -> int:
    citation = node.get("citation")
    if citation is not None:
        return int(citation.line)
    return int(node.line or 0)


def _text_host(node: Element) -> Element | None:
    """The text element whose source holds the role: the nearest one with a ``rawsource``."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.TextElement) and not isinstance(parent, nodes.Inline):
            return parent if parent.rawsource else None
        parent = parent.parent
    return None


def _base(host: Element, node: Element, document: nodes.document) -> int:
    """The host's first line: its own (right in table cells too, where docutils gives the
    roles another), or the role's where the host came from another file (an include)."""
    if host.line and (host.source is None or host.source == document.get("source")):
        return int(host.line)
    return _line(node)


def _offsets(host: Element) -> dict[int, int]:
    """For each marked role in ``host``: the lines between the host's first line and it."""
    source = host.rawsource
    out: dict[int, int] = {}
    pos = 0

    def walk(element: Element) -> None:
        nonlocal pos
        for child in element.children:
            if not isinstance(child, nodes.Element):
                continue
            raw = child.rawsource
            if isinstance(child, nodes.Inline) and raw:
                at = _find(source, raw, pos)
                if at < 0:
                    continue
                if child.get(RST):
                    out[id(child)] = source.count("\n", 0, at)
                pos = at + len(raw)
            else:
                walk(child)

    walk(host)
    return out


def _find(text: str, sub: str, start: int) -> int:
    """The first ``sub`` in ``text`` from ``start`` that no backslash escapes (``\\:cite:``)."""
    at = text.find(sub, start)
    while at > 0:
        before = at
        while before > 0 and text[before - 1] == "\\":
            before -= 1
        if (at - before) % 2 == 0:
            break
        at = text.find(sub, at + 1)
    return at
