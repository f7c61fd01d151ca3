"""The bibliography directive's modes: book (default), page, all, not cited, filter; where each
key's home anchor ``ref-<key>`` goes and where citations link."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def _entries(text: str) -> list[str]:
    return [p.split(".")[0].strip() + " " + re.search(r"\d{4}\w?", p).group(0)  # type: ignore[union-attr]
            for p in text.split("\n\n")[1:] if re.search(r"\d{4}", p) and "===" not in p]


def test_each_mode_lists_its_entries(copy_root: Callable[[str], Path],
                                     build: Callable[..., Built]) -> None:
    b = build(copy_root("modes"), "text")
    assert b.warnings == ""
    assert _entries(b.read("one.txt"))[1:] == ["Knuth, Donald E 1984", "Lamport, Leslie 1994"]
    assert _entries(b.read("two.txt"))[1:] == ["Smith, John 2020a"]
    every = b.read("all.txt").split("Not cited")
    assert len(_entries(every[0])) == 7
    assert _entries(every[1]) == ["Berg, Anna van der, and Carl Jones 2020", "Nobody, Nadia 1999",
                                  "R&D Team 2021", "Smith, John 2020b"]
    assert _entries(b.read("filtered.txt")) == [
        "Berg, Anna van der, and Carl Jones 2020", "Smith, John 2020a", "Smith, John 2020b"]
    assert _entries(b.read("references.txt")) == [
        "Knuth, Donald E 1984", "Lamport, Leslie 1994", "Smith, John 2020a"]


def test_home_anchor_and_local_links(copy_root: Callable[[str], Path],
                                     build: Callable[..., Built]) -> None:
    b = build(copy_root("modes"), "html")
    assert b.warnings == ""
    # the first book-wide list in reading order (":all:") is each key's home
    assert 'id="ref-knuth1984"' in b.read("all.html")
    assert 'id="ref-knuth1984"' not in b.read("references.html")
    assert 'id="ref-knuth1984-references-0"' in b.read("references.html")
    # a page with its own list links there; other pages link to the home
    one = b.read("one.html")
    assert 'id="ref-knuth1984-one-0"' in one
    assert 'href="#ref-knuth1984-one-0"' in one
    assert 'href="#ref-smith2020a-two-0"' in b.read("two.html")


def test_bad_filter_is_reported(copy_root: Callable[[str], Path],
                                build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    (src / "filtered.rst").write_text(
        "Filtered\n========\n\n.. bibliography::\n   :filter: __import__('os')\n", encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/filtered.rst:4: WARNING: invalid filter \"__import__('os')\": Call is not "
        "allowed [refbook.bad-filter]\n")
    assert _entries(b.read("filtered.txt")) == []  # the list shows no entry


def _without_lists(src: Path) -> Path:
    (src / "references.rst").write_text("References\n==========\n\nNo directive here.\n",
                                        encoding="utf-8")
    return src


def test_automatic_list_on_the_root_page(copy_root: Callable[[str], Path],
                                         build: Callable[..., Built]) -> None:
    b = build(_without_lists(copy_root("roles")), "html")
    assert b.warnings == ""
    index = b.read("index.html")
    assert '<section id="refbook-references">\n<h2>References' in index
    assert index.count('class="csl-entry refbook-entry"') == 7
    assert 'href="index.html#ref-knuth1984"' in b.read("chapter.html")


def test_options_switch_off_the_automatic_list_and_backlinks(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = _without_lists(copy_root("roles"))
    b = build(src, "html", confoverrides={"refbook_auto_bibliography": False})
    assert b.warnings == ""
    assert "refbook-entry" not in b.read("index.html")
    # no list anywhere: the citation is text, without a link
    assert ('<span class="refbook-citation">(<span>Knuth 1984</span>)</span>'
            in b.read("chapter.html"))
    plain = build(copy_root("modes"), "text", confoverrides={"refbook_backlinks": False})
    assert "Cited in" not in plain.read("references.txt")
