"""What sphinxcontrib-bibtex 2.7.0's own suite showed missing in the extension (issue 10), each
from a minimal project: a configuration with no bibliography setting at all, the ``:any:`` role
finding citations, a ``:filter:`` beside ``:all:``/``:cited:``/``:notcited:``, the words of a bad
filter's and a missing file's warnings. Real Sphinx builds (``tests/sphinx/test_scb_suite.py``
runs the suite itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.sphinx.test_clean_failures import assert_clean_failure, sphinx_build

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def test_no_bibliography_setting_is_a_clean_configuration_error(
        copy_root: Callable[[str], Path]) -> None:
    # conf.py sets neither refbook_bibfiles nor bibtex_bibfiles: the error names conf.py,
    # which has no line for it (Sphinx crashed looking the file up as a document)
    src = copy_root("roles")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        'refbook_bibfiles = ["refs.bib"]\n', ""), encoding="utf-8")
    run = sphinx_build(src)
    assert_clean_failure(run)
    assert f"ERROR: {conf}: refbook_bibfiles is empty: list the book's .bib files" in run.stderr


def test_any_role_cites_entries_and_leaves_labels(copy_root: Callable[[str], Path],
                                                  build: Callable[..., Built]) -> None:
    # as in sphinxcontrib-bibtex: :any: naming keys is a parenthetical citation; a label
    # stays a label
    src = copy_root("roles")
    for page in src.glob("*.rst"):
        page.unlink()
    (src / "index.rst").write_text(
        "Title\n=====\n\nSee :any:`knuth1984,lamport1994` and :any:`here`.\n\n"
        ".. _here:\n\nHere\n----\n\n.. bibliography::\n", encoding="utf-8")
    built = build(src)
    assert not built.warnings, built.warnings
    html = built.read("index.html")
    assert html.count('href="#ref-knuth1984"') == 1
    assert 'id="ref-knuth1984"' in html
    assert 'id="ref-lamport1994"' in html
    assert 'href="#here"' in html
    # listed (the default list holds cited entries) and linked back to the citing section
    assert "Cited in: " in html.split('id="ref-lamport1994"')[1].split("</p>")[0]


def test_filter_overrides_all_cited_notcited_and_says_so(copy_root: Callable[[str], Path],
                                                         build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    for page in src.glob("*.rst"):
        page.unlink()
    (src / "index.rst").write_text(
        "Title\n=====\n\n.. bibliography::\n   :all:\n   :cited:\n   :notcited:\n"
        '   :filter: author % "Knuth"\n', encoding="utf-8")
    built = build(src)
    for flag in ("all", "cited", "notcited"):
        assert f"index.rst:4: WARNING: :filter: overrides :{flag}: (" in built.warnings
    html = built.read("index.html")
    # the filter decides: Knuth's entry only (:all: would list every entry)
    assert 'id="ref-knuth1984"' in html
    assert 'id="ref-lamport1994"' not in html


def test_any_role_follows_bib_edits(copy_root: Callable[[str], Path],
                                    build: Callable[..., Built]) -> None:
    # a key added to the .bib later turns an :any: that named nothing into a citation on the
    # next (incremental) build: the page depends on the .bib files
    src = copy_root("roles")
    for page in src.glob("*.rst"):
        page.unlink()
    (src / "index.rst").write_text("Title\n=====\n\nSee :any:`newkey`.\n\n.. bibliography::\n",
                                   encoding="utf-8")
    first = build(src)
    assert "'any' reference target not found: newkey" in first.warnings
    with (src / "refs.bib").open("a", encoding="utf-8") as f:
        f.write("\n@book{newkey,\n  author = {New, Ann},\n  title = {New},\n"
                "  publisher = {P},\n  year = {2024}\n}\n")
    second = build(src)
    assert "newkey" not in second.warnings, second.warnings
    assert 'href="#ref-newkey"' in second.read("index.html")
