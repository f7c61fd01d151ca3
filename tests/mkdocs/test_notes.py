"""Note styles in MkDocs: each citation becomes a footnote (issue 13).

A small book in Chicago notes-bibliography ("subsequent ibid.") is built with MkDocs' own build,
``--strict``. Its page is pandoc Markdown too: pandoc (``--citeproc --csl``, run live) makes the
footnotes of the same page, and both must say the same, note for note, in the same numbering
(the page's own footnote among them). A book in an author-date style has no footnotes.
"""

from __future__ import annotations

import html
import re
import subprocess
from typing import TYPE_CHECKING

from mkdocs_refbook.notes import definitions, note_numbers
from refbook.styles import styles_dir
from refbook.syntax import find_citations
from tests.mkdocs.conftest import refbook_warnings

if TYPE_CHECKING:
    import pytest

    from tests.mkdocs.conftest import Project

STYLE = "chicago-notes-bibliography-subsequent-ibid"

INDEX = """\
# Notes

The classic book [@doe2019]. Again [@doe2019]. A page of it [@doe2019, p. 4].
Two works [@lee2021; @doe2019]. As @lee2021 shows, more.
A remark.[^remark] Once more [@lee2021]. Finally @doe2019.

[^remark]: A remark that cites [@smith2020a] in passing.
"""

CHAPTER = """\
# Chapter

Each page counts on its own [@doe2019]. Then [@doe2019].
"""


def footnotes(page: str) -> tuple[list[tuple[str, str]], dict[int, str]]:
    """The page's footnote marks (target, number) in order, and its footnotes' texts by number
    (tags, back references and spacing dropped)."""
    marks = re.findall(r'<sup id="fnref:[^"]*"><a class="footnote-ref" href="#fn:([^"]*)">'
                       r"(\d+)</a></sup>", page)
    box = page[page.index('<div class="footnote">'):]
    items = re.findall(r'<li id="fn:([^"]*)">(.*?)</li>', box, re.S)
    number = {target: int(n) for target, n in marks}
    texts = {}
    for ident, body in items:
        body = re.sub(r'<a class="footnote-backref".*?</a>', "", body, flags=re.S)
        texts[number[ident]] = " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())
    return marks, texts


def body_text(page: str) -> str:
    """The page's first paragraph as plain text, each footnote mark written ``[n]``."""
    para = page[page.index("<p>The classic"):]
    para = para[:para.index("</p>")]
    para = re.sub(r"<sup[^>]*><a[^>]*>(\d+)</a></sup>", r"[\1]", para)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", para)).split())


def pandoc_notes(pandoc: str, markdown: str, bib: str) -> tuple[str, dict[int, str]]:
    """pandoc's first paragraph (after the title) and its footnotes by number."""
    folder = styles_dir()
    assert folder is not None
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={folder / (STYLE + '.csl')}"],
        input=markdown, capture_output=True, text=True, check=True, timeout=120).stdout
    first = " ".join(out.split("\n\n")[1].split())
    return first, {int(m.group(1)): " ".join(m.group(2).split())
                   for m in re.finditer(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\Z)", out,
                                        re.S | re.M)}


def _book(project: Project, style: str = STYLE) -> None:
    project.configure({"style": style}, nav=["index.md", "chapter.md"],
                      markdown_extensions=["footnotes"])
    project.page("index.md", INDEX)
    project.page("chapter.md", CHAPTER)
    project.build(strict=True)


def test_citations_become_the_footnotes_pandoc_makes(
        project: Project, pandoc: str, refbook_log: pytest.LogCaptureFixture) -> None:
    _book(project)
    assert refbook_warnings(refbook_log) == []
    page = project.html("index.html")
    marks, ours = footnotes(page)
    first, theirs = pandoc_notes(pandoc, INDEX, str(project.root / "refs.bib"))
    assert ours == theirs
    # each mark after the punctuation that follows the citation, as pandoc places them
    assert body_text(page) == first
    assert first.startswith("The classic book.[1] Again.[2] A page of it.[3]")
    # numbered in reading order, the page's own footnote among the notes, and listed so
    assert [n for _, n in marks] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert marks[5] == ("remark", "6")
    assert list(ours) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert ours[2] == "Ibid."
    assert ours[6].startswith("A remark that cites (John Smith, “Alpha Results,”")


def test_narrative_author_stays_in_the_text_and_back_links_lead_to_the_marks(
        project: Project) -> None:
    _book(project)
    page = project.html("index.html")
    assert re.search(r'As <span class="refbook-cite" id="refbook-author-4"><a class="refbook-'
                     r'cite-item" href="references/#ref-lee2021"[^>]*>Lee</a></span><sup '
                     r'id="fnref:refbook-note-4">', page)
    # a note's DOI is a link of its own, never inside the link to the entry
    assert "</a></a>" not in page
    references = project.html("references/index.html")
    assert re.search(r'id="ref-doe2019".*?Cited in: <a href="\.\./#fnref:refbook-note-0">Notes'
                     r'</a>; <a href="\.\./chapter/#fnref:refbook-note-0">Chapter</a>',
                     references, re.S)
    # positions are per page: the chapter's first citation is a full note again
    _, chapter = footnotes(project.html("chapter/index.html"))
    assert chapter == {1: "Jane Doe and Richard Roe, A Book about Things (Example Press, "
                          "2019).", 2: "Ibid."}


def test_author_date_book_has_no_notes(project: Project) -> None:
    _book(project, "chicago-author-date")
    page = project.html("index.html")
    assert "refbook-note" not in page
    assert "The classic book" in page
    assert len(re.findall(r'class="footnote-ref"', page)) == 1  # the page's own


def test_note_numbers_of_a_page() -> None:
    """Reading order: a citation, a first reference to a footnote, each a note; a citation in
    a footnote definition takes that footnote's number."""
    citations = find_citations(INDEX)
    assert [(p.note, p.in_note) for p in note_numbers(INDEX, citations)] == [
        (1, False), (2, False), (3, False), (4, False), (5, False), (7, False), (8, False),
        (6, True)]
    text = "A[^a] [@x]\n\n[^a]: one\n    still [@y]\n\nout [@z]\n"
    assert [(s, e) for s, e, _ in definitions(text)] == [(12, 36)]
    assert [(p.note, p.in_note) for p in note_numbers(text, find_citations(text))] == [
        (2, False), (1, True), (3, False)]
