"""BibTeX/BibLaTeX entry → CSL item, the way pandoc's citeproc maps it.

Where it sits: after reading (``refbook.readers.bibtex`` gives :class:`refbook.models.Entry`
with LaTeX field values) and before a style formats items (``refbook.items`` caches the
conversion per entry). The rules are those of pandoc's ``Text.Pandoc.Citeproc.BibTeX``, because
our default style must reproduce ``pandoc --citeproc`` byte for byte:

* entry types map to CSL types (``misc`` → ``""``, ``online`` → ``webpage`` …) and fields to
  variables (``journal``/``journaltitle`` → ``container-title``, ``institution``/``school``/
  ``organization``/``howpublished``/``publisher`` → ``publisher`` joined with ``;`` …);
* English titles are turned to sentence case ("unTitlecase"): words pandoc thinks were
  capitalised only for title case are lowered, brace groups that hold a lower-case word become
  ``nocase``, so the style can title-case the result again;
* names split by :func:`refbook.names.parse_names_pandoc`; the BibTeX ``von`` becomes a
  dropping particle unless ``options = {useprefix}``.

``pandoc --citeproc`` reads ``.bib`` files as BibLaTeX, so that is the default; pass
``biblatex=False`` for pandoc's BibTeX variant (``-f bibtex``, ``.bibtex`` files).
:func:`csl_to_json` renders an item in pandoc's CSL-JSON shape, for comparisons with pandoc.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from refbook import csl, ir, latex
from refbook.casing import (
    AFTER_PUNCT,
    AFTER_WORD_CHAR,
    AFTER_WORD_END,
    BEFORE_LAST,
    START,
    START_SENTENCE,
    WORD_BREAKS,
    CaseState,
    sentence_case,
    split_chunks,
)
from refbook.latex import CONTAINERS as _CONTAINERS
from refbook.latex import (
    SPACE,
    PFmt,
    PInline,
    PInlines,
    PLink,
    PQuoted,
    PRaw,
    PSpace,
    PSpan,
    PStr,
    map_str,
)
from refbook.models import MAX_DIGITS, Entry, Person
from refbook.names import parse_names_pandoc, split_by_and
from refbook.records import record

__all__ = ["csl_to_json", "entry_to_item", "page_variable"]

# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------

_TYPES: dict[str, str] = {
    "book": "book", "booklet": "pamphlet", "bookinbook": "book", "collection": "book",
    "dataset": "dataset", "electronic": "webpage", "inbook": "chapter",
    "incollection": "chapter", "inreference": "entry-encyclopedia",
    "inproceedings": "paper-conference", "manual": "book", "mastersthesis": "thesis",
    "misc": "", "mvbook": "book", "mvcollection": "book", "mvproceedings": "book",
    "mvreference": "book", "online": "webpage", "patent": "patent", "phdthesis": "thesis",
    "proceedings": "book", "reference": "book", "report": "report", "software": "software",
    "suppbook": "chapter", "suppcollection": "chapter", "techreport": "report",
    "thesis": "thesis", "www": "webpage", "artwork": "graphic", "audio": "song",
    "commentary": "book", "image": "graphic", "jurisdiction": "legal_case",
    "legislation": "legislation", "legal": "treaty", "letter": "personal_communication",
    "movie": "motion_picture", "music": "song", "performance": "speech", "review": "review",
    "standard": "legislation", "video": "motion_picture", "data": "dataset",
    "letters": "personal_communication", "newsarticle": "article-newspaper",
}  # fmt: skip
_PERIODICAL_TYPES = frozenset({"article", "periodical", "suppperiodical"})

_ARTICLE_LIKE = frozenset({"article", "periodical", "suppperiodical", "review"})
_CHAPTER_LIKE = frozenset({"inbook", "incollection", "inproceedings", "inreference", "bookinbook"})
_NUMBER_IS_COLLECTION = frozenset(
    {
        "book", "collection", "proceedings", "reference", "mvbook", "mvcollection",
        "mvproceedings", "mvreference", "bookinbook", "inbook", "incollection",
        "inproceedings", "inreference", "suppbook", "suppcollection",
    }
)  # fmt: skip

# babel/polyglossia language names → IETF tags (pandoc's toIETF)
_IETF: dict[str, str] = {
    "english": "en-US", "usenglish": "en-US", "american": "en-US", "british": "en-GB",
    "ukenglish": "en-GB", "canadian": "en-US", "australian": "en-GB", "newzealand": "en-GB",
    "afrikaans": "af-ZA", "arabic": "ar", "basque": "eu", "bulgarian": "bg-BG",
    "catalan": "ca-AD", "croatian": "hr-HR", "czech": "cs-CZ", "danish": "da-DK",
    "dutch": "nl-NL", "estonian": "et-EE", "finnish": "fi-FI", "canadien": "fr-CA",
    "acadian": "fr-CA", "french": "fr-FR", "francais": "fr-FR", "austrian": "de-AT",
    "naustrian": "de-AT", "german": "de-DE", "germanb": "de-DE", "ngerman": "de-DE",
    "greek": "el-GR", "polutonikogreek": "el-GR", "polytonicgreek": "el-GR",
    "hebrew": "he-IL", "hungarian": "hu-HU", "icelandic": "is-IS", "italian": "it-IT",
    "japanese": "ja-JP", "latvian": "lv-LV", "lithuanian": "lt-LT", "magyar": "hu-HU",
    "mongolian": "mn-MN", "norsk": "nb-NO", "nynorsk": "nn-NO", "farsi": "fa-IR",
    "polish": "pl-PL", "brazil": "pt-BR", "brazilian": "pt-BR", "portugues": "pt-PT",
    "portuguese": "pt-PT", "romanian": "ro-RO", "russian": "ru-RU", "serbian": "sr-RS",
    "serbianc": "sr-RS", "slovak": "sk-SK", "slovene": "sl-SL", "spanish": "es-ES",
    "swedish": "sv-SE", "thai": "th-TH", "turkish": "tr-TR", "ukrainian": "uk-UA",
    "vietnamese": "vi-VN", "latin": "la",
}  # fmt: skip
_ENGLISH_VARIANTS: dict[str, str] = {
    "variant=british": "british", "variant=american": "american", "variant=us": "american",
    "variant=usmax": "american", "variant=uk": "british", "variant=australian": "australian",
    "variant=newzealand": "newzealand",
}  # fmt: skip

_MONTHS: dict[str, int] = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
    "sep": 9, "oct": 10, "nov": 11, "dec": 12,
    # refbook's reader expands the month macros to full names (plain.bst does the same)
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip

_EPRINT_URLS: dict[str, str] = {
    "arxiv": "https://arxiv.org/abs/",
    "jstor": "https://www.jstor.org/stable/",
    "pubmed": "https://www.ncbi.nlm.nih.gov/pubmed/",
    "googlebooks": "https://books.google.com?id=",
}
# en-US ordinal suffixes as pandoc looks them up ("ordinal-NN", else "ordinal")
_ORDINALS: dict[str, str] = {"01": "st", "02": "nd", "03": "rd", "11": "th", "12": "th",
                             "13": "th"}  # fmt: skip

_FIELD_ALIASES: dict[str, str] = {"archiveprefix": "eprinttype", "primaryclass": "eprintclass"}

# --------------------------------------------------------------------------------------------
# Case handling (pandoc's unTitlecase / protectCase and citeproc's sentence case)
# --------------------------------------------------------------------------------------------

def _strs(nodes: Iterable[PInline]) -> str:
    """The text of all words inside (pandoc's ``query fromStr``)."""
    out: list[str] = []
    for n in nodes:
        if isinstance(n, PStr):
            out.append(n.text)
        elif isinstance(n, _CONTAINERS):
            out.append(_strs(n.children))
    return "".join(out)


def _case_node(n: PInline, st: CaseState, f: Callable[[int, str], str]) -> PInline:
    if type(n) is PSpace:
        st.state = START_SENTENCE if st.state == AFTER_PUNCT else AFTER_WORD_END
        return n
    if isinstance(n, PStr):
        text = n.text
        if text.isalnum():
            prev, st.state = st.state, AFTER_WORD_CHAR
            new = f(prev, text)
        else:
            new = "".join([st.step(chunk, f) for chunk in split_chunks(text)])
        return n if new == text else PStr(new)
    if isinstance(n, PFmt):
        if n.kind in ("smallcaps", "sup", "sub"):
            st.step(_strs(n.children), None)
            return n
        return PFmt(n.kind, tuple(_case_node(k, st, f) for k in n.children))
    if isinstance(n, PSpan):
        if n.cls == "nocase":
            keep = st.state != AFTER_WORD_CHAR
            st.step(_strs(n.children), None)
            return n if keep else PSpan("", n.children)
        return PSpan(n.cls, tuple(_case_node(k, st, f) for k in n.children))
    if isinstance(n, PQuoted):
        return PQuoted(n.double, tuple(_case_node(k, st, f) for k in n.children))
    if isinstance(n, PLink):
        return PLink(n.url, tuple(_case_node(k, st, f) for k in n.children))
    return n


def _case_transform(nodes: PInlines, f: Callable[[int, str], str]) -> PInlines:
    st = CaseState()
    last = nodes[-1] if nodes else None
    if (
        len(nodes) > 1
        and isinstance(last, PStr)
        and not any(c.isspace() or c in WORD_BREAKS for c in last.text)
    ):
        head = [_case_node(n, st, f) for n in nodes[:-1]]
        if st.state in (AFTER_WORD_END, START_SENTENCE, START):
            st.state = BEFORE_LAST
        return (*head, _case_node(last, st, f))
    return tuple(_case_node(n, st, f) for n in nodes)


def _walk_spans(nodes: PInlines, f: Callable[[PSpan], PSpan]) -> PInlines:
    if not any(isinstance(n, _CONTAINERS) for n in nodes):
        return nodes
    out: list[PInline] = []
    for n in nodes:
        if isinstance(n, PSpan):
            out.append(f(PSpan(n.cls, _walk_spans(n.children, f))))
        elif isinstance(n, PFmt):
            out.append(PFmt(n.kind, _walk_spans(n.children, f)))
        elif isinstance(n, PQuoted):
            out.append(PQuoted(n.double, _walk_spans(n.children, f)))
        elif isinstance(n, PLink):
            out.append(PLink(n.url, _walk_spans(n.children, f)))
        else:
            out.append(n)
    return tuple(out)


def _protect(span: PSpan) -> PSpan:
    return PSpan("nocase", span.children) if span.cls == "" else span


def _has_lowercase_word(nodes: PInlines) -> bool:
    """Does a word (split at punctuation: "NASA's" has the word "s") start in lower case?"""
    for n in nodes:
        if isinstance(n, PStr):
            after_punct = True
            for c in n.text:
                if unicodedata.category(c)[0] == "P":
                    after_punct = True
                    continue
                if after_punct and c.islower():
                    return True
                after_punct = False
    return False


def _unprotect(span: PSpan) -> PSpan:
    if span.cls == "nocase" and not _has_lowercase_word(span.children):
        return PSpan("", span.children)
    return span


def _protect_case(nodes: PInlines, f: Callable[[PInlines], PInlines] | None) -> PInlines:
    protected = _walk_spans(nodes, _protect)
    transformed = f(protected) if f is not None else protected
    return _walk_spans(transformed, _unprotect)


def _untitlecase(nodes: PInlines) -> PInlines:
    return _protect_case(nodes, lambda xs: _case_transform(xs, sentence_case))


@lru_cache(maxsize=32768)
def _title_nodes(value: str, series: bool) -> PInlines | None:
    """A title field read and sentence-cased (cached: journals and book titles repeat)."""
    nodes = latex.parse(value)
    if nodes is None:
        return None
    if series:
        nodes = _resolve_keys(nodes, latex.BIBLATEX_STRINGS)  # sentence case: English only
    return _untitlecase(nodes)


@lru_cache(maxsize=32768)
def _periodical_nodes(value: str) -> PInlines | None:
    nodes = latex.parse(value)
    return None if nodes is None else _protect_case(nodes, None)


# --------------------------------------------------------------------------------------------
# Entry → item
# --------------------------------------------------------------------------------------------


def _field_map(entry: Entry) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in entry.fields:
        out[_FIELD_ALIASES.get(f.name, f.name)] = f.value
    return out


def _concat_with(sep: str, parts: Iterable[PInlines]) -> PInlines:
    """pandoc's ``concatWith``: the parts joined by ``sep`` and a space (only a space after
    punctuation). Merged once at the end: re-merging the whole result per part (a patent's
    location list of 10,000 places) would be quadratic."""
    first: PInlines = ()
    nodes: list[PInline] = []
    # The node the check for punctuation looks at: the first part's own last node, then the
    # last node of everything merged so far (merging changes only the end of what it extends).
    last: PInline | None = None
    for s in parts:
        if not s:
            continue
        if last is None:
            first = s
            nodes.extend(s)
            last = s[-1]
            continue
        if isinstance(last, PStr) and last.text and last.text[-1] in "!?.,:;":
            joint: PInlines = (SPACE,)
        else:
            joint = (PStr(sep), SPACE)
        tail = latex.merge(first) if len(nodes) == len(first) else (last,)
        nodes.extend(joint)
        nodes.extend(s)
        last = latex.merge((*tail[-1:], *joint, *s))[-1]
    return first if len(nodes) == len(first) else latex.merge(nodes)


def _split_by_and(nodes: PInlines) -> list[PInlines]:
    return [tuple(p) for p in split_by_and(nodes)]


def _read_int(text: str) -> int | None:
    """Haskell's ``readMay`` for an ``Int``: optional minus, ASCII digits, spaces around (at
    most ``MAX_DIGITS`` of them: pandoc's 64-bit ``Int`` holds no more)."""
    text = text.strip()
    if len(text) <= MAX_DIGITS + 1 and re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    return None


_ASCII_DIGITS = re.compile(r"[0-9]+")


def _digits(text: str) -> bool:
    return _ASCII_DIGITS.fullmatch(text) is not None


def _edtf_part(text: str) -> csl.DatePart | None:
    has_y = text.startswith("y")
    if has_y:
        text = text[1:]
    neg = text.startswith("-")
    if neg:
        text = text[1:]
    for k, c in enumerate(text):
        if c in "~?%T":
            text = text[:k]
            break
    if text == "":
        return csl.DatePart(0)
    pieces = text.split("-")
    if len(pieces) > 3:
        return None
    y = pieces[0]
    if not (len(y) == 4 or (has_y and 4 <= len(y) <= MAX_DIGITS)) or not _digits(y):
        return None
    year = int(y)
    if neg:
        year = -year - 1
    if len(pieces) == 1:
        return csl.DatePart(year)
    if len(pieces[1]) != 2 or not _digits(pieces[1]):
        return None
    month = int(pieces[1])
    if len(pieces) == 2:
        return csl.DatePart(year, month)
    if len(pieces[2]) != 2 or not _digits(pieces[2]):
        return None
    return csl.DatePart(year, month, int(pieces[2]))


def _edtf(raw: str) -> csl.Date | None:
    """citeproc's ``rawDateEDTF`` (BibLaTeX ``date`` fields)."""
    raw = raw.replace("\u00a0", "~")
    pieces = raw.split("/")
    if len(pieces) == 1 and "u" in pieces[0]:
        raw = pieces[0].replace("u", "0") + "/" + pieces[0].replace("u", "9")
    elif len(pieces) == 2 and pieces[1] in ("open", "unknown"):
        raw = pieces[0] + "/"
    ranges = [r.strip() for r in raw.split("/")]
    circa = any(r.endswith("~") for r in ranges)
    parts = []
    for r in ranges:
        p = _edtf_part(r)
        if p is None:
            return None
        parts.append(p)
    return _make_date(parts, circa)


def _make_date(parts: list[csl.DatePart], circa: bool) -> csl.Date:
    return csl.Date(start=parts[0], end=parts[1] if len(parts) > 1 else None, circa=circa)


def _fix_leading_dash(text: str) -> str:
    if len(text) > 1 and text[0] in "\u2013\u2014" and text[1].isdigit():
        return "\u2013" + text[1:]
    return text


def _parse_month(raw: str) -> int | None:
    key = raw.strip().lower()
    if key in _MONTHS:
        return _MONTHS[key]
    return _read_int(raw)


# how ``_Ctx.pick`` reads a field: as a title, a periodical's title, or plain
_TITLE, _PERIODICAL, _FIELD = range(3)


@record()
class _Ctx:
    """One entry being converted: its fields and the switches pandoc derives from them."""

    fields: dict[str, str]
    untitlecase: bool
    biblatex: bool
    strings: Mapping[str, str]  # biblatex's localisation strings in the document's language

    def raw(self, name: str) -> str | None:
        return self.fields.get(name)

    def field(self, name: str) -> PInlines | None:
        """The field read as LaTeX; ``None`` if absent or unreadable (pandoc's getField)."""
        value = self.fields.get(name)
        if value is None:
            return None
        return latex.parse(value)

    def title(self, name: str) -> PInlines | None:
        value = self.fields.get(name)
        if value is None:
            return None
        if self.untitlecase:
            return _title_nodes(value, name == "series")
        nodes = latex.parse(value)
        if nodes is not None and name == "series":
            nodes = _resolve_keys(nodes, self.strings)
        return nodes

    def periodical_title(self, name: str) -> PInlines | None:
        value = self.fields.get(name)
        return None if value is None else _periodical_nodes(value)

    def pick(self, *candidates: tuple[bool, int, str]) -> PInlines | None:
        """The first candidate (when its condition holds) that is present and readable."""
        for condition, kind, name in candidates:
            if condition and name in self.fields:
                if kind == _TITLE:
                    value = self.title(name)
                elif kind == _PERIODICAL:
                    value = self.periodical_title(name)
                else:
                    value = self.field(name)
                if value is not None:
                    return value
        return None

    def literal_list(self, name: str) -> PInlines | None:
        """A BibLaTeX literal list: items separated by ``and`` are joined with ``; ``."""
        value = self.fields.get(name)
        if value is None:
            return None
        nodes = latex.parse(value)
        if not nodes:
            return None
        out: list[PInline] = []
        for k, part in enumerate(_split_by_and(nodes)):
            if k:
                out.extend((PStr(";"), SPACE))
            out.extend(part)
        return latex.merge(out)

    def names(self, name: str, *, useprefix: bool) -> tuple[csl.Name, ...] | None:
        value = self.fields.get(name)
        return None if value is None else _names(value, useprefix)

    def old_date(self, prefix: str) -> csl.Date | None:
        year_nodes = self.field(prefix + "year")
        year = (
            _read_int(_fix_leading_dash(latex.stringify(year_nodes)))
            if year_nodes is not None
            else None
        )
        month_raw = self.raw(prefix + "month")
        month = _parse_month(month_raw) if month_raw is not None else None
        day_raw = self.raw(prefix + "day")
        day = _read_int(day_raw) if day_raw is not None else None
        end_year_nodes = self.field(prefix + "endyear")
        end_year = (
            _read_int(_fix_leading_dash(latex.stringify(end_year_nodes)))
            if end_year_nodes is not None
            else None
        )
        end_month_nodes = self.field(prefix + "endmonth")
        end_month = (
            _parse_month(latex.stringify(end_month_nodes)) if end_month_nodes is not None else None
        )
        end_day_nodes = self.field(prefix + "endday")
        end_day = _read_int(latex.stringify(end_day_nodes)) if end_day_nodes is not None else None
        parts: list[csl.DatePart] = []
        for y, m, d in ((year, month, day), (end_year, end_month, end_day)):
            if y is None:
                continue
            if m is None:
                parts.append(csl.DatePart(y))
            elif d is None:
                parts.append(csl.DatePart(y, m))
            else:
                parts.append(csl.DatePart(y, m, d))
        if parts:
            return _make_date(parts, False)
        literal = self.raw(prefix + "year")
        if literal is None or not literal.strip():
            # pandoc keeps `year = {}` as an empty literal date and prints no date at all; an
            # empty year is an undated work, which Chicago (and refbook) prints as "n.d."
            return None
        return csl.Date(literal=literal)

    def date(self, name: str, prefix: str) -> csl.Date | None:
        raw = self.raw(name)
        if raw is not None:
            d = _edtf(raw)
            if d is not None:
                return d
        return self.old_date(prefix)


def _resolve_keys(nodes: PInlines, strings: Mapping[str, str]) -> PInlines:
    """biblatex localisation keys written as words (``jourser`` → "series"), each word of the
    top level as pandoc does (``and`` in a French series is "et"; a word in braces is kept)."""
    return tuple(
        PStr(strings.get(n.text, n.text)) if isinstance(n, PStr) else n
        for n in nodes
    )


@lru_cache(maxsize=1)
def _language_strings_data() -> dict[str, dict[str, str]]:
    """language → key → long form (LaTeX) of ``styles/data/biblatex-strings.txt``."""
    from refbook.styles import DATA

    out: dict[str, dict[str, str]] = {}
    text = (DATA / "biblatex-strings.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            language, key, value = line.split("|", 2)
            out.setdefault(language, {})[key] = value
    return out


@lru_cache(maxsize=64)
def bibstrings(document_language: str) -> Mapping[str, str]:
    """biblatex's localisation strings (key → text) for a document language (``fr-FR``): those
    pandoc has for its primary language (read as LaTeX, as pandoc reads them), the English ones
    for the keys it has not (pandoc prints such a key as it is: ``phdthesis``)."""
    language = document_language.lower().split("-")[0]
    if language == "en":
        return latex.BIBLATEX_STRINGS
    own = _language_strings_data().get(language)
    if not own:
        return latex.BIBLATEX_STRINGS
    merged = dict(latex.BIBLATEX_STRINGS)
    for key, value in own.items():
        nodes = latex.parse(value)
        if nodes is not None:
            merged[key] = latex.stringify(nodes)
    return merged


@lru_cache(maxsize=32768)
def _names(value: str, useprefix: bool) -> tuple[csl.Name, ...] | None:
    """A name list as CSL names; ``None`` when pandoc cannot read it (then it has none)."""
    if not value.strip() or latex.parse(value.strip()) is None:
        return None
    persons, _problems = parse_names_pandoc(value)
    return tuple(_to_name(p, useprefix=useprefix) for p in persons)


def _to_name(p: Person, *, useprefix: bool) -> csl.Name:
    if p.others:
        return csl.Name(others=True)
    if p.literal:
        return csl.Name(literal=p.literal)
    return csl.Name(
        family=p.last,
        given=p.first,
        non_dropping_particle=p.von if useprefix else "",
        dropping_particle="" if useprefix else p.von,
        suffix=p.jr,
    )


def _parse_options(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in raw.split(","):
        key, _, value = item.partition("=")
        out.setdefault(key.strip().lower(), value.strip().lower())
    return out


def _option_set(opts: Mapping[str, str], key: str) -> bool:
    return opts.get(key) in ("true", "")


def _is_number(text: str) -> bool:
    body = text[1:] if text.startswith("-") else text
    return bool(text) and (_digits(body) or body == "")


def _ordinalize(n: str) -> str:
    key = n if len(n) >= 2 else ("00" + n)[-2:]
    return n + _ORDINALS.get(key, "th")


def _type_and_genre(et: str, fields: Mapping[str, str],
                    strings: Mapping[str, str]) -> tuple[str, str | None]:
    raw_type = fields.get("type")
    reftype_field = strings.get(raw_type, raw_type) if raw_type is not None else ""
    subtype = fields.get("entrysubtype", "")
    is_event = any(k in fields for k in ("eventdate", "eventtitle", "venue"))
    if et in _PERIODICAL_TYPES:
        if subtype == "magazine":
            reftype = "article-magazine"
        elif subtype == "newspaper":
            reftype = "article-newspaper"
        else:
            reftype = "article-journal"
    elif et == "unpublished":
        reftype = "speech" if is_event else "manuscript"
    else:
        reftype = _TYPES.get(et, "")
    genre: str | None
    if et == "mastersthesis":
        genre = reftype_field or strings["mathesis"]
    elif et == "phdthesis":
        genre = reftype_field or strings["phdthesis"]
    else:
        genre = reftype_field or None
    return reftype, genre


def _language(fields: Mapping[str, str]) -> str | None:
    langid = fields.get("langid")
    if langid is not None:
        lid = langid.strip().lower()
        opts_nodes = latex.parse(fields["langidopts"]) if "langidopts" in fields else None
        opts = latex.stringify(opts_nodes).strip().lower() if opts_nodes else ""
        if lid == "english" and opts in _ENGLISH_VARIANTS:
            lid = _ENGLISH_VARIANTS[opts]
        return _IETF.get(lid.lower(), lid.lower())
    hyph = fields.get("hyphenation")
    if hyph is not None:
        h = hyph.lower()
        return _IETF.get(h, h)
    return None


def _convert_en_dash(nodes: PInlines) -> PInlines:
    return map_str(nodes, lambda t: t.replace("\u2013", "-"))


def page_variable(value: str) -> ir.Inlines | None:
    """The ``page`` variable :func:`entry_to_item` makes of a ``pages`` field written ``value``
    (``None``: unreadable, no variable). The conversion reads ``pages`` at this one place, so two
    entries that differ only in their ``pages`` convert to equal items exactly when this gives
    equal values (``refbook.validate.output`` asks it before converting whole entries)."""
    nodes = latex.parse(value)  # what _Ctx.field reads
    return None if nodes is None else _rich(_page_nodes(nodes))


def _page_nodes(pages: PInlines) -> PInlines:
    """The ``page`` variable's nodes from the ``pages`` field's (the one step between)."""
    return _convert_en_dash(pages)


def _rich(nodes: PInlines) -> ir.Inlines:
    """A variable's nodes as the item holds them (every text variable's last step). A value of
    raw TeX alone (an ADS export's ``journal = {\\aap}``, an undefined journal macro) prints
    nothing but is there, as for pandoc: the style still treats the item as having it (the
    article's title in quotes, ``in`` before the series)."""
    out = latex.pandoc_to_inlines(nodes, groups_nocase=False)
    if not out and nodes and _holds_raw(nodes):
        return ir.INVISIBLE
    return out


def _holds_raw(nodes: PInlines) -> bool:
    return any(isinstance(n, PRaw) or (isinstance(n, _CONTAINERS) and _holds_raw(n.children))
               for n in nodes)


def entry_to_item(
    entry: Entry, *, default_language: str = "en-US", biblatex: bool = True
) -> csl.Item:
    """Map one entry to a CSL item exactly as pandoc's citeproc does.

    ``default_language`` is the document's language (pandoc's ``lang``, ``en-US`` by default):
    titles are sentence-cased only when it, and the entry's ``langid``/``hyphenation`` if set,
    is English. ``crossref``/``xdata`` must already be resolved
    (``refbook.readers.resolve_crossrefs``, the one implementation of pandoc's inheritance).
    """
    fields = _field_map(entry)
    et = entry.type
    language = _language(fields)
    untitlecase = default_language.lower().split("-")[0] == "en" and (
        language is None or language == "en" or language.startswith("en-")
    )
    strings = bibstrings(default_language)
    ctx = _Ctx(fields, untitlecase, biblatex, strings)
    opts = _parse_options(fields["options"]) if "options" in fields else {}
    useprefix = _option_set(opts, "useprefix")
    reftype, genre = _type_and_genre(et, fields, strings)

    is_article = et in _ARTICLE_LIKE
    is_periodical = et == "periodical"
    is_chapterlike = et in _CHAPTER_LIKE
    has_maintitle = "maintitle" in fields
    main_not_chapter = has_maintitle and not is_chapterlike
    main_chapter = has_maintitle and is_chapterlike

    text: dict[str, PInlines] = {}
    plain: dict[str, str] = {}
    names: dict[str, tuple[csl.Name, ...]] = {}
    dates: dict[str, csl.Date] = {}

    # names
    editortype = fields.get("editortype", "")
    for var, fname in (
        ("author", "author"),
        ("container-author", "bookauthor"),
        ("translator", "translator"),
    ):
        people = ctx.names(fname, useprefix=useprefix)
        if people is not None:
            names[var] = people
    editor: tuple[csl.Name, ...] | None = ctx.names("editor", useprefix=useprefix)
    director: tuple[csl.Name, ...] | None = ctx.names("director", useprefix=useprefix)
    if editortype == "director":
        editor, director = None, editor
    if editor is not None:
        names["editor"] = editor
    if director is not None:
        names["director"] = director

    # dates
    for var, fname, prefix in (
        ("issued", "date", ""),
        ("event-date", "eventdate", "event"),
        ("original-date", "origdate", "orig"),
        ("accessed", "urldate", "url"),
    ):
        d = ctx.date(fname, prefix)
        if d is not None:
            dates[var] = d

    # locators
    for var, fname in (
        ("number-of-pages", "pagetotal"),
        ("number-of-volumes", "volumes"),
        ("chapter-number", "chapter"),
        ("edition", "edition"),
        ("version", "version"),
    ):
        value = ctx.field(fname)
        if value is not None:
            text[var] = value
    pages = ctx.field("pages")
    if pages is not None:
        text["page"] = _page_nodes(pages)
    volume, part = ctx.field("volume"), ctx.field("part")
    if volume is not None and part is not None:
        text["volume"] = latex.merge((*volume, PStr("."), *part))
    elif volume is not None or part is not None:
        text["volume"] = volume if volume is not None else part  # type: ignore[assignment]
    number = ctx.field("number")
    if number is not None:
        if et in _NUMBER_IS_COLLECTION:
            text["collection-number"] = number
        elif is_article:
            issue = ctx.field("issue")
            text["issue"] = _concat_with(",", [number, issue]) if issue is not None else number
        else:
            text["number"] = number

    # titles
    title = ctx.pick(
        (is_periodical, _TITLE, "issuetitle"),
        (main_not_chapter, _TITLE, "maintitle"),
        (True, _TITLE, "title"),
    )
    subtitle = (
        (ctx.title("mainsubtitle") or ())
        if main_not_chapter and not (is_periodical and "issuesubtitle" in fields)
        else ctx.pick((is_periodical, _TITLE, "issuesubtitle"), (True, _TITLE, "subtitle")) or ()
    )
    titleaddon = (
        (ctx.title("maintitleaddon") or ()) if main_not_chapter else ctx.title("titleaddon") or ()
    )
    volume_title = ctx.pick(
        (main_not_chapter, _TITLE, "title"), (main_chapter, _TITLE, "booktitle")
    )
    volume_subtitle = (
        ctx.pick((main_not_chapter, _TITLE, "subtitle"), (main_chapter, _TITLE, "booksubtitle"))
        or ()
    )
    volume_titleaddon = (
        ctx.pick((main_not_chapter, _TITLE, "titleaddon"), (main_chapter, _TITLE, "booktitleaddon"))
        or ()
    )
    container_title = ctx.pick(
        (is_periodical, _PERIODICAL, "title"),
        (is_chapterlike, _TITLE, "maintitle"),
        (is_chapterlike, _TITLE, "booktitle"),
        (True, _PERIODICAL, "journaltitle"),
        (True, _PERIODICAL, "journal"),
    )
    container_subtitle = (
        ctx.pick(
            (is_periodical, _PERIODICAL, "subtitle"),
            (is_chapterlike, _TITLE, "mainsubtitle"),
            (is_chapterlike, _TITLE, "booksubtitle"),
            (True, _PERIODICAL, "journalsubtitle"),
        )
        or ()
    )
    container_titleaddon = (
        ctx.pick(
            (is_periodical, _PERIODICAL, "titleaddon"),
            (is_chapterlike, _TITLE, "maintitleaddon"),
            (is_chapterlike, _TITLE, "booktitleaddon"),
        )
        or ()
    )
    container_title_short = ctx.pick(
        (is_periodical and not has_maintitle, _FIELD, "shorttitle"),
        (True, _PERIODICAL, "shortjournal"),
    )
    series = ctx.title("series")
    if series is not None and len(series) == 1:
        only = series[0]
        if isinstance(only, PStr) and _is_number(only.text):
            series = (
                PStr(_ordinalize(only.text)),
                SPACE,
                PStr(strings["jourser"]),
            )
    short_title = ctx.title("shorttitle") if (not has_maintitle or is_chapterlike) else None
    if short_title is None:
        full = ctx.title("title")
        if full is not None:
            pieces = _split_colons(full)
            require_colon = not ((subtitle or titleaddon) and not has_maintitle)
            if not require_colon or PStr(":") in pieces:
                short = []
                for n in pieces:
                    if n == PStr(":"):
                        break
                    short.append(n)
                short_title = tuple(short)

    if title is not None:
        text["title"] = _concat_with(".", [_concat_with(":", [title, subtitle]), titleaddon])
    if volume_title is not None:
        text["volume-title"] = _concat_with(
            ".", [_concat_with(":", [volume_title, volume_subtitle]), volume_titleaddon]
        )
    if container_title is not None:
        text["container-title"] = _concat_with(
            ".", [_concat_with(":", [container_title, container_subtitle]), container_titleaddon]
        )
    if container_title_short is not None:
        text["container-title-short"] = container_title_short
    if series is not None:
        text["collection-title"] = series
    if short_title is not None:
        text["title-short"] = short_title
    for var, fname in (("event", "eventtitle"), ("original-title", "origtitle")):
        value = ctx.title(fname)
        if value is not None:
            text[var] = value

    # publisher and places
    pubs: list[PInlines] = []
    for fname in ("school", "institution", "organization", "howpublished", "publisher"):
        value = (
            ctx.field(fname) if not biblatex or fname == "howpublished" else ctx.literal_list(fname)
        )
        if value is not None:
            pubs.append(value)
    if pubs:
        text["publisher"] = _concat_with(";", pubs)
    origpublisher = ctx.field("origpublisher")
    if origpublisher is not None:
        text["original-publisher"] = origpublisher
    venue = ctx.field("venue")
    if venue is not None:
        text["event-place"] = venue
    if biblatex:
        address = ctx.literal_list("address")
        if address is None and et != "patent":
            address = ctx.literal_list("location")
        origlocation = ctx.literal_list("origlocation")
    else:
        address = ctx.field("address")
        origlocation = ctx.field("origlocation")
    if address is not None:
        text["publisher-place"] = address
    if origlocation is not None:
        text["original-publisher-place"] = origlocation
    if reftype == "patent" and "location" in fields:
        loc = latex.parse(fields["location"])
        if loc:
            text["jurisdiction"] = _concat_with(
                ";", [_resolve_keys(p, strings) for p in _split_by_and(loc)])

    # identifiers (raw text, as written)
    url = fields.get("url") if (et == "online" or opts.get("url") != "false") else None
    if url is None and "eprinttype" in fields and "eprint" in fields:
        base = _EPRINT_URLS.get(fields["eprinttype"].lower(), "")
        if base:
            url = base + fields["eprint"]
    if url is not None:
        plain["URL"] = url
    if opts.get("doi") != "false" and "doi" in fields:
        plain["DOI"] = fields["doi"]
    for var, fname in (
        ("ISBN", "isbn"),
        ("ISSN", "issn"),
        ("PMID", "pmid"),
        ("PMCID", "pmcid"),
        ("call-number", "library"),
        ("other-ids", "ids"),
    ):
        if fname in fields:
            plain[var] = fields[fname]
    if genre is not None:
        plain["genre"] = genre
    if language is not None:
        plain["language"] = language

    # notes; the long ones few styles print stay LaTeX until read (csl.Item.var, _from_latex)
    lazy: list[tuple[str, tuple[str, ...]]] = []
    for var, fnames in _LAZY:
        sources = tuple(fields[f] for f in fnames if f in fields)
        if sources:
            lazy.append((var, sources))
    note = ctx.field("note") if et != "periodical" else None
    addendum = ctx.field("addendum") if biblatex else None
    notes = [n for n in (note, addendum) if n is not None]
    if notes:
        text["note"] = _concat_with(".", notes)
    pubstate = ctx.field("pubstate")
    if pubstate is not None:
        text["status"] = _resolve_keys(pubstate, strings)
    elif (issued := dates.get("issued")) is not None and issued.literal == "forthcoming":
        text["status"] = (PStr("forthcoming"),)

    rich: dict[str, ir.Inlines] = {k: _rich(v) for k, v in text.items()}
    for k, v in plain.items():
        rich[k] = (ir.Text(v),) if v else ()
    return csl.Item(
        id=entry.key,
        type=reftype,
        text=tuple(sorted(rich.items())),
        names=tuple(sorted(names.items())),
        dates=tuple(sorted(dates.items())),
        language=language or "",
        latex=tuple(lazy),
    )


#: The variables kept as LaTeX source in ``csl.Item.latex`` (variable, fields in the order
#: pandoc picks them: the first readable one): long texts that few styles print, so that the
#: others never decode them (an abstract cost ~60% of converting a real bibliography).
_LAZY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("abstract", ("abstract",)),
    ("annote", ("annotation", "annote")),
    ("keyword", ("keywords",)),
)


@lru_cache(maxsize=65536)
def _from_latex(sources: tuple[str, ...]) -> ir.Inlines | None:
    """A variable of ``_LAZY`` converted as an eager one is (``_Ctx.pick`` over plain fields,
    then the same ``pandoc_to_inlines``); ``None`` when no candidate is readable. Bounded as
    ``refbook.items``' memo of items: a style that prints abstracts converts each once even
    when sorting reads items in turn (only values read are held)."""
    for value in sources:
        nodes = latex.parse(value)
        if nodes is not None:
            return latex.pandoc_to_inlines(nodes, groups_nocase=False)
    return None


csl._from_latex = _from_latex


def _split_colons(nodes: PInlines) -> list[PInline]:
    out: list[PInline] = []
    for n in nodes:
        if isinstance(n, PStr) and ":" in n.text:
            for k, piece in enumerate(n.text.split(":")):
                if k:
                    out.append(PStr(":"))
                if piece:
                    out.append(PStr(piece))
        else:
            out.append(n)
    return out


# --------------------------------------------------------------------------------------------
# Item → pandoc's CSL-JSON
# --------------------------------------------------------------------------------------------

_SUPERSCRIPT = {
    "\u00aa": "a", "\u00b2": "2", "\u00b3": "3", "\u00b9": "1", "\u00ba": "o",
    "\u2070": "0", "\u2071": "i", "\u2074": "4", "\u2075": "5", "\u2076": "6", "\u2077": "7",
    "\u2078": "8", "\u2079": "9", "\u207a": "+", "\u207b": "\u2212", "\u207c": "=",
    "\u207d": "(", "\u207e": ")", "\u207f": "n",
}  # fmt: skip


@record()
class _Render:
    outer_quotes: bool = True
    italics: bool = True
    bold: bool = True
    smallcaps: bool = True


def _render_text(text: str) -> str:
    if not any(c in _SUPERSCRIPT for c in text):
        return text
    # pandoc renders a word that is one superscript character as <sup>
    return " ".join(
        f"<sup>{_SUPERSCRIPT[w]}</sup>" if len(w) == 1 and w in _SUPERSCRIPT else w
        for w in text.split(" ")
    )


def _render(nodes: ir.Inlines, ctx: _Render) -> str:
    out: list[str] = []
    for n in nodes:
        if isinstance(n, ir.Text):
            out.append(_render_text(n.text))
        elif isinstance(n, ir.Span) and n.role == "math":
            out.append(n.key)  # pandoc's CSL-JSON keeps math as TeX
        elif isinstance(n, (ir.Link, ir.Span)):
            out.append(_render(n.children, ctx))
        elif n.kind == "emph":
            if ctx.italics:
                inner = _Render(ctx.outer_quotes, False, ctx.bold, ctx.smallcaps)
                out.append(f"<i>{_render(n.children, inner)}</i>")
            else:
                inner = _Render(ctx.outer_quotes, True, ctx.bold, ctx.smallcaps)
                out.append(f'<span style="font-style:normal;">{_render(n.children, inner)}</span>')
        elif n.kind == "strong":
            if ctx.bold:
                inner = _Render(ctx.outer_quotes, ctx.italics, False, ctx.smallcaps)
                out.append(f"<b>{_render(n.children, inner)}</b>")
            else:
                inner = _Render(ctx.outer_quotes, ctx.italics, True, ctx.smallcaps)
                out.append(f'<span style="font-weight:normal;">{_render(n.children, inner)}</span>')
        elif n.kind == "smallcaps":
            if ctx.smallcaps:
                inner = _Render(ctx.outer_quotes, ctx.italics, ctx.bold, False)
                out.append(
                    f'<span style="font-variant:small-caps;">{_render(n.children, inner)}</span>'
                )
            else:
                inner = _Render(ctx.outer_quotes, ctx.italics, ctx.bold, True)
                out.append(
                    f'<span style="font-variant:normal;">{_render(n.children, inner)}</span>'
                )
        elif n.kind == "sup":
            out.append(f"<sup>{_render(n.children, ctx)}</sup>")
        elif n.kind == "sub":
            out.append(f"<sub>{_render(n.children, ctx)}</sub>")
        elif n.kind == "underline":
            out.append(f"<u>{_render(n.children, ctx)}</u>")
        elif n.kind == "quoted":
            inner = _Render(not ctx.outer_quotes, ctx.italics, ctx.bold, ctx.smallcaps)
            body = _render(n.children, inner)
            out.append(f"“{body}”" if ctx.outer_quotes else f"‘{body}’")
        else:  # nocase, code: plain text in CSL-JSON
            out.append(_render(n.children, ctx))
    return "".join(out)


def _edtf_string(d: csl.Date) -> str:
    """pandoc's ``dateToMetaValue``: the date as an EDTF string (or its literal)."""
    if d.start is None:
        text = d.literal
    else:
        out = []
        for p in (d.start, d.end):
            if p is None:
                continue
            y = p.year
            prefix = "y" if y > 9999 or y < -10000 else ""
            year = f"{y + 1:05d}" if y < -1 else f"{y:04d}"
            if p.month and p.day:
                out.append(f"{prefix}{year}-{p.month:02d}-{p.day:02d}")
            elif p.month:
                out.append(f"{prefix}{year}-{p.month:02d}")
            elif y == 0:
                out.append("")
            else:
                out.append(prefix + year)
        text = "/".join(out)
    return text + ("~" if d.circa else "")


def _date_json(d: csl.Date) -> dict[str, Any]:
    """A date as ``pandoc -t csljson`` prints it: written as EDTF, then read back (a literal
    that is not EDTF loses its text there)."""
    parsed = _edtf(_edtf_string(d))
    out: dict[str, Any] = {}
    if parsed is None:
        out["date-parts"] = []
        return out
    if parsed.circa:
        out["circa"] = True
    parts = []
    for p in (parsed.start, parsed.end):
        if p is None:
            continue
        dp = [p.year]
        if p.month:
            dp.append(p.month)
            if p.day:
                dp.append(p.day)
        parts.append(dp)
    out["date-parts"] = parts
    return out


def _is_particle(word: str) -> bool:
    return bool(word) and all(c.islower() or c in "'’-\u2013." for c in word)


def _name_json(n: csl.Name) -> dict[str, str]:
    """A name as ``pandoc -t csljson`` prints it, after citeproc's ``extractParticles``."""
    if n.others:
        return {"literal": "others"}
    family, given = n.family, n.given
    dropping, nondropping, suffix = n.dropping_particle, n.non_dropping_particle, n.suffix
    if not suffix and given:
        if len(given) > 1 and given.startswith('"') and given.endswith('"'):
            given = given[1:-1]
        elif "," in given:
            a, _, b = given.partition(",")
            if a:
                given, suffix = a, (b[1:] if b.startswith("!") else b).strip()
    if not dropping and given:
        words = given.split()
        k = next((i for i, w in enumerate(words) if _is_particle(w)), len(words))
        if 0 < k < len(words) and all(_is_particle(w) for w in words[k:]):
            given, dropping = " ".join(words[:k]), " ".join(words[k:])
    if not nondropping and family:
        if len(family) > 1 and family.startswith('"') and family.endswith('"'):
            family = family[1:-1]
        else:
            words = family.split()
            k = 0
            while k < len(words) and _is_particle(words[k]):
                k += 1
            if k == 0:
                pieces = re.split(r"['’\-\u2013.]", family)
                if len(pieces) == 2 and all(c.islower() or c in "'’-\u2013." for c in pieces[0]):
                    punct = family[len(pieces[0])]
                    family, nondropping = pieces[1], pieces[0] + punct
            elif k < len(words):
                family, nondropping = " ".join(words[k:]), " ".join(words[:k])
    out = {
        "family": family,
        "given": given,
        "non-dropping-particle": nondropping,
        "dropping-particle": dropping,
        "suffix": suffix,
        "literal": n.literal,
    }
    return {k: v for k, v in out.items() if v}


def csl_to_json(item: csl.Item) -> dict[str, Any]:
    """An item in the shape ``pandoc -t csljson`` prints it (markup as citeproc-js' HTML-like
    tags), for comparisons with pandoc.

    pandoc's CSL-JSON writer passes items through its metadata, which changes two things the
    ``--citeproc`` path never sees: dates are re-read from EDTF (a literal such as
    "2023-2026" prints as no date) and names go through citeproc's ``extractParticles``
    (``"Teknium"`` loses its quotes). This function shows those changes too; the item itself
    keeps what ``--citeproc`` renders.
    """
    out: dict[str, Any] = {"id": item.id, "type": item.type}
    for k, v in item.rich():
        out[k] = _render(v, _Render())
    for k, names in item.names:
        out[k] = [_name_json(n) for n in names]
    for k, d in item.dates:
        out[k] = _date_json(d)
    return out
