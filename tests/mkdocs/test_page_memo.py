"""The plugin's page memo (``mkdocs_refbook.pagememo``): each page's reading (code masking, the
citation scan) and each citation's and list's HTML, kept across ``mkdocs serve`` rebuilds and in
the cache folder. A build from the memo writes the site a clean build writes, byte for byte; a
warm build reads and renders no page again; a serve rebuild re-reads only the edited page; and
whatever the HTML depends on (an entry's text, the options) makes it computed again. Work is
counted, never timed."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest
import yaml

import mkdocs_refbook.plugin as plugin_module
from tests.conftest import recorded_calls
from tests.core.test_sealed_caches import new_process
from tests.mkdocs.conftest import forget_plugins
from tests.mkdocs.test_persistent_cache import PAGES, cli_build, make, site_tree

if TYPE_CHECKING:
    from pathlib import Path

    from tests.mkdocs.conftest import Project


@pytest.fixture(autouse=True)
def _fixed_build_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")


def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Calls of the plugin's page reading (code masking, citation scan) and HTML writers."""
    calls = {"mask": 0, "scan": 0, "citation": 0, "list": 0}

    def counting(name: str, real: Any) -> Any:
        def run(*args: Any, **kw: Any) -> Any:
            calls[name] += 1
            return real(*args, **kw)
        return run

    for name, attr in (("mask", "mask_mkdocs_code"), ("scan", "find_citations"),
                       ("citation", "citation_html"), ("list", "bibliography_html")):
        monkeypatch.setattr(plugin_module, attr, counting(name, getattr(plugin_module, attr)))
    return calls


