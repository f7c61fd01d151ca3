"""The CSL engine's output tree and its rendering into the inline IR.

Evaluation (``engine``) builds a tree of :class:`Lit`, :class:`Fmt`, :class:`Tag` and
:class:`Linked` nodes; :func:`render` turns it into :mod:`refbook.ir` inlines, applying CSL
formatting (affixes, delimiters, fonts, quotes, text case) and the punctuation rules that
citeproc processors apply when pieces meet (no ``..``, no ``?.``, periods moved inside quotes).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from typing import Any, TypeAlias

from refbook.casing import (
    AFTER_WORD_END,
    BEFORE_LAST,
    START,
    START_SENTENCE,
    TRANSFORMS,
    CaseState,
    is_word_break,
)
from refbook.ir import Inline, Inlines, Link, Span, Styled, Text
from refbook.records import field, fields, record, replace

# ---------------------------------------------------------------- output tree


@record(frozen=True)
class Formatting:
    prefix: str | None = None
    suffix: str | None = None
    delimiter: str | None = None
    font_style: str | None = None
    font_variant: str | None = None
    font_weight: str | None = None
    text_decoration: str | None = None
    vertical_align: str | None = None
    text_case: str | None = None
    quotes: bool = False
    strip_periods: bool = False
    display: str | None = None
    affixes_inside: bool = False

    def merge(self, other: Formatting) -> Formatting:
        """``self <> other`` as citeproc does: values set in ``other`` win."""
        changes = {
            k: getattr(other, k)
            for k in FORMATTING_FIELDS
            if getattr(other, k) not in (None, False)
        }
        return replace(self, **changes) if changes else self


NO_FORMAT = Formatting()
#: the fields of :class:`Formatting`, in order
FORMATTING_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Formatting))


@record()
class Lit:
    inl: Inlines


@record()
class Fmt:
    f: Formatting
    kids: list[Out] = field(default_factory=list)


@record()
class Tag:
    """A tagged subtree. ``kind``: item, names, name, date, title, term, locator, year-suffix,
    prefix, suffix. ``data`` carries the tag's payload (item id, name list, …)."""

    kind: str
    kid: Out
    data: Any = None


@record()
class Linked:
    url: str
    kids: list[Out]


Out: TypeAlias = Lit | Fmt | Tag | Linked | None


def lit(text: str) -> Lit:
    return Lit((Text(text),) if text else ())


def formatted(f: Formatting, kids: list[Out]) -> Out:
    ks: list[Out] = [k for k in kids if k is not None]
    if not ks:
        return None
    return Fmt(f, ks)


def grouped(kids: list[Out]) -> Out:
    return formatted(NO_FORMAT, kids)


def universe(o: Out) -> list[Out]:
    """All nodes of a tree, parents first (citeproc's ``universe``)."""
    out: list[Out] = []
    stack: list[Out] = [o]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        out.append(n)
        if isinstance(n, (Fmt, Linked)):
            stack.extend(reversed(n.kids))
        elif isinstance(n, Tag):
            stack.append(n.kid)
    return out


def out_text(o: Out) -> str:
    """Plain text of a tree, words of nested parts joined by spaces (for comparing cites)."""
    if o is None:
        return ""
    if isinstance(o, Lit):
        return stringify(o.inl)
    if isinstance(o, Tag):
        return out_text(o.kid)
    return " ".join(out_text(k) for k in o.kids)


# ---------------------------------------------------------------- inline helpers


def stringify(inl: Inlines) -> str:
    """Text used for punctuation decisions: quotes of ``quoted`` nodes are not yet there."""
    parts: list[str] = []
    _stringify(inl, parts)
    return "".join(parts)


def _stringify(inl: Inlines, parts: list[str]) -> None:
    for n in inl:
        if isinstance(n, Text):
            parts.append(n.text)
        else:
            _stringify(n.children, parts)


def first_char(inl: Inlines) -> str:
    """``stringify(inl)[:1]`` without building the whole text."""
    for n in inl:
        if isinstance(n, Text):
            if n.text:
                return n.text[0]
        else:
            c = first_char(n.children)
            if c:
                return c
    return ""


def last_char(inl: Inlines) -> str:
    """``stringify(inl)[-1:]`` without building the whole text."""
    for n in reversed(inl):
        if isinstance(n, Text):
            if n.text:
                return n.text[-1]
        else:
            c = last_char(n.children)
            if c:
                return c
    return ""


