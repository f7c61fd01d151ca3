"""Build refbook's compiled engine: the modules of ``refbook.accel.MODULES`` compiled by mypyc.

Usage: ``refbook compile [--require]`` (``make accel`` runs it; ``make test`` and ``make bench``
run ``make accel`` first). Works on a checkout and on an installed refbook alike: the package's
sources are copied into a temporary folder and compiled there, and the extension modules and
their manifest are written into the package's ``_compiled/`` folder (not versioned, not in
wheels), where ``refbook.accel`` finds them.

Needs mypy (which brings mypyc) and setuptools (``pip install 'refbook[accel]'``), and a C
compiler with the Python headers (Debian: ``gcc`` and ``python3-dev``; a pyenv or python.org
Python has its headers). Without them it says so and returns 0: refbook then runs as plain
Python, only slower. ``--require`` makes a failed build an error (CI, where the compiled engine
must be what is tested).

The build takes about a minute on two cores. The manifest is written last, so an interrupted
build is never used; a build of sources that changed since is never used either
(``refbook.accel``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from refbook import accel

#: the mypy settings of the build (the package's own, strict ones are for checking it)
MYPY_INI = """[mypy]
ignore_missing_imports = True
follow_imports = silent
"""

SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
paths = sys.argv[sys.argv.index("--") + 1:]
del sys.argv[sys.argv.index("--"):]
setup(name="refbook-accel", packages=[], py_modules=[],
      ext_modules=mypycify(paths, opt_level="3", group_name={group!r}, multi_file=True))
"""


def module_path(name: str) -> str:
    return name.replace(".", "/") + ".py"


def build(require: bool) -> int:
    import importlib.util

    for needed in ("mypyc", "setuptools"):
        if importlib.util.find_spec(needed) is None:
            return _skip(f"{needed} is not installed (pip install 'refbook[accel]')", require)
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        return _skip("no C compiler (Debian: apt-get install gcc python3-dev)", require)
    out = accel.FOLDER
    manifest = accel.MANIFEST
    manifest.unlink(missing_ok=True)  # never a manifest over a half-made build
    files = accel.sources()
    stat, digest = accel.stat_signature(files), accel.content_digest(files)
    with tempfile.TemporaryDirectory(prefix="refbook-accel-") as tmp:
        src = Path(tmp, "src")
        for path in files:  # the sources as they are now (what the manifest's digest covers)
            target = src / "refbook" / path.relative_to(accel.ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (src / "mypy.ini").write_text(MYPY_INI, encoding="utf-8")
        script = Path(tmp) / "setup_accel.py"
        script.write_text(SETUP.format(group=accel.GROUP), encoding="utf-8")
        command = [sys.executable, str(script), "build_ext", "--build-lib", f"{tmp}/lib",
                   "--build-temp", f"{tmp}/temp", "--parallel", str(os.cpu_count() or 1), "--",
                   *(module_path(m) for m in accel.MODULES)]
        print("refbook: compiling the engine with mypyc (about a minute) …", flush=True)
        done = subprocess.run(command, check=False, cwd=src, capture_output=True, text=True,
                              env={**os.environ, "REFBOOK_PURE": "1"})
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
            return _skip(f"mypyc failed:\n{tail}", require)
        suffix = EXTENSION_SUFFIXES[0]
        built = {m: Path(tmp, "lib", m.replace(".", "/") + suffix) for m in accel.MODULES}
        built[accel.GROUP + "__mypyc"] = Path(tmp, "lib", accel.GROUP + "__mypyc" + suffix)
        missing = [str(p) for p in built.values() if not p.is_file()]
        if missing:
            return _skip(f"mypyc made no {', '.join(missing)}", require)
        if out.exists():
            shutil.rmtree(out)
        out.mkdir()
        lines = [f"format\t{accel.FORMAT}", f"suffix\t{suffix}", f"stat\t{stat}",
                 f"digest\t{digest}"]
        for name, path in built.items():
            shutil.copy2(path, out / f"{name}{suffix}")
            lines.append(f"module:{name}\t{name}{suffix}")
    (out / ".gitignore").write_text("*\n", encoding="utf-8")
    if accel.content_digest(accel.sources()) != digest:
        return _skip("the sources changed during the build: run it again", require)
    tmp_manifest = manifest.with_suffix(".tmp")
    tmp_manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp_manifest.replace(manifest)
    print(f"refbook: compiled engine built in {out} ({len(accel.MODULES)} modules)")
    return 0


def _skip(why: str, require: bool) -> int:
    print(f"refbook: compiled engine not built: {why}", file=sys.stderr)
    if require:
        return 1
    print("refbook: refbook runs as plain Python (the same output, slower)", file=sys.stderr)
    return 0


