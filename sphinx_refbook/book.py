"""The whole book resolved: what each list holds, where each key links, what each page shows.

Where it sits: after every page has been read, the domain hands this module the citing sites
and list specs of all documents; :func:`resolve_book` reads the bibliography (cached by content),
asks the core registry to format the book at once, decides which list is each key's home
(``ref-<key>``), and fingerprints every page's output so that an incremental build re-writes
exactly the pages whose citations, links or lists changed. No Sphinx object crosses this seam.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.config import Config
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.items import _item
from refbook.memo import code_stamp, load_memo, save_memo
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.validate import apply_config, check_bibliography
from refbook.validate.citations import unused_entries
from refbook.validate.report import INFO_LIMIT
from sphinx_refbook.filters import FilterError, compile_filter, evaluate

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from refbook.csl import Item
    from refbook.ir import Inlines
    from refbook.models import Bibliography
    from refbook.registry import CitationSite, Resolution

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

    @property
    def ident(self) -> tuple[str, int]:
        return (self.docname, self.index)


@dataclass(frozen=True, slots=True)
class Target:
    docname: str
    anchor: str


@dataclass(frozen=True, slots=True)
class BackLink:
    """A citing place as an entry lists it: page, its title, section, the citation's anchor."""

    docname: str
    title: str
    section: str
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
    backlinks: dict[str, tuple[BackLink, ...]]
    fingerprints: dict[str, str]
    problems: tuple[Diagnostic, ...]
    bib_problems: tuple[Diagnostic, ...]
    bib_digest: str
    entries: dict[str, Inlines] = field(default_factory=dict)

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

    def __init__(self, bibliography: Bibliography) -> None:
        super().__init__()
        self._bib = bibliography

    def __missing__(self, key: str) -> Item:
        entry = self._bib.get(key)
        if entry is None:
            raise KeyError(key)
        item = _item(entry)
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


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def resolve_book(
    *,
    bibfiles: Sequence[str],
    style: str,
    sites: Mapping[str, tuple[CitationSite, ...]],
    specs: Sequence[ListSpec],
    nocite: Mapping[str, tuple[str, ...]],
    order: Sequence[str],
    titles: Mapping[str, str],
    backlinks: bool = True,
    cache_dir: str | None = None,
    auto_doc: str | None = None,
    check: Config | None = None,
) -> Book:
    """Format the book. ``order`` is the reading order of documents; ``auto_doc`` receives the
    book's list when no spec exists."""
    bib = read_bibliography(list(bibfiles), cache_dir=cache_dir)
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
        wanted[spec.ident] = keys
    extra = [] if everything else sorted(
        {k for keys in wanted.values() for k in keys} - cited_set - set(nocited))
    nocite_arg = ["*"] if everything else [*dict.fromkeys(nocited), *extra]
    items = LazyItems(bib)
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
                ids[k] = f"ref-{k}"
                home[k] = Target(spec.docname, ids[k])
            else:
                ids[k] = f"ref-{k}-{slug(spec.docname)}-{spec.index}"
            local.setdefault((spec.docname, k), ids[k])
        anchors[spec.ident] = ids
    tooltips = {k: " ".join(to_text(v).split()) for k, v in res.entries}
    back: dict[str, tuple[BackLink, ...]] = {}
    if backlinks:
        for k, places in res.backlinks.items():
            seen: dict[tuple[str, str], BackLink] = {}
            for p in places:
                seen.setdefault((p.document, p.section), BackLink(
                    p.document, titles.get(p.document, p.document), p.section, p.anchor))
            back[k] = tuple(seen.values())
    check = check or Config()
    # validation: the .bib rules, then the book's citations (unknown keys, unused entries),
    # one configuration for both, as `refbook check --docs` applies it
    bib_problems = _bib_checks(bib, check, files_digest(bibfiles), cache_dir)
    used = set(bib.keys()) if everything else {k for k, _ in res.entries} | cited_set
    unused = unused_entries(bib, used) if check.enabled(Code.UNUSED_ENTRY) else []
    cite_problems = apply_config([*res.diagnostics, *problems], check, bib)
    cite_problems += _summed_up(apply_config(unused, check, bib))
    book = Book(res, tuple(all_specs), listed, anchors, home, local, tooltips, back, {},
                (*bib_problems, *cite_problems), tuple(bib_problems),
                files_digest(bibfiles), entries)
    book.fingerprints = fingerprints(book, sites)
    return book


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


def fingerprints(book: Book, sites: Mapping[str, tuple[CitationSite, ...]]) -> dict[str, str]:
    """Per page, a digest of everything refbook puts on it (citations, links, tooltips, lists)."""
    res = book.resolution
    parts: dict[str, list[object]] = {}
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
