"""Time builds as an installed refbook runs: with its modules' bytecode cached.

``pip install`` compiles a package's modules to ``__pycache__`` once; an editable install (this
checkout) compiles them on first import and writes the cache then — unless
``PYTHONDONTWRITEBYTECODE`` is set, as it is in some shells and containers. Then every build
process compiled refbook's sources again (about 0.1 s for the style engine alone), while the
other tools, installed from wheels, ran from cached bytecode: the benchmarks measured a handicap
no installed refbook has. :func:`installed_env` compiles refbook's packages now and returns the
environment for the timed processes without that variable, so every tool runs as installed.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("refbook", "sphinx_refbook", "mkdocs_refbook")


def engine_status() -> str:
    """Which refbook the timed build processes run: the compiled engine (``make accel``) or
    plain Python (``REFBOOK_PURE=1``, or not built), as a new process decides it."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", "from refbook import accel; print(accel.status())"],
        capture_output=True, text=True, check=True, env=installed_env(), cwd=ROOT,
    ).stdout.strip()


def installed_env() -> dict[str, str]:
    """Compile refbook's packages (as ``pip install`` does) and return ``os.environ`` without
    ``PYTHONDONTWRITEBYTECODE`` for the build processes a benchmark times."""
    for package in PACKAGES:
        folder = ROOT / package
        if folder.is_dir():
            compileall.compile_dir(str(folder), quiet=1)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
