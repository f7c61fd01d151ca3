"""A changed locale file formats the book again: the style's digest, which keys every cached
formatting result (the cache folder's resolution and memo files, the plugin's memory under
``mkdocs serve``), covers the locale files in use (``refbook.styles.locales.locales_stamp``).
Before, a book built with ``$REFBOOK_CSL_LOCALES`` (or citeproc-py's locales, after an upgrade)
kept the old terms until its cache folder was deleted. A real build each time; the Sphinx
side: ``tests/sphinx/test_locale_files.py``."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

from refbook.styles.locales import locale_dir

if TYPE_CHECKING:
    from pathlib import Path

    from tests.mkdocs.conftest import Project

THREE = ("@book{three, author = {Müller, Hans and Schmidt, Eva and Weber, Karl}, title = {Ein "
         "Buch}, publisher = {Verlag}, year = {2001}}\n")


def _locales(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = locale_dir()
    if source is None:  # citeproc-py is a dependency: its locales are always there
        pytest.fail("no CSL locale files installed (citeproc-py)")
    folder = shutil.copytree(source, tmp_path / "locales")
    monkeypatch.setenv("REFBOOK_CSL_LOCALES", str(folder))
    return folder


def _and(folder: Path, word: str) -> None:
    german = folder / "locales-de-DE.xml"
    text = german.read_text(encoding="utf-8")
    start = text.index('<term name="and">') + len('<term name="and">')
    end = text.index("</term>", start)
    german.write_text(text[:start] + word + text[end:], encoding="utf-8")


def _mkdocs_list(project: Project) -> str:
    project.build()
    return project.html("index.html")


@pytest.mark.parametrize("control", [False, True])
def test_mkdocs_formats_again_after_a_locale_file_changed(
        project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, control: bool) -> None:
    folder = _locales(tmp_path, monkeypatch)
    if control:  # the digest as it was: without the locale files
        monkeypatch.setattr("refbook.styles.locales.locales_stamp", lambda: "")
    (project.root / "refs.bib").write_text(THREE, encoding="utf-8")
    project.configure({"locale": "de-DE"})
    project.page("index.md", "# Buch\n\nSiehe [@three].\n")
    assert "Eva Schmidt, und Karl Weber" in _mkdocs_list(project)
    assert (project.root / ".cache" / "refbook").is_dir()  # the next build finds its results
    _and(folder, "sowie")
    html = _mkdocs_list(project)
    if control:
        assert "Eva Schmidt, und Karl Weber" in html  # the cached text of the old term
    else:
        assert "Eva Schmidt, sowie Karl Weber" in html
        assert "Eva Schmidt, und Karl Weber" not in html
