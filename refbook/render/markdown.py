"""Markdown renderer: what ``refbook render --format markdown`` prints, one paragraph per entry.

Bibliography text is untrusted, so each entry is one line of inline text that CommonMark,
Python-Markdown (with its usual extensions) and Pandoc all read as one paragraph holding the same
text: a line break in a value (``\\\\``, ``\\newline``) becomes a space, so nothing a value holds
can start a heading, list, quote, code block, table, HTML block or link reference definition;
markup characters are escaped; only http(s) links are links, with a percent-encoded destination
(a space or a quote in a URL never starts a link title).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from refbook.ir import Inline, Inlines, Link, Span, Styled, Text, margin_gap, raised_original
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES, safe_url

# Backslash escapes work alike in CommonMark and Python-Markdown for these; "<" and "&" become
# character references (Python-Markdown keeps the backslash of "\<"), and so do characters that
# only extensions read as markup (Pandoc's sub/superscript and line blocks, math, citations),
# since Python-Markdown without those extensions would show their backslash.
_ESCAPES = {c: "\\" + c for c in "\\`*_{}[]>#!"} | {
    "<": "&lt;", "&": "&amp;", "~": "&#126;", "^": "&#94;", "$": "&#36;", "@": "&#64;",
    "|": "&#124;",
}
_SPECIAL = re.compile("[" + re.escape("".join(_ESCAPES)) + "]")
# ASCII whitespace, control characters and the Unicode line separators: one space (a line break
# is where block syntax starts); no-break spaces are kept
_BREAKS = re.compile("[\x00-\x20\x7f-\x9f\u2028\u2029]+")
# what makes the start of a line a block: list markers (1. 1) a) iv.), a dash, plus or bang
# (list, rule, front matter, admonition), a dot ("..." ends Python-Markdown's meta-data at the
# top of a page, and the line with it), a colon (definition), a percent sign (Pandoc title),
# and "key:" (MultiMarkdown meta-data, which MkDocs reads at the top of a page)
_BLOCK_START = re.compile(
    r"^(?:(?:[0-9]+|[A-Za-z]|[ivxlcdmIVXLCDM]+)(?P<delim>[.)])(?= |$)"
    r"|(?P<mark>[-+!.])|(?P<entity>[:%])|[A-Za-z0-9_-]+(?P<colon>:))")
# what cannot follow an opening or precede a closing emphasis mark
_SPACES = " \u00a0"
_MARKS = {"emph": "*", "strong": "**", "code": "", "nocase": "", "smallcaps": "",
          "underline": "", "sup": "^", "sub": "~"}
# characters a link destination keeps as they are; everything else (spaces of any kind, quotes,
# parentheses, angle brackets, backslashes, non-ASCII) is percent-encoded, and "&" is written
# "&amp;" (parsers decode character references in a destination: "&lt;" would become "<")
_URL_SAFE = "-._~:/?#[]@!$&+,;=%*"


def escape_markdown(text: str) -> str:
    """``text`` as inline Markdown that shows exactly ``text`` (line breaks become spaces)."""
    return _SPECIAL.sub(lambda m: _ESCAPES[m.group(0)], _BREAKS.sub(" ", text))


def markdown_url(url: str) -> str:
    """A link destination for ``url``: percent-encoded so that it is one unbroken token."""
    return quote(url, safe=_URL_SAFE).replace("&", "&amp;")


def to_markdown(nodes: Inlines) -> str:
    out: list[str] = []
    _walk(nodes, out, 0)
    # parsers trim a paragraph, no-break spaces too
    line = _BREAKS.sub(" ", "".join(out)).strip()
    # "]:" after a link's "[" at the start is a link reference definition to Python-Markdown
    # (its label may hold "\]"), which would swallow the entry: the colon becomes a reference
    line = line.replace("]:", "]&#58;")
    return _BLOCK_START.sub(_neutral_start, line, count=1)


def _neutral_start(m: re.Match[str]) -> str:
    text = m.group(0)
    if m.group("delim") or m.group("mark"):
        return text[:-1] + "\\" + text[-1]
    return text[:-1] + f"&#{ord(text[-1])};"


def _merged(nodes: Inlines) -> Inlines:
    """Adjacent runs of the same style as one (``*a**b*`` would not be two emphases)."""
    out: list[Inline] = []
    for n in nodes:
        if isinstance(n, Text) and not n.text:
            continue
        last = out[-1] if out else None
        if (isinstance(n, Styled) and isinstance(last, Styled) and last.kind == n.kind
                and n.kind != "quoted"):
            out[-1] = Styled(n.kind, last.children + n.children)
        else:
            out.append(n)
    return tuple(out)


def _walk(nodes: Inlines, out: list[str], qdepth: int) -> None:
    for n in _merged(nodes):
        if isinstance(n, Text):
            out.append(escape_markdown(n.text))
        elif isinstance(n, Styled):
            if n.kind == "quoted":
                out.append(OPEN_QUOTES[qdepth % 2])
                _walk(n.children, out, qdepth + 1)
                out.append(CLOSE_QUOTES[qdepth % 2])
                continue
            original = raised_original(n.children) if n.kind == "sup" else None
            if original is not None:
                out.append(escape_markdown(original))  # 2º as written, as pandoc writes it
                continue
            parts: list[str] = []
            _walk(n.children, parts, qdepth)
            body = "".join(parts)
            mark = _MARKS.get(n.kind, "")
            core = body.strip(_SPACES)
            if not mark or not core:
                out.append(body)
                continue
            # "* a *" is no emphasis: the spaces go outside the marks
            start = len(body) - len(body.lstrip(_SPACES))
            out.extend((body[:start], mark, core, mark, body[start + len(core):]))
        elif isinstance(n, Link):
            url = safe_url(n.url)
            inner: list[str] = []
            _walk(n.children, inner, qdepth)
            if url is None:
                out.append("".join(inner))
            else:
                out.append(f"[{''.join(inner)}]({markdown_url(url)})")
        elif isinstance(n, Span):
            _walk(n.children, out, qdepth)
            if n.role == "csl-left-margin":
                out.append(margin_gap(n.children))