def _rebuild(n: Inline, children: Inlines) -> Inline:
    if isinstance(n, Styled):
        return Styled(n.kind, children)
    if isinstance(n, Link):
        return Link(n.url, children)
    assert isinstance(n, Span)
    return Span(n.role, children, n.key)


def concat(parts: list[Inlines]) -> Inlines:
    """Concatenate inline sequences, merging adjacent text nodes."""
    if len(parts) == 1:
        # most calls join one part (a node with one rendered child) that is already merged:
        # given back as it is, not copied
        p = parts[0]
        after_text = False
        for n in p:
            if type(n) is Text:
                if after_text or not n.text:
                    break
                after_text = True
            else:
                after_text = False
        else:
            return p if type(p) is tuple else tuple(p)
    out: list[Inline] = []
    last: Text | None = None  # the last node of ``out`` when it is a text
    for p in parts:
        for n in p:
            if type(n) is Text:
                if not n.text:
                    continue
                if last is not None:
                    last = out[-1] = Text(last.text + n.text)
                    continue
                last = n
            else:
                last = None
            out.append(n)
    return tuple(out)


def drop_start(inl: Inlines, pred: str | Callable[[str], bool]) -> Inlines:
    """Drop leading characters satisfying ``pred`` (descending into markup)."""
    test: Callable[[str], bool] = pred if callable(pred) else (lambda c: c == pred)
    return _drop_start(inl, test, [True])


# the walks are module functions, not closures calling themselves: such a closure is a reference
# cycle, left to the collector (paused while the validation rules render thousands of entries)
def _drop_start(nodes: Inlines, test: Callable[[str], bool], state: list[bool]) -> Inlines:
    res: list[Inline] = []
    for n in nodes:
        if not state[0]:
            res.append(n)
        elif isinstance(n, Text):
            t = n.text
            i = 0
            while i < len(t) and test(t[i]):
                i += 1
            if i < len(t):
                state[0] = False
            if t[i:]:
                res.append(Text(t[i:]))
        else:
            res.append(_rebuild(n, _drop_start(n.children, test, state)))
    return tuple(res)


def drop_end(inl: Inlines, pred: str | Callable[[str], bool]) -> Inlines:
    test: Callable[[str], bool] = pred if callable(pred) else (lambda c: c == pred)
    return _drop_end(inl, test, [True])


def _drop_end(nodes: Inlines, test: Callable[[str], bool], state: list[bool]) -> Inlines:
    res: list[Inline] = []
    for n in reversed(nodes):
        if not state[0]:
            res.append(n)
        elif isinstance(n, Text):
            t = n.text
            j = len(t)
            while j > 0 and test(t[j - 1]):
                j -= 1
            if j > 0:
                state[0] = False
            if t[:j]:
                res.append(Text(t[:j]))
        else:
            res.append(_rebuild(n, _drop_end(n.children, test, state)))
    return tuple(reversed(res))


def map_first_text(inl: Inlines, f: Callable[[str], str]) -> Inlines:
    """``inl`` with ``f`` applied to its first non-empty text."""
    out = list(inl)
    for i, n in enumerate(out):
        if isinstance(n, Text):
            if n.text:
                out[i] = Text(f(n.text))
                return tuple(out)
        elif n.children:
            out[i] = _rebuild(n, map_first_text(n.children, f))
            return tuple(out)
    return tuple(out)


def map_text(inl: Inlines, f: Callable[[str], str]) -> Inlines:
    fn = f
    out: list[Inline] = []
    for n in inl:
        if isinstance(n, Text):
            out.append(Text(fn(n.text)))
        else:
            out.append(_rebuild(n, map_text(n.children, f)))
    return tuple(out)


# ---------------------------------------------------------------- punctuation

_KEEP_FIRST = "F"
_KEEP_SECOND = "S"
# What to do when a piece ending in X meets a piece starting with Y (citeproc-js's table).
_PUNCT: dict[tuple[str, str], str] = {
    ("!", "."): _KEEP_FIRST, ("!", ":"): _KEEP_FIRST,
    ("?", "."): _KEEP_FIRST, ("?", ":"): _KEEP_FIRST,
    (":", "!"): _KEEP_SECOND, (":", "?"): _KEEP_SECOND, (":", "."): _KEEP_FIRST,
    (";", "!"): _KEEP_SECOND, (";", "?"): _KEEP_SECOND, (";", ":"): _KEEP_FIRST,
    (";", "."): _KEEP_FIRST,
    ("!", "!"): _KEEP_FIRST, ("?", "?"): _KEEP_FIRST, (".", "."): _KEEP_FIRST,
    (":", ":"): _KEEP_FIRST, (";", ";"): _KEEP_FIRST, (",", ","): _KEEP_FIRST,
    (" ", " "): _KEEP_SECOND, (" ", ","): _KEEP_SECOND, (" ", "."): _KEEP_SECOND,
}


