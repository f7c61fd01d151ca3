"""The ``refbook`` domain: per-document citation data, the book's resolution, cross-references.

Where it sits: it owns what reading collects — each document's citing sites, reference lists,
nocite keys and read-time problems — keeps it correct across incremental and parallel builds
(``clear_doc``, ``merge_domaindata``), resolves the book once all pages are read
(``env-updated``: returns the pages whose output changed) and answers the writer's
cross-references (a citation → its entry, an entry → each citing place). The ``cite`` domain
only carries the roles so that they are spelled ``:cite:p:`` as in sphinxcontrib-bibtex.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain
from sphinx.errors import FiletypeNotFoundError
from sphinx.util import get_filetype
from sphinx.util.nodes import make_refnode

from refbook import __version__, cachedir, sealed
from refbook.diagnostics import Code, Severity
from refbook.gcpause import hold_heap, release_heap
from refbook.models import Location
from refbook.records import replace
from refbook.registry import CitationSite
from refbook.styles import get_style, keep_parsed_styles_in
from refbook.syntax import Citation
from sphinx_refbook import report
from sphinx_refbook.config import problems as config_problems
from sphinx_refbook.config import settings
from sphinx_refbook.directive import BibliographyDirective
from sphinx_refbook.footnotes import FOOT_FORMS, FootCiteRole
from sphinx_refbook.nodes import bibliography_node, citation_node, footcite_node
from sphinx_refbook.roles import FORMS, CiteRole, parse_targets
from sphinx_refbook.spec import Book, ListSpec, cite_anchor, files_digest

if TYPE_CHECKING:
    from collections.abc import Iterable, Set

    from docutils.nodes import Element
    from sphinx.addnodes import pending_xref
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import RoleFunction

    from refbook.diagnostics import Diagnostic

# 3: sections and titles hold their citations as written (back-links show them formatted)
# 4: footnote citations (footsites)
# 5: citations at their role's own line (an environment of 4 holds their paragraphs' lines)
# 6: citing sites hold their role's form; lists sphinxcontrib-bibtex's options
# 7: citing sites hold their note number (note styles)
ENV_VERSION = 8


class RefbookDomain(Domain):
    name = "refbook"
    label = "refbook"
    object_types: ClassVar[dict[str, Any]] = {}
    directives: ClassVar[dict[str, type[Any]]] = {"bibliography": BibliographyDirective}
    roles: ClassVar[dict[str, RoleFunction | Any]] = {form: CiteRole() for form in FORMS}
    initial_data: ClassVar[dict[str, Any]] = {
        "sites": {},         # docname -> tuple[CitationSite, ...]
        "footsites": {},     # docname -> tuple[CitationSite, ...] of footnote citations
        "lists": {},         # docname -> tuple[ListSpec, ...]
        # docname -> each :cite:empty: key as (key, citations before it, line or 0)
        "nocite": {},
        "problems": {},      # docname -> tuple[(slug, message, line), ...]
        "fingerprints": {},  # docname -> digest of what refbook put on the written page
        "bib_digest": "",
        "book_key": "",      # digest of the inputs of the cached resolution
    }
    data_version = ENV_VERSION

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        self._book: Book | None = None
        self._book_key = ""
        self._read_now: set[str] = set()
        #: pages this build re-writes without reading them (``env-updated``'s answer)
        self._rewritten: list[str] = []
        #: their entries of ``env.files_to_rebuild`` held back while the pages are written
        self._held_parents: dict[str, Any] = {}
        #: .bib files that cannot be read, reported before the pages are read (this build)
        self._unreadable: set[tuple[Code, str]] = set()
        #: why this build fails (strict mode), said when it finishes
        self.failures: list[str] = []

    # -- per-document data -------------------------------------------------------------------
    @property
    def sites(self) -> dict[str, tuple[CitationSite, ...]]:
        return cast("dict[str, tuple[CitationSite, ...]]", self.data["sites"])

    @property
    def footsites(self) -> dict[str, tuple[CitationSite, ...]]:
        return cast("dict[str, tuple[CitationSite, ...]]", self.data.setdefault("footsites", {}))

    @property
    def lists(self) -> dict[str, tuple[ListSpec, ...]]:
        return cast("dict[str, tuple[ListSpec, ...]]", self.data["lists"])

    @property
    def nocite(self) -> dict[str, tuple[tuple[str, int, int], ...]]:
        """Per page, each ``:cite:empty:`` key as (key, how many citations come before it on
        the page, its line or 0): sphinxcontrib-bibtex's lists take such keys in citation
        order, and an unknown one is reported at its line."""
        return cast("dict[str, tuple[tuple[str, int, int], ...]]", self.data["nocite"])

    def nocite_views(self) -> tuple[dict[str, tuple[str, ...]],
                                    dict[str, tuple[tuple[int, str], ...]],
                                    dict[str, tuple[tuple[str, int], ...]]]:
        """The keys, (before, key) and (key, line) per page, as ``resolve_book`` takes them."""
        return ({doc: tuple(k for k, _, _ in rows) for doc, rows in self.nocite.items()},
                {doc: tuple((b, k) for k, b, _ in rows) for doc, rows in self.nocite.items()},
                {doc: tuple((k, ln) for k, _, ln in rows if ln)
                 for doc, rows in self.nocite.items()})

    @property
    def problems(self) -> dict[str, tuple[tuple[str, str, int], ...]]:
        return cast("dict[str, tuple[tuple[str, str, int], ...]]", self.data["problems"])

    @property
    def fingerprints(self) -> dict[str, str]:
        return cast("dict[str, str]", self.data["fingerprints"])

    def note_nocite(self, docname: str, keys: tuple[str, ...], before: int = 0,
                    line: int | None = None) -> None:
        self.nocite[docname] = self.nocite.get(docname, ()) + tuple(
            (k, before, line or 0) for k in keys)

    def note_problem(self, docname: str, slug: str, message: str, line: int) -> None:
        self.problems[docname] = (*self.problems.get(docname, ()), (slug, message, line))

    def clear_doc(self, docname: str) -> None:
        for key in ("sites", "footsites", "lists", "nocite", "problems", "fingerprints"):
            self.data.setdefault(key, {}).pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for key in ("sites", "footsites", "lists", "nocite", "problems"):
            for doc in docnames:
                if doc in otherdata.get(key, {}):
                    self.data.setdefault(key, {})[doc] = otherdata[key][doc]

    def collect(self, docname: str, doctree: nodes.document) -> None:
        """``doctree-read``: number the page's citations and lists in document order."""
        self._any_citations(docname, doctree)
        sites = []
        for i, node in enumerate(doctree.findall(citation_node)):
            node["index"] = i
            node["docname"] = docname
            sites.append(CitationSite(docname, i, node["citation"], node["citation"].line,
                                      _section_of(node), cite_anchor(docname, i),
                                      node.get("form", "p"), node.get("note", 0),
                                      node.get("in_note", False)))
        if sites:
            self.sites[docname] = tuple(sites)
        foot = []
        for i, node in enumerate(doctree.findall(footcite_node)):
            node["index"] = i
            node["docname"] = docname
            foot.append(CitationSite(docname, i, node["citation"], node["citation"].line,
                                     _section_of(node), "", node.get("form", "p")))
        if foot:
            self.footsites[docname] = tuple(foot)
        specs = []
        for i, node in enumerate(doctree.findall(bibliography_node)):
            old: ListSpec = node["spec"]
            spec = replace(old, docname=docname, index=i)
            node["spec"] = spec
            specs.append(spec)
        if specs:
            self.lists[docname] = tuple(specs)

    def _any_citations(self, docname: str, doctree: nodes.document) -> None:
        """``:any:`key1,key2``` that names an entry is a parenthetical citation, as in
        sphinxcontrib-bibtex (whose ``cite`` domain answers ``any``); turned into one here, at
        read time, it is numbered, listed and linked back like every other citation. Any other
        ``:any:`` target is left to Sphinx."""
        anys = [n for n in doctree.findall(addnodes.pending_xref) if n.get("reftype") == "any"]
        if not anys or config_problems(self.env.config):
            return
        cache = str(Path(self.env.doctreedir) / "refbook-cache")
        cachedir.prepare(cache)  # before the first read of the folder (resolve reports on it)
        bibfiles = self.bibfiles()
        from refbook.readers import read_bibliography

        keys = set(read_bibliography(bibfiles, cache_dir=cache).keys())
        for path in bibfiles:
            # which targets are keys depends on the .bib files: a change re-reads this page
            self.env.note_dependency(path)
        for node in anys:
            target = str(node.get("reftarget", ""))
            try:
                refs = parse_targets(target)
            except ValueError:
                continue
            if not any(ref.key in keys for ref in refs):
                continue
            line = node.line or (node.parent.line if node.parent is not None else None) or 0
            citation = Citation(refs, FORMS["p"], line=line, source=node.rawsource or target)
            cite = citation_node(node.rawsource, nodes.Text(target), citation=citation,
                                 form="p", docname=docname)
            cite.source, cite.line = node.source, line
            node.replace_self(cite)

    # -- the book ----------------------------------------------------------------------------
    def resolve(self) -> Book:
        """The resolved book: from memory, from the doctree cache, or formatted now.

        Formatting is the expensive step, so the result is kept under a digest of everything it
        depends on except line numbers (a no-op rebuild or a prose edit costs one file hash);
        a cached result gets the current lines back in its diagnostics.
        """
        env = self.env
        s = settings(env.config)
        titles = {doc: title_text(t) for doc, t in sorted(env.titles.items())}
        specs = [spec for doc in sorted(self.lists) for spec in self.lists[doc]]
        order = book_order(env)
        auto_doc = env.config.root_doc if s.auto_bibliography else None
        bibfiles = self.bibfiles()
        syntaxes = page_syntaxes(env)
        # the style's content digest, not its name: an edited .csl file formats the book anew
        style = get_style(s.style, locale=s.locale)
        bib_digest = files_digest([*bibfiles])
        key = bib_digest + _digest(repr((
            __version__, ENV_VERSION, style.digest, s.backlinks, auto_doc, order, titles, specs,
            s.latin1, syntaxes, s.compat,
            sorted(self.nocite.items()), s.check,
            [(doc, [(x.index, x.citation.refs, x.citation.mode, x.section, x.anchor, x.form,
                     x.citation.source, x.note, x.in_note)
                    for x in self.sites[doc]]) for doc in sorted(self.sites)],
            [(doc, [(x.index, x.citation.refs, x.citation.mode, x.form) for x in self.footsites[doc]])
             for doc in sorted(self.footsites)])))
        cache_dir = Path(env.doctreedir) / "refbook-cache"
        if self._book is not None and self._book_key == key:
            return self._book
        # checked before anything reads it: a folder of another refbook version is cleared
        prepared = cachedir.prepare(cache_dir)
        # the parsed style is kept there too (its XML read once, not in every build process)
        keep_parsed_styles_in(cache_dir if prepared.usable else None)
        # the disk cache serves only the environment that wrote it (-E starts afresh)
        book = _load(cache_dir / "book.pickle", key) if self.data.get("book_key") == key else None
        if book is None:
            # imported here: a build that changes nothing never resolves (tests/sphinx/
            # test_lazy_imports.py), and resolving takes the readers, engine and validation
            from refbook.gcpause import paused_gc
            from sphinx_refbook.book import resolve_book

            # the cyclic collector paused while the book is resolved: the style engine makes
            # millions of short-lived objects (freed by reference counting as it goes), and
            # every collection they set off rescanned Sphinx's whole environment as well
            # (docs/design/performance.md, "Fourth part")
            nocite, nocite_at, nocite_lines = self.nocite_views()
            with paused_gc():
                book = resolve_book(
                    bibfiles=bibfiles, style=style, sites=self.sites, specs=specs,
                    nocite=nocite, order=order, titles=titles, backlinks=s.backlinks,
                    cache_dir=str(cache_dir), auto_doc=auto_doc, check=s.check,
                    footsites=self.footsites, syntaxes=syntaxes, compat=s.compat,
                    nocite_at=nocite_at, nocite_lines=nocite_lines, bib_digest=bib_digest)
            base = s.bibfiles_dir or str(env.srcdir)
            # bibtex_encoding = 'latin-1' declares what the reader's fallback found
            expected = {Code.ENCODING} if s.latin1 else set()
            alias = bool(s.bibfiles_dir)
            book.problems = tuple(_sphinx_hint(d, base, alias) for d in book.problems
                                  if d.code not in expected)
            book.bib_problems = tuple(_sphinx_hint(d, base, alias) for d in book.bib_problems
                                      if d.code not in expected)
            _store(cache_dir / "book.pickle", key, book)
        else:
            book.problems = relocate(book.problems, self.sites, self.footsites)
        cache_note = cachedir.note(prepared)
        if cache_note is not None:  # an info line: -W stays green, the cache healed itself
            report.logger.info(f"refbook: {cache_note}")
        self._book, self._book_key = book, key
        self.data["book_key"] = key
        return book

    def book(self) -> Book:
        return self._book if self._book is not None else self.resolve()

    def bibfiles(self) -> list[str]:
        s = settings(self.env.config)
        base = s.bibfiles_dir or str(self.env.srcdir)
        return [os.path.normpath(os.path.join(base, p)) for p in s.bibfiles]

    def before_read(self, docnames: Iterable[str]) -> None:
        self._read_now = set(docnames)
        self._report_unreadable()

    def _report_unreadable(self) -> None:
        """A ``.bib`` file that cannot be read (missing, a folder, no permission) is reported
        before the pages are read, as sphinxcontrib-bibtex does: the problems the pages then
        show (unknown keys, a list naming the file) read as its consequences, after it. Each
        build says it again while it lasts; :meth:`updated` does not repeat it."""
        self._unreadable = set()
        env = self.env
        if config_problems(env.config):
            return
        bibfiles = self.bibfiles()
        if all(os.path.isfile(p) and os.access(p, os.R_OK) for p in bibfiles):
            return  # the usual case: nothing read here
        s = settings(env.config)
        cache = str(Path(env.doctreedir) / "refbook-cache")
        from refbook.readers import read_bibliography

        bib = read_bibliography(bibfiles, cache_dir=cache)
        whole = [d for d in bib.diagnostics if d.code is Code.FILE
                 and d.location is not None and not d.location.line]
        base = s.bibfiles_dir or str(env.srcdir)
        whole = [_sphinx_hint(d, base, bool(s.bibfiles_dir)) for d in whole]
        report.log(whole, env)
        self._unreadable = {(d.code, d.message) for d in whole}

    def updated(self) -> list[str]:
        """``env-updated``: resolve the book, report, and name every page to re-write."""
        env = self.env
        book = self.resolve()
        s = settings(env.config)
        # the .bib file's problems are shown when it (or the validation options) changed;
        # a page's when the page was read or re-written; strict mode lists all of them always
        bib_state = _digest(repr((book.bib_digest, s.check)))
        new_bib = bib_state != self.data.get("bib_digest")
        self.data["bib_digest"] = bib_state
        old = self.fingerprints
        changed = sorted(doc for doc in set(old) | set(book.fingerprints)
                         if old.get(doc) != book.fingerprints.get(doc) and doc in env.all_docs)
        self.data["fingerprints"] = dict(book.fingerprints)
        shown = self._read_now | set(changed)
        bib_set = set(book.bib_problems)
        # entries nobody cites: shown again when that set (or the .bib, or the options) changed
        unused_state = _digest(repr([d for d in book.problems if d.code is Code.UNUSED_ENTRY]))
        new_unused = new_bib or unused_state != self.data.get("unused_digest")
        self.data["unused_digest"] = unused_state
        to_log: list[Diagnostic] = []
        for d in book.problems:
            if s.strict and d.effective_severity is not Severity.INFO:
                fresh = True  # strict mode lists every problem of the book, each build
            elif d.code is Code.UNUSED_ENTRY:
                fresh = new_unused
            elif d in bib_set:
                fresh = new_bib
            else:
                fresh = d.location is None or d.location.file in shown
            if fresh and (d.code, d.message) not in self._unreadable:
                to_log.append(d)
        report.log(to_log, env)
        self.failures = []
        if s.strict:
            # problems found while reading a page that this build did not read: listed again
            for doc in sorted(set(self.problems) - self._read_now):
                for slug, msg, line in self.problems[doc]:
                    report.warn(slug, msg, (doc, line), env)
            found = [report.describe(d, env) for d in book.problems
                     if d.effective_severity is not Severity.INFO]
            found += [(slug, msg) for doc in sorted(self.problems)
                      for slug, msg, _ in self.problems[doc]]
            count = report.strict_count(found, env.config)
            if count:
                self.failures = [
                    (f"refbook_strict = True and the book has {count} problem(s), each listed "
                    "above at its file:line: the build fails (fix them, silence a code with "
                    "suppress_warnings or refbook_check, or set refbook_strict = False)")]
        self._rewritten = [d for d in changed if d not in self._read_now]
        return self._rewritten

    def hold_parents(self) -> None:
        """``write-started``: Sphinx writes the pages that hold the table of contents of every
        page it writes (``env.files_to_rebuild``), since a page read again may have a new title.
        A page refbook re-writes without reading it keeps its titles; they show the book only
        through a citation in a title (copied into the contents), so only then are its parents
        written again. The entries are held back for this build's writing only: the environment
        is already saved, and :meth:`release_parents` puts them back when the build ends."""
        env = self.env
        for doc in self._rewritten:
            toc = env.tocs.get(doc)
            if doc in env.files_to_rebuild and toc is not None and not any(
                    toc.findall(_book_node)):
                self._held_parents[doc] = env.files_to_rebuild.pop(doc)

    def release_parents(self) -> None:
        """``build-finished``: the entries :meth:`hold_parents` held back go back."""
        self.env.files_to_rebuild.update(self._held_parents)
        self._held_parents = {}

    # -- cross-references --------------------------------------------------------------------
    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, typ: str,
                     target: str, node: pending_xref, contnode: Element) -> nodes.reference | None:
        if typ == "cite":
            where = self.book().target(fromdocname, target)
            if where is None:
                return None
            doc, anchor, title = where.docname, where.anchor, node.get("refbook_title")
            if builder.name == "latex" and self.book().in_citation_list(where):
                # LaTeX gathers docutils citations in the root document's bibliography, where
                # their labels are the root document's
                doc = env.config.root_doc
        elif typ == "site":
            doc, _, anchor = target.partition("#")
            title = None
            if doc not in env.all_docs:
                return None
        else:
            return None
        if builder.name == "singlehtml":
            # one page: a same-page link (make_refnode would emit "#document-x#id")
            doc = fromdocname
        if node.get("refbook_unwrap") and isinstance(contnode, nodes.inline):
            # sphinxcontrib-bibtex's look: the link holds the label's parts, no wrapper span
            return make_refnode(builder, fromdocname, doc, anchor, list(contnode.children), title)
        return make_refnode(builder, fromdocname, doc, anchor, contnode, title)

    def resolve_any_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder,
                         target: str, node: pending_xref, contnode: Element,
                         ) -> list[tuple[str, nodes.reference]]:
        # ``:any:`` citations became citation nodes at read time (``_any_citations``)
        return []


