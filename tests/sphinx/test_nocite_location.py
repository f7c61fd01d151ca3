"""An unknown key in ``:cite:empty:`` (sphinxcontrib-bibtex's nocite role) is reported at the
page and line that write it, like an unknown citation key."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def test_unknown_nocite_key_has_its_page_and_line(tmp_path: Path,
                                                  build: Callable[..., Built]) -> None:
    (tmp_path / "conf.py").write_text('extensions = ["sphinx_refbook"]\n'
                                      'refbook_bibfiles = ["refs.bib"]\n', encoding="utf-8")
    (tmp_path / "refs.bib").write_text(
        "@book{doe2001, author={Doe, Jane}, title={Tides}, year={2001}, publisher={P}}\n",
        encoding="utf-8")
    (tmp_path / "index.rst").write_text(
        "Title\n=====\n\nText :cite:p:`doe2001`.\n\nMore :cite:empty:`doe2001,nokey`.\n\n"
        ".. bibliography::\n", encoding="utf-8")
    built = build(tmp_path)
    assert f"{tmp_path}/index.rst:6: WARNING: nocite key 'nokey' is not in any" in built.warnings
