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
from sphinx_refbook.config import settings
from sphinx_refbook.filters import FilterError, compile_filter
from sphinx_refbook.nodes import bibliography_node
from sphinx_refbook.spec import SCOPES, ListSpec

if TYPE_CHECKING:
    from collections.abc import Callable

    from docutils.nodes import Node

_PAGE_FILTERS = {"docname in docnames", "docname in cited_docnames",
                 "cited and docname in docnames", "docname in docnames and cited"}


def _scope(value: str | None) -> str:
    return str(directives.choice(value, SCOPES))


def _start(value: str | None) -> int:
    """sphinxcontrib-bibtex's ``:start:``: a positive number, or ``continue`` (-1)."""
    return -1 if value == "continue" else int(directives.positive_int(value))


#: sphinxcontrib-bibtex's options that shape how a list looks (its look only)
_LOOK = ("style", "list", "enumtype", "start", "labelprefix", "keyprefix")
_LIST_TYPES = ("citation", "bullet", "enumerated")
_ENUMTYPES = ("arabic", "loweralpha", "upperalpha", "lowerroman", "upperroman")


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
        # sphinxcontrib-bibtex's look (sphinx_refbook.compat); with refbook_style set they are
        # reported as having no effect
        "style": directives.unchanged,
        "list": directives.unchanged,
        "enumtype": directives.unchanged,
        "start": _start,
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
                    msg = report.with_scb_words(str(err), "syntax error in :filter: expression",
                                                self.config)
                    if report.warn("bad-filter", msg, where, self.env):
                        from sphinx_refbook.domain import domain_of

                        domain_of(self.env).note_problem(self.env.docname, "bad-filter", msg,
                                                         self.lineno)
        if scope != "filter":
            flt = ""
        keys = tuple(line.strip() for line in self.content if line.strip())
        spec = ListSpec(self.env.docname, 0, scope, flt, self.lineno, self._bibfiles(), keys,
                        **self._look())
        node = bibliography_node("", spec=spec)
        self.set_source_info(node)
        compat = settings(self.config).compat
        if compat is not None and compat.bibliography_header:
            # sphinxcontrib-bibtex's bibtex_bibliography_header: reST before each list
            return [*self.parse_text_to_nodes(compat.bibliography_header), node]
        return [node]

    def _warn_clash(self, flag: str) -> None:
        msg = (f":filter: overrides :{flag}: (the list shows the entries the filter lets "
               f"through; remove :{flag}: or fold it into the filter)")
        if report.warn("bad-filter", msg, (self.env.docname, self.lineno), self.env):
            from sphinx_refbook.domain import domain_of

            domain_of(self.env).note_problem(self.env.docname, "bad-filter", msg, self.lineno)

    def _look(self) -> dict[str, Any]:
        """The options of sphinxcontrib-bibtex's look, each unusable value reported here."""
        compat = settings(self.config).compat
        given = [name for name in _LOOK if name in self.options]
        if compat is None:
            if given:
                self._warn("ignored-option", (
                    f"{', '.join(':' + n + ':' for n in given)} "
                    f"{'has' if len(given) == 1 else 'have'} no effect: refbook_style = "
                    f"{self.config.refbook_style!r} formats the list (remove refbook_style "
                    "from conf.py to keep sphinxcontrib-bibtex's look)"))
            return {}
        from refbook.styles.pybtex_bridge import plugin_names, style_exists

        look: dict[str, Any] = {}
        style = str(self.options.get("style", "")).strip()
        if style and not style_exists(style):
            self._warn("unknown-style", (
                f":style: {style} is not an installed pybtex style; this list uses "
                f"bibtex_default_style = {compat.default_style!r} (installed: "
                f"{', '.join(plugin_names())})"))
            style = ""
        look["style"] = style
        look["list_type"] = self._choice("list", _LIST_TYPES, "bibliography list type",
                                         "this list is a citation list")
        look["enumtype"] = self._choice("enumtype", _ENUMTYPES, ":enumtype:", "numbered arabic")
        look["start"] = int(self.options.get("start", 1))
        look["labelprefix"] = str(self.options.get("labelprefix", ""))
        look["keyprefix"] = str(self.options.get("keyprefix", ""))
        return look

    def _choice(self, option: str, allowed: tuple[str, ...], what: str, fallback: str) -> str:
        """The option's value if it is one of ``allowed`` (the first is the default); an
        unknown value is reported as ``ignored-option`` and the default used."""
        value = str(self.options.get(option, allowed[0])).strip()
        if value in allowed:
            return value
        self._warn("ignored-option", (f"unknown {what} {value!r}: {fallback} (choose one of "
                                      f"{', '.join(allowed)})"))
        return allowed[0]

    def _warn(self, slug: str, message: str) -> None:
        from sphinx_refbook.domain import domain_of

        if report.warn(slug, message, (self.env.docname, self.lineno), self.env):
            domain_of(self.env).note_problem(self.env.docname, slug, message, self.lineno)

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
            msg = report.with_scb_words(
                (f"{name} is not one of the book's bibliography files, so this list leaves "
                 "it out (add it to refbook_bibfiles or bibtex_bibfiles in conf.py)"),
                f"{name} not found or not configured in bibtex_bibfiles", self.config)
            if report.warn("file", msg, (self.env.docname, self.lineno), self.env):
                domain_of(self.env).note_problem(self.env.docname, "file", msg, self.lineno)
        return tuple(chosen)
