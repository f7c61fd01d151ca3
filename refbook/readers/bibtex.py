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
  macros ``jan``..``dec`` are predefined as in ``plain.bst``; an undefined macro keeps its name;
  runs of white space are collapsed to one space and field values are stripped, as BibTeX does
  (a macro keeps its own leading space); braces and commands are kept.
"""

from __future__ import annotations

import contextlib
import gc
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic
from refbook.models import Entry, Field, Location

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

__all__ = ["MONTH_MACROS", "ParseResult", "ValueSpan", "parse_bibtex", "parse_with_spans", "paused_gc"]

#: The macros every BibTeX style defines (``plain.bst``); ``@string`` may redefine them.
MONTH_MACROS: Mapping[str, str] = {
    "jan": "January", "feb": "February", "mar": "March", "apr": "April",
    "may": "May", "jun": "June", "jul": "July", "aug": "August",
    "sep": "September", "oct": "October", "nov": "November", "dec": "December",
}


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What one ``.bib`` text holds, in source order.

    ``strings`` are this text's ``@string`` definitions (name as written, expanded value);
    ``preambles`` the expanded ``@preamble`` values. Entries with a syntax error are absent and
    reported in ``diagnostics``.
    """

    entries: tuple[Entry, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    strings: tuple[tuple[str, str], ...] = ()
    preambles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
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
_NAME_RE = re.compile(_ID)
_NUMBER_RE = re.compile(r"[0-9]+(?![^\s\"#%'(),={}@])")
_BRACE_RE = re.compile(r"[{}]")
_QUOTE_RE = re.compile(r'["{}]')
_SPACE_RUN_RE = re.compile(r"\s+")
_LINE_START_AT_RE = re.compile(r"^[ \t]*@", re.MULTILINE)
# A line that starts an entry; inside a value it means the value's braces are unbalanced.
_ENTRY_LINE_RE = re.compile(rf"\n[ \t]*(@[ \t]*{_ID}[ \t]*[{{(])")
# A field inside a multi-line value: the value is missing its closing brace.
_SWALLOWED_FIELD_RE = re.compile(rf"[,}}][ \t]*\n[ \t]*({_ID})[ \t]*=")
# After an entry closed: more ``name =`` means a ``}`` too many closed the entry early.
_STRAY_FIELD_RE = re.compile(rf"{_WS},?{_WS}({_ID})[ \t]*=")
# The fast path reads a whole entry whose fields are `` name = value`` on one line each (values
# with up to three levels of braces, ``"..."``, numbers, macros, ``#``) with two C-level calls:
# one match for the entry, one ``findall`` for its fields.
_L3 = r"\{[^{}\n]*+\}"
_L2 = rf"\{{(?:[^{{}}\n]++|{_L3})*+\}}"
_BRACED = rf"\{{(?:[^{{}}\n]++|{_L2})*+\}}"
_QUOTED = rf'"(?:[^"{{}}\n]++|{_L2})*+"'
_MACRO = r"""[^\s"#%'(),={}@0-9][^\s"#%'(),={}@]*+"""
_PIECE = rf"""(?:{_BRACED}|{_QUOTED}|[0-9]++(?![^\s"#%'(),={{}}@])|{_MACRO})"""


def _field_pattern(capture: bool) -> str:
    """`` name = piece # piece``; captured: (newline before it, name, first piece, the rest)."""
    g = "(" if capture else "(?:"
    return (
        rf"[ \t]*+{g}\n?)[ \t]*+{g}{_ID})[ \t]*+=[ \t]*+{g}{_PIECE})"
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


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects that all stay alive.

    A parse (or a cache load) allocates two or three objects per field and frees none. With the
    collector running, CPython rescans the growing young generations again and again (as long
    as the parse itself on a 20,000-entry file); even after a pause, the first collection would
    scan them all once more. So on the way out the new objects go straight to the oldest
    generation (``freeze`` + ``unfreeze``), unless the program froze objects itself, which we
    must not undo. Nested use is fine; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


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
                if fm is not None and fm.group(1).lower() not in _SPECIAL and self.spans is None:
                    pos = self.fast_entry(fm, start)
                else:
                    pos = self.command(start)
            except _SyntaxError as err:
                self.diagnostics.append(Diagnostic(
                    Code.SYNTAX, err.message, self.loc(err.pos), err.hint,
                    key=self.key, field=self.field,
                ))
                pos = self.resume_after(err.pos if err.resume is None else err.resume, start)
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
        """End of a balanced ``@comment`` body starting after its opener (``None``: unclosed)."""
        text = self.text
        if close == "}":
            end = self._brace_close(pos)
            return None if end is None else end + 1
        depth = 0
        for i in range(pos, len(text)):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == ")" and depth <= 0:
                return i + 1
        return None

    # -- values ------------------------------------------------------------------------------

    def _brace_close(self, pos: int) -> int | None:
        """Index of the ``}`` that closes the group opened just before ``pos``."""
        text = self.text
        depth = 1
        search = _BRACE_RE.search
        while True:
            m = search(text, pos)
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
        while True:
            c = text[pos] if pos < len(text) else ""
            if c == "{":
                end = self._brace_close(pos + 1)
                self.check_runaway(pos, end, name_pos, field, "{")
                assert end is not None
                parts.append(text[pos + 1 : end])
                pos = end + 1
            elif c == '"':
                end = self._quote_close(pos + 1, field)
                self.check_runaway(pos, end, name_pos, field, '"')
                assert end is not None
                parts.append(text[pos + 1 : end])
                pos = end + 1
            else:
                m = _NUMBER_RE.match(text, pos)
                if m is not None:
                    parts.append(m.group())
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
                    parts.append(macro)
                    pos = m.end()
            self.value_end = pos
            pos = self.skip_ws(pos)
            if pos < len(text) and text[pos] == "#":
                pos = self.skip_ws(pos + 1)
                continue
            joined = "".join(parts)
            return (_clean(joined) if strip else _collapse(joined)), pos

    def _quote_close(self, pos: int, field: str) -> int | None:
        """Index of the ``"`` that ends a quoted value (a ``"`` inside braces does not)."""
        text = self.text
        depth = 0
        search = _QUOTE_RE.search
        while True:
            m = search(text, pos)
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

    def check_runaway(
        self, start: int, end: int | None, name_pos: int, field: str, opener: str
    ) -> None:
        """Report a value that runs into the next entry (or to the end of the file)."""
        text = self.text
        limit = len(text) if end is None else end
        if end is not None and text.find("\n", start, limit) < 0:
            return
        m = _ENTRY_LINE_RE.search(text, start, limit)
        if m is None and end is not None:
            return
        closer = "}" if opener == "{" else '"'
        line = self.line_of(name_pos)
        what = f"the value of field `{field}`" if field else "the value"
        if m is not None:
            stop = self.line_of(m.start(1))
            message = (f"unbalanced braces: {what} opened on line {line} is not closed "
                       f"before the entry on line {stop}")
            resume = m.start(1)
        else:
            message = f"unbalanced braces: {what} opened on line {line} is never closed"
            resume = len(text)
        raise _SyntaxError(
            name_pos, message,
            f"add the missing `{closer}` at the end of the value (or remove a stray `{{` in it)",
            resume,
        )

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
        """Report an undefined macro; BibTeX then uses an empty string, we keep its name."""
        self.diagnostics.append(Diagnostic(
            Code.UNDEFINED_STRING,
            f"undefined macro `{name}`" + (f" in field `{field}`" if field else "")
            + "; its name is kept as text",
            Location(self.file, line),
            f"define it with `@string{{{name} = {{...}}}}` before its first use, or write the "
            f"text in braces: `{{{name}}}`",
            key=key, field=field,
        ))
        return name

    def concat(self, raw: str, line: int, key: str, field: str) -> str:
        """Expand a fast-path value with ``#`` (already known to be well-formed)."""
        macros = self.macros
        parts: list[str] = []
        for piece in _PIECE_RE.findall(raw):
            c = piece[0]
            if c in ("{", '"'):
                parts.append(piece[1:-1])
            elif "0" <= c <= "9":
                parts.append(piece)
            else:
                value = macros.get(piece.lower())
                parts.append(self.undefined(piece, line, key, field) if value is None else value)
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
        for nl, raw_name, first, rest in _FAST_FIELDS_RE.findall(m.group(3)):
            if nl:
                fline += 1
            name = lowered.get(raw_name)
            if name is None:
                name = lowered[raw_name] = raw_name.lower()
            c = first[0]
            if rest:
                value = self.concat(first + rest, fline, key, name)
            elif c in ("{", '"'):
                value = first[1:-1].strip()
                if "  " in value or "\t" in value:
                    value = _clean(value)
            elif "0" <= c <= "9":
                value = first
            else:
                macro = macros.get(first.lower())
                if macro is None:
                    macro = self.undefined(first, fline, key, name)
                value = macro.strip()
            append(Field(name, value, Location(file, fline)))
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
        m = _KEY_RE.match(text, pos)
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
            if nm is not None and text.startswith("=", self.skip_ws(nm.end())):
                raise _SyntaxError(
                    key_end,
                    f"missing `,` after the key `{key}` (field `{nm.group().lower()}` follows "
                    f"on line {self.line_of(pos)})",
                    f"write `@{type_}{{{key},` — a comma ends the key",
                )
            found = f"`{nxt}`" if nxt else "the end of the file"
            raise _SyntaxError(
                key_end,
                f"expected `,` after the key `{key}`, found {found}",
                "put a comma after the key; keys cannot contain spaces, `{`, `}` or `=`",
            )
        pos += 1
        fields: list[Field] = []
        names: dict[str, int] = {}
        text_len = len(text)
        while True:
            pos = self.skip_ws(pos)
            c = text[pos] if pos < text_len else ""
            if c == close:
                return self.finish(line, key, type_.lower(), fields, pos + 1, close)
            nm = _NAME_RE.match(text, pos)
            if nm is None:
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
            value, pos = self.value(value_start, name_pos, close, key, name)
            sep = text[pos] if pos < text_len else ""
            if sep not in (",", close):
                raise self.missing_comma(pos, sep, key, name, fline, close, value_start)
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
        """Record a complete entry (on ``line``) unless a ``}`` too many closed it early."""
        text = self.text
        stray = _STRAY_FIELD_RE.match(text, end)
        gap = text[end : stray.start(1)] if stray is not None else ""
        if stray is not None and ("," in gap or "\n" in gap):
            name = stray.group(1)
            closed = self.line_of(end - 1)
            raise _SyntaxError(
                end - 1,
                f"entry `{key}` is closed on line {closed} but field `{name.lower()}` follows "
                f"on line {self.line_of(stray.start(1))}: a `{close}` too many closes the "
                f"entry early",
                "check the braces of the last field before that line; every `{` needs one `}`",
                resume=stray.start(1),
            )
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
