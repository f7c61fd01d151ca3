"""Python-Markdown extension: Pandoc citation syntax → citations, list markers → lists.

Where it sits: inside Markdown → HTML, page by page. The plugin adds it to ``markdown_extensions``
(it also registers as ``refbook`` under ``markdown.extensions``), so it runs wherever MkDocs, a
theme or another plugin renders Markdown with the site's extensions. Being an inline processor,
it never sees fenced or indented code, code spans (stashed before it runs), raw HTML or HTML
attributes, autolinks or link targets: those are all handled by Python-Markdown first.

A citation can only be formatted once the whole book is known. The plugin resolves the book
before the pages are rendered and hands the extension a :class:`Host`: each citation then becomes
its final HTML right here, and a reference-list marker (an HTML comment that survived Markdown,
so never one in code) becomes the list, so every other plugin sees real content. Without a host
(the extension on its own), or for a citation the host did not expect, it emits
``<span class="refbook-pending" data-refbook-src="…">…</span>`` holding the citation's source,
which the plugin fills in later. ``\\@`` becomes a literal ``@``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any, Protocol

from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from refbook.syntax import CitationScanner

if TYPE_CHECKING:
    from markdown import Markdown

    from refbook.syntax import Citation

PENDING_CLASS = "refbook-pending"
SOURCE_ATTR = "data-refbook-src"
# After links (160), autolinks (120), automail (110) and inline HTML (90) have stashed what they
# own, so an "@" in a URL, an e-mail address or an HTML attribute is never seen here.
PRIORITY = 85
_START = re.compile(r"\\@|\[|@")
# Bracketed citations only, before Python-Markdown's link processors (170 and below): each of
# them (reference 170, link 160, short reference 130) scans the whole text of a paragraph that
# holds a "[", character by character in Python, to match its brackets (~40 % of a 30-page
# book's Markdown time when each paragraph cites once); taken here first, the citations leave
# no "[" to scan for. After code spans (190), escapes (180) and footnote references (175). Only
# in a text where the later processors could not have changed the result: see
# CitationProcessor._early_text.
EARLY_PRIORITY = 172
_EARLY_START = re.compile(r"\[")
# what, anywhere in a text, leaves its citations to the usual pass at PRIORITY: a link, image
# or reference link (after a "]" come "(" or "["; "{" for pymdownx.bracketspan's attributes),
# raw HTML or an autolink ("<"), a bare URL (pymdownx.magiclink links it at 120), a hard line
# break (two spaces before a newline)
_LINKISH = re.compile(r"\]\s?[(\[{]|!\[|<|://|www\.|  \n")
# a bracket, without brackets inside it: what is left of a text without them holds every bare
# "@" (narrative citations, e-mail addresses), which leave the text to the usual pass too
_BRACKETED = re.compile(r"\[[^\[\]]*\]")
# what Python-Markdown puts in a text in place of an element or of stashed HTML
_PLACEHOLDER = re.compile(r"\x02[a-z]+:\d+\x03")
# After Python-Markdown put raw HTML (30) back, so the list markers are in the text.
LISTS_PRIORITY = 25
# After the footnotes extension made its list (50) and its extra back references (15), before
# MkDocs collects the page's anchors and links (5), so what is removed is never checked.
FOOTNOTES_PRIORITY = 10


class Host(Protocol):
    """What the plugin offers the extension while a page is rendered."""

    def cite(self, citation: Citation) -> str | None:
        """The final HTML of the citation, or None when it must stay pending."""

    def lists(self, html: str) -> str:
        """The HTML with every reference-list marker replaced by its list."""

    def footnotes(self, root: ET.Element) -> None:
        """Tidy the page's footnotes (the tree after the footnotes extension made them)."""


