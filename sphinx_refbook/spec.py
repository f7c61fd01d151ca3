"""The light half of ``sphinx_refbook.book``: what a build that changes nothing needs.

The records a build unpickles — a reference list's spec (``ListSpec``, in Sphinx's pickled
environment) and the resolved book (``Book``, ``Target``: ``book.pickle`` in the cache folder) —
and the digest of the bibliography files. A no-op ``sphinx-build`` loads both and compares
digests; it must not import what resolving a book takes (readers, the style engine,
validation): only a build that reads or resolves something does
(``tests/sphinx/test_lazy_imports.py``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.records import field, record

# (reference_list: its BackLink records are in every cached book, so it is loaded anyway)
from refbook.render.reference_list import slug

if TYPE_CHECKING:
    from collections.abc import Sequence

    from refbook.diagnostics import Diagnostic
    from refbook.ir import Inlines
    from refbook.registry import Resolution
    from refbook.render.reference_list import BackLinks, CitingPlace

#: List scopes: the book's cited entries, this page's, every entry, the uncited ones, a filter.
SCOPES = ("book", "page", "all", "notcited", "filter")


@record(frozen=True)
class ListSpec:
    """One reference list placed by a directive (or the automatic one, index -1)."""

    docname: str
    index: int
    scope: str = "book"
    filter: str = ""
    line: int = 0
    #: the directive's file argument (``.. bibliography:: other.bib``): only these files'
    #: entries (normalized paths; None: every file of the book)
    bibfiles: tuple[str, ...] | None = None
    #: keys listed in the directive's body: shown whatever the scope
    keys: tuple[str, ...] = ()
    #: sphinxcontrib-bibtex's options, used in its look (``sphinx_refbook.compat``): the pybtex
    #: style ("": bibtex_default_style), the list's kind (citation, bullet, enumerated), the
    #: enumeration's type and start (-1: continue the page's previous one), label and key prefix
    style: str = ""
    list_type: str = "citation"
    enumtype: str = "arabic"
    start: int = 1
    labelprefix: str = ""
    keyprefix: str = ""

    @property
    def ident(self) -> tuple[str, int]:
        return (self.docname, self.index)


@record(frozen=True)
class Target:
    docname: str
    anchor: str


@record()
class Book:
    """The resolved book (transient: rebuilt after each read phase, never pickled)."""

    resolution: Resolution
    specs: tuple[ListSpec, ...]
    listed: dict[tuple[str, int], tuple[str, ...]]
    anchors: dict[tuple[str, int], dict[str, str]]
    home: dict[str, Target]
    local: dict[tuple[str, str], str]
    tooltips: dict[str, str]
    #: key → its "Cited in:" links, each targeting ``docname#anchor`` of a citation
    backlinks: dict[str, BackLinks]
    fingerprints: dict[str, str]
    problems: tuple[Diagnostic, ...]
    bib_problems: tuple[Diagnostic, ...]
    bib_digest: str
    entries: dict[str, Inlines] = field(default_factory=dict)
    #: footnote citations: (docname, index) → key → the author part a textual one shows,
    #: key → the entry a footnote shows (without a list's label)
    foot_authors: dict[tuple[str, int], dict[str, Inlines]] = field(default_factory=dict)
    foot_entries: dict[str, Inlines] = field(default_factory=dict)
    #: sphinxcontrib-bibtex's look: per list, each key's pybtex label and entry text
    items: dict[tuple[str, int], dict[str, tuple[str, Inlines]]] = field(default_factory=dict)
    #: a key cited with a list's ``:keyprefix:`` → the entry's key
    aliases: dict[str, str] = field(default_factory=dict)
    #: footnote citations in a foot referencing style plugin's words: (docname, index) → the
    #: text around the citation's footnote references (one part more than references)
    foot_texts: dict[tuple[str, int], tuple[Inlines, ...]] = field(default_factory=dict)
    #: sphinxcontrib-bibtex's look: key → every citation of it, in reading order (a citation
    #: list links its label back to those on its page, and names the other pages' sections)
    citing: dict[str, tuple[CitingPlace, ...]] = field(default_factory=dict)

    def in_citation_list(self, where: Target) -> bool:
        """Whether ``where`` is an entry of a list of docutils citations (sphinxcontrib-bibtex's
        look), which LaTeX moves into one bibliography."""
        return any(spec.docname == where.docname and spec.list_type == "citation"
                   and where.anchor in self.anchors.get(spec.ident, {}).values()
                   for spec in self.specs if self.items)

    def real(self, key: str) -> str:
        """The entry key of a cited key (without a list's ``:keyprefix:``)."""
        return self.aliases.get(key, key)

    def target(self, fromdoc: str, key: str) -> Target | None:
        local = self.local.get((fromdoc, key))
        if local is not None:
            return Target(fromdoc, local)
        return self.home.get(key)

    def specs_of(self, docname: str) -> list[ListSpec]:
        return [s for s in self.specs if s.docname == docname]


def cite_anchor(docname: str, index: int) -> str:
    """The id of a citation: stable as long as the page's citations keep their order."""
    return f"cite-{slug(docname)}-{index}"


def files_digest(paths: Sequence[str]) -> str:
    """A digest of the bibliography files' bytes (a missing file counts as empty)."""
    h = hashlib.sha1(usedforsecurity=False)
    for p in paths:
        h.update(p.encode("utf-8") + b"\0")
        try:
            h.update(Path(p).read_bytes())
        except OSError:
            h.update(b"\1missing")
    return h.hexdigest()
