"""A changed locale file formats the Sphinx book again (new ``sphinx-build`` processes, as a
user runs them): the style's digest keys the cached book and the formatting memo, and covers
the locale files in use (``refbook.styles.locales.locales_stamp``). The MkDocs side, with its
control (the digest without the locale files keeps the old terms):
``tests/mkdocs/test_locale_files.py``."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from tests.mkdocs.test_locale_files import THREE, _and, _locales

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_sphinx_formats_again_after_a_locale_file_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _locales(tmp_path, monkeypatch)
    src = tmp_path / "src"
    src.mkdir()
    (src / "refs.bib").write_text(THREE, encoding="utf-8")
    (src / "conf.py").write_text("extensions = ['sphinx_refbook']\nrefbook_bibfiles = "
                                 "['refs.bib']\nrefbook_locale = 'de-DE'\n", encoding="utf-8")
    (src / "index.rst").write_text("Buch\n====\n\nSiehe :cite:p:`three`.\n\n"
                                   ".. bibliography::\n", encoding="utf-8")

    def built() -> str:  # a new sphinx-build process each time, as a user runs it
        subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src),
                        str(tmp_path / "out")], check=True, capture_output=True)
        return (tmp_path / "out" / "index.html").read_text(encoding="utf-8")

    assert "Eva Schmidt, und Karl Weber" in built()
    _and(folder, "sowie")
    html = built()
    assert "Eva Schmidt, sowie Karl Weber" in html
    assert "Eva Schmidt, und Karl Weber" not in html
