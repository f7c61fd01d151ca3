"""Pandoc citation syntax in Markdown (MyST) pages: ``[@key]``, ``[see @a, p. 3; @b]``, ``@key``.

Where it sits: a read-time transform over the text of non-reST pages. It joins each run of
sibling text nodes (MyST splits soft line breaks into their own nodes), asks the core
(``refbook.syntax.find_citations``) for citations, and replaces them by ``citation_node``\\ s.
Literal text (inline code, code blocks, raw, math) and link texts are never scanned, so
``user@host`` in code never becomes a citation. Section titles are, as in MkDocs: the heading
shows the formatted citation and back-links name the section by that text.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import FiletypeNotFoundError
from sphinx.transforms import SphinxTransform
from sphinx.util import get_filetype

from refbook.records import replace
from refbook.syntax import find_citations
from sphinx_refbook.config import settings
from sphinx_refbook.nodes import bibliography_node, citation_node, footcite_node
from sphinx_refbook.spec import ListSpec

_MARKER = re.compile(r"^<!--\s*refbook:bibliography(?:\s+(page|all))?\s*-->$")

_SKIP = (nodes.FixedTextElement, nodes.literal, nodes.raw, nodes.comment, nodes.reference,
         nodes.target, nodes.math, nodes.math_block,
         addnodes.pending_xref, addnodes.desc_signature, citation_node, footcite_node,
         nodes.system_message)


def _skipped(node: nodes.Node) -> bool:
    n: nodes.Node | None = node
    while n is not None:
        if isinstance(n, _SKIP):
            return True
        n = n.parent
    return False


class PandocCitations(SphinxTransform):
    """Before smart quotes (priority 750) so the citation text is still as written."""

    default_priority = 400

    def apply(self, **kwargs: Any) -> None:
        if not settings(self.config).pandoc_syntax:
            return
        docname = self.env.docname
        try:
            filetype = get_filetype(self.config.source_suffix, self.env.doc2path(docname))
        except FiletypeNotFoundError:
            return
        if filetype == "restructuredtext":
            return
        self._markers(docname)
        for parent in list(self.document.findall(nodes.TextElement)):
            if "@" in parent.astext() and not _skipped(parent):
                self._scan(parent, docname)

    def _markers(self, docname: str) -> None:
        """The MkDocs plugin's list markers (``<!-- refbook:bibliography [page|all] -->``) work
        here too, so one Markdown page places its list in both hosts."""
        for raw in list(self.document.findall(nodes.raw)):
            m = _MARKER.match(raw.astext().strip())
            if m is None or "html" not in raw.get("format", "").split():
                continue
            scope = {"": "book", "page": "page", "all": "all"}[m.group(1) or ""]
            node = bibliography_node("", spec=ListSpec(docname, 0, scope, "", raw.line or 0))
            node.source, node.line = raw.source, raw.line
            raw.replace_self(node)

    def _scan(self, parent: nodes.TextElement, docname: str) -> None:
        base = parent.line or _line_of(parent)
        i = 0
        lines_before = 0
        while i < len(parent.children):
            if not isinstance(parent.children[i], nodes.Text):
                lines_before += parent.children[i].astext().count("\n")
                i += 1
                continue
            j = i
            while j < len(parent.children) and isinstance(parent.children[j], nodes.Text):
                j += 1
            text = "".join(str(c) for c in parent.children[i:j])
            found = find_citations(text) if "@" in text else []
            if not found:
                lines_before += text.count("\n")
                i = j
                continue
            new: list[nodes.Node] = []
            pos = 0
            for c in found:
                if c.start > pos:
                    new.append(nodes.Text(text[pos:c.start]))
                citation = replace(c, line=base + lines_before + c.line - 1)
                node = citation_node(c.source, nodes.Text(c.source), citation=citation,
                                     form="p" if c.mode == "parenthetical" else "t",
                                     docname=docname)
                node.source, node.line = parent.source, citation.line
                new.append(node)
                pos = c.end
            if pos < len(text):
                new.append(nodes.Text(text[pos:]))
            lines_before += text.count("\n")
            parent[i:j] = new
            i += len(new)


def _line_of(node: nodes.Node) -> int:
    n: nodes.Node | None = node
    while n is not None:
        if n.line:
            return int(n.line)
        n = n.parent
    return 1
