"""Note styles in Sphinx: every citation of a page becomes a footnote.

Where it sits: read time, after the roles and the Pandoc syntax left their ``citation_node``\\ s
(priority 605: before ``footnotes.PlaceFootnotes`` and before docutils numbers footnotes, 620).
With a note style (``class="note"``, e.g. Chicago notes-bibliography) each citation of the
running text is moved into a docutils auto-numbered footnote of its own, left at the end of the
page, with a footnote reference where it was — the machinery of ``:footcite:``
(``sphinx_refbook.footnotes``), so every builder renders real footnotes (LaTeX ``\\footnote``).
A narrative citation (``:cite:t:``, ``@key``) keeps its author in the text (a
:class:`note_author_node`), the rest goes in the note, as pandoc does.

The page's notes are numbered in reading order, the page's own footnotes among them, and that
number goes with each citation (``node["note"]``) to the core, which picks ibid / subsequent
forms per page (``refbook.notes``). A citation written inside a footnote (or a section title)
stays where it is and is printed there in parentheses: no footnote inside a footnote, as pandoc.
The writer fills the texts once the book is resolved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.nodes import make_id
from sphinx.transforms import SphinxTransform

from refbook.styles import StyleError, get_style
from sphinx_refbook.config import problems as config_problems
from sphinx_refbook.config import settings
from sphinx_refbook.nodes import citation_node

if TYPE_CHECKING:
    from collections.abc import Iterator

#: the names of the notes' footnotes (their ids): ``refbook-note-<n>``
NOTE_NAME = "refbook-note-{n}"
#: the class of the box at the end of the page that holds the notes
NOTES_CLASS = "refbook-notes"
#: the roles' forms that are citations, made notes; the others (``year``, ``author``,
#: ``label`` …) are fragments of one, left in the text
NOTE_FORMS = frozenset({"p", "ps", "t", "ts", "ct", "cts"})
#: punctuation a note's mark is put after (pandoc's ``notes-after-punctuation``)
NOTE_PUNCTUATION = frozenset(".,;:!?")


class note_author_node(nodes.Inline, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """The author part of a narrative citation in a note style, left in the text; its note
    is the footnote named ``note``."""


def is_note_style(config: Any) -> bool:
    """The book's style is a note style (sphinxcontrib-bibtex's look has none)."""
    s = settings(config)
    if s.compat is not None or config_problems(config):
        return False
    try:
        return get_style(s.style, locale=s.locale).kind == "note"
    except StyleError:
        return False


class NoteCitations(SphinxTransform):
    """Citations → footnotes, numbered with the page's own footnotes in reading order."""

    default_priority = 605

    def apply(self, **kwargs: Any) -> None:
        if not any(True for _ in self.document.findall(citation_node)):
            return
        if not is_note_style(self.config):
            return
        doc = self.document
        numbers: dict[str, int] = {}  # a footnote's name or id → its note number
        count = 0
        made: list[nodes.footnote] = []
        at: dict[int, int] = {}  # a footnote reference → its note number
        for node in list(_in_order(doc)):
            if isinstance(node, nodes.footnote_reference):
                count += 1
                at[id(node)] = count
                for ref in (node.get("refname"), node.get("refid")):
                    if ref:
                        numbers.setdefault(str(ref), count)
                continue
            host = _footnote_of(node)
            if host is not None or _in_title(node) or node.get("form", "p") not in NOTE_FORMS:
                # printed in place, in parentheses, with the note it is in (a title's, or a
                # year or author fragment's: the last)
                node["in_note"] = True
                names = [*host["names"], *host["ids"]] if host is not None else []
                node["note"] = next((numbers[n] for n in names if n in numbers), max(count, 1))
                continue
            count += 1
            node["note"] = count
            footnote, ref = self._footnote(node, count)
            made.append(footnote)
            at[id(ref)] = count
        if not made:
            return
        # docutils numbers auto-numbered footnotes in the order they were noted: the page's own
        # were noted while parsing, the notes only now; in reading order instead
        order = {id(f): numbers.get(_first_name(f), 0) for f in doc.autofootnotes}
        order.update({id(f): f["refbook_note"] for f in made})
        doc.autofootnotes.sort(key=lambda f: order.get(id(f), 0) or len(order) + 1)
        # (MyST sorts its footnotes by the order of these)
        doc.autofootnote_refs.sort(key=lambda r: at.get(id(r), len(at) + 1))
        box = nodes.container(classes=[NOTES_CLASS])
        box.extend(made)
        sections = [c for c in doc.children if isinstance(c, nodes.section)]
        (sections[-1] if sections else doc).append(box)

    def _footnote(self, node: citation_node,
                  n: int) -> tuple[nodes.footnote, nodes.footnote_reference]:
        """Move ``node`` into a new footnote; leave its reference (and author) in its place."""
        doc = self.document
        name = make_id(NOTE_NAME.format(n=n))
        footnote = nodes.footnote(auto=1, names=[name])
        footnote["refbook_note"] = n
        ref = nodes.footnote_reference(f"[#{name}]_", refname=name, auto=1)
        doc.note_autofootnote(footnote)
        doc.note_explicit_target(footnote, footnote)
        doc.note_autofootnote_ref(ref)
        doc.note_footnote_ref(ref)
        in_text: list[nodes.Node] = [ref]
        narrative = node["citation"].mode == "narrative"
        if narrative:
            author = note_author_node("", nodes.Text(node["citation"].source), note=name)
            in_text.insert(0, author)
        _after_punctuation(node, in_text, narrative=narrative)
        node.replace_self(in_text)
        para = nodes.paragraph()
        para += node
        footnote += para
        return footnote, ref


