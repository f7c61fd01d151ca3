"""Rules for entry types and their fields: unknown types, required fields, unknown fields.

The types and fields are BibLaTeX's data model (biblatex manual, section 2) with the BibTeX
names it accepts as aliases (``journal`` for ``journaltitle``, ``techreport`` for ``report`` …).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from refbook.config import ConfigError, expand_selector
from refbook.diagnostics import Code
from refbook.latex import to_text
from refbook.validate.output import output_changes
from refbook.validate.report import IGNORE_FIELD, at

if TYPE_CHECKING:
    from collections.abc import Iterator

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry

__all__ = ["KNOWN_FIELDS", "REQUIRED", "TOOL_FIELDS", "TYPES", "check_entry"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())

TYPES = frozenset(_words("""
article book mvbook inbook bookinbook suppbook booklet collection mvcollection incollection
suppcollection dataset manual misc online patent periodical suppperiodical proceedings
mvproceedings inproceedings reference mvreference inreference report set software thesis
unpublished xdata customa customb customc customd custome customf
artwork audio bibnote commentary image jurisdiction legislation legal letter movie music
performance review standard video
conference electronic mastersthesis phdthesis techreport www
"""))

# Each requirement is a tuple of alternatives: one of them must be present.
_DATE = ("year", "date")
REQUIRED: dict[str, tuple[tuple[str, ...], ...]] = {
    "article": (("author",), ("title",), ("journal", "journaltitle"), _DATE),
    "book": (("author", "editor"), ("title",), _DATE),
    "mvbook": (("author", "editor"), ("title",), _DATE),
    "inbook": (("author", "editor"), ("title",), _DATE),
    "bookinbook": (("author",), ("title",), ("booktitle",), _DATE),
    "incollection": (("author",), ("title",), ("booktitle",), _DATE),
    "inproceedings": (("author",), ("title",), ("booktitle",), _DATE),
    "conference": (("author",), ("title",), ("booktitle",), _DATE),
    "collection": (("editor",), ("title",), _DATE),
    "proceedings": (("title",), _DATE),
    "booklet": (("author", "editor"), ("title",)),
    "manual": (("title",),),
    "misc": (("title",),),
    "online": (("title",), ("url", "doi", "eprint")),
    "electronic": (("title",), ("url", "doi", "eprint")),
    "www": (("title",), ("url", "doi", "eprint")),
    "report": (("author",), ("title",), ("institution",), _DATE),
    "techreport": (("author",), ("title",), ("institution",), _DATE),
    "thesis": (("author",), ("title",), ("institution", "school"), _DATE),
    "phdthesis": (("author",), ("title",), ("institution", "school"), _DATE),
    "mastersthesis": (("author",), ("title",), ("institution", "school"), _DATE),
    "unpublished": (("author",), ("title",)),
    "patent": (("author",), ("title",), ("number",), _DATE),
    "dataset": (("title",),),
    "software": (("title",),),
    "standard": (("title",),),
}

KNOWN_FIELDS = frozenset(_words("""
abstract addendum afterword annotation annotator author authortype bookauthor bookpagination
booksubtitle booktitle booktitleaddon chapter commentator date doi edition editor editora
editorb editorc editortype editoratype editorbtype editorctype eid entrysubtype eprint
eprintclass eprinttype eventdate eventtitle eventtitleaddon file foreword holder howpublished
indextitle institution introduction isan isbn ismn isrn issn issue issuesubtitle issuetitle
issuetitleaddon iswc journalsubtitle journaltitle journaltitleaddon label language library
location mainsubtitle maintitle maintitleaddon month nameaddon note number organization origdate
origlanguage origlocation origpublisher origtitle pages pagetotal pagination part publisher
pubstate reprinttitle series shortauthor shorteditor shorthand shorthandintro shortjournal
shortseries shorttitle subtitle title titleaddon translator type url urldate venue version
volume volumes year crossref entryset execute gender langid langidopts ids indexsorttitle
keywords options presort related relatedoptions relatedtype relatedstring sortkey sortname
sortshorthand sorttitle sortyear xdata xref namea nameb namec nameatype namebtype namectype
lista listb listc listd liste listf usera userb userc userd usere userf verba verbb verbc
address annote archiveprefix primaryclass journal key school day hyphenation
urlyear urlmonth urlday eventyear origyear
"""))
# Written by reference managers and databases; harmless to styles.
TOOL_FIELDS = frozenset(_words("""
timestamp biburl bibsource file abstract keywords owner groups creationdate modificationdate
mendeley-tags mendeley-groups comment comments annotation readstatus priority ranking
qualityassured printed relevance citation-key citekey copyright pmid pmcid mrnumber zbl
researcherid unique-id orcid-numbers da affiliation publication_type pdf note_1 arxivid
bdsk-url-1 bdsk-url-2 bdsk-file-1 date-added date-modified adsurl adsnote pmc pii hal_id
hal_version swhid license rating mesh journal-iso journal-full author-email cited-references
doc-delivery-number number-of-cited-references times-cited usage-count-last-180-days
usage-count-since-2013 web-of-science-categories research-areas funding-acknowledgement
funding-text oa eissn reportnumber
shortjournal abstractnote extra accessdate librarycatalog archive archive_location archivelocation
call-number callnumber rights citekey bibtex-key jabref-meta entrytype read local-url
bdsk-url-3 bdsk-url-4 bdsk-file-2 bdsk-file-3 file2 tags
mrclass mrnumber mrreviewer fjournal zblnumber msc
acmid numpages issue_date articleno
collaboration slaccitation
googlebooks gsid lccn coden oclc asin ppn
keywords-plus author-keywords unique_id pubmedid isi wos scopus article-number num-pages
notes review
handle subject-category medline-pst medline-da medline-dcom medline-lr medline-jid medline-stat
introducedin swhid
""")) | {IGNORE_FIELD}
# BibLaTeX data annotations (author+an = {1=corresponding}) belong to their field.
ANNOTATION_SUFFIX = "+an"


# Types reference managers (Zotero, Mendeley, EndNote exports) write, and the standard one.
TYPE_SYNONYMS = {"web_page": "online", "webpage": "online", "blog_post": "online",
                 "newspaper_article": "article", "magazine_article": "article",
                 "journal_article": "article", "book_section": "incollection",
                 "conference_paper": "inproceedings", "generic": "misc", "computer_program": "software",
                 "presentation": "misc", "thesis_": "thesis", "data": "dataset"}
# Names reference managers use for a standard field.
SYNONYMS = {"city": "address", "keyword": "keywords", "repository": "url", "place": "address", "website": "url", "link": "url",
            "web": "url", "homepage": "url", "conference": "booktitle", "proceedings": "booktitle",
            "authors": "author", "editors": "editor", "page": "pages", "vol": "volume",
            "issue_number": "number", "accessed": "urldate", "access-date": "urldate"}


@lru_cache(maxsize=4096)
def _closest(name: str, cutoff: float, *, types: bool) -> tuple[str, ...]:
    """The known type or field name closest to ``name`` (difflib), once per name: a shared
    bibliography repeats the same unknown fields in thousands of entries, and each look-up
    compares with every known name (0.6 ms)."""
    return tuple(difflib.get_close_matches(name, sorted(TYPES if types else KNOWN_FIELDS), n=1,
                                           cutoff=cutoff))


def check_entry(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    """The family's rules on one entry (they look at no other entry)."""
    allowed = _allowed(config.extra_fields)
    if entry.type not in TYPES:
        close = ([TYPE_SYNONYMS[entry.type]] if entry.type in TYPE_SYNONYMS else
                 _closest(entry.type, 0.6, types=True))
        hint = (f"did you mean @{close[0]}?" if close else
                "use a BibTeX type (article, book, inproceedings, misc …) or a BibLaTeX one "
                "(online, software, dataset, report …)")
        yield at(Code.UNKNOWN_TYPE, entry, None,
                 f"entry type @{entry.type} of {entry.key!r} is not a BibTeX or BibLaTeX type",
                 hint)
    else:
        yield from _required(entry)
        yield from _belongs(entry)
    for f in entry.fields:
        if f.name == IGNORE_FIELD:
            yield from _ignore_field(entry)
        elif f.name not in allowed and not (
                f.name.endswith(ANNOTATION_SUFFIX) and f.name.split("+")[0] in KNOWN_FIELDS):
            standard = SYNONYMS.get(f.name, "")
            if standard and (standard in entry or not output_changes(
                    entry, f.name, f.value, config.style, rename=standard)):
                continue  # Mendeley's city on an article: the style would not print it anyway
            close = ([SYNONYMS[f.name]] if f.name in SYNONYMS else
                     _closest(f.name, 0.75, types=False))
            hint = (f"did you mean {close[0]}?" if close else
                    f"remove it, or accept it with extra_fields = [\"{f.name}\"] in the "
                    "refbook configuration")
            yield at(Code.UNKNOWN_FIELD, entry, f, f"field {f.name!r} of {entry.key!r} is not "
                     "a BibTeX/BibLaTeX field; styles ignore it", hint)


