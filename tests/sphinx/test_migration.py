"""Migration: a project written for sphinxcontrib-bibtex builds after swapping one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

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


def test_swap_extension_line(copy_root: Callable[[str], Path],
                             build: Callable[..., Built]) -> None:
    src = copy_root("migration")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        'extensions = ["sphinxcontrib.bibtex"]', 'extensions = ["sphinx_refbook"]'),
        encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == ""
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
