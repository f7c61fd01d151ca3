"""Footnote citations, as sphinxcontrib-bibtex writes them: the ``footcite`` roles
(``:footcite:``, ``:footcite:p:``, ``:footcite:t:`` …) and the ``footbibliography`` directive.

Where it sits: read time. A ``footcite`` role gives each key that has no footnote on this page yet
a docutils auto-numbered footnote named ``footcite-<key>``, held back until the page's next
``footbibliography`` (or, failing one, put at the end of the page), and leaves a footnote
reference to it. Docutils numbers them — per page, in order of first citation, a key cited again
sharing its footnote — and every builder renders real footnotes (LaTeX ``\\footnote``). What a
footnote says (the formatted entry) and a textual citation's author part are placeholders that
``sphinx_refbook.writer`` fills once the book is resolved, in the book's style. Footnote
citations are not citations of the reference lists: no list shows an entry for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.nodes import make_id
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective, SphinxRole

from refbook.records import field, record
from refbook.role_targets import parse_foot_keys
from refbook.syntax import Citation, CiteRef
from sphinx_refbook.lines import hold_problem, mark_role
from sphinx_refbook.nodes import foot_author_node, foot_entry_node, footcite_node

if TYPE_CHECKING:
    from docutils.nodes import Node, system_message
    from sphinx.environment import BuildEnvironment

#: form → citation mode: sphinxcontrib-bibtex's footnote roles. ``p``/``ps`` are the footnote
#: marks alone; ``t`` is "Author" then the mark (``ts``: every author, ``c…``: capitalized).
FOOT_FORMS: dict[str, str] = {"p": "parenthetical", "ps": "parenthetical", "t": "narrative",
                              "ts": "narrative", "ct": "narrative", "cts": "narrative"}

#: the footnote's name (and so its id), as sphinxcontrib-bibtex names it
FOOTNOTE_NAME = "footcite-{key}"

_STATE = "refbook_footnotes"


@record()
class _PageFootnotes:
    """Footnote citations of the page being read (kept in ``env.temp_data``)."""

    names: dict[str, str] = field(default_factory=dict)  # key → footnote name
    pending: list[nodes.footnote] = field(default_factory=list)  # not placed yet
    lists: int = 0  # footbibliography directives so far


def _page(env: BuildEnvironment) -> _PageFootnotes:
    state = env.temp_data.get(_STATE)
    if not isinstance(state, _PageFootnotes):
        state = env.temp_data[_STATE] = _PageFootnotes()
    return state


class FootCiteRole(SphinxRole):
    """``:footcite:<form>:`key1,key2```; bare ``:footcite:`` is ``p``."""

    def run(self) -> tuple[list[Node], list[system_message]]:
        form = self.name.split(":")[-1] if ":" in self.name else "p"
        if form not in FOOT_FORMS:
            form = "p"
        # a problem is reported once the role's own line is known (sphinx_refbook.lines)
        keys, problem = parse_foot_keys(self.text)
        if not keys:
            bad = nodes.inline(self.rawtext, self.rawtext, classes=["refbook-unknown"])
            hold_problem(bad, "citation-syntax", problem, self.lineno)
            mark_role(bad, self)
            return [bad], []
        document = self.inliner.document
        page = _page(self.env)
        textual = FOOT_FORMS[form] == "narrative"
        children: list[Node] = []
        for i, key in enumerate(keys):
            name = page.names.get(key)
            if name is None:
                name = page.names[key] = make_id(_footnote_name(self.env, page, key))
                footnote = nodes.footnote(auto=1, names=[name])
                footnote += foot_entry_node("", nodes.paragraph(key, key), key=key)
                # as the parser does for "[#name]": docutils numbers it, with its references
                document.note_autofootnote(footnote)
                document.note_explicit_target(footnote, footnote)
                page.pending.append(footnote)
            ref = nodes.footnote_reference(f"[#{name}]_", refname=name, auto=1)
            document.note_autofootnote_ref(ref)
            document.note_footnote_ref(ref)
            if textual:
                if i:
                    children.append(nodes.Text(", "))
                children.append(foot_author_node("", nodes.Text(key), key=key))
            children.append(ref)
        citation = Citation(tuple(CiteRef(key=k, all_authors=form.endswith("s")) for k in keys),
                            FOOT_FORMS[form], line=self.lineno, source=self.rawtext)
        node = footcite_node(self.rawtext, *children, citation=citation, form=form,
                             docname=self.env.docname)
        self.set_source_info(node)
        if problem:
            hold_problem(node, "citation-syntax", problem, self.lineno)
        mark_role(node, self)
        return [node], []


class FootBibliographyDirective(SphinxDirective):
    """``.. footbibliography::``: the footnotes of the citations since the previous one."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[Node]:
        page = _page(self.env)
        page.lists += 1
        if not page.pending:
            return []
        box = _footnotes(page, self)
        from sphinx_refbook.config import settings

        compat = settings(self.config).compat
        if compat is not None and compat.footbibliography_id:
            box["ids"].append(make_id(compat.footbibliography_id.format(
                footbibliography_count=page.lists)))
        # an id for the list, as sphinxcontrib-bibtex gives it (so the ids after it match too)
        self.state.document.note_explicit_target(box, box)
        if compat is not None and compat.footbibliography_header:
            return [*self.parse_text_to_nodes(compat.footbibliography_header), box]
        return [box]


def _footnote_name(env: BuildEnvironment, page: _PageFootnotes, key: str) -> str:
    """``footcite-<key>``, or sphinxcontrib-bibtex's bibtex_footcite_id template in its look."""
    from sphinx_refbook.config import settings

    compat = settings(env.config).compat
    if compat is not None and compat.footcite_id:
        return compat.footcite_id.format(footbibliography_count=page.lists + 1, key=key)
    return FOOTNOTE_NAME.format(key=key)


def _footnotes(page: _PageFootnotes, directive: SphinxDirective | None = None) -> nodes.container:
    box = nodes.container(classes=["refbook-footbibliography"])
    box.extend(page.pending)
    page.pending = []
    if directive is not None:
        directive.set_source_info(box)
    return box


class PlaceFootnotes(SphinxTransform):
    """The footnotes of citations after the page's last ``footbibliography`` (or of a page
    without one) go at the end of the page: never a footnote reference to nothing."""

    default_priority = 610  # before docutils numbers the footnotes (620)

    def apply(self, **kwargs: Any) -> None:
        page = self.env.temp_data.get(_STATE)
        if not isinstance(page, _PageFootnotes) or not page.pending:
            return
        sections = [c for c in self.document.children if isinstance(c, nodes.section)]
        (sections[-1] if sections else self.document).append(_footnotes(page))
