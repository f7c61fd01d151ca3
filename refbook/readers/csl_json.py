"""Read a CSL-JSON bibliography (as pandoc, Zotero or citeproc-js write it) into CSL items.

This reader sits beside ``refbook.readers.bibtex`` at the start of the flow, but skips the
BibTeX → CSL mapping (``refbook.bibtex_csl``): CSL-JSON already speaks the vocabulary of
``refbook.csl``. Rich text in string values uses citeproc-js' HTML-like markup (``<i>``, ``<b>``,
``<sup>``, ``<sub>``, ``<span style="font-variant:small-caps;">``, ``<span class="nocase">``);
it becomes the inline tree of ``refbook.ir``.
"""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING, Any

from refbook import csl, ir
from refbook.diagnostics import Code, Diagnostic
from refbook.models import MAX_DIGITS, Location

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["item_from_json", "markup_to_inlines", "read_csl_json"]

# Possessive, so that a ``<a`` followed by a long run without ``>`` fails in one pass: the
# attributes run to the next ``<`` or ``>`` (as the greedy form's only match did, trailing space
# and ``/`` included), never split in two ways.
_TAG = re.compile(r"<(/?)([a-zA-Z]++)((?:\s[^<>]*+)?+)(/?)>")

# Tag (with its attributes folded to a marker) → inline kind; None keeps the children only.
_SPAN_STYLES: dict[str, ir.StyleKind | None] = {
    "font-variant:small-caps;": "smallcaps",
    "font-variant:small-caps": "smallcaps",
    "font-style:italic;": "emph",
    "font-weight:bold;": "strong",
    "font-style:normal;": None,
    "font-weight:normal;": None,
    "font-variant:normal;": None,
    "baseline": None,
}
_SIMPLE_TAGS: dict[str, ir.StyleKind] = {
    "i": "emph",
    "em": "emph",
    "b": "strong",
    "strong": "strong",
    "sup": "sup",
    "sub": "sub",
    "sc": "smallcaps",
    "u": "underline",
    "code": "code",
}
_KINDS: dict[str, ir.StyleKind] = {
    k: k for k in ("emph", "strong", "smallcaps", "sup", "sub", "code", "nocase", "underline")
}
_ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos|nbsp);")
# A name starts only where a run of name characters starts (the lookbehind), so a long run
# that is no attribute is read once, not once per character.
_ATTR = re.compile(r"""(?<![a-zA-Z-])([a-zA-Z-]++)\s*+=\s*+(?:"([^"]*+)"|'([^']*+)')""")
#: How deep lists and objects may nest in one item (real items: four levels, a date's parts).
MAX_NESTING = 32

_DATE_VARIABLES = frozenset(
    {
        "accessed",
        "available-date",
        "event-date",
        "issued",
        "original-date",
        "submitted",
    }
)


def read_csl_json(text: str, file: str) -> tuple[tuple[csl.Item, ...], tuple[Diagnostic, ...]]:
    """Parse a CSL-JSON document (a list of items, or one item) into items and diagnostics.

    Items without an ``id`` are skipped and reported; everything else is kept as well as it can
    be read.
    """
    location = Location(file)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        diag = Diagnostic(
            Code.SYNTAX,
            f"not valid CSL-JSON: {exc.msg}",
            Location(file, exc.lineno),
        )
        return (), (diag,)
    except RecursionError:
        # json's decoder recurses once per ``[``/``{``; Python stops it near 1000 levels
        return (), (Diagnostic(
            Code.INPUT_LIMIT,
            "CSL-JSON nests lists or objects too deeply to be read; nothing of it is used",
            Location(file, 1),
            f"a CSL-JSON item needs a few levels (a date's parts); write items with at most "
            f"{MAX_NESTING}",
        ),)
    if isinstance(data, dict):
        data = data.get("items", [data]) if "id" not in data else [data]
    if not isinstance(data, list):
        return (), (Diagnostic(Code.SYNTAX, "CSL-JSON must be a list of items", location),)
    items: list[csl.Item] = []
    diags: list[Diagnostic] = []
    for n, raw in enumerate(data, 1):
        if not isinstance(raw, dict) or raw.get("id") in (None, ""):
            diags.append(
                Diagnostic(Code.SYNTAX, f"CSL-JSON item {n} has no id; it is skipped", location)
            )
            continue
        if _nesting(raw) > MAX_NESTING:
            # str() and the readers below recurse through nested values
            diags.append(Diagnostic(
                Code.INPUT_LIMIT,
                f"CSL-JSON item {n} nests lists or objects more than {MAX_NESTING} levels deep; "
                f"it is skipped",
                location,
                "a CSL-JSON item needs a few levels (a date's parts); check how it was written",
            ))
            continue
        deep = [k for k, v in raw.items()
                if isinstance(v, str) and _markup_depth(v) > MAX_NESTING]
        if deep:
            diags.append(Diagnostic(
                Code.INPUT_LIMIT,
                f"CSL-JSON item {raw['id']!r}: {', '.join(sorted(deep))} nests markup (<i>, <b>, "
                f"<span> …) more than {MAX_NESTING} levels deep; the deeper tags print as "
                "written",
                location,
                "a value needs a few levels of markup; check how it was written",
            ))
        items.append(item_from_json(raw))
    return tuple(items), tuple(diags)