class _RoleCarrier(Domain):
    """A domain that only carries roles: the citation data lives in the ``refbook`` domain, so
    there is nothing to clear, merge or resolve here."""

    initial_data: ClassVar[dict[str, Any]] = {}

    def clear_doc(self, docname: str) -> None:
        return None

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        return None

    def resolve_any_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder,
                         target: str, node: pending_xref, contnode: Element,
                         ) -> list[tuple[str, nodes.reference]]:
        return []


class CiteDomain(_RoleCarrier):
    """Carries the roles under the name ``cite`` (``:cite:p:``); the data lives in ``refbook``."""

    name = "cite"
    label = "citations"
    roles: ClassVar[dict[str, RoleFunction | Any]] = {form: CiteRole() for form in FORMS}


class FootCiteDomain(_RoleCarrier):
    """Carries the footnote roles under sphinxcontrib-bibtex's name ``footcite``
    (``:footcite:t:``); the data lives in ``refbook``."""

    name = "footcite"
    label = "footnote citations"
    roles: ClassVar[dict[str, RoleFunction | Any]] = {form: FootCiteRole() for form in FOOT_FORMS}
    directives: ClassVar[dict[str, type[Any]]] = {}


def _load(path: Path, key: str) -> Book | None:
    """The book cached in ``path`` for ``key``; ``None`` for a miss (also a file that is not
    authentic: ``refbook.sealed`` checks its HMAC before unpickling anything)."""
    found = sealed.load(path)
    if not isinstance(found, tuple) or len(found) != 2:
        return None
    stored_key, book = found
    return book if stored_key == key and isinstance(book, Book) else None


