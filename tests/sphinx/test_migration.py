"""Migration: a project written for sphinxcontrib-bibtex builds after swapping one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.sphinx.test_bibtex_look import visible

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from sphinx.testing.util import SphinxTestApp

    from tests.sphinx.conftest import Built


def test_root_builds_with_sphinxcontrib_bibtex(copy_root: Callable[[str], Path],
                                               make_app: Callable[..., SphinxTestApp]) -> None:
    app = make_app("text", srcdir=copy_root("migration"))
    app.build()
    assert app.warning.getvalue() == ""
    # what sphinxcontrib-bibtex 2.7 makes of it (the evidence we improve on)
    text = (app.outdir / "index.txt").read_text(encoding="utf-8")
    assert "Cited [Knuth, 1984] and Lamport [1994]" in text
    assert "[Knu84]" in text


def test_swap_extension_line_keeps_the_look(copy_root: Callable[[str], Path],
                                            build: Callable[..., Built]) -> None:
    """After the one-line swap a reader sees what sphinxcontrib-bibtex showed (its options:
    alpha labels, author-year references, :keyprefix:/:labelprefix:), plus back-links."""
    original = copy_root("migration")
    theirs = build(original.rename(original.parent / "original"), "text")
    src = copy_root("migration")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        'extensions = ["sphinxcontrib.bibtex"]', 'extensions = ["sphinx_refbook"]'),
        encoding="utf-8")
    ours = build(src, "text")
    assert ours.warnings == ""
    for page in ("index.txt", "chapter.txt"):
        assert visible(ours.read(page)) == visible(theirs.read(page)), page
    assert "Cited [Knuth, 1984] and Lamport [1994]" in visible(ours.read("index.txt"))


def test_swap_extension_line_and_opt_in(copy_root: Callable[[str], Path],
                                        build: Callable[..., Built]) -> None:
    src = copy_root("migration")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        'extensions = ["sphinxcontrib.bibtex"]', 'extensions = ["sphinx_refbook"]')
        .replace('bibtex_default_style = "alpha"\nbibtex_reference_style = "author_year"\n', "")
        + 'refbook_style = "chicago-author-date"\n', encoding="utf-8")
    b = build(src, "text")
    # the list options of sphinxcontrib-bibtex's look are reported: refbook's style decides
    assert b.warnings.count("no effect: refbook_style") == 2
    assert b.warnings.count("WARNING") == 2
    index = " ".join(b.read("index.txt").split())
    assert ("Cited (Knuth 1984) and Lamport (1994), with (see Smith 2020, 3)." in index)
    assert "Knuth, Donald E. 1984. *The TeXbook*. Addison-Wesley." in index
    chapter = " ".join(b.read("chapter.txt").split())
    assert "Also (Berg and Jones 2020), 1984 and Lamport." in chapter
    # the page's own list holds the entries this page cites (three forms, three keys)
    local = chapter.split("Local list: ")[1]
    assert local.startswith("Berg, Anna van der, and Carl Jones. 2020.")
    assert "Knuth, Donald E. 1984." in local
    assert local.endswith("Addison-Wesley. Cited in: Migration; Chapter.")
    assert "Smith" not in local