def _markup_depth(value: str) -> int:
    """How deep the tags of a value's markup nest (opening less closing tags, at most)."""
    if "<" not in value:
        return 0
    depth = deepest = 0
    for m in _TAG.finditer(value):
        if m[4]:
            continue
        if m[1]:
            depth = max(depth - 1, 0)
        elif _open(m[2].lower(), m[3]) is not None:  # an unknown tag stays text: no level
            depth += 1
        deepest = max(deepest, depth)
    return deepest


def _nesting(value: object) -> int:
    """How deep lists and objects nest in ``value`` (without recursion; it may be deep)."""
    deepest = 0
    todo: list[tuple[object, int]] = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break
        todo.extend((c, depth + 1) for c in children)
    return deepest


def item_from_json(raw: Mapping[str, Any]) -> csl.Item:
    """One CSL-JSON object → :class:`refbook.csl.Item` (unknown shapes are read as text)."""
    text: list[tuple[str, ir.Inlines]] = []
    names: list[tuple[str, tuple[csl.Name, ...]]] = []
    dates: list[tuple[str, csl.Date]] = []
    language = ""
    note = raw.get("note")
    if isinstance(note, str) and ":" in note:
        raw = _with_note_fields(raw, note)
    for key, value in raw.items():
        if key in ("id", "type") or value is None:
            continue
        # Zotero's names of two short forms (citeproc-js reads them as the CSL variables)
        if key in _ALIASES:
            if _ALIASES[key] in raw:
                continue
            key = _ALIASES[key]
        if key == "language":
            language = str(value)
        if key in _DATE_VARIABLES or (isinstance(value, dict) and _looks_like_date(value)):
            date = _date(value)
            if date is not None:
                dates.append((key, date))
            continue
        if isinstance(value, list):
            if all(isinstance(v, dict) for v in value):
                names.append((key, _names(value)))
                continue
            value = ", ".join(str(v) for v in value)
        if isinstance(value, bool | dict):
            continue
        inlines = markup_to_inlines(str(value))
        if inlines:
            text.append((key, inlines))
    return csl.Item(
        id=str(raw["id"]),
        type=str(raw.get("type", "")),
        text=tuple(text),
        names=tuple(names),
        dates=tuple(dates),
        language=language,
    )


# Zotero's and citeproc-js' "cheater syntax": variables written at the start of ``note``, one a
# line (``event-date: 2004-10-01/2004-10-14``) or braced (``{:original-date: 1920}``); a name as
# ``family || given``. pandoc's engine reads them too (jgm/citeproc, ``parseNote``).
_NOTE_FIELD = re.compile(r"\{:((?:[^\W\d_]|-)++):([^}]*+)\}|((?:[^\W\d_]|-)++):([^\n]*+)(?:\n|\Z)")
_NAME_VARIABLES = frozenset((
    "author", "chair", "collection-editor", "composer", "compiler", "container-author",
    "contributor", "curator", "director", "editor", "editorial-director", "executive-producer",
    "guest", "host", "illustrator", "interviewer", "narrator", "original-author", "organizer",
    "performer", "producer", "recipient", "reviewed-author", "script-writer", "series-creator",
    "translator"))
