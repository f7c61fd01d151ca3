"""Footnote citations: sphinxcontrib-bibtex's ``footcite`` roles and ``footbibliography``.

The same small book (reST and MyST pages) is built with sphinxcontrib-bibtex 2.7.0 and with
refbook: the footnote references (their targets and numbers, per page), the footnotes (ids and
numbers) and the text around them (a textual citation's author) must be the same, and so must
what a footnote says (pybtex's style, as the project sets bibtex_* options and no refbook_style);
with ``refbook_style`` set, footnotes say the entry in refbook's style."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.sphinx.conftest import ROOTS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

INDEX = """\
Book
====

.. toctree::

   two
   three

Intro :footcite:`knuth1984` and :footcite:p:`lamport1994,knuth1984`.

Textual :footcite:t:`lamport1994` and :footcite:ct:`knuth1984,smith2020a`;
all :footcite:ts:`smith2020b`.

.. footbibliography::

Second part
-----------

Again :footcite:ps:`knuth1984` and new :footcite:`vanderberg2020`.

.. footbibliography::
"""

TWO = """\
Two
===

Other page :footcite:`lamport1994`, :footcite:cts:`knuth1984`.

.. footbibliography::
"""

THREE = """\
# Three

MyST {footcite}`smith2020a` and {footcite:t}`lamport1994` and {footcite:p}`knuth1984`.

```{footbibliography}
```
"""


def footnote_book(tmp_path: Path, extension: str) -> Path:
    src = tmp_path / extension
    src.mkdir()
    (src / "refs.bib").write_text((ROOTS / "test-roles" / "refs.bib").read_text(encoding="utf-8"),
                                  encoding="utf-8")
    (src / "conf.py").write_text(
        f'extensions = ["myst_parser", "{extension}"]\nbibtex_bibfiles = ["refs.bib"]\n',
        encoding="utf-8")
    (src / "index.rst").write_text(INDEX, encoding="utf-8")
    (src / "two.rst").write_text(TWO, encoding="utf-8")
    (src / "three.md").write_text(THREE, encoding="utf-8")
    return src


REF = re.compile(r'<a class="footnote-reference brackets" href="#(?P<target>[^"]+)" '
                 r'id="(?P<id>[^"]+)" role="doc-noteref"><span class="fn-bracket">\[</span>'
                 r'(?P<n>\d+)<')
NOTE = re.compile(r'<aside class="footnote brackets" id="(?P<id>[^"]+)" role="doc-footnote">\s*'
                  r'<span class="label"><span class="fn-bracket">\[</span>(?:<a [^>]*>)?(?P<n>\d+)')


def structure(html: str) -> dict[str, object]:
    body = html[html.index('<div class="body"'):html.index('<div class="sphinxsidebar"')]
    prose = re.sub(r'<aside class="footnote-list.*?</aside>\s*</aside>', "", body, flags=re.S)
    paragraphs = [" ".join(re.sub(r"<[^>]+>", "", p).split())
                  for p in re.findall(r"<p>(.*?)</p>", prose, flags=re.S)]
    refs = [(m["target"], m["id"], m["n"]) for m in REF.finditer(body)]
    notes = [(m["id"], m["n"]) for m in NOTE.finditer(body)]
    ids = set(re.findall(r'id="([^"]+)"', body))
    return {"refs": refs, "notes": notes, "paragraphs": paragraphs,
            "linked": sum(1 for target, _, _ in refs if target in ids)}


def test_same_footnotes_as_sphinxcontrib_bibtex(tmp_path: Path,
                                                build: Callable[..., Built]) -> None:
    theirs = build(footnote_book(tmp_path, "sphinxcontrib.bibtex"), "html")
    ours = build(footnote_book(tmp_path, "sphinx_refbook"), "html")
    assert theirs.warnings == ""
    assert ours.warnings == ""
    for page in ("index.html", "two.html", "three.html"):
        expected, got = structure(theirs.read(page)), structure(ours.read(page))
        assert got == expected, page
    index = structure(ours.read("index.html"))
    # numbered per page in order of first citation, a key cited again keeps its number
    assert [n for _, _, n in index["refs"]] == ["1", "2", "1", "2", "1", "3", "4", "1", "5"]  # type: ignore[union-attr]
    assert index["linked"] == 9
    assert index["paragraphs"][1] == "Textual Lamport[2] and Knuth[1], Smith[3]; all Smith[4]."  # type: ignore[index]
    assert structure(ours.read("two.html"))["paragraphs"] == ["Other page [1], Knuth[2]."]
    # the footnote says the entry as sphinxcontrib-bibtex's pybtex style does
    for page in ("index.html", "two.html", "three.html"):
        assert footnote_texts(ours.read(page)) == footnote_texts(theirs.read(page)), page
    assert any(t.endswith("Donald E. Knuth. The TeXbook. Addison-Wesley, 1984.")
               for t in footnote_texts(ours.read("index.html")))
    # footnote citations are not the reference list's: no list, nothing unused
    assert "refbook-bibliography" not in ours.read("index.html")


def footnote_texts(html: str) -> list[str]:
    """What each footnote says, as text."""
    return [" ".join(re.sub(r"<[^>]+>", "", m).replace("\xa0", " ").split())
            for m in re.findall(r'role="doc-footnote">.*?</span></span>\s*(.*?)</aside>', html,
                                flags=re.S)]


def test_refbook_style_footnotes(tmp_path: Path, build: Callable[..., Built]) -> None:
    """With refbook_style set, a footnote says the entry in the book's style."""
    ours = build(footnote_book(tmp_path, "sphinx_refbook"), "html",
                 confoverrides={"refbook_style": "chicago-author-date"})
    assert ours.warnings == ""
    html = ours.read("index.html")
    assert ('<p class="refbook-footnote-entry">Knuth, Donald E. 1984. <em>The TeXbook</em>. '
            "Addison-Wesley.</p>") in html
    assert "Smith, John. 2020a." in html  # year suffixes among the footnoted entries
    assert "refbook-bibliography" not in html


