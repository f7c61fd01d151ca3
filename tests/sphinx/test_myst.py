"""Pandoc citation syntax and the roles in MyST pages; never inside code, never in reST."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def test_pandoc_syntax_in_myst(copy_root: Callable[[str], Path],
                               build: Callable[..., Built]) -> None:
    b = build(copy_root("myst"), "text")
    assert b.warnings == ""
    text = " ".join(b.read("chapter.txt").split())
    assert "Bracketed (see Knuth 1984, 33; Lamport 1994)." in text
    assert "Suppressed author: Knuth wrote it (1984)." in text
    assert "Narrative with locator: Berg and Jones (2020, 4) says so." in text
    assert "A role in MyST: Smith (2020a) and (Smith 2020b)." in text
    assert "Across a soft line break (Smith 2020a, 2020b)." in text
    index = " ".join(b.read("index.txt").split())
    assert "The classic book (Knuth 1984) and, as Lamport (1994) shows, more." in index


def test_code_and_rest_are_left_alone(copy_root: Callable[[str], Path],
                                      build: Callable[..., Built]) -> None:
    b = build(copy_root("myst"), "html")
    assert b.warnings == ""
    chapter = b.read("chapter.html").replace("&#64;", "@")
    assert '<span class="pre">[@knuth1984]</span>' in chapter
    assert '<span class="pre">user@lamport1994</span>' in chapter
    assert "user@example.com" in chapter
    assert "print" in chapter
    assert "[@knuth1984]" in chapter.split("<pre>")[1]
    assert "Pandoc syntax is not read in reST: [@knuth1984] stays text." in b.read("notes.html").replace(
        "&#64;", "@")
    refs = b.read("references.html")
    assert refs.count('class="csl-entry refbook-entry"') == 5
    assert ('<a class="reference internal" href="chapter.html#cite-chapter-3">'
            '<span>Chapter › Forms</span></a>' in refs)


def test_pandoc_syntax_can_be_switched_off(copy_root: Callable[[str], Path],
                                           build: Callable[..., Built]) -> None:
    b = build(copy_root("myst"), "text", confoverrides={"refbook_pandoc_syntax": False})
    assert "Bracketed [see @knuth1984, p. 33; @lamport1994]." in " ".join(
        b.read("chapter.txt").split())
