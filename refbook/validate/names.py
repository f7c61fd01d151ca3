"""Rules for name lists (author, editor …): ``and others``, organisations, stray punctuation.

Names are split with :func:`refbook.names.parse_names` (BibTeX's rules), so a rule sees exactly
what a style will see: ``author = {Google Cloud}`` is the person Cloud, Google.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Severity
from refbook.names import _split_and, is_et_al, parse_names
from refbook.records import replace
from refbook.validate.report import at, quote

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Bibliography, Entry, Field, Person

__all__ = ["NAME_FIELDS", "Spelling", "check", "check_entry", "variants"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())

NAME_FIELDS = ("author", "editor", "translator", "bookauthor", "editora", "editorb", "editorc",
               "annotator", "commentator", "holder", "afterword", "foreword", "introduction")
CORPORATE_WORDS = frozenset(_words("""
inc inc. incorporated corporation corp corp. llc ltd ltd. gmbh ag co. company team contributors
developers labs lab laboratory laboratories foundation project group consortium institute
university association organization organisation society committee council cloud research blog
community workshop authors collaboration initiative agency department ministry office network
systems technologies technology software services alliance partners
"""))
KNOWN_ORGS = frozenset(_words("""
google nvidia microsoft openai meta amazon apple intel amd deepmind anthropic huggingface
ibm oracle facebook alibaba baidu tencent bytedance mistral cohere github
"""))
PARTICLES = frozenset(_words("""
de del della der di da das dos du la le van von ten ter den st. st san al el ben bin mac mc o
"""))
ROMAN = re.compile(r"^[IVX]+$")
SUFFIXES = frozenset(_words("Jr Jr. Sr Sr. II III IV V"))
ORG_SUFFIX = re.compile(r"\b(inc|incorporated|corporation|corp|llc|ltd|co|company|gmbh|ag)\b\.?",
                        re.IGNORECASE)


#: an organisation as one entry writes it: (normalized name, spelling, field name)
Spelling = tuple[str, str, str]


def check(bib: Bibliography, config: Config) -> Iterator[Diagnostic]:
    spellings: dict[str, tuple[Spelling, ...]] = {}
    for entry in bib:
        found, spellings[entry.key] = check_entry(entry, config)
        yield from found
    yield from variants(bib, spellings)


def check_entry(entry: Entry, config: Config) -> tuple[list[Diagnostic], tuple[Spelling, ...]]:
    """The rules on one entry, and the organisations it names (for :func:`variants`)."""
    out: list[Diagnostic] = []
    spellings: list[Spelling] = []
    for f in entry.fields:
        if f.name not in NAME_FIELDS or not f.value.strip():
            continue
        persons, problems = parse_names(f.value)
        for problem in problems:
            out.append(at(Code.BAD_NAME, entry, f, f"{f.name} of {entry.key!r}: {problem}",
                          "write each name as 'Family, Given' (or 'Family, Jr, Given'), separate "
                          "names with ' and ', and brace an organisation: {{World Health "
                          "Organization}}"))
        raw = [p.strip() for p in _split_and(f.value)]
        out.extend(_separators(entry, f, raw))
        out.extend(_others(entry, f, persons))
        for i, p in enumerate(persons):
            written = raw[i] if len(raw) == len(persons) else _written(p)
            if p.is_literal:
                spellings.append((_org_key(p.literal), p.literal, f.name))
                continue
            if p.others:
                continue
            org = _corporate(p, written)
            if org:
                spellings.append((_org_key(org), org, f.name))
                out.append(at(Code.CORPORATE_AUTHOR, entry, f,
                              f"{f.name} {quote(written)} looks like an organisation but is split as a "
                              f"person (family {p.last!r}, given {p.first!r}), so styles print "
                              f"{_as_person(p)!r}",
                              f"wrap the whole name in a second pair of braces: {{{org}}} "
                              f"(e.g. {f.name} = {{{{{org}}}}})"))
                continue
            # "Natera Orozco, Luis Guillermo" among "Family, Given" names is one person
            commas_elsewhere = any("," in r for j, r in enumerate(raw) if j != i)
            out.extend(_punctuation(entry, f, p, written, commas_elsewhere=commas_elsewhere,
                                    alone=len(raw) == 1))
    return out, tuple(spellings)


def _written(p: Person) -> str:
    return " ".join(x for x in (p.first, p.von, p.last, p.jr) if x)


def _as_person(p: Person) -> str:
    initials = " ".join(w[0] + "." for w in p.first.split() if w)
    return f"{p.last}, {initials}" if initials else p.last


def _corporate(p: Person, written: str) -> str:
    """The organisation's name if this 'person' is one, else ''."""
    return _corporate_of(p.first, p.von, p.last, p.jr, "," in written)