_NOTE_TEXT_VARIABLES = frozenset((
    "chapter-number", "collection-number", "edition", "issue", "number", "number-of-pages",
    "number-of-volumes", "page", "page-first", "part-number", "printing-number", "section",
    "supplement-number", "version", "volume", "abstract", "annote", "archive",
    "archive_collection", "archive_location", "archive-place", "authority", "call-number",
    "citation-key", "citation-label", "collection-title", "container-title",
    "container-title-short", "dimensions", "division", "DOI", "event", "event-place",
    "event-title", "genre", "ISBN", "ISSN", "jurisdiction", "keyword", "language", "license",
    "medium", "original-publisher", "original-publisher-place", "original-title", "part-title",
    "PMID", "PMCID", "publisher", "publisher-place", "references", "reviewed-genre",
    "reviewed-title", "scale", "source", "status", "title", "title-short", "URL",
    "volume-title", "type"))


def _with_note_fields(raw: Mapping[str, Any], note: str) -> dict[str, Any]:
    """``raw`` with the variables written at the start of its note (they never replace a
    variable the item has) and the note's remaining text as its note."""
    fields: dict[str, Any] = {}
    pos = 0
    while (m := _NOTE_FIELD.match(note, pos)) is not None and m.end() > pos:
        name = m[1] or m[3]
        value = (m[2] if m[1] else m[4]).strip()
        pos = m.end()
        # names are case-insensitive; a name that is no CSL variable is read and dropped (as
        # pandoc does: nothing could print it)
        key = next((k for k in (name, name.lower()) if k in _DATE_VARIABLES
                    or k in _NAME_VARIABLES or k in _NOTE_TEXT_VARIABLES), None)
        if key is None:
            continue
        if key in _NAME_VARIABLES:
            family, _, given = value.partition("||")
            person = {"family": family.strip(), **({"given": given.strip()} if given else {})}
            fields.setdefault(key, []).append(person)
        else:
            fields.setdefault(key, value)
    if pos == 0:
        return dict(raw)
    out = {k: v for k, v in raw.items() if k != "note"}
    for k, v in fields.items():
        out.setdefault(k, v)
    rest = note[pos:].strip()
    if rest:
        out["note"] = rest
    return out


_GIVEN_SUFFIX = re.compile(r"([^,]+?)\s*,\s*(!?)\s*([^\s,a-z][^,]*)")


_ALIASES = {"journalAbbreviation": "container-title-short", "shortTitle": "title-short"}


_JOINED_PARTICLE = re.compile(r"([a-z]+['\u2019-])(\w.*)")


def _lower_word(w: str) -> bool:
    """A word of a particle: it starts in lower case, after any apostrophe ('t, ’s)."""
    return w.lstrip("'\u2019")[:1].islower()


def _particles(family: str, given: str, ndp: str, dp: str) -> tuple[str, str, str, str]:
    """Particles written into the name parts, read as citeproc-js reads them: lower-case words
    that start the family name ("van Gogh", "al-One", "d'Aubignac") are its non-dropping
    particle, lower-case words that end the given name ("Alexander von") its dropping
    particle. A family name in double quotes is taken as it is, quotes removed."""
    if len(family) > 1 and family[0] == family[-1] == '"':
        return family[1:-1], given, ndp, dp
    if not ndp and family:
        words = family.split(" ")
        i = 0
        # ("de' Frinkle": a particle ending in an apostrophe and then a space stays with the
        # family name, where the space is kept)
        while (i < len(words) - 1 and _lower_word(words[i])
               and words[i][-1:] not in ("'", "\u2019")):
            i += 1
        if i:
            ndp, family = " ".join(words[:i]), " ".join(words[i:])
        else:
            m = _JOINED_PARTICLE.fullmatch(family)
            if m is not None and m[2][:1].isupper():
                ndp, family = m[1], m[2]
    if not dp and given:
        words = given.split(" ")
        j = len(words)
        while j > 1 and _lower_word(words[j - 1]):
            j -= 1
        if j < len(words):
            given, dp = " ".join(words[:j]), " ".join(words[j:])
    return family, given, ndp, dp


def _apostrophes(part: str) -> str:
    """A straight apostrophe in a name part (d'Alembert, Shun'ichi) is a typographic one."""
    return part.replace("'", _APOSTROPHE) if "'" in part else part


