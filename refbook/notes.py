"""Note styles: the cite positions of a document's citations, and what a footnote says.

Where it sits: between the registry and the CSL processor. With a note style (``class="note"``,
e.g. Chicago notes-bibliography) every citation of a page becomes a footnote; the style then
asks, for each cited item, where it stands among the page's earlier citations (``<if
position="…">``): ``first``, ``subsequent``, ``ibid``, ``ibid-with-locator``, ``near-note``.
:func:`positions` computes them for one document in one pass, by the rules of CSL 1.0.2 as
pandoc's citeproc applies them (the oracle of ``tests/core/test_notes_oracle.py``):

- ``first``: the item's first cite in the document; every later cite is ``subsequent``;
- ``ibid``: the previous cite is the same item — either the previous cite of the same
  citation, or, for a citation's first cite, the previous citation held that item alone (and
  its note cited nothing else) and is at most one note away; ``ibid-with-locator`` when the
  locators differ or only this cite has one (a cite without a locator after one with a locator
  is neither);
- ``near-note``: the item was cited at most ``near-note-distance`` − 1 notes before (the
  style's option, 5 by default).

A note number is the footnote a citation ends up in: each citation of the running text gets
a note of its own, and a citation written inside a footnote shares that footnote's number (it
is printed inline, in parentheses, as pandoc does: no footnote in a footnote). Hosts give the
numbers (:class:`NoteCitation`); nothing here knows Sphinx or MkDocs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refbook.ir import Link, Span, Styled, Text, plain
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from refbook.ir import Inline, Inlines

#: the CSL default of ``near-note-distance``
NEAR_NOTE_DISTANCE = 5


@record(frozen=True)
class NoteCite:
    """One cited item of a citation, as positions see it."""

    key: str
    locator: str = ""
    label: str = ""
    #: the author part of a narrative citation ("Lin says¹"): it is printed in the text and
    #: does not count as the item's previous cite
    author_only: bool = False


@record(frozen=True)
class NoteCitation:
    """One citation of a document, in reading order, with the note it is printed in."""

    cites: tuple[NoteCite, ...]
    note: int


@record()
class _Last:
    group: int
    note: int
    at: int
    alone: bool
    label: str
    locator: str


def positions(citations: Sequence[NoteCitation], *,
              near_note_distance: int = NEAR_NOTE_DISTANCE) -> list[tuple[str, ...]]:
    """For each citation (in reading order), the position of each of its cites: a tuple of
    CSL position names per cite (``("first",)``, ``("subsequent", "ibid", "near-note")`` …).

    ``ibid-with-locator`` always comes with ``ibid`` and ``ibid`` with ``subsequent``, as the
    specification's tests read them (``position="ibid"`` is true for an ibid with locator).
    """
    last: dict[str, _Last] = {}
    in_note: dict[int, set[str]] = {}
    out: list[tuple[str, ...]] = []
    for group, citation in enumerate(citations, start=1):
        cites = citation.cites
        note = citation.note
        # a narrative citation's author part does not count: its cite proper is first
        start = 0 if cites and cites[0].author_only else 1
        alone = len(cites) == 1 or (
            len(cites) == 2 and cites[0].key == cites[1].key and cites[0].author_only
            and not cites[1].author_only)
        found: list[str] = []
        for at, cite in enumerate(cites, start=start):
            prev = last.get(cite.key)
            if prev is None:
                found.append("first")
            else:
                held: list[str] = ["subsequent"]
                prev_alone = prev.alone and len(in_note.get(prev.note, ())) <= 1
                follows = (group == prev.group and at == prev.at + 1) or (
                    group == prev.group + 1 and note - prev.note <= 1 and at == 1 and prev_alone)
                if follows:
                    if not prev.locator:
                        held += ["ibid", "ibid-with-locator"] if cite.locator else ["ibid"]
                    elif cite.locator:
                        same = cite.locator == prev.locator and cite.label == prev.label
                        held += ["ibid"] if same else ["ibid", "ibid-with-locator"]
                if note - prev.note < near_note_distance:
                    held.append("near-note")
                found.append(" ".join(held))
            in_note.setdefault(note, set()).add(cite.key)
            if not cite.author_only:
                last[cite.key] = _Last(group, note, at, alone, cite.label, cite.locator)
        out.append(tuple(found))
    return out


def near_note_distance(options: dict[str, str]) -> int:
    """The style's ``near-note-distance`` (the default for a missing or unusable value)."""
    value = options.get("near-note-distance", "")
    return int(value) if value.isdigit() else NEAR_NOTE_DISTANCE


