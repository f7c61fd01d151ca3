"""Hostile bibliography data and a checker of built sites, shared by the hosts' security tests.

A contributor's ``.bib`` is untrusted: its values may hold markup, quotes that try to close an
attribute, and ``javascript:`` URLs. Every entry here carries ``alert(`` in its payloads, so what
the checker looks for can only come from the data (no theme writes ``alert(``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

HOSTILE_BIB = r"""
@book{evil,
  author = {{<img src=x onerror=alert(1)>}},
  title = {"><script>alert(2)</script> <b onmouseover=alert(3)>bold</b> 'single' "double"},
  publisher = {<svg onload=alert(4)>},
  year = {2020},
  url = {javascript:alert(5)},
}

@article{evil2,
  author = {{</title><script>alert(15)</script>Q" onmouseover="alert(6)}
            and {R' onfocus='alert(7)' autofocus x='}},
  title = {</title><script>alert(8)</script><a href="javascript:alert(9)">link</a>},
  journal = {<iframe src=javascript:alert(10)>},
  year = {2021},
  doi = {10.1/"><script>alert(11)</script>},
  url = {https://example.org/'onfocus='alert(13)'"onerror="alert(14)},
  note = {\url{javascript:alert(12)} <style>*{}</style>},
}
"""

#: keys a .bib accepts (no space, comma, brace, parenthesis, "=", "%", "#" or '"'), each trying
#: to close an attribute or open a script; ``alert`…``` needs no parentheses
HOSTILE_KEYS = ("k<script>alert`16`</script>", "q'><script>alert`17`</script>",
                "a&b<!--", "x</title><script>alert`18`</script>")
HOSTILE_KEYS_BIB = "".join(
    f"@book{{{key},\n  author = {{Doe{i}, Jane}},\n  title = {{T{i}}},\n  year = {{2020}},\n}}\n"
    for i, key in enumerate(HOSTILE_KEYS))

#: event-handler attributes the payloads try to create
DATA_HANDLERS = frozenset({"onerror", "onmouseover", "onload", "onfocus"})
#: the text of the first payload, which titles must show as text
AUTHOR_TEXT = "<img src=x onerror=alert(1)>"


@dataclass
class _Scan(HTMLParser):
    """Every element of a document with its attributes, and the text of scripts and styles."""

    tags: list[tuple[str, list[tuple[str, str | None]]]] = field(default_factory=list)
    raw: list[tuple[str, str]] = field(default_factory=list)
    _in: str = ""

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in = tag if tag in ("script", "style") else ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self._in = ""

    def handle_data(self, data: str) -> None:
        if self._in:
            self.raw.append((self._in, data))


def markup_problems(text: str, where: str) -> list[str]:
    """What in one HTML document (or fragment) was made from the hostile data: an element the
    data names, an event-handler attribute holding a payload, a ``javascript:`` link."""
    scan = _Scan()
    scan.feed(text)
    scan.close()
    problems = []
    for tag, attrs in scan.tags:
        names = {name for name, _ in attrs}
        if (tag == "img" and ("src", "x") in attrs) or tag == "iframe":
            problems.append(f"{where}: <{tag} {attrs}>")
        if names & DATA_HANDLERS or any(n.startswith("on") and "alert(" in (v or "")
                                        for n, v in attrs):
            problems.append(f"{where}: <{tag}> with handler {attrs}")
        for name, value in attrs:
            if name in ("href", "src", "action", "formaction", "data") and (
                    (value or "").strip().lower().startswith("javascript:")):
                problems.append(f"{where}: <{tag} {name}={value!r}>")
    problems += [f"{where}: <{tag}> holding {data[:80]!r}" for tag, data in scan.raw
                 if "alert(" in data or "alert`" in data or "*{}" in data]
    return problems


def site_problems(site: Path, *, search_text_is_html: bool) -> list[str]:
    """:func:`markup_problems` over every HTML file of a built MkDocs site, and over what its
    search index holds as HTML: the titles (MkDocs' and Material's), the texts (Material's; the
    search plugin of MkDocs keeps plain text, which its script escapes)."""
    problems: list[str] = []
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if path.suffix in (".html", ".htm", ".xml"):
            problems += markup_problems(path.read_text(encoding="utf-8"), rel)
        elif path.name == "search_index.json":
            for doc in json.loads(path.read_text(encoding="utf-8"))["docs"]:
                problems += markup_problems(doc["title"], f"{rel} title {doc['location']!r}")
                if search_text_is_html:
                    problems += markup_problems(doc["text"], f"{rel} text {doc['location']!r}")
    return problems


def html_texts(text: str, tag: str, **attrs: str) -> list[str]:
    """The text of each ``<tag>`` element with the given attribute values, on one line."""

    class Texts(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.out: list[str] = []
            self.depth = 0

        def handle_starttag(self, t: str, a: list[tuple[str, str | None]]) -> None:
            if t == tag and all(dict(a).get(k) == v for k, v in attrs.items()):
                self.out.append("")
                self.depth = 1
            elif self.depth and t == tag:
                self.depth += 1

        def handle_endtag(self, t: str) -> None:
            if self.depth and t == tag:
                self.depth -= 1

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.out[-1] += data

    p = Texts()
    p.feed(text)
    p.close()
    # without the invisible word joiners refbook puts after each "<" of a title
    return [" ".join(s.replace("\u2060", "").split()) for s in p.out]


def attribute_values(text: str, name: str) -> list[str]:
    """Every value of attribute ``name`` in ``text``, as a browser reads it (unescaped)."""
    scan = _Scan()
    scan.feed(text)
    scan.close()
    return [v or "" for _, attrs in scan.tags for n, v in attrs if n == name]
