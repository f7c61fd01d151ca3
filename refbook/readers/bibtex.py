"""BibTeX/BibLaTeX reader: one ``.bib`` text → entries, ``@string`` macros and diagnostics.

Where it sits: the first step of the flow. ``refbook.readers.read_bibliography`` calls
:func:`parse_bibtex` once per file (through ``refbook.bibcache``), then merges the files and
resolves ``crossref``/``xdata`` into a ``Bibliography``. Field values leave this module as LaTeX
source; ``refbook.latex`` decodes them later.

The scanner is our own (see ``docs/design/bibtex-parser.md`` for why not pybtex or
bibtexparser): compiled regular expressions driven from one loop. A fast path reads a whole
well-formed entry with one match and its fields with one ``findall``; everything else goes
through a token-by-token path that also writes the diagnostics. Its rules, where BibTeX
implementations differ:

- Text between entries is ignored, as BibTeX does; a ``%`` starts a comment up to the end of the
  line between entries and between the tokens of an entry (not inside a value), as biber does,
  so ``%@book{...}`` is a commented-out entry.
- ``@comment{...}`` skips its balanced braces; ``@comment`` without a delimiter skips its line.
- A syntax error skips the entry it is in (BibTeX and biber do the same) and reading resumes at
  the next line that starts with ``@``. A value whose braces swallow such a line is reported as
  unbalanced there, so one missing ``}`` never eats the rest of the file.
- Values: ``@string`` macros (case-insensitive) and ``#`` concatenation are expanded; the month
  macros ``jan``..``dec`` are predefined as in ``plain.bst``; an undefined macro keeps its name in lower case (as pandoc);
  runs of white space are collapsed to one space and field values are stripped, as BibTeX does
  (a macro keeps its own leading space); braces and commands are kept.
- Safety limits (``input-limit`` diagnostics, every other value and entry kept): macro expansion
  stops at :data:`MAX_VALUE_CHARS` per value (the rest is cut) and at a budget per file
  (further macros keep their names), so ``@string{a1 = a0 # a0}``… cannot grow to gigabytes; a
  value nested deeper than ``refbook.latex.MAX_DEPTH`` reads as plain text; a number field with
  more than ``refbook.models.MAX_DIGITS`` digits in a row is not a number.

Scanning is linear: a value is scanned at most up to the next line that starts an entry (where
an unclosed value is reported), and after an unclosed ``@comment`` the closing positions of the
rest of the text are tabulated once instead of being searched again per comment.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic
from refbook.gcpause import paused_gc
from refbook.models import MAX_DIGITS, Entry, Field, Location
from refbook.readers.result import ParseResult
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MAX_VALUE_CHARS", "MONTH_MACROS", "ParseResult", "ValueSpan", "parse_bibtex",
           "parse_with_spans", "paused_gc"]

#: The most characters ``@string`` expansion may make of one value (or macro). Real values stay
#: far below (a long abstract has 5,000); ``a1 = a0 # a0`` forty times over would make 4 GB.
MAX_VALUE_CHARS = 1_000_000
# What all macro expansions of one file may add up to: a fixed allowance plus a multiple of the
# file's size, so that a 1 kB file cannot use a 1 MB macro ten thousand times either.
_BUDGET_BASE = 4 * MAX_VALUE_CHARS
_BUDGET_PER_CHAR = 8
# Fields whose digits a later stage reads as numbers: dates (also biblatex's ``orig``, ``event``
# and ``url`` ones) and the values CSL treats as numeric.
_NUMBER_FIELDS = frozenset(
    {prefix + part for prefix in ("", "orig", "event", "url")
     for part in ("date", "year", "month", "day", "endyear", "endmonth", "endday")}
    | {"volume", "volumes", "number", "issue", "pages", "pagetotal", "edition", "chapter",
       "part"}
)
_LONG_NUMBER_RE = re.compile(rf"[0-9]{{{MAX_DIGITS + 1}}}")

#: The macros every BibTeX style defines (``plain.bst``); ``@string`` may redefine them.
MONTH_MACROS: Mapping[str, str] = {
    "jan": "January", "feb": "February", "mar": "March", "apr": "April",
    "may": "May", "jun": "June", "jul": "July", "aug": "August",
    "sep": "September", "oct": "October", "nov": "November", "dec": "December",
}


@record(frozen=True)
class ValueSpan:
    """Where the value of one field of a kept entry is written (for ``refbook check --fix``).

    ``text[start:end]`` is the raw value as written, from its first character (``{``, ``"``,
    a digit or a macro name) to the end of its last ``#`` piece, without the white space or
    comments after it. ``line`` is the line of the field's name (the field's ``Location``).
    """

    key: str
    field: str
    line: int
    start: int
    end: int


# Characters BibTeX does not allow in an identifier (entry type, field or macro name).
_ID = r"""[^\s"#%'(),={}@]++"""
# White space and ``%`` comments between tokens; possessive, so it never backtracks.
_WS = r"""(?:\s++|%[^\n]*+)*+"""

_WS_RE = re.compile(_WS)
_TOP_RE = re.compile(r"%[^\n]*+|@")
_AT_RE = re.compile(rf"@[ \t]*({_ID})(?:{_WS})([{{(]?)")
_KEY_RE = re.compile(rf"""{_WS}([^\s,{{}}()=%"#]*+){_WS}""")
# in an entry written with braces a key may hold parentheses (SpringerLink's
# `springerlink:10.1007/JHEP11(2010)101`), as BibTeX, pybtex and pandoc read it
_KEY_IN_BRACES_RE = re.compile(rf"""{_WS}([^\s,{{}}=%"#]*+){_WS}""")
_NAME_RE = re.compile(_ID)
_NUMBER_RE = re.compile(r"[0-9]+(?![^\s\"#%'(),={}@])")
_BRACE_RE = re.compile(r"[{}]")
_COMMENT_RE = re.compile(r"[{})]")
_QUOTE_RE = re.compile(r'["{}]')
_SPACE_RUN_RE = re.compile(r"\s+")
_LINE_START_AT_RE = re.compile(r"^[ \t]*@", re.MULTILINE)
# A line that starts an entry; inside a value it means the value's braces are unbalanced.
_ENTRY_LINE_RE = re.compile(rf"\n[ \t]*(@[ \t]*{_ID}[ \t]*[{{(])")
# A field inside a multi-line value: the value is missing its closing brace.
_SWALLOWED_FIELD_RE = re.compile(rf"[,}}][ \t]*\n[ \t]*({_ID})[ \t]*=")
# After an entry closed: more ``name =`` means a ``}`` too many closed the entry early.
_STRAY_FIELD_RE = re.compile(rf"{_WS},?{_WS}({_ID})[ \t]*=")
# The fast path reads a whole entry whose fields are `` name = value`` (values with up to three
# levels of braces, ``"..."``, numbers, macros, ``#``; blank lines between fields, and values
# over several lines as JabRef wraps them) with two C-level calls: one match for the entry, one
# ``findall`` for its fields. A value never runs over a line that starts with ``@`` (the general
# path reports a missing closer there), and a ``#`` concatenation over several lines takes the
# general path (it locates each macro on its own line).
_NL = r"\n(?![ \t]*+@)"
_L3 = rf"\{{(?:[^{{}}\n]++|{_NL})*+\}}"
_L2 = rf"\{{(?:[^{{}}\n]++|{_NL}|{_L3})*+\}}"
_BRACED = rf"\{{(?:[^{{}}\n]++|{_NL}|{_L2})*+\}}"
_QUOTED = rf'"(?:[^"{{}}\n]++|{_NL}|{_L2})*+"'
_MACRO = r"""[^\s"#%'(),={}@0-9][^\s"#%'(),={}@]*+"""
_PIECE = rf"""(?:{_BRACED}|{_QUOTED}|[0-9]++(?![^\s"#%'(),={{}}@])|{_MACRO})"""


def _concatenated_lines(m: re.Match[str]) -> bool:
    """Whether a fast-path match has a ``#`` concatenation over several lines (the general
    path then reads the entry: it locates each macro of it on its own line)."""
    fields = m.group(3)
    if "#" not in fields:
        return False
    return any(rest and "\n" in first + rest
               for _, _, first, rest in _FAST_FIELDS_RE.findall(fields))


def _field_pattern(capture: bool) -> str:
    """`` name = piece # piece``; captured: (the white space before it, name, first piece, the
    rest)."""
    g = "(" if capture else "(?:"
    return (
        rf"{g}\s*+){g}{_ID})[ \t]*+=[ \t]*+{g}{_PIECE})"
        rf"{g}(?:[ \t]*+#[ \t]*+{_PIECE})*+)[ \t]*+"
    )


_FAST_ENTRY_RE = re.compile(
    rf"""@[ \t]*+({_ID})[ \t]*+\{{[ \t]*+([^\s,{{}}()=%"#]++)[ \t]*+,"""
    rf"""((?:{_field_pattern(False)},)*+(?:{_field_pattern(False)})?+)\s*+\}}"""
)
_FAST_FIELDS_RE = re.compile(_field_pattern(True))
_PIECE_RE = re.compile(rf"[ \t#]*+({_PIECE})")

_CLOSE = {"{": "}", "(": ")"}
_SPECIAL = frozenset({"string", "preamble", "comment"})


class _SyntaxError(Exception):
    """Raised inside the scanner to abandon the current entry; never leaves this module."""

    def __init__(self, pos: int, message: str, hint: str, resume: int | None = None) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message
        self.hint = hint
        self.resume = resume


def _clean(value: str) -> str:
    """A field's final value: white space runs collapsed to one space, ends stripped (BibTeX)."""
    # The check avoids the regex for the common one-line value.
    if "\n" in value or "\t" in value or "  " in value:
        return _SPACE_RUN_RE.sub(" ", value).strip()
    return value.strip()


def _collapse(value: str) -> str:
    """A macro's value: white space collapsed, but ends kept (``"ACM" # STOC`` needs STOC's
    leading space, as in xampl.bib)."""
    if "\n" in value or "\t" in value or "  " in value:
        return _SPACE_RUN_RE.sub(" ", value)
    return value


def expansion_budget(length: int) -> int:
    """The characters macro expansion may add in a file of ``length`` characters."""
    return _BUDGET_BASE + _BUDGET_PER_CHAR * length


def parse_bibtex(text: str, file: str, *, macros: Mapping[str, str] | None = None) -> ParseResult:
    """Parse one ``.bib`` text; ``file`` is only used for locations.

    ``macros`` are ``@string`` definitions visible from earlier files (lower-case names), as
    BibTeX shares them across the files of one ``\\bibliography``. Never raises on bad input:
    every problem is a diagnostic.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    with paused_gc():
        return _Parser(text, file, macros).run()


def parse_with_spans(
    text: str, file: str, *, macros: Mapping[str, str] | None = None
) -> tuple[ParseResult, tuple[ValueSpan, ...]]:
    """:func:`parse_bibtex` plus where each field value of each kept entry is written.

    For ``refbook check --fix``, which edits values in place. The offsets index ``text`` as
    given, so ``text`` must already have ``\\n`` line ends and no byte-order mark (the caller
    maps offsets back to its file). Entries with a syntax error or a duplicate key have no
    spans, nor do fields set twice (the reader ignores them).
    """
    with paused_gc():
        parser = _Parser(text, file, macros)
        parser.spans = []
        result = parser.run()
    return result, tuple(parser.spans)


class _Closers:
    """Where the groups and ``@comment(…)`` bodies of a text's tail close, tabulated in one pass.

    ``@comment(`` ends at the first ``)`` where the braces opened since the ``(`` are closed
    again (or more than that); that is the first ``)`` at or after the ``(`` whose brace depth,
    counted from ``start``, is at most the depth at the ``(``.
    """

    __slots__ = ("_brace_depth", "_brace_pos", "_groups", "_paren_depth", "_paren_min",
                 "_paren_pos", "start")

    def __init__(self, text: str, start: int) -> None:
        self.start = start
        self._groups: dict[int, int] = {}  # index of a "{" → index of its "}"
        self._brace_pos: list[int] = []
        self._brace_depth: list[int] = []  # depth right after each brace
        self._paren_pos: list[int] = []
        self._paren_depth: list[int] = []  # depth at each ")"
        open_groups: list[int] = []
        depth = 0
        for m in _COMMENT_RE.finditer(text, start):
            i = m.start()
            c = m.group()
            if c == ")":
                self._paren_pos.append(i)
                self._paren_depth.append(depth)
                continue
            if c == "{":
                depth += 1
                open_groups.append(i)
            else:
                depth -= 1
                if open_groups:
                    self._groups[open_groups.pop()] = i
            self._brace_pos.append(i)
            self._brace_depth.append(depth)
        # _paren_min[j]: the lowest depth at any ")" from the j-th on.
        lowest = len(text) + 1
        self._paren_min = [0] * len(self._paren_depth)
        for j in range(len(self._paren_depth) - 1, -1, -1):
            lowest = min(lowest, self._paren_depth[j])
            self._paren_min[j] = lowest

    def group_end(self, pos: int) -> int | None:
        """Index of the ``}`` closing the ``{`` at ``pos - 1``."""
        return self._groups.get(pos - 1)

    def paren_end(self, pos: int) -> int | None:
        """Index of the ``)`` that ends a ``@comment(`` body starting at ``pos``."""
        k = bisect.bisect_left(self._brace_pos, pos)
        depth = self._brace_depth[k - 1] if k else 0
        j = bisect.bisect_left(self._paren_pos, pos)
        if j == len(self._paren_pos) or self._paren_min[j] > depth:
            return None
        # Walks only over the ")" inside the comment, which reading then skips.
        while self._paren_depth[j] > depth:
            j += 1
        return self._paren_pos[j]


class _Parser:
    """One pass over one text; the methods return the position where scanning goes on."""

    def __init__(self, text: str, file: str, macros: Mapping[str, str] | None) -> None:
        self.text = text
        self.file = file
        self.macros: dict[str, str] = dict(MONTH_MACROS)
        if macros:
            self.macros.update(macros)
        self.entries: list[Entry] = []
        self.diagnostics: list[Diagnostic] = []
        self.strings: list[tuple[str, str]] = []
        self.preambles: list[str] = []
        self.seen_keys: dict[str, int] = {}
        # Field names as written → lower case; also makes every "author" one shared string.
        self.lowered: dict[str, str] = {}
        # The entry and field being read, for the key/field of a syntax error.
        self.key = ""
        self.field = ""
        # Incremental line counting: the line of ``_line_pos`` is ``_line``.
        self._line_pos = 0
        self._line = 1
        # Only for parse_with_spans: the kept fields' value spans (None: not recorded), those of
        # the entry being read, and where the last value read ended.
        self.spans: list[ValueSpan] | None = None
        self.entry_spans: list[ValueSpan] = []
        self.value_end = 0
        # Characters macro expansion may still add in this file (see _BUDGET_BASE).
        self.budget = expansion_budget(len(text))
        self.budget_reported = False
        # The last search for the next entry line: (searched from, what it found).
        self._entry_line: tuple[int, re.Match[str] | None] = (len(text) + 1, None)
        # Built after the first unclosed ``@comment``: where the rest's groups close.
        self._closers: _Closers | None = None

    # -- positions ---------------------------------------------------------------------------

    def line_of(self, pos: int) -> int:
        if pos >= self._line_pos:
            self._line += self.text.count("\n", self._line_pos, pos)
        else:
            self._line -= self.text.count("\n", pos, self._line_pos)
        self._line_pos = pos
        return self._line

    def loc(self, pos: int) -> Location:
        return Location(self.file, self.line_of(pos))

    def skip_ws(self, pos: int) -> int:
        m = _WS_RE.match(self.text, pos)
        return m.end() if m else pos

    # -- driver ------------------------------------------------------------------------------

    def run(self) -> ParseResult:
        text = self.text
        pos = 0
        n = len(text)
        top = _TOP_RE.search
        fast = _FAST_ENTRY_RE.match
        while pos < n:
            m = top(text, pos)
            if m is None:
                break
            start = m.start()
            if text[start] != "@":
                pos = m.end()
                continue
            self.key = self.field = ""
            try:
                fm = fast(text, start)
                # The fast path records no positions, so recording spans takes the slow one.
                if (fm is not None and fm.group(1).lower() not in _SPECIAL and self.spans is None
                        and not _concatenated_lines(fm)):
                    pos = self.fast_entry(fm, start)
                else:
                    pos = self.command(start)
            except _SyntaxError as err:
                self.diagnostics.append(Diagnostic(
                    Code.SYNTAX, err.message, self.loc(err.pos), err.hint,
                    key=self.key, field=self.field,
                ))
                pos = self.resume_after(err.pos if err.resume is None else err.resume, start)
        self.check_values()
        return ParseResult(
            tuple(self.entries), tuple(self.diagnostics), tuple(self.strings),
            tuple(self.preambles),
        )

    def resume_after(self, pos: int, start: int) -> int:
        """Where to go on after an error: the next line that starts with ``@``."""
        m = _LINE_START_AT_RE.search(self.text, max(pos, start + 1))
        return m.start() if m else len(self.text)

    def command(self, start: int) -> int:
        """Read the ``@...`` at ``start``; return where scanning goes on."""
        text = self.text
        m = _AT_RE.match(text, start)
        if m is None:
            # A lone "@" in the text between entries: BibTeX skips it too.
            return start + 1
        kind = m.group(1).lower()
        opener = m.group(2)
        if kind == "comment":
            return self.comment(m.end() if opener else m.end(1), opener)
        if not opener:
            raise _SyntaxError(
                m.end(1),
                f"`@{m.group(1)}` is not followed by `{{` or `(`",
                "start an entry as `@type{key, ...}`; if this is text, not an entry, "
                "remove the `@` or start the line with `%`",
            )
        close = _CLOSE[opener]
        pos = m.end()
        if kind == "string":
            return self.string(start, pos, close)
        if kind == "preamble":
            return self.preamble(start, pos, close)
        return self.entry(start, m.group(1), pos, close)

    def comment(self, pos: int, opener: str) -> int:
        if opener:
            end = self.block_end(pos, _CLOSE[opener])
            if end is not None:
                return end
        nl = self.text.find("\n", pos)
        return len(self.text) if nl < 0 else nl + 1

    def block_end(self, pos: int, close: str) -> int | None:
        """End of a balanced ``@comment`` body starting after its opener (``None``: unclosed).

        ``@comment{`` ends where its group closes, ``@comment(`` at the first ``)`` outside
        braces. A comment may hold entries, so there is no bound but the end of the text: after
        the first unclosed one, the closing positions of the rest are tabulated (one pass), so
        that a thousand unclosed comments do not scan the rest a thousand times.
        """
        closers = self._closers
        if closers is not None and pos > closers.start:
            end = closers.group_end(pos) if close == "}" else closers.paren_end(pos)
        else:
            end = self._brace_close(pos, len(self.text)) if close == "}" else self._paren_close(pos)
            if end is None:
                self._closers = _Closers(self.text, pos - 1)
        return None if end is None else end + 1

    def _paren_close(self, pos: int) -> int | None:
        """Index of the first ``)`` after ``pos`` outside the braces opened after ``pos``."""
        depth = 0
        for m in _COMMENT_RE.finditer(self.text, pos):
            c = m.group()
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif depth <= 0:
                return m.start()
        return None

    def entry_line(self, pos: int) -> re.Match[str] | None:
        """The first line at or after ``pos`` that starts an entry (``\\n@type{``), if any.

        Values are scanned only up to it. Reading goes forward, so the last answer is kept:
        every part of the text is searched once.
        """
        since, found = self._entry_line
        if since <= pos and (found is None or found.start() >= pos):
            return found
        found = _ENTRY_LINE_RE.search(self.text, pos)
        self._entry_line = (pos, found)
        return found

    # -- values ------------------------------------------------------------------------------

    def _brace_close(self, pos: int, stop: int) -> int | None:
        """Index of the ``}`` that closes the group opened just before ``pos`` (before ``stop``)."""
        text = self.text
        depth = 1
        search = _BRACE_RE.search
        while True:
            m = search(text, pos, stop)
            if m is None:
                return None
            if m.group() == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return m.start()
            pos = m.end()

    def value(
        self, pos: int, name_pos: int, close: str, key: str, field: str, *, strip: bool = True
    ) -> tuple[str, int]:
        """Read ``part # part # ...`` at ``pos``; return the expanded value and the end."""
        text = self.text
        parts: list[str] = []
        size = 0  # characters in parts
        cut = False
        while True:
            c = text[pos] if pos < len(text) else ""
            if c in ("{", '"'):
                # A value never runs over a line that starts an entry: that is where a missing
                # closer is reported, and scanning there keeps recovery linear.
                line = self.entry_line(pos)
                stop = len(text) if line is None else line.start()
                if c == "{":
                    end = self._brace_close(pos + 1, stop)
                else:
                    end = self._quote_close(pos + 1, field, stop)
                if end is None:
                    raise self.runaway(line, name_pos, field, c)
                if not cut:  # a cut value takes nothing more
                    parts.append(text[pos + 1 : end])
                    size += end - pos - 1
                pos = end + 1
            else:
                m = _NUMBER_RE.match(text, pos)
                if m is not None:
                    if not cut:
                        parts.append(m.group())
                        size += m.end() - pos
                    pos = m.end()
                else:
                    m = _NAME_RE.match(text, pos)
                    if m is None:
                        raise self.missing_value(pos, name_pos, field, c)
                    name = m.group()
                    if name[0].isdigit():
                        raise _SyntaxError(
                            pos,
                            f"`{name}` is not a valid value"
                            + (f" for field `{field}`" if field else ""),
                            f"put it in braces: `{{{name}}}` (only plain numbers may be "
                            f"written bare)",
                        )
                    macro = self.macros.get(name.lower())
                    if macro is None:
                        macro = self.undefined(name, self.line_of(pos), key, field)
                    elif not cut:
                        macro, cut = self.expand(name, macro, size, self.line_of(pos), key, field)
                        if cut:
                            self.cut(self.line_of(name_pos), key, field)
                            parts.append(macro)  # the part that fits
                    if not cut:
                        parts.append(macro)
                        size += len(macro)
                    pos = m.end()
            self.value_end = pos
            pos = self.skip_ws(pos)
            if pos < len(text) and text[pos] == "#":
                pos = self.skip_ws(pos + 1)
                continue
            joined = "".join(parts)
            return (_clean(joined) if strip else _collapse(joined)), pos

    def _quote_close(self, pos: int, field: str, stop: int) -> int | None:
        """Index of the ``"`` that ends a quoted value (a ``"`` inside braces does not), if it
        comes before ``stop``."""
        text = self.text
        depth = 0
        search = _QUOTE_RE.search
        while True:
            m = search(text, pos, stop)
            if m is None:
                return None
            c = m.group()
            if c == '"':
                if depth == 0:
                    return m.start()
            elif c == "{":
                depth += 1
            else:
                depth -= 1
                if depth < 0:
                    what = f"field `{field}`" if field else "the value"
                    raise _SyntaxError(
                        m.start(),
                        f"unbalanced braces in {what}: a `}}` closes more than was opened "
                        f"inside the quoted value",
                        "make every `{` and `}` in the value pair up, or write the value in "
                        "braces instead of quotes",
                    )
            pos = m.end()

    def runaway(
        self, entry_line: re.Match[str] | None, name_pos: int, field: str, opener: str
    ) -> _SyntaxError:
        """A value not closed before the next entry line (``entry_line``) or the end."""
        closer = "}" if opener == "{" else '"'
        line = self.line_of(name_pos)
        what = f"the value of field `{field}`" if field else "the value"
        if entry_line is not None:
            stop = self.line_of(entry_line.start(1))
            message = (f"unbalanced braces: {what} opened on line {line} is not closed "
                       f"before the entry on line {stop}")
            resume = entry_line.start(1)
        else:
            message = f"unbalanced braces: {what} opened on line {line} is never closed"
            resume = len(self.text)
        return _SyntaxError(
            name_pos, message,
            f"add the missing `{closer}` at the end of the value (or remove a stray `{{` in it)",
            resume,
        )

    def check_values(self) -> None:
        """Report the values later stages could not read safely (see the module docstring)."""
        # imported on the first parse: a build that takes every parse from the cache folder
        # never decodes LaTeX (tests/mkdocs/test_lazy_imports.py)
        from refbook import latex

        file = self.file
        deep = latex.MAX_DEPTH
        # Both checks need values longer than MAX_DIGITS; a comprehension finds them quickly.
        longer = [(entry, f) for entry in self.entries for f in entry.fields
                  if len(f.value) > MAX_DIGITS]
        for entry, f in longer:
            if len(f.value) >= deep and latex.too_deep(f.value):
                self.diagnostics.append(Diagnostic(
                    Code.INPUT_LIMIT,
                    f"field `{f.name}` nests braces, commands or quotes more than {deep} levels "
                    f"deep; it is read as plain text",
                    Location(file, f.location.line),
                    "remove the extra braces or commands: a value needs only a few levels",
                    key=entry.key, field=f.name,
                ))
            if f.name in _NUMBER_FIELDS and _LONG_NUMBER_RE.search(f.value):
                self.diagnostics.append(Diagnostic(
                    Code.INPUT_LIMIT,
                    f"field `{f.name}` holds a number with more than {MAX_DIGITS} digits; it is "
                    f"not read as a number",
                    Location(file, f.location.line),
                    "check the value: a year, volume or page number has a few digits",
                    key=entry.key, field=f.name,
                ))

    def missing_value(self, pos: int, name_pos: int, field: str, char: str) -> _SyntaxError:
        found = f"`{char}`" if char else "the end of the file"
        return _SyntaxError(
            pos if char else name_pos,
            f"field `{field}` has no value: expected `{{`, `\"`, a number or a macro name, "
            f"found {found}" if field else
            f"expected a value (`{{...}}`, `\"...\"`, a number or a macro name), found {found}",
            "write the value in braces, e.g. `name = {value}`; values with spaces or "
            "punctuation need braces or quotes",
        )

    def undefined(self, name: str, line: int, key: str, field: str) -> str:
        """Report an undefined macro; BibTeX then uses an empty string, we keep its name in
        lower case, as pandoc does (``IEEE_J_PROC`` reads as "ieee_j_proc")."""
        self.diagnostics.append(Diagnostic(
            Code.UNDEFINED_STRING,
            f"undefined macro `{name}`" + (f" in field `{field}`" if field else "")
            + "; its name is kept as text, in lower case",
            Location(self.file, line),
            f"define it with `@string{{{name} = {{...}}}}` before its first use, or write the "
            f"text in braces: `{{{name}}}`",
            key=key, field=field,
        ))
        return name.lower()

    def expand(
        self, name: str, macro: str, size: int, line: int, key: str, field: str
    ) -> tuple[str, bool]:
        """Macro ``name``'s value for a value that holds ``size`` characters so far, within the
        limits: cut to :data:`MAX_VALUE_CHARS` (then ``True``), or the name itself once the
        file's expansion budget is spent. Nothing bigger than the limit is ever built."""
        n = len(macro)
        room = MAX_VALUE_CHARS - size
        if n > self.budget:
            if not self.budget_reported:
                self.budget_reported = True
                self.diagnostics.append(Diagnostic(
                    Code.INPUT_LIMIT,
                    f"macro `{name}` is not expanded: the @string macros of this file already "
                    f"expanded to the most text allowed for its size; from here on, a macro "
                    f"that does not fit keeps its name",
                    Location(self.file, line),
                    "macros built from each other with `#` (`a2 = a1 # a1`) double at each "
                    "step; write long values out, or use each long macro fewer times",
                    key=key, field=field,
                ))
            return name[: max(room, 0)], len(name) > room
        self.budget -= n
        if n <= room:
            return macro, False
        return macro[: max(room, 0)], True

    def cut(self, line: int, key: str, field: str) -> None:
        what = f"the value of field `{field}`" if field else "this @string value"
        self.diagnostics.append(Diagnostic(
            Code.INPUT_LIMIT,
            f"{what} grows past {MAX_VALUE_CHARS:,} characters through @string macros; "
            f"it is cut there",
            Location(self.file, line),
            "a macro joined with itself (`a2 = a1 # a1`) doubles at each step; write the "
            "value out, or check the @string definitions it uses",
            key=key, field=field,
        ))

    def concat(self, raw: str, line: int, key: str, field: str) -> str:
        """Expand a fast-path value with ``#`` (already known to be well-formed)."""
        macros = self.macros
        parts: list[str] = []
        size = 0
        for piece in _PIECE_RE.findall(raw):
            c = piece[0]
            if c in ("{", '"'):
                value = piece[1:-1]
            elif "0" <= c <= "9":
                value = piece
            else:
                macro = macros.get(piece.lower())
                if macro is None:
                    value = self.undefined(piece, line, key, field)
                else:
                    value, cut = self.expand(piece, macro, size, line, key, field)
                    if cut:
                        self.cut(line, key, field)
                        parts.append(value)  # the part that fits; a cut value takes no more
                        break
            parts.append(value)
            size += len(value)
        return _clean("".join(parts))

    def fast_entry(self, m: re.Match[str], start: int) -> int:
        """Build an entry matched whole by ``_FAST_ENTRY_RE`` (the common case)."""
        line = self.line_of(start)
        key = self.key = m.group(2)
        file = self.file
        macros = self.macros
        fields: list[Field] = []
        append = fields.append
        lowered = self.lowered
        fline = line
        for space, raw_name, first, rest in _FAST_FIELDS_RE.findall(m.group(3)):
            if space:
                fline += space.count("\n")
            name = lowered.get(raw_name)
            if name is None:
                name = lowered[raw_name] = raw_name.lower()
            c = first[0]
            if rest:
                value = self.concat(first + rest, fline, key, name)
            elif c in ("{", '"'):
                value = _clean(first[1:-1])
            elif "0" <= c <= "9":
                value = first
            else:
                macro = macros.get(first.lower())
                if macro is None:
                    macro = self.undefined(first, fline, key, name)
                elif len(macro) <= self.budget and len(macro) <= MAX_VALUE_CHARS:
                    self.budget -= len(macro)  # expand()'s common case, inline
                else:
                    macro, over = self.expand(first, macro, 0, fline, key, name)
                    if over:
                        self.cut(fline, key, name)
                value = macro.strip()
            append(Field(name, value, Location(file, fline)))
            if "\n" in first:  # a value wrapped over lines (the next field is further down)
                fline += first.count("\n")
        if len({f.name for f in fields}) != len(fields):
            fields = self.drop_duplicate_fields(key, fields)
        return self.finish(line, key, m.group(1).lower(), fields, m.end(), "}")

    def drop_duplicate_fields(self, key: str, fields: list[Field]) -> list[Field]:
        kept: dict[str, Field] = {}
        for f in fields:
            first = kept.get(f.name)
            if first is None:
                kept[f.name] = f
            else:
                self.duplicate_field(key, f.name, f.location.line, first.location.line)
        return list(kept.values())

    def duplicate_field(self, key: str, name: str, line: int, first: int) -> None:
        self.diagnostics.append(Diagnostic(
            Code.DUPLICATE_FIELD,
            f"field `{name}` is set twice in entry `{key}`; the first value is kept",
            Location(self.file, line),
            f"remove one of the two (the first is on line {first})",
            key=key, field=name,
        ))

    # -- commands ----------------------------------------------------------------------------

    def string(self, start: int, pos: int, close: str) -> int:
        text = self.text
        pos = self.skip_ws(pos)
        m = _NAME_RE.match(text, pos)
        if m is None:
            raise _SyntaxError(
                pos, "`@string` without a macro name",
                "write `@string{name = {value}}`",
            )
        name = m.group()
        pos = self.skip_ws(m.end())
        if not text.startswith("=", pos):
            raise _SyntaxError(
                pos, f"`@string` defining `{name}` has no `=`",
                f"write `@string{{{name} = {{value}}}}`",
            )
        value, pos = self.value(self.skip_ws(pos + 1), m.start(), close, "", "", strip=False)
        if not text.startswith(close, pos):
            raise _SyntaxError(
                pos, f"`@string{{{name} = ...}}` is not closed with `{close}`",
                f"a `@string` defines one macro; end it with `{close}`",
            )
        self.macros[name.lower()] = value
        self.strings.append((name, value))
        return pos + 1

    def preamble(self, start: int, pos: int, close: str) -> int:
        value, pos = self.value(self.skip_ws(pos), start, close, "", "")
        if not self.text.startswith(close, pos):
            raise _SyntaxError(
                pos, f"`@preamble` is not closed with `{close}`",
                f"end the preamble with `{close}`; join parts with `#`",
            )
        self.preambles.append(value)
        return pos + 1

    def entry(self, start: int, type_: str, pos: int, close: str) -> int:
        text = self.text
        m = (_KEY_IN_BRACES_RE if close == "}" else _KEY_RE).match(text, pos)
        assert m is not None  # every part of the pattern may match empty
        key = m.group(1)
        key_end = m.end(1)
        pos = m.end()
        nxt = text[pos] if pos < len(text) else ""
        if not key or nxt == "=":
            raise _SyntaxError(
                start,
                f"`@{type_}` entry has no citation key",
                f"write a key right after the opening `{text[m.start() - 1]}`: "
                f"`@{type_}{{somekey, ...`",
            )
        line = self.line_of(start)
        self.key = key
        self.entry_spans = []
        if nxt == close:
            return self.finish(line, key, type_.lower(), [], pos + 1, close)
        if nxt != ",":
            nm = _NAME_RE.match(text, pos)
            if nm is None or not text.startswith("=", self.skip_ws(nm.end())):
                found = f"`{nxt}`" if nxt else "the end of the file"
                raise _SyntaxError(
                    key_end,
                    f"expected `,` after the key `{key}`, found {found}",
                    "put a comma after the key; keys cannot contain spaces, `{`, `}` or `=`"
                    + (", nor parentheses in an entry written with `(`" if close == ")" else ""),
                )
            # a field follows: BibTeX and pybtex read on, and so does refbook (said at the key)
            self.recovered(
                key_end,
                f"missing `,` after the key `{key}` (field `{nm.group().lower()}` follows on "
                f"line {self.line_of(pos)}); the entry is read as if it were there",
                f"write `@{type_}{{{key},` — a comma ends the key")
        else:
            pos += 1
        fields: list[Field] = []
        names: dict[str, int] = {}
        text_len = len(text)
        while True:
            pos = self.skip_ws(pos)
            c = text[pos] if pos < text_len else ""
            if c == close:
                return self.finish(line, key, type_.lower(), fields, pos + 1, close)
            if c == ",":
                # a comma too many (`,,`, or `key,,`): BibTeX and pybtex skip it
                last = f" after field `{fields[-1].name}`" if fields else " after the key"
                self.recovered(pos, f"a `,` too many in entry `{key}`{last}; it is skipped",
                               "remove the extra comma")
                pos += 1
                continue
            nm = _NAME_RE.match(text, pos)
            if nm is None:
                if not c or c == "@":
                    # the entry is not closed before the next entry or the end of the file:
                    # pybtex keeps it, and so does refbook, with every field read
                    self.not_closed(pos, c, key, close)
                    return self.finish(line, key, type_.lower(), fields, pos, close)
                raise self.unexpected(pos, c, key, close, fields)
            name_pos = pos
            name = self.field = nm.group().lower()
            fline = self.line_of(name_pos)
            pos = self.skip_ws(nm.end())
            if not text.startswith("=", pos):
                raise _SyntaxError(
                    name_pos,
                    f"expected `=` after the field name `{nm.group()}` in entry `{key}`",
                    f"write `{nm.group()} = {{value}}`; if the previous field ends here, "
                    f"the entry may be missing a `{close}` or a `,`",
                )
            value_start = self.skip_ws(pos + 1)
            if text.startswith((",", close), value_start):
                # `name = ,`: no value at all; pybtex keeps the entry, refbook the other fields
                self.recovered(
                    name_pos,
                    f"field `{name}` has no value in entry `{key}`; it is left out",
                    f"write `{nm.group()} = {{value}}`, or remove the field")
                self.field = ""
                if text[value_start] == close:
                    return self.finish(line, key, type_.lower(), fields, value_start + 1, close)
                pos = value_start + 1
                continue
            value, pos = self.value(value_start, name_pos, close, key, name)
            sep = text[pos] if pos < text_len else ""
            unclosed = False
            if sep not in (",", close):
                follower = _NAME_RE.match(text, pos)
                if follower is not None and text.startswith("=", self.skip_ws(follower.end())):
                    # `name = value` follows: the comma between them is missing; read on
                    prev = pos - 1
                    while prev > 0 and text[prev].isspace():
                        prev -= 1
                    self.recovered(
                        prev,
                        f"missing `,` between field `{name}` (line {fline}) and field "
                        f"`{follower.group().lower()}` (line {self.line_of(pos)}) in entry "
                        f"`{key}`; the entry is read as if it were there",
                        f"add a comma after the value of `{name}`")
                elif sep in ("@", "") and _SWALLOWED_FIELD_RE.search(
                        text, value_start, pos) is None:
                    unclosed = True  # kept below, once this field is recorded
                else:
                    raise self.missing_comma(pos, sep, key, name, fline, close, value_start)
            else:
                pos += 1
            self.field = ""
            if name in names:
                self.duplicate_field(key, name, fline, names[name])
            else:
                names[name] = fline
                fields.append(Field(name, value, Location(self.file, fline)))
                if self.spans is not None:
                    self.entry_spans.append(
                        ValueSpan(key, name, fline, value_start, self.value_end))
            if sep == close:
                return self.finish(line, key, type_.lower(), fields, pos, close)
            if unclosed:
                self.not_closed(pos, sep, key, close)
                return self.finish(line, key, type_.lower(), fields, pos, close)

    def not_closed(self, pos: int, found: str, key: str, close: str) -> None:
        prev = pos - 1
        while prev > 0 and self.text[prev].isspace():
            prev -= 1
        self.field = ""
        self.recovered(
            prev,
            f"entry `{key}` is not closed: expected `{close}` before "
            f"{'the next `@`' if found else 'the end of the file'}; the entry is read up to "
            f"there",
            f"add `{close}` at the end of entry `{key}`")

    def recovered(self, pos: int, message: str, hint: str) -> None:
        """A syntax error read past as BibTeX and pybtex read past it: the entry is kept."""
        self.diagnostics.append(Diagnostic(
            Code.SYNTAX_RECOVERED, message, self.loc(pos), hint, key=self.key, field=self.field))

    def missing_comma(
        self, pos: int, found: str, key: str, field: str, line: int, close: str, value_start: int
    ) -> _SyntaxError:
        text = self.text
        nm = _NAME_RE.match(text, pos)
        after = self.skip_ws(nm.end()) if nm else pos
        if nm is not None and text.startswith("=", after):
            where = self.line_of(pos)
            prev = pos - 1
            while prev > 0 and text[prev].isspace():
                prev -= 1
            return _SyntaxError(
                prev,
                f"missing `,` between field `{field}` (line {line}) and field "
                f"`{nm.group().lower()}` (line {where}) in entry `{key}`",
                f"add a comma after the value of `{field}`",
            )
        if found == "@" or not found:
            swallowed = _SWALLOWED_FIELD_RE.search(text, value_start, pos)
            if swallowed is not None:
                # The value's own `}` is missing, so the entry's `}` closed the value instead.
                inner = self.line_of(swallowed.start(1))
                return _SyntaxError(
                    self.text.rfind("\n", 0, value_start) + 1,
                    f"unbalanced braces: the value of field `{field}` (line {line}) runs over "
                    f"field `{swallowed.group(1).lower()}` on line {inner} in entry `{key}`",
                    f"close the value of `{field}` with its `}}` before line {inner}",
                    resume=pos,
                )
            # Most likely the entry's closing delimiter is missing; report where it should be.
            prev = pos - 1
            while prev > 0 and text[prev].isspace():
                prev -= 1
            return _SyntaxError(
                prev,
                f"entry `{key}` is not closed: expected `,` or `{close}` after field "
                f"`{field}`, found {'`@`' if found else 'the end of the file'}",
                f"add `{close}` after the last field of `{key}`",
                resume=pos,
            )
        return _SyntaxError(
            pos,
            f"expected `,` or `{close}` after field `{field}` in entry `{key}`, found `{found}`",
            "separate fields with commas; a value with spaces or `#` must be in braces "
            "or quotes",
        )

    def unexpected(
        self, pos: int, char: str, key: str, close: str, fields: list[Field]
    ) -> _SyntaxError:
        if not char or char == "@":
            prev = pos - 1
            while prev > 0 and self.text[prev].isspace():
                prev -= 1
            return _SyntaxError(
                prev,
                f"entry `{key}` is not closed: expected `{close}` or another field, found "
                f"{'`@`' if char else 'the end of the file'}",
                f"add `{close}` at the end of entry `{key}`",
                resume=pos,
            )
        other = ")" if close == "}" else "}"
        if char == other:
            return _SyntaxError(
                pos,
                f"entry `{key}` opened with `{'{' if close == '}' else '('}` "
                f"is closed with `{char}`",
                f"close it with `{close}`",
            )
        last = f" after field `{fields[-1].name}`" if fields else ""
        return _SyntaxError(
            pos,
            f"unexpected `{char}` in entry `{key}`{last}: expected a field name or `{close}`",
            "each field is written `name = {value}` and separated from the next by a comma; "
            "check for a stray character or an extra `}` in the previous value",
        )

    def finish(
        self, line: int, key: str, type_: str, fields: list[Field], end: int, close: str
    ) -> int:
        """Record an entry (on ``line``); after a ``}`` too many that closed it early, reading
        goes on at the next line that starts with ``@``."""
        text = self.text
        stray = _STRAY_FIELD_RE.match(text, end)
        gap = text[end : stray.start(1)] if stray is not None else ""
        if stray is not None and ("," in gap or "\n" in gap):
            # as pybtex: the entry keeps the fields before the early `}`; what follows, up to
            # the next line that starts with `@`, is skipped (and said to be)
            name = stray.group(1)
            closed = self.line_of(end - 1)
            self.field = ""
            self.recovered(
                end - 1,
                f"entry `{key}` is closed on line {closed} but field `{name.lower()}` follows "
                f"on line {self.line_of(stray.start(1))}: a `{close}` too many closes the "
                f"entry early; the fields after it are lost",
                "check the braces of the last field before that line; every `{` needs one `}`")
            end = self.resume_after(stray.start(1), stray.start(1))
        first = self.seen_keys.get(key)
        if first is not None:
            self.diagnostics.append(Diagnostic(
                Code.DUPLICATE_KEY,
                f"duplicate key `{key}`: already defined on line {first}; this entry is ignored",
                Location(self.file, line),
                f"rename one of them, or delete this copy if it is the same work "
                f"(the first is at {self.file}:{first})",
                key=key,
            ))
            return end
        self.seen_keys[key] = line
        self.entries.append(Entry(key, type_, tuple(fields), Location(self.file, line)))
        if self.spans is not None:
            self.spans.extend(self.entry_spans)
        return end