def number_notes(in_note: Sequence[bool]) -> list[int]:
    """Note numbers for a document whose citations are all in the running text or in notes of
    their own: citation ``i`` is note ``i + 1``, and a citation already inside a footnote (a
    host that cannot tell which) shares the previous one's."""
    numbers: list[int] = []
    n = 0
    for inside in in_note:
        if not inside or n == 0:
            n += 1
        numbers.append(n)
    return numbers


# -- what a footnote says ------------------------------------------------------------------------

def capitalized(ir: Inlines) -> Inlines:
    """The note text with its first letter upper case ("ibid." → "Ibid."), as a footnote
    starts a sentence."""
    done = False

    def walk(nodes: Inlines) -> Inlines:
        nonlocal done
        out: list[Inline] = []
        for n in nodes:
            if done:
                out.append(n)
            elif isinstance(n, Text):
                i = next((j for j, c in enumerate(n.text) if not c.isspace()), None)
                if i is not None:
                    done = True
                    if n.text[i].isalpha():
                        n = Text(n.text[:i] + n.text[i].upper() + n.text[i + 1:])
                out.append(n)
            else:
                out.append(_with_children(n, walk(n.children))
                           if isinstance(n, (Span, Styled, Link)) else n)
        return tuple(out)

    return walk(ir)


def parenthesized(ir: Inlines) -> Inlines:
    """A citation written inside a footnote, as pandoc prints it there: in parentheses, without
    the final period of the style's layout."""
    return (Text("("), *_without_final_period(ir), Text(")"))


def _without_final_period(ir: Inlines) -> Inlines:
    if not ir:
        return ir
    *head, tail = ir
    if isinstance(tail, Text):
        if tail.text.endswith("."):
            text = tail.text[:-1]
            return (*head, Text(text)) if text else tuple(head)
        return ir
    if isinstance(tail, Span):
        return (*head, Span(tail.role, _without_final_period(tail.children), tail.key))
    return ir


def punctuation_into_quotes(ir: Inlines) -> Inlines:
    """A period or comma right after a citation item that ends in a quoted title goes inside
    the quotes (“Random Forests.”), as the en-US locale asks: the CSL output moves it when it
    follows the quoted node itself, but a note's layout suffix follows the item's span."""
    out: list[Inline] = []
    nodes = [n if isinstance(n, Text) else _with_children(n, punctuation_into_quotes(n.children))
             for n in ir]
    i = 0
    while i < len(nodes):
        n = nodes[i]
        nxt = nodes[i + 1] if i + 1 < len(nodes) else None
        if (not isinstance(n, Text) and isinstance(nxt, Text) and nxt.text[:1] in (".", ",")):
            moved = _into_last_quote(n, nxt.text[0])
            if moved is not None:
                out.append(moved)
                if nxt.text[1:]:
                    out.append(Text(nxt.text[1:]))
                i += 2
                continue
        out.append(n)
        i += 1
    return tuple(out)


def _with_children(n: Inline, children: Inlines) -> Inline:
    if isinstance(n, Span):
        return Span(n.role, children, n.key)
    if isinstance(n, Styled):
        return Styled(n.kind, children)
    if isinstance(n, Link):
        return Link(n.url, children)
    return n


def _into_last_quote(n: Inline, mark: str) -> Inline | None:
    """``n`` with ``mark`` put inside the quoted node it ends with (None: it ends otherwise)."""
    if isinstance(n, Text) or not n.children:
        return None
    last = n.children[-1]
    if isinstance(n, Styled) and n.kind == "quoted":
        if isinstance(last, Text) and last.text[-1:] in ".,!?":
            return n  # the quote ends in punctuation already: the mark is dropped
        return Styled("quoted", (*n.children, Text(mark)))
    inner = _into_last_quote(last, mark)
    return None if inner is None else _with_children(n, (*n.children[:-1], inner))


def starts_with_term(ir: Inlines, terms: Iterable[str]) -> bool:
    """The note begins with one of the locale's terms ("ibid.", "in"): pandoc capitalizes such
    a note's first letter, never a name or a title it begins with ("ashworks1706, …")."""
    text = plain(ir).lstrip()
    for term in terms:
        if term and text.startswith(term) and not text[len(term):len(term) + 1].isalpha():
            return True
    return False


def detach_links(ir: Inlines) -> Inlines:
    """A cited item's text that ends in a link (a note's DOI or URL) keeps the link outside the
    item's span: hosts make each item's span a link to its entry, and a link inside a link is
    not HTML (browsers break it apart)."""
    out: list[Inline] = []
    for n in ir:
        if isinstance(n, Span) and n.role == "cite-item":
            at = next((i for i, k in enumerate(n.children) if isinstance(k, Link)), None)
            if at is not None:
                if at:
                    out.append(Span(n.role, n.children[:at], n.key))
                out.extend(n.children[at:])
                continue
        out.append(n)
    return tuple(out)
