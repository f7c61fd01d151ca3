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
from functools import lru_cache

from refbook.records import record

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


@record(frozen=True)
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


@record(frozen=True)
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


#: the longest inside of ``[...]`` whose parse is remembered (a real citation is far shorter)
_MEMO_CHARS = 512


def parse_bracketed(inner: str) -> tuple[CiteRef, ...] | None:
    """The inside of ``[...]``: items separated by ``;``; None if some item has no key.

    Remembered for short texts: a MkDocs build reads each citation before rendering and again
    while Python-Markdown renders it, and ``mkdocs serve`` reads every page at each rebuild
    (the result is immutable)."""
    if len(inner) <= _MEMO_CHARS:
        return _parse_bracketed_memo(inner)
    return _parse_bracketed(inner)


def _parse_bracketed(inner: str) -> tuple[CiteRef, ...] | None:
    refs = []
    for part in _split_items(inner):
        ref = _parse_item(part)
        if ref is None:
            return None
        refs.append(ref)
    return tuple(refs) if refs else None


_parse_bracketed_memo = lru_cache(maxsize=8192)(_parse_bracketed)


def _split_items(inner: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == ";" and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return parts


#: How deeply brackets may nest inside a bracketed citation (``[see [x] @a]`` has 1). A deeper
#: bracket is never a citation: each character is then parsed as part of at most this many
#: (+1) enclosing candidates, so a page of nested ``[`` costs linear time, not quadratic.
MAX_NESTED_BRACKETS = 8


# what the bracket matcher looks at: an escape pair (skipped whole), a bracket, a blank line
_BRACKET_EVENTS = re.compile(r"\\[\s\S]?|[\[\]]|\n(?=\n)")


def _match_brackets(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """One pass over ``text``: each ``[`` → its matching ``]`` in the same paragraph, and how
    deeply brackets nest inside it. Backslash escapes a character; a blank line (``\\n\\n``)
    closes nothing, it abandons every open bracket."""
    close: dict[int, int] = {}
    nested: dict[int, int] = {}
    # two stacks of plain ints (the open "[" and the deepest nesting inside it): no container
    # object per bracket, which would make the garbage collector's work grow with the page
    opened: list[int] = []
    depths: list[int] = []
    for m in _BRACKET_EVENTS.finditer(text):
        c = m.group()
        if c == "[":
            opened.append(m.start())
            depths.append(0)
        elif c == "]":
            if opened:
                start = opened.pop()
                depth = depths.pop()
                close[start] = m.start()
                nested[start] = depth
                if depths and depths[-1] <= depth:
                    depths[-1] = depth + 1
        elif c == "\n":
            opened.clear()
            depths.clear()
    return close, nested


#: texts up to this long (a paragraph, as Python-Markdown's inline processor hands them over)
#: keep their bracket matches for the process: a ``mkdocs serve`` rebuild scans every paragraph
#: of every page again, and only the edited ones changed (600 scans of the 300-entry bench
#: book per rebuild, ~5 ms)
_SHORT = 4096


@lru_cache(maxsize=8192)
def _paragraph_brackets(text: str) -> tuple[dict[int, int], dict[int, int]]:
    """:func:`_match_brackets` of a short text, kept (its dicts are only read)."""
    return _match_brackets(text)


class _Lines:
    """Line numbers of increasing offsets, counted incrementally (not from the start each time)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.pos, offset)
        self.pos = offset
        return self.line


_NARRATIVE_BRACKET = re.compile(r" ?\[")

# what follows a link reference definition's "[label]": a colon and a destination, on the same
# line or the next (as Python-Markdown reads one)
_DESTINATION = re.compile(r":[ \t]*\n?[ \t]*\S")


def _starts_line(text: str, i: int) -> bool:
    """Whether only up to three spaces stand between the line's start and *i*."""
    j = i
    while j > 0 and i - j < 4 and text[j - 1] == " ":  # looks back 4 characters at most
        j -= 1
    return i - j <= 3 and (j == 0 or text[j - 1] == "\n")
# where find_citations stops: an escape pair (skipped whole), a "[" or an "@"
_CITE_START = re.compile(r"\\[\s\S]?|[\[@]")


class CitationScanner:
    """The citations of one text, found at given offsets; brackets are matched once, up front.

    :func:`find_citations` walks a whole text with it; Python-Markdown's inline processor asks
    for the citation at each ``[`` or ``@`` it meets (:meth:`at`, :meth:`for_text`).
    """

    def __init__(self, text: str, *, definitions: bool = True) -> None:
        self.text = text
        #: whether ``[label]: destination`` at a line's start is a link reference definition
        #: (see :func:`find_citations`)
        self.definitions = definitions
        self._close, self._nested = (({}, {}) if "[" not in text
                                     else _paragraph_brackets(text) if len(text) <= _SHORT
                                     else _match_brackets(text))

    def _bracketed_refs(self, i: int) -> tuple[CiteRef, ...] | None:
        """What the brackets opening at ``i`` cite (by the matches found up front), or None."""
        text = self.text
        end = self._close.get(i, -1)
        if end < 0 or self._nested[i] > MAX_NESTED_BRACKETS or text.find("@", i + 1, end) == -1:
            return None
        return parse_bracketed(text[i + 1:end])

    def _is_definition(self, i: int, end: int) -> bool:
        """Whether the brackets at ``i``..``end`` open a link reference definition."""
        return (self.definitions and _starts_line(self.text, i)
                and _DESTINATION.match(self.text, end + 1) is not None)

    def at(self, i: int, line: int = 1) -> Citation | None:
        """The citation that starts at ``i`` (a ``[`` or ``@``; the caller decides whether the
        character before an ``@`` allows a citation there), or None."""
        text = self.text
        c = text[i:i + 1]
        if c == "[":
            refs = self._bracketed_refs(i)
            if refs is None:
                return None
            end = self._close[i]
            nxt = text[end + 1:end + 2]
            # "[@a][@b]" is two citations (as mkdocs-bibtex and Python-Markdown read it), not a
            # reference link labelled "@b"; other "[...][label]" and "[...](url)" stay links.
            # The next bracket's inside is parsed at most once more here: a chain stays linear.
            if (nxt == "(" or (nxt == "[" and self._bracketed_refs(end + 1) is None)
                    or (nxt == ":" and self._is_definition(i, end))):
                return None
            return Citation(refs, "parenthetical", i, end + 1, line, text[i:end + 1])
        if c != "@":
            return None
        m = _KEY_RE.match(text, i)
        if m is None:
            return None
        key = (m.group("braced") or m.group("plain")).strip()
        end = m.end()
        ref = CiteRef(key=key)
        after = _NARRATIVE_BRACKET.match(text, end)
        if after is not None:
            b0 = after.end() - 1
            b1 = self._close.get(b0, -1)
            # the search stops at the first "@" after the "[": that stretch holds no other
            # citation, so no stretch is searched twice
            if b1 > 0 and text.find("@", b0 + 1, b1) == -1:
                inner = text[b0 + 1:b1].strip()
                label, locator, suffix = parse_locator(", " + inner)
                if not locator:
                    suffix = ", " + inner if inner else ""
                ref = CiteRef(key=key, locator=locator, label=label, suffix=suffix.rstrip())
                end = b1 + 1
        return Citation((ref,), "narrative", i, end, line, text[i:end])

    def for_text(self, text: str, start: int) -> tuple[CitationScanner, int]:
        """A scanner that answers for ``text`` from ``start`` on, and the offset to add to
        ``start`` when asking it: this one when ``text`` from ``start`` (and the backslashes
        before it, which decide whether it is escaped) ends this one's text, else a new one.

        Python-Markdown replaces each citation it finds by a placeholder and goes on in the
        new string; reusing the scanner keeps a paragraph of many citations linear.
        """
        if text is self.text:
            return self, 0
        k = start
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        delta = len(self.text) - len(text)
        if k > 0 and k - 1 + delta >= 0 and text[k - 1:] == self.text[k - 1 + delta:]:
            return self, delta
        return CitationScanner(text, definitions=self.definitions), 0


def find_citations(text: str, *, definitions: bool = True) -> list[Citation]:
    """Every citation in a run of Markdown *text* (the caller keeps code out of it).

    With *definitions* (raw Markdown), ``[label]: destination`` at the start of a line is a
    link reference definition, not a citation; a host that scans text its Markdown parser
    already rid of definitions passes ``definitions=False``. ``[@a]:`` inside a line, or with
    nothing after the colon, is a citation.

    Linear in the text: brackets are matched once, up front, and each character is looked at
    a bounded number of times (see :data:`MAX_NESTED_BRACKETS`).
    """
    found: list[Citation] = []
    scanner = CitationScanner(text, definitions=definitions)
    lines = _Lines(text)
    pos = 0
    while (m := _CITE_START.search(text, pos)) is not None:
        i = m.start()
        c = text[i]
        pos = m.end()  # past an escape pair, or past a "[" or "@" that starts no citation
        if c == "\\":
            continue
        if c == "[" or i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_@\\"):
            cite = scanner.at(i, lines.at(i))
            if cite is not None:
                found.append(cite)
                pos = cite.end
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