#: the characters that start the second piece of some rule of ``_PUNCT``
_MEETS = frozenset(y for _, y in _PUNCT)


def _is_quote_like(c: str) -> bool:
    return c in "\"'" or unicodedata.category(c) == "Pf"


def fix_punct(xs: list[Inlines]) -> list[Inlines]:
    out: list[Inlines] = []
    items = list(xs)
    i = 0
    while i < len(items):
        if i + 1 >= len(items):
            out.append(items[i])
            break
        x, y = items[i], items[i + 1]
        # only the characters where x and y meet matter (the whole of x only before a period)
        head = y[0] if y else None
        y_start = (head.text[0] if type(head) is Text and head.text
                   else first_char(y) or "\ufffd")
        if y_start not in _MEETS:  # nothing to do whatever x ends with (a word starts y)
            out.append(x)
            i += 1
            continue
        x_end = last_char(x) or "\ufffd"
        if y_start == ".":
            trimmed = stringify(x).rstrip()
            if trimmed and _is_quote_like(trimmed[-1]):
                core = trimmed.rstrip("\"'" + "".join(c for c in trimmed if _is_quote_like(c)))
                core = core.rstrip()
                if core:
                    x_end = core[-1]
        action = _PUNCT.get((x_end, y_start))
        if action == _KEEP_FIRST:
            y2 = drop_start(y, y_start)
            if y2 == y:
                out.append(x)
                i += 1
            else:
                items[i + 1] = y2
            continue
        if action == _KEEP_SECOND:
            x2 = drop_end(x, x_end)
            if x2 == x:
                out.append(x)
                i += 1
            else:
                items[i] = x2
            continue
        out.append(x)
        i += 1
    return out


def add_delimiters(delim: str, xs: list[Inlines]) -> list[Inlines]:
    out: list[Inlines] = []
    for idx, x in enumerate(xs):
        if idx > 0:
            first = first_char(x)
            if first not in (",", ";", "."):
                out.append((Text(delim),))
        out.append(x)
    return out


# ---------------------------------------------------------------- text case


class _CaseWalker:
    """Applies one CSL text-case to an inline tree, never inside nocase, code or small caps."""

    __slots__ = ("state", "transform")

    def __init__(self, mode: str) -> None:
        self.state = CaseState()
        self.transform = TRANSFORMS[mode]

    def walk(self, nodes: Inlines) -> Inlines:
        out: list[Inline] = []
        for n in nodes:
            if isinstance(n, Text):
                out.append(Text(self.state.text(n.text, self.transform)))
            elif isinstance(n, Span) and n.role == "math":
                # pandoc's case transforms see no words in math: the state stays as it was
                out.append(n)
            elif (isinstance(n, Styled) and n.kind in ("smallcaps", "sup", "sub", "nocase", "code")) \
                    or (isinstance(n, Span) and n.role in ("nocase", "nodecor")):
                self.state.step(stringify(n.children), None)
                out.append(n)
            else:
                out.append(_rebuild(n, self.walk(n.children)))
        return tuple(out)


def case_transform(inl: Inlines, mode: str) -> Inlines:
    """``inl`` in the text case ``mode``; remembered per (text, mode): a title is often cased
    for its item's sort key and again for its entry, and twins in a bibliography repeat."""
    return _case_transform(inl, mode)


