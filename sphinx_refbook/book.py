"""The whole book resolved: what each list holds, where each key links, what each page shows.

Where it sits: after every page has been read, the domain hands this module the citing sites
and list specs of all documents; :func:`resolve_book` reads the bibliography (cached by content),
asks the core registry to format the book at once, decides which list is each key's home
(``ref-<key>``), and fingerprints every page's output so that an incremental build re-writes
exactly the pages whose citations, links or lists changed. No Sphinx object crosses this seam.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.config import Config
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.ir import Span, Text
from refbook.items import _item
from refbook.memo import code_stamp, load_memo, save_memo
from refbook.models import Location
from refbook.readers import read_bibliography
from refbook.registry import KeyIndex, Registry, Resolution, unresolved_key
from refbook.render.reference_list import (
    CitingPlace,
    anchor,
    local_anchor,
    rendered_title,
    slug,
)
from refbook.render.reference_list import backlinks as entry_backlinks
from refbook.render.text import to_line
from refbook.styles import CslStyle, get_style
from refbook.validate import apply_config, check_bibliography
from refbook.validate.citations import unused_entries
from refbook.validate.report import INFO_LIMIT
from sphinx_refbook.filters import FilterError, compile_filter, evaluate
from sphinx_refbook.render import item_key

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from refbook.csl import Item
    from refbook.ir import Inlines
    from refbook.models import Bibliography
    from refbook.registry import CitationSite
    from refbook.render.reference_list import BackLinks

#: List scopes: the book's cited entries, this page's, every entry, the uncited ones, a filter.
SCOPES = ("book", "page", "all", "notcited", "filter")


@dataclass(frozen=True, slots=True)
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

    @property
    def ident(self) -> tuple[str, int]:
        return (self.docname, self.index)


@dataclass(frozen=True, slots=True)
class Target:
    docname: str
    anchor: str


@dataclass(slots=True)
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

    def target(self, fromdoc: str, key: str) -> Target | None:
        local = self.local.get((fromdoc, key))
        if local is not None:
            return Target(fromdoc, local)
        return self.home.get(key)

    def specs_of(self, docname: str) -> list[ListSpec]:
        return [s for s in self.specs if s.docname == docname]


class LazyItems(dict[str, "Item"]):
    """Keys → CSL items, converted only when looked up (a 20,000-entry file cites a few hundred).

    Membership and iteration answer for every entry of the bibliography, so the registry's
    "unknown key" test and its "did you mean" hint see the whole book.
    """

    def __init__(self, bibliography: Bibliography, language: str = "en-US") -> None:
        super().__init__()
        self._bib = bibliography
        self._language = language

    def __missing__(self, key: str) -> Item:
        entry = self._bib.get(key)
        if entry is None:
            raise KeyError(key)
        item = _item(entry, self._language)
        self[key] = item
        return item

    def __contains__(self, key: object) -> bool:
        return key in self._bib

    def __iter__(self) -> Iterator[str]:
        return iter(self._bib.keys())

    def __len__(self) -> int:
        return len(self._bib)


def cite_anchor(docname: str, index: int) -> str:
    """The id of a citation: stable as long as the page's citations keep their order."""
    return f"cite-{slug(docname)}-{index}"


