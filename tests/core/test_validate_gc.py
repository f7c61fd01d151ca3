"""Validation pauses the cyclic collector and, on the way out, puts what survived straight into
the oldest generation (``refbook.gcpause.paused_gc``). With the collector merely re-enabled,
the objects a check allocates were all in its youngest generation, and the first allocation
after it scanned them all (0.75 s of a profiled 20,000-entry check), moving them to the middle
generation. Counted in a new process (the caches of an earlier check would hide it) through
``gc.get_objects(generation=1)``, what a collection has scanned once; never timed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import TESTDATA

ROOT = Path(__file__).resolve().parents[2]
BIB = TESTDATA / "biblatex" / "biblatex-examples.bib"

_DRIVER = """
import contextlib, gc, sys
import refbook.validate as validation
from refbook.config import Config
from refbook.readers import read_bibliography

if sys.argv[2] == "re-enabled":  # the control: the pause as it was, disable then enable
    @contextlib.contextmanager
    def disabled():
        gc.disable()
        try:
            yield
        finally:
            gc.enable()

    validation.paused_gc = disabled
bib = read_bibliography([sys.argv[1]])
gc.collect()  # everything alive now is in the oldest generation
validation.validate(bib, Config())
assert gc.isenabled()
print(len(gc.get_objects(generation=1)))
"""


def _scanned_after_validation(pause: str) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _DRIVER, str(BIB), pause], capture_output=True,
                         text=True, env=env, check=True)
    return int(out.stdout.split()[-1])


def test_what_validation_leaves_goes_to_the_oldest_generation_unscanned() -> None:
    assert _scanned_after_validation("paused") < 1_000


def test_a_collector_merely_reenabled_scans_it_all_at_once() -> None:
    assert _scanned_after_validation("re-enabled") > 10_000  # the control