@functools.lru_cache(maxsize=4096)
def _case_transform(inl: Inlines, mode: str) -> Inlines:
    if mode.endswith("-tr"):
        # Turkish/Azeri upper and lower case (the engine marks the mode from the item's
        # language): the dotted capital İ and the dotless small ı first, then the usual rule
        if mode == "uppercase-tr":
            return case_transform(_map_cased(inl, lambda t: t.replace("i", "\u0130")),
                                  "uppercase")
        return case_transform(_map_cased(inl, lambda t: t.replace("I", "\u0131")
                                         .replace("\u0130", "i")), "lowercase")
    if mode == "capitalize-first" and _starts_with_url(inl):
        # never "Https://…": a URL is not a word (pandoc's output has this artifact)
        return inl
    walker = _CaseWalker(mode)
    # pandoc's rule: the last word of a title is capitalized even if it is a stop word
    if inl and isinstance(inl[-1], Text):
        last = inl[-1].text
        head, sep, word = last.rpartition(" ")
        if word and not any(is_word_break(c) for c in word) and (sep or len(inl) > 1):
            first = walker.walk((*inl[:-1], Text(head + sep)))
            if walker.state.state in (AFTER_WORD_END, START_SENTENCE, START):
                walker.state.state = BEFORE_LAST
            tail = walker.walk((Text(word),))
            return concat([first, tail])
    return walker.walk(inl)


def _map_cased(inl: Inlines, f: Callable[[str], str]) -> Inlines:
    """``map_text`` on the text a case transform changes (not nocase, code, small caps …)."""
    out: list[Inline] = []
    for n in inl:
        if isinstance(n, Text):
            out.append(Text(f(n.text)))
        elif (isinstance(n, Styled) and n.kind in ("smallcaps", "sup", "sub", "nocase", "code")) \
                or (isinstance(n, Span) and n.role in ("nocase", "nodecor", "math")):
            out.append(n)
        else:
            out.append(_rebuild(n, _map_cased(n.children, f)))
    return tuple(out)


def _starts_with_url(inl: Inlines) -> bool:
    t = stringify(inl).lstrip()[:8].lower()
    return t.startswith(("http://", "https://"))


# ---------------------------------------------------------------- rendering


def _add_affix(affix: str, x: Inlines, *, before: bool) -> Inlines:
    a = (Text(affix),)
    return concat(fix_punct([a, x] if before else [x, a]))


_FONT = {"italic": "emph", "oblique": "emph"}


def _has_text(x: Inlines) -> bool:
    """``bool(first_char(x))``, at once when ``x`` starts with some text (most do)."""
    if not x:
        return False
    head = x[0]
    return (type(head) is Text and bool(head.text)) or bool(first_char(x))


def add_formatting(f: Formatting, x: Inlines) -> Inlines:
    if not _has_text(x):
        return ()
    if f is NO_FORMAT:  # most nodes (``grouped``, plain groups and macros): nothing to add
        return x
    if f.strip_periods:
        x = map_text(x, lambda t: t.replace(".", ""))
    if f.affixes_inside:
        if f.prefix:
            x = _add_affix(f.prefix, x, before=True)
        if f.suffix:
            x = _add_affix(f.suffix, x, before=False)
    if f.font_style in _FONT:
        x = (Styled("emph", x),)
    if f.text_case:
        x = case_transform(x, f.text_case)
    if f.font_variant == "small-caps":
        x = (Styled("smallcaps", x),)
    if f.font_weight == "bold":
        x = (Styled("strong", x),)
    if f.text_decoration == "underline":
        x = (Styled("underline", x),)
    if f.vertical_align == "sup":
        x = (Styled("sup", x),)
    elif f.vertical_align == "sub":
        x = (Styled("sub", x),)
    if f.quotes:
        x = (Styled("quoted", x),)
    if not f.affixes_inside:
        if f.prefix:
            x = _add_affix(f.prefix, x, before=True)
        if f.suffix:
            x = _add_affix(f.suffix, x, before=False)
    if f.display:
        x = (Span("csl-" + f.display, x),)
    return x


def render(o: Out, *, link_items: bool = False) -> Inlines:
    if link_items:
        return _render_linked(o)
    return _render(o)


def _render(o: Out) -> Inlines:
    """``render`` without cite-item spans: the common case (sort keys, citation text for
    disambiguation), one type test per node and no keyword argument passed down."""
    if type(o) is Fmt:
        f = o.f
        kids = o.kids
        if (f.prefix and len(kids) == 1 and isinstance(kids[0], Linked)
                and f.prefix + stringify(_render(kids[0])) == kids[0].url):
            return _render_fmt(o, _render)
        parts = []
        for k in kids:  # a loop, not nested comprehensions: two calls fewer per node
            r = k.inl if type(k) is Lit else _render(k)  # (a text: no call)
            if r:
                parts.append(r)
        return _kids_joined(f, kids, parts)
    if type(o) is Lit:
        return o.inl
    if type(o) is Tag:
        return _render(o.kid)
    if o is None:
        return ()
    assert isinstance(o, Linked)
    parts = [r for r in (_render(k) for k in o.kids) if r]
    return (Link(o.url, concat(fix_punct(parts))),)