def test_footnotes_in_latex_and_text(tmp_path: Path, build: Callable[..., Built]) -> None:
    src = footnote_book(tmp_path, "sphinx_refbook")
    (src / "conf.py").write_text((src / "conf.py").read_text(encoding="utf-8")
                                 + 'refbook_style = "chicago-author-date"\n', encoding="utf-8")
    text = build(src, "text")
    assert text.warnings == ""
    assert "Intro [1] and [2][1]." in text.read("index.txt")
    assert "[1] Knuth, Donald E. 1984. *The TeXbook*. Addison-Wesley." in text.read("index.txt")
    latex = build(src, "latex", freshenv=True)
    assert latex.warnings == ""
    tex = next(latex.outdir.glob("*.tex")).read_text(encoding="utf-8")
    assert r"\sphinxfootnotemark[1]" in tex or r"\begin{footnote}[1]" in tex
    assert "Knuth, Donald E. 1984." in tex


def test_unknown_key_and_page_without_footbibliography(tmp_path: Path,
                                                       build: Callable[..., Built]) -> None:
    src = footnote_book(tmp_path, "sphinx_refbook")
    (src / "two.rst").write_text("Two\n===\n\nOther :footcite:`lamport1994,nosuch`.\n\n"
                                 "Later :footcite:t:`nosuch`.\n", encoding="utf-8")
    b = build(src, "html")
    # the footnotes of a page without footbibliography go at its end: nothing dangles
    assert b.warnings.splitlines() == [
        (f"{src}/two.rst:4: WARNING: citation key 'nosuch' is not in any bibliography file "
         "(add an entry with this key to a .bib file, or fix the key) [sphinxcontrib-bibtex: "
         'could not find bibtex key "nosuch"] [refbook.unknown-key]'),
        (f"{src}/two.rst:6: WARNING: citation key 'nosuch' is not in any bibliography file "
         "(add an entry with this key to a .bib file, or fix the key) [sphinxcontrib-bibtex: "
         'could not find bibtex key "nosuch"] [refbook.unknown-key]'),
    ]
    two = structure(b.read("two.html"))
    assert two["notes"] == [("footcite-lamport1994", "1"), ("footcite-nosuch", "2")]
    assert two["linked"] == 3
    assert two["paragraphs"] == ["Other [1][2].", "Later nosuch?[2]."]
    html = b.read("two.html")
    note = html[html.index('id="footcite-nosuch"'):]
    assert note.index('<span class="refbook-unknown"><strong>nosuch?</strong>') < note.index(
        "</aside>")