def resolve_book(
    *,
    bibfiles: Sequence[str],
    style: str | CslStyle,
    sites: Mapping[str, tuple[CitationSite, ...]],
    specs: Sequence[ListSpec],
    nocite: Mapping[str, tuple[str, ...]],
    order: Sequence[str],
    titles: Mapping[str, str],
    backlinks: bool = True,
    cache_dir: str | None = None,
    auto_doc: str | None = None,
    check: Config | None = None,
    footsites: Mapping[str, tuple[CitationSite, ...]] | None = None,
) -> Book:
    """Format the book. ``order`` is the reading order of documents; ``auto_doc`` receives the
    book's list when no spec exists; ``footsites`` are the footnote citations (formatted apart:
    no list shows their entries)."""
    bib = read_bibliography(list(bibfiles), cache_dir=cache_dir)
    style = get_style(style)
    registry = Registry()
    doc_order = list(order) + sorted(d for d in sites if d not in order)
    for doc in doc_order:
        if doc in sites:
            registry.add_sites(doc, sites[doc])
    rank = {d: i for i, d in enumerate(doc_order)}
    all_specs = sorted(specs, key=lambda s: (rank.get(s.docname, len(rank)), s.docname, s.index))
    if not all_specs and auto_doc is not None and (any(sites.values()) or any(nocite.values())):
        all_specs = [ListSpec(auto_doc, -1, "book")]
    cited = registry.cited_keys(doc_order)
    cited_set = set(cited)
    nocited = [k for d in doc_order for k in nocite.get(d, ())]
    nocited += [k for d in sorted(nocite) if d not in rank for k in nocite[d]]
    cited_docs: dict[str, list[str]] = {}
    for doc in doc_order:
        for s in sites.get(doc, ()):
            for k in s.citation.keys:
                docs = cited_docs.setdefault(k, [])
                if doc not in docs:
                    docs.append(doc)
    problems: list[Diagnostic] = []
    wanted: dict[tuple[str, int], set[str]] = {}
    everything = False
    for spec in all_specs:
        keys: set[str]
        if spec.scope == "book":
            keys = cited_set | set(nocited)
        elif spec.scope == "page":
            keys = {k for s in sites.get(spec.docname, ()) for k in s.citation.keys}
            keys |= set(nocite.get(spec.docname, ()))
        elif spec.scope == "all":
            keys = set(bib.keys())
            everything = True
        elif spec.scope == "notcited":
            keys = set(bib.keys()) - cited_set - set(nocited)
        else:
            keys = _filtered(bib, spec, cited_set | set(nocited), cited_docs, problems)
        keys = _restricted(bib, spec, keys, problems)
        wanted[spec.ident] = keys
    extra = [] if everything else sorted(
        {k for keys in wanted.values() for k in keys} - cited_set - set(nocited))
    nocite_arg = ["*"] if everything else [*dict.fromkeys(nocited), *extra]
    items = LazyItems(bib, style.language)
    res = registry.resolve(bib, items, style, order=doc_order, nocite=nocite_arg,
                           memo_dir=cache_dir)
    entries = dict(res.entries)
    listed = {spec.ident: tuple(k for k, _ in res.entries if k in wanted[spec.ident])
              for spec in all_specs}
    home_spec: dict[str, tuple[str, int]] = {}
    for spec in all_specs:
        if spec.scope in ("book", "all"):
            for k in listed[spec.ident]:
                home_spec.setdefault(k, spec.ident)
    for spec in all_specs:
        for k in listed[spec.ident]:
            home_spec.setdefault(k, spec.ident)
    anchors: dict[tuple[str, int], dict[str, str]] = {}
    home: dict[str, Target] = {}
    local: dict[tuple[str, str], str] = {}
    for spec in all_specs:
        ids: dict[str, str] = {}
        for k in listed[spec.ident]:
            if home_spec[k] == spec.ident:
                ids[k] = anchor(k)
                home[k] = Target(spec.docname, ids[k])
            else:
                ids[k] = local_anchor(k, spec.docname, spec.index)
            local.setdefault((spec.docname, k), ids[k])
        anchors[spec.ident] = ids
    if all_specs:  # a book without any list (no directive, no automatic one) links nothing by choice
        problems += _unlisted(bib, sites, doc_order, home, local)
    foot, foot_used = _footnotes(bib, items, style, doc_order, footsites or {}, cache_dir)
    problems += foot.diagnostics
    tooltips = {k: to_line(v) for k, v in res.entries}
    back: dict[str, BackLinks] = {}
    if backlinks:
        back = _backlinks(res, sites, titles)
    check = check or Config()
    # validation: the .bib rules, then the book's citations (unknown keys, unused entries),
    # one configuration for both, as `refbook check --docs` applies it
    bib_problems = _bib_checks(bib, check, files_digest(bibfiles), cache_dir)
    used = set(bib.keys()) if everything else {k for k, _ in res.entries} | cited_set | foot_used
    unused = unused_entries(bib, used) if check.enabled(Code.UNUSED_ENTRY) else []
    cite_problems = apply_config([*res.diagnostics, *problems], check, bib)
    cite_problems += _summed_up(apply_config(unused, check, bib))
    book = Book(res, tuple(all_specs), listed, anchors, home, local, tooltips, back, {},
                (*bib_problems, *cite_problems), tuple(bib_problems),
                files_digest(bibfiles), entries,
                _foot_authors(foot, footsites or {}, items, style),
                {k: _without_label(v) for k, v in foot.entries})
    book.fingerprints = fingerprints(book, sites, footsites or {})
    return book


def _footnotes(bib: Bibliography, items: LazyItems, style: CslStyle, doc_order: Sequence[str],
               footsites: Mapping[str, tuple[CitationSite, ...]],
               cache_dir: str | None) -> tuple[Resolution, set[str]]:
    """The footnote citations formatted book-wide on their own (what a footnote shows is an
    entry, and its year suffixes are those of the footnoted entries), and their keys."""
    if not footsites:
        return Resolution({}, (), {}, ()), set()
    registry = Registry()
    for doc in [*doc_order, *sorted(d for d in footsites if d not in doc_order)]:
        if doc in footsites:
            registry.add_sites(doc, footsites[doc])
    keys = {k for sites in footsites.values() for s in sites for k in s.citation.keys}
    return registry.resolve(bib, items, style, order=doc_order, memo_dir=cache_dir), keys