def _store(path: Path, key: str, book: Book) -> None:
    sealed.dump((key, book), path)


def relocate(problems: tuple[Diagnostic, ...], sites: dict[str, tuple[CitationSite, ...]],
             footsites: dict[str, tuple[CitationSite, ...]] | None = None,
             ) -> tuple[Diagnostic, ...]:
    """Give a cached book's citation diagnostics the lines the pages have now (the book lists
    the problems of citations before those of footnote citations)."""
    lines: dict[tuple[str, str], list[int]] = {}
    for group in (sites, footsites or {}):
        for doc, doc_sites in group.items():
            for x in doc_sites:
                for k in x.citation.keys:
                    lines.setdefault((doc, k), []).append(x.line)
    seen: dict[tuple[str, str], int] = {}
    out = []
    for d in problems:
        loc = d.location
        if loc is not None and d.key and (loc.file, d.key) in lines:
            n = seen.get((loc.file, d.key), 0)
            seen[(loc.file, d.key)] = n + 1
            found = lines[(loc.file, d.key)]
            d = replace(d, location=Location(loc.file, found[min(n, len(found) - 1)]))
        out.append(d)
    return tuple(out)


def page_syntaxes(env: BuildEnvironment) -> tuple[str, ...]:
    """How the book's pages cite (``rst``, ``markdown`` for Pandoc brackets, ``myst`` for MyST
    roles where Pandoc syntax is off): an unused entry's hint shows a citation as they do."""
    pandoc = settings(env.config).pandoc_syntax
    found: set[str] = set()
    for doc in env.found_docs:
        try:
            filetype = get_filetype(env.config.source_suffix, env.doc2path(doc))
        except FiletypeNotFoundError:
            continue
        if filetype == "restructuredtext":
            found.add("rst")
        else:
            found.add("markdown" if pandoc else "myst")
    return tuple(sorted(found))


