"""Hostile entries never become markup in a built MkDocs site (default and Material themes).

A citation in a heading puts the entry's text into the page title, the nav, the toc and the
search index, which themes insert as HTML; captions, admonition titles and tables hold citations
too. Every HTML file and the search index are parsed (``tests.hostile``); the payloads must show
as text.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

import pytest

from tests.hostile import AUTHOR_TEXT, HOSTILE_BIB, html_texts, site_problems

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

EXTENSIONS = [{"toc": {"permalink": True}}, "admonition", "tables", "md_in_html", "attr_list"]

INDEX = """\
# Results of @evil

## R [@evil]

## Q [see @evil2, p. 3 & 4]

Text [@evil; @evil2].
"""

OTHER = """\
# About @evil2

![Figure [@evil]](x.png)

<figure markdown>
  ![alt](x.png)
  <figcaption markdown>Caption [@evil].</figcaption>
</figure>

!!! note "Admonition [@evil2]"
    Body [@evil].

| a | b |
|---|---|
| [@evil] | @evil2 |
"""


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_hostile_entries_in_headings_captions_admonitions_and_tables(
        project: Project, theme: str) -> None:
    (project.root / "refs.bib").write_text(HOSTILE_BIB, encoding="utf-8")
    project.configure(theme={"name": theme}, markdown_extensions=EXTENSIONS,
                      plugins=["search", {"refbook": {"bib_files": ["refs.bib"]}}])
    project.page("index.md", INDEX)
    project.page("other.md", OTHER)
    project.build()
    site = project.root / "site"
    assert site_problems(site, search_text_is_html=theme == "material") == []

    # the data shows as text wherever the citation went: nav, toc, page title, search index
    first = f"Results of {AUTHOR_TEXT} (2020)"
    for page in ("index.html", "other/index.html", "references/index.html"):
        assert first in html_texts(project.html(page), "a"), page
    index = project.html("index.html")
    assert f"R ({AUTHOR_TEXT} 2020)" in html_texts(index, "a")
    other_title = html_texts(project.html("other/index.html"), "title")[0]
    assert other_title.startswith(
        'About </title><script>alert(15)</script>Q" onmouseover="alert(6) and R’ onfocus=')
    search = json.loads(project.html("search/search_index.json"))["docs"]
    assert first in [html.unescape(d["title"]).replace("\u2060", "") for d in search]
    # the back-links name the sections by their text, not by the citation's source
    backlinks = html_texts(project.html("references/index.html"), "span",
                           **{"class": "refbook-backlinks"})
    assert backlinks[0].startswith(f"Cited in: {first}; {first} › R ({AUTHOR_TEXT} 2020)")
    assert "@evil" not in " ".join(backlinks)


def test_mkdocs_search_script_escapes_the_plain_text_of_its_index(project: Project) -> None:
    """MkDocs' search index holds the pages' text unescaped (it parses the HTML), so the
    checks above leave it out; this holds only while its script escapes what it shows."""
    project.configure(plugins=["search", {"refbook": {"bib_files": ["refs.bib"]}}])
    project.page("index.md", "# Home\n")
    project.build()
    script = project.html("search/main.js")
    assert "escapeHtml(title)" in script
    assert "escapeHtml(summary)" in script
