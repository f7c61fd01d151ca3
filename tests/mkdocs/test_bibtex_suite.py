"""mkdocs-bibtex's own test suite, run against refbook (evidence 1 of issue 11).

The sdist of mkdocs-bibtex 4.4.0 is fetched by ``make setup`` (pip download, into
``.venv/sdists``; never committed) and unpacked into a temporary folder; a ``conftest.py`` there
swaps its ``BibTexPlugin`` for refbook's plugin (``tests/mkdocs/bibtex_shim.py``) and its tests
run as they are. Only the modules that drive the plugin are run: the others test mkdocs-bibtex's
internals (its citation parser, its pybtex and pandoc registries, its Zotero download helper),
which refbook does not have.

Every test passes except those listed in :data:`FAILS`, each with its reason; the test below
fails if one of them starts passing (update the list) or another one fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.conftest import ROOT

SDIST = Path(sys.executable).parent.parent / "sdists" / "mkdocs_bibtex-4.4.0.tar.gz"
RUN = ("test_files/test_plugin.py", "test_files/test_integration.py")
NOT_RUN = {
    "test_files/test_citation.py": "mkdocs-bibtex's citation parser (refbook.syntax has its own)",
    "test_files/test_simple_registry.py": "mkdocs-bibtex's pybtex registry",
    "test_files/test_pandoc_registry.py": "mkdocs-bibtex's pandoc registry",
    "test_files/test_utils.py": "mkdocs-bibtex's URL/Zotero download helpers",
}
FAILS = {
    "test_plugin.py::test_bibtex_loading_bib_url": "downloads the .bib file: refbook reads no "
                                                    "network at build time (a clear error)",
}

CONFTEST = """\
from tests.mkdocs.bibtex_shim import install

install()
"""


def test_mkdocs_bibtex_suite_passes_against_refbook(tmp_path: Path) -> None:
    assert SDIST.is_file(), f"{SDIST} is missing: run `make setup` (it downloads the sdist)"
    with tarfile.open(SDIST) as archive:
        archive.extractall(tmp_path, filter="data")
    suite = tmp_path / "mkdocs_bibtex-4.4.0"
    for name in (*RUN, *NOT_RUN):
        assert (suite / name).is_file(), name
    (suite / "test_files" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
         "-o", "addopts=", *RUN], cwd=suite, env=env, capture_output=True, text=True,
        timeout=300, check=False)
    outcomes = {m.group("test").removeprefix("test_files/"): m.group("outcome")
                for m in re.finditer(r"^(?P<outcome>PASSED|FAILED|ERROR|SKIPPED) "
                                     r"(?P<test>\S+)", done.stdout, re.M)}
    assert outcomes, done.stdout[-3000:] + done.stderr[-3000:]
    failing = {t for t, o in outcomes.items() if o != "PASSED"}
    assert failing == set(FAILS), done.stdout[-6000:]
    passed = sorted(t for t, o in outcomes.items() if o == "PASSED")
    assert len(passed) == 14, passed