def _sphinx_hint(d: Diagnostic, base: str, alias: bool = False) -> Diagnostic:
    """A missing file: the path came from conf.py, relative to the source folder (not the cwd),
    or for bibtex_bibfiles to the folder of conf.py."""
    if d.code is Code.FILE and "not found" in d.message:
        if alias:
            return replace(d, hint=f"check bibtex_bibfiles in conf.py: paths are relative to "
                                   f"the folder of conf.py {base}")
        return replace(d, hint=f"check refbook_bibfiles in conf.py: paths are relative to the "
                               f"source folder {base}")
    return d


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def _book_node(node: nodes.Node) -> bool:
    """a node whose text comes from the book (refbook's citations and their parts)"""
    return type(node).__module__.startswith("sphinx_refbook.")


def domain_of(env: BuildEnvironment) -> RefbookDomain:
    return cast("RefbookDomain", env.get_domain("refbook"))


def book_order(env: BuildEnvironment) -> list[str]:
    """Documents in reading order: the toctree from the root document, then the rest sorted."""
    order: list[str] = []
    seen: set[str] = set()
    stack = [env.config.root_doc]
    while stack:
        doc = stack.pop()
        if doc in seen:
            continue
        seen.add(doc)
        order.append(doc)
        stack.extend(reversed(env.toctree_includes.get(doc, [])))
    order += sorted(d for d in env.all_docs if d not in seen)
    return order


