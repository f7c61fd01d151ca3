"""Rules for identifiers and links: DOI, URL, ISBN, ISSN, arXiv.

Also the normalizers the duplicate rules (``refbook.validate.keys``) and the date rules compare
with: :func:`doi_of`, :func:`arxiv_of`, :func:`url_key`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from refbook.diagnostics import Code
from refbook.latex import to_text
from refbook.validate.report import at, show

if TYPE_CHECKING:
    from collections.abc import Iterator

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry, Field

__all__ = ["arxiv_of", "check_entry", "doi_of", "url_key", "url_text"]

DOI_PREFIX = re.compile(
    r"^\s*(?:(?:https?://)?(?:dx\.)?(?:doi\.org|doi\.acm\.org|doi\.ieeecomputersociety\.org)/"
    r"|doi:\s*)+", re.IGNORECASE)
# a DOI, or a short DOI (10/gkb5pd: doi.org resolves it to the full one)
DOI_RE = re.compile(r"^10\.\d{4,9}(?:\.\d+)*/\S+$|^10/[A-Za-z0-9]+$")
_DOI_IN_URL = re.compile(r"doi\.org/(10\.\S+)", re.IGNORECASE)
SCHEME_TWICE = re.compile(r"\b(?:https?|ftp)://+(?=(?:https?|ftp)://)", re.IGNORECASE)
URL_IN_TEXT = re.compile(r"\\url\{|\bhttps?://|\bwww\.[a-z0-9-]+\.[a-z]", re.IGNORECASE)
ARXIV_NEW = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?$")
ARXIV_OLD = re.compile(r"^[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?$")
ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf)/|arxiv[:.]\s*|10\.48550/arxiv\.)"
    r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})", re.IGNORECASE)
# Fields whose value is printed as text: a URL there is not a link.
# Where an isbn or issn field separates its numbers: a comma, a semicolon or "and" between
# spaces, whose space run is only tried from its start ((?<!\s)): from each of its positions
# a long run of spaces was rescanned, quadratic in the run.
LIST_SEPARATOR = re.compile(r"[,;]|(?<!\s)\s+and\s+")
# What library catalogues write after a number: "092492201X (PBK)", "2689-6575(ELECTRONIC)".
QUALIFIER = re.compile(r"\([A-Za-z. -]{1,30}\)")
TEXT_FIELDS = frozenset(("howpublished", "journal", "journaltitle", "booktitle", "publisher",
                         "organization", "institution", "school", "series", "note", "address",
                         "location", "title"))


def url_text(value: str) -> str:
    """A url field as the styles link it: verbatim (``~`` is a tilde, not a space), without
    the braces that protect it or a ``\\url{…}`` around it."""
    text = value.strip()
    m = re.fullmatch(r"\\url\s*\{(.*)\}", text, re.DOTALL)
    if m:
        text = m.group(1)
    return text.replace("{", "").replace("}", "").strip()


def _text(entry: Entry, name: str) -> str:
    return to_text(entry.get(name)).strip()


def doi_of(entry: Entry) -> str:
    """The entry's DOI, normalized (prefix removed, lower case), or ''."""
    doi = DOI_PREFIX.sub("", _text(entry, "doi")).strip().lower()
    if not doi:
        m = _DOI_IN_URL.search(_text(entry, "url"))
        doi = m.group(1).lower() if m else ""
    return doi


#: the last entry :func:`arxiv_of` answered for and its answer: the rules of one entry ask two
#: or three times in a row (the same-work signals, the arXiv year, the arXiv DOI); a pair
#: swapped whole, so a reader in another thread never sees one entry with another's answer
_LAST_ARXIV: list[tuple[Entry | None, tuple[str, str]]] = [(None, ("", ""))]


def arxiv_of(entry: Entry) -> tuple[str, str]:
    """The entry's arXiv id without version and the field it came from, or ('', '')."""
    last_entry, answer = _LAST_ARXIV[0]
    if last_entry is entry:
        return answer
    answer = _arxiv_of(entry)
    _LAST_ARXIV[0] = (entry, answer)
    return answer


