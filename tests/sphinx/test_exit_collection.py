"""A ``sphinx-build`` with refbook leaves the objects alive at exit to the operating system: they
are moved to the collector's permanent generation, which CPython's last collection skips
(``refbook.gcpause.skip_final_collection``). Checked in a new process through
``gc.get_freeze_count()``, never timed; the same book without the extension is the control."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOTS = Path(__file__).parent / "roots"

#: registers its report first, so that it runs last of the exit handlers
_DRIVER = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), flush=True))
from sphinx.cmd.build import main
code = main(["-q", "-b", "html", *sys.argv[3:], sys.argv[1], sys.argv[2]])
assert code == 0, code
"""


def _frozen(src: Path, out: Path, *options: str) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", _DRIVER, str(src), str(out), *options],
                         capture_output=True, text=True, cwd=src, env=env, check=False)
    assert run.returncode == 0, run.stderr
    assert (out / "index.html").is_file()
    return int(run.stdout.strip().splitlines()[-1].split()[1])


def test_a_build_with_refbook_freezes_what_is_alive_at_exit(tmp_path: Path) -> None:
    src = shutil.copytree(ROOTS / "test-roles", tmp_path / "src")
    assert _frozen(src, tmp_path / "out") > 10_000


def test_a_build_without_refbook_freezes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("project = 'plain'\n", encoding="utf-8")
    (src / "index.rst").write_text("Plain\n=====\n\nNo citations.\n", encoding="utf-8")
    assert _frozen(src, tmp_path / "out") == 0
