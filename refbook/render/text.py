"""Plain-text renderer: what ``refbook render --format text`` prints.

:func:`to_line` is the one-line form the hosts show where only text fits (a hover title, a page
title, a table-of-contents item); :func:`refbook.render.html.to_title` escapes it for HTML.
"""

from __future__ import annotations

import re

from refbook.ir import Inlines, Link, Span, Styled, Text, margin_gap, raised_original
from refbook.render import CLOSE_QUOTES, OPEN_QUOTES

#: CSL display values that put their text on a line of its own
_BLOCKS = frozenset(("csl-block", "csl-indent"))


def to_text(nodes: Inlines) -> str:
    out: list[str] = []
    _walk(nodes, out, 0)
    text = "".join(out)
    if any(type(piece) is _Break for piece in out):
        # a display block on a line of its own (pandoc's plain writer), no space at a line's end
        text = "\n".join(line.rstrip(" ") for line in text.split("\n")).strip("\n")
    return text


class _Break(str):
    """Where a display block starts or ends (told from a field's own line breaks by type)."""

    __slots__ = ()


_BLOCK_BREAK = _Break("\n")


# C0 and C1 control characters and DEL: meaningless in a line of text, and an HTML parser
# rejects or rewrites most of them (a NUL becomes U+FFFD)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def one_line(text: str) -> str:
    """``text`` on one line: control characters and runs of whitespace become one space."""
    return " ".join(_CONTROL.sub(" ", text).split())


def to_line(nodes: Inlines) -> str:
    """The plain text of ``nodes`` on one line (see :func:`one_line`)."""
    return one_line(to_text(nodes))


# pandoc's plain writer: a superscript or subscript whose every character has a Unicode form is
# written in those characters (R⁵, H₂O), any other as ``^(…)``/``_(…)`` (9^(th)).
_SUPERSCRIPTS = dict(zip("0123456789+-\u2212=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾", strict=True))
_SUBSCRIPTS = dict(zip("0123456789+-\u2212=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎", strict=True))


def _script(children: Inlines, kind: str, qdepth: int) -> str:
    original = raised_original(children) if kind == "sup" else None
    if original is not None:
        return original  # 2º, DDᴳ as written (pandoc's plain output)
    inner: list[str] = []
    _walk(children, inner, qdepth)
    text = "".join(inner)
    table = _SUPERSCRIPTS if kind == "sup" else _SUBSCRIPTS
    if text and all(c in table or c.isspace() for c in text):
        return "".join(table.get(c, c) for c in text)
    return ("^(" if kind == "sup" else "_(") + text + ")"


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
        elif isinstance(n, Styled) and n.kind in ("sup", "sub"):
            out.append(_script(n.children, n.kind, qdepth))
        elif isinstance(n, Span) and n.role in _BLOCKS:
            out.append(_BLOCK_BREAK)
            _walk(n.children, out, qdepth)
            out.append(_BLOCK_BREAK)
        elif isinstance(n, Span) and n.role == "csl-left-margin":
            _walk(n.children, out, qdepth)
            out.append(margin_gap(n.children))
        elif isinstance(n, (Styled, Link, Span)):
            _walk(n.children, out, qdepth)
