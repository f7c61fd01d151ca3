"""At exit, a ``refbook`` run leaves the objects it made to the operating system: an exit handler
moves them to the collector's permanent generation (``refbook.gcpause.skip_final_collection``),
which CPython's last full collection skips (0.43 s of a 1.55 s warm MkDocs build of 20,000
entries). Checked in a new process through ``gc.get_freeze_count()`` as the last exit handler
sees it, never timed; the hosts' own tests are in tests/mkdocs and tests/sphinx."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import SEED

ROOT = Path(__file__).resolve().parents[2]

#: registers its report first, so that it runs last of the exit handlers
_DRIVER = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), flush=True))
kept = [[i] for i in range(50_000)]  # objects alive at exit, as a build's are
if sys.argv[1] == "check":
    from refbook.cli import main
    main(["check", "--format", "json", sys.argv[2]])
elif sys.argv[1] == "twice":
    from refbook.gcpause import skip_final_collection
    skip_final_collection()
    skip_final_collection()
    print("handlers", __import__("atexit")._ncallbacks(), flush=True)
"""


def _run(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _DRIVER, *args], capture_output=True, text=True,
                         env=env, check=False)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout.strip().splitlines()


def _frozen(lines: list[str]) -> int:
    return int(next(line for line in lines if line.startswith("frozen ")).split()[1])


def test_refbook_check_freezes_what_is_alive_at_exit() -> None:
    assert _frozen(_run("check", str(SEED / "references.raw.bib"))) > 50_000


def test_a_process_that_runs_no_refbook_freezes_nothing() -> None:
    assert _frozen(_run("nothing")) == 0  # the control: the driver alone


def test_the_exit_handler_is_registered_once() -> None:
    lines = _run("twice")
    handlers = int(next(line for line in lines if line.startswith("handlers ")).split()[1])
    assert handlers == 2  # the driver's report and one freeze, for two calls
    assert _frozen(lines) > 50_000
