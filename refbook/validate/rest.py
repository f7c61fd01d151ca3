"""What of a reST page is text whose roles Sphinx runs: everything else blanked out.

Where it sits: before the role search of ``refbook check --docs`` on ``.rst`` pages
(:mod:`refbook.validate.citations`). The core never imports docutils, so this reads the page's
blocks by their indentation, as docutils does, in one pass:

- Literal blocks: after a paragraph ending in ``::`` (and the lone ``::``), the lines indented
  past the paragraph's text (or, unindented, a run of lines quoted by one punctuation mark).
- Comments (``..`` not followed by a directive, target, footnote or substitution) and targets
  (``.. _name:``), with their indented blocks.
- Directives whose content is no reST text (:data:`LITERAL_DIRECTIVES`: code, math, raw,
  toctree …) with their blocks; any other directive keeps its arguments and content, which are
  read as the rest of the page (nested directives too), and loses its ``:option:`` lines.
- Inline literals (````…````), by docutils' start- and end-string rules, within a paragraph.

Blanking replaces each character but line breaks by a space, so a role's offset and line in
the result are those in the page.
"""

from __future__ import annotations

import re

__all__ = ["LITERAL_DIRECTIVES", "rst_prose"]

#: directives whose content (and arguments) Sphinx does not parse as reST text
LITERAL_DIRECTIVES = frozenset({
    "code-block", "code", "sourcecode", "literalinclude", "highlight", "math", "raw",
    "doctest", "testcode", "testoutput", "testsetup", "testcleanup", "ipython",
    "jupyter-execute", "code-cell", "graphviz", "graph", "digraph", "inheritance-diagram",
    "mermaid", "plantuml", "uml", "productionlist", "tikz", "plot", "toctree", "index",
    "autosummary", "bibliography", "footbibliography", "include", "prompt", "program-output",
    "command-output", "exec", "image",
})

_EXPLICIT = re.compile(r"^([ \t]*)\.\.(?=[ \t]|$)")
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+(?:\|[^|]+\|[ \t]+)?([\w][\w:.+-]*?)::(?=[ \t]|$)")
_TARGET_OR_NOTE = re.compile(r"^[ \t]*\.\.[ \t]+(?:_|\[|\|)")
_OPTION = re.compile(r"^[ \t]*:[^:`\s][^:`]*:(?=[ \t]|$)")
_MARKER = re.compile(r"^[ \t]*(?:[-*+\u2022\u2023\u2043][ \t]+|(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)"
                     r"[.)][ \t]+|\((?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)\)[ \t]+)")
_LITERAL_END = re.compile(r"(?<!\\)(?:\\\\)*::[ \t]*$")
_QUOTE_CHARS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _spaces(line: str) -> str:
    return " " * len(line)


def _text_column(line: str) -> int:
    """Where the line's text starts: after a list marker in a list item's first line."""
    m = _MARKER.match(line)
    return m.end() if m else _indent(line)


def rst_prose(text: str) -> str:
    """``text`` with all but the inline-parsed text of a reST page blanked (lines kept)."""
    lines = text.split("\n")
    out = list(lines)
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        indent = _indent(line)
        explicit = _EXPLICIT.match(line)
        if explicit:
            directive = _DIRECTIVE.match(line)
            if directive is None or directive.group(1).lower() in LITERAL_DIRECTIVES:
                # a comment, target, footnote or code directive: only footnotes are text
                if _TARGET_OR_NOTE.match(line) and line.lstrip()[3:4] == "[":
                    out[i] = " " * explicit.end() + line[explicit.end():]
                    i += 1
                    continue
                if directive is None and line.strip() == ".." and (
                        i + 1 >= n or not lines[i + 1].strip()):
                    out[i] = _spaces(line)  # an empty comment ends a list; what follows is text
                    i += 1
                    continue
                if (directive is None and _TARGET_OR_NOTE.match(line)
                        and line.lstrip()[3:4] == "|"):
                    i += 1  # a substitution without directive: an error docutils reports
                    continue
                i = _blank_block(lines, out, i, indent)
                continue
            out[i] = " " * directive.end() + line[directive.end():]
            i = _blank_options(lines, out, i + 1, indent)
            continue
        if _LITERAL_END.search(line) and (i + 1 >= n or not lines[i + 1].strip()):
            i = _blank_literal(lines, out, i + 1, _text_column(line))
            continue
        i += 1
    return mask_inline_literals("\n".join(out))