def _arxiv_of(entry: Entry) -> tuple[str, str]:
    kind = (entry.get("eprinttype") or entry.get("archiveprefix")).strip().lower()
    eprint = to_text(entry.get("eprint")).strip()
    if eprint and kind in ("arxiv", ""):
        m = ARXIV_IN_TEXT.search(eprint)
        ident = m.group(1) if m else eprint
        if kind == "arxiv" or ARXIV_NEW.match(ident):
            return re.sub(r"v\d+$", "", ident), "eprint"
    for name in ("url", "doi", "journal", "journaltitle", "note", "howpublished", "volume"):
        raw = entry.get(name)
        if not raw:
            continue
        if "arxiv" not in raw.lower().replace("{", "").replace("}", ""):
            continue  # the text cannot hold an arXiv id: skip the LaTeX reading
        m = ARXIV_IN_TEXT.search(to_text(raw))
        if m:
            return re.sub(r"v\d+$", "", m.group(1)), name
    return "", ""


def url_key(url: str) -> str:
    """A URL normalized for comparison (scheme, www., trailing slash, fragment ignored)."""
    u = url.strip().lower()
    u = re.sub(r"^[a-z]+://", "", u)
    u = u.removeprefix("www.").split("#", 1)[0]
    u = re.sub(r"^arxiv\.org/pdf/([^/]+?)(?:\.pdf)?$", r"arxiv.org/abs/\1", u)
    if u.startswith("arxiv.org/"):
        # strip the slashes first: "(v\d+)?/*$" rescanned a run of slashes from each position
        return re.sub(r"v\d+$", "", u.rstrip("/"))
    return u.rstrip("/")


def _isbn_ok(digits: str) -> bool:
    if len(digits) == 10 and re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits))
        return total % 11 == 0
    if len(digits) == 13 and digits.isdecimal():  # ("²".isdigit(), but int("²") fails)
        total = sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(digits))
        return total % 10 == 0
    return False


def _isbn_parts(value: str) -> list[str]:
    """The ISBNs of an isbn field (comma-, semicolon-, 'and'- or space-separated)."""
    out: list[str] = []
    for part in LIST_SEPARATOR.split(value):
        part = re.sub(r"(?i)^\s*isbn(?:-1[03])?:?\s*", "", part)
        part = QUALIFIER.sub("", part).strip()
        tokens = part.split()
        if len(tokens) > 1 and all(len(re.sub(r"-", "", t)) in (10, 13) for t in tokens):
            out.extend(tokens)
        elif part:
            out.append(part)
    return out


def _issn_ok(value: str) -> bool:
    digits = value.replace("-", "").upper()
    if not re.fullmatch(r"\d{7}[\dX]", digits):
        return False
    total = sum((8 - i) * int(c) for i, c in enumerate(digits[:7]))
    check = (11 - total % 11) % 11
    return digits[7] == ("X" if check == 10 else str(check))


