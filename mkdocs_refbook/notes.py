"""Note styles in MkDocs: every citation of a page becomes a footnote.

Where it sits: inside the plugin's page rendering, on the page's Markdown and on the tree the
footnotes extension (Python-Markdown's ``footnotes``) builds. With a note style (``class="note"``,
e.g. Chicago notes-bibliography) each citation of the running text is replaced by a footnote
reference ``[^refbook-note-<n>]`` whose definition, added at the end of the page, holds the
citation's formatted note (linked to its entry) — the footnotes extension then makes the page's
footnote list, as the ``footnotes`` output (mkdocs-bibtex's form) does. A narrative citation
(``@key says``) keeps its author in the text. A citation written inside a footnote definition is
left to the citation extension and printed there, in parentheses (no footnote in a footnote).

Notes are numbered in reading order with the page's own footnotes (:func:`note_numbers`), the
numbers the core's cite positions use (``refbook.notes``); Python-Markdown numbers footnotes in
the order of their definitions, so :func:`renumber` puts the list in reading order.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from refbook.records import record

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET
    from collections.abc import Callable, Sequence

    from refbook.syntax import Citation

#: a note's footnote label
NOTE_LABEL = "refbook-note-{n}"
#: punctuation a note's mark is put after (pandoc's ``notes-after-punctuation``)
NOTE_PUNCTUATION = frozenset(".,;:!?")

_DEFINITION = re.compile(r"^ {0,3}\[\^([^\]\n]+)\]:", re.M)
_REFERENCE = re.compile(r"\[\^([^\]\n]+)\](?!:)")
_BACK_TITLE = re.compile(r"\d+")


@record(frozen=True)
class Placed:
    """Where a page's citation is printed: its note number and whether it is written inside a
    footnote definition (then printed there, in parentheses)."""

    note: int
    in_note: bool


def definitions(masked: str) -> list[tuple[int, int, str]]:
    """(start, end, label) of each footnote definition of a page's Markdown (code masked out):
    its first line and the indented (or lazily continued) lines after it."""
    out: list[tuple[int, int, str]] = []
    starts = list(_DEFINITION.finditer(masked))
    for i, m in enumerate(starts):
        limit = starts[i + 1].start() if i + 1 < len(starts) else len(masked)
        pos = masked.find("\n", m.end())
        end = limit if pos < 0 else pos
        blank = False
        while pos >= 0 and pos < limit:
            nxt = masked.find("\n", pos + 1)
            line = masked[pos + 1:nxt if nxt >= 0 else len(masked)]
            if not line.strip():
                blank = True
            elif line.startswith(("    ", "\t")) or not blank:
                end = nxt if nxt >= 0 else len(masked)
                blank = False
            else:
                break
            pos = nxt
        out.append((m.start(), min(end, limit), m.group(1)))
    return out


def note_numbers(masked: str, citations: Sequence[Citation]) -> list[Placed]:
    """The note of each citation (offsets of ``masked``): in reading order, each citation of the
    running text and each footnote referenced for the first time take the next number; a
    citation inside a footnote definition takes that footnote's."""
    defs = definitions(masked)

    def inside(offset: int) -> str | None:
        return next((label for s, e, label in defs if s <= offset < e), None)

    events: list[tuple[int, str | None]] = [
        (m.start(), m.group(1)) for m in _REFERENCE.finditer(masked) if inside(m.start()) is None]
    events += [(c.start, None) for c in citations if inside(c.start) is None]
    events.sort(key=lambda e: e[0])
    numbers: dict[str, int] = {}
    at: dict[int, int] = {}
    n = 0
    for offset, label in events:
        if label is None:
            n += 1
            at[offset] = n
        elif label not in numbers:
            n += 1
            numbers[label] = n
    placed: list[Placed] = []
    for c in citations:
        label = inside(c.start)
        if label is None:
            placed.append(Placed(at[c.start], False))
        else:
            placed.append(Placed(numbers.get(label) or max(n, 1), True))
    return placed


def to_notes(markdown: str, citations: Sequence[Citation], placed: Sequence[Placed],
             note_html: Callable[[int], str], author_html: Callable[[int], str | None]) -> str:
    """The page's Markdown with each citation of the running text replaced by its note's
    footnote reference (after its author, for a narrative one; after the punctuation that
    follows it, without the space before it, as pandoc places notes), and the notes'
    definitions (``note_html(i)``, one line of HTML) at the end."""
    out: list[str] = []
    defs: list[str] = []
    last = 0
    for i, (c, p) in enumerate(zip(citations, placed, strict=True)):
        if p.in_note:
            continue
        label = NOTE_LABEL.format(n=i)
        author = author_html(i) if c.mode == "narrative" else None
        before, mark = markdown[last:c.start], f"[^{label}]"
        last = c.end
        if author is None:
            before = before.rstrip(" \t")  # the mark follows the word: "book.¹", not "book ¹."
        follows = markdown[c.end:c.end + 1]
        if follows and follows in NOTE_PUNCTUATION:
            # as pandoc places a note: after the punctuation that follows the citation
            mark = follows + mark
            last += 1
        out += [before, author or "", mark]
        defs.append(f"[^{label}]: {note_html(i)}")
    if not defs:
        return markdown
    body = "".join(out) + markdown[last:]
    return body.rstrip("\n") + "\n\n" + "\n".join(defs) + "\n"


def renumber(root: ET.Element) -> None:
    """Footnotes numbered (and listed) in the order the page refers to them: Python-Markdown
    numbers them in the order of their definitions, which put the notes after the page's own."""
    box = next((d for d in root.iter("div") if "footnote" in (d.get("class") or "").split()),
               None)
    ol = box.find("ol") if box is not None else None
    if box is None or ol is None:
        return
    in_box = {id(e) for e in box.iter()}
    refs = [a for a in root.iter("a") if a.get("class") == "footnote-ref"]
    refs = [a for a in refs if id(a) not in in_box] + [a for a in refs if id(a) in in_box]
    order: dict[str, int] = {}
    for a in refs:
        target = (a.get("href") or "").removeprefix("#")
        order.setdefault(target, len(order) + 1)
    items = list(ol)
    if not items:
        return
    for a in refs:
        a.text = str(order[(a.get("href") or "").removeprefix("#")])
    ranked = sorted(items, key=lambda li: order.get(li.get("id") or "", len(order) + 1))
    for li in items:
        ol.remove(li)
    for li in ranked:
        ol.append(li)
        number = order.get(li.get("id") or "")
        for back in li.iter("a"):
            if back.get("class") == "footnote-backref" and number is not None:
                back.set("title", _BACK_TITLE.sub(str(number), back.get("title") or "", count=1))
