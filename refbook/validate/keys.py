"""Rules for keys and duplicates: keys differing only in case, one work under several keys, two
works sharing one URL.

Exact duplicate keys are reported by the reader (``refbook.duplicate-key``), which keeps the
first entry; the rules here see the entries that were kept.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from refbook.diagnostics import Code, Diagnostic
from refbook.latex import to_text
from refbook.names import parse_names
from refbook.records import record
from refbook.validate.identifiers import arxiv_of, doi_of, url_key
from refbook.validate.report import at

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from refbook.config import Config
    from refbook.models import Bibliography, Entry, Field

__all__ = ["Signals", "check", "signals", "title_key"]


#: what LaTeX reads into other word characters than it shows: commands, math, comments (a
#: group's braces only group: they are not word characters, and what they hold reads the same)
_READS_WORDS = re.compile(r"[\\$%]")
#: what a title key drops: punctuation, spaces, underscores (compiled once: a key per title)
_NON_WORD = re.compile(r"[\W_]+")


def title_key(value: str) -> str:
    """A title for comparison: plain text, no accents, case, punctuation or spaces.

    A value without commands, math or comments is compared as written: the rest of LaTeX's
    reading (groups' braces, dashes, quotes, ties, ``"a``) changes only what the key drops
    anyway (equal to the full reading on every such field value of the shared test data,
    in ``tests/core/test_validate_rules.py``, and of the benchmark's 20,000-entry file);
    a check of 20,000 real entries read their titles as LaTeX for these keys alone, and
    then a third of them still for braces (``{B}ayesian``) alone."""
    text = to_text(value) if _READS_WORDS.search(value) else value
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.lower()
    return _NON_WORD.sub("", text)


def _first_author(entry: Entry) -> str:
    value = entry.get("author") or entry.get("editor")
    if not value.strip():
        return ""
    persons, _ = parse_names(value)  # the names family parsed it already: a cache hit
    if not persons:
        return ""
    p = persons[0]
    return title_key(p.literal or p.last)


@record(frozen=True)
class Signals:
    """What tells one entry's work from another's, computed once per entry (and memoized)."""

    doi: str
    arxiv: str
    title: str   # title_key of the title
    author: str  # title_key of the first author's family name
    year: str
    url: str     # the url field as text
    parents: tuple[str, ...] = ()  # the keys it inherits from (crossref, xref), lower case
    kind: str = ""  # "book" for whole volumes, "part" for what is published in one or alone


# A book and an article (or chapter) of one title are two works: a monograph and its précis.
_VOLUMES = frozenset(("book", "mvbook", "proceedings", "mvproceedings", "collection",
                      "mvcollection", "reference", "mvreference", "periodical"))


def signals(entry: Entry) -> Signals:
    """The :class:`Signals` of one entry."""
    ident, _ = arxiv_of(entry)
    parents = tuple(k.strip().lower() for name in ("crossref", "xref")
                    for k in entry.get(name).split(",") if k.strip())
    return Signals(doi_of(entry), ident, title_key(entry.get("title")), _first_author(entry),
                   to_text(entry.get("year")).strip(), to_text(entry.get("url")).strip(),
                   parents, "book" if entry.type in _VOLUMES else "part")


def _related(a: Signals, b: Signals, ka: str, kb: str) -> bool:
    """Whether two entries are a volume and a part of it (a proceedings paper crossref-ing its
    proceedings, both carrying the volume's DOI), or two parts of one volume: not one work
    twice."""
    return kb.lower() in a.parents or ka.lower() in b.parents or bool(
        set(a.parents) & set(b.parents))  # two papers of one volume


def _year(text: str) -> bool:
    """Whether ``text`` is a four-digit year (``re.fullmatch(r"\\d{4}", text)``: decimal digits
    of any script, as ``\\d`` matches in a text pattern)."""
    return len(text) == 4 and text.isdecimal()


def _other_work(a: Signals, b: Signals) -> bool:
    """Whether entries of one title and author are two works: years more than a year apart
    (a preprint and its journal version are a year apart at most), or a book and an article."""
    if _year(a.year) and _year(b.year) and abs(int(a.year) - int(b.year)) > 1:
        return True
    return a.kind != b.kind


def check(bib: Bibliography, config: Config,
          known: Mapping[str, Signals] | None = None) -> Iterator[Diagnostic]:
    """Case-insensitive key clashes and the same work under several keys.

    ``known``: the entries' signals when the caller has them (``refbook.validate`` memoizes them
    per entry); computed here otherwise.
    """
    yield from _case_keys(bib)
    sig = {e.key: (known[e.key] if known is not None and e.key in known else signals(e))
           for e in bib}
    yield from _same_work(bib, sig)


def _case_keys(bib: Bibliography) -> Iterator[Diagnostic]:
    first: dict[str, Entry] = {}
    for entry in bib:
        other = first.setdefault(entry.key.lower(), entry)
        if other is not entry:
            yield at(Code.DUPLICATE_KEY_CASE, entry, None,
                     f"key {entry.key!r} differs from {other.key!r} ({other.location}) only in "
                     "letter case; BibTeX treats them as one key",
                     f"rename one of them (e.g. {entry.key}b), or merge them if they are the same "
                     "work")


#: the order in which an entry's signals are grouped (a group's rank among those of one entry)
_KINDS = {"doi": 0, "arxiv": 1, "title+author": 2, "title+year": 3}


def _grouped(firsts: dict[Any, Entry], groups: dict[Any, list[Entry]], signal: Any,
             entry: Entry) -> None:
    """Add ``entry`` to the group of ``signal``: only a group of two or more entries is a list
    (a 20,000-entry file has ~50,000 groups, nearly all of one entry)."""
    first = firsts.setdefault(signal, entry)
    if first is not entry:
        group = groups.get(signal)
        if group is None:
            groups[signal] = [first, entry]
        else:
            group.append(entry)


def _same_work(bib: Bibliography, sig: Mapping[str, Signals]) -> Iterator[Diagnostic]:
    entries = list(bib)
    order = {e.key: i for i, e in enumerate(entries)}
    # a group's key holds the signals' own strings (a tuple: no new string, and their hashes
    # are kept from the last check under `mkdocs serve`); no regular expression per entry
    firsts: dict[tuple[str, ...], Entry] = {}
    groups: dict[tuple[str, ...], list[Entry]] = {}
    url_firsts: dict[str, Entry] = {}
    url_groups: dict[str, list[Entry]] = {}
    for e in entries:
        s = sig[e.key]
        if s.doi:
            _grouped(firsts, groups, ("doi", s.doi), e)
        if s.arxiv:
            _grouped(firsts, groups, ("arxiv", s.arxiv), e)
        t = s.title
        if len(t) >= 4:
            if s.author:
                _grouped(firsts, groups, ("title+author", t, s.author), e)
            if len(t) >= 5 and _year(s.year):
                _grouped(firsts, groups, ("title+year", t, s.year), e)
        if s.url and " " not in s.url:
            _grouped(url_firsts, url_groups, url_key(s.url), e)
    # the groups in the order their first entries made them (the order of each entry's reasons)
    by_signal = sorted(groups.items(),
                       key=lambda item: (order[item[1][0].key], _KINDS[item[0][0]]))
    urls = sorted(url_groups.values(), key=lambda group: order[group[0].key])

    # Each later entry of a signal group is linked to the group's first entry (a star, not all
    # pairs: a Zotero export may hold hundreds of entries with one URL).
    label = {"doi": "same DOI {}", "arxiv": "same arXiv id {}", "title+author":
             "same title and first author", "title+year": "same title and year"}
    partner: dict[str, str] = {}  # later key -> the earliest entry it matches
    reasons: dict[str, list[str]] = defaultdict(list)  # later key -> why

    def link(first: Entry, later: Entry, why: str) -> None:
        best = partner.get(later.key)
        if best is None or order[first.key] < order[best]:
            partner[later.key] = first.key
        reasons[later.key].append(why)

    for signal, group in by_signal:
        kind = signal[0]
        first = group[0]
        for later in group[1:]:
            sa, sb = sig[first.key], sig[later.key]
            if _related(sa, sb, first.key, later.key) or (
                    kind.startswith("title") and _other_work(sa, sb)):
                continue
            link(first, later, label[kind].format(signal[1]))
    shared: list[tuple[Entry, Entry]] = []
    for group in urls:
        for later in group[1:]:
            first = group[0]
            if _related(sig[first.key], sig[later.key], first.key, later.key):
                continue  # a code fragment inheriting its library's url (crossref)
            title, later_title = sig[first.key].title, sig[later.key].title
            if title and difflib.SequenceMatcher(None, title, later_title).ratio() >= 0.75:
                link(first, later, f"same URL {to_text(later.get('url')).strip()}")
            elif later.key not in partner:
                shared.append((first, later))

    parent: dict[str, str] = {}

    def find(k: str) -> str:
        while parent.get(k, k) != k:
            k = parent[k]
        return k

    for kb, ka in partner.items():
        ra, rb = find(ka), find(kb)
        if ra != rb:
            keep, drop = sorted((ra, rb), key=order.__getitem__)
            parent[drop] = keep
    for kb in sorted(partner, key=order.__getitem__):
        ka = partner[kb]
        keep = find(kb)
        entry = bib[kb]
        other = bib[ka]
        why = list(dict.fromkeys(reasons[kb]))
        also = f"; also {keep!r}" if keep not in (ka, kb) else ""
        yield at(Code.DUPLICATE_WORK, entry, _signal_field(entry, why),
                 f"{kb!r} is the same work as {ka!r} ({other.location}): {', '.join(why)}{also}",
                 f"merge the two entries into {keep!r} (keep the most complete fields), delete "
                 f"{kb!r} and cite {keep!r} instead; if they really are different works, add "
                 "refbook-ignore = {duplicate-work} to one of them")
    for a, b in shared:
        if b.key in partner:
            continue
        yield at(Code.SHARED_URL, b, b.field("url"),
                 f"{b.key!r} and {a.key!r} ({a.location}) have the same url "
                 f"{to_text(b.get('url')).strip()!r} but different titles",
                 "check which entry the page belongs to and give the other one its own url "
                 "(or remove it)")


def _signal_field(entry: Entry, why: list[str]) -> Field | None:
    first = why[0] if why else ""
    if first.startswith("same DOI"):
        name = "doi" if entry.get("doi") else "url"
    elif first.startswith("same arXiv"):
        _, name = arxiv_of(entry)
    elif first.startswith("same URL"):
        name = "url"
    else:
        name = "title"
    return entry.field(name)
