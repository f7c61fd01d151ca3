"""Build tests: real MkDocs builds of temporary projects, asserting the HTML and the warnings."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

def cites(page_html: str) -> list[str]:
    """The visible text of every citation of a page, in order."""
    out = []
    for m in re.finditer(r'<span class="refbook-cite" id="refbook-cite-x?\d+">', page_html):
        depth, i = 1, m.end()
        while depth:
            nxt = re.compile(r"<(/?)span\b[^>]*>").search(page_html, i)
            assert nxt is not None
            depth += -1 if nxt.group(1) else 1
            i = nxt.end()
        out.append(html.unescape(re.sub(r"<[^>]+>", "", page_html[m.end():i])))
    return out


def entries(page_html: str) -> list[str]:
    """The keys of the entries of a page's lists, from their ids: ``ref-<key>`` on the book's
    list, ``ref-<key>-<page>-<n>`` on another (the test keys hold no hyphen)."""
    return [html.unescape(k) for k in re.findall(
        r'<p class="csl-entry refbook-entry" id="ref-([^"-]*)(?:-[a-z0-9-]+-\d+)?">', page_html)]


def test_each_citation_form(project: Project) -> None:
    project.page("index.md", """\
        # Home

        A [@doe2019]. B [see @doe2019, p. 3]. C [@smith2020a; @smith2020b].
        D [-@lee2021]. E @lee2021 says. F @lee2021 [p. 5] says. G @{odd.key:x/y} too.
        H [see @doe2019, pp. 33-35; also @lee2021, chap. 1]. I \\@notakey and mail@example.org.
        """)
    project.build()
    page = project.html("index.html")
    assert cites(page) == [
        "(Doe and Roe 2019)",
        "(see Doe and Roe 2019, 3)",
        "(Smith 2020a, 2020b)",
        "(2021)",
        "Lee (2021)",
        "Lee (2021, 5)",
        "Odd (2018)",
        "(see Doe and Roe 2019, 33–35; also Lee 2021, chap. 1)",
    ]
    assert "I @notakey and mail@example.org." in page
    assert "refbook-pending" not in page
    assert "refbook-unresolved" not in page


def test_code_html_attributes_and_urls_are_left_alone(project: Project) -> None:
    project.page("index.md", """\
        # Home

        Inline `x = [@doe2019]` and `@lee2021` stay code; [@doe2019] is cited.

        ```python
        @lee2021
        y = [@doe2019]
        ```

            @smith2020a indented code [@smith2020b]

        <img alt="[@lee2021]" src="x.png"> <https://example.org/@lee2021>
        [a link with @doe2019](https://example.org/@smith2020a)
        """)
    project.build()
    page = project.html("index.html")
    assert cites(page) == ["(Doe and Roe 2019)"]
    assert "<code>x = [@doe2019]</code>" in page
    assert "<code>@lee2021</code>" in page
    assert "@lee2021\ny = [@doe2019]" in page
    assert "@smith2020a indented code [@smith2020b]" in page
    assert 'alt="[@lee2021]"' in page
    assert 'href="https://example.org/@lee2021"' in page
    assert ">a link with @doe2019</a>" in page
    # only the one real citation is listed
    assert entries(project.html("references/index.html")) == ["doe2019"]


def test_generated_references_page_lists_every_cited_entry(project: Project) -> None:
    project.page("index.md", "# Home\n\nSee [@lee2021] and @doe2019.\n")
    project.page("chapter.md", "# Chapter\n\nAlso [@smith2020b; @smith2020a] and @{odd.key:x/y}.\n")
    project.configure(nav=["index.md", "chapter.md"])
    project.build()
    refs = project.html("references/index.html")
    assert "<h1" in refs
    assert ">References</h1>" in refs
    assert sorted(entries(refs)) == ["doe2019", "lee2021", "odd.key:x/y", "smith2020a", "smith2020b"]
    # sorted by author, year, title (Chicago)
    assert entries(refs) == ["doe2019", "lee2021", "odd.key:x/y", "smith2020a", "smith2020b"]
    assert 'id="ref-odd.key:x/y"' in refs
    # appended to the explicit nav, with a link from the other pages
    assert 'href="references/"' in project.html("index.html")
    # DOI and URL links are clickable
    assert '<a href="https://doi.org/10.1234/abcd">' in refs
    assert '<a href="https://example.org/odd">' in refs


def test_references_page_path_and_title_are_options(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.configure({"references_page": "back/bibliography.md", "references_title": "Works cited"})
    project.build()
    refs = project.html("back/bibliography/index.html")
    assert ">Works cited</h1>" in refs
    assert entries(refs) == ["lee2021"]
    assert 'href="back/bibliography/#ref-lee2021"' in project.html("index.html")


def test_book_marker_on_an_existing_page_replaces_the_generated_page(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("biblio.md", "# Sources\n\nIntro.\n\n<!-- refbook:bibliography -->\n\nOutro.\n")
    project.build()
    assert not (project.root / "site" / "references").exists()
    page = project.html("biblio/index.html")
    assert entries(page) == ["lee2021"]
    assert page.index("Intro.") < page.index('id="ref-lee2021"') < page.index("Outro.")
    assert 'href="biblio/#ref-lee2021"' in project.html("index.html")


def test_page_and_all_markers(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("chapter.md", """\
        # Chapter

        [@doe2019] and [@smith2020a].

        ## Chapter sources

        <!-- refbook:bibliography page -->
        """)
    project.page("everything.md", "# Everything\n\n<!-- refbook:bibliography all -->\n")
    project.page("markers.md", "# Markers\n\n```\n<!-- refbook:bibliography -->\n```\n")
    project.build()
    chapter = project.html("chapter/index.html")
    assert entries(chapter) == ["doe2019", "smith2020a"]
    assert 'id="ref-doe2019"' not in chapter  # ids live on the book's list only
    everything = project.html("everything/index.html")
    assert entries(everything) == ["doe2019", "lee2021", "uncited2017", "odd.key:x/y",
                                   "smith2020a", "smith2020b"]
    assert 'id="ref-uncited2017"' in everything
    # an "all" list is the book's list: no generated page, citations link there
    assert not (project.root / "site" / "references").exists()
    assert 'href="../everything/#ref-doe2019"' in chapter
    # a marker inside code is code
    assert "&lt;!-- refbook:bibliography --&gt;" in project.html("markers/index.html")


def test_per_page_lists_option(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("chapter.md", "# Chapter\n\n[@doe2019]\n")
    project.page("plain.md", "# Plain\n\nNo citation.\n")
    project.configure({"per_page_lists": True})
    project.build()
    assert entries(project.html("chapter/index.html")) == ["doe2019"]
    assert entries(project.html("index.html")) == ["lee2021"]
    assert entries(project.html("plain/index.html")) == []
    assert entries(project.html("references/index.html")) == ["doe2019", "lee2021"]


@pytest.mark.parametrize("directory_urls", [True, False])
def test_relative_links_in_both_url_modes(project: Project, directory_urls: bool) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("part/deep/chapter.md", "# Deep\n\n## Where it is cited\n\n[@doe2019]\n")
    project.configure(use_directory_urls=directory_urls)
    project.build()
    if directory_urls:
        home, deep, refs = "index.html", "part/deep/chapter/index.html", "references/index.html"
        assert 'href="references/#ref-lee2021"' in project.html(home)
        assert 'href="../../../references/#ref-doe2019"' in project.html(deep)
        back = '<a href="../part/deep/chapter/#refbook-cite-0">Deep › Where it is cited</a>'
    else:
        home, deep, refs = "index.html", "part/deep/chapter.html", "references.html"
        assert 'href="references.html#ref-lee2021"' in project.html(home)
        assert 'href="../../references.html#ref-doe2019"' in project.html(deep)
        back = '<a href="part/deep/chapter.html#refbook-cite-0">Deep › Where it is cited</a>'
    assert back in project.html(refs)
    assert 'id="refbook-cite-0"' in project.html(deep)


def test_backlinks_to_every_citing_page_and_section(project: Project) -> None:
    project.page("index.md", "# Home\n\nIntro [@lee2021].\n")
    project.page("chapter.md", """\
        # Chapter

        ## First

        [@lee2021] and again [-@lee2021].

        ## Second

        @lee2021 once more.
        """)
    project.configure(nav=["index.md", "chapter.md"])
    project.build()
    refs = project.html("references/index.html")
    m = re.search(r'id="ref-lee2021".*?<span class="refbook-backlinks">(.*?)</span>', refs, re.S)
    assert m is not None
    links = re.findall(r'<a href="([^"]*)">([^<]*)</a>', m.group(1))
    assert links == [
        ("../#refbook-cite-0", "Home"),
        ("../chapter/#refbook-cite-0", "Chapter › First"),
        ("../chapter/#refbook-cite-2", "Chapter › Second"),
    ]
    chapter = project.html("chapter/index.html")
    assert all(f'id="refbook-cite-{i}"' in chapter for i in range(3))


def test_backlinks_can_be_switched_off(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.configure({"backlinks": False})
    project.build()
    assert "refbook-backlinks" not in project.html("references/index.html")


def test_hover_title_holds_the_formatted_entry(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@smith2020a; @lee2021]\n")
    project.build()
    page = project.html("index.html")
    assert ('<a class="refbook-cite-item" href="references/#ref-smith2020a" '
            'title="Smith, John. 2020. “Alpha Results.” Journal of Tests.">Smith 2020</a>') in page
    assert 'title="Lee, Kim. 2021. “Linked Things.” Journal of Links, ahead of print. https://doi.org/10.1234/abcd."' in page


def test_tooltips_off(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.configure({"tooltips": False})
    project.build()
    assert 'class="refbook-cite-item" href="references/#ref-lee2021">' in project.html("index.html")


def test_year_suffixes_are_book_wide(project: Project) -> None:
    project.page("index.md", "# Home\n\nFirst [@smith2020a].\n")
    project.page("chapter.md", "# Chapter\n\nLater [@smith2020b].\n")
    project.configure(nav=["index.md", "chapter.md"])
    project.build()
    assert cites(project.html("index.html")) == ["(Smith 2020a)"]
    assert cites(project.html("chapter/index.html")) == ["(Smith 2020b)"]
    refs = project.html("references/index.html")
    assert "Smith, John. 2020a." in refs
    assert "Smith, John. 2020b." in refs


def test_numeric_style_numbers_book_wide_by_first_citation(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021] then [@doe2019].\n")
    project.page("chapter.md", "# Chapter\n\n[@doe2019; @smith2020a] and [@lee2021].\n")
    project.configure({"style": "numeric"}, nav=["index.md", "chapter.md"])
    project.build()
    assert cites(project.html("index.html")) == ["[1]", "[2]"]
    assert cites(project.html("chapter/index.html")) == ["[2, 3]", "[1]"]
    assert entries(project.html("references/index.html")) == ["lee2021", "doe2019", "smith2020a"]


def test_material_theme_with_pymdownx_builds_with_tooltips(project: Project) -> None:
    project.page("index.md", """\
        # Home

        !!! note "A note"
            Cited inside an admonition [@lee2021].

        ```python title="x.py"
        @decorator  # [@doe2019]
        ```

        Inline `#!python f(@doe2019)` code and ==marked @smith2020a==.
        """)
    project.configure(
        theme={"name": "material", "features": ["content.tooltips"]},
        markdown_extensions=["admonition", "pymdownx.superfences", "pymdownx.inlinehilite",
                             "pymdownx.highlight", "pymdownx.mark", "attr_list"],
    )
    project.build(strict=True)
    page = project.html("index.html")
    assert 'class="refbook-cite-item" href="references/#ref-lee2021" title="Lee, Kim.' in page
    assert cites(page) == ["(Lee 2021)", "Smith (2020)"]
    assert entries(project.html("references/index.html")) == ["lee2021", "smith2020a"]


def test_search_index_holds_formatted_citations(project: Project) -> None:
    project.page("index.md", "# Home\n\nAs shown [@lee2021].\n")
    project.configure(plugins=["search", {"refbook": {"bib_files": ["refs.bib"]}}])
    project.build()
    index = (project.root / "site" / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "Lee 2021" in index
    assert "@lee2021" not in index


def test_own_references_page_without_marker_gets_the_list_at_its_end(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("references.md", "# My references\n\nCurated by hand.\n")
    project.build()
    refs = project.html("references/index.html")
    assert ">My references</h1>" in refs
    assert refs.index("Curated by hand.") < refs.index('id="ref-lee2021"')
    assert 'href="references/#ref-lee2021"' in project.html("index.html")


def test_nocite_lists_uncited_entries(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.configure({"nocite": ["uncited2017"]})
    project.build()
    assert entries(project.html("references/index.html")) == ["lee2021", "uncited2017"]


def test_extension_listed_by_the_author_is_not_added_twice(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021] and `@code`.\n")
    project.configure(markdown_extensions=["mkdocs_refbook.extension"])
    project.build()
    assert cites(project.html("index.html")) == ["(Lee 2021)"]


def test_the_extension_alone_marks_citations_outside_code() -> None:
    import markdown

    from mkdocs_refbook.extension import RefbookExtension

    out = markdown.markdown("See [@a; @b, p. 2] and `@c`.", extensions=[RefbookExtension()])
    assert out == ('<p>See <span class="refbook-pending" data-refbook-src="[@a; @b, p. 2]">'
                   '[@a; @b, p. 2]</span> and <code>@c</code>.</p>')


def test_citations_rendered_outside_the_page_content_are_filled_in(project: Project) -> None:
    """A theme or plugin that renders Markdown with the site's extensions (here: the page
    template's extra text) gets the same citation text as the book."""
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    (project.root / "overrides").mkdir()
    (project.root / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}{% block content %}{{ super() }}'
        '<p id="extra"><span class="refbook-pending" data-refbook-src="[@lee2021]">[@lee2021]</span> '
        '<span class="refbook-pending" data-refbook-src="[@doe2019]">[@doe2019]</span></p>'
        "{% endblock %}", encoding="utf-8")
    project.configure(theme={"name": "mkdocs", "custom_dir": "overrides"})
    project.build()
    page = project.html("index.html")
    extra = page[page.index('<p id="extra">'):]
    assert cites(extra) == ["(Lee 2021)"]
    assert 'href="references/#ref-lee2021"' in extra
    # never cited in the book: shown as written, not guessed
    assert "[@doe2019]</p>" in extra
    assert "refbook-pending" not in page


