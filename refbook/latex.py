"""LaTeX in BibTeX field values → inline tree or plain Unicode.

Sits between the readers (``refbook.readers.bibtex`` keeps field values as LaTeX source) and
everything that shows or compares a value: ``refbook.names`` decodes name parts with
:func:`to_text`, ``refbook.bibtex_csl`` turns fields into CSL variables with :func:`parse`, styles
and validators use :func:`to_inlines` / :func:`to_text`.

The reading follows pandoc's LaTeX reader as pandoc's citeproc uses it for ``.bib`` files (raw
TeX kept, smart quotes and dashes on), so that our default style can match pandoc's output:

* accents and escapes become Unicode (``\\'e`` → é, ``\\ss`` → ß, ``\\&`` → &), ``~`` a no-break
  space, ``--``/``---`` en/em dashes, ````…''`` a quotation;
* ``\\emph``/``\\textit``/``{\\it …}`` italics, ``\\textbf`` bold, ``\\textsc`` small caps,
  ``\\texttt`` code, ``\\url``/``\\href`` links, ``$…$`` math (kept as its source here,
  converted by ``refbook.latex_math`` on the way to ``refbook.ir``);
* every ``{…}`` group is kept as a group: it is what protects case;
* commands pandoc does not know are dropped with their arguments, as pandoc drops them.

:func:`parse` returns pandoc's own token shapes (words, spaces, spans) because pandoc's case
conversion and name splitting depend on them; :func:`to_inlines` converts to ``refbook.ir``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING, TypeAlias

from refbook import ir, latex_math
from refbook.models import MAX_DIGITS
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "BIBLATEX_STRINGS",
    "MAX_DEPTH",
    "SPACE",
    "PBreak",
    "PCode",
    "PFmt",
    "PInline",
    "PInlines",
    "PLink",
    "PMath",
    "PQuoted",
    "PRaw",
    "PSpace",
    "PSpan",
    "PStr",
    "merge",
    "pandoc_to_inlines",
    "parse",
    "stringify",
    "to_inlines",
    "to_text",
    "too_deep",
]


# --------------------------------------------------------------------------------------------
# Pandoc-shaped inline nodes
# --------------------------------------------------------------------------------------------


@record(frozen=True)
class PStr:
    """A run of non-space text (pandoc ``Str``)."""

    text: str


@record(frozen=True)
class PSpace:
    """Inter-word space (pandoc ``Space``/``SoftBreak``)."""


SPACE = PSpace()


@record(frozen=True)
class PBreak:
    """A forced line break (``\\\\``)."""


@record(frozen=True)
class PSpan:
    """A span. ``cls == ""`` is a brace group (pandoc's ``Span nullAttr``), ``"nocase"`` a
    case-protected span; any other class (``sans-serif``, ``lang`` …) is transparent."""

    cls: str
    children: tuple[PInline, ...]


@record(frozen=True)
class PFmt:
    """Formatting: ``emph``, ``strong``, ``smallcaps``, ``sup``, ``sub``, ``underline``,
    ``strikeout``."""

    kind: str
    children: tuple[PInline, ...]


@record(frozen=True)
class PQuoted:
    double: bool
    children: tuple[PInline, ...]


@record(frozen=True)
class PMath:
    text: str
    display: bool = False


@record(frozen=True)
class PCode:
    text: str


@record(frozen=True)
class PLink:
    url: str
    children: tuple[PInline, ...]


@record(frozen=True)
class PRaw:
    """Raw LaTeX pandoc keeps but never shows (unknown commands, footnotes, citations)."""

    text: str


PInline: TypeAlias = PStr | PSpace | PBreak | PSpan | PFmt | PQuoted | PMath | PCode | PLink | PRaw
PInlines: TypeAlias = tuple[PInline, ...]

#: the nodes that hold others (tuples for isinstance: a ``A | B`` union is built at each test)
CONTAINERS = (PSpan, PFmt, PQuoted, PLink)
_CONTAINERS_MATH_CODE = (*CONTAINERS, PMath, PCode)
_BREAKS = (PSpace, PBreak)

_MERGEABLE = frozenset({"emph", "strong", "underline", "sub", "sup", "strikeout"})


class _Many:
    """Pandoc's ``Inlines`` monoid: adjacent words merge, spaces collapse, like formatting
    merges — the shapes that pandoc's case conversion later walks over.

    Merged words and formatting are collected in lists and built once, when something else
    follows (or at the end): rebuilding them at every addition would copy a word of 100,000
    pieces (``a\\&a\\&…``) 100,000 times.
    """

    __slots__ = ("items", "kids", "words")

    def __init__(self) -> None:
        self.items: list[PInline] = []
        # Texts of a run of PStr still to be joined; items[-1] is then no PStr.
        self.words: list[str] = []
        # Children of the mergeable PFmt at items[-1], while more may still merge into it.
        self.kids: list[PInline] | None = None

    def add(self, node: PInline) -> None:
        if isinstance(node, PStr):
            if self.kids is not None:
                self._close_fmt()
            self.words.append(node.text)
            return
        if self.words:
            self._close_words()
        items = self.items
        if not items:
            items.append(node)
            return
        last = items[-1]
        if isinstance(node, PSpace):
            if isinstance(last, _BREAKS):
                return
        elif isinstance(node, PBreak):
            if isinstance(last, PSpace):
                items[-1] = node
                return
        elif (
            isinstance(node, PFmt)
            and isinstance(last, PFmt)
            and node.kind == last.kind
            and node.kind in _MERGEABLE
        ):
            if self.kids is None:
                self.kids = list(last.children)
            self.kids.extend(node.children)
            return
        if self.kids is not None:
            self._close_fmt()
        items.append(node)

    def _close_words(self) -> None:
        words = self.words
        items = self.items
        last = items[-1] if items else None
        if isinstance(last, PStr):  # only when more is added after tuple()
            items.pop()
            words.insert(0, last.text)
        items.append(PStr("".join(words) if len(words) > 1 else words[0]))
        words.clear()

    def _close_fmt(self) -> None:
        assert self.kids is not None
        last = self.items[-1]
        assert isinstance(last, PFmt)
        self.items[-1] = PFmt(last.kind, tuple(self.kids))
        self.kids = None

    def extend(self, nodes: Iterable[PInline]) -> None:
        for n in nodes:
            self.add(n)

    def tuple(self) -> PInlines:
        if self.words:
            self._close_words()
        if self.kids is not None:
            self._close_fmt()
        return tuple(self.items)


def merge(nodes: Iterable[PInline]) -> PInlines:
    """Concatenate inlines the way pandoc's builder does (words merge, spaces collapse)."""
    m = _Many()
    m.extend(nodes)
    return m.tuple()


def _str(text: str) -> PInlines:
    return (PStr(text),) if text else ()


# --------------------------------------------------------------------------------------------
# Tokenizer (pandoc's TeX tokens)
# --------------------------------------------------------------------------------------------

_WORD, _SPACES, _NEWLINE, _COMMENT, _CTRL, _SYMBOL, _ESC = range(7)


@record(frozen=True)
class _Tok:
    kind: int
    text: str  # raw source of the token
    name: str = ""  # control sequence name, or the character an escape stands for


def _is_word_char(c: str) -> bool:
    return c.isalnum()


_TOKEN_RE = re.compile(r"(\n)|([ \t]+)|([^\W_]+)|(%[^\n]*)|\\([^\W\d_]+)([ \t]*)|(.)", re.S)


def _tokenize(src: str) -> list[_Tok]:
    """pandoc's TeX tokenizer: words, spaces, newlines, comments, control sequences, symbols.

    A word that may be a command's argument (it follows a command, or the ``}``, ``]`` or ``*``
    of one, spaces between) comes as two tokens, its first character and the rest. pandoc
    splits such a word when a command reads one character of it (``\\'ab``); splitting here
    gives the parser the same tokens without inserting into the list later, which costs a copy
    of the list's tail per split. Elsewhere the two halves read as one word again (adjacent
    words merge).
    """
    toks: list[_Tok] = []
    append = toks.append
    i, n = 0, len(src)
    match = _TOKEN_RE.match
    before_arg = False  # the last token that is not white space may end a command's head
    while i < n:
        m = match(src, i)
        assert m is not None
        kind = m.lastindex
        if kind == 1:
            append(_Tok(_NEWLINE, "\n"))
        elif kind == 2:
            append(_Tok(_SPACES, m[2]))
        elif kind == 3:
            word = m[3]
            if before_arg and len(word) > 1:
                append(_Tok(_WORD, word[0]))
                append(_Tok(_WORD, word[1:]))
            else:
                append(_Tok(_WORD, word))
            before_arg = False
        elif kind == 4:
            append(_Tok(_COMMENT, m[4]))
        elif kind in (5, 6):
            append(_Tok(_CTRL, m[0], m[5]))
            before_arg = True
        else:
            c = m[7]
            if c == "\\":
                i = _tokenize_escape(src, i, toks)
                before_arg = True
                continue
            if c == "^" and i + 2 < n and src[i + 1] == "^":
                i = _tokenize_hat(src, i, toks)
                before_arg = False
                continue
            append(_Tok(_SYMBOL, c))
            before_arg = c in "}]*"
        i = m.end()
    return toks


def _tokenize_escape(src: str, i: int, toks: list[_Tok]) -> int:
    """A backslash not followed by a letter: ``\\ `` (control space), ``\\'``, ``\\\\``."""
    n = len(src)
    if i + 1 >= n:
        toks.append(_Tok(_CTRL, "\\", " "))
        return i + 1
    d = src[i + 1]
    if d in " \t\n":
        j = i + 1
        while j < n and src[j] in " \t":
            j += 1
        if j < n and src[j] == "\n":
            k = j + 1
            while k < n and src[k] in " \t":
                k += 1
            if k < n and src[k] == "\n":
                toks.append(_Tok(_CTRL, src[i:j], " "))
                return j
            j = k
        toks.append(_Tok(_CTRL, src[i:j], " "))
        return j
    toks.append(_Tok(_CTRL, src[i : i + 2], d))
    return i + 2


def _tokenize_hat(src: str, i: int, toks: list[_Tok]) -> int:
    """TeX's ``^^`` escapes (``^^e9`` is é)."""
    n = len(src)
    d = src[i + 2]
    hexdigits = "0123456789abcdef"
    if d in hexdigits and i + 3 < n and src[i + 3] in hexdigits:
        toks.append(_Tok(_ESC, src[i : i + 4], chr(int(src[i + 2 : i + 4], 16))))
        return i + 4
    if d < "\x80":
        o = ord(d)
        toks.append(_Tok(_ESC, src[i : i + 3], chr(o - 64 if 64 <= o <= 127 else o + 64)))
        return i + 3
    toks.append(_Tok(_SYMBOL, "^"))
    toks.append(_Tok(_SYMBOL, "^"))
    return i + 2


def _untokenize(toks: Iterable[_Tok]) -> str:
    return "".join(t.text for t in toks)


# --------------------------------------------------------------------------------------------
# Command tables
# --------------------------------------------------------------------------------------------

_LITERALS: dict[str, str] = {
    # accents-as-letters
    "aa": "å", "AA": "Å", "ss": "ß", "o": "ø", "O": "Ø", "L": "Ł", "l": "ł",
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "i": "ı", "j": "ȷ",
    # misc
    "pounds": "£", "euro": "€", "copyright": "©", "textasciicircum": "^",
    "textasciitilde": "~", "textbaht": "฿", "textblank": "␢", "textbigcircle": "○",
    "textbrokenbar": "¦", "textbullet": "•", "textcentoldstyle": "¢", "textcopyright": "©",
    "textdagger": "†", "textdegree": "°", "textdollar": "$", "textdong": "₫", "textlira": "₤",
    "textmu": "μ", "textmusicalnote": "♪", "textonehalf": "½", "textonequarter": "¼",
    "textparagraph": "¶", "textpertenthousand": "‱", "textpeso": "₱", "textquotesingle": "'",
    "textregistered": "®", "textsection": "§", "textsterling": "£", "textthreequarters": "¾",
    "textthreesuperior": "³", "texttwosuperior": "²", "textyen": "¥",
    # characters
    "ldots": "…", "vdots": "\u22ee", "dots": "…", "mdots": "…", "sim": "~", "sep": ",",
    "P": "¶", "S": "§", "$": "$", "%": "%", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}",
    "-": "\u00ad", "qed": "\x07" + "0\u25fb", "lq": "‘", "rq": "’", "textquoteleft": "‘",
    "textquoteright": "’", "textquotedblleft": "“", "textquotedblright": "”", "/": "",
    ",": "\u2006", "@": "", " ": "\u00a0", "TeX": "TeX", "LaTeX": "LaTeX", "bar": "|",
    "textless": "<", "textgreater": ">", "textbackslash": "\\", "backslash": "\\", "slash": "/",
    "faCheck": "\u2713", "faClose": "\u2717", "bshyp": "\\\u00ad", "fshyp": "/\u00ad",
    "dothyp": ".\u00ad", "colonhyp": ":\u00ad", "hyp": "-", "glq": "‚", "grq": "‘",
    "glqq": "„", "grqq": "“", "flq": "‹", "frq": "›", "flqq": "«", "frqq": "»", "dq": '"',
    "guillemetleft": "«", "guillemotleft": "«", "guillemetright": "»", "guillemotright": "»",
    "guilsinglleft": "‹", "guilsinglright": "›", "quotedblbase": "„", "quotesinglbase": ",",
    "textquotedbl": '"',
    # biblatex punctuation helpers
    "adddot": ".", "hyphen": "-",
}  # fmt: skip

