"""Every builder renders citations and lists from nodes: html, dirhtml, singlehtml, epub, text,
latex (valid, escaped, with hyperlinks to the entries)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


@pytest.mark.parametrize("builder", ["html", "dirhtml", "singlehtml", "epub", "text", "latex"])
def test_builder_is_warning_free(copy_root: Callable[[str], Path], build: Callable[..., Built],
                                 builder: str) -> None:
    b = build(copy_root("roles"), builder)
    assert b.warnings == ""


def test_dirhtml_links(copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "dirhtml")
    chapter = b.read("chapter/index.html")
    assert 'href="../references/#ref-knuth1984"' in chapter
    assert 'href="../chapter/#cite-chapter-0"' in b.read("references/index.html")


def test_singlehtml_links_stay_on_the_page(copy_root: Callable[[str], Path],
                                           build: Callable[..., Built]) -> None:
    html = build(copy_root("roles"), "singlehtml").read("index.html")
    assert 'href="#ref-knuth1984"' in html
    assert 'id="ref-knuth1984"' in html
    assert 'href="#cite-chapter-0"' in html
    assert html.count('id="ref-knuth1984"') == 1


def test_epub_has_the_list(copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "epub")
    refs = b.read("references.xhtml")
    assert 'id="ref-knuth1984"' in refs
    assert 'href="chapter.xhtml#cite-chapter-0"' in refs


def test_latex_is_escaped_and_linked(copy_root: Callable[[str], Path],
                                     build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "latex")
    tex = b.read("roles.tex")
    assert r"Costs of 50\% and \_Under\_scores \# in \$ Names" in tex
    assert r"R\&D Team" in tex
    assert r"\hyperref[\detokenize{references:ref-knuth1984}]" in tex
    assert r"\label{\detokenize{references:ref-knuth1984}}" in tex
    assert r"\label{\detokenize{chapter:cite-chapter-0}}" in tex
    assert r"\sphinxhref{https://doi.org/10.1000/names.3}" in tex or \
        r"\sphinxurl{https://doi.org/10.1000/names.3}" in tex
    assert "javascript" not in re.sub(r"javascript:alert\(1\)", "", tex)
    assert tex.count(r"\begin{") == tex.count(r"\end{")
