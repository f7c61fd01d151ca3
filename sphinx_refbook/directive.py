"""The ``bibliography`` directive (also ``refbook:bibliography``): where a reference list goes.

Where it sits: at read time it records what the list should hold — the book's cited entries
(default, or ``:cited:``), this page's (``:scope: page`` or sphinxcontrib-bibtex's
``:filter: docname in docnames``), every entry (``:all:``), the uncited ones (``:notcited:``) or
any ``:filter:`` — narrowed to the files its argument names (``.. bibliography:: other.bib``)
and widened by the keys its body lists, as in sphinxcontrib-bibtex, and leaves a
``bibliography_node``; the writer fills it in book-wide. sphinxcontrib-bibtex's other options
are accepted so that a project migrates unchanged.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from sphinx_refbook import report
from sphinx_refbook.book import SCOPES, ListSpec
from sphinx_refbook.filters import FilterError, compile_filter
from sphinx_refbook.nodes import bibliography_node

if TYPE_CHECKING:
    from collections.abc import Callable

    from docutils.nodes import Node

_PAGE_FILTERS = {"docname in docnames", "docname in cited_docnames",
                 "cited and docname in docnames", "docname in docnames and cited"}


def _scope(value: str | None) -> str:
    return str(directives.choice(value, SCOPES))


class BibliographyDirective(SphinxDirective):
    # sphinxcontrib-bibtex's: the argument names .bib files (the list shows only theirs), the
    # body lists keys to show whether cited or not
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "scope": _scope,
        "cited": directives.flag,
        "notcited": directives.flag,
        "all": directives.flag,
        "filter": directives.unchanged,
        # accepted for sphinxcontrib-bibtex projects; the refbook style decides the rendering
        "style": directives.unchanged,
        "list": directives.unchanged,
        "enumtype": directives.unchanged,
        "start": directives.unchanged,
        "labelprefix": directives.unchanged,
        "keyprefix": directives.unchanged,
    }

    def run(self) -> list[Node]:
        scope = str(self.options.get("scope", "book"))
        flt = str(self.options.get("filter", "")).strip()
        if flt:
            # sphinxcontrib-bibtex: a filter replaces :all:, :cited: and :notcited:, each said
            for flag in ("all", "cited", "notcited"):
                if flag in self.options:
                    self._warn_clash(flag)
        if "all" in self.options and not flt:
            scope = "all"
        elif "notcited" in self.options and not flt:
            scope = "notcited"
        elif flt:
            normalized = " ".join(flt.split())
            if normalized in _PAGE_FILTERS:
                scope = "page"
            elif normalized == "cited":
                scope = "book"
            elif normalized in ("True", "true"):
                scope = "all"
            else:
                scope = "filter"
                try:
                    compile_filter(flt)
                except FilterError as err:
                    # reported here, at the directive's line; the list keeps the filter, which
                    # lets no entry through (showing some other list would hide the mistake)
                    where = (self.env.docname, self.lineno)
                    if report.warn("bad-filter", str(err), where, self.env):
                        from sphinx_refbook.domain import domain_of

                        domain_of(self.env).note_problem(self.env.docname, "bad-filter",
                                                         str(err), self.lineno)
        if scope != "filter":
            flt = ""
        keys = tuple(line.strip() for line in self.content if line.strip())
        spec = ListSpec(self.env.docname, 0, scope, flt, self.lineno, self._bibfiles(), keys)
        node = bibliography_node("", spec=spec)
        self.set_source_info(node)
        return [node]

    def _warn_clash(self, flag: str) -> None:
        msg = (f":filter: overrides :{flag}: (the list shows the entries the filter lets "
               f"through; remove :{flag}: or fold it into the filter)")
        if report.warn("bad-filter", msg, (self.env.docname, self.lineno), self.env):
            from sphinx_refbook.domain import domain_of

            domain_of(self.env).note_problem(self.env.docname, "bad-filter", msg, self.lineno)

    def _bibfiles(self) -> tuple[str, ...] | None:
        """The files named by the argument (relative to this page, or to the source folder
        with a leading ``/``), each one of the book's; None without an argument."""
        if not self.arguments:
            return None
        from sphinx_refbook.domain import domain_of

        book_files = {os.path.normpath(f) for f in domain_of(self.env).bibfiles()}
        chosen = []
        for name in self.arguments[0].split():
            path = os.path.normpath(self.env.relfn2path(name)[1])
            if path in book_files:
                chosen.append(path)
                continue
            msg = (f"{name} is not one of the book's bibliography files, so this list leaves "
                   "it out (add it to refbook_bibfiles or bibtex_bibfiles in conf.py)")
            if report.warn("file", msg, (self.env.docname, self.lineno), self.env):
                domain_of(self.env).note_problem(self.env.docname, "file", msg, self.lineno)
        return tuple(chosen)
