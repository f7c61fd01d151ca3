"""Loading a CSL style and its locale into light, pre-parsed trees the engine walks.

A style is data (the CSL XML); the engine (``engine``) interprets it. Every node remembers its
line, so that :func:`check_style` can name the element at fault in a style file. The locale is
assembled by :mod:`refbook.styles.locales` from the CSL locale files with the fallback chain of
the specification, the style's own ``<locale>`` elements taking precedence.
"""

from __future__ import annotations

import xml.parsers.expat
from functools import lru_cache
from pathlib import Path

from refbook.records import field, record


@record()
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node]
    line: int = 0


def _strip(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


class StyleSyntaxError(ValueError):
    """A CSL (or locale) file that cannot be used; ``line`` is the line of the fault (0: the
    whole file)."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        self.path = path
        self.line = line
        self.message = message


@record()
class Term:
    single: str
    multiple: str


QUOTE_TERMS = ("open-quote", "close-quote", "open-inner-quote", "close-inner-quote")


@record()
class Locale:
    terms: dict[tuple[str, str], Term] = field(default_factory=dict)
    dates: dict[str, Node] = field(default_factory=dict)
    punctuation_in_quote: bool = False
    limit_day_ordinals_to_day_1: bool = False
    #: the language tag the locale was assembled for (``de-AT``)
    lang: str = "en-US"
    #: ordinal terms with a ``gender-form`` (CSL 1.0.2 "Gender-specific Ordinals"), by
    #: (name, gender-form); the neuter ones stay in ``terms``
    gendered: dict[tuple[str, str], Term] = field(default_factory=dict)
    #: the grammatical gender of a noun term (``edition`` → feminine in French)
    genders: dict[str, str] = field(default_factory=dict)
    #: an ordinal term's ``match`` (last-digit, last-two-digits, whole-number) when given, by
    #: (name, gender-form or "")
    matches: dict[tuple[str, str], str] = field(default_factory=dict)

    def term(self, name: str, form: str = "long", plural: bool = False) -> str | None:
        """Look a term up with CSL's fallbacks (verb-short → verb → long, symbol → short → long)."""
        chain = {
            "verb-short": ("verb-short", "verb", "long"),
            "symbol": ("symbol", "short", "long"),
            "verb": ("verb", "long"),
            "short": ("short", "long"),
        }.get(form, (form,))
        for f in chain:
            t = self.terms.get((name, f))
            if t is not None:
                return t.multiple if plural else t.single
        return None

    def ordinal_suffix(self, i: int, gender: str = "") -> str:
        """The ordinal suffix of ``i`` (CSL 1.0.2, "Ordinal Suffixes"): ``ordinal-10`` …
        ``ordinal-99`` match the last two digits, ``ordinal-00`` … ``ordinal-09`` the last digit
        (unless their ``match`` says otherwise), else ``ordinal``. ``gender``: the gender of
        the noun the number counts; a term without that gender-form falls back to its neuter
        form (a neuter noun to the masculine form where a locale gives only gendered ones)."""

        def variant(name: str) -> tuple[str, str] | None:
            # a gendered noun takes its gender's form or the neuter one, never the other
            # gender's (2.ª edición falls back to the general ordinal, not to 2.º)
            for g in (gender, "") if gender else ("", "masculine", "feminine"):
                t = self.gendered.get((name, g)) if g else self.terms.get((name, "long"))
                if t is not None:
                    return t.single, self.matches.get((name, g), "")
            return None

        if i % 100 >= 10:
            found = variant(f"ordinal-{i % 100:02d}")
            if found is not None and (found[1] != "whole-number" or i < 100):
                return found[0]
        if i % 100 not in (11, 12, 13):  # 11th, not 11st, where no ordinal-11 is given
            found = variant(f"ordinal-{i % 10:02d}")
            if found is not None and (found[1] in ("", "last-digit") or (
                    i < 10 if found[1] == "whole-number" else i % 100 < 10)):
                return found[0]
        general = variant("ordinal")
        return general[0] if general is not None else ""

    def quotes(self) -> tuple[str, str, str, str]:
        """Outer open/close and inner open/close quotation marks of the locale."""
        q = [self.term(n) for n in QUOTE_TERMS]
        default = ("\u201c", "\u201d", "\u2018", "\u2019")
        return (q[0] or default[0], q[1] or default[1], q[2] or default[2], q[3] or default[3])

    def merge(self, node: Node) -> None:
        """Lay ``node`` (a ``<locale>``) over what is there: its terms, dates and options win."""
        ordinals_replaced = False
        for child in node.children:
            if child.tag == "terms":
                for t in child.children:
                    if t.tag != "term":
                        continue
                    name = t.attrs.get("name", "")
                    if name.startswith("ordinal") and not ordinals_replaced:
                        # CSL 1.0.1: ordinal terms of a locale replace all inherited ones
                        ordinals_replaced = True
                        for key in [k for k in self.terms if k[0].startswith("ordinal")]:
                            del self.terms[key]
                        self.gendered.clear()
                        self.matches.clear()
                    form = t.attrs.get("form", "long")
                    text = _text_of(t)
                    if "\n" in text and not text.strip():
                        # a term written empty across lines (<term name="and others">
                        # newline </term>) is empty, not a line break in the output
                        text = ""
                    single = multiple = text
                    for sub in t.children:
                        if sub.tag == "single":
                            single = _text_of(sub)
                        elif sub.tag == "multiple":
                            multiple = _text_of(sub)
                    if "gender" in t.attrs:
                        self.genders[name] = t.attrs["gender"]
                    gender_form = t.attrs.get("gender-form", "")
                    if name.startswith("ordinal") and "match" in t.attrs:
                        self.matches[(name, gender_form)] = t.attrs["match"]
                    if gender_form and name.startswith("ordinal"):
                        self.gendered[(name, gender_form)] = Term(single, multiple)
                        continue
                    self.terms[(name, form)] = Term(single, multiple)
            elif child.tag == "date":
                self.dates[child.attrs.get("form", "text")] = child
            elif child.tag == "style-options":
                if "punctuation-in-quote" in child.attrs:
                    self.punctuation_in_quote = child.attrs["punctuation-in-quote"] == "true"
                if "limit-day-ordinals-to-day-1" in child.attrs:
                    self.limit_day_ordinals_to_day_1 = (
                        child.attrs["limit-day-ordinals-to-day-1"] == "true")


def _text_of(n: Node) -> str:
    return n.attrs.get("_text", "")


_TERM_TAGS = ("term", "single", "multiple")


def parse_xml(data: bytes, path: str) -> Node:
    """A CSL or locale file as a tree of :class:`Node` with line numbers (expat: fast, and it
    knows where each element starts). Raises :class:`StyleSyntaxError` for malformed XML."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    # one call per run of text, not per line of it
    parser.buffer_text = True
    stack: list[Node] = []
    texts: list[list[str]] = []
    root: list[Node] = []
    # names repeat (a style has a few dozen element and attribute names): stripped once each
    local: dict[str, str] = {}

    def strip(name: str) -> str:
        found = local.get(name)
        if found is None:
            found = local[name] = _strip(name)
        return found

    def start(name: str, attrs: dict[str, str]) -> None:
        node = Node(strip(name), {strip(k): v for k, v in attrs.items()} if attrs else {}, [],
                    parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)
        texts.append([])

    def end(_name: str) -> None:
        node = stack.pop()
        text = "".join(texts.pop())
        # a term's text is kept as written (a term may be a single space); other text only
        # when it is more than the indentation between elements
        if not node.children and (text.strip() or (text and node.tag in _TERM_TAGS)):
            node.attrs["_text"] = text

    def chars(data: str) -> None:
        if texts:
            texts[-1].append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise StyleSyntaxError(path, exc.lineno,
                               f"not well-formed XML: {xml.parsers.expat.ErrorString(exc.code)}"
                               ) from None
    if not root:
        raise StyleSyntaxError(path, 0, "the file holds no XML element")
    return root[0]


def _parse(path: Path) -> Node:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StyleSyntaxError(str(path), 0, f"cannot be read ({exc.strerror or exc})") from None
    return parse_xml(data, str(path))


@record()
class Style:
    """A parsed CSL style: options, macros, citation and bibliography layouts, locale."""

    root: Node
    macros: dict[str, Node]
    citation: Node | None
    bibliography: Node | None
    locale: Locale
    title: str = ""
    #: results that depend only on (item, disambiguation state): sort keys, rendered entries.
    #: Items are frozen, so a rebuild after an edit recomputes only what changed.
    memo: dict[object, object] = field(default_factory=dict)

    @property
    def options(self) -> dict[str, str]:
        return self.root.attrs

    #: what one walk of the style's elements found, made when first asked (every processor
    #: asks, and the validation rules' "does the output change" test makes one per entry):
    #: whether it names citation-number, whether a <text> prints the year-suffix variable, and
    #: every word of its attribute values
    _scan: tuple[bool, bool, frozenset[str]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def _scanned(self) -> tuple[bool, bool, frozenset[str]]:
        found = self._scan
        if found is None:
            number = suffix = False
            words: set[str] = set()
            stack = [self.root]
            while stack:
                n = stack.pop()
                attrs = n.attrs
                for value in attrs.values():
                    words.update(value.split())
                    number = number or "citation-number" in value
                suffix = suffix or (n.tag == "text" and attrs.get("variable") == "year-suffix")
                stack.extend(n.children)
            found = self._scan = (number, suffix, frozenset(words))
        return found

    def attribute_words(self) -> frozenset[str]:
        """Every word of the style's attribute values (the variables it names anywhere): each
        processor's evaluator asks when an item holds LaTeX variables."""
        return self._scanned()[2]

    def uses_citation_number(self) -> bool:
        """Whether any element of the style names ``citation-number`` (printed, tested, sorted
        on, collapsed): only then does an item carry its number. Without it a renumbering (one
        citation added early in a book) leaves every item, and so every memo key, unchanged."""
        return self._scanned()[0]

    def uses_year_suffix_variable(self) -> bool:
        """Whether a ``<text variable="year-suffix">`` prints the suffix itself."""
        return self._scanned()[1]


@lru_cache(maxsize=32)
def load_style(path: str, locale: str | None = None, stamp: str = "") -> Style:
    """The style of the CSL file ``path`` with its locale: ``locale`` if given, else the style's
    ``default-locale``, else en-US. ``stamp`` (the file's content digest) keys the cache, so an
    edited file is read again. Raises :class:`StyleSyntaxError` for an unusable file."""
    from refbook.styles.locales import build_locale

    del stamp  # only part of the cache key
    root = _parse(Path(path))
    check_style(root, path)
    lang = locale or root.attrs.get("default-locale") or "en-US"
    own = [c for c in root.children if c.tag == "locale"]
    loc = build_locale(lang, own)
    macros: dict[str, Node] = {}
    citation = bibliography = None
    title = ""
    for child in root.children:
        if child.tag == "macro":
            macros[child.attrs["name"]] = child
        elif child.tag == "citation":
            citation = child
        elif child.tag == "bibliography":
            bibliography = child
        elif child.tag == "info":
            for i in child.children:
                if i.tag == "title":
                    title = _text_of(i)
    return Style(root, macros, citation, bibliography, loc, title)


# ---------------------------------------------------------------- checking a style file

#: the elements of CSL 1.0.2 (and what may hold them), for naming a misspelt one
_ELEMENTS = frozenset({
    "style", "info", "locale", "macro", "citation", "bibliography", "layout", "sort", "key",
    "text", "number", "label", "date", "date-part", "names", "name", "name-part", "et-al",
    "substitute", "group", "choose", "if", "else-if", "else", "terms", "term", "single",
    "multiple", "style-options", "title", "title-short", "id", "link", "author", "contributor",
    "category", "issn", "eissn", "issnl", "summary", "updated", "rights", "published",
    "translator", "email", "uri", "editor", "institution", "skip-words",
})
#: attributes a rendering element cannot do without
_REQUIRED = {
    "number": ("variable",), "date": ("variable",), "date-part": ("name",),
    "macro": ("name",), "names": ("variable",),
}
_CONDITIONS = ("type", "variable", "is-numeric", "is-uncertain-date", "locator", "position",
               "disambiguate")


def check_style(root: Node, path: str) -> None:
    """Raise :class:`StyleSyntaxError` at the first element CSL cannot run: a root that is not
    ``<style>``, an unknown element, a missing required attribute, a macro that is not defined,
    a style without ``<citation>``/``<layout>`` (a dependent style has its parent's)."""
    if root.tag != "style":
        raise StyleSyntaxError(path, root.line, f"the root element is <{root.tag}>, not a CSL "
                                                "<style>")
    macros = {c.attrs.get("name") for c in root.children if c.tag == "macro"}
    # info and locale hold metadata and terms: no rendering element to check there
    in_info = {id(c) for c in root.children if c.tag in ("info", "locale")}
    stack = [(c, id(c) in in_info) for c in root.children]
    while stack:
        n, info = stack.pop()
        if not info and n.tag not in _ELEMENTS:
            raise StyleSyntaxError(path, n.line, f"<{n.tag}> is not a CSL element")
        if not info:
            for attr in _REQUIRED.get(n.tag, ()):
                if attr not in n.attrs and not (n.tag == "names" and _in_substitute_ok(n)):
                    raise StyleSyntaxError(path, n.line, f"<{n.tag}> needs a {attr!r} attribute")
            if n.tag == "text" and not {"variable", "macro", "term", "value"} & set(n.attrs):
                raise StyleSyntaxError(path, n.line, "<text> needs one of the attributes "
                                                     "variable, macro, term or value")
            if n.tag in ("text", "key") and "macro" in n.attrs and n.attrs["macro"] not in macros:
                raise StyleSyntaxError(path, n.line, f"the macro {n.attrs['macro']!r} is not "
                                                     "defined in this style")
            if n.tag == "key" and not {"variable", "macro"} & set(n.attrs):
                raise StyleSyntaxError(path, n.line, "<key> needs a variable or a macro")
            if n.tag in ("if", "else-if") and not set(_CONDITIONS) & set(n.attrs):
                raise StyleSyntaxError(path, n.line, f"<{n.tag}> tests nothing (conditions: "
                                                     f"{', '.join(_CONDITIONS)})")
            if n.tag in ("citation", "bibliography") and not any(
                    c.tag == "layout" for c in n.children):
                raise StyleSyntaxError(path, n.line, f"<{n.tag}> has no <layout>")
        stack.extend((c, info) for c in n.children)
    if not is_dependent(root) and not any(c.tag == "citation" for c in root.children):
        raise StyleSyntaxError(path, root.line, "the style has no <citation> element")
    _check_macro_cycles(root, path)


#: How deep a style's elements may nest, macro calls expanded (the deepest of ~2,800 styles of
#: the CSL repository nests 19 levels). Each level is a few calls of the engine: far deeper
#: and Python's recursion limit would stop it, and the compiled engine (``refbook.accel``)
#: has no such limit: its stack would overflow.
MAX_STYLE_DEPTH = 200


def _calls_and_depth(top: Node) -> tuple[int, list[tuple[int, str, int]]]:
    """The depth of the elements under ``top`` (``top`` itself not counted) and its macro
    calls: (depth of the calling element, macro, line)."""
    deepest = 0
    calls: list[tuple[int, str, int]] = []
    stack = [(c, 1) for c in top.children if c.tag != "macro"]
    while stack:
        n, depth = stack.pop()
        deepest = max(deepest, depth)
        if n.tag in ("text", "key") and "macro" in n.attrs:
            calls.append((depth, n.attrs["macro"], n.line))
        stack.extend((c, depth + 1) for c in n.children)
    return deepest, calls


def _check_macro_cycles(root: Node, path: str) -> None:
    """Raise :class:`StyleSyntaxError` at a macro call that leads back to its own macro
    (``a`` calls ``b``, ``b`` calls ``a``): run, it never ends. And where the elements nest
    deeper than :data:`MAX_STYLE_DEPTH`, macro calls expanded."""
    macros = {m.attrs.get("name", ""): _calls_and_depth(m) for m in root.children
              if m.tag == "macro"}
    order: list[str] = []  # post-order: a macro after every macro it calls
    done: set[str] = set()
    for start in macros:
        if start in done:
            continue
        # depth-first, iteratively: (macro, index of its next call) on the path being walked
        walk: list[tuple[str, int]] = [(start, 0)]
        on_path = {start}
        while walk:
            name, i = walk[-1]
            calls = macros[name][1]
            if i >= len(calls):
                walk.pop()
                on_path.discard(name)
                done.add(name)
                order.append(name)
                continue
            walk[-1] = (name, i + 1)
            _, callee, line = calls[i]
            if callee in on_path:
                names = [m for m, _ in walk]
                chain = [*names[names.index(callee):], callee]
                raise StyleSyntaxError(path, line, f"the macro {callee!r} calls itself "
                                       f"({' → '.join(chain)}): it would never end")
            if callee not in done and callee in macros:
                walk.append((callee, 0))
                on_path.add(callee)
    expanded: dict[str, int] = {}
    for name in order:
        own, calls = macros[name]
        expanded[name] = max([own, *(d + expanded.get(m, 0) for d, m, _ in calls)])
    own, calls = _calls_and_depth(root)
    deepest = max([own, *(d + expanded.get(m, 0) for d, m, _ in calls)])
    if deepest > MAX_STYLE_DEPTH:
        line = max(calls, key=lambda c: c[0] + expanded.get(c[1], 0))[2] if calls else root.line
        raise StyleSyntaxError(path, line, f"the style's elements nest {deepest} levels deep, "
                               f"macro calls expanded (at most {MAX_STYLE_DEPTH})")


def _in_substitute_ok(n: Node) -> bool:
    # a bare <names/> inside <substitute> repeats the outer <names>' variables: none needed
    return not n.attrs and not n.children


def is_dependent(root: Node) -> bool:
    return parent_link(root) is not None


def parent_link(root: Node) -> str | None:
    """The ``independent-parent`` link of a dependent style (its parent's URL), if any."""
    for child in root.children:
        if child.tag == "info":
            for i in child.children:
                if i.tag == "link" and i.attrs.get("rel") == "independent-parent":
                    return i.attrs.get("href", "")
    return None
