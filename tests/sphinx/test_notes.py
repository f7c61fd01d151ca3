"""Note styles in Sphinx: each citation becomes a footnote (issue 13).

The book of ``roots/test-notes`` (MyST and reST pages, Chicago notes-bibliography "subsequent
ibid.") is built for real with warnings as errors. Its MyST page is also pandoc Markdown: pandoc
(``--citeproc --csl``, run live) makes the footnotes of the same page, and both must say the
same, note for note, in the same numbering (the page's own footnote among them). A book in an
author-date style has no footnotes.
"""

from __future__ import annotations

import re
import subprocess
from typing import TYPE_CHECKING

from refbook.styles import styles_dir

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

STYLE = "chicago-notes-bibliography-subsequent-ibid"


def notes_of_text(page: str) -> tuple[str, dict[int, str]]:
    """The running text and the footnotes of a page of Sphinx's text builder (emphasis marks
    dropped, lines joined)."""
    found = list(re.finditer(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\Z)", page, re.S | re.M))
    notes = {int(m.group(1)): " ".join(m.group(2).replace("*", "").split()) for m in found}
    body = page[:found[0].start()] if found else page
    return " ".join(body.replace("=" * 70, "").split()), notes


def pandoc_notes(pandoc: str, page: Path, bib: Path) -> tuple[str, dict[int, str]]:
    folder = styles_dir()
    assert folder is not None
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={folder / (STYLE + '.csl')}", str(page)],
        capture_output=True, text=True, check=True, timeout=120).stdout
    notes = {int(m.group(1)): " ".join(m.group(2).split())
             for m in re.finditer(r"^\[(\d+)\] (.*?)(?=^\[\d+\] |\Z)", out, re.S | re.M)}
    return " ".join(out.split()), notes


def test_citations_become_the_footnotes_pandoc_makes(
        copy_root: Callable[[str], Path], build: Callable[..., Built], pandoc: str) -> None:
    src = copy_root("notes")
    b = build(src, "text", warningiserror=True)
    assert b.warnings == ""
    body, ours = notes_of_text(b.read("index.txt"))
    page, theirs = pandoc_notes(pandoc, src / "index.md", src / "refs.bib")
    assert len(theirs) == 8
    assert ours == theirs
    # numbered in reading order, the page's own footnote (6) among the citations' notes, each
    # mark after the punctuation that follows the citation, as pandoc places them
    end = "Finally Knuth.[8]"
    text = page[page.index("The classic book"):page.index(end) + len(end)]
    assert text in body
    assert text == ("The classic book.[1] Again.[2] A page of it.[3] Two works.[4] As "
                    "Lamport[5] shows, more. A remark.[6] Once more.[7] Finally Knuth.[8]")
    assert ours[2] == "Ibid."
    assert ours[6].startswith("A remark that cites (Anna van der Berg and Carl Jones,")


def test_positions_are_per_page_and_rest_footnotes_count(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = copy_root("notes")
    b = build(src, "text", warningiserror=True)
    body, notes = notes_of_text(b.read("chapter.txt"))
    assert ("Each page counts on its own.[1] Then[2] and Leslie Lamport[3] again. A footnote "
            "[4] and.[5]") in body
    # the reST footnote is note 4: the citation in it is printed there, in parentheses
    assert notes == {
        1: "Donald E. Knuth, The TeXbook (Addison-Wesley, 1984).",  # first on this page
        2: "Ibid.",
        3: "LaTeX: A Document Preparation System, 2nd ed. (Addison-Wesley, 1994).",
        4: "A footnote citing (ibid).",
        5: "Knuth, The TeXbook.",
    }


def test_html_footnotes_and_back_links(copy_root: Callable[[str], Path],
                                       build: Callable[..., Built]) -> None:
    src = copy_root("notes")
    b = build(src, "html", warningiserror=True)
    assert b.warnings == ""
    index = b.read("index.html")
    refs = re.findall(r'<a class="footnote-reference brackets" href="#([^"]+)"[^>]*>'
                      r'(?:<span id="([^"]+)"></span>)?<span class="fn-bracket">\[</span>(\d+)',
                      index)
    assert [(t, a, n) for t, a, n in refs] == [
        ("refbook-note-1", "cite-index-0", "1"), ("refbook-note-2", "cite-index-1", "2"),
        ("refbook-note-3", "cite-index-2", "3"), ("refbook-note-4", "cite-index-3", "4"),
        ("refbook-note-5", "cite-index-4", "5"), ("remark", "", "6"),
        ("refbook-note-7", "cite-index-6", "7"), ("refbook-note-8", "cite-index-7", "8")]
    # each note's text links its entry; the list's back-links lead to the notes' marks
    assert '<aside class="footnote brackets" id="refbook-note-1"' in index
    # a note's DOI is a link of its own, never inside the link to the entry
    assert '<a class="reference external" href="https://doi.org/10.1000/names.3">' in index
    assert "</a></span></a>" not in index
    references = b.read("references.html")
    assert ('Cited in: <a class="reference internal" href="index.html#cite-index-0"><span>Notes'
            '</span></a>; <a class="reference internal" href="chapter.html#cite-chapter-1">'
            '<span>Chapter</span></a>') in references
    assert 'id="ref-vanderberg2020"' in references


def test_author_date_book_has_no_notes(copy_root: Callable[[str], Path],
                                       build: Callable[..., Built]) -> None:
    src = copy_root("notes")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        f'refbook_style = "{STYLE}"', 'refbook_style = "chicago-author-date"'), encoding="utf-8")
    b = build(src, "text", warningiserror=True)
    assert b.warnings == ""
    body, notes = notes_of_text(b.read("index.txt"))
    assert notes == {1: "A remark that cites (Berg and Jones 2020) in passing."}
    assert "The classic book (Knuth 1984). Again (Knuth 1984)." in body