class CitationProcessor(InlineProcessor):
    """Finds the citation starting at a ``[`` or ``@`` with the core parser."""

    ANCESTOR_EXCLUDES = ("a", "code", "pre")

    def __init__(self, pattern: str, md: Markdown, extension: RefbookExtension, *,
                 early: bool = False) -> None:
        super().__init__(pattern, md)
        self.extension = extension
        #: the pass before the link processors (EARLY_PRIORITY), bracketed citations only
        self.early = early
        self._early_data: str | None = None
        self._early_ok = False
        #: the text around the last citation the early pass replaced (before it, after it)
        self._early_around: tuple[str, str] | None = None
        # Python-Markdown calls handleMatch at every "[" and "@" of a text and, after each
        # citation, again in a new string that ends like the old one: one scanner (brackets
        # matched once) serves them all, so a paragraph of brackets costs linear time.
        # Python-Markdown took the link reference definitions out before inline patterns run,
        # so the scanner sees none ("[@a]: x" left in a paragraph is a citation).
        self._scanner = CitationScanner("", definitions=False)
        self._data = ""  # the text the scanner was last checked against, from offset _from on
        self._from = 0
        self._shift = 0

    def _citation_at(self, data: str, start: int) -> tuple[Citation | None, int]:
        """The citation at ``start`` of ``data`` and the shift of the scanner's offsets."""
        if data is not self._data or start < self._from:
            self._scanner, self._shift = self._scanner.for_text(data, start)
            self._data, self._from = data, start
        return self._scanner.at(start + self._shift), self._shift

    def handleMatch(  # type: ignore[override]  # noqa: N802 - Python-Markdown's API
        self, m: re.Match[str], data: str,
    ) -> tuple[ET.Element | str | None, int | None, int | None]:
        start = m.start(0)
        found_at = m.group(0)
        if self.early and not self._early_text(data):
            return None, None, None
        if found_at == "\\@":
            return "@", start, m.end(0)
        if found_at == "@" and start > 0 and (data[start - 1].isalnum() or data[start - 1] in "_@\\"):
            return None, None, None
        citation, shift = self._citation_at(data, start)
        if citation is None or (found_at == "[") != (citation.mode == "parenthetical"):
            return None, None, None
        if citation.mode == "narrative" and not self.extension.narrative:
            return None, None, None
        end = citation.end - shift
        source = self.unescape(data[start:end])
        host = self.extension.host
        final = host.cite(citation) if host is not None else None
        if self.early:
            if final is None:
                # a pending citation is left to the usual pass (a host answers None without
                # taking the citation): its span's text is read again by the patterns after
                # the pass that made it, which must be those after PRIORITY
                return None, None, None
            self._early_around = (data[:start], data[end:])
        if final is not None:
            # raw HTML, put back after the tree is serialized (as inline HTML is)
            return self.md.htmlStash.store(final), start, end
        el = ET.Element("span", {"class": PENDING_CLASS, SOURCE_ATTR: source})
        el.text = source
        return el, start, end

    def _early_text(self, data: str) -> bool:
        """Whether the early pass may take ``data``'s bracketed citations: nothing in it is a
        link, an image, a reference link, raw HTML, an autolink, a bare URL, a hard line break
        or a bare ``@``, and the page defines no link references. In such a text the processors
        between EARLY_PRIORITY and PRIORITY change nothing, so the usual pass would see the
        same text and find the same citations; elsewhere the citations wait for it."""
        if data is self._early_data:
            return self._early_ok
        around, self._early_around = self._early_around, None
        self._early_data = data
        if (self._early_ok and around is not None and data.startswith(around[0])
                and data.endswith(around[1]) and _PLACEHOLDER.fullmatch(
                    data, len(around[0]), len(data) - len(around[1])) is not None):
            # the text this pass made from the one it took (a citation replaced by a
            # placeholder, which holds none of the marks above): its answer, without reading
            # the whole text again for each citation of a paragraph
            return True
        self._early_ok = (not self.md.references and _LINKISH.search(data) is None
                          and "@" not in _BRACKETED.sub("", data))
        return self._early_ok


class ListPostprocessor(Postprocessor):
    """Reference-list markers → lists, when a host renders them."""

    def __init__(self, md: Markdown, extension: RefbookExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        host = self.extension.host
        return host.lists(text) if host is not None else text


class FootnoteTreeprocessor(Treeprocessor):
    """Lets the host tidy the page's footnotes (mkdocs-bibtex's full list) in the tree."""

    def __init__(self, md: Markdown, extension: RefbookExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, root: ET.Element) -> None:
        host = self.extension.host
        if host is not None:
            host.footnotes(root)


class RefbookExtension(Extension):
    """``markdown_extensions: [refbook]`` — the citation syntax alone (the plugin adds it itself)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: set by the plugin while one of its pages is rendered
        self.host: Host | None = None
        #: a bare ``@key`` is a citation (mkdocs-bibtex's ``enable_inline_citations``)
        self.narrative = True

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's API
        md.inlinePatterns.register(CitationProcessor(_EARLY_START.pattern, md, self, early=True),
                                   "refbook-citation-early", EARLY_PRIORITY)
        md.inlinePatterns.register(CitationProcessor(_START.pattern, md, self),
                                   "refbook-citation", PRIORITY)
        md.postprocessors.register(ListPostprocessor(md, self), "refbook-lists", LISTS_PRIORITY)
        md.treeprocessors.register(FootnoteTreeprocessor(md, self), "refbook-footnotes",
                                   FOOTNOTES_PRIORITY)


def makeExtension(**kwargs: Any) -> RefbookExtension:  # noqa: N802 - Python-Markdown's API
    return RefbookExtension(**kwargs)
