"""Diagnostics: the data every stage returns instead of raising or logging.

Each :class:`Code` has a stable name (shown as ``refbook.<name>``), a default severity and a
description, which the docs and the CLI show. Adapters hand diagnostics to their host's logger.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from refbook.records import record

if TYPE_CHECKING:
    from refbook.models import Location


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(Enum):
    """Diagnostic codes. Value: (name, default severity, description, family)."""

    SYNTAX = ("syntax", Severity.ERROR, "The .bib file has text that is not valid BibTeX; the entry it belongs to is skipped, every other entry is kept.", "syntax")
    SYNTAX_RECOVERED = ("syntax-recovered", Severity.WARNING, "The .bib file has a slip that pybtex reads past: a missing comma after the key or between two fields, a comma too many, a field without a value (left out), an entry left unclosed before the next `@` or the end of the file (every field read is kept), a `}` too many that closes an entry early (the fields after it are lost, as in pybtex). The entry is kept.", "syntax")
    ENCODING = ("encoding", Severity.ERROR, "The file is not valid UTF-8; it was decoded as Latin-1 instead.", "syntax")
    FILE = ("file", Severity.ERROR, "A bibliography file cannot be read, or `--fix` cannot write it (missing, a directory, no permission, a full disk); the file is left as it was.", "syntax")
    INPUT_LIMIT = ("input-limit", Severity.ERROR, "A value passes a safety limit (the expanded size of an @string macro, the nesting depth of braces or LaTeX commands, the number of digits of a number); the value is cut or left out, every other value and entry is kept.", "syntax")
    DUPLICATE_KEY = ("duplicate-key", Severity.ERROR, "Two entries share one citation key; the first one is kept.", "keys")
    DUPLICATE_FIELD = ("duplicate-field", Severity.ERROR, "An entry sets the same field twice; the first value is kept.", "syntax")
    UNDEFINED_STRING = ("undefined-string", Severity.ERROR, "A field uses an @string macro that is never defined; the macro name is kept as text, in lower case (as pandoc does).", "syntax")
    CROSSREF_MISSING = ("crossref-missing", Severity.ERROR, "An entry's crossref (or xdata) names a key that does not exist.", "crossref")
    CROSSREF_CYCLE = ("crossref-cycle", Severity.ERROR, "Entries inherit from each other in a loop through crossref or xdata; the link that closes the loop is ignored.", "crossref")
    BAD_NAME = ("bad-name", Severity.ERROR, "A name list has a part that BibTeX cannot split (too many commas, an empty name).", "names")
    UNKNOWN_STYLE = ("unknown-style", Severity.ERROR, "The configured style is neither an installed style, nor a .csl file, nor a style of an installed CSL styles package.", "config")
    IGNORED_OPTION = ("ignored-option", Severity.WARNING, "A sphinxcontrib-bibtex option (in conf.py or on a bibliography directive) has no effect, as refbook_style is set, or has a value refbook cannot use (an unknown list or enumeration type); what is used instead is said.", "config")
    UNKNOWN_LOCALE = ("unknown-locale", Severity.ERROR, "The configured locale is not a CSL locale (nor a language with one, e.g. de for de-DE); the style's terms, dates and quotation marks fall back to en-US.", "config")
    BAD_STYLE = ("bad-style", Severity.ERROR, "The style file cannot be used: it is not well-formed XML, not a CSL style, has an element CSL does not define, lacks a required attribute, calls an undefined macro, or is a dependent style whose parent is not installed. The location is the element at fault.", "config")
    BAD_FILTER = ("bad-filter", Severity.ERROR, "A bibliography list's filter is not a valid expression, holds an invalid regular expression, or one too costly to match; the list shows no entry.", "config")
    UNKNOWN_KEY = ("unknown-key", Severity.ERROR, "A citation names a key that is in no bibliography file.", "citations")
    CITATION_SYNTAX = ("citation-syntax", Severity.ERROR, "A citation cannot be parsed.", "citations")
    # keys
    DUPLICATE_KEY_CASE = ("duplicate-key-case", Severity.WARNING, 'Two keys differ only in letter case; BibTeX treats them as the same key and keeps one (refbook, biber and pandoc keep both).', "keys")
    DUPLICATE_WORK = ("duplicate-work", Severity.WARNING, 'The same work is in the bibliography under several keys (same DOI, same URL, same arXiv id, or the same normalized title with the same first author or year); the reference list would show it twice.', "keys")
    SHARED_URL = ("shared-url", Severity.WARNING, 'Two entries with different titles have the same URL; at least one of them links to the wrong page.', "keys")
    # types
    UNKNOWN_TYPE = ("unknown-type", Severity.WARNING, 'The entry type is neither a BibTeX nor a BibLaTeX type; styles render it as a generic entry or drop it.', "types")
    MISSING_FIELD = ("missing-field", Severity.WARNING, 'A field the entry type requires (BibLaTeX data model, BibTeX names accepted) is missing.', "types")
    UNKNOWN_FIELD = ("unknown-field", Severity.WARNING, 'A field is not a BibTeX/BibLaTeX field nor a known tool field (timestamp, biburl, file …); it is probably misspelled and is ignored by every style. A reference manager\'s name for a standard field (Mendeley\'s city for address) is reported only when the entry lacks the standard field and renaming it would change what the style prints.', "types")
    FIELD_TYPE = ("field-type", Severity.WARNING, "A field does not belong to the entry type (journal in @misc, booktitle in @article); styles ignore it, so the venue is lost.", "types")
    ISSUE_FIELD = ("issue-field", Severity.WARNING, "An @article has issue but no number; styles print the number of an article, and issue only beside it, so the issue is lost.", "types")
    JOURNAL_VENUE = ("journal-venue", Severity.WARNING, "An @article's journal names a conference, symposium or workshop; the work is a conference paper (@inproceedings with booktitle).", "types")
    EMPTY_FIELD = ("empty-field", Severity.WARNING, 'A field has an empty value; styles print nothing or an empty element for it.', "values")
    # dates
    YEAR_EMPTY = ("year-empty", Severity.WARNING, 'The year field is present but empty; BibTeX styles print an empty date (refbook prints n.d.).', "dates")
    YEAR_INVALID = ("year-invalid", Severity.ERROR, 'The year is not a four-digit year.', "dates")
    YEAR_RANGE = ("year-range", Severity.WARNING, "The year field holds a range; a range belongs in date (BibLaTeX 'YYYY/YYYY').", "dates")
    YEAR_IN_TITLE = ("year-in-title", Severity.WARNING, 'A year was pasted at the end of the title (Google Scholar exports do this for preprints).', "dates")
    DATE_INVALID = ("date-invalid", Severity.ERROR, 'The date field is not an ISO 8601 date or range (YYYY, YYYY-MM, YYYY-MM-DD, start/end).', "dates")
    DATE_YEAR_MISMATCH = ("date-year-mismatch", Severity.WARNING, 'The date and year fields name different years; styles use one or the other.', "dates")
    YEAR_BEFORE_ARXIV = ("year-before-arxiv", Severity.WARNING, "The year is earlier than the year encoded in the entry's arXiv identifier, which cannot be.", "dates")
    # identifiers
    DOI_PREFIX = ("doi-prefix", Severity.ERROR, 'The doi field holds a resolver prefix (https://doi.org/, doi:); styles add it again, so the link breaks. Fixable.', "identifiers")
    DOI_SYNTAX = ("doi-syntax", Severity.ERROR, "The doi field is not a DOI ('10.' + registrant code + '/' + suffix, no spaces).", "identifiers")
    URL_SCHEME_DUPLICATED = ("url-scheme-duplicated", Severity.ERROR, 'A URL starts with its scheme twice (https://https://…); the link is broken. Fixable.', "identifiers")
    URL_SPACE = ("url-space", Severity.ERROR, 'A URL contains a space; the link is cut at the space.', "identifiers")
    URL_MULTIPLE = ("url-multiple", Severity.ERROR, 'A url field holds several URLs; it must hold one.', "identifiers")
    URL_MALFORMED = ("url-malformed", Severity.ERROR, 'The url field is not an absolute URL with a scheme and a host.', "identifiers")
    URL_SCHEME = ("url-scheme", Severity.WARNING, "A URL uses a scheme other than http or https (ftp:, file:, javascript: …); readers' browsers may not open it, and some are unsafe.", "identifiers")
    URL_IN_FIELD = ("url-in-field", Severity.WARNING, 'A URL is written in a field meant for a name (howpublished, journal, booktitle, note without url …); styles print it where the venue or site name goes, and the entry lacks its own url field.', "identifiers")
    DOI_URL_MISMATCH = ("doi-url-mismatch", Severity.WARNING, "The url is a doi.org link to a different DOI than the doi field; one of them belongs to another work.", "identifiers")
    URLDATE_WITHOUT_URL = ("urldate-without-url", Severity.INFO, 'The entry has an access date (urldate) but no url, doi or eprint to link; styles print nothing for it.', "identifiers")
    ISBN_CHECKSUM = ("isbn-invalid", Severity.WARNING, 'The isbn is not a valid ISBN-10 or ISBN-13 (wrong length or check digit).', "identifiers")
    ISSN_CHECKSUM = ("issn-invalid", Severity.WARNING, 'The issn is not a valid ISSN (NNNN-NNNC with the right check digit).', "identifiers")
    DOI_END = ("doi-end", Severity.ERROR, "The doi ends with punctuation pasted with it (a period, a comma); the link leads nowhere.", "identifiers")
    ARXIV_ID = ("arxiv-id", Severity.WARNING, 'An arXiv identifier is malformed (new style YYMM.NNNNN, old style archive/YYMMNNN).', "identifiers")
    # names
    OTHERS_NOT_LAST = ("others-not-last", Severity.ERROR, "'and others' is not the last name of the list; BibTeX and styles treat the names after it as lost.", "names")
    AND_CASE = ("and-case", Severity.WARNING, "Names are separated by 'AND' (or another case than 'and'); BibTeX and refbook split there, but other tools (pandoc) read the list as one garbled name.", "names")
    ET_AL_LITERAL = ("et-al-literal", Severity.WARNING, "A name list ends in a literal 'et al.' ('… and et al.'); BibTeX prints it as a person named 'al., et'. refbook reads it as 'and others', which is what to write.", "names")
    CORPORATE_AUTHOR = ("corporate-author", Severity.WARNING, "An organisation's name is not wrapped in braces, so it is split into given and family names ('Cloud, Google') and abbreviated ('G. Cloud').", "names")
    NAME_PUNCTUATION = ("name-punctuation", Severity.WARNING, "A person's name is punctuated wrongly: quotes, initials run together ('OA' for 'O. A.'), two people joined by a comma instead of 'and', a given name before the comma.", "names")
    ORGANISATION_VARIANTS = ("organisation-variants", Severity.WARNING, 'One organisation is spelled several ways across the bibliography; the reference list sorts and groups them as different authors.', "names")
    # titles
    TITLE_CASE = ("title-case", Severity.WARNING, "A word with capitals inside it (an acronym like I/O, Q&A) is not in braces, and the configured style prints it in another case; reported only when braces change the style's output.", "titles")
    TITLE_LOST_CASE = ("title-lost-case", Severity.WARNING, "The title was lowercased by an exporter (Google Scholar): a well-known acronym is written in lower case ('llms', 'gpus').", "titles")
    TITLE_MEDIUM = ("title-medium", Severity.WARNING, 'The title holds a medium or format in brackets ([Dataset], [Online], [Google Colab Notebook]); it belongs in howpublished or type.', "titles")
    TITLE_QUOTES = ("title-quotes", Severity.WARNING, "The title uses straight double quotes; LaTeX prints them as two closing quotes. Use \\enquote{…} or TeX quotes (two backquotes, two apostrophes).", "titles")
    TITLE_NBSP = ("title-nbsp", Severity.INFO, 'The title holds a non-breaking space (~ or U+00A0) pasted from a typeset source; it prevents line breaks in the reference list.', "titles")
    # values
    PAGES_DASH = ("pages-dash", Severity.WARNING, "A page range uses a character the style prints as written (a Unicode hyphen, a non-breaking hyphen) where '--' gives an en dash; reported only when the style's output changes. Fixable.", "values")
    PAGES_REVERSED = ("pages-reversed", Severity.WARNING, 'A page range ends before it starts (an abbreviated range such as 1139--43, 1139 to 1143, is not reversed).', "values")
    MONTH_INVALID = ("month-invalid", Severity.WARNING, 'The month is not a month (a number 1-12, an English month name, or a month macro); styles print no month for it.', "values")
    MONTH_BRACED = ("month-braced", Severity.WARNING, "The month is a three-letter macro name inside an extra pair of braces, so the style prints 'jan' instead of the month name; reported only when the style's output changes. Fixable.", "values")
    UNDEFINED_MACRO = ("undefined-macro", Severity.WARNING, "A field uses a LaTeX command that refbook does not know (\\proglang{R}, \\vphantom); it is printed as nothing, so its text vanishes from the output.", "values")
    VOLUME_INVALID = ("volume-invalid", Severity.WARNING, 'The volume is not a number (or a roman numeral or a number with a letter).', "values")
    # citations
    CITE_CASE = ("cite-case", Severity.ERROR, 'A citation names a key that exists only with different letter case; keys are case-sensitive.', "citations")
    KEY_CASE = ("key-case", Severity.WARNING, "A citation names a key that exists only with different letter case, and the host resolved it to that entry (the MkDocs plugin, as mkdocs-bibtex's pybtex does: BibTeX looks keys up ignoring case). Pandoc, biber and Sphinx do not: write the key as the entry does.", "citations")
    UNUSED_ENTRY = ("unused-entry", Severity.INFO, 'An entry is never cited nor listed in the book (info by default: a shared bibliography holds many; set it to warning to have each one fail a strict build).', "citations")
    UNLISTED_CITATION = ("unlisted-citation", Severity.WARNING, "A citation's entry is in no reference list of the book (say, the only list is page-scoped and on another page): the citation is shown formatted but links nowhere, and its entry appears nowhere. Add a list of the whole book or widen a list's filter.", "citations")
    DUPLICATE_LABEL = ("duplicate-label", Severity.WARNING, "Sphinx in sphinxcontrib-bibtex's look: two citation lists of the book give different entries the same label (each list is labelled on its own, so two pages both show a [1]); each citation still links to its own entry, but a reader cannot tell the two works apart by their label. Give the lists different :labelprefix: values, or use one list of the whole book.", "citations")
    UNFORMATTED_ENTRY = ("unformatted-entry", Severity.WARNING, "Sphinx in sphinxcontrib-bibtex's look: the list's pybtex style cannot format an entry (it needs a field the entry lacks, or a style plugin failed), so the list shows pybtex's message in bold in its place, as sphinxcontrib-bibtex does. Reported at the list, unless the missing-field rule reports the entry. Add the field, or choose another style.", "citations")
    FOOTNOTE_UNDEFINED = ("footnote-undefined", Severity.WARNING, "MkDocs with mkdocs-bibtex's output form (`output: footnotes`): a citation becomes a footnote reference, but no footnote list on its page defines it (`bib_by_default: false` and no `\\bibliography` on the page), so readers see the literal text `[^key]`, as mkdocs-bibtex shows it. Add the list command to the page or set `bib_by_default: true`.", "citations")

    def __init__(self, slug: str, severity: Severity, doc: str, family: str) -> None:
        self.slug = slug
        self.default_severity = severity
        self.doc = doc
        self.family = family

    @classmethod
    def from_slug(cls, text: str) -> Code | None:
        """The code named ``slug`` or ``refbook.slug`` (case-insensitive), or None."""
        name = text.strip().lower().removeprefix("refbook.")
        return _BY_SLUG.get(name)

    @property
    def qualified(self) -> str:
        return f"refbook.{self.slug}"


_BY_SLUG: dict[str, Code] = {c.slug: c for c in Code}
# Families in the order the catalogue documents them.
FAMILIES: tuple[str, ...] = ("syntax", "keys", "crossref", "types", "dates", "identifiers", "names",
                             "titles", "values", "citations", "config")
assert {c.family for c in Code} <= set(FAMILIES)


@record(frozen=True)
class Diagnostic:
    """One problem: what (code + message), where (location, entry key, field), how to fix (hint)."""

    code: Code
    message: str
    location: Location | None = None
    hint: str = ""
    key: str = ""
    field: str = ""
    severity: Severity | None = None

    @property
    def effective_severity(self) -> Severity:
        return self.severity or self.code.default_severity

    def at(self, location: Location | None) -> Diagnostic:
        """The same diagnostic at ``location`` (``refbook.records.replace``, five times faster:
        hosts relocate tens of thousands, one per entry a shared bibliography does not cite)."""
        return Diagnostic(self.code, self.message, location, self.hint, self.key, self.field,
                          self.severity)

    def format(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        sev = self.effective_severity.value
        text = f"{where}{sev}: {self.message} [{self.code.qualified}]"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text