def test_strict_and_unused_entries_see_footnote_citations(tmp_path: Path,
                                                          build: Callable[..., Built]) -> None:
    src = footnote_book(tmp_path, "sphinx_refbook")
    b = build(src, "text", confoverrides={
        "refbook_strict": True, "refbook_check": {"severity": {"unused-entry": "warning"}}})
    # every entry is footcited, except two: the only unused ones
    lines = b.warnings.splitlines()
    unused = [re.search(r"entry '(\w+)' is never cited", line) for line in lines[:-1]]
    assert sorted(m.group(1) for m in unused if m) == ["special", "uncited"]
    assert len(lines) == 3
    assert lines[-1].startswith("ERROR: refbook_strict = True and the book has 2 problem(s)")
    assert b.app.statuscode == 1


@pytest.mark.parametrize("edit", ["bib", "page"])
def test_incremental_build_rewrites_footnotes(tmp_path: Path, build: Callable[..., Built],
                                              edit: str) -> None:
    src = footnote_book(tmp_path, "sphinx_refbook")
    (src / "conf.py").write_text((src / "conf.py").read_text(encoding="utf-8")
                                 + 'refbook_style = "chicago-author-date"\n', encoding="utf-8")
    build(src, "html")
    if edit == "bib":
        bib = src / "refs.bib"
        bib.write_text(bib.read_text(encoding="utf-8").replace("The {TeX}book", "The New Book"),
                       encoding="utf-8")
        b = build(src, "html")
        assert "The New Book" in b.read("two.html")
        assert "The New Book" in b.read("three.html")
    else:
        (src / "two.rst").write_text(TWO.replace(":footcite:cts:`knuth1984`",
                                                 ":footcite:cts:`smith2020b`"), encoding="utf-8")
        b = build(src, "html")
        assert "Smith, John. 2020b. “Second Paper.”" in b.read("two.html")
        assert "Knuth" not in b.read("two.html").split('<div class="body"')[1]
    assert b.warnings == ""


def test_numeric_style_footnotes(tmp_path: Path, build: Callable[..., Built]) -> None:
    """A numeric style's narrative citation is a number: a textual footnote citation shows the
    authors' names instead, and a footnote has no list label."""
    src = footnote_book(tmp_path, "sphinx_refbook")
    (src / "two.rst").write_text(TWO + "\nAll :footcite:ts:`vanderberg2020`, some "
                                 ":footcite:t:`vanderberg2020`.\n", encoding="utf-8")
    b = build(src, "html", confoverrides={"refbook_style": "numeric"})
    assert b.warnings == ""
    index = structure(b.read("index.html"))
    assert index["paragraphs"][1] == "Textual Lamport[2] and Knuth[1], Smith[3]; all Smith[4]."  # type: ignore[index]
    two = structure(b.read("two.html"))
    assert two["paragraphs"][-1] == (  # type: ignore[index]
        "All van der Berg and Jones[3], some van der Berg and Jones[3].")
    html = b.read("index.html")
    assert '<p class="refbook-footnote-entry">D. E. Knuth, <em>The TeXbook</em>' in html
    assert "refbook-csl-left-margin" not in html