def _looks_like_date(value: Mapping[str, Any]) -> bool:
    return any(k in value for k in ("date-parts", "raw", "literal", "season", "circa"))


def _names(values: list[Any]) -> tuple[csl.Name, ...]:
    out: list[csl.Name] = []
    last = len(values) - 1
    for i, v in enumerate(values):
        literal = str(v.get("literal", "") or "")
        if i == last and i > 0 and literal == "others":
            out.append(csl.Name(others=True))
            continue
        given = str(v.get("given", "") or "")
        suffix = str(v.get("suffix", "") or "")
        comma = bool(v.get("comma-suffix"))
        m = _GIVEN_SUFFIX.fullmatch(given) if not suffix and "," in given else None
        if m is not None:
            # citeproc-js' convention: "John, III" is a given name and a suffix, "John,! Jr."
            # one whose suffix keeps its comma (a lower-case tail, "abbé d'", is no suffix)
            given, comma, suffix = m[1], bool(m[2]), m[3]
        family = str(v.get("family", "") or "")
        ndp = str(v.get("non-dropping-particle", "") or "")
        dp = str(v.get("dropping-particle", "") or "")
        if v.get("parse-names") not in (False, "false"):
            family, given, ndp, dp = _particles(family, given, ndp, dp)
        out.append(
            csl.Name(
                family=_apostrophes(family),
                given=_apostrophes(given),
                non_dropping_particle=_apostrophes(ndp),
                dropping_particle=_apostrophes(dp),
                suffix=suffix,
                comma_suffix=comma,
                literal=literal,
            )
        )
    return tuple(out)


def _int(value: Any) -> int:
    text = str(value).strip()
    if len(text) > MAX_DIGITS + 1:
        return 0  # not a date part (and int() would refuse 4300 digits)
    try:
        return int(text)
    except ValueError:
        return 0


def _part(parts: Any) -> csl.DatePart | None:
    if not isinstance(parts, list) or not parts:
        return None
    parts = [p for p in parts if p != ""]
    if not parts:
        return None
    nums = [_int(p) for p in parts[:3]]
    while len(nums) < 3:
        nums.append(0)
    month = nums[1]
    if 17 <= month <= 24:  # 13-16 are the seasons; citeproc-js reads 17-24 as them again
        month = 13 + (month - 13) % 4
    elif not 0 <= month <= 16:  # no month at all (and then no day)
        month, nums[2] = 0, 0
    return csl.DatePart(nums[0], month, nums[2])


_RAW_DATE = re.compile(r"^\s*(-?\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$")


def _raw_part(text: str) -> csl.DatePart | None:
    m = _RAW_DATE.match(text)
    if m is None:
        return None
    return csl.DatePart(int(m[1]), int(m[2] or 0), int(m[3] or 0))


def _date(value: Any) -> csl.Date | None:
    if isinstance(value, str | int):
        value = {"raw": str(value)}
    if not isinstance(value, dict):
        return None
    circa = bool(value.get("circa"))
    season = _int(value.get("season", 0))
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts:
        start = _part(parts[0])
        end = _part(parts[1]) if len(parts) > 1 else None
        if start is not None:
            if season and not start.month:
                start = csl.DatePart(start.year, 12 + season, start.day)
            return csl.Date(start=start, end=end, circa=circa)
    raw = value.get("raw")
    if isinstance(raw, str) and raw.strip():
        pieces = raw.split("/")
        start = _raw_part(pieces[0])
        end = _raw_part(pieces[1]) if len(pieces) == 2 else None
        if start is not None and (len(pieces) == 1 or end is not None):
            return csl.Date(start=start, end=end, circa=circa)
        return csl.Date(literal=raw.strip(), circa=circa)
    literal = value.get("literal")
    if isinstance(literal, str) and literal.strip():
        return csl.Date(literal=literal.strip(), circa=circa)
    return None


def markup_to_inlines(value: str) -> ir.Inlines:
    """citeproc-js' HTML-like markup → inline tree; unknown tags are kept as text. Straight
    quotes become quoted text and apostrophes typographic ones (:func:`smart_quotes`)."""
    inl = _markup(value)
    if any(q in value for q in _QUOTE_CHARS):
        inl = smart_quotes(inl)
    if _FRENCH_SPACE.search(value):
        inl = _french_spaces(inl)
    return inl