def check_entry(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    """The family's rules on one entry (they look at no other entry)."""
    yield from _doi(entry)
    yield from _urls(entry)
    yield from _text_urls(entry)
    yield from _isbn_issn(entry)
    yield from _arxiv(entry)
    yield from _consistency(entry)


def _doi(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("doi")
    if f is None or not f.value.strip():
        return
    raw = to_text(f.value).strip()
    bare = DOI_PREFIX.sub("", raw).strip()
    if bare != raw:
        yield at(Code.DOI_PREFIX, entry, f, f"doi {show(raw)} holds a resolver prefix; styles add "
                 f"'https://doi.org/' themselves, so the link would be doubled",
                 f"write doi = {{{bare}}} (refbook check --fix does this)")
    if not DOI_RE.match(bare):
        if " " in bare or "\t" in bare:
            why = "it contains a space"
        elif not bare.startswith("10."):
            why = "a DOI starts with '10.'"
        else:
            why = "a DOI is '10.<registrant>/<suffix>'"
        yield at(Code.DOI_SYNTAX, entry, f, f"doi {show(raw)} is not a DOI: {why}",
                 "copy the DOI from the publisher's page (it looks like 10.1145/3600006.3613165); "
                 "put a web address in url instead")
    elif bare.endswith((".", ",", ";")):
        yield at(Code.DOI_END, entry, f, f"doi {show(raw)} ends with {bare[-1]!r}, which is "
                 "punctuation pasted with it: the link leads nowhere",
                 f"write doi = {{{bare.rstrip('.,;')}}}")


def _urls(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("url")
    if f is None or not f.value.strip():
        return
    raw = url_text(f.value)
    tokens = raw.split()
    found = [t for t in re.split(r"[\s|,;]+", raw) if re.match(r"(?i)[a-z][a-z0-9+.-]*://", t)]
    if len(found) > 1:
        yield at(Code.URL_MULTIPLE, entry, f, f"url {show(raw)} holds {len(found)} URLs",
                 f"keep one link in url ({found[0]}); put the others in note as "
                 f"\\url{{…}} or in a separate entry")
        return
    if len(tokens) > 1:
        joined = "".join(tokens)
        yield at(Code.URL_SPACE, entry, f, f"url {show(raw)} contains a space, so the link ends at "
                 f"{show(tokens[0])}", f"remove the spaces ({joined}) or encode them as %20")
        return
    m = SCHEME_TWICE.match(raw)
    if m:
        fixed = SCHEME_TWICE.sub("", raw)
        yield at(Code.URL_SCHEME_DUPLICATED, entry, f, f"url {show(raw)} has its scheme twice",
                 f"write url = {{{fixed}}} (refbook check --fix does this)")
        return
    yield from _one_url(entry, f.name, raw, f)


def _one_url(entry: Entry, name: str, raw: str, f: Field) -> Iterator[Diagnostic]:
    try:
        parts = urlsplit(raw)
    except ValueError:  # an unbalanced "[" (urllib: "Invalid IPv6 URL")
        yield at(Code.URL_MALFORMED, entry, f, f"{name} {show(raw)} is not a valid URL "
                 "(a bracket that is not part of an IPv6 address)",
                 "check the address in a browser and copy it again")
        return
    if not parts.scheme:
        hint = (f"write the full address, e.g. https://{raw}" if "." in raw.split("/", maxsplit=1)[0]
                else "put a web address starting with https:// in url")
        yield at(Code.URL_MALFORMED, entry, f, f"{name} {show(raw)} is not an absolute URL "
                 f"(no scheme such as https://)", hint)
        return
    if parts.scheme.lower() not in ("http", "https"):
        if parts.scheme.lower() in ("javascript", "data", "vbscript", "file"):
            hint = "remove it: this link is unsafe or only works on the author's machine"
        else:
            hint = f"link to an http(s) page instead, if one exists, or ignore this code for {entry.key}"
        yield at(Code.URL_SCHEME, entry, f, f"{name} {show(raw)} uses the scheme "
                 f"'{parts.scheme}:', not http(s)", hint)
        return
    host = parts.hostname or ""
    if not host or ("." not in host and host != "localhost") or host.startswith(".") \
            or host.endswith("."):
        yield at(Code.URL_MALFORMED, entry, f, f"{name} {show(raw)} has no valid host name "
                 f"({host or 'empty'})", "check the address in a browser and copy it again")


def _consistency(entry: Entry) -> Iterator[Diagnostic]:
    u = entry.field("url")
    d = entry.field("doi")
    if u is not None and d is not None:
        m = re.search(r"doi\.org/(10\.\S+)", to_text(u.value), re.IGNORECASE)
        doi = DOI_PREFIX.sub("", to_text(d.value)).strip()
        if m and doi and m.group(1).rstrip("/").lower() != doi.lower():
            yield at(Code.DOI_URL_MISMATCH, entry, u, f"url links to DOI {m.group(1)!r}, but doi "
                     f"is {doi!r}",
                     "check which DOI is this work's; then remove url (styles link the doi)")
    ud = entry.field("urldate")
    linked = entry.get("url").strip() or entry.get("doi").strip() or entry.get("eprint").strip()
    if ud is not None and ud.value.strip() and not linked:
        # with a doi or eprint the style links that, and the access date goes with the link
        yield at(Code.URLDATE_WITHOUT_URL, entry, ud, f"urldate {show(ud.value)} is set but the "
                 "entry has no url", "add the url that was accessed, or remove urldate")


def _text_urls(entry: Entry) -> Iterator[Diagnostic]:
    has_url = bool(entry.get("url").strip())
    for f in entry.fields:
        if f.name not in TEXT_FIELDS:
            continue
        # what URL_IN_TEXT can match holds one of these (found in C, without trying the
        # pattern's alternatives at every character of every title)
        lowered = f.value.lower()
        if (("://" not in lowered and "www." not in lowered and "\\url{" not in lowered)
                or not URL_IN_TEXT.search(f.value)):
            continue
        if f.name == "note" and has_url:
            continue  # a second link in note, with the main one in url, is fine
        links = [re.sub(r"^(https?://)+(?=https?://)", "", m.group(1) or m.group(2))
                 for m in re.finditer(r"\\url\{([^}]*)\}|(https?://[^\s}|]+|www\.[^\s}|]+)",
                                      f.value)] or [f.value]
        if SCHEME_TWICE.search(f.value):
            yield at(Code.URL_SCHEME_DUPLICATED, entry, f, f"{f.name} {show(f.value)} has a URL "
                     "with its scheme twice", f"write {SCHEME_TWICE.sub('', f.value)} "
                     "(refbook check --fix does this)")
        if has_url:
            hint = (f"remove the link from {f.name} (the entry already has url); keep the name of "
                    f"the site or venue there, e.g. {f.name} = {{GitHub}}")
        elif len(links) > 1:
            rest = ", ".join(f"\\url{{{u}}}" for u in links[1:])
            hint = (f"move them: url = {{{links[0]}}}, note = {{{rest}}}; keep in {f.name} only "
                    "the name of the site or venue (or remove the field)")
        else:
            hint = (f"move it: url = {{{links[0]}}}, and keep in {f.name} only the name of the "
                    "site or venue (or remove the field)")
        shown = (show(f.value, 100) if " " in f.value.strip() and len(links) == 1
                 else ", ".join(show(u, 100) for u in links))
        what = f"{f.name} holds {'a URL' if len(links) == 1 else f'{len(links)} URLs'} ({shown})"
        where = "" if has_url else "; the entry has no url, so no link is shown for it"
        yield at(Code.URL_IN_FIELD, entry, f, f"{what}: styles print {f.name} as text where the "
                 f"venue or site name goes{where}", hint)


def _isbn_issn(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("isbn")
    if f is not None and f.value.strip():
        for part in _isbn_parts(to_text(f.value)):
            digits = re.sub(r"[\s-]", "", part).upper()
            if not digits or _isbn_ok(digits):
                continue
            if _issn_ok(digits):
                yield at(Code.ISBN_CHECKSUM, entry, f, f"isbn {show(part)} is an ISSN, not an ISBN",
                         f"move it: issn = {{{part}}}")
            elif len(digits) in (10, 13):
                yield at(Code.ISBN_CHECKSUM, entry, f, f"isbn {show(part)} is not a valid ISBN "
                         "(its check digit does not match)",
                         "copy the ISBN from the book's copyright page or the publisher's catalogue")
            else:
                yield at(Code.ISBN_CHECKSUM, entry, f, f"isbn {show(part)} has {len(digits)} "
                         "digits, not 10 or 13", "copy the ISBN from the book's copyright page "
                         "or the publisher's catalogue; separate several ISBNs with commas")
    f = entry.field("issn")
    if f is not None and f.value.strip():
        for part in LIST_SEPARATOR.split(to_text(f.value)):
            part = QUALIFIER.sub("", part)
            if part.strip() and not _issn_ok(part.strip()):
                yield at(Code.ISSN_CHECKSUM, entry, f, f"issn {show(part.strip())} is not a valid "
                         "ISSN (NNNN-NNNC with a matching check digit)",
                         "copy the ISSN from the journal's page (print or online ISSN)")


def _arxiv(entry: Entry) -> Iterator[Diagnostic]:
    kind = (entry.get("eprinttype") or entry.get("archiveprefix")).strip().lower()
    f = entry.field("eprint")
    if f is not None and kind == "arxiv":
        ident = to_text(f.value).strip()
        bare = re.sub(r"(?i)^arxiv:\s*", "", ident)
        if not (ARXIV_NEW.match(bare) or ARXIV_OLD.match(bare)):
            yield at(Code.ARXIV_ID, entry, f, f"eprint {show(ident)} is not an arXiv identifier",
                     "write the bare id, e.g. eprint = {2309.06180} (new style) or "
                     "{hep-th/9901001} (old style), without 'arXiv:' or a URL")
        elif bare != ident:
            yield at(Code.ARXIV_ID, entry, f, f"eprint {show(ident)} repeats the 'arXiv:' prefix",
                     f"write eprint = {{{bare}}}; eprinttype = {{arXiv}} already says it")
    for name in ("url",):
        g = entry.field(name)
        if g is None:
            continue
        m = re.search(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+)", g.value, re.IGNORECASE)
        if m:
            ident = re.sub(r"(?:v\d+)?(?:\.pdf)?/?$", "", m.group(1))
            if not (ARXIV_NEW.match(ident) or ARXIV_OLD.match(ident)):
                yield at(Code.ARXIV_ID, entry, g, f"url {show(g.value)} names {show(ident)}, which "
                         "is not an arXiv identifier", "copy the abstract page's address, "
                         "e.g. https://arxiv.org/abs/2309.06180")