# accent command → (combining character, fallback when the argument is empty)
_ACCENTS: dict[str, tuple[str, str | None]] = {
    "H": ("\u030b", None), "`": ("\u0300", "`"), "'": ("\u0301", "'"), "^": ("\u0302", "^"),
    "~": ("\u0303", "~"), '"': ("\u0308", None), ".": ("\u0307", None), "=": ("\u0304", None),
    "|": ("\u030d", None), "b": ("\u0331", None), "c": ("\u0327", None), "G": ("\u030f", None),
    "h": ("\u0309", None), "d": ("\u0323", None), "f": ("\u0311", None), "r": ("\u030a", None),
    "t": ("\u0361", None), "U": ("\u030e", None), "v": ("\u030c", None), "u": ("\u0306", None),
    "k": ("\u0328", None), "textogonekcentered": ("\u0328", None), "newtie": ("\u0311", None),
    "textcircled": ("\u20dd", None),
}  # fmt: skip

# command taking one argument → formatting kind (pandoc's extractSpaces applies)
_FORMAT_ARG: dict[str, str] = {
    "emph": "emph", "textit": "emph", "textsl": "emph", "textsc": "smallcaps",
    "textsuperscript": "sup", "textsubscript": "sub", "textbf": "strong",
    "st": "strikeout", "sout": "strikeout",
}  # fmt: skip
_UNDERLINE_ARG = frozenset({"underline", "ul", "uline"})
# command taking one argument → a transparent span (class is only informative)
_SPAN_ARG: dict[str, str] = {
    "textsf": "sans-serif", "textmd": "medium", "textrm": "roman", "textup": "upright",
    "textnormal": "nodecor", "hl": "mark",
}  # fmt: skip
# old-style switches that format the rest of the group
_FORMAT_SWITCH: dict[str, str] = {
    "em": "emph", "it": "emph", "sl": "emph", "itshape": "emph", "slshape": "emph",
    "bf": "strong", "bfseries": "strong", "scshape": "smallcaps",
}  # fmt: skip
_CODE_ARG = frozenset({"texttt", "textnhtt", "nhttfamily", "nolinkurl"})
_NULL_SPAN_ARG: dict[str, Callable[[PInlines], PInlines]] = {
    "mkbibquote": lambda x: (PQuoted(True, x),),
    "mkbibemph": lambda x: (PFmt("emph", x),),
    "mkbibitalic": lambda x: (PFmt("emph", x),),
    "mkbibbold": lambda x: (PFmt("strong", x),),
    "mkbibparens": lambda x: merge((PStr("("), *x, PStr(")"))),
    "mkbibbrackets": lambda x: merge((PStr("["), *x, PStr("]"))),
    "autocap": lambda x: x,
}
# commands pandoc treats as blocks: inside a field they end the paragraph
_BLOCK_COMMANDS = frozenset(
    {
        "par", "section", "subsection", "subsubsection", "paragraph", "subparagraph",
        "chapter", "part", "item", "bigskip", "medskip", "smallskip", "centering",
        "maketitle", "newpage", "clearpage", "pagebreak",
    }
)  # fmt: skip
# unknown commands that pandoc keeps raw without any argument (``getRawCommand``): a group
# after ``\small`` is text, not the command's argument
_RAW_NO_ARGS = frozenset({
    "tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE",
    "huge", "Huge", "hfil", "hfill", "vfil", "vfill", "hfilneg", "vfilneg",
})  # fmt: skip
# unknown commands whose argument is glue: a dimension, then ``plus``/``minus`` dimensions
_RAW_GLUE = frozenset({"hskip", "vskip", "mskip"})
# the units of a dimension argument (pandoc's ``dimenarg``; "" for a bare number: ``\char22``)
DIMEN_UNITS = frozenset({"", "pt", "pc", "in", "bp", "cm", "mm", "dd", "cc", "sp", "ex", "em",
                          "mu", "px"})
