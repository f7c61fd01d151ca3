"""A ``mkdocs build`` with refbook leaves the objects alive at exit to the operating system: they
are moved to the collector's permanent generation, which CPython's last collection skips
(``refbook.gcpause.skip_final_collection``; 0.43 s of a 1.55 s warm build of 20,000 entries).
Checked in a new process through ``gc.get_freeze_count()``, never timed; the same build without
the plugin is the control."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

ROOT = Path(__file__).resolve().parents[2]

#: registers its report first, so that it runs last of the exit handlers
_DRIVER = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), flush=True))
from mkdocs.__main__ import cli
cli(["build", "-q", "-f", sys.argv[1]])
"""


def _frozen(project: Project) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _DRIVER, str(project.root / "mkdocs.yml")],
                         capture_output=True, text=True, cwd=project.root, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert (project.root / "site" / "index.html").is_file()
    return int(out.stdout.strip().splitlines()[-1].split()[1])


def test_a_build_with_refbook_freezes_what_is_alive_at_exit(project: Project) -> None:
    project.page("index.md", "# Book\n\nAs shown [@doe2019].\n\n<!-- refbook:bibliography -->\n")
    assert _frozen(project) > 10_000


def test_a_build_without_refbook_freezes_nothing(project: Project) -> None:
    project.page("index.md", "# Book\n\nNo citations.\n")
    project.configure(plugins=[])
    assert _frozen(project) == 0
