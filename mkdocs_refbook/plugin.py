"""The MkDocs plugin: ``plugins: [refbook]``.

Where it sits: MkDocs' event loop around the core.

1. ``on_config`` validates the options (:mod:`mkdocs_refbook.options`) and adds the Markdown
   extension (:mod:`mkdocs_refbook.extension`); ``on_pre_build`` reads the ``.bib`` files (the
   core caches parses by content, so a rebuild re-parses only a changed file).
2. ``on_files`` generates the References page when no page has a book-wide list marker.
3. ``on_nav`` (the nav gives the book's order) reads every page's Markdown source with the same
   finder as the rest of the flow (code masked out) and resolves the whole book — year suffixes,
   numbers and back-links are book-wide — *before* any page is rendered.
4. ``on_page_markdown`` (late, after e.g. macros changed the page) checks the page's final
   Markdown against that reading and resolves again if its citations differ; while Markdown →
   HTML runs, the extension asks the plugin for each citation's final HTML and each list. So
   every other plugin's ``on_page_content``/``on_post_page`` sees real, non-empty content — a
   page holding only a list marker is a normal page to them.
5. ``on_page_content`` collects what the rendered page really holds (citations, sections,
   lists): this is the consistency check. ``on_env`` resolves the book again only if that differs
   from what the pages were rendered with, and reports diagnostics; ``on_page_context`` then
   re-fills those pages' citations, and renders each list again with back-links that name the
   rendered pages and sections, before the theme and the search index see the page.

``on_startup`` keeps one plugin instance (and its caches) across ``mkdocs serve`` rebuilds;
``on_serve`` watches the ``.bib`` files.
"""

from __future__ import annotations

import html
import os
import posixpath
import re
import xml.etree.ElementTree as ET
from bisect import bisect_left, bisect_right
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Literal

from markdown.extensions.footnotes import NBSP_PLACEHOLDER
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import YAML_RE, get_data

from mkdocs_refbook import report
from mkdocs_refbook.extension import PENDING_CLASS, SOURCE_ATTR, RefbookExtension
from mkdocs_refbook.options import SCOPES, RefbookConfig, Settings, settings_from
from mkdocs_refbook.pagememo import PageMemo, Reading, digest, plugin_stamp
from mkdocs_refbook.rendering import (
    STYLESHEET,
    STYLESHEET_PATH,
    Links,
    backlinks_html,
    bibliography_html,
    citation_html,
    cite_targets,
    entry_text,
)
from refbook import __version__, bibcache, cachedir, sealed
from refbook.codemask import mask_mkdocs_code
from refbook.diagnostics import Code, Diagnostic
from refbook.gcpause import paused_gc, settle_heap, skip_final_collection
from refbook.items import Items, items_for, load_items, save_items
from refbook.models import Location
from refbook.readers import read_bibliography, read_bibliography_deferred, read_digest
from refbook.records import field, record, replace
from refbook.registry import CitationSite, Registry, Resolution
from refbook.render.html import WORD_JOINER, to_title
from refbook.render.reference_list import CitingPlace, backlinks, rendered_title
from refbook.render.text import one_line
from refbook.styles import CslStyle, StyleError, get_style, keep_parsed_styles_in
from refbook.syntax import find_citations
from refbook.validate import apply_config, check_bibliography, printed_key, recheck_printed

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Mapping, Sequence

    from jinja2 import Environment
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.toc import AnchorLink
    from mkdocs.utils.templates import TemplateContext

    from mkdocs_refbook.notes import Placed
    from refbook.csl import Item
    from refbook.ir import Inlines
    from refbook.models import Bibliography, Entry
    from refbook.render.reference_list import BackLinks
    from refbook.syntax import Citation

MARKER = re.compile(r"<!--\s*refbook:bibliography(?:\s+(?P<scope>[\w-]+))?\s*-->")
_PENDING = re.compile(
    rf'<span class="{PENDING_CLASS}" {SOURCE_ATTR}="(?P<src>[^"]*)">.*?</span>', re.S)
_HEADING = re.compile(r'<h[1-6][^>]*\bid="(?P<id>[^"]*)"[^>]*>(?P<body>.*?)</h[1-6]>', re.S)
# a citation rendered by the plugin: its id holds its index in the page's Markdown
_CITE_OPEN = re.compile(r'<span class="refbook-cite" id="refbook-cite-(?P<n>\d+)">')
_ANY_CITE = re.compile(f"{_CITE_OPEN.pattern}|{_PENDING.pattern}", re.S)
_SPAN_TAG = re.compile(r"<(/?)span\b[^>]*>")
# a list rendered by the plugin: comments just inside its outer element mark what is rendered
# again in place (a plugin that parses and re-serializes the page, as mkdocs-video does with
# lxml, keeps comments inside an element but may drop one before the first element)
_FIRST_TAG = re.compile(r"\s*<[^<>]+>")
_LIST_REGION = re.compile(
    r"<!--refbook-list:(?P<scope>[\w-]+)-->.*?<!--/refbook-list-->", re.S)
_TAG = re.compile(r"<!--.*?-->|<[^<>]*>", re.S)
_ID = re.compile(r'\bid="([^"]*)"')
# a footnote of Python-Markdown's footnotes extension, and its back references
_FOOTNOTE_ITEM = re.compile(
    r'(?P<open><li id="fn:(?P<label>[^"]*)">)(?P<body>.*?)(?P<close></li>)', re.S)
_BACKREF = re.compile(r'(?:&#160;)?(?P<link><a class="footnote-backref" href="#(?P<target>[^"]*)"'
                      r'[^>]*>.*?</a>)', re.S)


def _keyed(key: tuple[Any, ...], make: Callable[[], object]) -> tuple[tuple[Any, ...], object]:
    """A cache file's content: the key of its inputs, and the value ``make`` gives."""
    return key, make()


def _packed_checks(printed: frozenset[str], checks: Sequence[Diagnostic],
                   ) -> tuple[frozenset[str], tuple[Any, ...]]:
    """What the ``bib-checks`` cache file holds: the printed entries and the diagnostics."""
    return printed, cachedir.pack_diagnostics(checks)


def _mask_code(markdown: str) -> str:
    """Fenced code, indented code and code spans blanked out, keeping offsets and line numbers,
    each in linear time (:mod:`refbook.codemask`, which ``refbook check --docs`` uses too)."""
    return mask_mkdocs_code(markdown)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _plain(html_text: str) -> str:
    """The text of a bit of HTML (MkDocs' titles are HTML), on one line, without the word
    joiners ``escape_title`` adds (it adds them again)."""
    text = html.unescape(re.sub(r"<[^<>]*>", "", html_text)).replace(WORD_JOINER, "")
    return one_line(text)


@record()
class PageData:
    """What one page contributes to the book."""

    src_uri: str
    #: the page's title, plain text
    title: str = ""
    #: the citations of the page's Markdown (code masked out), in text order, lines of the file:
    #: read before rendering, checked against the page's final Markdown
    expected: list[Citation] = field(default_factory=list)
    #: the citations the rendered page holds
    sites: list[CitationSite] = field(default_factory=list)
    #: ``footnotes`` output: the id each citation of ``expected`` can be found at
    anchors: list[str] = field(default_factory=list)
    #: ``footnotes`` output: for each citation of ``expected``, the id of each key's footnote
    #: reference (a key without one: the citation's id)
    ref_anchors: list[tuple[str, ...]] = field(default_factory=list)
    #: ``footnotes`` output: footnote label → entry key of the footnotes of the full list
    full_labels: dict[str, str] = field(default_factory=dict)
    #: ``footnotes`` output: the scopes of the lists written as footnotes ("all")
    footnote_lists: list[str] = field(default_factory=list)
    #: problems found while the page's Markdown was written (reported with the book's)
    problems: list[Diagnostic] = field(default_factory=list)
    #: for each site, the HTML it was rendered with (None: left pending)
    shown: list[str | None] = field(default_factory=list)
    #: section id → section title, plain text
    sections: dict[str, str] = field(default_factory=dict)
    #: scopes of the page's lists (from its Markdown before rendering, from its HTML after)
    lists: list[str] = field(default_factory=list)
    #: the resolution the page was rendered with
    rendered_with: tuple[Any, ...] | None = None
    #: the rendered citations are not the Markdown's one for one (their ids need renumbering)
    renumbered: bool = False
    #: the page file's text when it was read before rendering
    source: str | None = None
    #: note styles: where each citation of ``expected`` is printed (its note)
    placed: list[Placed] = field(default_factory=list)


