"""The citation roles of sphinxcontrib-bibtex: ``:cite:p:``, ``:cite:t:`` … and ``:cite:``.

Where it sits: at read time a role parses its keys (``key1,key2`` and the ``{pre}key{post}``
form) into a ``refbook.syntax.Citation`` and leaves a ``citation_node``; the writer formats it
once the whole book is known. ``:cite:empty:`` lists keys without citing them (nocite).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.docutils import SphinxRole

from refbook.syntax import Citation, CiteRef, parse_locator
from sphinx_refbook import report
from sphinx_refbook.nodes import citation_node

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

# Possessive runs (*+, ++): every part after a run can never match what the run gave back, so
# a failed match ends at once (two \s* around an optional group split a run of spaces before
# a stray "{" in every way: 20k spaces took 4 s).
_TARGET = re.compile(r"\s*+(?:\{(?P<pre>[^{}]*+)\})?\s*+(?P<key>[^{}\s,]++)\s*+"
                     r"(?:\{(?P<post>[^{}]*+)\})?\s*+")


def parse_targets(text: str) -> tuple[CiteRef, ...]:
    """``{see}a{p. 3}, b`` → refs; raises ValueError on a malformed list."""
    refs: list[CiteRef] = []
    pos = 0
    while True:
        m = _TARGET.match(text, pos)
        if m is None or not m.group("key"):
            msg = f"malformed citation target list {text!r}"
            raise ValueError(msg)
        refs.append(_ref(m.group("key"), m.group("pre") or "", m.group("post") or ""))
        pos = m.end()
        if pos >= len(text):
            return tuple(refs)
        if text[pos] != ",":
            msg = f"malformed citation target list {text!r} (expected ',' at {text[pos:]!r})"
            raise ValueError(msg)
        pos += 1


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


def _ref(key: str, pre: str, post: str) -> CiteRef:
    label, locator, rest = parse_locator(", " + post.strip()) if post.strip() else ("", "", "")
    if not locator and post.strip():
        rest = ", " + post.strip()
    return CiteRef(key=key, prefix=pre.strip(), suffix=rest.rstrip(), locator=locator, label=label)


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
            where = (self.env.docname, self.lineno)
            if report.warn("citation-syntax", str(err), where, self.env):
                from sphinx_refbook.domain import domain_of

                domain_of(self.env).note_problem(self.env.docname, "citation-syntax", str(err),
                                                 self.lineno)
            return [nodes.inline(self.rawtext, self.rawtext, classes=["refbook-unknown"])], []
        if form == "empty":
            from sphinx_refbook.domain import domain_of

            domain_of(self.env).note_nocite(self.env.docname, tuple(r.key for r in refs),
                                            int(self.env.temp_data.get(_COUNT) or 0))
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
        return [node], []