# French typography in a field value: the space inside guillemets and before ? ! ; becomes a
# narrow no-break space (U+202F), as pandoc's engine and citeproc-js read CSL-JSON values.
_FRENCH_SPACE = re.compile(r"« | »| (?=[?!;])")


def _french_spaces(inl: ir.Inlines) -> ir.Inlines:
    out: list[ir.Inline] = []
    for n in inl:
        if isinstance(n, ir.Text):
            out.append(ir.Text(_FRENCH_SPACE.sub(lambda m: m[0].replace(" ", "\u202f"), n.text)))
        elif isinstance(n, ir.Styled) and n.kind == "code":
            out.append(n)
        else:
            out.append(_rebuild_inline(n, _french_spaces(n.children)))
    return tuple(out)


def _markup(value: str) -> ir.Inlines:
    if "<" not in value:
        out: list[ir.Inline] = []
        _add_text(out, value)
        return tuple(out)
    # Each stack frame: (tag name, kind or None for "children only", url, children).
    stack: list[tuple[str, str | None, str, list[ir.Inline]]] = [("", None, "", [])]
    pos = 0
    for m in _TAG.finditer(value):
        _add_text(stack[-1][3], value[pos : m.start()])
        pos = m.end()
        closing, tag, attrs, selfclosing = m[1], m[2].lower(), m[3], m[4]
        if selfclosing:
            _add_text(stack[-1][3], m[0])
            continue
        if closing:
            if len(stack) > 1 and stack[-1][0] == tag:
                _close(stack)
            else:
                _add_text(stack[-1][3], m[0])
            continue
        opened = _open(tag, attrs) if len(stack) <= MAX_NESTING else None
        if opened is None:  # unknown, or nested past MAX_NESTING: printed as written
            _add_text(stack[-1][3], m[0])
            continue
        kind, url = opened
        stack.append((tag, kind, url, []))
    _add_text(stack[-1][3], value[pos:])
    while len(stack) > 1:
        _close(stack)
    return tuple(stack[0][3])


def _open(tag: str, attrs: str) -> tuple[str | None, str] | None:
    if tag in _SIMPLE_TAGS:
        return _SIMPLE_TAGS[tag], ""
    found = {m[1].lower(): (m[2] if m[2] is not None else m[3]) for m in _ATTR.finditer(attrs)}
    if tag == "a":
        return "link", html.unescape(found.get("href", ""))
    if tag == "span":
        if found.get("class") == "nocase":
            return "nocase", ""
        if found.get("class") == "nodecor":
            # kept as a span (pandoc's "nodecoration"): text in normal font inside italics or
            # small caps, untouched by text-case
            return "nodecor", ""
        style = found.get("style", "").replace(" ", "")
        if style in _SPAN_STYLES:
            return _SPAN_STYLES[style], ""
        return None, ""
    return None


def _close(stack: list[tuple[str, str | None, str, list[ir.Inline]]]) -> None:
    _tag, kind, url, children = stack.pop()
    parent = stack[-1][3]
    kids = tuple(children)
    if kind is None:
        parent.extend(kids)
    elif kind == "link":
        parent.append(ir.Link(url, kids))
    elif kind == "nodecor":
        if kids:
            parent.append(ir.Span("nodecor", kids))
    elif kids:
        parent.append(ir.Styled(_KINDS[kind], kids))


def _add_text(out: list[ir.Inline], text: str) -> None:
    if not text:
        return
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m[0]), text)
    if out and isinstance(out[-1], ir.Text):
        out[-1] = ir.Text(out[-1].text + text)
    else:
        out.append(ir.Text(text))


# ---------------------------------------------------------------- quotes in field values

_QUOTE_CHARS = "\"'“”‘’"
_APOSTROPHE = "’"


class _Open:
    """A quote mark that opened quoted text (and may turn out to have no closing mark)."""

    __slots__ = ("char", "children", "parent")

    def __init__(self, char: str, parent: list[object]) -> None:
        self.char = char
        self.parent = parent
        self.children: list[object] = []


def _closes(char: str, opener: str) -> bool:
    if char == '"':
        return opener in ('"', "“")
    if char == "”":
        return opener in ('"', "“")
    if char in ("'", "’"):
        return opener in ("'", "‘")
    return False


