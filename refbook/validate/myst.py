"""What of a Markdown page is text: fenced code blanked out, MyST directive fences kept.

Where it sits: before the citation search of ``refbook check --docs`` on Markdown pages
(:mod:`refbook.validate.citations`). In a plain Markdown page (MkDocs) every fenced block is
code. In a MyST page (a Sphinx project's Markdown) a fence whose info string is a directive,
```` ```{note} ```` or ``:::{note}``, holds text that MyST parses — its ``:option:`` lines and
YAML block aside — unless the directive holds code (the reST list,
:data:`refbook.validate.rest.LITERAL_DIRECTIVES`, and ``eval-rst``); fences nest, a closing
fence ending the innermost open one.

Blanking replaces each character but line breaks by a space: offsets and lines stay the page's.
"""

from __future__ import annotations

import re

from refbook.validate.rest import LITERAL_DIRECTIVES

__all__ = ["markdown_prose_blocks"]

_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,}|:{3,})[ \t]*(?P<info>[^\n]*)$")
_DIRECTIVE = re.compile(r"\{(?P<name>[\w][\w:.+-]*)\}")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")
_MYST_LITERAL = LITERAL_DIRECTIVES | {"eval-rst", "mermaid", "card-code"}


def markdown_prose_blocks(text: str, *, myst: bool = False) -> str:
    """``text`` with fenced code blanked; with ``myst``, text directive fences kept."""
    lines = text.split("\n")
    out: list[str] = []
    # open fences, innermost last: (character, length, is text)
    stack: list[tuple[str, int, bool]] = []
    options = False  # right after a text directive's opening line: its options
    yaml = False
    for line in lines:
        m = _FENCE.match(line)
        inside_text = not stack or stack[-1][2]
        if m is not None and stack:
            char, length, _ = stack[-1]
            fence = m.group("fence")
            if fence[0] == char and len(fence) >= length and not m.group("info").strip():
                stack.pop()
                out.append(" " * len(line))
                options = yaml = False
                continue
        if not inside_text:
            out.append(" " * len(line))
            continue
        if m is not None and (m.group("fence")[0] != ":" or myst):
            fence, info = m.group("fence"), m.group("info")
            if fence[0] == "`" and "`" in info:
                out.append(line)  # "```a``` b": a code span, not a fence
                continue
            d = _DIRECTIVE.match(info.strip())
            text_block = bool(myst and d and d.group("name").lower() not in _MYST_LITERAL)
            if fence[0] == ":" and not d:
                out.append(line)
                continue
            stack.append((fence[0], len(fence), text_block))
            out.append(" " * len(line) if not text_block else
                       " " * (len(line) - len(info.lstrip())) + _after_name(info.lstrip()))
            options = text_block
            yaml = False
            continue
        if options:
            if line.strip() == "---":
                yaml = not yaml
                out.append(" " * len(line))
                continue
            if yaml or _OPTION.match(line):
                out.append(" " * len(line))
                continue
            options = False
        out.append(line)
    return "\n".join(out)


def _after_name(info: str) -> str:
    """A directive fence's info string with ``{name}`` blanked: its argument is text (a
    title), as in reST."""
    m = _DIRECTIVE.match(info)
    return " " * m.end() + info[m.end():] if m else " " * len(info)