@lru_cache(maxsize=64)
def _allowed(extra: tuple[str, ...]) -> frozenset[str]:
    return KNOWN_FIELDS | TOOL_FIELDS | frozenset(extra)


# Container fields and the types that print them (BibTeX names included).
CONTAINER_OF = {
    "journal": frozenset({"article", "periodical", "suppperiodical", "review"}),
    "journaltitle": frozenset({"article", "periodical", "suppperiodical", "review"}),
    "booktitle": frozenset({"inbook", "bookinbook", "suppbook", "incollection", "suppcollection",
                            "inproceedings", "conference", "inreference", "proceedings",
                            "collection", "book", "mvbook", "mvproceedings", "mvcollection"}),
}
CONFERENCE = re.compile(r"\b(conference|symposium|workshop)\b", re.IGNORECASE)
# "Proceedings of the 12th International …, 2019": a volume of conference papers. Journals
# named Proceedings (PNAS, Proc. IEEE, Proc. R. Soc., PVLDB, PACM …) name no meeting.
PROCEEDINGS = re.compile(r"\b(?:proceedings|proc\.)", re.IGNORECASE)
MEETING_MARK = re.compile(r"\b(?:annual|international|\d+(?:st|nd|rd|th)|(?:19|20)\d\d)\b|'\d\d\b",
                          re.IGNORECASE)