def test_a_marker_shown_in_code_does_not_replace_the_generated_page(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n\n```markdown\n<!-- refbook:bibliography -->\n```\n"
                 "\nOr inline: `<!-- refbook:bibliography all -->`.\n")
    project.build()
    assert entries(project.html("references/index.html")) == ["lee2021"]
    assert "&lt;!-- refbook:bibliography --&gt;" in project.html("index.html")


@pytest.mark.parametrize("stylesheet", [True, False])
def test_stylesheet_option(project: Project, stylesheet: bool) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("deep/page.md", "# Deep\n\n[@doe2019]\n")
    project.configure({"stylesheet": stylesheet})
    project.build(strict=True)
    css = project.root / "site" / "assets" / "refbook.css"
    assert css.exists() is stylesheet
    assert ('href="../../assets/refbook.css"' in project.html("deep/page/index.html")) is stylesheet


def test_untrusted_bib_and_keys_are_escaped(project: Project) -> None:
    bib = project.root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8") + """
@misc{evil,
  author = {Mallory, M.},
  title = {<script>alert(1)</script> "quoted" & more},
  url = {javascript:alert(1)},
  year = {2022},
}
""", encoding="utf-8")
    project.page("index.md", '# Home\n\n[@evil] and @{a"b<c>}.\n')
    project.build()
    page = project.html("index.html")
    refs = project.html("references/index.html")
    assert "<script>alert" not in (page + refs).lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in refs.lower()
    assert 'href="javascript:' not in page + refs
    # hover titles: escaped, an invisible word joiner after each "<"
    assert ('title="Mallory, M. 2022. &lt;\u2060script&gt;alert(1)&lt;\u2060/script&gt; &quot;'
            in page.lower().replace("mallory, m.", "Mallory, M."))
    assert 'data-key="a&quot;b&lt;c&gt;"' in page


def test_citation_in_a_heading_shows_its_text_in_toc_and_title(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@doe2019]\n")
    project.page("chapter.md", "# Following @lee2021\n\n## Results of [@smith2020a]\n\nText.\n")
    project.configure(nav=["index.md", "chapter.md"])
    project.build()
    chapter = project.html("chapter/index.html")
    assert "<title>Following Lee (2021) - Test book</title>" in chapter
    assert ">Results of (Smith 2020)</a>" in chapter
    assert "@smith2020a" not in chapter
    assert "@lee2021" not in chapter
    assert ">Following Lee (2021)</a>" in project.html("index.html")  # the nav