@record()
class _Rendering:
    """The page whose Markdown is being rendered: the extension's host meanwhile."""

    plugin: RefbookPlugin
    page: Page
    data: PageData
    cursor: int = 0
    ids_done: bool = False
    #: how many lists of the page are rendered so far
    lists_done: int = 0
    emitted: dict[int, str] = field(default_factory=dict)
    links: Links | None = None

    def cite(self, citation: Citation) -> str | None:
        return self.plugin._cite_while_rendering(self, citation)

    def lists(self, text: str) -> str:
        return self.plugin._lists_while_rendering(self, text)

    def footnotes(self, root: ET.Element) -> None:
        if self.data.full_labels:
            _drop_dangling_backrefs(root, self.data.full_labels)
        if any(not p.in_note for p in self.data.placed):
            from mkdocs_refbook.notes import renumber  # note styles only

            renumber(root)


def _blank_front_matter(source: str) -> str:
    """The page file with its meta-data block blanked out (lines kept)."""
    body, _ = get_data(source)
    if not source.endswith(body):
        return source
    cut = len(source) - len(body)
    return re.sub(r"[^\n]", " ", source[:cut]) + body


def _delimit(body: str, scope: str) -> str:
    """A list's HTML with the comments that mark it just inside its outer element."""
    first = _FIRST_TAG.match(body)
    last = body.rstrip().rfind("</")
    if first is None or last < first.end():  # not one element: give it one
        body = f"<div>{body}</div>"
        first, last = _FIRST_TAG.match(body), len(body) - len("</div>")
        assert first is not None
    start = first.end()
    return (f"{body[:start]}<!--refbook-list:{scope}-->{body[start:last]}"
            f"<!--/refbook-list-->{body[last:]}")


def _placed(data: PageData, i: int) -> dict[str, Any]:
    """A site's note (note styles), as ``CitationSite`` fields."""
    if i < len(data.placed):
        return {"note": data.placed[i].note, "in_note": data.placed[i].in_note}
    return {}


