"""Work the MkDocs plugin does once per page, not once per citation: counted with a spy,
never timed; the output it makes is checked too."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from mkdocs.structure.files import File

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project


def test_back_links_compute_one_relative_url_per_citing_page(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = 3
    for p in range(pages):
        project.page(f"ch{p}.md", f"# Chapter {p}\n\n" + "".join(
            f"Claim {i} [@smith2020a] and [@doe2019, p. {i}].\n\n" for i in range(20)))
    project.page("index.md", "# Book\n")
    calls: list[str] = []
    real = File.url_relative_to

    def counting(self: File, other: object) -> str:
        calls.append(self.src_uri)
        return real(self, other)  # type: ignore[arg-type]

    monkeypatch.setattr(File, "url_relative_to", counting)
    # the plugin computes File.url_relative_to from the two URLs, each pair once per process
    import mkdocs_refbook.plugin as plugin_module

    real_relative = plugin_module.get_relative_url

    def counting_relative(url: str, other: str) -> str:
        calls.append(url.split("/", maxsplit=1)[0] + ".md")
        return real_relative(url, other)

    monkeypatch.setattr(plugin_module, "get_relative_url", counting_relative)
    plugin_module._relative_url.cache_clear()
    project.build()
    html = project.html("references/index.html")
    links = re.findall(r'href="(\.\./ch\d/#[^"]+)"', html)
    # each entry links back to each page that cites it (its first citation there) ...
    assert sorted(links) == sorted(f"../ch{p}/#refbook-cite-{i}" for p in range(pages)
                                   for i in (0, 1))
    # ... and the 40 citations of a page cost one relative URL per list, not one each
    assert 0 < calls.count("ch0.md") <= 3


def test_each_distinct_citation_text_is_parsed_once_per_process(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from refbook import syntax

    syntax._parse_bracketed_memo.cache_clear()
    parsed: list[str] = []
    real = syntax._split_items

    def counting(inner: str) -> list[str]:
        parsed.append(inner)
        return real(inner)

    monkeypatch.setattr(syntax, "_split_items", counting)
    project.page("index.md", "# Book\n\n" + "See [@smith2020a] and [@doe2019, p. 3].\n\n" * 10)
    project.build()
    assert sorted(parsed) == ["@doe2019, p. 3", "@smith2020a"]
    assert "Smith" in project.html("index.html")
    # a long text is parsed each time (not remembered), with the same result
    long = "@smith2020a, " + "x" * syntax._MEMO_CHARS
    assert syntax.parse_bracketed(long) == syntax.parse_bracketed(long)
    assert parsed.count(long) == 2
