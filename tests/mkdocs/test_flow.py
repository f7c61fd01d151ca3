"""The book is resolved before pages render: other plugins see real content in every hook.

Probe plugins are added next to refbook to record what a neighbour sees (``on_page_content`` and
``on_post_page``, before and after refbook's own hooks), and to change a page's citations in
``on_page_markdown`` before or after refbook reads it (as mkdocs-macros does), so that the
consistency check (the page's HTML against what it was rendered with) has to resolve again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mkdocs.plugins import BasePlugin, event_priority

from tests.mkdocs.test_build import cites, entries
from tests.scaling import assert_linear

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project


class Probe(BasePlugin):  # type: ignore[type-arg]
    """Records the content of every page as an early and a late neighbour see it."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, str]] = {}

    def _note(self, hook: str, text: str, page: Any) -> str:
        self.seen.setdefault(page.file.src_uri, {})[hook] = text
        return text

    @event_priority(200)  # before refbook's on_page_content
    def on_page_content(self, html: str, /, *, page: Any, config: Any, files: Any) -> str:
        return self._note("content", html, page)

    @event_priority(100)
    def on_post_page(self, output: str, /, *, page: Any, config: Any) -> str:
        return self._note("post", output, page)


class Late(BasePlugin):  # type: ignore[type-arg]
    """Sees every page after refbook's hooks."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    @event_priority(-200)
    def on_page_content(self, html: str, /, *, page: Any, config: Any, files: Any) -> str:
        self.seen[page.file.src_uri] = html
        return html


class Rewrite(BasePlugin):  # type: ignore[type-arg]
    """Changes one page's Markdown at a given priority (a macros-like plugin)."""

    def __init__(self, page: str, old: str, new: str, priority: int) -> None:
        self.page, self.old, self.new = page, old, new
        # event_priority marks the function; bind a marked copy per instance
        def on_page_markdown(markdown: str, /, *, page: Any, config: Any, files: Any) -> str:
            if page.file.src_uri == self.page:
                return markdown.replace(self.old, self.new)
            return markdown
        self.on_page_markdown = event_priority(priority)(on_page_markdown)


def _build(project: Project, *plugins: tuple[str, BasePlugin]) -> Any:  # type: ignore[type-arg]
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    for name, plugin in plugins:
        cfg.plugins[name] = plugin
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)
    return cfg.plugins["refbook"]


def test_a_page_holding_only_a_marker_is_real_content_to_every_neighbour(
        project: Project) -> None:
    project.page("index.md", "# Home\n\nSee [@smith2020a] and @lee2021.\n")
    project.page("all.md", "<!-- refbook:bibliography all -->\n")
    probe, late = Probe(), Late()
    _build(project, ("probe", probe), ("late", late))
    for uri, text in [(u, t) for u, hooks in probe.seen.items() for t in hooks.values()] + list(
            late.seen.items()):
        # no placeholder: every citation and list is final HTML, whatever the hook
        assert "refbook-pending" not in text, uri
        assert "refbook:bibliography" not in text, uri
        assert "<!--refbook-cite" not in text, uri
    all_page = probe.seen["all.md"]["content"]
    assert entries(all_page) == ["doe2019", "lee2021", "uncited2017", "odd.key:x/y",
                                 "smith2020a", "smith2020b"]
    assert re.sub(r"<!--.*?-->", "", all_page, flags=re.S).strip().startswith("<div")
    assert cites(probe.seen["index.md"]["content"]) == ["(Smith 2020a)", "Lee (2021)"]
    # back-links come once every page is rendered, and name the rendered page
    written = project.html("all/index.html")
    assert 'Cited in: <a href="../#refbook-cite-0">Home</a>' in written
    assert "<!--refbook-list:all-->" in written


def test_a_citation_added_before_refbook_reads_the_page_is_resolved_book_wide(
        project: Project) -> None:
    project.page("index.md", "# Home\n\n[@smith2020a] and {{ cite_b }}.\n")
    project.page("other.md", "# Other\n\n[@doe2019]\n")
    plugin = _build(project, ("rewrite", Rewrite("index.md", "{{ cite_b }}", "[@smith2020b]", 0)))
    # the page's final Markdown differs from its file: resolved again before it rendered
    assert cites(project.html("index.html")) == ["(Smith 2020a)", "(Smith 2020b)"]
    assert entries(project.html("references/index.html")) == ["doe2019", "smith2020a",
                                                               "smith2020b"]
    assert not plugin.pages["index.md"].renumbered