_DIMEN_NUMBER = re.compile(r"[0-9.]*")
_ACRONYM = frozenset(
    {
        "gls", "Gls", "glsdesc", "Glsdesc", "GLSdesc", "acrlong", "Acrlong", "acrfull",
        "Acrfull", "acrshort", "Acrshort", "ac", "acf", "acs", "acl", "Ac", "Acf", "Acs", "Acl",
    }
)  # fmt: skip
_ACRONYM_PLURAL = frozenset(
    {
        "glspl", "Glspl", "glsdescplural", "Glsdescplural", "GLSdescplural", "acp", "acfp",
        "acsp", "aclp", "Acp", "Acfp", "Acsp", "Aclp",
    }
)  # fmt: skip
_URL_ESCAPABLE = frozenset("#$%&~_^\\{}")
_SPECIAL = frozenset("#$%&~_^\\{}")


class _ParseError(Exception):
    """Pandoc's parser would fail here (pandoc then drops the whole field)."""


#: How deep groups, commands and quotations may nest in one value (``{{{…}}}``, ``\\'\\'\\'e``,
#: ``````…``). Each level costs the recursive parser up to five Python frames and every tree
#: walker after it (case conversion, rendering) a few more, so without a limit 300 accents end
#: in ``RecursionError``; 64 levels stay well inside Python's default limit of 1000 frames even
#: under a host's deep stack. Real values nest less than ten levels; a deeper one reads as its
#: plain text (see :func:`too_deep`).
MAX_DEPTH = 64


class _TooDeepError(Exception):
    """The value nests deeper than :data:`MAX_DEPTH`; never leaves this module."""


def _roman(n: int) -> str:
    """pandoc's ``toRomanNumeral``: ``?`` from 4000 on (also keeps ``\\RN{10^18}`` short)."""
    if not 0 <= n < 4000:
        return "?"
    vals = (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    )  # fmt: skip
    out = []
    for v, s in vals:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def _extract_spaces(xs: PInlines, make: Callable[[PInlines], PInline]) -> PInlines:
    """pandoc's ``extractSpaces``: spaces at the edges of a formatted argument move outside."""
    lead = bool(xs) and isinstance(xs[0], PSpace)
    if lead:
        xs = xs[1:]
    trail = bool(xs) and isinstance(xs[-1], PSpace)
    if trail:
        xs = xs[:-1]
    return (SPACE,) * lead + (make(xs),) + (SPACE,) * trail


def _format_code(nodes: PInlines) -> PInlines:
    """pandoc's ``formatCode``: runs of plain text become code, other formatting stays around
    (``\\texttt{a \\emph{b}}`` → code "a ", emphasis of code "b")."""
    out: list[PInline] = []
    run: list[PInline] = []
    for n in nodes:
        if isinstance(n, (PStr, PSpace, PQuoted)):
            run.append(n)
            continue
        if run:
            out.append(PCode(stringify(run)))
            run = []
        if isinstance(n, PSpan):
            out.append(PSpan(n.cls, _format_code(n.children)))
        elif isinstance(n, PFmt):
            out.append(PFmt(n.kind, _format_code(n.children)))
        elif isinstance(n, PLink):
            out.append(PLink(n.url, _format_code(n.children)))
        else:
            out.append(n)
    if run:
        out.append(PCode(stringify(run)))
    return tuple(out)


def map_str(nodes: PInlines, f: Callable[[str], str]) -> PInlines:
    """Apply ``f`` to every word of a pandoc-shaped tree, keeping its structure."""
    out: list[PInline] = []
    for n in nodes:
        if isinstance(n, PStr):
            out.append(PStr(f(n.text)))
        elif isinstance(n, CONTAINERS):
            kids = map_str(n.children, f)
            if isinstance(n, PSpan):
                out.append(PSpan(n.cls, kids))
            elif isinstance(n, PFmt):
                out.append(PFmt(n.kind, kids))
            elif isinstance(n, PQuoted):
                out.append(PQuoted(n.double, kids))
            else:
                out.append(PLink(n.url, kids))
        else:
            out.append(n)
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------