def clean_site(project: Project, tmp_path: Path) -> dict[str, bytes]:
    """The site a clean build of the project as it is now writes: a copy of it, without a
    cache folder (``cache_dir: false``), built by a new ``mkdocs build`` process."""
    copy = tmp_path / "clean"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project.root, copy, ignore=shutil.ignore_patterns(".cache", "site"))
    config = yaml.safe_load((copy / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"][0]["refbook"]["cache_dir"] = False
    (copy / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = cli_build(copy, strict=False)
    assert result.returncode == 0, result.stderr
    return site_tree(copy)


def serve_build(project: Project) -> Any:
    """A rebuild as ``mkdocs serve`` makes it (the config loaded again, the plugin kept)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="serve", dirty=False)
    build(cfg)
    return cfg.plugins["refbook"]


def test_a_warm_build_reads_and_renders_no_page_again(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make(project)
    project.page("refs.md", "# Works cited\n\n<!-- refbook:bibliography -->\n")
    new_process()
    forget_plugins()
    cold = counted(monkeypatch)
    project.build()
    assert all(cold.values()), cold
    folder = project.root / ".cache" / "refbook"
    assert any(p.name.startswith("pages-") for p in folder.iterdir())
    first = site_tree(project.root)
    new_process()  # a new `mkdocs build` process: only the cache folder is left
    forget_plugins()
    warm = counted(monkeypatch)
    project.build()
    assert warm == {"mask": 0, "scan": 0, "citation": 0, "list": 0}
    assert site_tree(project.root) == first == clean_site(project, tmp_path)


def test_a_serve_rebuild_after_a_prose_edit_reads_only_the_edited_page(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make(project)
    forget_plugins()
    first = serve_build(project)
    project.page("more.md", PAGES["more.md"] + "\nA new paragraph of prose.\n")
    calls = counted(monkeypatch)
    assert serve_build(project) is first
    # more.md's new text, read once (its file, and the same text as MkDocs hands it over)
    assert calls == {"mask": 1, "scan": 1, "citation": 0, "list": 0}
    assert site_tree(project.root) == clean_site(project, tmp_path)


def test_a_serve_rebuild_after_a_citation_edit_renders_only_what_changed(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make(project)
    forget_plugins()
    serve_build(project)
    project.page("more.md", PAGES["more.md"] + "\nProse.\n")
    serve_build(project)  # a prose edit: every citation's HTML found by its site
    project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021].\n")
    calls = counted(monkeypatch)
    serve_build(project)  # the book is resolved again: a new resolution
    # the new citation; the other citations' text did not change, nor did the entries: the
    # lists are rendered again only where their back-links changed (the book's list, once)
    assert calls["citation"] == 1
    assert calls["list"] == 1
    assert site_tree(project.root) == clean_site(project, tmp_path)


def test_what_a_citation_or_list_shows_is_never_taken_stale_from_the_memo(
        project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    make(project)
    forget_plugins()
    serve_build(project)
    # the entry's title changes, its citations' text does not: their tooltips do
    bib = project.root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("Linked Things", "Linked Stuff"),
                   encoding="utf-8")
    serve_build(project)
    assert "Linked Stuff" in project.html("more/index.html")  # a tooltip
    assert site_tree(project.root) == clean_site(project, tmp_path)
    # a section title of a citing page changes: the lists' back-links name it
    project.page("more.md", PAGES["more.md"].replace("## Notes", "## Remarks"))
    serve_build(project)
    assert "Remarks" in project.html("references/index.html")
    assert site_tree(project.root) == clean_site(project, tmp_path)
    # the options the reading follows: a bare @key is no longer a citation, so no page's
    # reading is taken from the memo (the plugin's check of the rendered pages would hide a
    # stale one from the output: counted)
    make(project, enable_inline_citations=False)
    calls = counted(monkeypatch)
    serve_build(project)
    assert calls["scan"] >= 3  # index.md, more.md and the generated references page, read again
    assert site_tree(project.root) == clean_site(project, tmp_path)
    # and the cache folder serves a new process the same
    new_process()
    forget_plugins()
    project.build()
    assert site_tree(project.root) == clean_site(project, tmp_path)


def test_a_damaged_page_memo_alone_is_ignored_with_one_info_line(project: Project) -> None:
    make(project)
    assert cli_build(project.root).returncode == 0
    good = site_tree(project.root)
    folder = project.root / ".cache" / "refbook"
    (memo,) = (p for p in folder.iterdir() if p.name.startswith("pages-"))
    data = bytearray(memo.read_bytes())
    data[len(data) // 2] ^= 0xFF
    memo.write_bytes(bytes(data))
    damaged = cli_build(project.root)
    assert damaged.returncode == 0, damaged.stderr
    lines = [line for line in damaged.stderr.splitlines() if "the cache in" in line]
    assert len(lines) == 1, damaged.stderr
    assert lines[0].startswith("INFO")
    assert site_tree(project.root) == good


def test_serve_rebuilds_write_no_cache_file_even_where_on_serve_is_not_called(
        project: Project) -> None:
    """A serve-like driver that never calls ``on_serve`` (an IDE, a benchmark) gets what
    ``mkdocs serve`` gets: the first build fills the folder, rebuilds keep their results in
    memory until serve stops."""
    from refbook import sealed

    make(project)
    forget_plugins()
    serve_build(project)
    folder = project.root / ".cache" / "refbook"
    first = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert any(name.startswith("pages-") for name in first)
    project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021].\n")
    serve_build(project)
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == first
    assert sealed.flush()  # serve stops
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} != first


def test_a_serve_rebuild_converts_only_changed_entries_for_lists_and_tooltips(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a citation edit the book's list and the tooltips are made again (their back-links
    changed), from the same formatted entries: each entry's HTML and one-line text are taken
    from the object they were made from, not converted again (the control, with those
    forgotten, converts every listed entry again)."""
    from mkdocs_refbook import rendering

    make(project)
    forget_plugins()
    serve_build(project)
    lines = recorded_calls(monkeypatch, rendering, "to_line")
    htmls = recorded_calls(monkeypatch, rendering, "to_html")

    def edit(n: int) -> int:
        project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021]." * n + "\n")
        lines.clear()
        htmls.clear()
        plugin = serve_build(project)
        return len(plugin.resolution.entries)

    edit(1)
    edit(2)  # the same entries, one more citation: lists and tooltips again
    assert len(lines) == 0
    listed_html = len(htmls)
    # the control: the same edit with the converted texts forgotten
    rendering._HTML.clear()
    rendering._LINE.clear()
    listed = edit(3)
    assert len(lines) == listed > 0
    assert len(htmls) >= listed + listed_html


def test_a_serve_rebuild_matches_brackets_only_in_changed_text(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python-Markdown hands the inline processor every paragraph of every page again at each
    rebuild; the bracket matches of a paragraph seen before are kept (``refbook.syntax``), so
    a rebuild scans only the edited page's new text (the control, with them forgotten, scans
    every paragraph that holds a bracket)."""
    from refbook import syntax

    make(project)
    forget_plugins()
    serve_build(project)
    scans = recorded_calls(monkeypatch, syntax, "_match_brackets")
    project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021] again.\n")
    serve_build(project)
    # the edited page's text when it is read, and its new paragraph when it is rendered
    assert len(scans) == 2
    assert scans[1] == "And [@lee2021] again."
    scans.clear()
    syntax._paragraph_brackets.cache_clear()  # the control
    project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021] once more.\n")
    serve_build(project)
    assert len(scans) > 4