def test_citations_changed_after_refbook_read_the_page_are_filled_in_late(
        project: Project) -> None:
    # a plugin that runs after refbook's on_page_markdown adds one citation and drops another;
    # the page's HTML then differs from what it was rendered with: the book is resolved again
    # and every page shows the texts of the new resolution (the year suffix appears elsewhere)
    project.page("index.md", "# Home\n\n[@lee2021] then LATER.\n")
    project.page("other.md", "# Other\n\n[@smith2020a]\n")
    plugin = _build(project, ("rewrite", Rewrite("index.md", "[@lee2021] then LATER",
                                                 "then [@smith2020b]", -500)))
    assert cites(project.html("index.html")) == ["(Smith 2020b)"]
    assert cites(project.html("other/index.html")) == ["(Smith 2020a)"]
    references = project.html("references/index.html")
    assert entries(references) == ["smith2020a", "smith2020b"]
    assert 'href="../#refbook-cite-0">Home</a>' in references
    assert plugin.pages["index.md"].renumbered



def test_collecting_a_page_stays_linear_in_its_headings_and_citations() -> None:
    """Each citation's section is found by bisection, not by walking the headings before it."""
    from types import SimpleNamespace

    from mkdocs_refbook.plugin import RefbookPlugin

    def make(n: int) -> Callable[[], object]:
        html = "".join(f'<h2 id="s{i}">S{i}</h2>\n<p>See <span class="refbook-pending" '
                       f'data-refbook-src="[@k{i}]">[@k{i}]</span>.</p>\n' for i in range(n))

        def collect() -> None:
            plugin = RefbookPlugin()
            plugin.settings = SimpleNamespace(output="refbook")  # type: ignore[assignment]
            page = SimpleNamespace(file=SimpleNamespace(src_uri="p.md", name="p"), title="P",
                                   toc=None)
            plugin.on_page_content(html, page=page, config=None, files=None)  # type: ignore[arg-type]
            assert [s.section for s in plugin.pages["p.md"].sites][-1] == f"s{n - 1}"

        return collect

    assert_linear(make, 1500)


def test_every_list_keeps_its_ids_and_gets_the_core_s_back_links(project: Project) -> None:
    # the ids a neighbour sees while the page renders are the written ones; the home page's
    # first book-wide list holds ref-<key>, every other list ref-<key>-<page>-<n>; back-links
    # (the core's wording) are added to every list once every page is rendered
    project.page("index.md", "# Home\n\n[@smith2020a]\n\n<!-- refbook:bibliography -->\n\n"
                             "<!-- refbook:bibliography -->\n")
    project.page("chapter.md", "# Chapter\n\n## Part [@lee2021]\n\nText.\n\n"
                               "<!-- refbook:bibliography page -->\n")
    probe = Probe()
    _build(project, ("probe", probe))
    ids = re.compile(r'<p class="csl-entry refbook-entry" id="([^"]*)"')
    written = {"index.md": project.html("index.html"),
               "chapter.md": project.html("chapter/index.html")}
    assert ids.findall(written["index.md"]) == [
        "ref-lee2021", "ref-smith2020a", "ref-lee2021-index-1", "ref-smith2020a-index-1"]
    assert ids.findall(written["chapter.md"]) == ["ref-lee2021-chapter-0"]
    for uri, text in written.items():
        assert ids.findall(probe.seen[uri]["content"]) == ids.findall(text), uri
        assert "refbook-backlinks" not in probe.seen[uri]["content"], uri
    backlinks = [re.sub(r"<[^>]+>", "", b) for b in re.findall(
        r'<span class="refbook-backlinks">(.*?)</span>', written["index.md"])]
    assert backlinks == ["Cited in: Chapter › Part (Lee 2021).", "Cited in: Home."] * 2
    assert re.findall(r'<span class="refbook-backlinks">(.*?)</span>', written["chapter.md"]) == [
        'Cited in: <a href="#refbook-cite-0">Chapter › Part (Lee 2021)</a>.']