class _Parser:
    def __init__(
        self, toks: list[_Tok], bibstring: Callable[[str], str] | None, depth: int = 0
    ) -> None:
        self.toks = toks
        self.pos = 0
        self.ligatures = True
        self.bibstring = bibstring
        # Nesting of groups, commands, quotations and sub-parsers now open (see MAX_DEPTH).
        self.depth = depth
        # grouped() results by (position, ligatures): its callers retry a failed or
        # too-short group as ordinary content, which reads the same group again; without the
        # memo ``{{{{…a}b}b}b`` takes 2^depth steps. Valid while ``toks`` is unchanged: the two
        # places that rewrite tokens clear it and count the edit.
        self.groups: dict[tuple[int, bool], tuple[int, PInlines | None]] = {}
        # Positions from which bracketed_toks() is known to find no "]" (True) or to fail on an
        # unclosed group (False): every unknown command looks for options, and ``\\x[\\x[\\x[…``
        # would otherwise scan the rest of the value once per command.
        self.no_bracket: dict[int, bool] = {}
        self.edits = 0

    def edited(self) -> None:
        self.edits += 1
        self.groups.clear()
        self.no_bracket.clear()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeepError

    # -- token helpers -------------------------------------------------------------------
    def peek(self, k: int = 0) -> _Tok | None:
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else None

    def is_symbol(self, c: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == _SYMBOL and t.text == c

    def is_ctrl(self, name: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == _CTRL and t.name == name

    def skip_spaces(self) -> None:
        while (t := self.peek()) is not None and t.kind in (_SPACES, _NEWLINE, _COMMENT):
            self.pos += 1

    def skip_sp(self) -> None:
        """pandoc's ``sp``: whitespace and comments, at most one line end."""
        while (t := self.peek()) is not None and t.kind in (_SPACES, _COMMENT):
            self.pos += 1
        if (t := self.peek()) is not None and t.kind == _NEWLINE and self._endline_ok():
            self.pos += 1
            while (t := self.peek()) is not None and t.kind in (_SPACES, _COMMENT):
                self.pos += 1

    def _endline_ok(self) -> bool:
        """A newline at ``pos`` that is a soft break (not the end, not a blank line)."""
        k = 1
        if self.peek(k) is None:
            return False
        while (t := self.peek(k)) is not None and t.kind == _SPACES:
            k += 1
        t = self.peek(k)
        return not (t is not None and t.kind == _NEWLINE)

    def braced_toks(self) -> list[_Tok]:
        """The tokens inside a ``{…}`` (raw), or fail."""
        if not self.is_symbol("{"):
            raise _ParseError
        depth = 0
        start = self.pos + 1
        while (t := self.peek()) is not None:
            if t.kind == _SYMBOL and t.text == "{":
                depth += 1
            elif t.kind == _SYMBOL and t.text == "}":
                depth -= 1
                if depth == 0:
                    inner = self.toks[start : self.pos]
                    self.pos += 1
                    return inner
            self.pos += 1
        raise _ParseError

    def braced_url_toks(self) -> list[_Tok]:
        """Like :meth:`braced_toks`, but ``%`` is a literal character (URLs contain it)."""
        depth = 0
        k = self.pos
        while k < len(self.toks):
            t = self.toks[k]
            if t.kind == _COMMENT:
                self.toks[k : k + 1] = [_Tok(_SYMBOL, "%"), *_tokenize(t.text[1:])]
                self.edited()
            elif t.kind == _SYMBOL and t.text == "{":
                depth += 1
            elif t.kind == _SYMBOL and t.text == "}":
                depth -= 1
                if depth <= 0:
                    break
            k += 1
        return self.braced_toks()

    def bracketed_toks(self) -> list[_Tok] | None:
        if not self.is_symbol("["):
            return None
        save = self.pos
        self.pos += 1
        out: list[_Tok] = []
        # The scan's course depends on its position only, so every position it passes leads
        # to the same outcome; a failed scan marks them (see no_bracket).
        passed: list[int] = []
        known = self.no_bracket
        edits = self.edits
        try:
            while (t := self.peek()) is not None:
                outcome = known.get(self.pos)
                if outcome is not None:
                    break
                passed.append(self.pos)
                if t.kind == _SYMBOL and t.text == "]":
                    self.pos += 1
                    return out
                if t.kind == _SYMBOL and t.text == "{":
                    inner = self.braced_toks()
                    out.append(_Tok(_SYMBOL, "{"))
                    out.extend(inner)
                    out.append(_Tok(_SYMBOL, "}"))
                    continue
                out.append(t)
                self.pos += 1
            else:
                outcome = True
        except _ParseError:
            outcome = False
        if self.edits == edits:
            known.update(dict.fromkeys(passed, outcome))
        self.pos = save
        if not outcome:
            raise _ParseError
        return None

    def skip_opts(self) -> None:
        while True:
            save = self.pos
            self.skip_sp()
            if self.bracketed_toks() is None:
                self.pos = save
                return

    # -- structure -----------------------------------------------------------------------
    def paragraphs(self) -> list[PInlines]:
        paras: list[PInlines] = []
        while self.peek() is not None:
            # skip blank lines and block-level noise between paragraphs
            t = self.peek()
            assert t is not None
            if t.kind in (_SPACES, _NEWLINE, _COMMENT):
                self.pos += 1
                continue
            if t.kind == _CTRL and t.name in _BLOCK_COMMANDS:
                self.pos += 1
                self.skip_opts()
                if self.is_symbol("{"):
                    if self.depth >= MAX_DEPTH:
                        raise _TooDeepError
                    sub = _Parser(self.braced_toks(), self.bibstring, self.depth + 1)
                    paras.extend(sub.paragraphs())
                continue
            if t.kind == _CTRL and t.name in ("begin", "end"):
                self._skip_environment()
                continue
            para = self.inlines(top=True)
            if not para and self.peek() is t:
                raise _ParseError  # nothing could be parsed here: pandoc gives up
            para = _trim(para)
            if para:
                paras.append(para)
        return paras

    def _skip_environment(self) -> None:
        t = self.peek()
        assert t is not None
        self.pos += 1
        if t.name == "end":
            if self.is_symbol("{"):
                self.braced_toks()
            return
        name = _untokenize(self.braced_toks()) if self.is_symbol("{") else ""
        depth = 1
        while (u := self.peek()) is not None:
            self.pos += 1
            if u.kind == _CTRL and u.name in ("begin", "end") and self.is_symbol("{"):
                inner = _untokenize(self.braced_toks())
                if inner == name:
                    depth += 1 if u.name == "begin" else -1
                    if depth == 0:
                        return

    def inlines(self, *, top: bool = False, until_group_end: bool = False) -> PInlines:
        out = _Many()
        while (t := self.peek()) is not None:
            if until_group_end and (
                (t.kind == _SYMBOL and t.text == "}")
                or (t.kind == _CTRL and t.name in ("egroup", "endgroup"))
            ):
                break
            if top and t.kind == _NEWLINE and not self._endline_ok():
                break
            if (
                top
                and t.kind == _CTRL
                and (t.name in _BLOCK_COMMANDS or t.name in ("begin", "end"))
            ):
                break
            save = self.pos
            try:
                out.extend(self.inline())
            except _ParseError:
                self.pos = save
                break
        return out.tuple()

    def grouped(self) -> PInlines:
        """pandoc's ``grouped inline``: ``{…}`` (``{{…}}`` reads as one group)."""
        t = self.peek()
        if t is None or not (
            (t.kind == _SYMBOL and t.text == "{")
            or (t.kind == _CTRL and t.name in ("bgroup", "begingroup"))
        ):
            raise _ParseError
        save = self.pos
        key = (save, self.ligatures)
        known = self.groups.get(key)
        if known is not None:
            end, content = known
            if content is None:
                raise _ParseError
            self.pos = end
            return content
        # Only a result read from tokens that stayed as they were is the result of a re-read.
        edits = self.edits
        self.enter()
        try:
            content = self._grouped(save)
        except _ParseError:
            if self.edits == edits:
                self.groups[key] = (save, None)
            raise
        finally:
            self.depth -= 1
        if self.edits == edits:
            self.groups[key] = (self.pos, content)
        return content

    def _grouped(self, save: int) -> PInlines:
        self.pos += 1
        # {{a,b}} is read like {a,b}
        inner_save = self.pos
        try:
            inner = self.grouped()
            if self._egroup():
                return inner
        except _ParseError:
            pass
        self.pos = inner_save
        content = self.inlines(until_group_end=True)
        if not self._egroup():
            self.pos = save
            raise _ParseError
        return content

    def _egroup(self) -> bool:
        t = self.peek()
        if t is not None and (
            (t.kind == _SYMBOL and t.text == "}")
            or (t.kind == _CTRL and t.name in ("egroup", "endgroup"))
        ):
            self.pos += 1
            return True
        return False

    def inline_group(self) -> PInlines:
        ils = self.grouped()
        return (PSpan("", ils),) if ils else ()

    def tok(self) -> PInlines:
        """pandoc's ``tok``: a group, one command, or one character."""
        save = self.pos
        self.skip_spaces()
        t = self.peek()
        if t is None:
            self.pos = save
            raise _ParseError
        if (t.kind == _SYMBOL and t.text == "{") or (
            t.kind == _CTRL and t.name in ("bgroup", "begingroup")
        ):
            try:
                return self.grouped()
            except _ParseError:
                self.pos = save
                raise
        if t.kind == _CTRL:
            return self.inline()
        if t.kind == _WORD:
            if len(t.text) > 1:
                # pandoc splits the first character off the word and reads only that
                self.toks[self.pos : self.pos + 1] = [
                    _Tok(_WORD, t.text[0]),
                    _Tok(_WORD, t.text[1:]),
                ]
                self.edited()
            self.pos += 1
            return (PStr(t.text[0]),)
        if t.kind == _SYMBOL and t.text not in _SPECIAL:
            self.pos += 1
            return (PStr(t.text),)
        self.pos = save
        raise _ParseError

    # -- one inline ----------------------------------------------------------------------
    def inline(self) -> PInlines:
        t = self.peek()
        if t is None:
            raise _ParseError
        k = t.kind
        if k == _COMMENT:
            self.pos += 1
            return ()
        if k == _SPACES:
            self.pos += 1
            return (SPACE,)
        if k == _NEWLINE:
            if not self._endline_ok():
                raise _ParseError
            self.pos += 1
            return (SPACE,)
        if k == _WORD:
            self.pos += 1
            return (PStr(t.text),)
        if k == _ESC:
            self.pos += 1
            return (PStr(t.name),)
        if k == _CTRL:
            return self.command(t)
        return self.symbol(t.text)

    def symbol(self, c: str) -> PInlines:
        if c == "-" and self.ligatures:
            self.pos += 1
            if self.is_symbol("-"):
                self.pos += 1
                if self.is_symbol("-"):
                    self.pos += 1
                    return (PStr("—"),)
                return (PStr("–"),)
            return (PStr("-"),)
        if c == "'":
            self.pos += 1
            if self.ligatures and self.is_symbol("'"):
                self.pos += 1
                return (PStr("”"),)
            return (PStr("’"),)
        if c == "~":
            self.pos += 1
            return (PStr("\u00a0"),)
        if c == "`":
            if self.ligatures:
                r = self.double_quote()
                if r is None:
                    r = self.single_quote()
                if r is not None:
                    return r
            self.pos += 1
            return (PStr("‘"),)
        if c == '"':
            if self.ligatures:
                r = self.double_quote()
                if r is not None:
                    return r
            self.pos += 1
            return (PStr('"'),)
        if c == "“":
            r = self.double_quote()
            if r is not None:
                return r
            self.pos += 1
            return (PStr(c),)
        if c == "‘":
            r = self.single_quote()
            if r is not None:
                return r
            self.pos += 1
            return (PStr(c),)
        if c == "$":
            return self.dollars_math()
        if c == "{":
            return self.inline_group()
        if c in ("\\", "}"):
            raise _ParseError
        self.pos += 1
        return (PStr(c),)

    # quotes ----------------------------------------------------------------------------
    def double_quote(self) -> PInlines | None:
        if self.is_symbol("`") and self.is_symbol("`", 1):
            return self._quoted(True, 2, "``", lambda: self._seq("'", "'"))
        if self.is_symbol("“"):
            return self._quoted(True, 1, "“", lambda: self._seq("”"))
        if self.is_symbol('"') and self.is_symbol("`", 1):
            return self._quoted(True, 2, '"`', lambda: self._seq('"', "'"))
        return None

    def single_quote(self) -> PInlines | None:
        if self.is_symbol("`"):
            return self._quoted(False, 1, "`", lambda: self._single_end("'"))
        if self.is_symbol("‘"):
            return self._quoted(False, 1, "‘", lambda: self._single_end("’"))
        return None

    def _seq(self, *cs: str) -> int:
        for k, c in enumerate(cs):
            if not self.is_symbol(c, k):
                return 0
        return len(cs)

    def _single_end(self, c: str) -> int:
        if not self.is_symbol(c):
            return 0
        nxt = self.peek(1)
        if nxt is not None and nxt.kind == _WORD and nxt.text[0].isalpha():
            return 0
        return 1

    def _quoted(
        self, double: bool, start_len: int, start: str, ender: Callable[[], int]
    ) -> PInlines:
        self.enter()
        try:
            return self._quoted_body(double, start_len, start, ender)
        finally:
            self.depth -= 1

    def _quoted_body(
        self, double: bool, start_len: int, start: str, ender: Callable[[], int]
    ) -> PInlines:
        self.pos += start_len
        content = _Many()
        while self.peek() is not None and not ender():
            save = self.pos
            try:
                content.extend(self.inline())
            except _ParseError:
                self.pos = save
                break
        n = ender() if self.peek() is not None else 0
        if n:
            self.pos += n
            return (PQuoted(double, content.tuple()),)
        lit = {"``": "“", "`": "‘"}.get(start, start)
        return merge((PStr(lit), *content.tuple()))

    # math --------------------------------------------------------------------------------
    def dollars_math(self) -> PInlines:
        self.pos += 1
        display = False
        if self.is_symbol("$"):
            self.pos += 1
            display = True
        start = self.pos
        depth = 0
        while (t := self.peek()) is not None:
            if t.kind == _SYMBOL:
                if t.text == "$" and depth == 0:
                    body = _untokenize(self.toks[start : self.pos]).strip()
                    self.pos += 1
                    if display:
                        if not self.is_symbol("$"):
                            raise _ParseError
                        self.pos += 1
                    return (PMath(body, display),)
                if t.text == "{":
                    depth += 1
                elif t.text == "}":
                    if depth == 0:
                        break
                    depth -= 1
            self.pos += 1
        if display:
            self.pos = start
            return (PMath("", False),)
        raise _ParseError

    def math_until(self, end: str, display: bool) -> PInlines:
        start = self.pos
        while (t := self.peek()) is not None:
            if t.kind == _CTRL and t.name == end:
                body = _untokenize(self.toks[start : self.pos]).strip()
                self.pos += 1
                return (PMath(body, display),)
            self.pos += 1
        raise _ParseError

    # commands ----------------------------------------------------------------------------
    def command(self, t: _Tok) -> PInlines:
        self.enter()
        try:
            return self._command(t)
        finally:
            self.depth -= 1

    def _command(self, t: _Tok) -> PInlines:
        name = t.name
        if name in ("bgroup", "begingroup"):
            return self.inline_group()
        if name in ("newcommand", "renewcommand", "providecommand", "def", "gdef", "edef",
                    "let", "DeclareRobustCommand", "newenvironment", "renewenvironment"):  # fmt: skip
            self._skip_macro_def(name)
            return ()
        if name in ("begin", "end"):
            self._skip_environment()
            return ()
        if name in ("and", "egroup", "endgroup"):
            raise _ParseError
        self.pos += 1
        star = False
        if name.isalnum() and self.is_symbol("*"):
            self.pos += 1
            star = True
            self.skip_sp()
        raw_head = t.text + ("*" if star else "")

        if name in _LITERALS:
            return _str(_LITERALS[name])
        if name in _ACCENTS:
            return self.accent(*_ACCENTS[name])
        if name in _FORMAT_ARG:
            kind = _FORMAT_ARG[name]
            return _extract_spaces(self.tok(), lambda xs: PFmt(kind, xs))
        if name in _UNDERLINE_ARG:
            return (PFmt("underline", self.tok()),)
        if name in _SPAN_ARG:
            cls = _SPAN_ARG[name]
            if name == "textnormal":
                return (PSpan(cls, self.tok()),)
            return _extract_spaces(self.tok(), lambda xs: PSpan(cls, xs))
        if name in _CODE_ARG:
            if name == "nolinkurl":
                return (PCode(_unescape_url(_untokenize(self.braced_url_toks()))),)
            old = self.ligatures
            self.ligatures = False
            try:
                content = self.tok()
            finally:
                self.ligatures = old
            return _format_code(content)
        if name in _FORMAT_SWITCH:
            kind = _FORMAT_SWITCH[name]
            return _extract_spaces(self.inlines(until_group_end=True), lambda xs: PFmt(kind, xs))
        if name == "tt":
            return _format_code(self.inlines(until_group_end=True))
        if name == "rm":
            return self.inlines(until_group_end=True)
        if name in _NULL_SPAN_ARG:
            return (PSpan("", _NULL_SPAN_ARG[name](self.tok())),)
        if name == "adddotspace":
            return (PSpan("", (PStr("."), SPACE)),)
        if name == "addabbrvspace":
            return (SPACE,)
        if name == "bibstring":
            key = _untokenize(self.braced_toks())
            value = self.bibstring(key) if self.bibstring is not None else key
            return _str(value)
        if name in ("RN", "Rn"):
            return self.roman(upper=name == "RN")
        if name in ("MakeUppercase", "MakeTextUppercase", "uppercase"):
            return map_str(self.tok(), str.upper)
        if name in ("MakeLowercase", "MakeTextLowercase", "lowercase"):
            return map_str(self.tok(), str.lower)
        if name == "\\":
            self.bracketed_toks()
            self.skip_spaces()
            return (PBreak(),)
        if name == "newline":
            return (PBreak(),)
        if name == "(":
            return self.math_until(")", False)
        if name == "[":
            return self.math_until("]", True)
        if name == "ensuremath":
            return (PMath(_untokenize(self.braced_toks()).strip()),)
        if name == "texorpdfstring":
            first = self.tok()
            self.tok()
            return first
        if name == "url":
            url = _unescape_url(_untokenize(self.braced_url_toks()))
            return (PLink(url, (PStr(url),)),)
        if name == "href":
            url = _unescape_url(_untokenize(self.braced_url_toks()))
            self.skip_sp()
            return (PLink(url, self.tok()),)
        if name in ("nohyphens", "pandocbounded"):
            return self.tok()
        if name in ("textcolor", "colorbox"):
            self.skip_opts()
            self.braced_toks()
            return (PSpan("style", self.tok()),)
        if name == "foreignlanguage":
            self.skip_opts()
            self.braced_toks()
            return (PSpan("lang", self.tok()),)
        if name in ("enquote", "foreignquote", "hyphenquote"):
            if name != "enquote":
                self.braced_toks()
            return (PQuoted(not star, self.tok()),)
        if name in ("footnote", "thanks"):
            self.skip_opts()
            self.braced_toks()
            return (PRaw(""),)
        if name in ("verb", "Verb"):
            return self.verb()
        if name in _ACRONYM or name in _ACRONYM_PLURAL:
            label = _untokenize(self.braced_toks())
            text = label + ("s" if name in _ACRONYM_PLURAL else "")
            return (PSpan("acronym", (PStr(text),)),)
        if name in _BLOCK_COMMANDS:
            raise _ParseError
        # Unknown (and \hspace, \vspace): pandoc keeps it as raw TeX (invisible, but a boundary:
        # D.{\hspace{0.167em}}S. stays one initial pair in a name) with what it reads as its
        # arguments (getRawCommand): options, a dimension or number (``\kern2pt``,
        # ``\char22``), groups
        start = self.pos
        if name in _RAW_GLUE:
            if self.dimen_arg():
                while True:
                    save = self.pos
                    self.skip_sp()
                    word = self.peek()
                    if word is not None and word.kind == _WORD and word.text in ("plus", "minus"):
                        self.pos += 1
                        if self.dimen_arg():
                            continue
                    self.pos = save
                    break
        elif name not in _RAW_NO_ARGS:
            self.skip_opts()
            self.dimen_arg()
            while self.is_symbol("{"):
                self.braced_toks()
        return (PRaw(raw_head + _untokenize(self.toks[start : self.pos])),)

    def dimen_arg(self) -> bool:
        """pandoc's ``dimenarg``: skip ``[=][-]`` and a number with an optional unit
        (``2pt``, ``3.5em``, ``.5pt``, ``22``) and say so; read nothing and say no otherwise."""
        save = self.pos
        self.skip_sp()
        if self.is_symbol("="):
            self.pos += 1
        if self.is_symbol("-"):
            self.pos += 1
        number = ""
        t = self.peek()
        if t is not None and t.kind == _WORD and "0" <= t.text[0] <= "9":
            number = self._word()
        if self.is_symbol(".") and (t := self.peek(1)) is not None and t.kind == _WORD:
            self.pos += 1
            number += "." + self._word()
        digits = _DIMEN_NUMBER.match(number)
        assert digits is not None
        if not digits.group() or number[digits.end():] not in DIMEN_UNITS:
            self.pos = save
            return False
        return True

    def _word(self) -> str:
        """The word at ``pos``, whole (the tokenizer cuts one after a command in two)."""
        parts = []
        while (t := self.peek()) is not None and t.kind == _WORD:
            parts.append(t.text)
            self.pos += 1
        return "".join(parts)

    def _skip_macro_def(self, name: str) -> None:
        self.pos += 1
        if name in ("def", "gdef", "edef"):
            if (t := self.peek()) is not None and t.kind == _CTRL:
                self.pos += 1
            while (t := self.peek()) is not None and not (t.kind == _SYMBOL and t.text == "{"):
                self.pos += 1
            if self.is_symbol("{"):
                self.braced_toks()
            return
        if name == "let":
            for _ in range(2):
                self.skip_sp()
                if self.is_symbol("="):
                    self.pos += 1
                if self.peek() is not None:
                    self.pos += 1
            return
        self.skip_sp()
        if self.is_symbol("*"):
            self.pos += 1
        self.skip_sp()
        if self.is_symbol("{"):
            self.braced_toks()
        elif (t := self.peek()) is not None and t.kind == _CTRL:
            self.pos += 1
        self.skip_opts()
        while True:
            self.skip_sp()
            if not self.is_symbol("{"):
                break
            self.braced_toks()

    def accent(self, combining: str, fallback: str | None) -> PInlines:
        save = self.pos
        try:
            ils = self.tok()
        except _ParseError:
            self.pos = save
            ils = ()
        if ils and isinstance(ils[0], PStr) and ils[0].text:
            first = ils[0].text
            head = unicodedata.normalize("NFC", first[0] + combining)
            return merge((PStr(head + first[1:]), *ils[1:]))
        if not ils or ils == (SPACE,):
            return (PStr(fallback if fallback is not None else combining),)
        return ils

    def roman(self, *, upper: bool) -> PInlines:
        self.skip_spaces()
        if self.is_symbol("{"):
            text = _untokenize(self.braced_toks()).strip()
        else:
            t = self.peek()
            if t is None or t.kind != _WORD:
                raise _ParseError
            # the word may come in two tokens (see _tokenize)
            words = [t.text]
            self.pos += 1
            while (t := self.peek()) is not None and t.kind == _WORD:
                words.append(t.text)
                self.pos += 1
            text = "".join(words)
        # pandoc's isDigit is ASCII only ("²".isdigit() holds, but int() rejects it)
        if not (text.isascii() and text.isdigit()):
            raise _ParseError
        r = _roman(int(text)) if len(text) <= MAX_DIGITS else "?"  # int() refuses 4300 digits
        return (PStr(r if upper else r.lower()),)

    def verb(self) -> PInlines:
        t = self.peek()
        if t is None or t.kind != _SYMBOL:
            raise _ParseError
        marker = t.text
        self.pos += 1
        chars: list[str] = []
        while (u := self.peek()) is not None:
            if u.kind == _SYMBOL and u.text == marker:
                self.pos += 1
                return (PCode("".join(chars)),)
            if u.kind == _NEWLINE:
                break
            chars.append(u.text)
            self.pos += 1
        raise _ParseError


def _unescape_url(text: str) -> str:
    if "\\" not in text:
        return text
    parts = text.split("\\")
    rest = (p if p and p[0] in _URL_ESCAPABLE else "\\" + p for p in parts[1:])
    return parts[0] + "".join(rest)


def _trim(nodes: PInlines) -> PInlines:
    start, end = 0, len(nodes)
    while start < end and isinstance(nodes[start], PSpace):
        start += 1
    while end > start and isinstance(nodes[end - 1], PSpace):
        end -= 1
    return nodes[start:end]


def _query_all(nodes: PInlines, out: list[PInline]) -> None:
    """pandoc's ``query (:[])`` over several paragraphs: every inline, nested ones again."""
    for n in nodes:
        out.append(n)
        if isinstance(n, CONTAINERS):
            _query_all(n.children, out)


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def parse(value: str) -> PInlines | None:
    """Read a field value the way pandoc's LaTeX reader does; ``None`` where pandoc's reader
    fails (pandoc then ignores the field).

    ``\\bibstring{key}`` resolves through pandoc's English biblatex strings when known. A value
    nested deeper than :data:`MAX_DEPTH` reads as its plain text (see :func:`too_deep`).
    """
    return _read(value)[0]


@lru_cache(maxsize=65536)
def _read(value: str) -> tuple[PInlines | None, bool]:
    """:func:`parse` and whether the value passed :data:`MAX_DEPTH` (cached together)."""
    try:
        return _parse(value, _bibstring_lookup), False
    except _TooDeepError:
        return _words(_fallback_text(value)), True


# Characters that open a nesting level of the parser: a group, a command (its argument), a
# quotation. Each opens at most one level, but ``\bgroup``/``\begingroup`` (a command that
# opens a group) two, so a value with fewer of them plus such commands than MAX_DEPTH cannot
# pass it.
_NESTING_CHARS = re.compile(r"[\\{`\"“‘]")


def too_deep(value: str) -> bool:
    """Whether ``value`` nests groups, commands or quotations deeper than :data:`MAX_DEPTH`.

    :func:`parse` then gives its plain text (braces dropped, commands kept as written), so the
    reader reports it. Cheap for ordinary values: only one with at least ``MAX_DEPTH`` such
    characters is parsed here (and the result is cached for :func:`parse`).
    """
    if len(value) < MAX_DEPTH:
        return False
    if len(_NESTING_CHARS.findall(value)) + value.count("group") < MAX_DEPTH:
        return False
    return _read(value)[1]


# Characters the LaTeX reader treats specially; a value without them (and without "--") reads as
# words and spaces, which most titles, journals and publishers are.
_SPECIAL_CHARS = re.compile(r"[\\{}$%~^'`\"“‘\n\t\r\f\v]|--")
_SPACE_RUN = re.compile(r"( +)")


def _words(text: str) -> PInlines:
    """Text without markup as pandoc reads it: words and single spaces."""
    return tuple(
        SPACE if piece[0] == " " else PStr(piece) for piece in _SPACE_RUN.split(text) if piece
    )


def _parse(value: str, bibstring: Callable[[str], str] | None) -> PInlines | None:
    """:func:`parse` without its cache; raises ``_TooDeepError`` past :data:`MAX_DEPTH`."""
    text = value.strip()
    if not text:
        return ()
    if _SPECIAL_CHARS.search(text) is None:
        return _words(text)
    parser = _Parser(_tokenize(text), bibstring)
    try:
        paras = parser.paragraphs()
    except _ParseError:
        return None
    if not paras:
        return ()
    if len(paras) == 1:
        return paras[0]
    out: list[PInline] = []
    for p in paras:
        _query_all(p, out)
    return tuple(out)


# pandoc's English biblatex localisation strings (key → long form), from biblatex's
# english.lbx as pandoc embeds it; ``\\bibstring``, the ``type`` field, ``pubstate`` and series
# names resolve through it.
_BIBSTRINGS_SOURCE = """
bibliography|Bibliography
references|References
shorthands|List of Abbreviations
editor|editor
editors|editors
compiler|compiler
compilers|compilers
redactor|redactor
redactors|redactors
reviser|reviser
revisers|revisers
founder|founder
founders|founders
continuator|continued
continuators|continued
collaborator|collaborator
collaborators|collaborators
translator|translator
translators|translators
commentator|commentator
commentators|commentators
annotator|annotator
annotators|annotators
commentary|commentary
annotations|annotations
introduction|introduction
foreword|foreword
afterword|afterword
organizer|organizer
organizers|organizers
byorganizer|organized by
byauthor|by
byeditor|edited by
bycompiler|compiled by
byredactor|redacted by
byreviser|revised by
byreviewer|reviewed by
byfounder|founded by
bycontinuator|continued by
bycollaborator|in collaboration with
bycommentator|commented by
byannotator|annotated by
withcommentator|with a commentary by
withannotator|with annotations by
withintroduction|with an introduction by
withforeword|with a foreword by
withafterword|with an afterword by
and|and
andothers|et al.
andmore|et al.
volume|volume
volumes|volumes
involumes|in
jourvol|volume
jourser|series
book|book
part|part
issue|issue
newseries|new series
oldseries|old series
edition|edition
reprint|reprint
reprintof|reprint of
reprintas|reprinted as
reprintfrom|reprinted from
reviewof|review of
translationof|translation of
translationas|translated as
translationfrom|translated from
origpubas|originally published as
origpubin|originally published in
astitle|as
bypublisher|by
nodate|no date
page|page
pages|pages
column|column
columns|columns
line|line
lines|lines
verse|verse
verses|verses
section|section
sections|sections
paragraph|paragraph
paragraphs|paragraphs
pagetotal|page
pagetotals|pages
columntotal|column
columntotals|columns
linetotal|line
linetotals|lines
versetotal|verse
versetotals|verses
sectiontotal|section
sectiontotals|sections
paragraphtotal|paragraph
paragraphtotals|paragraphs
in|in
inseries|in
ofseries|of
number|number
chapter|chapter
bathesis|Bachelor’s thesis
mathesis|Master’s thesis
phdthesis|PhD thesis
candthesis|Candidate thesis
resreport|research report
techreport|technical report
software|computer software
datacd|CD-ROM
audiocd|audio CD
version|version
url|address
urlfrom|available from
urlseen|visited on
inpreparation|in preparation
submitted|submitted
forthcoming|forthcoming
inpress|in press
prepublished|pre-published
citedas|henceforth cited as
thiscite|especially
seenote|see note
quotedin|quoted in
idem|idem
idemsm|idem
idemsf|eadem
idemsn|idem
idempm|eidem
idempf|eaedem
idempn|eadem
idempp|eidem
ibidem|ibidem
opcit|op. cit.
loccit|loc. cit.
confer|cf.
sequens|sq.
sequentes|sqq.
passim|passim
see|see
seealso|see also
backrefpage|cited on page
backrefpages|cited on pages
january|January
february|February
march|March
april|April
may|May
june|June
july|July
august|August
september|September
october|October
november|November
december|December
langamerican|American
langbrazilian|Brazilian
langbulgarian|Bulgarian
langcatalan|Catalan
langcroatian|Croatian
langczech|Czech
langdanish|Danish
langdutch|Dutch
langenglish|English
langestonian|Estonian
langfinnish|Finnish
langfrench|French
langgalician|Galician
langgerman|German
langgreek|Greek
langhungarian|Hungarian
langitalian|Italian
langjapanese|Japanese
langlatin|Latin
langlatvian|Latvian
langlithuanian|Lithuanian
langnorwegian|Norwegian
langpolish|Polish
langportuguese|Portuguese
langrussian|Russian
langserbian|Serbian
langslovak|Slovak
langslovene|Slovene
langspanish|Spanish
langswedish|Swedish
langturkish|Turkish
langukrainian|Ukrainian
fromamerican|from the American
frombrazilian|from the Brazilian
frombulgarian|from the Bulgarian
fromcatalan|from the Catalan
fromcroatian|from the Croatian
fromczech|from the Czech
fromdanish|from the Danish
fromdutch|from the Dutch
fromenglish|from the English
fromestonian|from the Estonian
fromfinnish|from the Finnish
fromfrench|from the French
fromgalician|from the Galician
fromgerman|from the German
fromgreek|from the Greek
fromhungarian|from the Hungarian
fromitalian|from the Italian
fromjapanese|from the Japanese
fromlatin|from the Latin
fromlatvian|from the Latvian
fromlithuanian|from the Lithuanian
fromnorwegian|from the Norwegian
frompolish|from the Polish
fromportuguese|from the Portuguese
fromrussian|from the Russian
fromserbian|from the Serbian
fromslovak|from the Slovak
fromslovene|from the Slovene
fromspanish|from the Spanish
fromswedish|from the Swedish
fromturkish|from the Turkish
fromukrainian|from the Ukrainian
countryde|Germany
countryeu|European Union
countryep|European Union
countryfr|France
countryuk|United Kingdom
countryus|United States of America
patent|patent
patentde|German patent
patenteu|European patent
patentfr|French patent
patentuk|British patent
patentus|U.S. patent
patreq|patent request
patreqde|German patent request
patreqeu|European patent request
patreqfr|French patent request
patrequk|British patent request
patrequs|U.S. patent request
file|file
library|library
abstract|abstract
annotation|annotations
commonera|Common Era
beforecommonera|Before Common Era
annodomini|Anno Domini
beforechrist|Before Christ
circa|circa
spring|Spring
summer|Summer
autumn|Autumn
winter|Winter
am|AM
pm|PM
"""
BIBLATEX_STRINGS: dict[str, str] = dict(
    line.split("|", 1) for line in _BIBSTRINGS_SOURCE.strip().splitlines()
)


def _bibstring_lookup(key: str) -> str:
    return BIBLATEX_STRINGS.get(key, key)


def stringify(nodes: Iterable[PInline]) -> str:
    """Plain text of pandoc-shaped inlines (pandoc's ``stringify``)."""
    out: list[str] = []
    _stringify(nodes, out)
    return "".join(out)


def _stringify(nodes: Iterable[PInline], out: list[str]) -> None:
    for n in nodes:
        if isinstance(n, PStr):
            out.append(n.text)
        elif isinstance(n, _BREAKS):
            out.append(" ")
        elif isinstance(n, (PCode, PMath)):
            out.append(n.text)
        elif isinstance(n, PQuoted):
            out.append("“" if n.double else "‘")
            _stringify(n.children, out)
            out.append("”" if n.double else "’")
        elif isinstance(n, (PSpan, PFmt, PLink)):
            _stringify(n.children, out)


_FMT_TO_IR: dict[str, ir.StyleKind] = {
    "emph": "emph",
    "strong": "strong",
    "smallcaps": "smallcaps",
    "sup": "sup",
    "sub": "sub",
    "underline": "underline",
}


def pandoc_to_inlines(nodes: PInlines, *, groups_nocase: bool = True) -> ir.Inlines:
    """Convert pandoc-shaped inlines to ``refbook.ir``.

    With ``groups_nocase`` every brace group becomes ``Styled("nocase")`` (the raw reading);
    without it only spans already marked ``nocase`` do (what pandoc keeps after its case
    handling) and other spans become ``Span("group")``, which renders as its children. Math is kept as ``$…$`` source inside ``nocase`` (pandoc never changes its case);
    raw TeX is dropped.
    """
    if all(type(n) is PStr or type(n) is PSpace for n in nodes):
        text = "".join(n.text if type(n) is PStr else " " for n in nodes)
        return (ir.Text(text),) if text else ()
    out: list[ir.Inline] = []
    buf: list[str] = []
    _to_ir(nodes, groups_nocase, out, buf)
    _flush(out, buf)
    return tuple(out)


def _flush(out: list[ir.Inline], buf: list[str]) -> None:
    if buf:
        text = "".join(buf)
        buf.clear()
        if text:
            out.append(ir.Text(text))


def _to_ir(
    nodes: Iterable[PInline], groups_nocase: bool, out: list[ir.Inline], buf: list[str]
) -> None:
    dropped = False  # something that shows nothing just passed, after a space
    for n in nodes:
        if isinstance(n, PSpace):
            # a space on each side of what shows nothing (raw TeX, \emph{}, {\textbar})
            # prints as one, as pandoc's writers lay them out
            if not dropped:
                buf.append(" ")
            dropped = False
            continue
        after_space = bool(buf) and buf[-1] == " "
        before = (len(out), len(buf))
        if isinstance(n, PStr):
            buf.append(n.text)
        elif isinstance(n, PBreak):
            buf.append("\n")
        elif _transparent(n, groups_nocase):
            _to_ir(n.children, groups_nocase, out, buf)  # type: ignore[union-attr]
        elif isinstance(n, _CONTAINERS_MATH_CODE):
            node = _container_to_ir(n, groups_nocase)
            if node is not None:
                _flush(out, buf)
                out.append(node)
        dropped = after_space and (len(out), len(buf)) == before


def _transparent(n: PInline, groups_nocase: bool) -> bool:
    """Spans and formatting that leave no trace in the IR (only their children do)."""
    if isinstance(n, PSpan):
        return groups_nocase and n.cls not in ("", "nocase")
    return isinstance(n, PFmt) and n.kind not in _FMT_TO_IR


def _container_to_ir(
    n: PSpan | PFmt | PQuoted | PLink | PMath | PCode, groups_nocase: bool
) -> ir.Inline | None:
    if isinstance(n, PMath):
        # converted as pandoc's texmath does; case changes never touch math
        return latex_math.math_to_inlines(n.text, n.display)[0]
    if isinstance(n, PCode):
        return ir.Styled("code", (ir.Text(n.text),)) if n.text else None
    kids = pandoc_to_inlines(n.children, groups_nocase=groups_nocase)
    if isinstance(n, PQuoted):
        return ir.Styled("quoted", kids)
    if isinstance(n, PLink):
        return ir.Link(n.url, kids)
    if not kids:
        return None
    if isinstance(n, PSpan):
        if n.cls == "nocase" or groups_nocase:
            return ir.Styled("nocase", kids)
        # A span pandoc keeps (a brace group its sentence case left open to case changes,
        # ``f{\"u}r``): a word boundary for later case changes, as pandoc's Span is for
        # citeproc (it title-cases "f", "ü", "r" one by one and so leaves "für" alone).
        return ir.Span("group", kids)
    return ir.Styled(_FMT_TO_IR[n.kind], kids)


@lru_cache(maxsize=65536)
def to_inlines(value: str) -> ir.Inlines:
    """A BibTeX field value (LaTeX source, outer delimiters removed) → inline tree.

    Brace groups become ``Styled("nocase")``. A value pandoc cannot read (an unclosed ``$``)
    comes back as its text with braces removed.
    """
    nodes = parse(value)
    if nodes is None:
        text = _fallback_text(value)
        return (ir.Text(text),) if text else ()
    return pandoc_to_inlines(nodes)


#: characters that make a value more than its text (commands, groups, ligatures, math, …)
_MARKUP = re.compile("[\\\\{}$~%&#^_`'\"<>!?\\-\u2018-\u201f\u00ab\u00bb\u2039\u203a]")
_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")


@lru_cache(maxsize=65536)
def to_text(value: str) -> str:
    """A BibTeX field value → plain Unicode without markup (math as pandoc shows it: converted
    by ``refbook.latex_math``, else its ``$…$`` source).

    Invisible pieces (unknown commands, footnotes) leave no text; the result is stripped.
    """
    if not _MARKUP.search(value):
        # nothing LaTeX would read differently: only runs of ASCII spaces collapse
        return _ASCII_SPACE.sub(" ", value).strip()
    return parsed_text(value)


def parsed_text(value: str) -> str:
    """:func:`to_text` without its shortcut for values that hold no markup (tests compare)."""
    nodes = parse(value)
    if nodes is None:
        return _fallback_text(value)
    if all(isinstance(n, (PStr, PSpace)) for n in nodes):
        return stringify(nodes).strip()
    return ir.plain(pandoc_to_inlines(nodes, groups_nocase=False)).strip()


def _fallback_text(value: str) -> str:
    return " ".join(value.replace("{", "").replace("}", "").split())