def author_spans(ir: Inlines) -> list[Span]:
    """The author part of each key of a narrative citation.

    The core renders a narrative cite of a key as two items, author then year, with the same
    key: the first item of each run of one key is its author part.
    """
    items = [n for n in ir if isinstance(n, Span) and n.role == "cite-item"]
    out: list[Span] = []
    previous = None
    for n in items:
        key = item_key(n)
        if key != previous:
            out.append(n)
        previous = key
    return out


def _foot_authors(res: Resolution, footsites: Mapping[str, tuple[CitationSite, ...]],
                  items: LazyItems, style: CslStyle) -> dict[tuple[str, int], dict[str, Inlines]]:
    """What a textual footnote citation shows before each mark: the style's author part of a
    narrative citation; a numeric style, which has none (its narrative citation is the number),
    the authors' family names ("A", "A and B", "A et al.", every name for the ``s`` forms)."""
    author_date = get_style(style).kind != "numeric"
    out: dict[tuple[str, int], dict[str, Inlines]] = {}
    for doc, sites in footsites.items():
        for s in sites:
            if s.citation.mode != "narrative":
                continue
            parts: dict[str, Inlines] = {}
            if author_date:
                for span in author_spans(res.citations.get((doc, s.index), ())):
                    parts.setdefault(item_key(span), span.children)
            else:
                for ref in s.citation.refs:
                    if ref.key in items:
                        parts[ref.key] = (Text(names_text(items[ref.key], ref.all_authors)),)
            out[doc, s.index] = parts
    return out


def names_text(item: Item, every_name: bool) -> str:
    """The family names of an entry's authors (else editors; else its title)."""
    names = item.name_list("author") or item.name_list("editor")
    if not names:
        return to_line(item.var("title"))
    # the "von" part too, as sphinxcontrib-bibtex's names ("van der Berg")
    shown = [n.literal or " ".join(p for p in (n.dropping_particle, n.non_dropping_particle,
                                               n.family) if p)
             for n in names if not n.others]
    more = any(n.others for n in names)
    if not every_name and (len(shown) > 2 or more):
        return f"{shown[0]} et al."
    if more:
        return ", ".join(shown) + " et al."
    if len(shown) <= 2:
        return " and ".join(shown)
    return ", ".join(shown[:-1]) + ", and " + shown[-1]


def _without_label(entry: Inlines) -> Inlines:
    """A footnote has its own number: a numeric style's ``[n]`` label goes."""
    return tuple(n for n in entry if not (isinstance(n, Span) and n.role == "csl-left-margin"))


def _backlinks(res: Resolution, sites: Mapping[str, tuple[CitationSite, ...]],
               titles: Mapping[str, str]) -> dict[str, BackLinks]:
    """Each entry's back-links, titles shown as the pages show them.

    ``titles`` and the sites' sections hold citations as written (``[@key]``): each becomes its
    formatted text, as in the heading itself. A site's section is empty above the page's first
    sub-section (the top-level section is the page).
    """
    pages: dict[str, str] = {}
    sections: dict[tuple[str, str], str] = {}
    for doc, doc_sites in sites.items():
        cited = [(x.citation.source, res.citations.get((doc, x.index))) for x in doc_sites]
        pages[doc] = rendered_title(titles.get(doc, doc), cited)
        by_section: dict[str, list[tuple[str, Inlines | None]]] = {}
        for c, x in zip(cited, doc_sites, strict=True):
            by_section.setdefault(x.section, []).append(c)
        for section, in_section in by_section.items():
            sections[doc, section] = rendered_title(section, in_section)
    out: dict[str, BackLinks] = {}
    for k, places in res.backlinks.items():
        found = [CitingPlace(p.document, pages.get(p.document, p.document),
                             sections.get((p.document, p.section), p.section),
                             f"{p.document}#{p.anchor}") for p in places]
        links = entry_backlinks(found)
        if links is not None:
            out[k] = links
    return out


#: (bib digest, options) → the .bib files' diagnostics: a citation edit, which re-resolves the
#: book, does not re-run the rules (they read only the .bib files)
_BIB_CHECKS: dict[object, tuple[Diagnostic, ...]] = {}


def _bib_checks(bib: Bibliography, check: Config, digest: str,
                cache_dir: str | None) -> list[Diagnostic]:
    from refbook import __version__

    key = (digest, check)
    file = (Path(cache_dir) / f"bib-checks-{__version__}-{code_stamp()}.pickle"
            if cache_dir else None)
    if file is not None:
        load_memo(_BIB_CHECKS, file)
    found = _BIB_CHECKS.get(key)
    if found is None:
        found = _BIB_CHECKS[key] = tuple(check_bibliography(bib, check, memo_dir=cache_dir))
        if file is not None:
            save_memo({key: found}, file, changed=True)
    return list(found)


