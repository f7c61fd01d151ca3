"""Jupyter Book 1's reader: a myst-nb book (a MyST Markdown notebook page and an ``.ipynb``)
that cites with sphinxcontrib-bibtex's roles and Pandoc syntax, built with refbook. Real Sphinx
builds (myst-nb's notebooks are not executed: ``nb_execution_mode = "off"``, the outputs stored
in the notebook are shown), each in its own ``sphinx-build`` process, as Jupyter Book runs one:
on Sphinx 7.4 an application made earlier in the same process leaves ``.md`` mapped to MyST's
parser in the shared default ``source_suffix``, which a myst-nb project does not load."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import myst_nb

from tests.sphinx.conftest import ROOTS

if TYPE_CHECKING:
    from pathlib import Path

CONF = """\
extensions = ["myst_nb", "sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
nb_execution_mode = "off"
exclude_patterns = ["_build"]
"""

# a MyST Markdown notebook (myst-nb's text format: front matter, code cells)
PAGE = """\
---
file_format: mystnb
kernelspec:
  name: python3
  display_name: Python 3
  language: python
---

# Book

As {cite:t}`knuth1984` shows, and as said before [@lamport1994].

```{code-cell} python
print(1 + 1)
```

```{toctree}
notebook
```
"""


def _notebook() -> dict[str, object]:
    def markdown(ident: str, text: str) -> dict[str, object]:
        return {"cell_type": "markdown", "id": ident, "metadata": {},
                "source": text.splitlines(keepends=True)}

    return {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"},
                     "language_info": {"name": "python"}},
        "cells": [
            markdown("m1", "# Notebook\n\nTypesetting {cite:p}`knuth1984` and "
                           "[@vanderberg2020, p. 3].\n"),
            {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1,
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]}],
             "source": ["print(1 + 1)"]},
            markdown("m2", "## References\n\n```{bibliography}\n```\n"),
        ],
    }


def test_myst_nb_book_cites_in_notebooks(tmp_path: Path) -> None:
    assert myst_nb.__version__
    src = tmp_path / "book"
    src.mkdir()
    shutil.copy(ROOTS / "test-roles" / "refs.bib", src / "refs.bib")
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.md").write_text(PAGE, encoding="utf-8")
    (src / "notebook.ipynb").write_text(json.dumps(_notebook()), encoding="utf-8")
    out = tmp_path / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)],
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    notebook = (out / "notebook.html").read_text(encoding="utf-8")
    index = (out / "index.html").read_text(encoding="utf-8")
    # the notebook's markdown cell: a role and a Pandoc citation with a locator, both linked
    assert '<a class="reference internal" href="#ref-knuth1984"' in notebook
    assert 'href="#ref-vanderberg2020"' in notebook
    assert "Berg and Jones 2020, 3" in notebook
    assert "{cite:p}" not in notebook
    assert "[@vanderberg2020" not in notebook
    # the list in the notebook holds the book's three cited entries, each linked back
    for key in ("knuth1984", "lamport1994", "vanderberg2020"):
        assert f'id="ref-{key}"' in notebook
    assert notebook.count("refbook-backlinks") == 3
    # the Markdown notebook page cites across pages, into the notebook's list
    assert 'href="notebook.html#ref-knuth1984"' in index
    assert 'href="notebook.html#ref-lamport1994"' in index
    # the code cells and their stored output are myst-nb's, untouched
    assert "print" in index
    assert "2" in notebook
