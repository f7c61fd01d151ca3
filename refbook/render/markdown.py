"""Markdown renderer (CommonMark). Text is backslash-escaped; only http(s) links are links."""

from __future__ import annotations

import re

from refbook.ir import Inlines, Link, Span, Styled, Text
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES, safe_url

_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~@$&])")
_MARKS = {"emph": "*", "strong": "**", "code": "", "nocase": "", "smallcaps": "",
          "underline": "", "sup": "^", "sub": "~"}


def escape_markdown(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


def to_markdown(nodes: Inlines) -> str:
    out: list[str] = []
    _walk(nodes, out, 0)
    # an entry starting with "1." or "-" would become a list item
    return re.sub(r"^(\d+)\.|^([-+])", lambda m: (m.group(1) or "") + "\\" + ("." if m.group(1) else m.group(2)), "".join(out))


def _walk(nodes: Inlines, out: list[str], qdepth: int) -> None:
    for n in nodes:
        if isinstance(n, Text):
            out.append(escape_markdown(n.text))
        elif isinstance(n, Styled):
            if n.kind == "quoted":
                out.append(OPEN_QUOTES[qdepth % 2])
                _walk(n.children, out, qdepth + 1)
                out.append(CLOSE_QUOTES[qdepth % 2])
                continue
            mark = _MARKS.get(n.kind, "")
            out.append(mark)
            _walk(n.children, out, qdepth)
            out.append(mark)
        elif isinstance(n, Link):
            url = safe_url(n.url)
            inner: list[str] = []
            _walk(n.children, inner, qdepth)
            if url is None:
                out.append("".join(inner))
            else:
                target = url.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
                out.append(f"[{''.join(inner)}]({target})")
        elif isinstance(n, Span):
            _walk(n.children, out, qdepth)
            if n.role == "csl-left-margin":
                out.append(" ")