def _blank_block(lines: list[str], out: list[str], i: int, indent: int) -> int:
    """Blank line ``i`` and the block indented past ``indent`` after it; the next line's index."""
    out[i] = _spaces(lines[i])
    i += 1
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        out[i] = _spaces(lines[i])
        i += 1
    return i


def _blank_options(lines: list[str], out: list[str], i: int, indent: int) -> int:
    """A directive's ``:option:`` lines (and their continuation lines) right after its first
    line, blanked; the index of its first content line."""
    option_indent = -1
    while i < len(lines) and lines[i].strip() and _indent(lines[i]) > indent:
        if _OPTION.match(lines[i]):
            option_indent = _indent(lines[i])
        elif option_indent < 0 or _indent(lines[i]) <= option_indent:
            break  # text right under the directive's first line: its content
        out[i] = _spaces(lines[i])
        i += 1
    return i


def _blank_literal(lines: list[str], out: list[str], i: int, column: int) -> int:
    """The literal block after a ``::`` paragraph whose text starts at ``column``, blanked."""
    n = len(lines)
    first = i
    while first < n and not lines[first].strip():
        first += 1
    if first >= n:
        return first
    if _indent(lines[first]) > column:
        while first < n and (not lines[first].strip() or _indent(lines[first]) > column):
            out[first] = _spaces(lines[first])
            first += 1
        return first
    quote = lines[first].lstrip()[:1]
    if _indent(lines[first]) == column and quote in _QUOTE_CHARS:
        while first < n and lines[first].strip() and lines[first].lstrip()[:1] == quote:
            out[first] = _spaces(lines[first])
            first += 1
    return first


# docutils' inline markup recognition rules: what may stand before a start-string and after an
# end-string (white space, or some punctuation)
_BEFORE = frozenset(" \t\n'\"([{<-/:\u2018\u201c\u2019\u00ab\u00a1\u00bf\u2010\u2011\u2012\u2013"
                    "\u2014\u00a0")
_AFTER = frozenset(" \t\n'\")]}>-/:.,;!?\\\u2019\u201d\u00bb\u2010\u2011\u2012\u2013\u2014"
                   "\u00a0")


def mask_inline_literals(text: str) -> str:
    """``text`` with its inline literals (````…````) blanked, in one pass: a start-string after
    white space or an opening mark and before a non-space, closed by the first end-string
    after a non-space and before white space or punctuation, in the same paragraph."""
    spans: list[tuple[int, int]] = []
    start = -1
    for m in re.finditer(r"`{2,}|\n[ \t]*(?=\n)", text):
        if m.group(0).startswith("\n"):
            start = -1  # a blank line ends the paragraph: no literal crosses it
            continue
        a, b = m.start(), m.end()
        if start < 0:
            escaped = a > 0 and text[a - 1] == "\\"
            if (a == 0 or text[a - 1] in _BEFORE) and not escaped and b < len(text) and (
                    not text[a + 2].isspace()):
                start = a
            continue
        # the end-string is the run's last two backticks
        end = b - 2
        if not text[end - 1].isspace() and (b == len(text) or text[b] in _AFTER):
            spans.append((start, b))
            start = -1
    if not spans:
        return text
    parts: list[str] = []
    last = 0
    for a, b in spans:
        parts += [text[last:a], re.sub(r"[^\n]", " ", text[a:b])]
        last = b
    parts.append(text[last:])
    return "".join(parts)
