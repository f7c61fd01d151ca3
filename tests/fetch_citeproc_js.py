"""Install citeproc-js, the reference CSL engine (Zotero's and Mendeley's), for the oracle tests.

``make test`` runs this at install time: ``npm install citeproc@2.4.63`` into ``.venv/node``
(the npm registry is reachable during installs only; nothing is committed, and the tests never
touch the network). The tarball's integrity is checked by npm against the registry's pinned
SHA-512, and this script checks the installed version. ``tests/core/test_citeproc_js_oracle.py``
then runs it with ``node`` next to refbook on the same style files and items: where pandoc's
engine and refbook part ways, the engine the CSL specification was written alongside decides.

citeproc-js is licensed CPAL-1.0 OR AGPL-1.0; it is a test-time tool here, never shipped or
imported by refbook.

Usage: ``python tests/fetch_citeproc_js.py [--into DIR]``. Exit 0 when it is in place (already,
or installed now). Without ``node``/``npm`` it says how to get them (Debian: ``apt-get install
nodejs npm``) and exits 0, so a local ``make test`` still runs and the oracle test skips with that
reason; under ``CI=true`` it exits 1 (CI installs both, see ``.ci/run``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "citeproc"
VERSION = "2.4.63"
#: npm's lock on the registry's tarball (``npm view citeproc@2.4.63 dist.integrity``)
INTEGRITY = ("sha512-68F95Bp4UbgZU/DBUGQn0qV3HDZLCdI9+Bb2ByrTaNJDL5VEm9LqaiNaxljsvoaExSLEXe1/"
             "r6n2Z06SCzW3/Q==")
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INTO = ROOT / ".venv" / "node"


def installed_version(into: Path) -> str | None:
    manifest = into / "node_modules" / PACKAGE / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def package_lock(into: Path) -> None:
    """a package.json + package-lock.json pinning the version and its integrity, so that npm
    refuses a tarball whose digest differs"""
    into.mkdir(parents=True, exist_ok=True)
    (into / "package.json").write_text(json.dumps(
        {"name": "refbook-oracles", "private": True, "dependencies": {PACKAGE: VERSION}},
        indent=2) + "\n", encoding="utf-8")
    (into / "package-lock.json").write_text(json.dumps({
        "name": "refbook-oracles", "lockfileVersion": 3, "requires": True,
        "packages": {
            "": {"name": "refbook-oracles", "dependencies": {PACKAGE: VERSION}},
            f"node_modules/{PACKAGE}": {
                "version": VERSION,
                "integrity": INTEGRITY,
            },
        },
    }, indent=2) + "\n", encoding="utf-8")


def fail(message: str) -> int:
    print(f"fetch_citeproc_js: {message}", file=sys.stderr)
    return 1 if os.environ.get("CI") else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--into", type=Path, default=DEFAULT_INTO)
    args = ap.parse_args(argv)
    into: Path = args.into
    if installed_version(into) == VERSION:
        return 0
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        return fail("node and npm are needed for the citeproc-js oracle test "
                    "(Debian: sudo apt-get install nodejs npm); that test skips without them")
    package_lock(into)
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                               "--prefix", str(into)], capture_output=True, text=True,
                              timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return fail(f"npm ci failed: {exc}")
    if done.returncode != 0 or installed_version(into) != VERSION:
        return fail(f"npm ci failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    print(f"fetch_citeproc_js: citeproc-js {VERSION} in {into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