def smart_quotes(inl: ir.Inlines) -> ir.Inlines:
    """Quoted text in a field value as citeproc reads it: a pair of straight (or curly) quotes
    around words becomes a ``quoted`` node, so the style's locale writes its own marks and
    nested quotes alternate (“…‘…’…”); an apostrophe (in a word, or a mark that closes nothing)
    becomes ’. A mark that opens and never closes stays as it was written."""
    # one level of the tree at a time: quotes pair up among siblings, formatted children are
    # treated as words
    root: list[object] = []
    stack: list[_Open] = []
    chars: list[str] = []  # the text seen so far at this level, to look one character back

    def target() -> list[object]:
        return stack[-1].children if stack else root

    def prev_char() -> str:
        return chars[-1] if chars else " "

    pieces: list[object] = []
    for n in inl:
        if isinstance(n, ir.Text):
            pieces.extend(n.text)
        else:
            pieces.append(n)
    last_closer = _last_closer(pieces)
    for i, p in enumerate(pieces):
        if not isinstance(p, str):
            assert isinstance(p, ir.Styled | ir.Link | ir.Span)
            kids = smart_quotes(p.children) if not (
                isinstance(p, ir.Styled) and p.kind == "code") else p.children
            target().append(_rebuild_inline(p, kids))
            chars.append("a")
            continue
        nxt = pieces[i + 1] if i + 1 < len(pieces) else " "
        nxt_c = nxt if isinstance(nxt, str) else "a"
        before = prev_char()
        if p in _QUOTE_CHARS:
            word_before = before.isalnum() or before in ".,!?;:)]" or before in _QUOTE_CHARS
            if stack and (p in ('"', "”") or (p in ("'", "’")
                          and not (before.isalnum() and nxt_c.isalnum()))) \
                    and _closes(p, stack[-1].char) and not before.isspace():
                done = stack.pop()
                target().append(ir.Styled("quoted", _texts(done.children)))
                chars.append(p)
                continue
            if p in ("'", "’") and (before.isalnum() or nxt_c.isspace()
                                          or last_closer <= i):
                target().append(_APOSTROPHE)
                chars.append(_APOSTROPHE)
                continue
            if p in ('"', "“", "'", "‘") and not nxt_c.isspace() and (
                    not word_before or p in ("“", "‘")):
                stack.append(_Open(p, target()))
                chars.append(p)
                continue
            if p == "'":  # a mark that neither opens nor closes: an apostrophe
                p = _APOSTROPHE
        target().append(p)
        chars.append(p)
    # marks that never closed are text again; each holds what followed it up to the next
    # one, so the levels are laid out in order (once each: popping them one into another
    # would copy the deepest level again at every level)
    for level in stack:
        root.append(level.char)
        root.extend(level.children)
    return _texts(root)


def _last_closer(pieces: list[object]) -> int:
    """The position of the last single quote mark at this level that could close quoted text
    (-1: none), found in one pass: a mark at ``i`` opens only if one comes after it."""
    found = -1
    for j, p in enumerate(pieces):
        if p in ("'", "’"):
            before = pieces[j - 1] if j > 0 else " "
            after = pieces[j + 1] if j + 1 < len(pieces) else " "
            b = before if isinstance(before, str) else "a"
            a = after if isinstance(after, str) else " "
            if not b.isspace() and not (b.isalnum() and a.isalnum()):
                found = j
    return found


def _texts(parts: list[object]) -> ir.Inlines:
    out: list[ir.Inline] = []
    run: list[str] = []  # characters joined once (adding them one by one is quadratic)
    for p in parts:
        if isinstance(p, str):
            run.append(p)
            continue
        if run:
            out.append(ir.Text("".join(run)))
            run = []
        assert isinstance(p, ir.Text | ir.Styled | ir.Link | ir.Span)
        out.append(p)
    if run:
        out.append(ir.Text("".join(run)))
    return tuple(out)


def _rebuild_inline(n: ir.Inline, children: ir.Inlines) -> ir.Inline:
    if isinstance(n, ir.Styled):
        return ir.Styled(n.kind, children)
    if isinstance(n, ir.Link):
        return ir.Link(n.url, children)
    if isinstance(n, ir.Span):
        return ir.Span(n.role, children, n.key)
    return n
