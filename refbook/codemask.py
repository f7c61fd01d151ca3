"""Code in Markdown blanked out, in linear time, so citation scanners skip it.

Where it sits: before :func:`refbook.syntax.find_citations` wherever a whole Markdown page is
scanned (the MkDocs plugin's line numbers, ``refbook check --docs``; indented code as the
MkDocs plugin reads it: :func:`mask_indented_code`). Blanking replaces every
character but ``\\n`` by a space, so offsets and line numbers stay those of the page.

Both scanners walk the text once. The regular expressions they replace were cubic on a page of
backticks (each opener retried every shorter run and rescanned the rest of the page).

- Fenced code (:func:`fenced_blocks`): a line with at most three spaces, then three or more
  backticks or tildes, opens a block that the next line starting (after at most three spaces)
  with at least as many of the same character closes (to the end of the text if none does);
  a backtick fence's info string holds no backtick.
- Code spans (:func:`code_spans`, the CommonMark rule): a run of N backticks opens a span that
  the next run of exactly N backticks in the same paragraph (or table row) closes; an opener
  without one is plain text. A backslash escapes a backtick outside a span, never inside one.
"""

from __future__ import annotations

import re

__all__ = ["blank", "code_spans", "fenced_blocks", "mask_code", "mask_code_spans",
           "mask_fenced_blocks", "mask_indented_code", "mask_mkdocs_code"]

_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})")


def blank(text: str) -> str:
    """``text`` with every character but line breaks replaced by a space."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        out += [text[last:start], blank(text[start:end])]
        last = end
    out.append(text[last:])
    return "".join(out)


def fenced_blocks(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of fenced code blocks, each from its opening line's start to
    its closing line's end (or the text's end when it is never closed)."""
    spans: list[tuple[int, int]] = []
    fence = ""
    start = 0
    pos = 0
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                spans.append((start, pos + len(line)))
                fence = ""
        elif m and not (m.group(1)[0] == "`" and "`" in line[m.end():]):
            # (a backtick fence's info string has no backtick: "```a``` b" is a code span)
            fence, start = m.group(1), pos
        pos += len(line) + 1
    if fence:
        spans.append((start, len(text)))
    return spans


def _runs(text: str) -> list[tuple[int, int]]:
    """Every maximal run of backticks as (start, length), in order."""
    return [(m.start(), m.end() - m.start()) for m in re.finditer("`+", text)]


def _breaks(text: str) -> list[int]:
    """Offsets of the line breaks no code span crosses: those next to a blank line (a paragraph
    ends there) or to a table row (each row, and each cell, is parsed on its own)."""
    breaks: list[int] = []
    pos = 0
    before = "blank"
    for line in text.split("\n"):
        stripped = line.strip()
        kind = "blank" if not stripped else "row" if stripped.startswith("|") else "text"
        if pos and (kind != "text" or before != "text"):
            breaks.append(pos - 1)
        before = kind
        pos += len(line) + 1
    return breaks


def code_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of code spans, backticks included (see the module docstring).

    Runs are found once and indexed by length; a cursor per length only moves forward, so
    finding every closer costs one pass in all.
    """
    runs = _runs(text)
    if len(runs) < 2:
        return []
    by_length: dict[int, list[int]] = {}
    for start, length in runs:
        by_length.setdefault(length, []).append(start)
    cursor = dict.fromkeys(by_length, 0)
    breaks = _breaks(text)
    next_break = 0
    spans: list[tuple[int, int]] = []
    pos = 0  # text before pos is inside a span already found
    for start, length in runs:
        if start < pos:
            continue
        # backslashes right before the run: an odd number escapes its first backtick
        k = start
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        if (start - k) % 2 == 1:
            start += 1
            length -= 1
            if length == 0:
                continue
        while next_break < len(breaks) and breaks[next_break] < start:
            next_break += 1
        limit = breaks[next_break] if next_break < len(breaks) else len(text)
        starts = by_length.get(length, [])
        j = cursor.get(length, 0)
        while j < len(starts) and starts[j] <= start:
            j += 1
        cursor[length] = j
        if j < len(starts) and starts[j] < limit:
            end = starts[j] + length
            spans.append((start, end))
            pos = end
    return spans


def mask_code_spans(text: str) -> str:
    """``text`` with its code spans blanked out."""
    return _replace(text, code_spans(text))


def mask_fenced_blocks(text: str) -> str:
    """``text`` with its fenced code blocks blanked out."""
    return _replace(text, fenced_blocks(text))


# a line that opens a block whose body is indented: a list item, an admonition, a content tab
_CONTAINER = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|(?:!!!|\?\?\?\+?|===)[ \t]")


def mask_indented_code(markdown: str) -> str:
    """Indented code blocks blanked out (lines kept), after fenced code and before code spans
    (see :func:`mask_mkdocs_code`). Indented lines that belong to a list item, an admonition or a
    content tab are not code."""
    out: list[str] = []
    blank_before, in_code, in_container = True, False, False
    for line in markdown.splitlines(keepends=True):
        if not line.strip():
            out.append(line)
            blank_before = True
            continue
        indented = line.startswith(("    ", "\t"))
        if indented and (in_code or (blank_before and not in_container)):
            in_code = True
            out.append(re.sub(r"[^\n]", " ", line))
        else:
            in_code = False
            if not indented:
                in_container = bool(_CONTAINER.match(line)) or (in_container and not blank_before)
            out.append(line)
        blank_before = False
    return "".join(out)


def mask_mkdocs_code(markdown: str) -> str:
    """Fenced code, indented code and code spans blanked out, as the MkDocs plugin reads a page
    (Python-Markdown never parses citations there). Code spans go last: a line that starts
    with a code span is not indented code."""
    return mask_code_spans(mask_indented_code(mask_fenced_blocks(markdown)))


def mask_code(markdown: str) -> str:
    """Fenced code blocks, then code spans in what is left, blanked out. (The MkDocs plugin
    masks indented code between the two steps.)"""
    return mask_code_spans(mask_fenced_blocks(markdown))
