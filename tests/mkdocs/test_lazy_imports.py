"""A book pays only for what it uses: a cold ``mkdocs build`` (a new process) of a book that
cites nothing never imports pybtex, pyuca or docutils, and one that cites with the default style
never imports pybtex or docutils. Checked through ``sys.modules`` in a subprocess, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pybtex", "pyuca", "docutils", "sphinx", "bibtexparser", "pypandoc")

_DRIVER = """
import json, sys
from mkdocs.__main__ import cli
try:
    cli(["build", "-q", "-f", sys.argv[1]])
except SystemExit as exit:
    assert not exit.code, exit.code
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:]))))
"""


def _imported(project: Project) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _DRIVER, str(project.root / "mkdocs.yml"), *HEAVY],
                         check=True, capture_output=True, text=True, cwd=project.root, env=env)
    assert (project.root / "site" / "index.html").is_file()
    result: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_book_that_cites_nothing_imports_none_of_the_heavy_modules(project: Project) -> None:
    project.page("index.md", "# Book\n\nNo citations here.\n")
    assert _imported(project) == []


def test_a_cited_book_imports_the_collation_table_only(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a; @doe2019] and @lee2021.\n")
    assert _imported(project) == ["pyuca"]
