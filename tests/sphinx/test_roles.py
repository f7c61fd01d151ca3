"""The sphinxcontrib-bibtex roles: every form, several keys, ``{pre}key{post}``, links, hover."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

EXPECTED = {
    "p": "(Knuth 1984)",
    "t": "Lamport (1994)",
    "ps": "(Knuth 1984; Lamport 1994)",
    "ts": "Lamport (1994)",
    "ct": "Berg and Jones (2020)",
    "cts": "Berg and Jones (2020)",
    "year": "1984",
    "yearpar": "(1984)",
    "author": "Knuth",
    "authorpar": "(Knuth)",
    "bare": "(Lamport 1994)",
    "alp": "Knuth 1984; Lamport 1994",
    "label": "Knuth 1984",
    "labelpar": "(Knuth 1984)",
    "authors": "Knuth and Lamport",
    "authorpars": "(Berg and Jones)",
    "cauthor": "Berg and Jones",
    "prepost": "(see Knuth 1984, 33)",
    "multi": "(see Knuth 1984, chap. 2; also Lamport 1994, and elsewhere)",
    "suffix": "(Smith 2020a, 2020b; R&D Team 2021)",
    "again": "Berg and Jones (2020)",
}


def _lines(text: str) -> dict[str, str]:
    out = {}
    for para in text.split("\n\n"):
        flat = " ".join(para.split())
        m = re.match(r"(\w+): (.*)$", flat)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def test_every_role_form_renders(copy_root: Callable[[str], Path],
                                 build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "text")
    assert b.warnings == ""
    assert _lines(b.read("chapter.txt")) == EXPECTED
    assert b.read("index.txt").strip().endswith("Intro cites (Knuth 1984).")


def test_reference_list_is_author_date_with_backlinks(copy_root: Callable[[str], Path],
                                                      build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "text")
    refs = " ".join(b.read("references.txt").split())
    assert refs == (
        "References ********** "
        "Berg, Anna van der, and Carl Jones. 2020. “Prefixes in Names.” *Journal of Names* 3: "
        "1–10. https://doi.org/10.1000/names.3. Cited in: Chapter › Section one; Chapter › Section two. "
        "Knuth, Donald E. 1984. *The TeXbook*. Addison-Wesley. Cited in: Roles; Chapter › Section one. "
        "Lamport, Leslie. 1994. *LaTeX: A Document Preparation System*. 2nd ed. Addison-Wesley. "
        "Cited in: Chapter › Section one. "
        "Nobody, Nadia. 1999. *Never Cited*. "
        "R&D Team. 2021. *Costs of 50% and _Under_scores # in $ Names*. javascript:alert(1). "
        "Cited in: Chapter › Section one. "
        "Smith, John. 2020a. “First Paper.” *Journal A*. Cited in: Chapter › Section one. "
        "Smith, John. 2020b. “Second Paper.” *Journal A*. Cited in: Chapter › Section one.")


def test_html_links_anchors_and_hover(copy_root: Callable[[str], Path],
                                      build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "html")
    assert b.warnings == ""
    chapter = b.read("chapter.html")
    assert ('<a class="reference internal" href="references.html#ref-knuth1984" '
            'title="Knuth, Donald E. 1984. The TeXbook. Addison-Wesley."><span>Knuth 1984</span></a>'
            in chapter)
    refs = b.read("references.html")
    # stable anchors, no label boxes for author-date
    assert '<p class="csl-entry refbook-entry" id="ref-knuth1984">Knuth, Donald E. 1984.' in refs
    assert "[Knu84]" not in refs
    assert 'class="refbook-bibliography csl-bib-body refbook-author-date' in refs
    # back-links to each citing place (page title › section)
    assert ('<a class="reference internal" href="index.html#cite-index-0"><span>Roles</span></a>'
            in refs)
    assert ('<a class="reference internal" href="chapter.html#cite-chapter-0">'
            '<span>Chapter › Section one</span></a>' in refs)
    assert 'id="cite-chapter-0"' in chapter
    # only http(s) links are links; the DOI is one
    assert 'href="https://doi.org/10.1000/names.3"' in refs
    assert 'href="javascript' not in refs
    assert "javascript:alert(1)" in refs
    # the stylesheet (hanging indent, back-links) ships with the pages
    assert '<link rel="stylesheet" type="text/css" href="_static/refbook.css' in refs
    assert (b.outdir / "_static" / "refbook.css").is_file()


def test_numeric_style_numbers_by_first_citation(copy_root: Callable[[str], Path],
                                                 build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "text", confoverrides={"refbook_style": "numeric"})
    assert b.warnings == ""
    lines = _lines(b.read("chapter.txt"))
    assert lines["p"] == "[1]"
    assert lines["ps"] == "[1, 2]"
    assert lines["prepost"] == "[see 1, p. 33]"
    assert lines["suffix"] == "[4–6]"
    # a numeric style has no year or author part: those forms keep the number
    assert (lines["year"], lines["yearpar"], lines["author"], lines["authorpar"]) == (
        "[1]", "[1]", "[1]", "[1]")
    refs = [" ".join(p.split()) for p in b.read("references.txt").split("\n\n")[1:]]
    assert [r[:4] for r in refs] == ["[1] ", "[2] ", "[3] ", "[4] ", "[5] ", "[6] ", "[7] "]
    assert refs[0].startswith("[1] D. E. Knuth")
