"""Evaluating CSL elements for one item: the heart of the CSL interpreter.

``Evaluator.layout(node, item, …)`` walks a citation or bibliography layout for one
:class:`refbook.csl.Item` and returns an output tree (``output.Out``). Group suppression, name
formatting (et al., initials, particles), dates, numbers, labels, terms and substitution follow
the CSL 1.0.2 specification as citeproc implements it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypeAlias

from refbook.ir import INVISIBLE, Inlines, Span, Text
from refbook.models import MAX_DIGITS
from refbook.records import field, record, replace
from refbook.styles.csl.output import (
    FORMATTING_FIELDS,
    NO_FORMAT,
    Fmt,
    Formatting,
    Linked,
    Lit,
    Out,
    Tag,
    first_char,
    formatted,
    grouped,
    lit,
    render,
    stringify,
)

if TYPE_CHECKING:
    from refbook.csl import Date, DatePart, Item, Name
    from refbook.styles.csl.style import Node, Style

EN_DASH = "\u2013"

NAME_VARS = frozenset(
    ["author", "editor", "translator", "collection-editor", "composer", "container-author", "director", "editorial-director", "illustrator", "interviewer", "original-author", "recipient", "reviewed-author", "chair", "compiler", "contributor", "curator", "executive-producer", "guest", "host", "narrator", "organizer", "performer", "producer", "script-writer", "series-creator", "editortranslator"]
)
#: the CSL 1.0.2 locator types (their terms label a locator)
LOCATOR_TERMS = ("act", "appendix", "article-locator", "book", "canon", "chapter", "column",
                 "elocation", "equation", "figure", "folio", "issue", "line", "note", "opus",
                 "page", "paragraph", "part", "rule", "scene", "section", "sub-verbo",
                 "supplement", "table", "timestamp", "title-locator", "verse", "version",
                 "volume")
DATE_VARS = frozenset(
    ["accessed", "available-date", "event-date", "issued", "original-date", "submitted"]
)

_KEY_NAME_ATTRS = {"names-min": "et-al-min", "names-use-first": "et-al-use-first",
                   "names-use-last": "et-al-use-last"}
_NAME_ATTRS = (
    "and", "delimiter-precedes-et-al", "delimiter-precedes-last", "et-al-min",
    "et-al-use-first", "et-al-use-last", "et-al-subsequent-min", "et-al-subsequent-use-first",
    "initialize", "initialize-with", "name-as-sort-order", "sort-separator", "form",
)


@record()
class Disamb:
    """Disambiguation state of one item (citeproc's DisambiguationData)."""

    year_suffix: int = 0
    name_hints: dict[Name, str] = field(default_factory=dict)
    et_al_names: int = 0
    condition: bool = False


_FORMATTING_CACHE: dict[int, tuple[dict[str, str], Formatting]] = {}


def formatting_of(attrs: dict[str, str]) -> Formatting:
    """The formatting attributes of a style node (cached: style nodes never change)."""
    hit = _FORMATTING_CACHE.get(id(attrs))
    if hit is not None and hit[0] is attrs:
        return hit[1]
    f = _formatting_of(attrs)
    if f == NO_FORMAT:
        f = NO_FORMAT  # the shared instance, which rendering recognizes at once
    _FORMATTING_CACHE[id(attrs)] = (attrs, f)
    return f


def _formatting_of(attrs: dict[str, str]) -> Formatting:
    return Formatting(
        prefix=attrs.get("prefix"),
        suffix=attrs.get("suffix"),
        delimiter=attrs.get("delimiter"),
        font_style=attrs.get("font-style"),
        font_variant=attrs.get("font-variant"),
        font_weight=attrs.get("font-weight"),
        text_decoration=attrs.get("text-decoration"),
        vertical_align=attrs.get("vertical-align"),
        text_case=attrs.get("text-case"),
        quotes=attrs.get("quotes") == "true",
        strip_periods=attrs.get("strip-periods") == "true",
        display=attrs.get("display"),
    )


_KNOWN_CONDITIONS = frozenset(["type", "variable", "is-numeric", "is-uncertain-date", "locator",
                               "position", "disambiguate"])
#: one condition of a choose branch: its name, its values, and those values as a set
_Cond = tuple[str, tuple[str, ...], frozenset[str]]
_CONDITION_CACHE: dict[int, tuple[dict[str, str], str, tuple[_Cond, ...]]] = {}


def _conditions(attrs: dict[str, str]) -> tuple[str, tuple[_Cond, ...]]:
    """A choose branch's (match, [(condition, values, set of values)]), parsed once per style
    node."""
    hit = _CONDITION_CACHE.get(id(attrs))
    if hit is not None and hit[0] is attrs:
        return hit[1], hit[2]
    # an attribute that is no condition (match, or one of another CSL version) decides nothing
    conds = tuple((k, tuple(v.split()), frozenset(v.split())) for k, v in attrs.items()
                  if k in _KNOWN_CONDITIONS)
    match = attrs.get("match", "all")
    _CONDITION_CACHE[id(attrs)] = (attrs, match, conds)
    return match, conds


def _is_numeric_chunk(t: str) -> bool:
    t = t.strip()
    i, j = 0, len(t)
    while i < j and t[i].isalpha():
        i += 1
    while j > i and t[j - 1].isalpha():
        j -= 1
    core = t[i:j]
    return bool(core) and core.isdigit()


def is_numeric(t: str) -> bool:
    return all(_is_numeric_chunk(p) for p in re.split(r"[,\-&\u2013]", t))


_SPLIT_NUMS = re.compile(r"([,;\-\u2013\s]+)")


def split_nums(t: str) -> list[str | int]:
    out: list[str | int] = []
    for part in _SPLIT_NUMS.split(t):
        if not part:
            continue
        if part.isdigit() and part.isascii() and len(part) <= MAX_DIGITS:
            out.append(int(part))
        else:
            out.append(EN_DASH if part == "-" else part)
    return out


def year_suffix_text(n: int) -> str:
    if n < 27:
        return chr(ord("a") + n - 1)
    m = n - 1
    return chr(ord("a") - 1 + m // 26) + chr(ord("a") + m % 26)


def citation_label(item: Item) -> str:
    """A label made of the first names and the year, as citeproc-js makes it by default (the
    trigraph ``Aaaa00:AaAa00:AaAA00:AAAA00``): Doe00, DoRo00, DoRP00, DRPM00."""
    names: tuple[Name, ...] = ()
    for var in ("author", "editor", "translator", "composer", "director"):
        names = tuple(n for n in item.name_list(var) if not n.others)
        if names:
            break
    # particles written into the family name ("van Dyke") do not count
    fams = ["".join(w for w in (n.family or n.literal).split() if not w[:1].islower())
            or (n.family or n.literal) for n in names]
    d = item.date("issued")
    year = f"{d.start.year % 100:02d}" if d is not None and d.start and d.start.year else ""
    if not fams:
        return ""
    widths = {1: (4,), 2: (2, 2), 3: (2, 1, 1)}.get(len(fams), (1, 1, 1, 1))
    return "".join(f[:w] for f, w in zip(fams, widths, strict=False)) + year


def roman(n: int) -> str:
    if n <= 0 or n >= 4000:
        return str(n)
    vals = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
            (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
    out = ""
    for v, s in vals:
        while n >= v:
            out += s
            n -= v
    return out


def _name_part(text: str) -> Out:
    """A family or given name; HTML-like markup in it (<b>Doe</b>) read as in other fields."""
    if "<" not in text:
        return lit(text)
    from refbook.readers.csl_json import markup_to_inlines

    return Lit(markup_to_inlines(text))


_WORD_TAGS = re.compile(r"^((?:<[a-zA-Z][^<>]*>)*)(.*?)((?:</[a-zA-Z]+>)*)$")


def _initialize_marked(text: str, make_initials: bool, with_hyphen: bool,
                       initialize_with: str) -> str:
    """``initialize`` of a given name with markup around whole words ("<b>John</b> Q."): the
    words are initialized without their tags, each initial then wrapped in its word's tags;
    markup it cannot place so is dropped rather than cut in half."""
    pieces = re.split(r"([\s-]+)", text)
    tags: list[tuple[str, str]] = []
    plain: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2:
            plain.append(piece)
            continue
        m = _WORD_TAGS.match(piece)
        assert m is not None  # the pattern matches every string
        tags.append((m[1], m[3]))
        plain.append(m[2])
    result = initialize("".join(plain), make_initials, with_hyphen, initialize_with)
    tokens = list(re.finditer(r"[^\s.\-]+", result))
    if "<" in "".join(plain) or len(tokens) != len(tags):
        return re.sub(r"<[^<>]*>", "", result)
    out: list[str] = []
    pos = 0
    for tok, (open_, close) in zip(tokens, tags, strict=True):
        end = tok.end() + (1 if result[tok.end():tok.end() + 1] == "." else 0)
        out.append(result[pos:tok.start()] + open_ + result[tok.start():end] + close)
        pos = end
    out.append(result[pos:])
    return "".join(out)


@functools.lru_cache(maxsize=8192)
def initialize(text: str, make_initials: bool, with_hyphen: bool, initialize_with: str) -> str:
    """citeproc's initialize: "John Ronald" -> "J. R." (already-initialized parts kept)."""
    words: list[tuple[bool, str]] = []  # (already_initial, text)
    cs = ""
    for c in text:
        if c == ".":
            if cs:
                words.append((True, cs))
            cs = ""
        elif c == "-":
            if cs:
                words.append((False, cs))
            cs = "-"
        elif c == " ":
            if len(cs) == 1:
                words.append((True, cs))
            elif cs:
                words.append((False, cs))
            cs = ""
        else:
            cs += c
    if len(cs) == 1:
        words.append((True, cs))
    elif cs:
        words.append((False, cs))

    def add_suffix(t: str) -> str:
        return t + initialize_with if t else ""

    def to_initial(t: str) -> str:
        if t.startswith("-"):
            rest = t[1:]
            if rest and rest[0].isupper():
                return ("-" if with_hyphen else "") + rest[0].upper()
            return ""
        if t and t[0].isupper():
            if len(t) > 2 and t[1].isupper() and t[2:].islower():
                return t[0] + t[1].lower()
            return t[0]
        return t

    parts: list[str] = []
    for done, w in words:
        if done:
            parts.append(add_suffix(w))
        elif w.islower() and w.isalpha():
            parts.append(w + " " if initialize_with.endswith(" ") else " " + w + " ")
        elif make_initials:
            parts.append(add_suffix(to_initial(w)))
        else:
            parts.append(w + " ")
    res = "".join(parts).replace(" -", "-")
    return res.strip(" ")


def _is_byzantine(name: Name) -> bool:
    return _is_byzantine_text(name.family + name.given)


@functools.lru_cache(maxsize=4096)
def _is_byzantine_text(s: str) -> bool:
    """Whether a name's letters are all of scripts written with spaces (not CJK, Arabic …);
    remembered per name text: the same names come back for every sort key and layout."""
    return all(ord(c) < 0x0590 or 0x1E00 <= ord(c) < 0x2000 or not c.isalpha() for c in s)


_TESTED_CACHE: dict[int, tuple[Node, frozenset[str]]] = {}


def _tested_variables(choose: Node) -> frozenset[str]:
    """The variables a ``<choose>``'s branches test for presence: which branch an item takes
    depends on these alone (and its type), not on all the variables it has."""
    hit = _TESTED_CACHE.get(id(choose))
    if hit is not None and hit[0] is choose:
        return hit[1]
    tested = frozenset(v for b in choose.children
                       for c, _, vs in _conditions(b.attrs)[1] if c == "variable" for v in vs)
    _TESTED_CACHE[id(choose)] = (choose, tested)
    return tested


#: a ``<names>`` node's variables, formatting, name/et-al/label/substitute children, and
#: whether its label comes before its name
_NamesParts: TypeAlias = tuple[list[str], Formatting, "Node | None", "Node | None",
                               "Node | None", "Node | None", bool]
_NAMES_CACHE: dict[int, tuple[Node, _NamesParts]] = {}


def _names_parts(n: Node) -> _NamesParts:
    """A ``<names>`` node's variables, formatting and name/et-al/label/substitute children,
    and whether its label comes before its name: parsed once per style node (nodes never
    change). The variable list is shared: callers must not change it."""
    hit = _NAMES_CACHE.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[1]
    name_node = next((c for c in n.children if c.tag == "name"), None)
    label_node = next((c for c in n.children if c.tag == "label"), None)
    label_before = False
    if name_node is not None and label_node is not None:
        label_before = n.children.index(label_node) < n.children.index(name_node)
    parts = (n.attrs.get("variable", "").split(), formatting_of(n.attrs), name_node,
             next((c for c in n.children if c.tag == "et-al"), None), label_node,
             next((c for c in n.children if c.tag == "substitute"), None), label_before)
    _NAMES_CACHE[id(n)] = (n, parts)
    return parts


_NAME_NODE_CACHE: dict[int, tuple[Node, tuple[Formatting, dict[str, str],
                                              dict[str, Formatting]]]] = {}
_NO_NAME_NODE: tuple[Formatting, dict[str, str], dict[str, Formatting]] = (NO_FORMAT, {}, {})


def _name_node_parts(name_node: Node | None
                     ) -> tuple[Formatting, dict[str, str], dict[str, Formatting]]:
    """A ``<name>`` node's formatting, the name options it sets and its name-parts'
    formatting, parsed once per node (shared: callers must not change them)."""
    if name_node is None:
        return _NO_NAME_NODE
    hit = _NAME_NODE_CACHE.get(id(name_node))
    if hit is not None and hit[0] is name_node:
        return hit[1]
    a = name_node.attrs
    opts = {k: a[k] for k in _NAME_ATTRS if k in a}
    if "delimiter" in a:
        opts["delimiter"] = a["delimiter"]
    opts["_parts"] = ""  # marker
    parts = (_formatting_of({k: v for k, v in a.items() if k != "delimiter"}), opts,
             {c.attrs.get("name", ""): formatting_of(c.attrs)
              for c in name_node.children if c.tag == "name-part"})
    _NAME_NODE_CACHE[id(name_node)] = (name_node, parts)
    return parts


_NAMES_FORMATTING: dict[tuple[int, int], tuple[Formatting, Formatting, Formatting, Formatting]] = {}


def _names_formatting(name_f: Formatting, f: Formatting) -> tuple[Formatting, Formatting]:
    """The formatting of a ``<names>`` element's names (the ``<name>``'s own, the element's font
    settings over it) and of the whole (affixes, delimiter): worked out once per pair of
    formattings, which come from the style nodes' caches."""
    hit = _NAMES_FORMATTING.get((id(name_f), id(f)))
    if hit is not None and hit[0] is name_f and hit[1] is f:
        return hit[2], hit[3]
    inner = name_f.merge(Formatting(
        font_style=f.font_style, font_variant=f.font_variant, font_weight=f.font_weight,
        text_decoration=f.text_decoration, vertical_align=f.vertical_align,
        text_case=f.text_case, quotes=f.quotes, strip_periods=f.strip_periods,
        display=f.display))
    outer = Formatting(prefix=f.prefix, suffix=f.suffix, delimiter=f.delimiter)
    if outer == NO_FORMAT:
        outer = NO_FORMAT
    if len(_NAMES_FORMATTING) > 4096:  # formattings made per call (names-delimiter) pile up
        _NAMES_FORMATTING.clear()
    _NAMES_FORMATTING[(id(name_f), id(f))] = (name_f, f, inner, outer)
    return inner, outer


_AFFIX_SPLIT: dict[int, tuple[Formatting, Formatting, Formatting]] = {}


def _affix_split(f: Formatting) -> tuple[Formatting, Formatting]:
    """``f`` without its affixes, and its affixes alone (a name part's formatting goes on the
    part, its affixes around the part and its particles): worked out once per formatting,
    which comes from a style node's cache."""
    hit = _AFFIX_SPLIT.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1], hit[2]
    bare = replace(f, prefix=None, suffix=None)
    affixes = Formatting(prefix=f.prefix, suffix=f.suffix)
    # the shared instance when nothing is left, which rendering recognizes at once
    bare = NO_FORMAT if bare == NO_FORMAT else bare
    affixes = NO_FORMAT if affixes == NO_FORMAT else affixes
    if len(_AFFIX_SPLIT) > 4096:
        _AFFIX_SPLIT.clear()
    _AFFIX_SPLIT[id(f)] = (f, bare, affixes)
    return bare, affixes


_NO_DELIMITER: dict[int, tuple[Formatting, Formatting]] = {}


def _without_delimiter(f: Formatting) -> Formatting:
    """``f`` without its delimiter (a date part's), once per formatting."""
    hit = _NO_DELIMITER.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    bare = replace(f, delimiter=None)
    bare = NO_FORMAT if bare == NO_FORMAT else bare
    if len(_NO_DELIMITER) > 4096:
        _NO_DELIMITER.clear()
    _NO_DELIMITER[id(f)] = (f, bare)
    return bare


_WITH_DELIMITER: dict[tuple[int, str], tuple[Formatting, Formatting]] = {}


def _with_delimiter(f: Formatting, delimiter: str) -> Formatting:
    """``f`` with ``delimiter`` (a style's names-delimiter), once per formatting."""
    hit = _WITH_DELIMITER.get((id(f), delimiter))
    if hit is not None and hit[0] is f:
        return hit[1]
    if len(_WITH_DELIMITER) > 4096:
        _WITH_DELIMITER.clear()
    made = replace(f, delimiter=delimiter)
    _WITH_DELIMITER[(id(f), delimiter)] = (f, made)
    return made


@functools.lru_cache(maxsize=1024)
def _delimited(delimiter: str) -> Formatting:
    """The formatting that joins name parts with ``delimiter``."""
    return Formatting(delimiter=delimiter)


_REPLACED: dict[tuple[int, str], tuple[Formatting, Formatting]] = {}


def _without(f: Formatting, attr: Literal["prefix", "suffix"]) -> Formatting:
    """``f`` without its ``attr`` ("prefix", "suffix"), once per formatting (date parts'
    formattings come from the style nodes' caches)."""
    hit = _REPLACED.get((id(f), attr))
    if hit is not None and hit[0] is f:
        return hit[1]
    if len(_REPLACED) > 4096:
        _REPLACED.clear()
    made = replace(f, prefix=None) if attr == "prefix" else replace(f, suffix=None)
    _REPLACED[(id(f), attr)] = (f, made)
    return made


@functools.lru_cache(maxsize=1024)
def _prefixed(prefix: str) -> Formatting:
    """The formatting that puts ``prefix`` before a name (the delimiters between names)."""
    return Formatting(prefix=prefix)


def _sort_text(inl: Inlines) -> str:
    """The text a sort key compares: math as its TeX source without the dollars (pandoc's
    stringify of a Math inline: ``$16\\times 16$`` sorts as "16\\times 16", not "16 × 16")."""
    if not any(type(n) is not Text for n in inl):
        return "".join(n.text for n in inl)  # type: ignore[union-attr]
    parts: list[str] = []
    for n in inl:
        if isinstance(n, Text):
            parts.append(n.text)
        elif isinstance(n, Span) and n.role == "math" and n.key:
            parts.append(n.key.strip("$"))
        else:
            parts.append(_sort_text(n.children))
    return "".join(parts)


def _own_text(v: str) -> Out:
    """A style's own text (``<text value>``, a term): HTML-like markup (``<b>…</b>``) and
    quotes and apostrophes read as in field values (jgm/citeproc parses both the same way)."""
    if "<" in v:
        from refbook.readers.csl_json import markup_to_inlines

        return Lit(markup_to_inlines(v))
    if "'" in v or '"' in v:
        from refbook.readers.csl_json import smart_quotes

        return Lit(smart_quotes((Text(v),)))
    return lit(v)


class Evaluator:
    """Evaluates layouts for items of one style. One instance per processor run."""

    def __init__(self, style: Style) -> None:
        self.style = style
        self.locale = style.locale
        self.page_range_format = style.options.get("page-range-format")
        self.demote = style.options.get("demote-non-dropping-particle", "display-and-sort")
        self.initialize_with_hyphen = style.options.get("initialize-with-hyphen", "true") == "true"
        self.uses_year_suffix_var = style.uses_year_suffix_variable()
        #: every word of the style's attribute values (computed when first needed, by _present)
        self._style_words: frozenset[str] | None = None
        # per-item state, set afresh for every layout or sort key by _begin
        self.item: Item | None = None
        self.disamb = Disamb()
        self.substituted: set[str] = set()
        self.var_count = [0, 0]
        self.used_year_suffix = self.used_title = self.used_ident = False
        self.in_bibliography = self.in_sort_key = self.in_substitute = False
        self.subst_names: Node | None = None
        self.position = "first"
        self.near_note = False
        self.key_name_opts: dict[str, str] = {}
        self.locator = self.label = ""
        self.name_opts: dict[str, str] = {}
        #: the name options each area (citation, bibliography) inherits, by the area's id
        self._area_opts: dict[int, tuple[Node, dict[str, str]]] = {}
        self.all_names = False
        self._present_item: Item | None = None
        self._present_vars: frozenset[str] = frozenset()
        self._locator_words: frozenset[str] | None = None
        from refbook.styles.csl.compiled import program_of

        #: the style's element lists compiled into closures
        self.program = program_of(style)
        #: the style's date plans (one per ``<date>`` element and style, not per evaluator)
        self._date_plans = self.program.date_plans
        #: the item whose present variables ``_mask`` holds (as the program's bits)
        self._mask_item: Item | None = None
        self._mask = 0
        self._masks: dict[int, tuple[Item, int]] = {}
        #: called around every :meth:`layout` when set (``refbook.validate.output`` keeps each
        #: layout with the reads it made): ``watch(evaluate, area, item, disamb, **options)``
        #: must return ``evaluate(area, item, disamb, **options)``. An attribute, not a
        #: replaced method: the compiled engine's instances take no new methods
        #: (``refbook.accel``)
        self.layout_watch: Callable[..., Out] | None = None

    def _begin(self, area: Node, item: Item, disamb: Disamb, *, bibliography: bool,
               sort_key: bool = False, locator: str = "", label: str = "",
               position: str = "first", all_names: bool = False,
               near_note: bool = False) -> None:
        """Reset the per-item state before evaluating a layout or a sort key."""
        self.item = item
        self.disamb = disamb
        self.substituted = set()
        self.var_count = [0, 0]
        self.used_year_suffix = self.used_title = self.used_ident = False
        self.in_bibliography = bibliography
        self.in_sort_key = sort_key
        self.in_substitute = False
        self.subst_names = None
        self.position = position
        self.near_note = near_note
        self.key_name_opts = {}
        self.locator = locator
        # CSL 1.0 spelled two locator types with a space ("sub verbo"): the term is sub-verbo
        self.label = label.replace(" ", "-") if " " in label else label
        opts = self._area_opts.get(id(area))
        if opts is None or opts[0] is not area:
            opts = self._area_opts[id(area)] = (area, self._inherited_name_opts(area))
        # shared by every layout of the area: sort_key copies it before adding a key's own
        self.name_opts = opts[1]
        self.all_names = all_names

    # ------------------------------------------------------------------ entry points

    def layout(self, area: Node, item: Item, disamb: Disamb, *, bibliography: bool,
               locator: str = "", label: str = "", position: str = "first",
               all_names: bool = False, near_note: bool = False) -> Out:
        watch = self.layout_watch
        if watch is not None:
            return watch(self._layout, area, item, disamb, bibliography=bibliography,
                         locator=locator, label=label, position=position,
                         all_names=all_names, near_note=near_note)
        return self._layout(area, item, disamb, bibliography=bibliography, locator=locator,
                            label=label, position=position, all_names=all_names,
                            near_note=near_note)

    def _layout(self, area: Node, item: Item, disamb: Disamb, *, bibliography: bool,
                locator: str = "", label: str = "", position: str = "first",
                all_names: bool = False, near_note: bool = False) -> Out:
        self._begin(area, item, disamb, bibliography=bibliography, locator=locator, label=label,
                    position=position, all_names=all_names, near_note=near_note)
        layout = next(c for c in area.children if c.tag == "layout")
        xs = self.elements(layout.children)
        if bibliography and not self.used_ident:
            url = self._ident_url(item)
            if url:
                if self.used_title:
                    xs = [_link_titles(x, url) for x in xs]
                else:
                    xs = [Linked(url, [x for x in xs if x is not None])]
        if bibliography:
            lf = formatting_of(layout.attrs)
            if (area.attrs.get("second-field-align") in ("flush", "margin")
                    and not any("display" in c.attrs for c in layout.children)):
                # a layout that places its fields with display="…" itself keeps its boxes
                return _second_field_aligned(lf, xs)
            if lf.suffix and any("display" in c.attrs for c in layout.children):
                boxed = _suffix_into_last_box(lf.suffix, xs)
                if boxed is not None:
                    return formatted(replace(lf, suffix=None), boxed)
            return formatted(lf, xs)
        return grouped(xs)

    def sort_key(self, area: Node, key: Node, item: Item, disamb: Disamb) -> list[str] | None:
        self._begin(area, item, disamb, bibliography=area.tag == "bibliography", sort_key=True)
        own = {k: key.attrs[k] for k in _NAME_ATTRS if k in key.attrs}
        if own:
            self.name_opts = {**self.name_opts, **own}
        # names-min/-use-first/-use-last on a key win over the et-al settings of the names
        # its macro shows
        self.key_name_opts = {_KEY_NAME_ATTRS[k]: v for k, v in key.attrs.items()
                              if k in _KEY_NAME_ATTRS}
        if "macro" in key.attrs:
            out = grouped(self.elements(self.style.macros[key.attrs["macro"]].children))
            # an empty macro sorts first (citeproc: Just []), only a missing variable sorts last
            return _normalize_sort_key(_sort_text(render(out)))
        var = key.attrs.get("variable", "")
        if var in NAME_VARS:
            names = item.name_list(var)
            if not names:
                return None
            joined = ",".join(" ".join(self._name_sort_parts(n)) for n in names)
            return _normalize_sort_key(joined)
        if var in DATE_VARS:
            d = item.date(var)
            return [_date_sort_text(d)] if d is not None else None
        v = _sort_text(item.var(var))
        if var == "citation-label" and not v:
            v = citation_label(item)
        if not v:
            return None
        # isdecimal, not isdigit: int() rejects "²"
        if v.isdecimal() and len(v) <= MAX_DIGITS:
            return [f"{int(v):09d}"]
        return _normalize_sort_key(v)

    def _inherited_name_opts(self, area: Node) -> dict[str, str]:
        opts: dict[str, str] = {}
        for src in (self.style.root.attrs, area.attrs):
            for k in _NAME_ATTRS:
                if k in src:
                    opts[k] = src[k]
            if "name-delimiter" in src:
                opts["delimiter"] = src["name-delimiter"]
            if "name-form" in src:
                opts["form"] = src["name-form"]
            if "names-delimiter" in src:
                opts["names-delimiter"] = src["names-delimiter"]
        return opts

    @staticmethod
    def _ident_url(item: Item) -> str:
        for var, prefix in (("DOI", "https://doi.org/"), ("URL", "https://")):
            t = stringify(item.var(var))
            if t:
                return t if "://" in t else prefix + t
        return ""

    # ------------------------------------------------------------------ variables

    def _count(self, called: int, nonempty: int) -> None:
        self.var_count[0] += called
        self.var_count[1] += nonempty

    # the ask_* methods count the variable asked (and found) for group suppression; the
    # counting is written out in each: they run for every variable an item is asked for

    def ask_text(self, var: str) -> Inlines | None:
        assert self.item is not None
        if var in self.substituted:
            self.var_count[0] += 1
            return None
        if var == "page-first":
            v = self.ask_text("page")
            if v is None:
                return None
            return (Text(re.split(r"[,;\-\u2013]", stringify(v))[0]),)
        v = self.item.var(var)
        count = self.var_count
        count[0] += 1
        if v and (first_char(v) or v == INVISIBLE):  # some text in it (not all of stringify)
            count[1] += 1
            return v
        return None

    def ask_names(self, var: str) -> tuple[Name, ...] | None:
        assert self.item is not None
        count = self.var_count
        count[0] += 1
        if var in self.substituted:
            return None
        v = self.item.name_list(var)
        if v:
            count[1] += 1
            return v
        return None

    def ask_date(self, var: str) -> Date | None:
        assert self.item is not None
        count = self.var_count
        count[0] += 1
        if var in self.substituted:
            return None
        d = self.item.date(var)
        if d is not None:
            count[1] += 1
        return d

    def _delete(self, *vars_: str) -> None:
        if self.in_substitute:
            self.substituted.update(vars_)

    # ------------------------------------------------------------------ elements

    def elements(self, nodes: list[Node]) -> list[Out]:
        """The outputs of a list of elements, those that gave nothing (None) left out: the
        list's compiled steps (``refbook.styles.csl.compiled``) run in turn."""
        out: list[Out] = []
        for step in self.program.steps(nodes):
            step(self, out)
        return out

    def _text_step(self, n: Node, f: Formatting) -> Out:
        return self._formatted_by(f, self.text(n))

    def _names_step(self, n: Node, f: Formatting) -> Out:
        return self.names(n)

    def _date_step(self, n: Node, f: Formatting) -> Out:
        return self.date_el(n)

    def _number_step(self, n: Node, f: Formatting) -> Out:
        return self._formatted_by(f, self.number(n))

    def _label_step(self, n: Node, f: Formatting) -> Out:
        return self.label_el(n.attrs["variable"], n.attrs.get("form", "long"),
                             n.attrs.get("plural", "contextual"), f)

    def with_formatting(self, n: Node, res: Out) -> Out:
        return self._formatted_by(formatting_of(n.attrs), res)

    def _formatted_by(self, f: Formatting, res: Out) -> Out:
        if f is NO_FORMAT or res is None:
            return res
        if f.text_case == "title" and not self._is_english():
            f = Formatting(**{k: getattr(f, k) for k in FORMATTING_FIELDS if k != "text_case"})
        elif f.text_case in ("uppercase", "lowercase") and self._is_turkic():
            f = replace(f, text_case=f.text_case + "-tr")
        return Fmt(f, [res])

    def _is_turkic(self) -> bool:
        assert self.item is not None
        # Turkish and Azeri case the dotted and dotless i apart (i → İ, ı → I)
        lang = (self.item.language or self.locale.lang).lower()
        return lang[:2] in ("tr", "az") and lang[2:3] in ("", "-", "_")

    def _is_english(self) -> bool:
        assert self.item is not None
        # CSL 1.0.2, "Title case conversion": English items only; an item without a language
        # is in the locale's language (so a German style leaves its titles alone)
        lang = self.item.language or self.locale.lang
        return lang.lower() == "en" or lang.lower().startswith("en-")

    def _first_static_branch(self, branches: list[Node]) -> tuple[int, bool]:
        """(index, decided): the first branch that holds, going by the tests that depend only
        on the item's type and variables (decided), or the first that tests anything else
        (undecided: evaluated from there on)."""
        for i, b in enumerate(branches):
            if b.tag == "else":
                return i, True
            _, conds = _conditions(b.attrs)
            if not all(c == "type" or (c == "variable" and "locator" not in vs)
                       for c, _, vs in conds):
                return i, False
            if self._test(b.attrs):
                return i, True
        return len(branches), True

    def _test(self, attrs: dict[str, str]) -> bool:
        match, conditions = _conditions(attrs)
        return self._test_parsed(match, conditions)

    def _test_parsed(self, match: str, conditions: tuple[_Cond, ...]) -> bool:
        """``_test`` of a branch whose conditions are parsed (``_conditions``)."""
        item = self.item
        assert item is not None
        want_all = match == "all"
        # conditions have no side effects: stop at the first one that decides the match;
        # type and variable tests (most of them) are set operations
        for cond, values, vset in conditions:
            if cond == "type":
                # one test whatever the match: the item is of one of the types (type="thesis
                # manuscript" under the default match="all", as citeproc-js and pandoc's
                # citeproc read it; a test of each type would never hold)
                r = item.type in vset
            elif cond == "variable" and "locator" not in vset:
                present = self._present()
                r = vset <= present if want_all else not vset.isdisjoint(present)
            else:
                held = (self._holds(cond, v) for v in values)
                r = all(held) if want_all else any(held)
            if want_all:
                if not r:
                    return False
            elif r:
                return match == "any"
        return want_all or match == "none"

    def _holds(self, cond: str, v: str) -> bool:
        """Whether one value of one condition of a choose branch holds for the item."""
        item = self.item
        assert item is not None
        if cond == "type":
            return item.type == v
        if cond == "variable":
            # a variable used up by <substitute> is suppressed in the rest of the
            # *output* (CSL 1.0.2, "Substitution"); a condition still sees it present,
            # as citeproc does (APA's publisher test after an editor substitution)
            if v == "locator":
                return bool(self.locator)
            return v in self._present()
        if cond == "is-numeric":
            t = self.locator if v == "locator" else stringify(item.var(v))
            return bool(t) and is_numeric(t)
        if cond == "is-uncertain-date":
            d = item.date(v)
            return d is not None and d.circa
        if cond == "locator":
            lab = self.label or ("page" if self.locator else "")
            return bool(self.locator) and lab == v
        if cond == "position":
            return self._position_matches(v)
        if cond == "disambiguate":
            return self.disamb.condition == (v == "true")
        return False

    def _present(self) -> frozenset[str]:
        """The variables ``Item.has`` finds in the current item, computed once per item (the
        same item is evaluated for many sort keys and layouts in a row)."""
        item = self.item
        if item is None:
            return frozenset()
        if self._present_item is not item:
            self._present_item = item
            named = None
            if item.latex:
                # variables still LaTeX (abstract, annote, keyword) are converted to learn
                # whether they are empty only when the style names them somewhere (tests,
                # prints, sorts on them): the others cannot change which branch holds
                if self._style_words is None:
                    self._style_words = self.style.attribute_words()
                named = self._style_words
            self._present_vars = item.present(named)
        return self._present_vars

    def _present_mask(self) -> int:
        """The variables present in the current item (``_present``) as the program's bits
        (one per variable the style's choose branches test), computed once per item."""
        item = self.item
        assert item is not None
        # per item: sorting alternates between the two items it compares
        hit = self._masks.get(id(item))
        if hit is not None and hit[0] is item:
            mask = hit[1]
        else:
            bits = self.program.bits
            mask = 0
            for v in self._present():
                b = bits.get(v)
                if b is not None:
                    mask |= b
            self._masks[id(item)] = (item, mask)
        self._mask_item, self._mask = item, mask
        return mask

    def _position_matches(self, v: str) -> bool:
        if self.in_bibliography:
            return False
        if v == "first":
            return self.position == "first"
        if v == "subsequent":
            return self.position != "first"
        # a cite may hold several positions at once ("subsequent ibid near-note", from
        # refbook.notes); ibid-with-locator is an ibid too
        held = self.position.split()
        if v == "ibid":
            return any(p.startswith("ibid") for p in held)
        if v == "near-note":
            return self.near_note or v in held
        return v in held

    # ------------------------------------------------------------------ text

    def text(self, n: Node) -> Out:
        a = n.attrs
        if "variable" in a:
            return self.text_variable(a["variable"], a.get("form", "long"))
        if "term" in a:
            t = self.locale.term(a["term"], a.get("form", "long"), a.get("plural") == "true")
            # a term is the style's (or locale's) own text, read as a value is (à l'adresse)
            out: Out = _own_text(t) if t else None
            if a["term"] == "no date" and out is not None:
                suff = self.year_suffix()
                if suff is not None:
                    out = grouped([out, lit(" ") if a.get("form", "long") == "long" else None, suff])
            return Tag("term", out, a["term"]) if out is not None else None
        if "value" in a:
            return _own_text(a["value"])
        return None

    def text_variable(self, var: str, form: str) -> Out:
        assert self.item is not None
        if var == "locator":
            if not self.locator:
                self._count(1, 0)
                return None
            self._count(1, 1)
            loc = self.locator
            if "&" in loc:
                amp = self.locale.term("and", "symbol")
                if amp:
                    loc = loc.replace("&", amp)
            if not self.label or self.label == "page":
                return Tag("locator", self.page_range(loc))
            ranged = self._format_range(loc, EN_DASH, None)
            if '"' in ranged:
                # a quoted word as locator (s.v. "gargoyle"): typographic quotes, as in fields
                from refbook.readers.csl_json import smart_quotes

                return Tag("locator", Lit(smart_quotes((Text(ranged),))))
            return Tag("locator", lit(ranged))
        if var == "citation-label":
            own = self.ask_text(var)
            label = stringify(own) if own else citation_label(self.item)
            self._count(1, 1 if label else 0)
            if not label:
                return None
            # a label tells works apart by its year suffix too (Doe00a, Doe00b)
            return grouped([Tag("citation-label", lit(label), label), self.year_suffix()])
        if var == "year-suffix":
            if self.disamb.year_suffix:
                n = self.disamb.year_suffix
                return Tag("year-suffix", lit(year_suffix_text(n)), n)
            return None
        if var == "citation-number":
            num = stringify(self.item.var("citation-number"))
            self._count(1, 1 if num else 0)
            if not (num.isdecimal() and len(num) <= MAX_DIGITS):
                return None
            return Tag("citation-number", lit(num), int(num))
        if var in ("DOI", "URL", "PMID", "PMCID"):
            v = self.ask_text(var)
            self._delete(var)
            if v is None:
                return None
            self.used_ident = True
            t = stringify(v)
            prefix = {
                "DOI": "https://doi.org/", "URL": "https://",
                "PMID": "https://www.ncbi.nlm.nih.gov/pubmed/",
                "PMCID": "https://www.ncbi.nlm.nih.gov/pmc/articles/",
            }[var]
            url = t if "://" in t else prefix + t
            return Linked(url, [Lit((Text(t),))])
        val: Inlines | None = None
        if form == "short":
            val = self.ask_text(var + "-short")
            if val is None:
                val = self.ask_text(var)
        else:
            val = self.ask_text(var)
        if val is None:
            return None
        self._delete(var, *([var + "-short"] if form == "short" else []))
        res: Out = self.page_range(stringify(val)) if var == "page" else Lit(val)
        if var == "title":
            self.used_title = True
            return Tag("title", res)
        return res

    def page_range(self, x: str) -> Out:
        delim = self.locale.term("page-range-delimiter") or EN_DASH
        ranges = [r.strip() for r in re.split(r"(\s*[,&]\s*)", x)]
        parts = [lit(self._format_range(r, delim, self.page_range_format)) for r in ranges if r]
        return formatted(Formatting(delimiter=" "), list(parts))

    @staticmethod
    def _format_range(t: str, delim: str, fmt: str | None) -> str:
        if t in ("&", ","):
            return t
        parts = [t.replace("\\-", "-")] if "\\-" in t else [p.strip() for p in re.split(r"[-\u2013]+", t)]
        if len(parts) == 1:
            return parts[0]
        if len(parts) != 2:
            return t
        w, v = parts
        if fmt is None:
            return w + delim + v
        wp = w.rstrip("0123456789")
        vp = v.rstrip("0123456789")
        if wp != vp:
            return w + delim + v
        x, y = w[len(wp):], v[len(vp):]
        if len(y) < len(x):
            y = x[: len(x) - len(y)] + y

        def minimal(threshold: int) -> str:
            i = 0
            while i < len(x) and i < len(y) and x[i] == y[i]:
                i += 1
            rx, ry = x[i:], y[i:]
            if len(rx) == len(ry):
                if len(ry) < threshold and len(y) >= threshold:
                    return wp + x + delim + y[-threshold:]
                return wp + x + delim + ry
            return wp + x + delim + y

        if fmt in ("chicago", "chicago-16", "chicago-15"):
            if len(x) < 3 or x.endswith("00"):
                return wp + x + delim + y
            if x[-2:-1] == "0" and y[-2:-1] == "0":
                return minimal(1)
            # "chicago" is CSL 1.0.2's name of chicago-15 (as citeproc has it)
            if fmt in ("chicago", "chicago-15") and len(x) == 4 and sum(a != b for a, b in zip(x, y, strict=False)) >= 3:
                return wp + x + delim + y
            return minimal(2)
        if fmt == "expanded":
            return wp + x + delim + wp + y
        if fmt == "minimal":
            return minimal(1)
        if fmt == "minimal-two":
            return minimal(2)
        return w + delim + v

    # ------------------------------------------------------------------ numbers & labels

    def number(self, n: Node) -> Out:
        var = n.attrs["variable"]
        form = n.attrs.get("form", "numeric")
        v = self.ask_text(var)
        if v is None:
            return None
        self._delete(var)
        outs: list[Out] = []
        for part in split_nums(stringify(v)):
            if isinstance(part, int):
                # a gendered ordinal agrees with the noun of the variable (la 1re édition)
                outs.append(lit(self.format_number(part, form,
                                                   self.locale.genders.get(var, ""))))
            else:
                outs.append(lit(part))
        return grouped(outs)

    def format_number(self, i: int, form: str, gender: str = "") -> str:
        if form == "ordinal" or (form == "long-ordinal" and not 1 <= i <= 10):
            return f"{i}{self.locale.ordinal_suffix(i, gender)}"
        if form == "long-ordinal":
            return self.locale.term(f"long-ordinal-{i:02d}") or str(i)
        if form == "roman":
            return roman(i)
        return str(i)

    def label_el(self, var: str, form: str, pluralize: str, f: Formatting) -> Out:
        assert self.item is not None

        def plural_of(text: str) -> bool:
            if pluralize == "always":
                return True
            if pluralize == "never":
                return False
            if var == "number-of-volumes":
                return text not in ("1", "0")
            if "\\-" in text:
                return False
            # citeproc: more than one chunk ("EU-29702195U", "12, 14") is plural
            return len(split_nums(text)) > 1

        term: str | None
        if var == "locator":
            if not self.locator:
                return None
            loc = self.locator
            if self.label:
                term = self.locale.term(self.label, form, plural_of(loc))
            else:
                if loc[:1].isspace() or self._names_its_label(loc):
                    return None
                term = self.locale.term("page", form, plural_of(loc))
        else:
            v = "editor" if var == "editortranslator" else var
            # a variable used up by <substitute> still has its label (singular), as citeproc
            # does: APA's "(15th ed.)" of an edition printed inside the author's substitute
            used_up = v in self.substituted
            if v in NAME_VARS:
                names = self.item.name_list(v)
                if not names:
                    return None
                plural = (len(names) > 1 and not used_up if pluralize == "contextual"
                          else pluralize == "always")
                term = self.locale.term(var, form, plural)
            else:
                val = stringify(self.item.var(v))
                if not val:
                    return None
                term = self.locale.term(var, form, not used_up and plural_of(val)
                                        if pluralize == "contextual" else plural_of(val))
        if not term:
            return None
        if f.suffix and f.suffix.startswith(".") and term.endswith(".") and not f.strip_periods:
            rest = f.suffix[1:]
            f = Formatting(**{**{k: getattr(f, k) for k in FORMATTING_FIELDS},
                              "suffix": rest or None})
        return formatted(f, [lit(term)])

    def _names_its_label(self, locator: str) -> bool:
        """Whether a locator given without a label starts with one ("vol. 1, fol. 186"): it
        is printed as written, with no "p." before it (as pandoc reads such a locator)."""
        if self._locator_words is None:
            words: set[str] = set()
            for name in LOCATOR_TERMS:
                for form in ("long", "short", "symbol"):
                    t = self.locale.terms.get((name, form))
                    if t is not None:
                        words.update(w.lower() for w in (t.single, t.multiple) if w)
            self._locator_words = frozenset(words)
        first = locator.split(None, 1)[0].lower() if locator.strip() else ""
        return bool(first) and not first[:1].isdigit() and first in self._locator_words

    # ------------------------------------------------------------------ dates

    def year_suffix(self) -> Out:
        n = self.disamb.year_suffix
        if n and not self.uses_year_suffix_var and not self.used_year_suffix:
            self.used_year_suffix = True
            return Tag("year-suffix", lit(year_suffix_text(n)), n)
        return None

    def date_el(self, n: Node) -> Out:
        hit = self._date_plans.get(id(n))
        if hit is None or hit[0] is not n:
            hit = self._date_plans[id(n)] = (n, *self._date_plan(n))
        _, var, f, dps = hit
        d = self.ask_date(var)
        if d is None:
            return None
        if d.literal:
            return formatted(f, [lit(d.literal)])
        xs = self._format_date_parts(dps, d)
        if all(x is None for x in xs):
            self._count(0, -1)
        suff = self.year_suffix()
        return Tag("date", formatted(f, [*xs, suff]), d)

    def _date_plan(self, n: Node) -> tuple[str, Formatting, list[Node]]:
        """A ``<date>`` element's variable, formatting and date parts (a localized date's
        merged with the locale's), worked out once per element and style (the locale is
        the style's): the merged parts are then the same nodes for every item."""
        var = n.attrs.get("variable", "")
        f = formatting_of(n.attrs)
        form = n.attrs.get("form")
        show = n.attrs.get("date-parts", "year-month-day")
        own = [c for c in n.children if c.tag == "date-part"]
        if form:
            base = self.locale.dates.get(form)
            base_parts = [c for c in base.children if c.tag == "date-part"] if base else []
            dps: list[Node] = []
            for bp in base_parts:
                ov = next((o for o in own if o.attrs.get("name") == bp.attrs.get("name")), None)
                if ov is not None:
                    merged = dict(bp.attrs)
                    merged.update(ov.attrs)
                    dps.append(type(bp)(bp.tag, merged, []))
                else:
                    dps.append(bp)
            if base is not None:
                f = formatting_of(base.attrs).merge(f)
            allowed = {"year": ("year",), "year-month": ("year", "month")}.get(show)
            if allowed:
                dps = [d for d in dps if d.attrs.get("name") in allowed]
        else:
            dps = own
        return var, f, dps

    def _format_date_parts(self, dps: list[Node], d: Date) -> list[Out]:
        start = d.start
        end = d.end
        if start is None:
            return []
        if self.in_sort_key:
            s = _sort_date(dps, start)
            if end is not None:
                return [lit(s), lit("-"), lit(_sort_date(dps, end))]
            return [lit(s)]
        if end is None:
            return [self._dp(start, dp) for dp in dps]
        names_order = ["year", "month", "day"]
        vals = {"year": (start.year, end.year), "month": (start.month, end.month),
                "day": (start.day, end.day)}
        is_open = end.year == 0 and end.month == 0 and end.day == 0
        same: list[str] = []
        for nm in names_order:
            if nm in [dp.attrs.get("name") for dp in dps] and vals[nm][0] == vals[nm][1]:
                same.append(nm)
            elif nm in [dp.attrs.get("name") for dp in dps]:
                break
        i = 0
        while i < len(dps) and dps[i].attrs.get("name") in same:
            i += 1
        sames1 = dps[:i]
        rest = dps[i:]
        j = 0
        while j < len(rest) and rest[j].attrs.get("name") not in same:
            j += 1
        diffs, sames2 = rest[:j], rest[j:]
        s1: list[Out] = [x for x in (self._dp(start, dp) for dp in sames1) if x is not None]
        dl: list[Out] = [x for x in (self._dp(start, dp) for dp in diffs) if x is not None]
        dr: list[Out] = [x for x in (self._dp(end, dp) for dp in diffs) if x is not None]
        s2: list[Out] = [x for x in (self._dp(start, dp) for dp in sames2) if x is not None]
        diff_sorted = sorted(diffs, key=lambda dp: names_order.index(dp.attrs.get("name", "year")))
        range_delim = diff_sorted[0].attrs.get("range-delimiter", EN_DASH) if diff_sorted else None
        if is_open:
            return [formatted(Formatting(suffix=range_delim), _remove_last_suffix(s1 + dl))]
        left = _remove_last_suffix(dl)
        right = _remove_first_prefix(dr)
        if left:
            mid = [*left[:-1], Fmt(Formatting(delimiter=range_delim),
                                   [left[-1], right[0] if right else lit("")]), *right[1:]]
        else:
            mid = left + right
        return _remove_last_suffix(s1 + mid + s2)

    def _dp(self, date: DatePart, dp: Node) -> Out:
        name = dp.attrs.get("name")
        n = {"year": date.year, "month": date.month, "day": date.day}.get(name or "", 0)
        if name == "year":
            if n == 0:
                return Lit(())
        elif not n:
            return None
        form = dp.attrs.get("form", "long" if name != "day" else "numeric")
        f = _without_delimiter(formatting_of(dp.attrs))
        suffix: list[Out] = []
        if name == "year":
            if n < 0:
                suffix = [lit(self.locale.term("bc") or "BC")]
            elif n < 1000:
                suffix = [lit(self.locale.term("ad") or "AD")]
            text = str(abs(n))
        elif form == "numeric":
            text = str(n)
        elif form == "numeric-leading-zeros":
            text = f"{n:02d}"
        elif form == "ordinal":
            # the day agrees with its month's gender (le 1er janvier)
            gender = (self.locale.genders.get(f"month-{date.month:02d}", "")
                      if name == "day" and date.month else "")
            text = (str(n) if self.locale.limit_day_ordinals_to_day_1 and n != 1
                    else self.format_number(n, "ordinal", gender))
        elif name == "month":
            tf = "short" if form == "short" else "long"
            if n <= 12:
                term = self.locale.term(f"month-{n:02d}", tf)
            else:
                term = self.locale.term(f"season-{(n - 13) % 4 + 1:02d}", tf)
            if not term:
                return None
            text = term
        else:
            text = str(n)
        return formatted(f, [lit(text), *suffix])

    # ------------------------------------------------------------------ names

    def names(self, n: Node) -> Out:
        return self.names_with(n, _names_parts(n))

    def names_with(self, n: Node, parts: _NamesParts) -> Out:
        """``names`` with the node's parts (``_names_parts``) at hand: a compiled ``<names>``
        has them from compile time."""
        assert self.item is not None
        vars_, f, name_node, etal_node, label_node, subst, label_before = parts
        if f.delimiter is None and "names-delimiter" in self.name_opts:
            f = _with_delimiter(f, self.name_opts["names-delimiter"])
        if self.subst_names is not None:
            outer = self.subst_names
            name_node = name_node or next((c for c in outer.children if c.tag == "name"), None)
            etal_node = etal_node or next((c for c in outer.children if c.tag == "et-al"), None)
            if not self.in_sort_key:
                label_node = label_node or next((c for c in outer.children if c.tag == "label"), None)
        if "editor" in vars_ and "translator" in vars_:
            ed = self.item.name_list("editor")
            tr = self.item.name_list("translator")
            lform = label_node.attrs.get("form", "long") if label_node is not None else "long"
            if ed and ed == tr and self.locale.term("editortranslator", lform):
                vars_ = ["editortranslator"] + [v for v in vars_ if v not in ("editor", "translator")]
        contribs: list[tuple[str, tuple[Name, ...] | None]] = []
        found = False
        for v in vars_:
            names = self.ask_names("editor" if v == "editortranslator" else v)
            if names is not None:
                found = True
            contribs.append((v, names))
        if not found:
            if subst is not None and not self.in_substitute:
                saved = self.in_substitute, self.subst_names
                self.in_substitute, self.subst_names = True, n
                res: list[Out] = []
                for step in self.program.steps(subst.children):
                    r: list[Out] = []
                    step(self, r)
                    if r:
                        res = [r[0]]
                        break
                self.in_substitute, self.subst_names = saved
                if res and isinstance(res[0], Tag) and res[0].kind == "names":
                    return formatted(f, res)
                if not res:
                    return None
                return formatted(f, [Tag("names", grouped(res), ("", ()))])
            return None
        # the name options only now: most <names> of a long style find no names at all
        opts = dict(self.name_opts)
        name_f, name_opts, name_parts = _name_node_parts(name_node)
        opts.update(name_opts)
        if self.key_name_opts:
            opts.update(self.key_name_opts)
        inner_f, outer_f = _names_formatting(name_f, f)
        xs: list[Out] = []
        for var, names in contribs:
            if names is None:
                continue
            xs.append(self.format_names(var, names, opts, inner_f, name_f, name_parts,
                                        etal_node, label_node, label_before))
        self._delete(*[v for v, ns in contribs if ns is not None])
        if opts.get("form") == "count":
            count = sum(1 for x in xs for u in _universe_tags(x, "name"))
            return lit(str(count)) if count else None
        # the fonts, quotes and case of <names> itself reach each name (inner_f, as pandoc's
        # engine applies them); the affixes and delimiter go around all the variables' names
        return formatted(outer_f, xs)

    def format_names(self, var: str, names: tuple[Name, ...], opts: dict[str, str],
                     formatting: Formatting, name_f: Formatting, name_parts: dict[str, Formatting],
                     etal_node: Node | None, label_node: Node | None, label_before: bool) -> Out:
        subsequent = self.position != "first" and not self.in_bibliography
        et_al_min = None if self.all_names else opts.get("et-al-min")
        et_al_first = opts.get("et-al-use-first")
        if subsequent:
            et_al_min = opts.get("et-al-subsequent-min", et_al_min)
            et_al_first = opts.get("et-al-subsequent-use-first", et_al_first)
        delim = opts.get("delimiter", ", ")
        numnames = len(names)
        label: list[Out] = []
        if label_node is not None and not self.in_sort_key:
            label = [self.label_el(var, label_node.attrs.get("form", "long"),
                                   label_node.attrs.get("plural", "contextual"),
                                   formatting_of(label_node.attrs))]
        and_term: str | None = None
        if "and" in opts:
            if opts["and"] == "symbol":
                and_term = self.locale.term("and", "symbol") or "&"
            else:
                and_term = self.locale.term("and", "long")
        final_is_others = bool(names) and names[-1].others
        use_last = opts.get("et-al-use-last") == "true"
        threshold: int | None = None
        if et_al_min is not None and numnames >= int(et_al_min):
            m = int(et_al_first) if et_al_first is not None else None
            if self.disamb.et_al_names and m is not None:
                threshold = max(m, self.disamb.et_al_names)
            else:
                threshold = m
        elif final_is_others or (et_al_min is None and final_is_others):
            threshold = numnames - 1
        dpl = opts.get("delimiter-precedes-last", "contextual")
        as_sort = opts.get("name-as-sort-order")
        if and_term is None:
            before_last = delim
        elif dpl == "contextual":
            before_last = delim if numnames > 2 else ""
        elif dpl == "after-inverted-name":
            # an institution (a literal name) is never inverted
            penult = names[numnames - 2] if 2 <= numnames <= len(names) else None
            inverted = penult is None or (bool(penult.family) and not penult.literal)
            before_last = delim if inverted and (
                as_sort == "all" or (as_sort == "first" and numnames < 3)) else ""
        elif dpl == "always":
            before_last = delim
        else:
            before_last = ""
        if before_last == "":
            and_pre = "" if (formatting.suffix or "").endswith(" ") else " "
        else:
            and_pre = "" if before_last.endswith(" ") else " "
        and_delim = (and_pre + and_term + " ") if and_term else ""
        # the et-al term is shown only where names are cut off (and never in a sort key):
        # elsewhere (most lists) its formatting is not made at all
        etal: Out = None
        if threshold is not None and 0 < threshold < numnames and not self.in_sort_key:
            etal_pre = " "
            dpe = opts.get("delimiter-precedes-et-al", "contextual")
            if dpe == "contextual":
                before_etal = delim if numnames > 2 and (threshold or 0) > 1 else etal_pre
            elif dpe == "after-inverted-name":
                if as_sort == "all" or (as_sort == "first" and (threshold or 0) < 2):
                    before_etal = delim
                else:
                    before_etal = etal_pre
            elif dpe == "always":
                before_etal = delim
            else:
                before_etal = etal_pre
            if before_etal == " " and _is_cjk(self.locale.term(
                    etal_node.attrs.get("term", "et-al") if etal_node is not None else "et-al")
                    or ""):
                before_etal = ""  # CJK joins without spaces: Ziggy Zither等
            if etal_node is not None:
                term = self.locale.term(etal_node.attrs.get("term", "et-al")) or ""
                ef = formatting_of(etal_node.attrs)
                ef = Formatting(**{**{k: getattr(ef, k) for k in FORMATTING_FIELDS},
                                   "prefix": (before_etal + (ef.prefix or "")).replace("  ", " ")})
                etal = formatted(ef, [lit(term)]) if term else None
            elif use_last and not final_is_others:
                etal = Fmt(_prefixed(before_etal), [lit("\u2026 ")])
            else:
                # a style may define the term as empty: then nothing stands for the others
                et_al = self.locale.term("et-al")
                if et_al is None:
                    et_al = "et al."
                etal = Fmt(_prefixed(before_etal), [lit(et_al)]) if et_al else None
        outs: list[Out] = []
        # a name is formatted only where it is shown: a citation of a work by twenty authors
        # shows one or two (et-al-use-first), and formatting the others cost as much
        for idx, name in enumerate(names, start=1):
            cut = threshold is not None and idx - 1 >= threshold  # past the et-al cut
            if threshold == 0 or (cut and idx - 1 == threshold):
                outs.append(None if threshold == 0 or self.in_sort_key else etal)
                continue
            if cut and not (idx == numnames and use_last):
                outs.append(None)
                continue
            nm = self.format_name(name, idx, opts, formatting, name_parts)
            if idx == 1 or cut or self.in_sort_key:
                outs.append(nm)
            else:
                outs.append(formatted(_prefixed(
                    before_last + and_delim if idx == numnames else delim), [nm]))
        body = [*label, *outs] if label_before else [*outs, *label]
        return Tag("names", grouped(body), (var, names))

    def format_name(self, name: Name, order: int, opts: dict[str, str], f: Formatting,
                    parts: dict[str, Formatting]) -> Out:
        hints = self.disamb.name_hints
        hint = hints.get(name) if hints else None  # no hints (most items): no hash of the name
        o = opts
        if hint == "initials" or (hint == "initials-primary" and order == 1):
            o = {**opts, "form": "long"}
        elif hint == "given" or (hint == "given-primary" and order == 1):
            o = {**opts, "form": "long", "initialize": "false"}
        if name.others:
            return None
        if name.literal:
            fam = parts.get("family")
            inner: Out = lit(name.literal)
            if fam is not None:
                inner = formatted(fam, [inner])
            return Tag("name", formatted(f, [inner]), name)
        return Tag("name", formatted(f, [self.display_name(name, order, o, parts)]), name)

    def _name_sort_parts(self, name: Name) -> list[str]:
        if name.literal:
            return [name.literal]
        if _is_byzantine(name):
            if self.demote == "never":
                return [_join_particle(name.non_dropping_particle, name.family),
                        name.dropping_particle, name.given, name.suffix]
            return [name.family,
                    " ".join(x for x in (name.dropping_particle, name.non_dropping_particle) if x),
                    name.given, name.suffix]
        return [name.family, name.given]

    def display_name(self, name: Name, order: int, o: dict[str, str],
                     parts: dict[str, Formatting]) -> Out:
        fam_f = parts.get("family", NO_FORMAT)
        giv_f = parts.get("given", NO_FORMAT)
        given_txt = name.given
        if name.family and "initialize-with" in o and given_txt:
            make = o.get("initialize", "true") != "false"
            if "<" in given_txt:
                given_txt = _initialize_marked(given_txt, make, self.initialize_with_hyphen,
                                               o["initialize-with"])
            else:
                given_txt = initialize(given_txt, make, self.initialize_with_hyphen,
                                       o["initialize-with"])
        sep = o.get("sort-separator", ", ")

        fam_bare, fam_affixes = _affix_split(fam_f)
        giv_bare, giv_affixes = _affix_split(giv_f)
        # (no helper closures made per name: formatted() with these four directly)
        ndp = (formatted(fam_bare, [lit(name.non_dropping_particle)])
               if name.non_dropping_particle else None)
        dp = formatted(giv_bare, [lit(name.dropping_particle)]) if name.dropping_particle else None
        given = formatted(giv_bare, [_name_part(given_txt)]) if given_txt else None
        family = formatted(fam_bare, [_name_part(name.family)]) if name.family else None
        suffix = lit(name.suffix) if name.suffix else None
        as_sort = o.get("name-as-sort-order")
        name_as_sort = as_sort == "all" or (as_sort == "first" and order == 1)
        form = o.get("form", "long")
        if not _is_byzantine(name):
            if form == "long":
                return grouped([formatted(fam_affixes, [family]), formatted(giv_affixes, [given])])
            if form == "short":
                return formatted(fam_affixes, [family])
            return None
        if form == "short":
            return formatted(fam_affixes, [_space(ndp, family)])
        if form == "count":
            return None
        demote = self.demote
        if demote == "never" and (self.in_sort_key or name_as_sort):
            return _sep(_sep(formatted(fam_affixes, [_space(ndp, family)]),
                             formatted(giv_affixes, [_space(given, dp)]), sep),
                        suffix, sep)
        if demote == "sort-only" and self.in_sort_key:
            return _sep(_sep(formatted(fam_affixes, [family]),
                             formatted(giv_affixes, [_space(_space(given, dp), ndp)]), sep),
                        suffix, sep)
        if demote == "sort-only" and name_as_sort:
            return _sep(_sep(formatted(fam_affixes, [_space(ndp, family)]),
                             formatted(giv_affixes, [_space(given, dp)]), sep),
                        suffix, sep)
        if demote == "display-and-sort" and (self.in_sort_key or name_as_sort):
            return _sep(_sep(formatted(fam_affixes, [family]),
                             formatted(giv_affixes, [_space(_space(given, dp), ndp)]), sep),
                        suffix, sep)
        fam_part = _space(_space(dp, ndp), family)
        fam_part = _sep(fam_part, suffix, ", ") if name.comma_suffix else _space(fam_part, suffix)
        return _space(formatted(giv_affixes, [given]), formatted(fam_affixes, [fam_part]))


def _is_cjk(term: str) -> bool:
    """Whether a term starts with a Chinese, Japanese or Korean character."""
    c = term[:1]
    return bool(c) and ("\u2e80" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af"
                        or "\uf900" <= c <= "\ufaff")


def _space(x: Out, y: Out) -> Out:
    """citeproc's ``<+>``: join name parts with a space unless the first ends in ' - or nbsp."""
    if y is None:
        return x
    if x is None:
        return y
    if isinstance(x, Lit):
        t = stringify(x.inl)
        if t[-1:] in ("\u2019", "'", "-", EN_DASH, "\xa0"):
            return Fmt(NO_FORMAT, [x, y])
        return Fmt(_delimited(" "), [x, y])
    if isinstance(x, Fmt):
        if (x.f.suffix or "").endswith(" "):
            return Fmt(NO_FORMAT, [x, y])
        t = stringify(render(x))
        if t[-1:] in ("\u2019", "'", "-", EN_DASH, "\xa0"):
            return Fmt(NO_FORMAT, [x, y])
        return Fmt(_delimited(" "), [x, y])
    return Fmt(_delimited(" "), [x, y])


def _sep(x: Out, y: Out, sep: str) -> Out:
    if y is None:
        return x
    if x is None:
        return y
    return Fmt(_delimited(sep), [x, y])


def _join_particle(p: str, fam: str) -> str:
    return f"{p} {fam}" if p else fam


def _remove_last_suffix(xs: list[Out]) -> list[Out]:
    if not xs:
        return xs
    last = xs[-1]
    if isinstance(last, Fmt):
        return [*xs[:-1], Fmt(_without(last.f, "suffix"), last.kids)]
    return xs


def _remove_first_prefix(xs: list[Out]) -> list[Out]:
    if not xs:
        return xs
    first = xs[0]
    if isinstance(first, Fmt):
        return [Fmt(_without(first.f, "prefix"), first.kids), *xs[1:]]
    return xs


def _sort_date(dps: list[Node], d: DatePart) -> str:
    names = {dp.attrs.get("name") for dp in dps}
    s = ""
    if "year" in names:
        s += f"{d.year + 5000:04d}"
    if "month" in names and d.month:
        s += f"{d.month:02d}"
    if "day" in names and d.day:
        s += f"{d.day:02d}"
    return s


def _date_sort_text(d: Date) -> str:
    if d.literal or d.start is None:
        return d.literal.lower()
    key = _date_part_key(d.start)
    if d.end is not None:  # a range sorts after a single date of its start, by its end
        key += "-" + _date_part_key(d.end)
    return key


def _date_part_key(p: DatePart) -> str:
    # years before 1 (BC) sort before the others, the older first
    era = f"P{p.year:09d}" if p.year >= 0 else f"N{10**9 + p.year:09d}"
    return f"{era}{p.month:02d}{p.day:02d}"


_SORT_KEY_SPLIT = re.compile(r"[\s'\u2019,\u02be\u02bf]+")


def _normalize_sort_key(text: str) -> list[str]:
    return [p for p in _SORT_KEY_SPLIT.split(text.casefold()) if p]


def _universe_tags(o: Out, kind: str) -> list[Tag]:
    from refbook.styles.csl.output import universe

    return [n for n in universe(o) if isinstance(n, Tag) and n.kind == kind]


#: the unbound methods that evaluate the elements giving one output, by tag
_SINGLE_STEPS: dict[str, Callable[[Evaluator, Node, Formatting], Out]] = {
    "text": Evaluator._text_step, "names": Evaluator._names_step, "date": Evaluator._date_step,
    "number": Evaluator._number_step, "label": Evaluator._label_step,
}


def _link_titles(o: Out, url: str) -> Out:
    if o is None or isinstance(o, Lit):
        return o
    if isinstance(o, Tag):
        if o.kind == "title":
            return Linked(url, [o])
        return Tag(o.kind, _link_titles(o.kid, url), o.data)
    if isinstance(o, Linked):
        return o
    return Fmt(o.f, [_link_titles(k, url) for k in o.kids])


def _suffix_into_last_box(suffix: str, xs: list[Out]) -> list[Out] | None:
    """The layout's suffix inside the entry's last box when the entry ends with one (a
    display="right-inline" group), as pandoc's engine and citeproc-js place it; None: it does
    not end with a box."""
    kept = [x for x in xs if x is not None]
    last = kept[-1] if kept else None
    if not isinstance(last, Fmt) or last.f.display is None:
        return None
    box = Fmt(Formatting(suffix=suffix, display=last.f.display),
              [Fmt(replace(last.f, display=None), last.kids)])
    return [*kept[:-1], box]


def _second_field_aligned(lf: Formatting, xs: list[Out]) -> Out:
    """``second-field-align``: the entry's first field (a number, a label) goes in a left margin
    box, the rest in a box beside it (``csl-left-margin``/``csl-right-inline``, as citeproc
    does); the layout's prefix stays before the box, its suffix and fonts go with the rest."""
    fields: list[Out] = [x for x in xs if x is not None]
    if len(fields) < 2:
        return formatted(lf, xs)
    margin = Fmt(Formatting(display="left-margin"), [fields[0]])
    rest = Fmt(Formatting(**{**{k: getattr(lf, k) for k in FORMATTING_FIELDS},
                             "prefix": None, "display": "right-inline"}), fields[1:])
    return formatted(Formatting(prefix=lf.prefix), [margin, rest])