def _after_punctuation(node: citation_node, in_text: list[nodes.Node], *,
                       narrative: bool) -> None:
    """As pandoc places a note: its mark right after the word before ("book.¹", not
    "book ¹."; a narrative citation's author keeps its space), after the punctuation that
    follows the citation."""
    parent = node.parent
    if parent is None:
        return
    at = parent.index(node)
    before = parent[at - 1] if at > 0 else None
    if not narrative and isinstance(before, nodes.Text) and before.rstrip(" \t") != before:
        parent[at - 1] = nodes.Text(before.rstrip(" \t"))
    after = parent[at + 1] if at + 1 < len(parent) else None
    if isinstance(after, nodes.Text) and after[:1] and after[:1] in NOTE_PUNCTUATION:
        in_text.insert(len(in_text) - 1, nodes.Text(after[:1]))  # before the mark
        if len(after) > 1:
            parent[at + 1] = nodes.Text(after[1:])
        else:
            del parent[at + 1]  # (remove() would take the first equal text, maybe another ".")


def _in_order(doc: nodes.document) -> Iterator[nodes.Element]:
    for n in doc.findall(nodes.Element):
        if isinstance(n, citation_node | nodes.footnote_reference):
            yield n


def _footnote_of(node: nodes.Node) -> nodes.footnote | None:
    return _ancestor(node, nodes.footnote)


def _in_title(node: nodes.Node) -> bool:
    return _ancestor(node, nodes.title) is not None


def _ancestor(node: nodes.Node, kind: type[nodes.Element]) -> nodes.Element | None:
    """The nearest enclosing element of ``kind``, if any."""
    n = node.parent
    while n is not None:
        if isinstance(n, kind):
            return n
        n = n.parent
    return None


def _first_name(footnote: nodes.footnote) -> str:
    names = footnote.get("names") or footnote.get("ids") or [""]
    return str(names[0])


# -- write time (``sphinx_refbook.writer``) --------------------------------------------------

def own_note(node: nodes.Node) -> nodes.footnote | None:
    """The note footnote made for the citation ``node`` (None: not one)."""
    host = _footnote_of(node)
    return host if host is not None and host.get("refbook_note") else None


def anchor_at_reference(document: nodes.document, node: citation_node, anchor: str) -> bool:
    """Give the note's footnote reference in the text the citation's id, so the back-links of
    the reference list lead to the place in the text, not into the note. False: no note."""
    footnote = own_note(node)
    if footnote is None:
        return False
    ids = set(footnote.get("ids", ()))
    for ref in document.findall(nodes.footnote_reference):
        if ref.get("refid") in ids:
            ref["ids"].append(anchor)
            return True
    return False


def note_authors(document: nodes.document) -> dict[str, citation_node]:
    """Each note footnote's name → the citation it holds (for the author parts in the text)."""
    found: dict[str, citation_node] = {}
    for node in document.findall(citation_node):
        footnote = own_note(node)
        if footnote is not None:
            for name in footnote["names"]:
                found[name] = node
    return found
