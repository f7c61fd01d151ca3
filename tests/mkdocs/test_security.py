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
from urllib.parse import unquote

import pytest

from tests.hostile import (
    AUTHOR_TEXT,
    HOSTILE_BIB,
    HOSTILE_KEYS,
    HOSTILE_KEYS_BIB,
    attribute_values,
    html_texts,
    site_problems,
)

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


def _cite(key: str) -> str:
    """A braced citation key as Markdown source (backticks escaped: no code span)."""
    return "@{" + key.replace("`", "\\`") + "}"


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_hostile_keys_in_anchors_links_and_markers(project: Project, theme: str) -> None:
    """Keys reach ids, hrefs, data-key and the unknown-key marker; each is an attribute value
    or text, never markup, and the anchors still name the keys."""
    (project.root / "refs.bib").write_text(HOSTILE_KEYS_BIB, encoding="utf-8")
    project.configure(theme={"name": theme}, markdown_extensions=EXTENSIONS,
                      plugins=["search", {"refbook": {"bib_files": ["refs.bib"],
                                                      "per_page_lists": True}}])
    unknown = ['a"><img src=x onerror=alert(19)>', "b'><svg onload=alert(20)>",
               'c"onmouseover="alert(21)']
    cites = "; ".join(_cite(k) for k in HOSTILE_KEYS)
    project.page("index.md", f"# Home {_cite(HOSTILE_KEYS[0])}\n\n## S [{cites}]\n\n"
                             + " and ".join(f"[{_cite(k)}]" for k in unknown)
                             + f"\n\n## U [{_cite(unknown[2])}]\n")
    project.build()
    assert site_problems(project.root / "site", search_text_is_html=theme == "material") == []
    refs = project.html("references/index.html")
    assert [v for v in attribute_values(refs, "id") if v.startswith("ref-")] == [
        f"ref-{k}" for k in HOSTILE_KEYS]
    index = project.html("index.html")
    hrefs = [unquote(v) for v in attribute_values(index, "href") if "#ref-" in v]
    assert sorted(set(hrefs)) == sorted(f"references/#ref-{k}" for k in HOSTILE_KEYS)
    assert sorted(html_texts(index, "span", **{"class": "refbook-unresolved"})) == sorted(
        [*(f"{k}?" for k in unknown), f"{unknown[2]}?"])
    assert f"U ({unknown[2]}?)" in html_texts(index, "a")  # the toc shows the marker as text


def test_mkdocs_search_script_escapes_the_plain_text_of_its_index(project: Project) -> None:
    """MkDocs' search index holds the pages' text unescaped (it parses the HTML), so the
    checks above leave it out; this holds only while its script escapes what it shows."""
    project.configure(plugins=["search", {"refbook": {"bib_files": ["refs.bib"]}}])
    project.page("index.md", "# Home\n")
    project.build()
    script = project.html("search/main.js")
    assert "escapeHtml(title)" in script
    assert "escapeHtml(summary)" in script


def test_hostile_entries_in_mkdocs_bibtex_footnotes_formatted_by_pybtex(project: Project) -> None:
    # a migrated mkdocs-bibtex site (no style chosen): pybtex's "plain" formats the entries,
    # whose text must stay text in footnotes, in place of a bare @key and in the full list
    (project.root / "refs.bib").write_text(HOSTILE_BIB, encoding="utf-8")
    project.configure(markdown_extensions=["footnotes"],
                      plugins=["search", {"refbook": {"bib_file": "refs.bib"}}])
    project.page("index.md", "# Home\n\nText [@evil; @evil2], and @evil inline.\n\n"
                             "\\bibliography\n")
    project.page("all.md", "# All\n\n\\full_bibliography\n")
    project.build()
    assert site_problems(project.root / "site", search_text_is_html=False) == []
    index = project.html("index.html")
    assert AUTHOR_TEXT in html_texts(index, "li", id="fn:evil")[0]
    assert 'id="fn:evil"' in project.html("all/index.html")
