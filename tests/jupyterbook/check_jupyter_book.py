"""Jupyter Book 1 (``jupyter-book<2``: Sphinx 7, myst-parser 3, myst-nb 1) builds a book with
refbook in sphinxcontrib-bibtex's place: one small MyST book built by ``jupyter-book build -W``
first as Jupyter Book sets it up (sphinxcontrib-bibtex, which it adds itself for
``bibtex_bibfiles``), then with the line the migration guide gives
(``sphinx: extra_extensions: [sphinx_refbook]``), then with ``bibtex_bibfiles`` under
``sphinx: config`` (Jupyter Book then never lists sphinxcontrib-bibtex) and Pandoc citations.
The same citations link to the same entries, with the same texts; no warnings.

Not collected by ``make test`` (the main venv has no jupyter-book, and myst-parser 4): run by
path in its own venv by ``tests/matrix.sh jupyter-book-1`` (``make test-sphinx-matrix``), with
``--confcutdir tests/jupyterbook``: the suite's top ``conftest.py`` needs MkDocs, which this venv
has not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from refbook.sealed import KEY_ENV

BIB = """\
@book{knuth1984,
  author = {Donald E. Knuth},
  title = {The {TeX}book},
  publisher = {Addison-Wesley},
  address = {Reading, MA},
  year = {1984},
}
@book{lamport1994,
  author = {Leslie Lamport},
  title = {{LaTeX}: A Document Preparation System},
  publisher = {Addison-Wesley},
  address = {Reading, MA},
  edition = {2},
  year = {1994},
}
@article{uncited2000,
  author = {Ada Lovelace},
  title = {Notes},
  journal = {Journal},
  year = {2000},
}
"""

INTRO = """\
# Intro

As {cite:t}`knuth1984` shows, typesetting is hard {cite:p}`lamport1994`.
"""

CHAPTER = """\
# Chapter

Both again {cite}`knuth1984,lamport1994`.

```{bibliography}
```
"""

TOC = """\
format: jb-book
root: intro
chapters:
  - file: chapter
"""

HEAD = """\
title: Refbook in Jupyter Book 1
author: Tester
execute:
  execute_notebooks: "off"
"""

# as Jupyter Book's docs set a book up: it appends sphinxcontrib.bibtex to the extensions
STOCK = HEAD + "bibtex_bibfiles:\n  - references.bib\n"
# the migration: one block more
SWAPPED = STOCK + "sphinx:\n  extra_extensions:\n    - sphinx_refbook\n"
# bibtex_bibfiles handed to Sphinx directly: Jupyter Book never lists sphinxcontrib.bibtex
DIRECT = HEAD + ("sphinx:\n  extra_extensions:\n    - sphinx_refbook\n"
                 "  config:\n    bibtex_bibfiles:\n      - references.bib\n")
PANDOC = "\nIn Pandoc syntax [@lamport1994, p. 3], and @knuth1984 too.\n"


@dataclass
class Page(HTMLParser):
    """An HTML page's bibliography entries (id → label and text) and its internal links
    (target, text); the "Cited in:" back-links of refbook's entries are left out."""

    entries: dict[str, str] = field(default_factory=dict)
    links: list[tuple[str, str]] = field(default_factory=list)
    _entry: str | None = None
    _depth: int = 0
    _link: str | None = None
    _text: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        HTMLParser.__init__(self)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self._entry is not None and tag == "div":
            self._depth += 1
        if tag == "div" and a.get("role") == "doc-biblioentry":
            self._entry, self._depth = a.get("id") or "", 1
            self.entries[self._entry] = ""
        if tag == "a" and "reference internal" in (a.get("class") or ""):
            self._link, self._text = a.get("href") or "", []

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._link is not None:
            self.links.append((self._link, "".join(self._text)))
            self._link = None
        if tag == "div" and self._entry is not None:
            self._depth -= 1
            if self._depth == 0:
                self._entry = None

    def handle_data(self, data: str) -> None:
        if self._link is not None:
            self._text.append(data)
        if self._entry is not None:
            self.entries[self._entry] += data


