"""The book-wide citation registry: who cites what, where, and how it all formats.

Hosts record each document's citations (with ``(document, line)`` and section) as they read it,
drop a document when it is removed or re-read, and merge registries built by parallel workers.
:meth:`Registry.resolve` then formats the whole book at once, so year suffixes, added names and
citation numbers are book-wide, and records every citing place of each key for back-links.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic
from refbook.gcpause import paused_gc
from refbook.items import Items
from refbook.models import Location
from refbook.records import field, record, replace
from refbook.styles import CslStyle, get_style

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from refbook.csl import Item
    from refbook.ir import Inlines
    from refbook.models import Bibliography
    from refbook.styles.csl.processor import CiteItem, Processor
    from refbook.syntax import Citation


@record(frozen=True)
class CitationSite:
    """One citation in one document. ``index`` orders the citations inside the document."""

    document: str
    index: int
    citation: Citation
    line: int = 0
    section: str = ""
    anchor: str = ""
    #: the host's name for the citation's form (sphinxcontrib-bibtex's role: ``p``, ``t``,
    #: ``year`` …), for hosts that write it in another tool's referencing style
    form: str = ""
    #: note styles: the footnote the citation is printed in, numbered per document in reading
    #: order (0: the host does not say — each citation is a note of its own, in index order)
    note: int = 0
    #: note styles: written inside a footnote (printed there inline, in parentheses)
    in_note: bool = False


@record(frozen=True)
class Resolution:
    """The formatted book: citation texts per site, the reference list, back-links, problems."""

    citations: dict[tuple[str, int], Inlines]
    entries: tuple[tuple[str, Inlines], ...]
    backlinks: dict[str, tuple[CitationSite, ...]]
    diagnostics: tuple[Diagnostic, ...]
    numbers: dict[str, int] = field(default_factory=dict)
    #: ``fold_case``: each key cited with other letter case → the entry's key
    aliases: dict[str, str] = field(default_factory=dict)
    #: note styles: the part of a narrative citation printed in the text ("Lin" of "Lin¹
    #: says"); its ``citations`` text is the footnote's
    in_text: dict[tuple[str, int], Inlines] = field(default_factory=dict)

    def key_of(self, key: str) -> str:
        """The entry key a cited key stands for (itself unless folded)."""
        return self.aliases.get(key, key)

    def entry(self, key: str) -> Inlines | None:
        for k, v in self.entries:
            if k == key:
                return v
        return None


def cite_items(citation: Citation) -> list[CiteItem]:
    """Turn a parsed citation into the style's cite items (narrative → author + (year))."""
    from refbook.styles.csl.processor import CiteItem

    items: list[CiteItem] = []
    for ref in citation.refs:
        from refbook.ir import Text

        prefix: Inlines = (Text(ref.prefix + " "),) if ref.prefix else ()
        suffix_text = ref.suffix
        if suffix_text and not suffix_text[0].isspace() and suffix_text[0] not in ",;.:":
            suffix_text = " " + suffix_text
        suffix: Inlines = (Text(suffix_text),) if suffix_text else ()
        if citation.mode == "narrative":
            items.append(CiteItem(ref.key, mode="author-only", all_names=ref.all_authors))
            items.append(CiteItem(ref.key, prefix, suffix, ref.locator, ref.label,
                                  mode="suppress-author", all_names=ref.all_authors))
        else:
            mode = "suppress-author" if ref.suppress_author else "normal"
            items.append(CiteItem(ref.key, prefix, suffix, ref.locator, ref.label, mode=mode,
                                  all_names=ref.all_authors))
    return items


