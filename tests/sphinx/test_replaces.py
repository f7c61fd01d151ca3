"""refbook and sphinxcontrib-bibtex both in a project's extensions, as Jupyter Book 1 lists them
when ``_config.yml`` sets ``bibtex_bibfiles`` and ``sphinx: extra_extensions: [sphinx_refbook]``:
refbook listed first takes sphinxcontrib-bibtex's place (one info line, the citations linked by
refbook); listed after it, a clean configuration error. Real ``sphinx-build`` processes (the
Jupyter Book build itself: tests/jupyterbook/check_jupyter_book.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from tests.sphinx.test_clean_failures import CRASH_REPORT, assert_clean_failure, sphinx_build

if TYPE_CHECKING:
    from pathlib import Path

BIB = """\
@book{knuth1984,
  author = {Donald E. Knuth},
  title = {The {TeX}book},
  publisher = {Addison-Wesley},
  year = {1984},
}
"""

PAGE = """\
Page
====

As :cite:t:`knuth1984` shows.

.. bibliography::
"""


def _project(tmp_path: Path, extensions: list[str]) -> Path:
    (tmp_path / "conf.py").write_text(
        f"extensions = {extensions!r}\nbibtex_bibfiles = ['refs.bib']\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "index.rst").write_text(PAGE, encoding="utf-8")
    return tmp_path


def test_refbook_first_takes_the_place_of_sphinxcontrib_bibtex(tmp_path: Path) -> None:
    src = _project(tmp_path, ["sphinx_refbook", "sphinxcontrib.bibtex"])
    run = sphinx_build(src, "-b", "html", "-W")
    # before: "Extension error: Config value 'bibtex_default_style' already present"
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    html = (src / "_build" / "index.html").read_text(encoding="utf-8")
    # refbook's anchor, not sphinxcontrib-bibtex's numbered "id…"
    assert 'href="#ref-knuth1984"' in html
    # the info line (the helper's -q hides info lines)
    loud = subprocess.run([sys.executable, "-m", "sphinx", "-E", str(src), str(src / "_build")],
                          capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"),
                          timeout=300, check=False)
    assert "refbook: sphinxcontrib.bibtex is in extensions too" in loud.stdout, loud.stdout
    assert "so sphinxcontrib.bibtex is not loaded" in loud.stdout, loud.stdout


def test_sphinxcontrib_bibtex_first_is_a_clean_error(tmp_path: Path) -> None:
    src = _project(tmp_path, ["sphinxcontrib.bibtex", "sphinx_refbook"])
    run = sphinx_build(src)
    assert_clean_failure(run)
    assert ('sphinx_refbook replaces sphinxcontrib.bibtex, which is loaded already: remove '
            '"sphinxcontrib.bibtex" from extensions') in run.stderr
    assert not any(marker in run.stderr for marker in CRASH_REPORT)