def _render_linked(o: Out) -> Inlines:
    """``render`` with a ``cite-item`` span around each cited item."""
    if type(o) is Fmt:
        return _render_fmt(o, _render_linked)
    if type(o) is Lit:
        return o.inl
    if o is None:
        return ()
    if isinstance(o, Tag):
        inner = _render_linked(o.kid)
        if o.kind == "item" and inner:
            key = o.data[0] if isinstance(o.data, tuple) else o.data
            return (Span("cite-item", inner, str(key)),)
        return inner
    if isinstance(o, Linked):
        parts = [r for r in (_render_linked(k) for k in o.kids) if r]
        return (Link(o.url, concat(fix_punct(parts))),)
    assert isinstance(o, Fmt)
    return _render_fmt(o, _render_linked)


def _render_fmt(o: Fmt, sub: Callable[[Out], Inlines]) -> Inlines:
    if (o.f.prefix and len(o.kids) == 1 and isinstance(o.kids[0], Linked)
            and o.f.prefix + stringify(_render(o.kids[0])) == o.kids[0].url):
        # citeproc: a DOI printed as prefix + DOI links the whole https://doi.org/… text
        linked = o.kids[0]
        return sub(Linked(linked.url, [Fmt(o.f, linked.kids)]))
    parts = []
    for k in o.kids:
        r = k.inl if type(k) is Lit else sub(k)  # (a text: no call)
        if r:
            parts.append(r)
    return _kids_joined(o.f, o.kids, parts)


def _kids_joined(f: Formatting, kids: list[Out], parts: list[Inlines]) -> Inlines:
    """A formatted node from its children's renderings (``parts``: the non-empty ones)."""
    if not parts:
        return ()
    if len(kids) == 1 and type(kids[0]) is Fmt:
        # a node around one formatted node (46 % of an entry's nodes in Chicago): that node's
        # rendering, already merged (by _joined, or one link), formatted (add_formatting's
        # first test, whether it holds text, made for NO_FORMAT too)
        x = parts[0]
        if f is NO_FORMAT:
            return x if _has_text(x) else ()
        return add_formatting(f, x)
    return _joined(f, parts)


def _joined(f: Formatting, parts: list[Inlines]) -> Inlines:
    """A formatted node's rendered children (not empty): delimited, joined, formatted."""
    if len(parts) > 1:
        if f.delimiter:
            parts = add_delimiters(f.delimiter, parts)
        x = concat(fix_punct(parts))
    else:
        x = concat(parts)
    if f is NO_FORMAT:  # add_formatting's first test alone
        return x if _has_text(x) else ()
    return add_formatting(f, x)


# ---------------------------------------------------------------- final passes


def _ends_with_punct(inl: Inlines) -> bool:
    t = stringify(inl)
    return bool(t) and t[-1] in ".,;:!?"


def punctuation_inside_quotes(inl: Inlines) -> Inlines:
    """Move a period or comma that follows quoted text inside the quotes (en-US), into the
    innermost quotes that end there ("This is ‘The One.’”, the CSL test suite's), and drop it
    where the quoted text already ends with punctuation (“Ends with a Period.” in), as
    pandoc's engine does."""
    # a part where nothing moves is given back as it is (most of an entry): no copy of it
    changed = False
    nodes: list[Inline] = []
    for n in inl:
        if not isinstance(n, Text):
            kids = punctuation_inside_quotes(n.children)
            if kids is not n.children:
                n = _rebuild(n, kids)
                changed = True
        nodes.append(n)
    out: list[Inline] = []
    i = 0
    while i < len(nodes):
        n = nodes[i]
        nxt = nodes[i + 1] if i + 1 < len(nodes) else None
        if (isinstance(nxt, Text) and nxt.text[:1] in (".", ",") and not isinstance(n, Text)
                and _ends_quoted(n)):
            out.append(_into_quotes(n, nxt.text[0]))
            rest = nxt.text[1:]
            if rest:
                out.append(Text(rest))
            i += 2
            changed = True
            continue
        out.append(n)
        i += 1
    return inl if not changed and type(inl) is tuple else tuple(out)


