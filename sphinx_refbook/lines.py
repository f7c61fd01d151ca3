"""A citation role's own line: the line it starts on, not its paragraph's first line.

Where it sits: read time, right after the parser. Docutils and MyST call every role of a
paragraph with the paragraph's first line, so the roles leave their ``citation_node`` /
``footcite_node`` — and the problems found in a role, held back — at that line, with the role
as the page writes it (``:cite:p:`k``` in reST, ``{cite:p}`k``` in MyST), and
:class:`CitationLines` moves each to the line its role starts on: the text element
that holds the role (a paragraph, a list item's or a table cell's paragraph, a term, a line of
a line block …) keeps its source (``rawsource``) and its own line; the role's place in that
source, found past every inline element before it (an inline literal showing the same role, the
same role written earlier), gives the number of lines to add. Then the held-back problems are
reported, at their line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst.states import Inliner
from sphinx.transforms import SphinxTransform

from refbook.records import replace
from sphinx_refbook import report

if TYPE_CHECKING:
    from docutils.nodes import Element
    from sphinx.util.docutils import SphinxRole

__all__ = ["CitationLines", "hold_problem", "mark_role"]

#: the node attribute holding a role as the page writes it (its line is the paragraph's)
SOURCE = "refbook_role_source"
#: the node attribute holding a role's problems, reported once the role's line is known
PROBLEMS = "refbook_problems"


def mark_role(node: Element, role: SphinxRole) -> None:
    """Keep on ``node`` its role as the page writes it, to find it in its paragraph's source."""
    if isinstance(role.inliner, Inliner):
        node[SOURCE] = role.rawtext
    else:  # MyST passes the role as reST (":cite:p:`k`"); its page has "{cite:p}`k`"
        node[SOURCE] = f"{{{role.name}}}`{role.text}`"


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
            return isinstance(node, nodes.Element) and (SOURCE in node or PROBLEMS in node)

        found = list(self.document.findall(marked))
        hosts: dict[int, Element] = {}
        for node in found:
            if node.get(SOURCE):
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
            node.attributes.pop(SOURCE, None)


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
            raw = child.get(SOURCE) or child.rawsource
            if isinstance(child, nodes.Inline) and raw:
                at = _find(source, raw, pos)
                if at < 0:
                    continue
                if child.get(SOURCE):
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
