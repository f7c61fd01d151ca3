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
import re
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.config import Config
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.ir import Span, Text
from refbook.items import Items, _item, load_items, save_items
from refbook.memo import code_stamp, load_memo, save_memo
from refbook.models import Location
from refbook.readers import read_bibliography
from refbook.records import replace
from refbook.registry import KeyIndex, Registry, Resolution, unresolved_key
from refbook.render.reference_list import (
    CitingPlace,
    anchor,
    local_anchor,
    rendered_title,
)
from refbook.render.reference_list import backlinks as entry_backlinks
from refbook.render.text import to_line
from refbook.styles import CslStyle, get_style
from refbook.validate import apply_config, check_bibliography, printed_key, recheck_printed
from refbook.validate.citations import unused_entries
from refbook.validate.report import IGNORE_FIELD, INFO_LIMIT
from sphinx_refbook.filters import FilterError, compile_filter, evaluate
from sphinx_refbook.render import item_key

# the records a no-op build unpickles (ListSpec in the environment, Book in the cache folder)
# live in the light module: such a build imports nothing else of the book; files pickled by
# earlier versions name sphinx_refbook.book.*, still found here
from sphinx_refbook.spec import Book, ListSpec, Target, files_digest

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Mapping, Sequence

    from refbook.csl import Item
    from refbook.ir import Inlines
    from refbook.models import Bibliography
    from refbook.registry import CitationSite
    from refbook.render.reference_list import BackLinks
    from refbook.styles.pybtex_refs import Ref
    from refbook.syntax import CiteRef
    from sphinx_refbook.compat import Compat

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
    syntaxes: Sequence[str] = ("markdown",),
    compat: Compat | None = None,
    nocite_at: Mapping[str, tuple[tuple[int, str], ...]] | None = None,
    nocite_lines: Mapping[str, tuple[tuple[str, int], ...]] | None = None,
    bib_digest: str | None = None,
) -> Book:
    # nocite_at: per page, each :cite:empty: key with the number of citations before it
    """Format the book. ``order`` is the reading order of documents; ``auto_doc`` receives the
    book's list when no spec exists; ``footsites`` are the footnote citations (formatted apart:
    no list shows their entries); ``syntaxes`` are those of the pages (``rst``, ``markdown``,
    ``myst``), for hints that show a citation as the pages write one. ``compat``:
    sphinxcontrib-bibtex's look (pybtex's lists and labels, its referencing styles) over the same
    lists, links and checks. ``bib_digest``: :func:`files_digest` of ``bibfiles`` if the caller
    has it."""
    bib = read_bibliography(list(bibfiles), cache_dir=cache_dir)
    style = get_style(style)
    cited_sites = sites
    aliases: dict[str, str] = {}
    if compat is not None:
        # keys cited with a list's :keyprefix: name that list's entries: the registry (unknown
        # keys, back-links) sees the entries' keys
        sites, aliases = _unprefixed(bib, sites, specs)
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
        # with :keyprefix: (sphinxcontrib-bibtex), "cited" means cited with the list's prefix
        p_sites, p_cited, p_docs = ((sites, cited_set, cited_docs) if compat is None else
                                    _prefix_view(cited_sites, spec.keyprefix, aliases))
        if spec.scope == "book":
            keys = p_cited | set(nocited)
        elif spec.scope == "page":
            keys = {k for s in p_sites.get(spec.docname, ()) for k in s.citation.keys}
            keys |= set(nocite.get(spec.docname, ()))
        elif spec.scope == "all":
            keys = set(bib.keys())
            everything = True
        elif spec.scope == "notcited":
            keys = set(bib.keys()) - p_cited - set(nocited)
        else:
            keys = _filtered(bib, spec, p_cited | set(nocited), p_docs, problems)
        keys = _restricted(bib, spec, keys, problems)
        wanted[spec.ident] = keys
    extra = [] if everything else sorted(
        {k for keys in wanted.values() for k in keys} - cited_set - set(nocited))
    nocite_arg = ["*"] if everything else [*dict.fromkeys(nocited), *extra]
    if cache_dir is not None:
        # the conversions (entry -> CSL item) of earlier builds: an incremental build converts
        # only new or edited entries, as MkDocs does (refbook.items)
        load_items(cache_dir)
    csl_items = LazyItems(bib, style.language)
    # where each :cite:empty: key is first written (its page and line)
    nocite_where: dict[str, Location] = {}
    for doc in [*doc_order, *sorted(set(nocite_lines or {}) - set(doc_order))]:
        for k, line in (nocite_lines or {}).get(doc, ()):
            nocite_where.setdefault(k, Location(doc, line))
    res = registry.resolve(bib, csl_items, style, order=doc_order, nocite=nocite_arg,
                           memo_dir=cache_dir, nocite_where=nocite_where)
    if cache_dir is not None:
        save_items(Items(bib, style.language), cache_dir)
    entries = dict(res.entries)
    items: dict[tuple[str, int], dict[str, tuple[str, Inlines]]] = {}
    unformatted: list[Diagnostic] = []
    if compat is None:
        listed = {spec.ident: tuple(k for k, _ in res.entries if k in wanted[spec.ident])
                  for spec in all_specs}
    else:
        listed, items, styles, unformatted = _pybtex_lists(
            bib, all_specs, wanted, cited_sites, doc_order, nocite_at or {}, compat)
        problems += _duplicate_labels(all_specs, listed, items)
    home_spec: dict[str, tuple[str, int]] = {}
    # sphinxcontrib-bibtex's citations link to its citation lists only (not bullet or
    # enumerated ones): those come first in its look
    rounds = ([[x for x in all_specs if x.list_type == "citation"], all_specs]
              if compat is not None else [all_specs])
    for candidates in rounds:
        for spec in candidates:
            if spec.scope in ("book", "all"):
                for k in listed[spec.ident]:
                    home_spec.setdefault(spec.keyprefix + k, spec.ident)
        for spec in candidates:
            for k in listed[spec.ident]:
                home_spec.setdefault(spec.keyprefix + k, spec.ident)
    anchors: dict[tuple[str, int], dict[str, str]] = {}
    home: dict[str, Target] = {}
    local: dict[tuple[str, str], str] = {}
    used_ids: dict[str, set[str]] = {}
    for spec in all_specs:
        ids: dict[str, str] = {}
        for k in listed[spec.ident]:
            cited_as = spec.keyprefix + k
            taken = used_ids.setdefault(spec.docname, set())
            templated = _templated_id(compat, spec, cited_as)
            if templated and templated not in taken:
                ids[k] = templated  # sphinxcontrib-bibtex's bibtex_cite_id
                if home_spec[cited_as] == spec.ident:
                    home[cited_as] = Target(spec.docname, ids[k])
            elif home_spec[cited_as] == spec.ident:
                ids[k] = _docutils_id(compat, anchor(cited_as), taken)
                home[cited_as] = Target(spec.docname, ids[k])
            else:
                ids[k] = _docutils_id(compat, local_anchor(cited_as, spec.docname, spec.index),
                                      taken)
            taken.add(ids[k])
        anchors[spec.ident] = ids
    for candidates in rounds:  # a citation links to a list on its own page first
        for spec in candidates:
            for k, ident in anchors[spec.ident].items():
                local.setdefault((spec.docname, spec.keyprefix + k), ident)
    if all_specs:  # a book without any list (no directive, no automatic one) links nothing by choice
        problems += _unlisted(bib, cited_sites if compat else sites, doc_order, home, local,
                              aliases)
    foot, foot_used = _footnotes(bib, csl_items, style, doc_order, footsites or {}, cache_dir)
    problems += foot.diagnostics
    tooltips = {k: to_line(v) for k, v in res.entries}
    if compat is not None:
        tooltips = _pybtex_tooltips(bib, all_specs, listed, items, styles, compat, aliases)
        res = replace(res, citations=_pybtex_citations(
            bib, cited_sites, all_specs, anchors, items, home, local, compat, aliases))
    back: dict[str, BackLinks] = {}
    places: dict[str, tuple[CitingPlace, ...]] = {}
    if backlinks or compat is not None:
        # (sphinxcontrib-bibtex's look links an entry's label back to the page's citations
        # whatever refbook_backlinks says: docutils' back-references)
        back, places = _backlinks(res, sites, titles)
        back = back if backlinks else {}
    check = check or Config()
    # validation: the .bib rules, then the book's citations (unknown keys, unused entries),
    # one configuration for both, as `refbook check --docs` applies it
    if bib_digest is None:  # the caller's, when it digested the files (10 MB for 20,000 entries)
        bib_digest = files_digest(bibfiles)
    # the entries the book prints: the rules about what the style prints report only those
    used = set(bib.keys()) if everything else {k for k, _ in res.entries} | cited_set | foot_used
    printed = None if everything else frozenset(
        {k for k, _ in res.entries} | {res.key_of(k) for k in cited_set}
        | {foot.key_of(k) for k in foot_used})
    bib_problems = _bib_checks(bib, check, bib_digest, cache_dir, printed)
    # an entry the style could not format is said once: by the missing-field rule at the entry
    # when it reports the entry, else here at the list that shows pybtex's message instead
    reported = {d.key for d in bib_problems if d.code is Code.MISSING_FIELD}
    problems += [d for d in unformatted if d.key not in reported]
    cite_problems = apply_config([*res.diagnostics, *problems], check, bib)
    cite_problems += _unused_infos(bib, used, check, syntaxes)
    book = Book(res, tuple(all_specs), listed, anchors, home, local, tooltips, back, {},
                (*bib_problems, *cite_problems), tuple(bib_problems),
                bib_digest, entries,
                _foot_authors(foot, footsites or {}, csl_items, style),
                {k: _without_label(v) for k, v in foot.entries}, items, aliases)
    if compat is not None:
        book.foot_entries, book.foot_authors = _pybtex_footnotes(bib, footsites or {}, compat)
        book.foot_texts = _plugin_foot_texts(bib, footsites or {}, compat)
        book.citing = places
    book.fingerprints = fingerprints(book, cited_sites, footsites or {})
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
               titles: Mapping[str, str],
               ) -> tuple[dict[str, BackLinks], dict[str, tuple[CitingPlace, ...]]]:
    """Each entry's back-links, titles shown as the pages show them, and the places they come
    from (every citation of the entry).

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
    citing: dict[str, tuple[CitingPlace, ...]] = {}
    for k, places in res.backlinks.items():
        found = [CitingPlace(p.document, pages.get(p.document, p.document),
                             sections.get((p.document, p.section), p.section),
                             f"{p.document}#{p.anchor}") for p in places]
        citing[k] = tuple(found)
        links = entry_backlinks(found)
        if links is not None:
            out[k] = links
    return out, citing


#: (bib digest, options, printed entries) → (the printed entries' keys, the .bib files'
#: diagnostics): a citation edit, which re-resolves the book, does not re-run the rules (they
#: read only the .bib files and which entries the book prints), or, when it changes the entries
#: printed, runs them on those entries only (``refbook.validate.recheck_printed``)
_BIB_CHECKS: dict[tuple[str, Config, str | None],
                  tuple[frozenset[str] | None, tuple[Diagnostic, ...]]] = {}


def _bib_checks(bib: Bibliography, check: Config, digest: str,
                cache_dir: str | None, printed: Collection[str] | None) -> list[Diagnostic]:
    from refbook import __version__

    key = (digest, check, printed_key(printed))
    file = (Path(cache_dir) / f"bib-checks-{__version__}-{code_stamp()}.pickle"
            if cache_dir else None)
    if file is not None:
        load_memo(_BIB_CHECKS, file)
    hit = _BIB_CHECKS.get(key)
    if hit is not None:
        return list(hit[1])
    now = None if printed is None else frozenset(printed)
    found = None
    for (old_digest, old_check, _), (was, previous) in reversed(_BIB_CHECKS.items()):
        if (old_digest, old_check) == (digest, check):  # the same files and options, lately
            found = recheck_printed(previous, bib, check, was, now)
            break
    if found is None:
        found = check_bibliography(bib, check, memo_dir=cache_dir, printed=now)
    _BIB_CHECKS[key] = (now, tuple(found))
    if file is not None:
        save_memo({key: _BIB_CHECKS[key]}, file, changed=True)
    return list(found)


def _summed_up(unused: list[Diagnostic]) -> list[Diagnostic]:
    """Unused entries as the build log shows them: at info level (the default) the first ones
    and one line for the rest, so that a shared bibliography of 20,000 entries does not put
    20,000 diagnostics in the cached book; at warning or error level, each one."""
    if len(unused) <= INFO_LIMIT or any(d.effective_severity is not Severity.INFO
                                        for d in unused):
        return unused
    return [*unused[:INFO_LIMIT - 1], _more_unused(len(unused) - INFO_LIMIT + 1)]


def _more_unused(rest: int) -> Diagnostic:
    return Diagnostic(
        Code.UNUSED_ENTRY, f"{rest} more entries of the bibliography are never cited nor listed "
        "in the book", None, "'refbook check BIB --docs DOCS' lists each; give unused-entry the "
        "severity warning to list them here, or off", severity=Severity.INFO)


def _unused_infos(bib: Bibliography, used: set[str], check: Config,
                  syntaxes: Sequence[str]) -> list[Diagnostic]:
    """``_summed_up(apply_config(unused_entries(...)))``, without making the diagnostics the
    log does not show: at info level (the default) with more unused entries than it prints,
    only the first ones by place become diagnostics and the rest a count (a build on a shared
    bibliography of 20,000 entries made and configured 19,700 of them to print a handful).
    Whether an entry is kept at all (``refbook-ignore``, ``per_entry_ignore``) is still asked
    of ``apply_config``, for the entries that can say so."""
    if not check.enabled(Code.UNUSED_ENTRY):
        return []
    entries = [e for e in bib if e.key not in used]
    if (len(entries) <= INFO_LIMIT
            or check.severity_of(Code.UNUSED_ENTRY) is not Code.UNUSED_ENTRY.default_severity
            or Code.UNUSED_ENTRY.default_severity is not Severity.INFO):
        return _summed_up(apply_config(unused_entries(entries, used, syntaxes=syntaxes),
                                       check, bib))
    may_drop = [e for e in entries if IGNORE_FIELD in e
                or (check.per_entry_ignore and check.ignored_for(e.key))]
    kept_keys = {d.key for d in apply_config(unused_entries(may_drop, used, syntaxes=syntaxes),
                                             check, bib)}
    dropped = {e.key for e in may_drop} - kept_keys
    # apply_config's order: by file and line (a stable sort of the bibliography's order)
    kept = sorted((e for e in entries if e.key not in dropped),
                  key=lambda e: (e.location.file, e.location.line))
    if len(kept) <= INFO_LIMIT:
        return apply_config(unused_entries(kept, used, syntaxes=syntaxes), check, bib)
    shown = apply_config(unused_entries(kept[:INFO_LIMIT - 1], used, syntaxes=syntaxes), check,
                         bib)
    return [*shown, _more_unused(len(kept) - INFO_LIMIT + 1)]


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


def _duplicate_labels(specs: Sequence[ListSpec], listed: Mapping[tuple[str, int], tuple[str, ...]],
                      items: Mapping[tuple[str, int], Mapping[str, tuple[str, Inlines]]],
                      ) -> list[Diagnostic]:
    """sphinxcontrib-bibtex's look: a label that a citation list gives to an entry when an
    earlier citation list of the book gave it to another (pybtex labels each list on its own,
    so two pages may both show a [1]), at the later list, in sphinxcontrib-bibtex's words
    first. Bullet and enumerated lists show no labels."""
    out = []
    first: dict[str, tuple[str, ListSpec]] = {}  # label → key, list
    for spec in specs:
        if spec.list_type != "citation":
            continue
        for key in listed[spec.ident]:
            label = items[spec.ident][key][0]
            seen = first.setdefault(label, (key, spec))
            if seen[0] != key:
                other = seen[1]
                out.append(Diagnostic(
                    Code.DUPLICATE_LABEL,
                    f'duplicate label "{label}" for keys "{seen[0]}" and "{key}": the list '
                    f"of {other.docname} (line {other.line}) labels {seen[0]!r} [{label}] and "
                    f"this one labels {key!r} [{label}], so readers cannot tell them apart",
                    Location(spec.docname, spec.line),
                    "give the lists different :labelprefix: values, or use one list of the "
                    "whole book",
                    key=key))
    return out


def _unlisted(bib: Bibliography, sites: Mapping[str, tuple[CitationSite, ...]],
              doc_order: Sequence[str], home: Mapping[str, Target],
              local: Mapping[tuple[str, str], str],
              aliases: Mapping[str, str] | None = None) -> list[Diagnostic]:
    """Each citation of an entry that no list of the book shows, at its line: it is rendered
    but cannot link anywhere (an unknown key is reported as such instead)."""
    out = []
    aliases = aliases or {}
    for doc in doc_order:
        for site in sites.get(doc, ()):
            for key in dict.fromkeys(site.citation.keys):
                if aliases.get(key, key) in bib and key not in home and (doc, key) not in local:
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
                book.foot_texts.get((doc, s.index)),
                [(k, book.foot_entries.get(k)) for k in s.citation.keys]))
    for doc, doc_sites in sites.items():
        for s in doc_sites:
            keys = s.citation.keys
            parts.setdefault(doc, []).append((
                s.index, s.anchor, res.citations.get((doc, s.index)),
                [(k, book.target(doc, k), book.tooltips.get(k)) for k in keys]))
    for spec in book.specs:
        anchors = book.anchors[spec.ident]
        items = book.items.get(spec.ident, {})
        parts.setdefault(spec.docname, []).append((spec, [
            (k, book.entries.get(k), anchors[k], book.backlinks.get(k, ()), items.get(k))
            for k in book.listed[spec.ident]]))
    return {doc: _digest(repr(p)) for doc, p in parts.items()}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


# -- sphinxcontrib-bibtex's look ---------------------------------------------------------------


def _unprefixed(bib: Bibliography, sites: Mapping[str, tuple[CitationSite, ...]],
                specs: Sequence[ListSpec],
                ) -> tuple[dict[str, tuple[CitationSite, ...]], dict[str, str]]:
    """The sites with each key cited as ``<keyprefix><key>`` of a list replaced by the entry's
    key, and those cited keys → entry keys."""
    prefixes = sorted({s.keyprefix for s in specs if s.keyprefix}, key=len, reverse=True)
    aliases: dict[str, str] = {}
    if not prefixes:
        return dict(sites), aliases
    out: dict[str, tuple[CitationSite, ...]] = {}
    for doc, doc_sites in sites.items():
        new = []
        for site in doc_sites:
            refs = []
            for ref in site.citation.refs:
                if ref.key not in bib:
                    for prefix in prefixes:
                        if ref.key.startswith(prefix) and ref.key[len(prefix):] in bib:
                            aliases[ref.key] = ref.key[len(prefix):]
                            ref = replace(ref, key=ref.key[len(prefix):])
                            break
                refs.append(ref)
            new.append(replace(site, citation=replace(site.citation, refs=tuple(refs))))
        out[doc] = tuple(new)
    return out, aliases


def _prefix_view(sites: Mapping[str, tuple[CitationSite, ...]], prefix: str,
                 aliases: Mapping[str, str],
                 ) -> tuple[dict[str, tuple[CitationSite, ...]], set[str], dict[str, list[str]]]:
    """What a list with ``:keyprefix: prefix`` counts as cited: the keys cited with that prefix
    (as entry keys), per page and book-wide, and the pages citing each."""
    view: dict[str, tuple[CitationSite, ...]] = {}
    cited: set[str] = set()
    docs: dict[str, list[str]] = {}
    for doc, doc_sites in sites.items():
        kept = []
        for site in doc_sites:
            refs = tuple(replace(r, key=r.key[len(prefix):]) for r in site.citation.refs
                         if r.key.startswith(prefix)
                         and (not prefix or aliases.get(r.key) == r.key[len(prefix):])
                         and (prefix or r.key not in aliases))
            if refs:
                kept.append(replace(site, citation=replace(site.citation, refs=refs)))
                for r in refs:
                    cited.add(r.key)
                    if doc not in docs.setdefault(r.key, []):
                        docs[r.key].append(doc)
        view[doc] = tuple(kept)
    return view, cited, docs


def _pybtex_lists(bib: Bibliography, specs: Sequence[ListSpec],
                  wanted: Mapping[tuple[str, int], set[str]],
                  sites: Mapping[str, tuple[CitationSite, ...]], doc_order: Sequence[str],
                  nocite_at: Mapping[str, tuple[tuple[int, str], ...]], compat: Compat,
                  ) -> tuple[dict[tuple[str, int], tuple[str, ...]],
                             dict[tuple[str, int], dict[str, tuple[str, Inlines]]],
                             dict[tuple[str, int], str], list[Diagnostic]]:
    """Each list as sphinxcontrib-bibtex makes it: its entries in order of citation (as cited,
    prefix included), then of the .bib files, sorted, labelled and formatted by its pybtex
    style; and each entry the style could not format (it shows pybtex's message instead, as
    in sphinxcontrib-bibtex, which warns at the list with that message)."""
    # pybtex is imported only by a book in sphinxcontrib-bibtex's look
    from refbook.styles.pybtex_bridge import format_entries

    cited_order: list[str] = []
    for doc in [*doc_order, *sorted(set(nocite_at) - set(doc_order))]:
        # citations and :cite:empty: keys in page order (each :cite:empty: knows how many
        # citations precede it)
        events = [(s.index, 1, k) for s in sites.get(doc, ()) for k in s.citation.keys]
        events += [(before, 0, k) for before, k in nocite_at.get(doc, ())]
        cited_order += [k for _, _, k in sorted(events, key=lambda e: (e[0], e[1]))]
    listed: dict[tuple[str, int], tuple[str, ...]] = {}
    items: dict[tuple[str, int], dict[str, tuple[str, Inlines]]] = {}
    styles: dict[tuple[str, int], str] = {}
    unformatted: list[Diagnostic] = []
    for spec in specs:
        keys = {k for k in wanted[spec.ident] if k in bib}
        first = [k[len(spec.keyprefix):] for k in cited_order if k.startswith(spec.keyprefix)]
        ordered = [*dict.fromkeys(k for k in first if k in keys),
                   *(e.key for e in bib if e.key in keys)]
        style = spec.style or compat.default_style
        formatted = format_entries([bib[k] for k in dict.fromkeys(ordered)], style,
                                   labelprefix=spec.labelprefix)
        listed[spec.ident] = tuple(f.key for f in formatted)
        items[spec.ident] = {f.key: (f.label, f.text) for f in formatted}
        styles[spec.ident] = style
        unformatted += [Diagnostic(
            Code.UNFORMATTED_ENTRY,
            f"{f.missing}: pybtex's {style!r} style cannot format {f.key!r}, so this list "
            "shows that message in bold in its place",
            Location(spec.docname, spec.line),
            "add the field to the entry, or choose another style: bibtex_default_style, or "
            ":style: on the list", key=f.key) for f in formatted if f.missing]
    return listed, items, styles, unformatted


def _docutils_id(compat: Compat | None, ident: str, taken: set[str]) -> str:
    """In sphinxcontrib-bibtex's look, ids are docutils ids (``ref-2009-mandel`` for the key
    ``2009:mandel``) as there. Keys that differ only in accents or punctuation (``Tèst``,
    ``Tést``) make the same id: the later ones get a number (``ref-test-1``), still an id a
    stylesheet can select (the key as written is not one)."""
    if compat is None:
        return ident
    from docutils.nodes import make_id

    made = str(make_id(ident))
    if not made:
        return ident
    unique, n = made, 0
    while unique in taken:
        n += 1
        unique = f"{made}-{n}"
    return unique


def _templated_id(compat: Compat | None, spec: ListSpec, key: str) -> str:
    if compat is None or not compat.cite_id:
        return ""
    from docutils.nodes import make_id

    return str(make_id(compat.cite_id.format(bibliography_count=spec.index + 1, key=key)))


def _pybtex_tooltips(bib: Bibliography, specs: Sequence[ListSpec],
                     listed: Mapping[tuple[str, int], tuple[str, ...]],
                     items: Mapping[tuple[str, int], dict[str, tuple[str, Inlines]]],
                     styles: Mapping[tuple[str, int], str], compat: Compat,
                     aliases: Mapping[str, str]) -> dict[str, str]:
    """The hover text of each cited key: its entry as plain text, in bibtex_tooltips_style (or
    the list's style) with the list's label; none with bibtex_tooltips = False."""
    from refbook.styles.pybtex_bridge import format_entry

    if not compat.tooltips:
        return {}
    out: dict[str, str] = {}
    for spec in specs:
        for k in listed[spec.ident]:
            cited_as = spec.keyprefix + k
            if cited_as in out:
                continue
            style = compat.tooltips_style or styles[spec.ident]
            out[cited_as] = format_entry(bib[k], style, items[spec.ident][k][0]).plain
    del aliases  # the tooltips are keyed as cited
    return out


#: a role's target text: between the backticks of ``:cite:p:`…``` or ``{cite:p}`…```
_ROLE_TEXT = re.compile(r"`(.*)`\Z", re.DOTALL)


def _raw_targets(site: CitationSite) -> list[tuple[str, str]]:
    """(pre, post) of each key as written (sphinxcontrib-bibtex shows them unchanged)."""
    from sphinx_refbook.roles import raw_targets

    m = _ROLE_TEXT.search(site.citation.source)
    if m is not None:
        found = raw_targets(m.group(1))
        if len(found) == len(site.citation.refs):
            return found
    return [(r.prefix, _post(r)) for r in site.citation.refs]


def _post(ref: CiteRef) -> str:
    """A Pandoc citation's locator and suffix, as post-text."""
    label = {"page": "p.", "chapter": "chap.", "section": "sec."}.get(ref.label, ref.label)
    text = f"{label} {ref.locator}".strip() if ref.locator else ""
    rest = ref.suffix.strip().lstrip(",").strip()
    return ", ".join(p for p in (text, rest) if p)


_PANDOC_FORMS = {"p": "p", "t": "t"}


def _pybtex_citations(bib: Bibliography, sites: Mapping[str, tuple[CitationSite, ...]],
                      specs: Sequence[ListSpec],
                      anchors: Mapping[tuple[str, int], dict[str, str]],
                      items: Mapping[tuple[str, int], dict[str, tuple[str, Inlines]]],
                      home: Mapping[str, Target], local: Mapping[tuple[str, str], str],
                      compat: Compat, aliases: Mapping[str, str],
                      ) -> dict[tuple[str, int], Inlines]:
    """Each citation's text in the referencing style, with the label of the list it links to."""
    from refbook.styles.pybtex_refs import Ref
    from sphinx_refbook.compat import citation_formatter

    cite = citation_formatter(compat.reference_style)
    labels: dict[tuple[str, str], str] = {}
    # sphinxcontrib-bibtex puts a citation's references in the order of its lists' entries
    # (lists in the order it reads the pages: by name), those of a list on the citing page first
    rank: dict[str, tuple[int, int]] = {}
    local_rank: dict[tuple[str, str], tuple[int, int]] = {}
    for n, spec in enumerate(sorted(specs, key=lambda x: (x.docname, x.index))):
        for pos, (k, ident) in enumerate(anchors[spec.ident].items()):
            labels[spec.docname, ident] = items[spec.ident][k][0]
            rank.setdefault(spec.keyprefix + k, (n, pos))
            local_rank.setdefault((spec.docname, spec.keyprefix + k), (n, pos))
    out: dict[tuple[str, int], Inlines] = {}
    for doc, doc_sites in sites.items():
        for site in doc_sites:
            refs: list[tuple[tuple[int, tuple[int, int]], Ref]] = []
            seen: set[str] = set()
            for ref, (pre, post) in zip(site.citation.refs, _raw_targets(site), strict=True):
                if ref.key in seen:  # a key cited twice in one citation is shown once
                    continue
                seen.add(ref.key)
                anchor_id = local.get((doc, ref.key))
                target = Target(doc, anchor_id) if anchor_id else home.get(ref.key)
                label = labels.get((target.docname, target.anchor), "") if target else ""
                where = local_rank.get((doc, ref.key))
                order = (0, where) if where else (1, rank.get(ref.key, (len(specs), 0)))
                refs.append((order, Ref(ref.key, bib.get(aliases.get(ref.key, ref.key)), label,
                                        pre, post)))
            form = site.form or "p"
            if all(r.suppress_author for r in site.citation.refs) and form in _PANDOC_FORMS:
                form = "year"
            out[doc, site.index] = cite(form, [r for _, r in sorted(refs, key=lambda x: x[0])])
    return out


def _plugin_foot_texts(bib: Bibliography, footsites: Mapping[str, tuple[CitationSite, ...]],
                       compat: Compat) -> dict[tuple[str, int], tuple[Inlines, ...]]:
    """bibtex_foot_reference_style naming a plugin: each footnote citation's text around its
    footnote references, as the plugin writes it (a citation it cannot write keeps the 'foot'
    style's text)."""
    from refbook.styles.pybtex_refs import Ref
    from sphinx_refbook.compat import foot_formatter

    formatter = foot_formatter(compat.foot_reference_style)
    if formatter is None:
        return {}
    out: dict[tuple[str, int], tuple[Inlines, ...]] = {}
    for doc, doc_sites in footsites.items():
        for site in doc_sites:
            refs = [Ref(r.key, bib.get(r.key)) for r in site.citation.refs]
            parts = formatter(site.form or "p", refs)
            if parts is not None:
                out[doc, site.index] = parts
    return out


def _pybtex_footnotes(bib: Bibliography, footsites: Mapping[str, tuple[CitationSite, ...]],
                      compat: Compat,
                      ) -> tuple[dict[str, Inlines], dict[tuple[str, int], dict[str, Inlines]]]:
    """What footnote citations show in sphinxcontrib-bibtex's look: each footnote the entry in
    bibtex_default_style (no label), a textual one's author part in the 'foot' style."""
    from refbook.styles.pybtex_bridge import format_entry
    from refbook.styles.pybtex_refs import BUILTIN, Ref, author_part

    entries: dict[str, Inlines] = {}
    authors: dict[tuple[str, int], dict[str, Inlines]] = {}
    for doc, doc_sites in footsites.items():
        for site in doc_sites:
            parts: dict[str, Inlines] = {}
            for ref in site.citation.refs:
                entry = bib.get(ref.key)
                if entry is None:
                    continue
                if ref.key not in entries:
                    entries[ref.key] = format_entry(entry, compat.default_style).text
                if site.citation.mode == "narrative":
                    parts[ref.key] = author_part(BUILTIN["foot"], Ref(ref.key, entry),
                                                 full=site.form.endswith("s"))
            if site.citation.mode == "narrative":
                authors[doc, site.index] = parts
    return entries, authors
