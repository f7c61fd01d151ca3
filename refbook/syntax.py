"""Citation syntax: Pandoc's ``[@key]`` family parsed into :class:`Citation` requests.

Hosts hand citation text here (MkDocs' Markdown extension, Sphinx's MyST pages, the CLI) and get
back what was asked for — keys, mode, prefix, locator, suffix — with source offsets. Formatting
happens later, book-wide, in the registry and the style.

Forms: ``[@a]``, ``[@a; @b]``, ``[see @a, p. 3; also @b]``, ``[-@a]`` (suppress author), narrative
``@a`` and ``@a [p. 3]``, braced keys ``@{odd.key/with:chars}``; ``\\@`` is a literal ``@``.
Adjacent brackets ``[@a][@b]`` are two citations, as mkdocs-bibtex reads them (Pandoc reads the
first as a narrative ``@a`` between literal brackets, which no author means).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Locator labels as Pandoc recognizes them (English locale terms, long and short forms).
_LABELS: dict[str, str] = {}
for _label, _forms in {
    "book": ("book", "books", "bk.", "bks."),
    "chapter": ("chapter", "chapters", "chap.", "chaps.", "ch.", "chs."),
    "column": ("column", "columns", "col.", "cols."),
    "figure": ("figure", "figures", "fig.", "figs."),
    "folio": ("folio", "folios", "fol.", "fols."),
    "issue": ("issue", "issues"),
    "line": ("line", "lines", "l.", "ll."),
    "note": ("note", "notes", "n.", "nn."),
    "number": ("number", "numbers", "no.", "nos."),
    "opus": ("opus", "opera", "op.", "opp."),
    "page": ("page", "pages", "p.", "pp."),
    "paragraph": ("paragraph", "paragraphs", "para.", "paras.", "¶", "¶¶"),
    "part": ("part", "parts", "pt.", "pts."),
    "section": ("section", "sections", "sec.", "secs.", "§", "§§"),
    "sub-verbo": ("sub verbo", "sub verbis", "s.v.", "s.vv."),
    "verse": ("verse", "verses", "v.", "vv."),
    "volume": ("volume", "volumes", "vol.", "vols."),
}.items():
    for _f in _forms:
        _LABELS[_f] = _label
_LABEL_RE = re.compile(
    r"(?P<label>" + "|".join(re.escape(f) for f in sorted(_LABELS, key=len, reverse=True)) + r")\s*",
    re.IGNORECASE,
)
_LOC_WORD = r"(?:[0-9]+[A-Za-z]?|[ivxlcdmIVXLCDM]+)(?:\s*[-\u2013\u2014]+\s*(?:[0-9]+[A-Za-z]?|[ivxlcdmIVXLCDM]+))?"
_LOCATOR_RE = re.compile(rf"{_LOC_WORD}(?:\s*[,&]\s*{_LOC_WORD}(?![A-Za-z]))*")

# A key: starts with a letter, digit or underscore; inner punctuation only between word chars.
_KEY = r"[\w](?:[\w]|[:.#$%&+?<>~/-](?=[\w]))*"
# a braced key stays on one line: "@{" and a "}" lines later are no key (and hide no citation)
_KEY_RE = re.compile(rf"@(?:\{{(?P<braced>[^{{}}\n\r]+)\}}|(?P<plain>{_KEY}))")


@dataclass(frozen=True, slots=True)
class CiteRef:
    """One key inside a citation, with what surrounds it."""

    key: str
    prefix: str = ""
    suffix: str = ""
    locator: str = ""
    label: str = ""
    suppress_author: bool = False
    #: list every author, never "et al." (sphinxcontrib-bibtex's ``:cite:ps:``/``:cite:ts:``)
    all_authors: bool = False


@dataclass(frozen=True, slots=True)
class Citation:
    """A parsed citation. ``mode`` is ``parenthetical`` or ``narrative``; ``start``/``end`` are
    offsets of the whole citation in the scanned text; ``line`` is 1-based."""

    refs: tuple[CiteRef, ...]
    mode: str
    start: int = 0
    end: int = 0
    line: int = 1
    source: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.refs)


def parse_locator(suffix: str) -> tuple[str, str, str]:
    """Split a suffix like ``, pp. 33-35, and elsewhere`` into (label, locator, rest)."""
    s = suffix
    m = re.match(r"\s*,\s*", s)
    if m is None:
        return "", "", suffix
    body = s[m.end():]
    if body.startswith("{"):
        close = body.find("}")
        if close > 0:
            inner = body[1:close].strip()
            lm = _LABEL_RE.match(inner)
            if lm and lm.end() < len(inner):
                return _LABELS[lm.group("label").lower()], inner[lm.end():].strip(), body[close + 1:]
            return "page", inner, body[close + 1:]
    label = ""
    lm = _LABEL_RE.match(body)
    if lm is not None:
        rest = body[lm.end():]
        if _LOCATOR_RE.match(rest):
            label = _LABELS[lm.group("label").lower()]
            body = rest
    loc = _LOCATOR_RE.match(body)
    if loc is None or (not label and not body[:1].isdigit()):
        return "", "", suffix
    return label or "page", loc.group(0).strip(), body[loc.end():]


def _parse_item(text: str) -> CiteRef | None:
    m = _KEY_RE.search(text)
    if m is None:
        return None
    prefix = text[: m.start()]
    suppress = prefix.endswith("-")
    if suppress:
        prefix = prefix[:-1]
    key = m.group("braced") or m.group("plain")
    label, locator, suffix = parse_locator(text[m.end():])
    return CiteRef(key=key.strip(), prefix=prefix.strip(), suffix=suffix.rstrip(),
                   locator=locator, label=label, suppress_author=suppress)


def parse_bracketed(inner: str) -> tuple[CiteRef, ...] | None:
    """The inside of ``[...]``: items separated by ``;``; None if some item has no key."""
    refs = []
    for part in _split_items(inner):
        ref = _parse_item(part)
        if ref is None:
            return None
        refs.append(ref)
    return tuple(refs) if refs else None


def _split_items(inner: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    cur = ""
    for c in inner:
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        if c == ";" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def _matching_bracket(text: str, start: int) -> int:
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
        elif c == "\n" and text[i + 1:i + 2] == "\n":
            return -1
        i += 1
    return -1


def _is_bracketed_citation(text: str, start: int) -> bool:
    """Whether the ``[`` at *start* opens a bracketed citation such as ``[@b]``."""
    end = _matching_bracket(text, start)
    inner = text[start + 1:end] if end > 0 else ""
    return "@" in inner and parse_bracketed(inner) is not None


# what follows a link reference definition's "[label]": a colon and a destination, on the same
# line or the next (as Python-Markdown reads one)
_DESTINATION = re.compile(r":[ \t]*\n?[ \t]*\S")


def _is_definition(text: str, start: int, end: int) -> bool:
    """Whether the brackets at *start*..*end* open a link reference definition."""
    return _starts_line(text, start) and _DESTINATION.match(text, end + 1) is not None


def _starts_line(text: str, i: int) -> bool:
    """Whether only up to three spaces stand between the line's start and *i*."""
    j = i
    while j > 0 and i - j < 4 and text[j - 1] == " ":  # looks back 4 characters at most
        j -= 1
    return i - j <= 3 and (j == 0 or text[j - 1] == "\n")


def find_citations(text: str, *, definitions: bool = True) -> list[Citation]:
    """Every citation in a run of Markdown *text* (the caller keeps code out of it).

    With *definitions* (raw Markdown), ``[label]: destination`` at the start of a line is a
    link reference definition, not a citation; a host that scans text its Markdown parser
    already rid of definitions passes ``definitions=False``. ``[@a]:`` inside a line, or with
    nothing after the colon, is a citation.
    """
    found: list[Citation] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = _matching_bracket(text, i)
            if end > 0:
                inner = text[i + 1:end]
                nxt = text[end + 1:end + 2]
                # "[@a][@b]" is two citations (as mkdocs-bibtex and Python-Markdown read it),
                # not a reference link labelled "@b"; other "[...][label]" stay links
                if "@" in inner and (nxt not in ("(", "[", ":")
                                     or (nxt == "[" and _is_bracketed_citation(text, end + 1))
                                     or (nxt == ":" and not (definitions
                                                             and _is_definition(text, i, end)))):
                    refs = parse_bracketed(inner)
                    if refs is not None:
                        found.append(Citation(refs, "parenthetical", i, end + 1,
                                              text.count("\n", 0, i) + 1, text[i:end + 1]))
                        i = end + 1
                        continue
            i += 1
            continue
        if c == "@" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_@\\")):
            m = _KEY_RE.match(text, i)
            if m is not None:
                key = (m.group("braced") or m.group("plain")).strip()
                end = m.end()
                ref = CiteRef(key=key)
                after = re.match(r" ?\[", text[end:])
                if after is not None:
                    b0 = end + after.end() - 1
                    b1 = _matching_bracket(text, b0)
                    inner = text[b0 + 1:b1] if b1 > 0 else ""
                    if b1 > 0 and "@" not in inner:
                        label, locator, suffix = parse_locator(", " + inner.strip())
                        if not locator:
                            suffix = ", " + inner.strip() if inner.strip() else ""
                        ref = CiteRef(key=key, locator=locator, label=label, suffix=suffix.rstrip())
                        end = b1 + 1
                found.append(Citation((ref,), "narrative", i, end,
                                      text.count("\n", 0, i) + 1, text[i:end]))
                i = end
                continue
        i += 1
    return found


def parse_citation(text: str) -> Citation | None:
    """Parse exactly one citation (as the CLI's ``refbook cite`` receives it)."""
    cites = find_citations(text.strip())
    if len(cites) != 1:
        return None
    c = cites[0]
    if c.start != 0 or c.end != len(text.strip()):
        return None
    return c