_FOOTNOTES = "<!-- refbook:footnotes -->"
#: ``footnotes`` output: mkdocs-bibtex's full list, every entry as a footnote
_FOOTNOTES_ALL = "<!-- refbook:footnotes all -->"
_FOOTNOTE_MARKERS = re.compile(f"{re.escape(_FOOTNOTES)}|{re.escape(_FOOTNOTES_ALL)}")
@lru_cache(maxsize=8)
def _command_pattern(*commands: str) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(commands, key=len, reverse=True))))


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it."""
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == \
            os.path.abspath(folder)
    except ValueError:  # other drives
        return False


def _label(footnote_format: str, key: str) -> str:
    """A footnote label (mkdocs-bibtex's ``footnote_format``); "]" would end it."""
    return footnote_format.replace("{key}", key).replace("]", "")


def _unresolved_md(key: str) -> str:
    """An unknown key in footnote output, as Markdown: a visible marker."""
    from refbook.render.markdown import escape_markdown  # footnote output only

    return (f'<span class="refbook-unresolved" data-key="{html.escape(key)}">'
            f"({escape_markdown(key)}?)</span>")


def _drop_dangling_backrefs(root: ET.Element, labels: Container[str]) -> None:
    """The back references of the footnotes of mkdocs-bibtex's full list that point nowhere
    (the entry is not cited on the page), removed from the page's tree."""
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    for li in root.iter("li"):
        ident = li.get("id", "")
        if not ident.startswith("fn:") or ident[3:] not in labels:
            continue
        for p in li.iter("p"):
            children = list(p)
            links = [a for a in children if a.tag == "a" and a.get("class") == "footnote-backref"]
            dangling = [a for a in links if a.get("href", "")[1:] not in ids]
            for a in dangling:
                at = list(p).index(a)
                if a.tail:  # keep text after it
                    if at:
                        p[at - 1].tail = (p[at - 1].tail or "") + a.tail
                    else:
                        p.text = (p.text or "") + a.tail
                p.remove(a)
            if dangling and len(dangling) == len(links):
                # the no-break space the footnotes extension put before its first link
                at = children.index(links[0])
                before = children[at - 1] if at else None
                text = (before.tail if before is not None else p.text) or ""
                if text.endswith(NBSP_PLACEHOLDER):
                    text = text[:-len(NBSP_PLACEHOLDER)]
                    if before is not None:
                        before.tail = text
                    else:
                        p.text = text


def _span_end(text: str, pos: int) -> int:
    """The end of the ``<span>`` opened just before ``pos`` (spans nested in it included)."""
    depth = 1
    for m in _SPAN_TAG.finditer(text, pos):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.end()
    return len(text)


def _rendered_citations(text: str) -> list[tuple[int, int, int | None, str]]:
    """Each citation of rendered HTML: start, end, index it was rendered with (None: pending),
    source (pending ones)."""
    out: list[tuple[int, int, int | None, str]] = []
    pos = 0
    while (m := _ANY_CITE.search(text, pos)) is not None:
        if m.group("n") is not None:
            end = _span_end(text, m.end())
            out.append((m.start(), end, int(m.group("n")), ""))
        else:
            end = m.end()
            out.append((m.start(), end, None, html.unescape(m.group("src"))))
        pos = end
    return out


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
        self.style: CslStyle = get_style("chicago-author-date")
        self.resolution: Resolution | None = None
        self.generated_page = False
        self.list_appended_to: str | None = None
        self.home: str | None = None
        self.command = ""
        #: this build holds its cache writes (on_pre_build) until on_env forks their writer
        self._holding = False
        self.dirty = False
        self._extension = RefbookExtension()
        self._given: frozenset[str] = frozenset()
        self._resolve_key: tuple[Any, ...] | None = None
        self._bib_keep: Bibliography | None = None
        self._entry_texts: dict[str, str] = {}
        self._entry_map: dict[str, Any] = {}
        #: the pybtex style of the entry text (mkdocs-bibtex's look), once pybtex is found
        self._entry_style: str | None = None
        self._page_objects: dict[str, Page] = {}
        self._bib_checks: list[Diagnostic] = []
        self._unused: list[Diagnostic] = []
        self._unused_key: tuple[Any, ...] | None = None
        #: the root the last check's diagnostics were located from (``_bib_checks``)
        self._checked_root = ""
        #: ((bibliography, check options, root), every entry's unused-entry diagnostic, and
        #: by key the entry and its diagnostic (None: not reported)): _every_unused
        self._unused_all: tuple[tuple[Any, ...], list[Diagnostic],
                                dict[str, tuple[Entry, Diagnostic | None]]] | None = None
        self._check_key: tuple[Any, ...] | None = None
        self._check_keep: Bibliography | None = None
        #: the last check's key (``_check_bibliography``) and its diagnostics, not localized
        self._last_checks: tuple[tuple[Any, ...], list[Diagnostic]] | None = None
        #: the persistent cache (``cache_dir``) as checked this build; None: not used
        self._cache: cachedir.Prepared | None = None
        self._cache_dir: str | None = None
        self._bib_digest = ""
        #: the style's language (``_style_language``)
        self._language = "en-US"
        #: key → where it is cited, for back-links (computed once per build, when first needed)
        self._places: dict[str, list[tuple[str, str, str, str]]] | None = None
        #: each page's reading and each citation's and list's HTML, kept across builds
        #: (:mod:`mkdocs_refbook.pagememo`)
        self._memo = PageMemo()
        #: the keys the book uses, and the resolution key and resolution they were found from
        self._used: tuple[Any, Resolution, frozenset[str]] | None = None
        #: cache file → the key of what it holds, as this instance last read or wrote it
        self._folder_keys: dict[Any, tuple[Any, ...]] = {}
        #: the resolution's identity: drawn when it is made, kept with it in the cache folder
        #: (the lists' HTML memo is keyed by it)
        self._resolved_from = b""

    # -- startup and config ------------------------------------------------------------------

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        # Having this method makes MkDocs keep this instance, and its caches, across rebuilds.
        self.command = command
        self.dirty = dirty
        # a command-line run (on_startup is called by MkDocs' commands only): its exit need
        # not rescan the objects the build leaves (refbook.gcpause)
        skip_final_collection()

    def load_config(self, options: dict[str, Any],
                    config_file_path: str | None = None) -> tuple[Any, Any]:
        # which options the user set: the output form "auto" follows them
        self._given = frozenset(options)
        return super().load_config(options, config_file_path)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.settings = settings_from(self.config, config.config_file_path, self._given)
        self._entry_style = self.settings.entry_style
        if self._entry_style is not None:
            report.log.info(
                f"entries are formatted with pybtex's {self._entry_style!r} style, as "
                "mkdocs-bibtex formats them without a csl_file; set style: chicago-author-date "
                "(or numeric, or a CSL style) for refbook's styles")
        cache = self.settings.cache_dir
        # (a stand-in config, as mkdocs-bibtex's own tests pass, may have no docs_dir)
        docs_dir = getattr(config, "docs_dir", None)
        if cache is not None and docs_dir and _inside(cache, docs_dir):
            # its files would be copied into the site, and `mkdocs serve` would rebuild on
            # every write of the cache, for ever
            msg = (f"refbook: 'cache_dir' ({cache}) is inside docs_dir ({docs_dir}); "
                   "put it next to mkdocs.yml (the default is .cache/refbook) or set it to false")
            raise PluginError(msg)
        # MkDocs types the list as names, but Python-Markdown takes Extension instances too;
        # only this plugin's instance renders for it (not one left by an earlier config)
        exts: list[Any] = config.markdown_extensions
        exts[:] = [e for e in exts if not isinstance(e, RefbookExtension)
                   and e not in ("refbook", "mkdocs_refbook.extension")]
        exts.append(self._extension)
        self._extension.host = None
        self._extension.narrative = self._settings.narrative
        if (self._settings.output == "footnotes" or self._note_style()) and not any(
                e in ("footnotes", "markdown.extensions.footnotes") for e in exts):
            # mkdocs-bibtex asks users to add it; its form needs it, and so do note styles
            exts.insert(0, "footnotes")
        if self._settings.stylesheet and STYLESHEET_PATH not in config.extra_css:
            config.extra_css.append(STYLESHEET_PATH)
        return config

    def on_serve(self, server: LiveReloadServer, /, *, config: MkDocsConfig,
                 builder: Any) -> LiveReloadServer:
        s = self._settings
        for path in s.bib_files:
            server.watch(path)
        if s.bib_dir is not None:
            # the folder, not only the files found now: MkDocs loads the config again on each
            # rebuild, so a .bib file added to it (or removed) is read (or dropped) then
            server.watch(s.bib_dir)
        if os.path.isfile(s.style):  # a .csl file: an edit rebuilds
            server.watch(s.style)
        # the first build has filled the cache folder; the rebuilds that follow keep their
        # results in memory and the folder is written once, when `mkdocs serve` stops
        # (on_shutdown): not after every edit (docs/design/performance.md, "Fourth part")
        if self._cache_dir is not None:
            sealed.defer_writes()
        # one full collection now, while the server starts, not in the middle of an edit's
        # rebuild (refbook.gcpause.settle_heap)
        settle_heap()
        return server

    def on_shutdown(self) -> None:
        sealed.flush()

    def _write_held(self, *, background: bool = False) -> None:
        """The cache files held since on_pre_build: written by a child (``background``: on_env,
        the book's results all made), or here and now, with every child waited for (the
        build's end: on_env did not run if another plugin ended the build before it)."""
        if self._holding:
            self._holding = False
            if background:
                sealed.flush_in_background()
            else:
                sealed.flush()
        if not background:
            sealed.settle()

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build still writes the cache files it made (held since on_pre_build)."""
        self._write_held()

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        # the cache files handed to a child in on_env are written before the build returns
        self._write_held()
        # the memo keeps what this build used, and the cache folder keeps the memo (under
        # `mkdocs serve`, written when it stops: sealed.defer_writes)
        self._memo.end_build()
        if self._cache_dir is not None and self._memo.changed:
            self._store("pages", (plugin_stamp(),), self._memo.packed())
            self._memo.changed = False
        if self.command == "serve" and self._cache_dir is not None:
            # the first build of `mkdocs serve` has filled the folder: from now on each file's
            # latest value waits in memory until serve stops (on_shutdown), as on_serve asks
            # too; a serve-like driver that never calls on_serve (a benchmark, an IDE) writes
            # no more than serve itself
            sealed.defer_writes()

    def _note_style(self) -> bool:
        """The book's style is a note style: its citations become footnotes."""
        if self._settings.output != "refbook":
            return False
        try:
            return get_style(self._settings.style, locale=self._settings.locale).kind == "note"
        except StyleError:
            return False

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
        cache = self._settings.cache_dir
        # checked once per build: a folder of another refbook version is cleared first
        self._cache = cachedir.prepare(cache) if cache is not None else None
        self._cache_dir = cache if self._cache is not None and self._cache.usable else None
        # a one-shot build holds the cache files it writes (the .bib files' parse and pieces,
        # the resolution, the memos, the check) until the book is checked (on_env), and a
        # forked child writes them while MkDocs writes the pages (refbook.sealed.
        # flush_in_background); on_post_build waits for it. `mkdocs serve` holds its writes
        # until it stops (on_serve).
        self._holding = (self.command != "serve" and self._cache_dir is not None
                         and not sealed.holding())
        if self._holding:
            sealed.hold_writes()
        # the parsed style is kept there too (read once, not in every build process)
        keep_parsed_styles_in(self._cache_dir)
        # parsed when first used: a build whose checks and resolution come from the cache
        # folder (keyed by the files' digests) never parses the files; but `mkdocs serve`
        # parses them in its first build, so that the first edit of a citation (a new
        # resolution, which needs the entries) does not wait for it
        read = read_bibliography if self.command == "serve" else read_bibliography_deferred
        self.bibliography = read(self._settings.bib_files, cache_dir=self._cache_dir)
        # read afresh every build: an edited .csl file (under `mkdocs serve`) has a new digest
        try:
            self.style = get_style(self._settings.style, locale=self._settings.locale)
        except StyleError as exc:  # the file changed into a broken one since on_config
            raise PluginError(f"refbook: {exc.diagnostic.format()}") from None
        # what the cache folder's book-wide results are keyed by: the digests of the bytes just
        # read (the parse and the results keyed by it agree; no second read of every file)
        self._bib_digest = ((read_digest(self._settings.bib_files)
                             or bibcache.files_digest(self._settings.bib_files))
                            if self._cache_dir is not None else "")
        s = self._settings
        self._memo.follow((s.bib_command, s.full_bib_command, s.output, s.narrative))
        if self._cache_dir is not None and not self._memo.loaded:
            # once per process: `mkdocs serve` keeps the memo in memory after its first build
            self._memo.loaded = True
            if self._memo.unpack(self._cached("pages", (plugin_stamp(),))):
                self._memo.changed = False
        self._language = self._style_language()
        self.items = items_for(self.bibliography, self._language)

    def _check_bibliography(self, printed: frozenset[str]) -> None:
        """The .bib rules' diagnostics (``_bib_checks``), ``printed`` the keys of the entries
        the book prints (cited or listed: ``refbook.validate.validate``). The rules run once per
        version of the .bib files and set of printed entries (a prose edit reuses the result),
        and once per version in the cache folder (a new build process reuses it)."""
        assert self.bibliography is not None
        bib, check = self.bibliography, self._settings.check
        check_key = (id(bib), check, printed)
        if check_key == self._check_key:
            return
        disk_key = (self._bib_digest, check, printed_key(printed))
        checks: list[Diagnostic] | None = None
        last = self._last_checks
        if last is not None and last[0][:2] == check_key[:2]:
            # the same files, another set of printed entries (a citation edit): the rules run
            # on the entries whose printing changed (refbook.validate.recheck_printed)
            checks = recheck_printed(last[1], bib, check, last[0][2], printed)
        elif (self._cache_dir is not None
              and self._folder_may_hold("bib-checks", disk_key[:2])
              and (found := self._stored("bib-checks")) is not None):
            # the last result in the cache folder: this very check, or one of the same files
            # with other entries printed
            key, value = found
            if (key[:2] == disk_key[:2] and isinstance(value, tuple) and len(value) == 2
                    and isinstance(value[0], frozenset)):
                previous = cachedir.unpack_diagnostics(value[1])
                if previous is not None and key == disk_key:
                    checks = previous
                    self._folder_keys[self._cache_file("bib-checks")] = key  # (as _cached)
                elif previous is not None:
                    checks = recheck_printed(previous, bib, check, value[0], printed)
        if checks is None:
            checks = check_bibliography(bib, check, memo_dir=self._cache_dir, printed=printed)
        if self._cache_dir is not None and (
                self._folder_keys.get(self._cache_file("bib-checks")) != disk_key):
            self._store("bib-checks", disk_key,
                        sealed.Later(partial(_packed_checks, printed, checks)))
        # located as the last check's were: the diagnostics a re-check kept (all but those of
        # the entries whose printing changed) are the same objects, and keep their located
        # form (and so the report's line for it: mkdocs_refbook.report)
        root = self._settings.root
        known = ({id(raw): done for raw, done in zip(last[1], self._bib_checks, strict=True)}
                 if last is not None and root == self._checked_root else {})
        self._last_checks = (check_key, checks)
        self._bib_checks = [known.get(id(d)) or report.localize(d, self._settings, self._abs_doc)
                            for d in checks]
        self._checked_root = root
        self._check_key = check_key
        self._check_keep = bib  # keeps id() in the key meaningful

    def _style_language(self) -> str:
        """The style's language. Knowing it means parsing the style and its locale (XML), which
        a build whose results all come from the cache folder needs for nothing else: the folder
        keeps it under the style's digest (its file, a dependent style's parent, the locale)."""
        key = (self.style.digest,)
        found = self._cached("language", key)
        if isinstance(found, str):
            return found
        try:
            language = self.style.language
        except StyleError as exc:  # the file changed into a broken one since on_config
            raise PluginError(f"refbook: {exc.diagnostic.format()}") from None
        self._store("language", key, language)
        return language

    # -- the cache folder's book-wide results ------------------------------------------------

    def _cache_file(self, kind: str) -> Any:
        from pathlib import Path

        from refbook.memo import code_stamp

        assert self._cache_dir is not None
        return Path(self._cache_dir) / f"{kind}-{__version__}-{code_stamp()}.pickle"

    def _cached(self, kind: str, key: tuple[Any, ...]) -> object:
        """The result stored under ``kind`` if it was made from inputs equal to ``key`` (compared
        as values, after the file's seal checked out), else ``None``."""
        if self._cache_dir is None:
            return None
        path = self._cache_file(kind)
        held = self._folder_keys.get(path)
        if held is not None and held != key:
            # this instance read or wrote the file last and its key differs: reading it again
            # (under `mkdocs serve`, writing it first: sealed.defer_writes) would find a miss
            return None
        found = sealed.load(path)
        if isinstance(found, tuple) and len(found) == 2:
            self._folder_keys[path] = found[0]
            if found[0] == key:
                return found[1]
        return None

    def _folder_may_hold(self, kind: str, start: tuple[Any, ...]) -> bool:
        """Whether the file of ``kind`` may have been made from inputs whose key starts with
        ``start``: not when this instance wrote or read it last under another key. Under
        ``mkdocs serve``, after a .bib edit, the check's file held the last version's result:
        reading it wrote it first (packing 27,000 diagnostics of a 20,000-entry file), only to
        find it of other files."""
        held = self._folder_keys.get(self._cache_file(kind))
        return held is None or held[:len(start)] == start

    def _stored(self, kind: str) -> tuple[tuple[Any, ...], object] | None:
        """What the cache folder holds under ``kind``, with the key it was made from."""
        found = sealed.load(self._cache_file(kind))
        if isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], tuple):
            return found[0], found[1]
        return None

    def _store(self, kind: str, key: tuple[Any, ...], value: object) -> None:
        """Keep ``value`` under ``kind`` with the key of its inputs. A ``sealed.Later`` value
        is made when the file is written: under ``mkdocs serve``, which holds its writes until
        it stops, a value the next rebuild replaces is never made."""
        if self._cache_dir is not None:
            path = self._cache_file(kind)
            item = (sealed.Later(partial(_keyed, key, value.make))
                    if isinstance(value, sealed.Later) else (key, value))
            if sealed.dump(item, path):
                self._folder_keys[path] = key

    # -- the references page -----------------------------------------------------------------

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        self.files = files
        s = self._settings
        present = {f.src_uri for f in files.documentation_pages()}
        self.pages = {u: d for u, d in self.pages.items() if u in present}
        if s.stylesheet and files.get_file_from_path(STYLESHEET_PATH) is None:
            files.append(File.generated(config, STYLESHEET_PATH, content=STYLESHEET))
        # mkdocs-bibtex's form has lists only where its commands are
        has_book_list = s.output == "footnotes"
        for f in files.documentation_pages():
            if has_book_list:
                break
            try:
                scopes, _ = self._markers_in(f.content_string)
            except (OSError, UnicodeDecodeError):
                continue
            if any(scope in ("book", "all") for scope in scopes):
                has_book_list = True
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
        self._read_book(files)
        self.resolve_book()
        return nav

    # -- reading and resolving the book before rendering ------------------------------------

    def _read_book(self, files: Files) -> None:
        """Every page's citations and lists from its Markdown source, before any page renders."""
        for f in files.documentation_pages():
            self.pages.setdefault(f.src_uri, PageData(f.src_uri))
            try:
                source = f.content_string
            except (OSError, UnicodeDecodeError):
                continue
            self.read_page(f.src_uri, source)

    def read_page(self, src_uri: str, source: str) -> None:
        """One page's citations and lists from its file's text."""
        data = self.pages.setdefault(src_uri, PageData(src_uri))
        data.source = source
        text = _blank_front_matter(source)
        data.expected = list(self._citations_in(text))
        data.placed = (_note_numbers(self._masked(text), data.expected) if self._notes else [])
        data.lists = self._scopes(data, self._marker_scopes_in(text))

    # -- a page's reading, once per text (mkdocs_refbook.pagememo) --------------------------

    def _masked(self, text: str, reading: Reading | None = None) -> str:
        """``text`` with mkdocs-bibtex's commands as markers, code blanked out."""
        r = reading or self._memo.reading(text)
        if r.masked is None:
            r.masked = _mask_code(self._commands(text))
        return r.masked

    def _citations_in(self, text: str) -> tuple[Citation, ...]:
        """The citations of a page's Markdown (:meth:`_found` of its masked text)."""
        r = self._memo.reading(text)
        if r.citations is None:
            r.citations = tuple(self._found(self._masked(text, r)))
        return r.citations

    def _markers_in(self, text: str) -> tuple[tuple[str, ...], int]:
        """The scopes of a page's list markers and its count of mkdocs-bibtex's full-list
        markers (footnote output), code masked out."""
        r = self._memo.reading(text)
        if r.markers is None:
            masked = self._masked(text, r)
            r.markers = (tuple(m.group("scope") or "book" for m in MARKER.finditer(masked)),
                         masked.count(_FOOTNOTES_ALL))
        return r.markers

    def _marker_scopes_in(self, text: str) -> list[str]:
        """The scopes of the list markers of a page's Markdown (code masked out), mkdocs-bibtex's
        full list written as footnotes included."""
        scopes, every = self._markers_in(text)
        return [*scopes, *["all"] * every]

    def _found(self, masked: str, offset: int = 0) -> list[Citation]:
        """The citations of a page's Markdown, code masked out."""
        narrative = self._settings.narrative
        return [replace(c, line=c.line + offset, source=_squash(c.source))
                for c in find_citations(masked)
                if narrative or c.mode != "narrative"]

    def _commands(self, markdown: str) -> str:
        """mkdocs-bibtex's commands outside code → list markers (lines kept)."""
        s = self._settings
        if s.bib_command not in markdown and s.full_bib_command not in markdown:
            return markdown
        found = [m for m in _command_pattern(s.bib_command, s.full_bib_command).finditer(
            _mask_code(markdown)) if m.group(0).strip()]
        if not found:
            return markdown
        footnotes = s.output == "footnotes"
        page = _FOOTNOTES if footnotes else "<!-- refbook:bibliography page -->"
        every = _FOOTNOTES_ALL if footnotes else "<!-- refbook:bibliography all -->"
        out: list[str] = []
        last = 0
        for m in found:
            marker = every if m.group(0) == s.full_bib_command else page
            out += [markdown[last:m.start()], marker]
            last = m.end()
        return "".join(out) + markdown[last:]

    def _scopes(self, data: PageData, markers: Sequence[str]) -> list[str]:
        """The lists a page's Markdown asks for (``markers``: :meth:`_marker_scopes_in` its
        text), the ones the plugin adds included."""
        scopes = [x for x in markers if x in SCOPES]
        if data.src_uri == self.list_appended_to and not {"book", "all"} & set(scopes):
            scopes.append("book")
        if (self._settings.per_page_lists and self._settings.output == "refbook"
                and data.expected and "page" not in scopes):
            scopes.append("page")
        return scopes

    def resolve_book(self) -> None:
        """Resolve the book from the pages' Markdown, as the pages are about to be rendered."""
        order = self._order()
        self._resolve(order, {u: [CitationSite(u, i, c, c.line, **_placed(self.pages[u], i))
                                  for i, c in enumerate(self.pages[u].expected)] for u in order})

    def _resolve(self, order: Sequence[str], sites: Mapping[str, Sequence[CitationSite]]) -> None:
        s = self._settings
        assert self.bibliography is not None
        nocite: list[str] = list(s.nocite)
        if any("all" in self.pages[u].lists for u in order) and "*" not in nocite:
            nocite.append("*")
        # What the formatting depends on: not lines or sections, so an edit of prose (the usual
        # edit under `mkdocs serve`) reuses the last resolution and only re-locates diagnostics.
        key = (id(self.bibliography), self.style.digest, self._entry_style, tuple(order),
               tuple(nocite),
               tuple((u, tuple((x.citation.refs, x.citation.mode, x.note, x.in_note)
                               for x in sites[u]))
                     for u in order))
        if key != self._resolve_key or self.resolution is None:
            # a new build process with the same inputs takes the book from the cache folder
            disk_key = (self._bib_digest, self._language, *key[1:])
            found = self._cached("resolution", disk_key)
            if (isinstance(found, tuple) and len(found) == 2
                    and isinstance(found[0], Resolution) and isinstance(found[1], bytes)):
                self.resolution, self._resolved_from = found
            else:
                registry = Registry()
                for uri in order:
                    registry.add_sites(uri, sites[uri])
                if self._cache_dir is not None:
                    load_items(self._cache_dir)
                # keys are looked up ignoring letter case, as mkdocs-bibtex (pybtex) does, each
                # such citation a key-case warning (docs/mkdocs-migration.md)
                self.resolution = registry.resolve(self.bibliography, self.items, self.style,
                                                   order=order, nocite=nocite, fold_case=True,
                                                   memo_dir=self._cache_dir)
                if self._cache_dir is not None and isinstance(self.items, Items):
                    save_items(self.items, self._cache_dir)
                # a new identity for a new resolution (a digest of its inputs would cost a
                # repr of every citation; an equal resolution made again only misses the memo)
                self._resolved_from = os.urandom(16)
                self._store("resolution", disk_key, (self.resolution, self._resolved_from))
            self._entry_map = dict(self.resolution.entries)
            if self._entry_style is not None:
                self._entry_map = self._pybtex_entries(self._entry_style)
            self._entry_texts = {}
            self._resolve_key = key
            self._bib_keep = self.bibliography  # keeps id() in the key meaningful
        self.home = next((u for u in order for scope in self.pages[u].lists
                          if scope in ("book", "all")), None)

    def _pybtex_entries(self, style: str) -> dict[str, Any]:
        """The resolved entries' text as the pybtex ``style`` formats it (mkdocs-bibtex's look);
        without pybtex, refbook's style's text and an info line that says how to get it."""
        assert self.resolution is not None
        assert self.bibliography is not None
        try:
            from refbook.styles.pybtex_bridge import format_entry
        except ImportError:
            report.log.info(
                f"entries are formatted with refbook's style, not pybtex's {style!r} as "
                "mkdocs-bibtex formats them: pybtex is not installed (pip install "
                "'refbook[mkdocs]' installs it)")
            self._entry_style = None
            return dict(self.resolution.entries)
        out: dict[str, Any] = {}
        for key, ir in self.resolution.entries:
            entry = self.bibliography.get(key)
            out[key] = format_entry(entry, style).text if entry is not None else ir
        return out

    # -- rendering pages ---------------------------------------------------------------------

    @event_priority(-100)  # after plugins that change the Markdown (macros, …)
    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        data = self.pages.setdefault(page.file.src_uri, PageData(page.file.src_uri))
        offset = _front_matter_lines(page, markdown)
        as_read = data.source is not None and data.source.endswith(markdown) and \
            page.file.content_string == data.source
        given = markdown
        markdown = self._commands(markdown)
        if as_read:
            # no plugin changed the page: what the reading found holds (file lines included)
            found = data.expected
        else:
            found = [replace(c, line=c.line + offset) if offset else c
                     for c in self._citations_in(given)]
        scopes = self._marker_scopes_in(given)
        changed = [(c.refs, c.mode) for c in found] != [(c.refs, c.mode) for c in data.expected]
        data.expected = found
        if self._notes:
            placed = _note_numbers(self._masked(given), found)
            changed = changed or placed != data.placed
            data.placed = placed
        lists = self._scopes(data, scopes)
        # the lists the plugin adds go at the end of the page
        added = [x for x in lists if x not in scopes]
        if added:
            markdown = markdown.rstrip("\n") + "\n\n" + "\n\n".join(
                f"<!-- refbook:bibliography {x} -->" for x in added) + "\n"
        if changed or lists != data.lists:
            # another plugin changed the page's citations: resolve again before it renders
            data.lists = lists
            self.resolve_book()
        if self._settings.output == "footnotes":
            markdown = self._footnotes(markdown, data)
        elif data.placed:
            markdown = self._notes_markdown(markdown, data, page)
        self._extension.host = _Rendering(self, page, data)
        return markdown

    @property
    def _notes(self) -> bool:
        """Citations become footnotes (a note style, refbook's output)."""
        return self._settings.output == "refbook" and self.style.kind == "note"

    def _notes_markdown(self, markdown: str, data: PageData, page: Page) -> str:
        """Note styles: each citation of the running text → a footnote reference, its note a
        footnote definition at the end (``mkdocs_refbook.notes``)."""
        from mkdocs_refbook.notes import NOTE_LABEL, to_notes  # note styles only

        assert self.resolution is not None
        res = self.resolution
        links = self._links(page)
        found = self._found(_mask_code(markdown))  # offsets of this Markdown
        uri = data.src_uri

        def note(i: int) -> str:
            ir = res.citations.get((uri, i))
            return "" if ir is None else citation_html(ir, f"refbook-cite-{i}", links)

        def author(i: int) -> str | None:
            ir = res.in_text.get((uri, i))
            return None if ir is None else citation_html(ir, f"refbook-author-{i}", links)

        data.anchors = [f"refbook-cite-{i}" if p.in_note else
                        f"fnref:{NOTE_LABEL.format(n=i)}" for i, p in enumerate(data.placed)]
        if len(found) != len(data.placed):
            return markdown
        return to_notes(markdown, found, data.placed, note, author)

    def _entry_key(self, key: str) -> str | None:
        """The key of the entry a cited key resolves to (None: unknown); letter case aside."""
        if key in self._entry_map:
            return key
        right = self.resolution.aliases.get(key) if self.resolution is not None else None
        return right if right in self._entry_map else None

    def _footnotes(self, markdown: str, data: PageData) -> str:
        """mkdocs-bibtex's form: citations → footnote references; the page's list (where its
        command is, or at the end with ``bib_by_default``) and the full list (every entry, in
        the files' order) → footnote definitions, as Markdown for the footnotes extension.
        A label is defined once, where it first is. Entry text is refbook's Markdown (escaped,
        one paragraph)."""
        from refbook.render.markdown import to_markdown  # footnote output only

        s = self._settings
        assert self.resolution is not None
        res = self.resolution
        doc = self._doc_path(data.src_uri)
        masked = _mask_code(markdown)
        found = self._found(masked)
        blocks = list(_FOOTNOTE_MARKERS.finditer(masked))
        page_list = s.per_page_lists or any(m.group(0) == _FOOTNOTES for m in blocks)
        page_defs: dict[str, str] = {}  # label → entry key, in citation order
        cited: list[tuple[str, int, str, str]] = []  # label, line, source, key of each reference
        uses: dict[str, int] = {}  # label → footnote references so far (Python-Markdown's ids)
        data.anchors, data.ref_anchors, data.problems = [], [], []
        out: list[str] = []
        last = 0
        for i, (c, exp) in enumerate(zip(found, data.expected, strict=False)):
            ir = res.citations.get((data.src_uri, i))
            anchor = f"refbook-cite-{i}"
            key_anchors: list[str | None] = []
            if c.mode == "narrative":
                # mkdocs-bibtex shows the entry's text in place of a bare @key, nothing around
                # it; the back-links' target is an empty anchor after it
                key = c.refs[0].key
                head = len(f"@{{{key}}}") if markdown.startswith("@{", c.start) else len(key) + 1
                entry_key = self._entry_key(key)
                text = (to_markdown(self._entry_map[entry_key]) if entry_key is not None
                        else _unresolved_md(key))
                rest = markdown[c.start + head:c.end]  # a bracketed suffix stays as written
                rendered = f'{text}<span id="{anchor}"></span>{rest}'
                key_anchors.append(None)
            else:
                refs: list[str] = []
                for r in c.refs:
                    entry_key = self._entry_key(r.key)
                    if entry_key is None:
                        key_anchors.append(None)
                        continue
                    label = _label(s.footnote_format, r.key)
                    uses[label] = uses.get(label, 0) + 1
                    n = uses[label]
                    key_anchors.append(f"fnref{n if n > 1 else ''}:{label}")
                    refs.append(f"[^{label}]")
                    page_defs.setdefault(label, entry_key)
                    cited.append((label, exp.line, c.source, entry_key))
                unknown = "".join(_unresolved_md(r.key) for r in c.refs
                                  if self._entry_key(r.key) is None)
                if s.cite_inline and ir is not None:
                    rendered = (f'<span class="refbook-cite" id="{anchor}">{to_markdown(ir)}'
                                f'</span>{"".join(refs)}')
                else:
                    rendered = "".join(refs) + unknown
                    anchor = next((a for a in key_anchors if a is not None), anchor)
                    if any(r.prefix or r.suffix or r.locator for r in c.refs):
                        report.log.info(
                            f"{doc}:{exp.line}: footnote references show no prefix, locator or "
                            f"suffix: {c.source!r} (set cite_inline: true to show the citation's text)")
            data.anchors.append(anchor)
            data.ref_anchors.append(tuple(a or anchor for a in key_anchors))
            out += [markdown[last:c.start], rendered]
            last = c.end
        markdown = "".join(out) + markdown[last:]
        # the lists where their markers are (found again: the citations moved them)
        defined: set[str] = set()
        data.full_labels, data.footnote_lists = {}, []

        def definitions(pairs: Sequence[tuple[str, str]]) -> str:
            lines = []
            for label, key in pairs:
                if label not in defined:
                    defined.add(label)
                    lines.append(f"[^{label}]: {to_markdown(self._entry_map[key])}")
            return "\n".join(lines)

        every = [(_label(s.footnote_format, e.key), e.key) for e in self._bib_order()
                 if e.key in self._entry_map]
        pieces: list[str] = []
        last = 0
        masked = _mask_code(markdown)
        for m in _FOOTNOTE_MARKERS.finditer(masked):
            if m.group(0) == _FOOTNOTES_ALL:
                data.footnote_lists.append("all")
                data.full_labels.update((label, key) for label, key in every
                                        if label not in defined)
                body = definitions(every)
            else:
                body = definitions(list(page_defs.items()))
            pieces += [markdown[last:m.start()], body]
            last = m.end()
        markdown = "".join(pieces) + markdown[last:]
        if page_list and not any(m.group(0) == _FOOTNOTES for m in blocks):
            body = definitions(list(page_defs.items()))
            if body:
                markdown = markdown.rstrip("\n") + "\n\n" + body + "\n"
        for label, line, source, key in cited:
            if label not in defined:
                data.problems.append(
                    self._undefined_footnote(data.src_uri, line, source, label, key))
                defined.add(label)  # once per label and page
        return markdown

    def _undefined_footnote(self, src_uri: str, line: int, source: str, label: str,
                            key: str) -> Diagnostic:
        s = self._settings
        return Diagnostic(
            Code.FOOTNOTE_UNDEFINED,
            f"the citation {source!r} becomes the footnote reference [^{label}], but no footnote "
            f"list on the page defines it (bib_by_default: false and no {s.bib_command} on the "
            f"page), so readers see '[^{label}]' as text",
            Location(src_uri, line),
            hint=(f"add {s.bib_command} to the page where its references should go, or set "
                  "bib_by_default: true (mkdocs-bibtex leaves the same literal text)"),
            key=key)

    def _bib_order(self) -> list[Entry]:
        """The entries in the order of the ``.bib`` files (mkdocs-bibtex's full list)."""
        assert self.bibliography is not None
        return list(self.bibliography)

    def _cite_while_rendering(self, r: _Rendering, citation: Citation) -> str | None:
        """The final HTML of the next citation of the page with the same request."""
        if self.resolution is None or self._settings.output == "footnotes":
            return None
        expected = r.data.expected
        placed = r.data.placed
        for j in range(r.cursor, len(expected)):
            if placed and j < len(placed) and not placed[j].in_note:
                continue  # a note of its own: its footnote was written into the Markdown
            if expected[j].refs == citation.refs and expected[j].mode == citation.mode:
                ir = self.resolution.citations.get((r.data.src_uri, j))
                if ir is None:
                    return None
                r.cursor = j + 1
                if r.links is None:  # where the entries are, seen from this page
                    r.links = self._links(r.page)
                out = self._citation_html(ir, f"refbook-cite-{j}", r.links, (r.data.src_uri, j))
                r.emitted[j] = out
                return out
        return None

    def _citation_html(self, ir: Inlines, anchor_id: str, links: Links,
                       site: tuple[str, int]) -> str:
        """``citation_html`` of the resolution's citation at ``site``, kept in the memo.

        Two keys: the resolution's identity with the site and the links' (``Links.where``),
        which determine the citation's text and every entry's link and tooltip (cheap to
        compare, kept in the cache folder); and, for a new resolution under ``mkdocs serve``,
        the citation's text with its keys' links and tooltips (kept in memory only), so that
        a citation edit renders only the citations whose HTML changed."""
        by_site = ("cite@", self._resolved_from, *site, anchor_id, links.where, links.tooltips,
                   self._entry_style)
        found = self._memo.rendered(by_site)
        if found is None:
            by_text = ("cite", ir, anchor_id, cite_targets(ir, links))
            found = self._memo.rendered(by_text)
            if found is None:
                found = self._memo.keep(by_text, citation_html(ir, anchor_id, links))
            self._memo.keep(by_site, found, also=by_text)
        return found

    def _lists_while_rendering(self, r: _Rendering, text: str) -> str:
        if self.resolution is None:
            return text

        def marker(m: re.Match[str]) -> str:
            scope = m.group("scope") or "book"
            if scope not in SCOPES:
                report.log.warning(
                    f"{self._doc_path(r.data.src_uri)}: unknown bibliography scope {scope!r} in "
                    f"{m.group(0)!r}; use one of {', '.join(SCOPES)}")
                return m.group(0)
            # back-links come once every page is rendered (on_page_context)
            body, r.ids_done = self._list_html(scope, r.data, r.page, r.ids_done, r.lists_done,
                                               backlinks=False)
            r.lists_done += 1
            return _delimit(body, scope)

        return MARKER.sub(marker, text)

    def _list_html(self, scope: str, data: PageData, page: Page, ids_done: bool, index: int, *,
                   backlinks: bool) -> tuple[str, bool]:
        """The ``index``-th list of the page, and whether the book's ids are now placed."""
        assert self.resolution is not None
        res = self.resolution
        if scope == "page":
            cited = ({res.key_of(k) for site in data.sites for k in site.citation.keys}
                     if data.sites else {res.key_of(k) for c in data.expected for k in c.keys})
            entries = [(k, v) for k, v in res.entries if k in cited]
        else:
            entries = list(res.entries)
        # only the first book-wide list of the home page carries the ids ref-<key>; every other
        # list's are ref-<key>-<page>-<n>
        home = scope != "page" and data.src_uri == self.home and not ids_done
        keys = [k for k, _ in entries]
        linked = backlinks and self._settings.backlinks
        place = (posixpath.splitext(data.src_uri)[0], index)
        # the entries are the resolution's (all of them, or those of the page's keys); the
        # back-links are made of the places citing each key and the URLs of their pages from
        # this one (:meth:`_backlinks`), keyed by a digest of those (plain strings)
        back_digest = self._backlinks_digest(page, keys) if linked else b""
        key = ("list", self._resolved_from, tuple(keys) if scope == "page" else (), home, place,
               back_digest, self.style.kind)
        found = self._memo.rendered(key)
        if found is None:
            # a new resolution (under `mkdocs serve`, after a citation or .bib edit) often
            # lists the same entries: found by their formatted text too (kept in memory only)
            by_text = ("list-text", tuple(entries), home, place, back_digest, self.style.kind)
            found = self._memo.rendered(by_text)
            if found is None:
                back = self._backlinks(page, keys) if linked else {}
                found = self._memo.keep(by_text, bibliography_html(
                    entries, home=home, place=place, backlinks=back, style=self.style))
            self._memo.keep(key, found, also=by_text)
        return found, ids_done or home

    def _backlinks_digest(self, page: Page, keys: Sequence[str]) -> bytes:
        """A digest of everything :meth:`_backlinks` makes the back-links of ``keys`` from."""
        if self._places is None:
            self._places = self._citing_places()
        places = tuple((k, tuple(self._places.get(k, ()))) for k in keys)
        uris = sorted({place[0] for _, found in places for place in found})
        return digest(repr((places, [(u, self._url_to(u, page)) for u in uris])))

    @event_priority(100)  # what the page holds before any other plugin changes it
    def on_page_content(self, html_text: str, /, *, page: Page, config: MkDocsConfig,
                        files: Files) -> str:
        rendering = self._extension.host
        self._extension.host = None
        data = self.pages.setdefault(page.file.src_uri, PageData(page.file.src_uri))
        emitted = rendering.emitted if isinstance(rendering, _Rendering) else {}
        self._page_objects[page.file.src_uri] = page
        data.title = _plain(page.title or page.file.name)
        toc_titles = _toc_titles(page.toc.items if page.toc else [])
        headings = [(m.start(), m.group("id"), toc_titles.get(m.group("id"))
                     or _plain(m.group("body")))
                    for m in _HEADING.finditer(html_text)]
        data.sections = {h[1]: h[2] for h in headings}
        starts = [pos for pos, _ident, _t in headings]
        data.lists = [m.group("scope") for m in _LIST_REGION.finditer(html_text)]
        data.rendered_with = self._resolve_key
        if self._settings.output == "footnotes" or data.placed:
            data.lists += data.footnote_lists
            # the citations became footnote references in the Markdown: the sites are those
            data.sites = []
            ids: dict[str, int] = {}
            for m in _ID.finditer(html_text):
                ids.setdefault(m.group(1), m.start())
            for i, (c, anchor) in enumerate(zip(data.expected, data.anchors, strict=False)):
                before = bisect_left(starts, ids.get(anchor, -1))
                section = headings[before - 1][1] if before else ""
                data.sites.append(CitationSite(data.src_uri, i, c, c.line, section, anchor,
                                               **_placed(data, i)))
            data.shown = [None] * len(data.sites)
            data.renumbered = False
            return html_text
        data.sites, data.shown = [], []
        used: set[int] = set()
        numbers: list[int | None] = []
        for start, _end, n, source in _rendered_citations(html_text):
            before = bisect_right(starts, start)
            section = headings[before - 1][1] if before else ""
            if n is not None and n < len(data.expected):
                # (a second copy of one, as a plugin may repeat content, is a site of its own)
                citation, line = data.expected[n], data.expected[n].line
                if n in used:
                    n = None
                else:
                    used.add(n)
            else:
                found = find_citations(source) if n is None else []
                if not found:
                    continue
                citation = found[0]
                # one the Markdown does not show as such (added by another plugin) gets line 1
                line = next((c.line for j, c in enumerate(data.expected) if j not in used
                             and c.refs == citation.refs and c.mode == citation.mode), 1)
                n = None
            index = len(data.sites)
            numbers.append(n)
            data.sites.append(CitationSite(data.src_uri, index, citation, line, section,
                                           f"refbook-cite-{index}"))
            data.shown.append(emitted.get(n) if n is not None else None)
        data.renumbered = numbers != list(range(len(data.expected)))
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
        # the consistency check: what the rendered pages hold (the same as what they were
        # rendered with, unless another plugin added or removed citations after the reading)
        self._resolve(order, {u: self.pages[u].sites for u in order})
        assert self.resolution is not None
        resolution_diagnostics = self._relocated(self.resolution.diagnostics, order)
        self._places = None
        for uri in order:  # before any page is written: the nav shows every page's title
            if uri in self._page_objects:
                self._fix_titles(self._page_objects[uri], self.pages[uri])
        if self.home is None and s.output == "refbook" and any(self.pages[u].sites for u in order):
            report.log.warning(
                "no page holds the book's reference list (a '<!-- refbook:bibliography -->' "
                f"marker outside code), so citations cannot link to their entries; remove the "
                f"marker from code or add one to {s.references_page!r}")
        # the book's citations under the same options as the .bib rules: unknown and
        # wrong-case keys at the citing line, entries that no list shows at the entry
        if (self._used is not None and self._used[0] is self._resolve_key
                and self._used[1] is self.resolution):
            # the same citations (the resolution's key holds every site's keys) resolved the
            # same way: the same keys are used (a prose edit under `mkdocs serve`)
            used = self._used[2]
        else:
            used = frozenset({k for k, _ in self.resolution.entries} | {
                self.resolution.key_of(k) for u in order for x in self.pages[u].sites
                for k in x.citation.keys})
            self._used = (self._resolve_key, self.resolution, used)
        # the .bib rules: what the style prints is asked only of the entries the book prints
        self._check_bibliography(used)
        unused_key = (self._check_key, used)
        if unused_key != self._unused_key:
            # thousands on a shared bibliography: configured and located once per citation set,
            # and kept in the cache folder for the next build process
            disk_key = (self._bib_digest, s.check, s.root, tuple(sorted(used)))
            found = cachedir.unpack_diagnostics(self._cached("unused", disk_key))
            if found is not None:
                self._unused = found
            else:
                self._unused = [d for d in self._every_unused() if d.key not in used]
                self._store("unused", disk_key,
                            sealed.Later(partial(cachedir.pack_diagnostics, self._unused)))
            self._unused_key = unused_key
        page_problems = [d for u in order for d in self.pages[u].problems]
        citation_checks = apply_config([*resolution_diagnostics, *page_problems], s.check,
                                       self.bibliography)
        diagnostics = [*self._bib_checks,
                       *(report.localize(d, s, self._abs_doc) for d in citation_checks),
                       *self._unused]
        cache_note = cachedir.note(self._cache)
        if cache_note is not None:  # an info line: --strict stays green, the cache healed
            report.log.info(cache_note)
        self._write_held(background=True)  # the book's results are all made (on_pre_build)
        failing = report.report(diagnostics, s)
        if s.strict and failing:
            lines = "\n".join(d.format() for d in failing)
            msg = f"refbook strict mode: {len(failing)} problem(s):\n{lines}"
            raise PluginError(msg)
        return env

    def _every_unused(self) -> list[Diagnostic]:
        """The ``unused-entry`` diagnostic of every entry, configured and located, in report
        order: made once per version of the .bib files and options, and the book's are those
        of the entries it does not use (a subset of a stably sorted list is in sorted order).
        A citation edit under ``mkdocs serve`` took 46 ms to make 19,700 of them again for a
        20,000-entry shared bibliography; after a .bib edit, the entries the reader re-used
        (the same objects: unchanged, not moved) keep theirs (118 ms -> ~20)."""
        bib = self.bibliography
        assert bib is not None
        s = self._settings
        held = self._unused_all
        if held is not None and held[0][0] is bib and held[0][1:] == (s.check, s.root):
            return held[1]
        if not s.check.enabled(Code.UNUSED_ENTRY):
            self._unused_all = ((bib, s.check, s.root), [], {})
            return []
        # imported here: a build that finds the result in the cache folder runs no rule
        from refbook.validate.citations import unused_entries

        before = held[2] if held is not None and held[0][1:] == (s.check, s.root) else {}
        # tens of thousands of diagnostics that all stay: made with the collector paused
        # (each collection they set off rescanned the whole heap of a big book)
        with paused_gc():
            fresh = [e for e in bib if (hit := before.get(e.key)) is None or hit[0] is not e]
            located = {d.key: report.localize(d, s, self._abs_doc)
                       for d in apply_config(unused_entries(fresh, frozenset()), s.check, bib)}
            made: dict[str, tuple[Entry, Diagnostic | None]] = {
                e.key: (hit if (hit := before.get(e.key)) is not None and hit[0] is e
                        else (e, located.get(e.key)))
                for e in bib}
            # apply_config's order: by place (the entry's, as read; one code throughout),
            # stable (the .bib order)
            pairs = [(e.location, d) for e, d in made.values() if d is not None]
            pairs.sort(key=lambda p: (p[0].file, p[0].line))
            listing = [d for _, d in pairs]
        self._unused_all = ((bib, s.check, s.root), listing, made)
        return listing

    def _relocated(self, diagnostics: Sequence[Diagnostic], order: Sequence[str]) -> list[Diagnostic]:
        """Unknown-key diagnostics at the current lines (a reused resolution has the old ones).

        The registry reports each cited key that is not in the bibliography, in citation order,
        as ``unknown-key`` or (another case of an existing key, resolved to it) ``key-case``.
        """
        moved = (Code.UNKNOWN_KEY, Code.CITE_CASE, Code.KEY_CASE)
        if not any(d.code in moved and d.location is not None for d in diagnostics):
            return list(diagnostics)  # (the usual case: no site to look up)
        places = iter([Location(u, site.line) for u in order for site in self.pages[u].sites
                       for k in site.citation.keys if k not in self.items])
        out = []
        for d in diagnostics:
            if d.code in moved and d.location is not None:
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
        content = page.content
        if data.renumbered or data.rendered_with != self._resolve_key:
            # the book was resolved again after the page was rendered
            content = self._refill_citations(content, data, page)
        content = self._relist(content, data, page)
        if data.full_labels:
            content = self._footnote_backlinks(content, data, page)
        page.content = content
        return context

    def _footnote_backlinks(self, content: str, data: PageData, page: Page) -> str:
        """mkdocs-bibtex's full list as footnotes: each footnote's back references that point
        nowhere (the entry is not cited on the page) dropped, and refbook's back-links to every
        place that cites the entry added before the remaining ones."""
        ids = set(_ID.findall(content))
        wanted = {html.escape(label, quote=False).replace('"', "&quot;"): key
                  for label, key in data.full_labels.items()}
        back = (self._backlinks(page, list(data.full_labels.values()))
                if self._settings.backlinks else {})

        def item(m: re.Match[str]) -> str:
            key = wanted.get(m.group("label"))
            if key is None:
                return m.group(0)
            body = m.group("body")
            # Python-Markdown ends the footnote's last paragraph with its back references
            refs = list(_BACKREF.finditer(body))
            start, end = (refs[0].start(), refs[-1].end()) if refs else (body.rfind("</p>"),) * 2
            if start < 0:
                return m.group(0)
            kept = "".join(b.group("link") for b in refs
                           if html.unescape(b.group("target")) in ids)
            links = back.get(key)
            added = backlinks_html(links) if links is not None else ""
            return (f'{m.group("open")}{body[:start]}{added}'
                    f'{"&#160;" + kept if kept else ""}{body[end:]}{m.group("close")}')

        return _FOOTNOTE_ITEM.sub(item, content)

    def _fix_titles(self, page: Page, data: PageData) -> None:
        """A citation in a heading: the toc and the page title show its text, not its source.

        MkDocs' titles are HTML that themes insert as it is (nav, toc, ``<title>``, search), and
        they hold the heading's citation as rendered, without its tags (or its source, escaped,
        when it was left pending). That is replaced by the citation's text escaped by
        ``to_title``, in one pass: a .bib value never becomes markup on every page.
        """
        assert self.resolution is not None
        by_section: dict[str, dict[str, Any]] = {}
        for site, shown in zip(data.sites, data.shown, strict=True):
            ir = self.resolution.citations.get((data.src_uri, site.index))
            if ir is not None:
                forms = by_section.setdefault(site.section, {})
                source = site.citation.source
                # Python-Markdown escapes & < > in text; a theme or plugin may escape quotes too
                found = [html.escape(source, quote=False), html.escape(source)]
                if shown is not None:
                    text = _TAG.sub("", shown)
                    found += [text, " ".join(text.split())]
                for form in found:
                    if form:
                        forms.setdefault(form, ir)
        if not by_section:
            return
        # compiled only for a title that holds a citation (few do): a pattern per section of
        # every page cost more than the rest of this method
        patterns: dict[str, re.Pattern[str]] = {}

        def fix(title: str, ident: str) -> str:
            forms = by_section.get(ident)
            if not forms or not any(form in title for form in forms):
                return title
            pattern = patterns.get(ident)
            if pattern is None:
                pattern = patterns[ident] = re.compile(
                    "|".join(map(re.escape, sorted(forms, key=len, reverse=True))))
            return pattern.sub(lambda m: to_title(forms[m.group(0)]), title)

        def walk(items: Sequence[AnchorLink]) -> None:
            for item in items:
                item.title = fix(item.title, item.id)
                walk(item.children)

        if page.toc:
            walk(page.toc.items)
            data.sections.update(_toc_titles(page.toc.items))
            first = page.toc.items[0] if page.toc.items else None
            if first is not None and page.title:
                page.title = fix(page.title, first.id)
                data.title = _plain(page.title)

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
        # File.url_relative_to, a function of the two URLs only: each pair computed once
        return _relative_url(target.url, page.file.url)

    def _links(self, page: Page) -> Links:
        home = self.home
        home_url = self._url_to(home, page) if home is not None else None

        def entry_page(key: str) -> str | None:
            if key not in self._entry_map or home_url is None:
                return None
            return home_url

        return Links(entry_page, self._entry_text, self._settings.tooltips, where=home_url)

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

    def _refill_citations(self, content: str, data: PageData, page: Page) -> str:
        """The page's citations in the order of the sites, each with its text of now."""
        assert self.resolution is not None
        links = self._links(page)
        out: list[str] = []
        last = 0
        known = [c for c in _rendered_citations(content)
                 if (c[2] is not None and c[2] < len(data.expected))
                 or (c[2] is None and find_citations(c[3]))]
        for index, (start, end, _n, _source) in enumerate(known):
            ir = self.resolution.citations.get((data.src_uri, index))
            if ir is not None:
                out += [content[last:start], self._citation_html(
                    ir, f"refbook-cite-{index}", links, (data.src_uri, index))]
                last = end
        return "".join(out) + content[last:]

    def _relist(self, content: str, data: PageData, page: Page) -> str:
        """The page's lists rendered again: back-links name the pages and sections as rendered."""
        ids_done = False
        index = 0

        def region(m: re.Match[str]) -> str:
            nonlocal ids_done, index
            body, ids_done = self._list_html(m.group("scope"), data, page, ids_done, index,
                                             backlinks=True)
            index += 1
            again = _LIST_REGION.search(_delimit(body, m.group("scope")))
            return again.group(0) if again is not None else m.group(0)

        return _LIST_REGION.sub(region, content)

    def _backlinks(self, page: Page, keys: Sequence[str]) -> dict[str, BackLinks | None]:
        """The back-links of ``keys`` (the core words them), as seen from ``page``."""
        if self._places is None:
            self._places = self._citing_places()
        # one relative URL per citing page, not per citation (MkDocs computes each from both
        # paths: a list of a book's 600 citations made 600 of them for 30 pages)
        urls: dict[str, str] = {}

        def url(uri: str) -> str:
            found = urls.get(uri)
            if found is None:
                found = urls[uri] = self._url_to(uri, page)
            return found

        out = {}
        for key in keys:
            out[key] = backlinks(CitingPlace(uri, title, section, url(uri) + f"#{anchor}")
                                 for uri, title, section, anchor in self._places.get(key, ()))
        return out

    def _citing_places(self) -> dict[str, list[tuple[str, str, str, str]]]:
        """Key → (page, page title, section title, citation anchor) of each citation of it,
        in reading order; titles as the pages show them (citations formatted)."""
        assert self.resolution is not None
        res = self.resolution
        places: dict[str, list[tuple[str, str, str, str]]] = {}
        for uri in self._order():
            pdata = self.pages[uri]
            cited = [(x.citation.source, res.citations.get((uri, x.index))) for x in pdata.sites]
            title = rendered_title(pdata.title or uri, cited)
            by_section: dict[str, list[tuple[str, Inlines | None]]] = {}
            for c, x in zip(cited, pdata.sites, strict=True):
                by_section.setdefault(x.section, []).append(c)
            # the page's first heading is the page itself (Sphinx's top-level section)
            top = next(iter(pdata.sections), None)
            sections = {ident: rendered_title(pdata.sections.get(ident, ""), found)
                        for ident, found in by_section.items() if ident != top}
            for site in pdata.sites:
                section = sections.get(site.section, "")
                # footnote output: each key links to its own footnote reference
                anchors = (pdata.ref_anchors[site.index]
                           if site.index < len(pdata.ref_anchors) else ())
                for j, k in enumerate(site.citation.keys):
                    anchor = anchors[j] if j < len(anchors) else site.anchor
                    places.setdefault(self._entry_key(k) or k, []).append(
                        (uri, title, section, anchor))
        return places


@lru_cache(maxsize=4096)
def _relative_url(url: str, other: str) -> str:
    return get_relative_url(url, other)


def _note_numbers(masked: str, citations: Sequence[Citation]) -> list[Placed]:
    """``mkdocs_refbook.notes.note_numbers``, imported when a note style first asks."""
    from mkdocs_refbook.notes import note_numbers

    return note_numbers(masked, citations)


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
        out[item.id] = _plain(item.title)
        out.update(_toc_titles(item.children))
    return out