@lru_cache(maxsize=65536)
def _corporate_of(first: str, von: str, last: str, jr: str, comma: bool) -> str:
    """:func:`_corporate` by the name's parts (once per spelling: a shared bibliography names
    the same people in many entries)."""
    reading = " ".join(x for x in (first, von, last, jr) if x)
    words = reading.split()
    if len(words) < 2 and not first:
        return ""
    lowered = [w.lower().strip(",") for w in words]
    hit = (not CORPORATE_WORDS.isdisjoint(lowered) or not KNOWN_ORGS.isdisjoint(lowered)
           or (not comma and first and
               any(len(w) >= 3 and w.isupper() and w.isalpha() and not ROMAN.match(w)
                   for w in words)))
    if not hit:
        return ""
    # "Last, First" written for an organisation: the words in reading order.
    return reading


_AND_WORD = re.compile(r"\s([Aa][Nn][Dd])(?=\s)")


def _separators(entry: Entry, f: Field, raw: list[str]) -> Iterator[Diagnostic]:
    """'AND' in capitals between names, and a literal 'et al.' closing the list."""
    if len(raw) > 1:
        value = f.value
        for m in _AND_WORD.finditer(value):
            word = m.group(1)
            before = value[:m.start()]
            if word != "and" and before.count("{") == before.count("}"):
                yield at(Code.AND_CASE, entry, f, f"{f.name} separates names with {word!r}; "
                         "BibTeX and refbook split there, other tools read one garbled name",
                         f"write 'and' in lower case between the names of {f.name}")
                break
    if len(raw) > 1 and is_et_al(raw[-1]):
        yield at(Code.ET_AL_LITERAL, entry, f, f"{f.name} ends with 'and {raw[-1]}', which "
                 "BibTeX prints as a person named 'al., et'",
                 "write 'and others' at the end of the list (styles print et al. for it)")


def _others(entry: Entry, f: Field, persons: tuple[Person, ...]) -> Iterator[Diagnostic]:
    for i, p in enumerate(persons[:-1]):
        if p.others:
            after = ", ".join(_written(q) for q in persons[i + 1:])
            yield at(Code.OTHERS_NOT_LAST, entry, f,
                     f"{f.name} has 'and others' before {after!r}; BibTeX and styles treat "
                     "everything after it as lost",
                     "move 'and others' to the end of the list (or list every name without it)")


_QUOTES = re.compile(r"[\"“”]|''|``")