@dataclass(frozen=True)
class Book:
    log: str
    entries: dict[str, str]  # "page#id" → the entry's text ("Cited in: …" cut off)
    citations: dict[str, list[tuple[str, str]]]  # page → (entry's text, citation text)


def build(tmp_path: Path, name: str, config: str, extra: str = "") -> Book:
    src = tmp_path / name
    src.mkdir()
    (src / "_config.yml").write_text(config, encoding="utf-8")
    (src / "_toc.yml").write_text(TOC, encoding="utf-8")
    (src / "references.bib").write_text(BIB, encoding="utf-8")
    (src / "intro.md").write_text(INTRO + extra, encoding="utf-8")
    (src / "chapter.md").write_text(CHAPTER, encoding="utf-8")
    jb = shutil.which("jupyter-book", path=str(Path(sys.executable).parent))
    assert jb is not None, "jupyter-book is not installed next to this Python"
    run = subprocess.run([jb, "build", "-W", "-n", "--keep-going", str(src)],
                         capture_output=True, text=True, timeout=600, check=False,
                         # refbook's cache sealed with a test key, as tests/conftest.py does
                         env=dict(os.environ, NO_COLOR="1", **{KEY_ENV: "refbook test key"}))
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    html = src / "_build" / "html"
    pages = {}
    for page in ("intro.html", "chapter.html"):
        parser = Page()
        parser.feed((html / page).read_text(encoding="utf-8"))
        pages[page] = parser
    entries = {f"{page}#{ident}": text.split("Cited in:")[0].strip()
               for page, parsed in pages.items() for ident, text in parsed.entries.items()}
    citations = {}
    for page, parsed in pages.items():
        cites = []
        for href, text in parsed.links:
            target = href if href.split("#")[0] else page + href
            if target in entries:
                cites.append((entries[target], text))
        citations[page] = cites
    return Book(log, entries, citations)


@pytest.fixture(scope="module")
def stock(tmp_path_factory: pytest.TempPathFactory) -> Book:
    return build(tmp_path_factory.mktemp("jb"), "stock", STOCK)


def _no_warnings(book: Book) -> None:
    assert "WARNING" not in book.log, book.log
    assert "Traceback" not in book.log, book.log


def test_sphinxcontrib_bibtex_baseline(stock: Book) -> None:
    _no_warnings(stock)
    assert len(stock.entries) == 2  # the cited ones: {bibliography} lists cited entries
    assert sum(len(c) for c in stock.citations.values()) == 4


def test_refbook_in_place_of_sphinxcontrib_bibtex(stock: Book, tmp_path: Path) -> None:
    swapped = build(tmp_path, "swapped", SWAPPED)
    _no_warnings(swapped)
    assert "takes its place, so sphinxcontrib.bibtex is not loaded" in swapped.log
    # the same entries (same texts) and the same citations, linked to the same entries
    assert sorted(swapped.entries.values()) == sorted(stock.entries.values())
    assert swapped.citations == stock.citations
    print(f"\nJupyter Book 1, sphinxcontrib-bibtex: {len(stock.entries)} entries, "
          f"{sum(map(len, stock.citations.values()))} citations linked; refbook: "
          f"{len(swapped.entries)} entries, {sum(map(len, swapped.citations.values()))}")


def test_bibfiles_in_sphinx_config_and_pandoc_syntax(stock: Book, tmp_path: Path) -> None:
    direct = build(tmp_path, "direct", DIRECT, PANDOC)
    _no_warnings(direct)
    assert "sphinxcontrib.bibtex is in extensions too" not in direct.log
    assert sorted(direct.entries.values()) == sorted(stock.entries.values())
    assert direct.citations["chapter.html"] == stock.citations["chapter.html"]
    lamport, knuth = (next(e for e in stock.entries.values() if name in e)
                      for name in ("Lamport", "Knuth"))
    label = dict(stock.citations["chapter.html"])  # entry → its label, as cited there
    # the {cite} roles as before, then the two Pandoc citations, linked to their entries
    assert direct.citations["intro.html"] == [*stock.citations["intro.html"],
                                              (lamport, label[lamport]), (knuth, label[knuth])]
