"""Plain-text renderer: what ``refbook render --format text`` prints."""

from __future__ import annotations

from refbook.ir import Inlines, Link, Span, Styled, Text
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES


def to_text(nodes: Inlines) -> str:
    out: list[str] = []
    _walk(nodes, out, 0)
    return "".join(out)


def _walk(nodes: Inlines, out: list[str], qdepth: int) -> None:
    for n in nodes:
        if isinstance(n, Text):
            out.append(n.text)
        elif isinstance(n, Styled) and n.kind == "quoted":
            out.append(OPEN_QUOTES[qdepth % 2])
            _walk(n.children, out, qdepth + 1)
            out.append(CLOSE_QUOTES[qdepth % 2])
        elif isinstance(n, Styled) and n.kind == "smallcaps":
            # plain text has no small capitals: write them as capitals (as pandoc's plain writer)
            inner: list[str] = []
            _walk(n.children, inner, qdepth)
            out.append("".join(inner).upper())
        elif isinstance(n, Span) and n.role == "csl-left-margin":
            _walk(n.children, out, qdepth)
            out.append(" ")
        elif isinstance(n, Styled | Link | Span):
            _walk(n.children, out, qdepth)