def _punctuation(entry: Entry, f: Field, p: Person, written: str, *,
                 commas_elsewhere: bool = False, alone: bool = False) -> Iterator[Diagnostic]:
    if _QUOTES.search("\0".join((p.first, p.von, p.last, p.jr))):
        clean = _QUOTES.sub("", written).strip()
        yield at(Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} contains quotes",
                 f"remove the quotes; a single handle or pseudonym goes in braces: {{{clean}}}")
        return
    if p.first in SUFFIXES and not p.jr:
        # "W. D. Hibler, III": BibTeX reads III as the given name and W. D. as family
        words = p.last.split()
        family = " ".join(w for w in words if not w.endswith(".")) or p.last
        given = " ".join(w for w in words if w.endswith("."))
        yield at(Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} has the suffix "
                 f"{p.first!r} where the given name goes (BibTeX reads family {p.last!r}, "
                 f"given {p.first!r})",
                 f"write 'Family, Suffix, Given': {family}, {p.first}, {given}" if given else
                 f"write 'Family, Suffix, Given': {p.last}, {p.first}, …")
        return
    run_together = [w for w in p.first.split() if 2 <= len(w) <= 3 and w.isalpha() and w.isupper()
                    and not ROMAN.match(w)]
    if run_together and p.last and not p.last.isupper():
        dotted = " ".join(
            " ".join(c + "." for c in w) if w in run_together else w for w in p.first.split())
        yield at(Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} has initials run "
                 f"together ({', '.join(run_together)}); BibTeX reads them as one given name",
                 f"write {p.last}, {dotted}")
        return
    last_words = p.last.split()
    if p.von or len(last_words) < 2 or "," not in written:
        return
    if last_words[0].lower() in PARTICLES or not all(w[:1].isupper() for w in last_words):
        return
    first_words = p.first.split()
    if len(first_words) >= 2 and not commas_elsewhere and all(len(w) > 2 and w[0].isupper() and w[1:].islower()
                                     for w in first_words + last_words):
        if alone:
            # "Maureira Fredes, Cristián Danilo" alone has the shape of two people too: advice
            yield replace(at(
                Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} may be two people "
                "joined by a comma, or one person with a compound family name (BibTeX reads "
                f"family {p.last!r}, given {p.first!r})",
                f"if they are two people, separate them with 'and': {p.last} and {p.first}"),
                severity=Severity.INFO)
            return
        yield at(Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} looks like two "
                 "people joined by a comma (BibTeX reads it as one person: "
                 f"family {p.last!r}, given {p.first!r})",
                 f"separate people with 'and': {p.last} and {p.first}")
    elif re.match(r"^[A-Z][a-z]+-[A-Z][a-z]+$", last_words[0]):
        yield at(Code.NAME_PUNCTUATION, entry, f, f"{f.name} name {quote(written)} has a given name "
                 f"before the comma (BibTeX reads family {p.last!r}, given {p.first!r})",
                 f"write 'Family, Given': {last_words[-1]}, {' '.join(last_words[:-1])} "
                 f"(check whether {p.first!r} belongs to this name at all)")


def _org_key(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).lower()
    text = ORG_SUFFIX.sub("", text)
    return re.sub(r"[\W_]+", "", text)


def variants(bib: Bibliography, spellings: Mapping[str, tuple[Spelling, ...]],
             ) -> Iterator[Diagnostic]:
    """One organisation spelled several ways across the file (``spellings``: key → its own)."""
    uses_of: dict[str, list[tuple[str, Entry, Field]]] = defaultdict(list)
    for entry in bib:
        for key, written, name in spellings.get(entry.key, ()):
            f = entry.field(name)
            if f is not None:
                uses_of[key].append((written, entry, f))
    for key, uses in uses_of.items():
        if not key:
            continue
        counts: dict[str, int] = defaultdict(int)
        for written, _, _ in uses:
            counts[written] += 1
        if len(counts) < 2:
            continue
        canonical = max(counts, key=lambda w: (counts[w], -len(w)))
        others = ", ".join(f"{w!r} ({n}×)" for w, n in sorted(counts.items()) if w != canonical)
        for written, entry, f in uses:
            if written == canonical:
                continue
            yield at(Code.ORGANISATION_VARIANTS, entry, f,
                     f"organisation {quote(written)} is spelled {canonical!r} in {counts[canonical]} "
                     f"other entr{'y' if counts[canonical] == 1 else 'ies'} (variants: {others})",
                     f"use one spelling everywhere, e.g. {f.name} = {{{{{canonical}}}}}")