JOURNAL_PROCEEDINGS = re.compile(r"\b(?:national academy|of the ieee|royal society|r\. soc|"
                                 r"endowment|acm on|american mathematical|amer\. math)",
                                 re.IGNORECASE)
JOURNAL_WORD = re.compile(r"\b(journal|transactions|letters|series|review|magazine)\b",
                          re.IGNORECASE)


def _belongs(entry: Entry) -> Iterator[Diagnostic]:
    for name, types in CONTAINER_OF.items():
        f = entry.field(name)
        if f is None or entry.type in types or not f.value.strip():
            continue
        if name.startswith("journal"):
            hint = (f"if it is a journal article make it @article; for a repository, blog or "
                    f"web page write howpublished = {{{to_text(f.value)}}} instead of {name}")
        else:
            hint = ("if it is a conference paper or a chapter make it @inproceedings or "
                    "@incollection; otherwise move the venue to howpublished or note")
        yield at(Code.FIELD_TYPE, entry, f, f"@{entry.type} {entry.key!r} has {name} "
                 f"{to_text(f.value)!r}, which @{entry.type} does not print", hint)
    issue = entry.field("issue")
    if (entry.type == "article" and issue is not None and issue.value.strip()
            and not entry.get("number").strip()):
        yield at(Code.ISSUE_FIELD, entry, issue, f"@article {entry.key!r} has issue "
                 f"{to_text(issue.value)!r} but no number; styles print an article's number, "
                 "so the issue is lost", f"write number = {{{to_text(issue.value)}}} instead "
                 "of issue")
    j = entry.field("journal") or entry.field("journaltitle")
    if entry.type == "article" and j is not None:
        text = to_text(j.value)
        if (CONFERENCE.search(text) and not JOURNAL_WORD.search(text)) or (
                PROCEEDINGS.search(text) and MEETING_MARK.search(text)
                and not JOURNAL_PROCEEDINGS.search(text)):
            yield at(Code.JOURNAL_VENUE, entry, j, f"@article {entry.key!r} has {j.name} "
                     f"{text!r}, which is a conference, not a journal",
                     f"make it @inproceedings{{{entry.key}, …}} with booktitle = {{{text}}} "
                     "(and drop volume/number if they are the conference's year)")


def _required(entry: Entry) -> Iterator[Diagnostic]:
    for alternatives in REQUIRED.get(entry.type, ()):
        if any(entry.get(a).strip() for a in alternatives):
            continue
        if any(a in entry for a in alternatives):
            continue  # present but empty: reported by empty-field / year-empty
        names = " or ".join(alternatives)
        if entry.type == "article" and alternatives[0] == "journal":
            hint = ("add journal = {…}; if this is a preprint or a web page, make it @misc "
                    "(or @online) instead")
        elif alternatives == _DATE:
            hint = "add year = {…}; an undated web page is better as @misc or @online"
        else:
            hint = f"add {alternatives[0]} = {{…}} to @{entry.type}{{{entry.key}, …}}"
        yield at(Code.MISSING_FIELD, entry, None,
                 f"@{entry.type} {entry.key!r} has no {names}", hint)


def _ignore_field(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field(IGNORE_FIELD)
    assert f is not None
    for name in f.value.replace(";", ",").split(","):
        if not name.strip():
            continue
        try:
            expand_selector(name)
        except ConfigError as exc:
            yield at(Code.UNKNOWN_FIELD, entry, f, f"{IGNORE_FIELD} names {name.strip()!r}, "
                     "which is no refbook code", str(exc))
