"""Sphinx configuration of the example book (the same Markdown pages MkDocs builds).

Build: sphinx-build -W -c example_book example_book/docs example_book/_build/sphinx
"""

from __future__ import annotations

from pathlib import Path

project = "Engineering Machine Learning Systems"
author = "refbook example"
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
myst_heading_anchors = 3

refbook_bibfiles = ["../references.bib"]
refbook_style = "chicago-author-date"
refbook_strict = True

_DOCS = Path(__file__).parent / "docs"
_CHAPTERS = sorted(p.stem for p in _DOCS.glob("*.md") if p.stem != "index")


def _add_toctree(app: object, docname: str, source: list[str]) -> None:
    # MkDocs takes its navigation from the file names; Sphinx needs a toctree on the root page.
    # The chapters stay untouched: the toctree is added in memory when the root page is read.
    if docname == "index":
        entries = "\n".join(_CHAPTERS)
        source[0] += f"\n\n```{{toctree}}\n:hidden:\n\n{entries}\n```\n"


def setup(app: object) -> None:
    app.connect("source-read", _add_toctree)  # type: ignore[attr-defined]