def _summed_up(unused: list[Diagnostic]) -> list[Diagnostic]:
    """Unused entries as the build log shows them: at info level (the default) the first ones
    and one line for the rest, so that a shared bibliography of 20,000 entries does not put
    20,000 diagnostics in the cached book; at warning or error level, each one."""
    if len(unused) <= INFO_LIMIT or any(d.effective_severity is not Severity.INFO
                                        for d in unused):
        return unused
    rest = len(unused) - INFO_LIMIT + 1
    return [*unused[:INFO_LIMIT - 1], Diagnostic(
        Code.UNUSED_ENTRY, f"{rest} more entries of the bibliography are never cited nor listed "
        "in the book", None, "'refbook check BIB --docs DOCS' lists each; give unused-entry the "
        "severity warning to list them here, or off", severity=Severity.INFO)]


def _restricted(bib: Bibliography, spec: ListSpec, keys: set[str],
                problems: list[Diagnostic]) -> set[str]:
    """A list's entries from its own files only, plus the keys listed in its body (reported at
    the directive when no entry has them), as sphinxcontrib-bibtex's directive shows them."""
    if spec.bibfiles is None and not spec.keys:
        return keys
    allowed: set[str] | None = None
    if spec.bibfiles is not None:
        files = {os.path.normpath(f) for f in spec.bibfiles}
        allowed = {e.key for e in bib if os.path.normpath(e.location.file) in files}
        keys = keys & allowed
    index = KeyIndex(bib.keys())
    for key in spec.keys:
        if key not in bib:
            problems.append(unresolved_key(key, Location(spec.docname, spec.line), index,
                                           what="listed"))
        elif allowed is None or key in allowed:
            keys.add(key)
    return keys


def _unlisted(bib: Bibliography, sites: Mapping[str, tuple[CitationSite, ...]],
              doc_order: Sequence[str], home: Mapping[str, Target],
              local: Mapping[tuple[str, str], str]) -> list[Diagnostic]:
    """Each citation of an entry that no list of the book shows, at its line: it is rendered
    but cannot link anywhere (an unknown key is reported as such instead)."""
    out = []
    for doc in doc_order:
        for site in sites.get(doc, ()):
            for key in dict.fromkeys(site.citation.keys):
                if key in bib and key not in home and (doc, key) not in local:
                    out.append(Diagnostic(
                        Code.UNLISTED_CITATION,
                        f"'{key}' is cited here but no reference list of the book shows it, so "
                        "the citation links nowhere",
                        Location(doc, site.line),
                        "add a list of the whole book (a bibliography directive without "
                        ":filter:) or widen a list's filter so that it shows this entry",
                        key=key))
    return out


def _filtered(bib: Bibliography, spec: ListSpec, cited: set[str],
              cited_docs: dict[str, list[str]], problems: list[Diagnostic]) -> set[str]:
    try:
        flt = compile_filter(spec.filter)  # once per list, not per entry
    except FilterError:
        return set()  # the directive reported it at its line when it read the page
    keys = set()
    for e in bib:
        docs = set(cited_docs.get(e.key, ()))
        names: dict[str, object] = {f.name: f.value for f in e.fields}
        names.update(key=e.key, type=e.type, entry_type=e.type, cited=e.key in cited,
                     docname=spec.docname, docnames=docs, cited_docnames=docs)
        if evaluate(flt, names):
            keys.add(e.key)
    return keys


def fingerprints(book: Book, sites: Mapping[str, tuple[CitationSite, ...]],
                 footsites: Mapping[str, tuple[CitationSite, ...]] | None = None,
                 ) -> dict[str, str]:
    """Per page, a digest of everything refbook puts on it (citations, links, tooltips, lists,
    footnote citations and their footnotes)."""
    res = book.resolution
    parts: dict[str, list[object]] = {}
    for doc, doc_sites in (footsites or {}).items():
        for s in doc_sites:
            parts.setdefault(doc, []).append((
                "foot", s.index, book.foot_authors.get((doc, s.index)),
                [(k, book.foot_entries.get(k)) for k in s.citation.keys]))
    for doc, doc_sites in sites.items():
        for s in doc_sites:
            keys = s.citation.keys
            parts.setdefault(doc, []).append((
                s.index, s.anchor, res.citations.get((doc, s.index)),
                [(k, book.target(doc, k), book.tooltips.get(k)) for k in keys]))
    for spec in book.specs:
        anchors = book.anchors[spec.ident]
        parts.setdefault(spec.docname, []).append((spec, [
            (k, book.entries.get(k), anchors[k], book.backlinks.get(k, ()))
            for k in book.listed[spec.ident]]))
    return {doc: _digest(repr(p)) for doc, p in parts.items()}


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


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()
