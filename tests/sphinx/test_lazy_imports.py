"""A Sphinx book pays only for what it uses: a build in refbook's own look (``refbook_bibfiles``,
a CSL style) never imports pybtex, which only sphinxcontrib-bibtex's look (``bibtex_*``
options) formats with. Checked through ``sys.modules`` in a new process, never timed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOTS = Path(__file__).parent / "roots"

_DRIVER = """
import json, sys
from sphinx.cmd.build import main
assert main(["-q", "-b", "html", sys.argv[1], sys.argv[2]]) == 0
print(json.dumps(sorted(n for n in sys.argv[3:]
                        if any(m == n or m.startswith(n + ".") for m in sys.modules))))
"""


def _imported(src: Path, out: Path, *names: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", _DRIVER, str(src), str(out), *names],
                         check=True, capture_output=True, text=True, cwd=src, env=env)
    assert (out / "index.html").is_file()
    result: list[str] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def test_refbooks_own_look_never_imports_pybtex(tmp_path: Path) -> None:
    src = shutil.copytree(ROOTS / "test-roles", tmp_path / "src")
    assert _imported(src, tmp_path / "out", "pybtex", "refbook.styles.pybtex_bridge") == []


def test_sphinxcontrib_bibtex_look_imports_pybtex(tmp_path: Path) -> None:
    src = shutil.copytree(ROOTS / "test-roles", tmp_path / "src")
    conf = src / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8").replace(
        'refbook_bibfiles = ["refs.bib"]', 'bibtex_bibfiles = ["refs.bib"]\n'
        'bibtex_default_style = "alpha"'), encoding="utf-8")
    assert _imported(src, tmp_path / "out", "pybtex", "refbook.styles.pybtex_bridge") == [
        "pybtex", "refbook.styles.pybtex_bridge"]


def test_a_build_that_changes_nothing_imports_no_resolution(tmp_path: Path) -> None:
    """A no-op ``sphinx-build`` (nothing edited) loads its environment and the cached book and
    compares digests: it never imports what resolving a book takes (sphinx_refbook.spec holds
    the records it unpickles)."""
    src = shutil.copytree(ROOTS / "test-roles", tmp_path / "src")
    heavy = ("sphinx_refbook.book", "refbook.validate.citations", "refbook.bibtex_csl",
             "refbook.latex", "refbook.readers", "refbook.styles.csl.processor",
             "refbook.styles.csl.engine")
    first = _imported(src, tmp_path / "out", *heavy)
    assert "sphinx_refbook.book" in first  # the first build resolves the book
    assert _imported(src, tmp_path / "out", *heavy) == []