def _section_of(node: nodes.Node) -> str:
    """The title of the sub-section holding ``node`` ("" in the page's top-level section)."""
    n = node.parent
    while n is not None:
        if isinstance(n, nodes.section):
            if isinstance(n.parent, nodes.document):
                return ""
            title = n.next_node(nodes.title)
            return title_text(title) if title is not None else ""
        n = n.parent
    return ""


def title_text(title: nodes.Node) -> str:
    """A title's text with each citation as written (``[@key]``, ``:cite:p:`key```): the
    back-links show it formatted (``refbook.render.reference_list.rendered_title``)."""
    if isinstance(title, citation_node):
        return str(title["citation"].source)
    if isinstance(title, nodes.Element):
        return "".join(title_text(child) for child in title.children)
    return str(title.astext())


def on_before_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    domain_of(env).before_read(docnames)


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    domain_of(app.env).collect(app.env.docname, doctree)


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if config_problems(env.config):
        return []  # refbook stays idle: the build fails on its configuration
    # the cache files the book's resolution writes (the .bib files' parse and pieces, the
    # validation and style memos, the check) are held meanwhile, then written by a forked
    # child while Sphinx writes the pages (refbook.sealed.flush_in_background), and waited for
    # when the build finishes (on_build_ended); a process that holds its writes already keeps
    # doing so
    holding = not sealed.holding()
    if holding:
        sealed.hold_writes()
    try:
        updated = domain_of(env).updated()
    finally:
        # the environment is complete: writing adds only pages, freed page by page
        # (refbook.gcpause.hold_heap; released when the build finishes, on_build_ended);
        # frozen before the fork, the heap's objects are not touched by the collector in
        # either process, so the child copies fewer pages
        hold_heap()
        if holding:
            sealed.flush_in_background()
    return updated


