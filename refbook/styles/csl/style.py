"""Loading a CSL style and its locale into light, pre-parsed trees the engine walks.

A style is data (the CSL XML); the engine (``engine``) interprets it. The en-US locale ships
with the package; a style's own ``<locale>`` overrides its terms.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(slots=True)
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node]


def _strip(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _convert(el: ET.Element) -> Node:
    return Node(_strip(el.tag), dict(el.attrib), [_convert(c) for c in el])


@dataclass(slots=True)
class Term:
    single: str
    multiple: str


@dataclass(slots=True)
class Locale:
    terms: dict[tuple[str, str], Term] = field(default_factory=dict)
    dates: dict[str, Node] = field(default_factory=dict)
    punctuation_in_quote: bool = False
    limit_day_ordinals_to_day_1: bool = False

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

    def merge(self, node: Node) -> None:
        for child in node.children:
            if child.tag == "terms":
                for t in child.children:
                    if t.tag != "term":
                        continue
                    name = t.attrs.get("name", "")
                    form = t.attrs.get("form", "long")
                    text = _text_of(t)
                    single = multiple = text
                    for sub in t.children:
                        if sub.tag == "single":
                            single = _text_of(sub)
                        elif sub.tag == "multiple":
                            multiple = _text_of(sub)
                    self.terms[(name, form)] = Term(single, multiple)
            elif child.tag == "date":
                self.dates[child.attrs.get("form", "text")] = child
            elif child.tag == "style-options":
                if child.attrs.get("punctuation-in-quote") == "true":
                    self.punctuation_in_quote = True
                if child.attrs.get("limit-day-ordinals-to-day-1") == "true":
                    self.limit_day_ordinals_to_day_1 = True


def _text_of(n: Node) -> str:
    return n.attrs.get("_text", "")


def _parse(path: Path) -> Node:
    tree = ET.parse(path)  # noqa: S314 - trusted, packaged or user-chosen style data
    root = tree.getroot()

    def conv(el: ET.Element) -> Node:
        attrs = dict(el.attrib)
        attrs = {_strip(k): v for k, v in attrs.items()}
        if el.text and el.text.strip() and len(el) == 0:
            attrs["_text"] = el.text
        return Node(_strip(el.tag), attrs, [conv(c) for c in el])

    return conv(root)


@dataclass(slots=True)
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

    def uses_year_suffix_variable(self) -> bool:
        stack = [self.root]
        while stack:
            n = stack.pop()
            if n.tag == "text" and n.attrs.get("variable") == "year-suffix":
                return True
            stack.extend(n.children)
        return False


@lru_cache(maxsize=16)
def load_style(path: str) -> Style:
    root = _parse(Path(path))
    locale = Locale()
    locale.merge(_parse(DATA / "locales-en-US.xml"))
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
        elif child.tag == "locale":
            lang = child.attrs.get("lang", "")
            if lang in ("", "en", "en-US"):
                locale.merge(child)
        elif child.tag == "info":
            for i in child.children:
                if i.tag == "title":
                    title = _text_of(i)
    return Style(root, macros, citation, bibliography, locale, title)
