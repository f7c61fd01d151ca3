"""The MkDocs plugin: ``plugins: [refbook]``.

Where it sits: MkDocs' event loop around the core.

1. ``on_config`` validates the options (:mod:`mkdocs_refbook.options`) and adds the Markdown
   extension (:mod:`mkdocs_refbook.extension`); ``on_pre_build`` reads the ``.bib`` files (the
   core caches parses by content, so a rebuild re-parses only a changed file).
2. ``on_files``/``on_nav`` generate the References page when no page has a book-wide list marker.
3. ``on_page_markdown`` notes the source lines of citations; ``on_page_content`` collects the
   pending citations and list markers of the rendered page into the core's registry and leaves
   comment tokens in their place.
4. ``on_env`` (every page collected) resolves the book at once — year suffixes, numbers and
   back-links are book-wide — and reports diagnostics; ``on_page_context`` replaces the tokens
   before the theme and the search index see the page.

``on_startup`` keeps one plugin instance (and its caches) across ``mkdocs serve`` rebuilds;
``on_serve`` watches the ``.bib`` files.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils.meta import YAML_RE

from mkdocs_refbook import report
from mkdocs_refbook.extension import PENDING_CLASS, SOURCE_ATTR, RefbookExtension
from mkdocs_refbook.options import SCOPES, RefbookConfig, Settings, settings_from
from mkdocs_refbook.rendering import (
    STYLESHEET,
    STYLESHEET_PATH,
    Backlink,
    Links,
    bibliography_html,
    citation_html,
    entry_text,
)
from refbook.codemask import mask_code
from refbook.diagnostics import Code
from refbook.items import items_for
from refbook.models import Location
from refbook.readers import read_bibliography
from refbook.registry import CitationSite, Registry, Resolution
from refbook.syntax import find_citations
from refbook.validate import apply_config, check_bibliography
from refbook.validate.citations import unused_entries

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.toc import AnchorLink
    from mkdocs.utils.templates import TemplateContext

    from refbook.csl import Item
    from refbook.diagnostics import Diagnostic
    from refbook.models import Bibliography
    from refbook.syntax import Citation

MARKER = re.compile(r"<!--\s*refbook:bibliography(?:\s+(?P<scope>[\w-]+))?\s*-->")
_PENDING = re.compile(
    rf'<span class="{PENDING_CLASS}" {SOURCE_ATTR}="(?P<src>[^"]*)">.*?</span>', re.S)
_HEADING = re.compile(r'<h[1-6][^>]*\bid="(?P<id>[^"]*)"[^>]*>(?P<body>.*?)</h[1-6]>', re.S)
_TOKEN = re.compile(r"<!--refbook-(?P<kind>cite|list):(?P<arg>[\w-]+)-->")

def _squash(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class PageData:
    """What one rendered page contributes to the book."""

    src_uri: str
    title: str = ""
    #: (source, line) of each citation of the Markdown, code masked out, in text order
    candidates: list[tuple[str, int]] = field(default_factory=list)
    sites: list[CitationSite] = field(default_factory=list)
    #: section id → section title
    sections: dict[str, str] = field(default_factory=dict)
    lists: list[str] = field(default_factory=list)


def _front_matter_lines(page: Page, markdown: str) -> int:
    """Lines MkDocs took off the top of the page file (YAML or MultiMarkdown meta-data).

    Diagnostics name lines of the file, as Sphinx and ``refbook check`` do.
    """
    try:
        source = page.file.content_string
    except (OSError, UnicodeDecodeError):
        return 0
    if markdown and source.endswith(markdown):
        return source.count("\n", 0, len(source) - len(markdown))
    # another plugin changed the page: count MkDocs' YAML block (and the blank lines after it)
    m = YAML_RE.match(source)  # MkDocs' own pattern for the block
    if m is None:
        return 0
    rest = source[m.end():]
    return source.count("\n", 0, m.end()) + len(rest) - len(rest.lstrip("\n"))


class RefbookPlugin(BasePlugin[RefbookConfig]):  # type: ignore[valid-type,no-untyped-call]
    """Citations, reference lists and diagnostics for a whole MkDocs book."""

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.pages: dict[str, PageData] = {}
        self.files: Files | None = None
        self.nav_order: list[str] = []
        self.bibliography: Bibliography | None = None
        self.items: Mapping[str, Item] = {}
        self.resolution: Resolution | None = None
        self.generated_page = False
        self.list_appended_to: str | None = None
        self.home: str | None = None
        self.command = ""
        self.dirty = False
        self._extension = RefbookExtension()
        self._resolve_key: tuple[Any, ...] | None = None
        self._bib_keep: Bibliography | None = None
        self._entry_texts: dict[str, str] = {}
        self._entry_map: dict[str, Any] = {}
        self._page_objects: dict[str, Page] = {}
        self._bib_checks: list[Diagnostic] = []
        self._unused: list[Diagnostic] = []
        self._unused_key: tuple[Any, ...] | None = None
        self._check_key: tuple[Any, ...] | None = None
        self._check_keep: Bibliography | None = None

    # -- startup and config ------------------------------------------------------------------

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        # Having this method makes MkDocs keep this instance, and its caches, across rebuilds.
        self.command = command
        self.dirty = dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.settings = settings_from(self.config, config.config_file_path)
        # MkDocs types the list as names, but Python-Markdown takes Extension instances too
        exts: list[Any] = config.markdown_extensions
        if not any(isinstance(e, RefbookExtension) for e in exts):
            exts[:] = [e for e in exts if e not in ("refbook", "mkdocs_refbook.extension")]
            exts.append(self._extension)
        if self._settings.stylesheet and STYLESHEET_PATH not in config.extra_css:
            config.extra_css.append(STYLESHEET_PATH)
        return config

    def on_serve(self, server: LiveReloadServer, /, *, config: MkDocsConfig,
                 builder: Any) -> LiveReloadServer:
        for path in self._settings.bib_files:
            server.watch(path)
        return server

    @property
    def _settings(self) -> Settings:
        if self.settings is None:  # pragma: no cover - MkDocs always calls on_config first
            msg = "refbook: the plugin was used before on_config"
            raise PluginError(msg)
        return self.settings

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        if not self.dirty:
            # a --dirty build renders only changed pages: keep what the others contributed
            self.pages = {}
            self._page_objects = {}
        self.bibliography = read_bibliography(self._settings.bib_files)
        self.items = items_for(self.bibliography)
        check_key = (id(self.bibliography), self._settings.check)
        if check_key != self._check_key:
            # the rules run once per version of the .bib files (a page edit reuses the result)
            self._bib_checks = [
                report.localize(d, self._settings, self._abs_doc)
                for d in check_bibliography(self.bibliography, self._settings.check)]
            self._check_key = check_key
            self._check_keep = self.bibliography  # keeps id() in the key meaningful

    # -- the references page -----------------------------------------------------------------

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        self.files = files
        s = self._settings
        present = {f.src_uri for f in files.documentation_pages()}
        self.pages = {u: d for u, d in self.pages.items() if u in present}
        if s.stylesheet and files.get_file_from_path(STYLESHEET_PATH) is None:
            files.append(File.generated(config, STYLESHEET_PATH, content=STYLESHEET))
        has_book_list = False
        for f in files.documentation_pages():
            try:
                text = mask_code(f.content_string)
            except (OSError, UnicodeDecodeError):
                continue
            if any((m.group("scope") or "book") in ("book", "all") for m in MARKER.finditer(text)):
                has_book_list = True
                break
        self.generated_page = False
        # the author's own references page without a marker gets the list at its end
        self.list_appended_to = None
        if not has_book_list and files.get_file_from_path(s.references_page) is not None:
            self.list_appended_to = s.references_page
        elif not has_book_list:
            content = f"# {s.references_title}\n\n<!-- refbook:bibliography -->\n"
            files.append(File.generated(config, s.references_page, content=content))
            self.generated_page = True
            if config.nav is not None and not _nav_mentions(config.nav, s.references_page):
                # before MkDocs checks the nav, so the page is not reported as left out of it
                config.nav.append({s.references_title: s.references_page})
        return files

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        s = self._settings
        ref_file = files.get_file_from_path(s.references_page)
        if ref_file is not None and self.generated_page:
            page = ref_file.page
            if page is None:
                page = Page(s.references_title, ref_file, config)
            if page not in nav.pages:
                page.title = s.references_title
                nav.items.append(page)
                nav.pages.append(page)
                bookended = [None, *nav.pages, None]
                for before, current, after in zip(bookended[:-2], nav.pages, bookended[2:], strict=False):
                    current.previous_page, current.next_page = before, after
        self.nav_order = [p.file.src_uri for p in nav.pages]
        return nav

    # -- collecting pages --------------------------------------------------------------------

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        masked = mask_code(markdown)
        data = PageData(page.file.src_uri)
        offset = _front_matter_lines(page, markdown)
        data.candidates = [(_squash(c.source), c.line + offset) for c in find_citations(masked)]
        self.pages[page.file.src_uri] = data
        return markdown

    def on_page_content(self, html_text: str, /, *, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        data = self.pages.setdefault(page.file.src_uri, PageData(page.file.src_uri))
        self._page_objects[page.file.src_uri] = page
        data.title = page.title or page.file.name
        toc_titles = _toc_titles(page.toc.items if page.toc else [])
        headings = [(m.start(), m.group("id"), toc_titles.get(m.group("id"))
                     or _squash(re.sub(r"<[^>]+>", "", m.group("body"))))
                    for m in _HEADING.finditer(html_text)]
        data.sections = {h[1]: h[2] for h in headings}
        citations: list[tuple[Citation, str]] = []
        cursor = 0

        def pending(m: re.Match[str]) -> str:
            nonlocal cursor
            source = html.unescape(m.group("src"))
            found = find_citations(source)
            if not found:
                return html.escape(source)
            section = ""
            for pos, ident, _title in headings:
                if pos > m.start():
                    break
                section = ident
            # the n-th citation of the HTML is the next one of the Markdown with the same source;
            # one the Markdown does not show as such (added by another plugin) gets line 1
            line = 1
            key = _squash(source)
            for index in range(cursor, len(data.candidates)):  # no copy of the rest per citation
                cand, cand_line = data.candidates[index]
                if cand == key:
                    line = cand_line
                    cursor = index + 1
                    break
            citations.append((found[0], section))
            site_index = len(citations) - 1
            data.sites.append(CitationSite(data.src_uri, site_index, found[0], line, section,
                                           f"refbook-cite-{site_index}"))
            return f"<!--refbook-cite:{site_index}-->"

        html_text = _PENDING.sub(pending, html_text)

        def marker(m: re.Match[str]) -> str:
            scope = m.group("scope") or "book"
            if scope not in SCOPES:
                report.log.warning(
                    f"{self._doc_path(data.src_uri)}: unknown bibliography scope {scope!r} in "
                    f"{m.group(0)!r}; use one of {', '.join(SCOPES)}")
                return m.group(0)
            data.lists.append(scope)
            return f"<!--refbook-list:{scope}-->"

        html_text = MARKER.sub(marker, html_text)
        if data.src_uri == self.list_appended_to and not {"book", "all"} & set(data.lists):
            data.lists.append("book")
            html_text += "\n<!--refbook-list:book-->"
        if self._settings.per_page_lists and data.sites and "page" not in data.lists:
            data.lists.append("page")
            html_text += "\n<!--refbook-list:page-->"
        return html_text

    # -- resolving the book ------------------------------------------------------------------

    def _order(self) -> list[str]:
        order = [u for u in self.nav_order if u in self.pages]
        return order + [u for u in self.pages if u not in order]

    def _doc_path(self, src_uri: str) -> str:
        if self.files is not None:
            f = self.files.get_file_from_path(src_uri)
            if f is not None and f.abs_src_path:
                rel = os.path.relpath(f.abs_src_path, self._settings.root)
                return rel.replace(os.sep, "/")
        return src_uri

    @event_priority(-50)
    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        s = self._settings
        assert self.bibliography is not None
        order = self._order()
        registry = Registry()
        for uri in order:
            registry.add_sites(uri, self.pages[uri].sites)
        nocite: list[str] = list(s.nocite)
        if any("all" in self.pages[u].lists for u in order) and "*" not in nocite:
            nocite.append("*")
        # What the formatting depends on: not lines or sections, so an edit of prose (the usual
        # edit under `mkdocs serve`) reuses the last resolution and only re-locates diagnostics.
        key = (id(self.bibliography), s.style, tuple(order), tuple(nocite),
               tuple((u, tuple((x.citation.refs, x.citation.mode) for x in self.pages[u].sites))
                     for u in order))
        if key != self._resolve_key or self.resolution is None:
            self.resolution = registry.resolve(self.bibliography, self.items, s.style,
                                               order=order, nocite=nocite)
            self._entry_map = dict(self.resolution.entries)
            self._entry_texts = {}
            self._resolve_key = key
            self._bib_keep = self.bibliography  # keeps id() in the key meaningful
        resolution_diagnostics = self._relocated(self.resolution.diagnostics, order)
        for uri in order:  # before any page is written: the nav shows every page's title
            if uri in self._page_objects:
                self._fix_titles(self._page_objects[uri], self.pages[uri])
        self.home = next((u for u in order for scope in self.pages[u].lists
                          if scope in ("book", "all")), None)
        if self.home is None and any(self.pages[u].sites for u in order):
            report.log.warning(
                "no page holds the book's reference list (a '<!-- refbook:bibliography -->' "
                f"marker outside code), so citations cannot link to their entries; remove the "
                f"marker from code or add one to {s.references_page!r}")
        # the book's citations under the same options as the .bib rules: unknown and
        # wrong-case keys at the citing line, entries that no list shows at the entry
        used = frozenset({k for k, _ in self.resolution.entries} | {
            k for u in order for x in self.pages[u].sites for k in x.citation.keys})
        unused_key = (self._check_key, used)
        if unused_key != self._unused_key:
            # thousands on a shared bibliography: configured and located once per citation set
            unused = (unused_entries(self.bibliography, used)
                      if s.check.enabled(Code.UNUSED_ENTRY) else [])
            self._unused = [report.localize(d, s, self._abs_doc)
                            for d in apply_config(unused, s.check, self.bibliography)]
            self._unused_key = unused_key
        citation_checks = apply_config(resolution_diagnostics, s.check, self.bibliography)
        diagnostics = [*self._bib_checks,
                       *(report.localize(d, s, self._abs_doc) for d in citation_checks),
                       *self._unused]
        failing = report.report(diagnostics, s)
        if s.strict and failing:
            lines = "\n".join(d.format() for d in failing)
            msg = f"refbook strict mode: {len(failing)} problem(s):\n{lines}"
            raise PluginError(msg)
        return env

    def _relocated(self, diagnostics: Sequence[Diagnostic], order: Sequence[str]) -> list[Diagnostic]:
        """Unknown-key diagnostics at the current lines (a reused resolution has the old ones).

        The registry reports each cited key that is not in the bibliography, in citation order,
        as ``unknown-key`` or (another case of an existing key) ``cite-case``.
        """
        places = iter([Location(u, site.line) for u in order for site in self.pages[u].sites
                       for k in site.citation.keys if k not in self.items])
        out = []
        for d in diagnostics:
            if d.code in (Code.UNKNOWN_KEY, Code.CITE_CASE) and d.location is not None:
                d = replace(d, location=next(places, d.location))
            out.append(d)
        return out

    def _abs_doc(self, name: str) -> str | None:
        if name in self.pages:
            return self._doc_path(name)
        return None

    # -- writing pages -----------------------------------------------------------------------

    @event_priority(50)  # before the search plugin indexes the page
    def on_page_context(self, context: TemplateContext, /, *, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> TemplateContext:
        data = self.pages.get(page.file.src_uri)
        if data is None or self.resolution is None or page.content is None:
            return context
        page.content = self._fill(page.content, data, page)
        return context

    def _fix_titles(self, page: Page, data: PageData) -> None:
        """A citation in a heading: the toc and the page title show its text, not its source."""
        assert self.resolution is not None
        by_section: dict[str, list[tuple[str, str]]] = {}
        for site in data.sites:
            ir = self.resolution.citations.get((data.src_uri, site.index))
            if ir is not None:
                by_section.setdefault(site.section, []).append(
                    (site.citation.source, entry_text(ir)))
        if not by_section:
            return

        def fix(title: str, ident: str) -> str:
            for source, text in by_section.get(ident, ()):
                title = title.replace(source, text).replace(html.escape(source), html.escape(text))
            return title

        def walk(items: Sequence[AnchorLink]) -> None:
            for item in items:
                item.title = fix(item.title, item.id)
                walk(item.children)

        if page.toc:
            walk(page.toc.items)
            first = page.toc.items[0] if page.toc.items else None
            if first is not None and page.title:
                page.title = fix(page.title, first.id)
                data.title = page.title

    def _entry_text(self, key: str) -> str | None:
        if key not in self._entry_texts:
            ir = self._entry_map.get(key)
            if ir is None:
                return None
            self._entry_texts[key] = entry_text(ir)
        return self._entry_texts[key]

    def _url_to(self, src_uri: str, page: Page) -> str:
        if src_uri == page.file.src_uri:
            return ""
        assert self.files is not None
        target = self.files.get_file_from_path(src_uri)
        if target is None:
            return ""
        return target.url_relative_to(page.file)

    def _links(self, page: Page) -> Links:
        home = self.home
        home_url = self._url_to(home, page) if home is not None else None

        def entry_page(key: str) -> str | None:
            if key not in self._entry_map or home_url is None:
                return None
            return home_url

        return Links(entry_page, self._entry_text, self._settings.tooltips)

    @event_priority(-50)
    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        """Citations the theme or another plugin rendered outside the page content."""
        if self.resolution is None or PENDING_CLASS not in output:
            return output
        links = self._links(page)
        by_source = {(site.citation.refs, site.citation.mode): self.resolution.citations[(uri, site.index)]
                     for uri in reversed(self._order()) for site in reversed(self.pages[uri].sites)
                     if (uri, site.index) in self.resolution.citations}
        count = 0

        def leftover(m: re.Match[str]) -> str:
            nonlocal count
            source = html.unescape(m.group("src"))
            found = find_citations(source)
            ir = by_source.get((found[0].refs, found[0].mode)) if found else None
            if ir is None:
                report.log.info(f"{self._doc_path(page.file.src_uri)}: the citation {source!r} is "
                                "outside the page's content and cited nowhere in the book, so it "
                                "is shown as written")
                return html.escape(source)
            count += 1
            return citation_html(ir, f"refbook-cite-x{count}", links)

        return _PENDING.sub(leftover, output)

    def _fill(self, content: str, data: PageData, page: Page) -> str:
        assert self.resolution is not None
        res = self.resolution
        s = self._settings
        home = self.home
        links = self._links(page)
        # only the first book-wide list of the home page carries the ids
        ids_done = False

        def token(m: re.Match[str]) -> str:
            if m.group("kind") == "cite":
                i = int(m.group("arg"))
                ir = res.citations.get((data.src_uri, i))
                if ir is None:
                    return ""
                return citation_html(ir, f"refbook-cite-{i}", links)
            scope = m.group("arg")
            if scope == "page":
                keys = {k for site in data.sites for k in site.citation.keys}
                entries = [(k, v) for k, v in res.entries if k in keys]
            else:
                entries = list(res.entries)
            nonlocal ids_done
            with_ids = scope != "page" and data.src_uri == home and not ids_done
            ids_done = ids_done or with_ids
            back = self._backlinks(page) if s.backlinks and with_ids else {}
            return bibliography_html(entries, with_ids=with_ids, backlinks=back, scope=scope)

        return _TOKEN.sub(token, content)

    def _backlinks(self, page: Page) -> dict[str, tuple[Backlink, ...]]:
        assert self.resolution is not None
        out: dict[str, tuple[Backlink, ...]] = {}
        by_key: dict[str, list[CitationSite]] = {}
        for uri in self._order():
            for site in self.pages[uri].sites:
                for k in site.citation.keys:
                    by_key.setdefault(k, []).append(site)
        for key, sites in by_key.items():
            seen: set[tuple[str, str]] = set()
            links: list[Backlink] = []
            for site in sites:
                where = (site.document, site.section)
                if where in seen:
                    continue
                seen.add(where)
                pdata = self.pages.get(site.document)
                title = pdata.title if pdata else site.document
                section = pdata.sections.get(site.section, "") if pdata else ""
                text = title if not section or section == title else f"{title} › {section}"
                href = self._url_to(site.document, page) + f"#{site.anchor}"
                links.append(Backlink(href, text))
            out[key] = tuple(links)
        return out


def _nav_mentions(nav: Any, path: str) -> bool:
    if isinstance(nav, str):
        return nav.strip("/") == path
    if isinstance(nav, dict):
        return any(_nav_mentions(v, path) for v in nav.values())
    if isinstance(nav, list):
        return any(_nav_mentions(v, path) for v in nav)
    return False


def _toc_titles(items: Sequence[AnchorLink]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        out[item.id] = html.unescape(re.sub(r"<[^>]+>", "", item.title))
        out.update(_toc_titles(item.children))
    return out