class Registry:
    """Citations of every document of a book, in document order."""

    def __init__(self) -> None:
        self._docs: dict[str, tuple[CitationSite, ...]] = {}

    def set_document(self, document: str, citations: Iterable[Citation], *,
                     sections: Sequence[str] | None = None) -> None:
        """Record (or replace) all citations of ``document``."""
        sites = []
        for i, c in enumerate(citations):
            section = sections[i] if sections is not None and i < len(sections) else ""
            sites.append(CitationSite(document, i, c, c.line, section))
        self._docs[document] = tuple(sites)

    def add_sites(self, document: str, sites: Iterable[CitationSite]) -> None:
        self._docs[document] = tuple(sites)

    def drop_document(self, document: str) -> None:
        self._docs.pop(document, None)

    def merge(self, other: Registry, documents: Iterable[str] | None = None) -> None:
        """Take over ``other``'s documents (all, or the listed ones), as after a parallel read."""
        for doc in documents if documents is not None else list(other._docs):
            if doc in other._docs:
                self._docs[doc] = other._docs[doc]

    def documents(self) -> tuple[str, ...]:
        return tuple(self._docs)

    def sites(self, order: Sequence[str] | None = None) -> list[CitationSite]:
        docs = list(order) if order is not None else list(self._docs)
        docs += [d for d in self._docs if d not in docs]
        return [s for d in docs for s in self._docs.get(d, ())]

    def cited_keys(self, order: Sequence[str] | None = None) -> list[str]:
        """Keys in order of first citation."""
        seen: dict[str, None] = {}
        for s in self.sites(order):
            for k in s.citation.keys:
                seen.setdefault(k, None)
        return list(seen)

    def resolve(self, bibliography: Bibliography, items: Mapping[str, Item],
                style_name: str | CslStyle, *,
                order: Sequence[str] | None = None, nocite: Sequence[str] = (),
                memo_dir: str | None = None, fold_case: bool = False,
                locale: str | None = None,
                nocite_where: Mapping[str, Location] | None = None) -> Resolution:
        """Format every citation and the list, book-wide.

        ``items`` maps keys to CSL items (``refbook.items.items_for``). ``style_name``: a style
        (or what :func:`refbook.styles.get_style` takes), ``locale`` overriding its
        ``default-locale``. ``nocite`` adds keys to the list without a citation (``*`` adds every
        entry); ``nocite_where`` says where a nocite key is written, for its diagnostics.
        ``memo_dir`` (a host's cache folder) keeps formatting results across processes.
        ``fold_case``: a key that no entry has but one has with other letter case stands for
        that entry (a ``key-case`` warning), as pybtex and so mkdocs-bibtex look keys up;
        otherwise it is unknown (``cite-case``).
        """
        # the cyclic collector paused throughout: converting, sorting, disambiguating and
        # formatting allocate millions of objects, and the collections they would set off
        # rescan the host's whole heap again and again (refbook.gcpause)
        with paused_gc():
            return self._resolve(bibliography, items, style_name, order=order, nocite=nocite,
                                 memo_dir=memo_dir, fold_case=fold_case, locale=locale,
                                 nocite_where=nocite_where)

    def _resolve(self, bibliography: Bibliography, items: Mapping[str, Item],
                 style_name: str | CslStyle, *, order: Sequence[str] | None,
                 nocite: Sequence[str], memo_dir: str | None, fold_case: bool,
                 locale: str | None, nocite_where: Mapping[str, Location] | None) -> Resolution:
        style = get_style(style_name, locale=locale)
        if isinstance(items, Items) and items.language != style.language:
            # titles are converted for the style's language (sentence case only in English)
            items = Items(items.bibliography, style.language)
        keys = KeyIndex(items)
        written = self.sites(order)
        aliases = _case_aliases(written, nocite, items, keys) if fold_case else {}
        # the citations as the entries spell their keys
        sites = [_folded(s, aliases) for s in written] if aliases else written
        nocite = [aliases.get(k, k) for k in nocite]
        cited = list(dict.fromkeys(k for s in sites for k in s.citation.keys))
        listed = list(cited)
        if "*" in nocite:
            listed += [e.key for e in bibliography if e.key not in cited]
        else:
            listed += [k for k in nocite if k not in cited]
        known = [k for k in listed if k in items]
        # a book that cites and lists nothing formats nothing: no processor (nor its import)
        processor: Processor | None = (
            style.processor([items[k] for k in known], memo_dir=memo_dir, cited=cited)
            if known or sites else None)
        numbers = {k: i for i, k in enumerate(known, start=1)}
        diagnostics: list[Diagnostic] = []
        citations: dict[tuple[str, int], Inlines] = {}
        backlinks: dict[str, list[CitationSite]] = {}
        in_text: dict[tuple[str, int], Inlines] = {}
        noted = note_positions(sites, style) if style.kind == "note" else None
        for w, s in zip(written, sites, strict=True):
            assert processor is not None  # there are sites
            for k in w.citation.keys:
                backlinks.setdefault(aliases.get(k, k), []).append(s)
                if k not in items:
                    where = Location(s.document, s.line)
                    diagnostics.append(case_folded_key(k, aliases[k], where) if k in aliases
                                       else unresolved_key(k, where, keys))
            if noted is None:
                citations[(s.document, s.index)] = processor.cite(cite_items(s.citation))
            else:
                note, author = note_text(processor, s, noted[(s.document, s.index)])
                citations[(s.document, s.index)] = note
                if author is not None:
                    in_text[(s.document, s.index)] = author
        for k in nocite:
            if k != "*" and k not in items:
                written_at = (nocite_where or {}).get(k)
                diagnostics.append(unresolved_key(k, written_at, keys, what="nocite"))
        entries = tuple(processor.bibliography()) if processor is not None else ()
        if memo_dir is not None and processor is not None:
            style.save_memo(memo_dir)
        return Resolution(citations, entries, {k: tuple(v) for k, v in backlinks.items()},
                          tuple(diagnostics), numbers, aliases, in_text)


