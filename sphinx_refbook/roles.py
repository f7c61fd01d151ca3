"""The citation roles of sphinxcontrib-bibtex: ``:cite:p:``, ``:cite:t:`` … and ``:cite:``.

Where it sits: at read time a role parses its keys (``key1,key2`` and the ``{pre}key{post}``
form) into a ``refbook.syntax.Citation`` and leaves a ``citation_node``; the writer formats it
once the whole book is known. ``:cite:empty:`` lists keys without citing them (nocite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.docutils import SphinxRole

from refbook.records import replace
from refbook.role_targets import _TARGET, parse_targets
from refbook.syntax import Citation
from sphinx_refbook.lines import hold_problem, mark_role
from sphinx_refbook.nodes import citation_node

__all__ = ["FORMS", "CiteRole", "parse_targets"]

if TYPE_CHECKING:
    from docutils.nodes import Node, system_message

#: the "s" forms list every author instead of "et al."
_ALL_AUTHORS = frozenset({"ps", "ts", "cts", "alps", "authors", "authorpars", "cauthors"})

#: form → citation mode given to the registry: every role name of sphinxcontrib-bibtex 2.7.
#: ``s`` variants list every author (no "et al."); ``c`` variants capitalize the
#: first letter; ``alp``/``label`` are the parenthetical text without its brackets.
FORMS: dict[str, str] = {
    "p": "parenthetical", "ps": "parenthetical",
    "t": "narrative", "ts": "narrative", "ct": "narrative", "cts": "narrative",
    "alp": "parenthetical", "alps": "parenthetical",
    "label": "parenthetical", "labelpar": "parenthetical",
    "year": "parenthetical", "yearpar": "parenthetical",
    "author": "narrative", "authors": "narrative", "authorpar": "narrative",
    "authorpars": "narrative", "cauthor": "narrative", "cauthors": "narrative",
    "empty": "parenthetical",
}

def raw_targets(text: str) -> list[tuple[str, str]]:
    """(pre, post) of each key of a valid target list, as written."""
    out = []
    pos = 0
    while pos < len(text):
        m = _TARGET.match(text, pos)
        if m is None or not m.group("key"):
            break
        out.append((m.group("pre") or "", m.group("post") or ""))
        pos = m.end() + 1
    return out


_COUNT = "refbook_cite_count"


class CiteRole(SphinxRole):
    """``:cite:<form>:`keys```; the form is the role's name after ``cite:`` (bare ``cite`` = p)."""

    def run(self) -> tuple[list[Node], list[system_message]]:
        form = self.name.split(":")[-1] if ":" in self.name else "p"
        if form not in FORMS:
            form = "p"
        try:
            refs = parse_targets(self.text)
        except ValueError as err:
            # reported once the role's own line is known (sphinx_refbook.lines)
            bad = nodes.inline(self.rawtext, self.rawtext, classes=["refbook-unknown"])
            hold_problem(bad, "citation-syntax", str(err), self.lineno)
            mark_role(bad, self)
            return [bad], []
        if form == "empty":
            from sphinx_refbook.domain import domain_of

            domain_of(self.env).note_nocite(self.env.docname, tuple(r.key for r in refs),
                                            int(self.env.temp_data.get(_COUNT) or 0),
                                            line=self.lineno)
            return [], []
        if form in ("year", "yearpar"):
            refs = tuple(replace(r, suppress_author=True) for r in refs)
        if form in _ALL_AUTHORS:
            refs = tuple(replace(r, all_authors=True) for r in refs)
        # how many citations precede a :cite:empty: (sphinxcontrib-bibtex lists its keys there)
        self.env.temp_data[_COUNT] = int(self.env.temp_data.get(_COUNT) or 0) + 1
        citation = Citation(refs, FORMS[form], line=self.lineno, source=self.rawtext)
        node = citation_node(self.rawtext, nodes.Text(self.text), citation=citation, form=form,
                             docname=self.env.docname)
        self.set_source_info(node)
        mark_role(node, self)
        return [node], []
