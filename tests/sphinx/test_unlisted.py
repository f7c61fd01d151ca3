"""A citation whose entry no list of the book shows: a warning at the citing line
(``refbook.unlisted-citation``), the citation still formatted, never a silent loss of its link.

The case from the field: one page-scoped list (``:filter: docname in docnames``) and no list of
the whole book — every citation on the other pages links nowhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.sphinx.conftest import ROOTS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def book(tmp_path: Path, list_directive: str, *, markdown: bool = False) -> Path:
    src = tmp_path / "book"
    src.mkdir()
    (src / "refs.bib").write_text((ROOTS / "test-roles" / "refs.bib").read_text(encoding="utf-8"),
                                  encoding="utf-8")
    exts = '["myst_parser", "sphinx_refbook"]' if markdown else '["sphinx_refbook"]'
    (src / "conf.py").write_text(f'extensions = {exts}\nrefbook_bibfiles = ["refs.bib"]\n',
                                 encoding="utf-8")
    (src / "index.rst").write_text(
        "Book\n====\n\n.. toctree::\n\n   one\n   two\n\n"
        f"Intro cites :cite:p:`knuth1984`.\n\n{list_directive}\n", encoding="utf-8")
    (src / "one.rst").write_text("One\n===\n\nFirst :cite:p:`lamport1994`.\n\n"
                                 "Again :cite:t:`lamport1994` and :cite:p:`knuth1984`.\n",
                                 encoding="utf-8")
    if markdown:
        (src / "two.md").write_text("# Two\n\nSee [@vanderberg2020].\n", encoding="utf-8")
    else:
        (src / "two.rst").write_text("Two\n===\n\nSee :cite:p:`vanderberg2020`.\n",
                                     encoding="utf-8")
    return src


def unlisted(src: Path, where: str, key: str) -> str:
    return (f"{src}/{where}: WARNING: '{key}' is cited here but no reference list of the book "
            "shows it, so the citation links nowhere (add a list of the whole book (a "
            "bibliography directive without :filter:) or widen a list's filter so that it shows "
            "this entry) [refbook.unlisted-citation]")


@pytest.mark.parametrize("markdown", [False, True])
def test_page_scoped_list_only_reports_every_other_citation(
        tmp_path: Path, build: Callable[..., Built], markdown: bool) -> None:
    src = book(tmp_path, ".. bibliography::\n   :filter: docname in docnames", markdown=markdown)
    b = build(src, "html")
    two = "two.md:3" if markdown else "two.rst:4"
    assert b.warnings.splitlines() == [
        unlisted(src, "one.rst:4", "lamport1994"),
        unlisted(src, "one.rst:6", "lamport1994"),
        unlisted(src, two, "vanderberg2020"),
    ]
    one = b.read("one.html")
    # knuth1984 is on the root page's list: linked from every page
    assert 'href="index.html#ref-knuth1984"' in one
    # formatted, not linked, marked
    assert '<span class="refbook-unlisted">Lamport 1994</span>' in one
    assert "index.html#ref-lamport1994" not in one
    assert 'class="refbook-unlisted">Berg and Jones 2020</span>' in b.read("two.html")
    assert "ref-lamport1994" not in b.read("index.html")


def test_strict_mode_fails_on_an_unlisted_citation(tmp_path: Path,
                                                   build: Callable[..., Built]) -> None:
    src = book(tmp_path, ".. bibliography::\n   :filter: docname in docnames")
    b = build(src, "text", confoverrides={"refbook_strict": True})
    assert b.app.statuscode == 1
    assert "the book has 3 problem(s)" in b.warnings


@pytest.mark.parametrize("directive", [
    ".. bibliography::",                                   # the whole book's cited entries
    ".. bibliography::\n   :all:",
    ".. bibliography::\n   :filter: docname in docnames\n\n.. bibliography::",
])
def test_every_citation_listed_somewhere_is_quiet(tmp_path: Path, build: Callable[..., Built],
                                                  directive: str) -> None:
    src = book(tmp_path, directive)
    b = build(src, "html")
    assert b.warnings == ""
    assert "refbook-unlisted" not in b.read("one.html")


def test_a_page_list_on_the_citing_page_lists_it(tmp_path: Path,
                                                 build: Callable[..., Built]) -> None:
    src = book(tmp_path, ".. bibliography::\n   :filter: docname in docnames")
    for page in ("one.rst", "two.rst"):
        with (src / page).open("a", encoding="utf-8") as f:
            f.write("\n.. bibliography::\n   :filter: docname in docnames\n")
    b = build(src, "html")
    assert b.warnings == ""
    assert 'href="#ref-lamport1994"' in b.read("one.html")


def test_an_unlisted_citation_can_be_silenced(tmp_path: Path,
                                              build: Callable[..., Built]) -> None:
    src = book(tmp_path, ".. bibliography::\n   :filter: docname in docnames")
    b = build(src, "html", confoverrides={"suppress_warnings": ["refbook.unlisted-citation"]})
    assert b.warnings == ""
    b = build(src, "html", freshenv=True,
              confoverrides={"refbook_check": {"severity": {"unlisted-citation": "off"}}})
    assert b.warnings == ""