def _ends_quoted(n: Inline) -> bool:
    # quotes at the end of a formatted run or a title keep the punctuation out, as pandoc's
    # engine has it (“…” *and* “…”. stays)
    if isinstance(n, Span) and n.role == "cite-item" and n.children:
        return _ends_quoted(n.children[-1])  # our marker of a cite, no formatting
    return isinstance(n, Styled) and n.kind == "quoted"


def _into_quotes(n: Inline, punct: str) -> Inline:
    assert not isinstance(n, Text)
    last = n.children[-1]
    if not isinstance(last, Text) and _ends_quoted(last):
        return _rebuild(n, (*n.children[:-1], _into_quotes(last, punct)))
    # the quotes' own text: a period or comma after its own punctuation is dropped (“… Your
    # Sentence?” arXiv; “Libratus: … Poker.” in IJCAI, not “….,”), pandoc's endWithPunct
    if _ends_with_punct(n.children):
        return n
    return _rebuild(n, concat([n.children, (Text(punct),)]))


#: modifier letters and Arabic small letters with no <super> decomposition that are
#: superscripts all the same (citeproc-js raises them too)
_EXTRA_SUPERSCRIPTS = {"\u02c0": "\u0294", "\u02c1": "\u0295", "\u06e5": "\u0648",
                       "\u06e6": "\u064a"}


def superscripts() -> dict[str, str]:
    """Superscript characters (ª, ², ᵉ …) and the letters they raise, from Unicode's own
    ``<super>`` decompositions."""
    return {c: r for c in map(chr, range(0xA0, 0x10000)) if (r := _raised(c))}


@functools.cache
def _raised(c: str) -> str:
    """The letters the superscript character ``c`` raises ("" for any other character);
    looked up per character met, not for the whole Basic Multilingual Plane up front (that
    table took longer to build than formatting a short reference list)."""
    if c in _EXTRA_SUPERSCRIPTS:
        return _EXTRA_SUPERSCRIPTS[c]
    if not 0xA0 <= ord(c) < 0x10000:
        return ""
    d = unicodedata.decomposition(c)
    if d.startswith("<super> "):  # ℠ and ™ raise two letters
        return "".join(chr(int(h, 16)) for h in d.split()[1:])
    return ""


def raise_superscripts(inl: Inlines) -> Inlines:
    """Superscript characters as superscript text (1ᵉʳ → 1<sup>e</sup><sup>r</sup>), as
    citeproc writes them: a font may lack the characters, and they then match ``<sup>``
    markup written in field values."""
    # a part with no superscript characters is given back as it is (no copy of it)
    changed = False
    out: list[Inline] = []
    for n in inl:
        if isinstance(n, Text):
            text = n.text
            if text.isascii() or not any(_raised(c) for c in text if not c.isascii()):
                out.append(n)
                continue
            changed = True
            run: list[str] = []
            for c in text:
                raised = _raised(c)
                if raised:
                    if run:
                        out.append(Text("".join(run)))
                        run = []
                    # the character kept beside its letters (refbook.ir.raised_original)
                    out.append(Styled("sup", (Span("raised", (Text(raised),), c),)))
                else:
                    run.append(c)
            if run:
                out.append(Text("".join(run)))
        elif isinstance(n, Styled) and n.kind in ("sup", "nocase", "code"):
            out.append(n)
        else:
            kids = raise_superscripts(n.children)
            if kids is not n.children:
                n = _rebuild(n, kids)
                changed = True
            out.append(n)
    return inl if not changed and type(inl) is tuple else tuple(out)


DEFAULT_QUOTES = ("\u201c", "\u201d", "\u2018", "\u2019")


def localize_quotes(inl: Inlines, quotes: tuple[str, str, str, str], depth: int = 0) -> Inlines:
    """Quoted text written with the locale's marks (en-GB ‘…’, de „…“), outer and inner
    alternating; renderers write ``quoted`` nodes with the English marks, so a locale with
    other marks gets them as text here."""
    out: list[Inline] = []
    for n in inl:
        if isinstance(n, Text):
            out.append(n)
        elif isinstance(n, Styled) and n.kind == "quoted":
            open_, close = (quotes[0], quotes[1]) if depth % 2 == 0 else (quotes[2], quotes[3])
            out.append(Text(open_))
            out.extend(localize_quotes(n.children, quotes, depth + 1))
            out.append(Text(close))
        else:
            out.append(_rebuild(n, localize_quotes(n.children, quotes, depth)))
    return concat([tuple(out)])