def note_positions(sites: Sequence[CitationSite],
                   style: CslStyle) -> dict[tuple[str, int], tuple[str, ...]]:
    """Note styles: each site's cite positions (one per cite item of :func:`cite_items`),
    computed per document in reading order (``refbook.notes.positions``)."""
    # imported here: only a note style's book uses them
    from refbook.notes import NoteCitation, NoteCite, near_note_distance, number_notes, positions

    distance = near_note_distance(style.style().options)
    by_doc: dict[str, list[CitationSite]] = {}
    for s in sites:
        by_doc.setdefault(s.document, []).append(s)
    out: dict[tuple[str, int], tuple[str, ...]] = {}
    for doc_sites in by_doc.values():
        numbers = number_notes([s.in_note for s in doc_sites])
        ordered = sorted(zip(doc_sites, numbers, strict=True),
                         key=lambda p: p[0].note or p[1])  # stable: reading order kept
        found = positions(
            [NoteCitation(tuple(NoteCite(c.id, c.locator, c.label, c.mode == "author-only")
                                for c in cite_items(s.citation)), s.note or n)
             for s, n in ordered], near_note_distance=distance)
        for (s, _), held in zip(ordered, found, strict=True):
            out[(s.document, s.index)] = held
    return out


def note_text(processor: Processor, site: CitationSite,
              held: tuple[str, ...]) -> tuple[Inlines, Inlines | None]:
    """Note styles: what the footnote of ``site`` says (its first letter upper case), or, for
    a citation written inside a footnote, its text there (in parentheses); and a narrative
    citation's part in the text (its author), else None."""
    from refbook.notes import (
        capitalized,
        detach_links,
        parenthesized,
        punctuation_into_quotes,
        starts_with_term,
    )

    items = [replace(c, position=p) for c, p in zip(cite_items(site.citation), held, strict=True)]
    author: Inlines | None = None
    if site.citation.mode == "narrative":
        author = processor.cite([c for c in items if c.mode == "author-only"])
        items = [c for c in items if c.mode != "author-only"]
    # capitalization is decided below, where the note's place is known
    note = processor.cite(items, note_start=False)
    if processor.style.locale.punctuation_in_quote:
        note = punctuation_into_quotes(note)
    note = detach_links(note)
    if site.in_note:
        return parenthesized(note), author
    # a footnote starts a sentence: its prefix ("See …") or a term ("Ibid.") is capitalized
    locale = processor.style.locale
    if items and (items[0].prefix or starts_with_term(
            note, (t for term in locale.terms.values() for t in (term.single, term.multiple)))):
        note = capitalized(note)
    return note, author


def _case_aliases(sites: Sequence[CitationSite], nocite: Sequence[str],
                  items: Mapping[str, Item], keys: KeyIndex) -> dict[str, str]:
    """Each cited (or ``nocite``) key that no entry has but one has with other letter case."""
    aliases: dict[str, str] = {}
    for k in [k for s in sites for k in s.citation.keys] + [k for k in nocite if k != "*"]:
        if k not in items and k not in aliases:
            right = keys.with_other_case(k)
            if right is not None:
                aliases[k] = right
    return aliases


def _folded(site: CitationSite, aliases: Mapping[str, str]) -> CitationSite:
    """The site with its citation's keys spelled as their entries."""
    if not any(r.key in aliases for r in site.citation.refs):
        return site
    refs = tuple(replace(r, key=aliases.get(r.key, r.key)) for r in site.citation.refs)
    return replace(site, citation=replace(site.citation, refs=refs))


class KeyIndex:
    """The keys of a bibliography, with a lower-case index for "did you mean" hints."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._keys: list[str] | None = None
        self._source = keys
        self._lower: dict[str, str] | None = None

    @property
    def keys(self) -> list[str]:
        if self._keys is None:
            self._keys = list(self._source)
        return self._keys

    def with_other_case(self, key: str) -> str | None:
        if self._lower is None:
            self._lower = {k.lower(): k for k in self.keys}
        return self._lower.get(key.lower())


def case_folded_key(key: str, right: str, location: Location | None) -> Diagnostic:
    """The diagnostic for a key cited with other letter case than its entry's, resolved to it."""
    return Diagnostic(
        Code.KEY_CASE,
        f"citation key {key!r} stands for the entry {right!r} (letter case ignored, as "
        "mkdocs-bibtex does)",
        location, hint=f"write it as the entry does, {right!r}: Pandoc, biber and Sphinx do "
                       "not ignore letter case", key=key)


def unresolved_key(key: str, location: Location | None, keys: KeyIndex, *,
                   what: str = "citation") -> Diagnostic:
    """The diagnostic for a cited key that no entry has: a wrong case, or unknown."""
    import difflib

    right = keys.with_other_case(key)
    if right is not None:
        return Diagnostic(
            Code.CITE_CASE,
            # the hint says keys are case-sensitive: the hosts print it after the message
            f"{what} key {key!r} is not in any bibliography file, but {right!r} is",
            location, hint=f"keys are case-sensitive: did you mean {right!r}?", key=key)
    close = difflib.get_close_matches(key, keys.keys, n=1, cutoff=0.75)
    hint = (f"did you mean {close[0]!r}? Otherwise add the entry to a .bib file." if close
            else "add an entry with this key to a .bib file, or fix the key")
    return Diagnostic(Code.UNKNOWN_KEY, f"{what} key {key!r} is not in any bibliography file",
                      location, hint=hint, key=key)