def on_write_started(app: Sphinx, builder: Builder) -> None:
    if app.env is not None and not config_problems(app.config):
        domain_of(app.env).hold_parents()


def on_build_ended(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``, before any other handler (one may fail the build): the heap
    :func:`on_env_updated` held goes back to the collector, the table-of-contents parents
    :func:`on_write_started` held back go back to the environment, and the cache files it handed
    to a child are written before the build returns."""
    if app.env is not None:
        domain_of(app.env).release_parents()
    release_heap()
    sealed.settle()


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    """Fail the build, as a failed ``-W`` build fails, on an unusable configuration or (strict
    mode) on the book's problems, all listed above."""
    if exception is not None:
        return
    failures = list(domain_of(app.env).failures) if app.env is not None else []
    count = len(config_problems(app.config))
    if count:
        failures.append(f"refbook: the configuration has {count} problem(s), listed above: "
                        "citations were left as written and the build fails")
    report.finish(app, failures)


def on_get_outdated(app: Sphinx, env: BuildEnvironment, added: Set[str], changed: Set[str],
                    removed: Set[str]) -> list[str]:
    """``env-get-outdated``: after a change of the validation options (``refbook_check`` or
    the ``pyproject.toml`` table), re-read every page, so that problems found while reading
    (a malformed citation) are levelled by the new options."""
    dom = domain_of(env)
    state = _digest(repr(settings(env.config).check))
    if dom.data.get("check_digest") == state:
        return []
    dom.data["check_digest"] = state
    return sorted(env.found_docs - set(added) - set(changed))


__all__ = ["CiteDomain", "FootCiteDomain", "RefbookDomain", "book_order", "domain_of", "files_digest",
           "on_get_outdated"]
