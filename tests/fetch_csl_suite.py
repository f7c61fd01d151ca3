"""Fetch the CSL processor test suite's fixtures at install time (``make test`` runs this).

The fixtures are third-party data and are never committed. Debian's source package of pandoc's
CSL engine (``haskell-citeproc``, BSD-2-Clause) carries a copy of the CSL test suite's
``processor-tests/humans`` folder as ``test/csl/*.txt``; this script downloads that source
package through the machine's own apt configuration (the Debian package registry, the only
registry of that kind an install step may use), checks the tarball's SHA-256 against the pinned
digest below, and unpacks only the fixtures and the licence into ``.venv/csl-suite/``.
``tests/core/test_csl_suite.py`` then runs every fixture through refbook's public API.

Pinned: ``haskell-citeproc 0.6.0.1-3`` from Debian 12 "bookworm" (the release these machines run;
pinning the version and digest makes the fixture set the same on every machine and every run).

Usage: ``python tests/fetch_csl_suite.py [--into DIR]``. Exit 0 when the fixtures are in place
(already, or fetched now). Without apt (not a Debian machine) it explains and exits 0, so a
local ``make test`` still runs and the suite's test skips with that reason; under ``CI=true`` a
fetch that fails exits 1, so CI never passes without the suite.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "haskell-citeproc"
VERSION = "0.6.0.1-3"
RELEASE = "bookworm"
TARBALL = "haskell-citeproc_0.6.0.1.orig.tar.gz"
SHA256 = "0c2f0090d7e71069e26a8416e26170842d11ba3b2508fd21d0201c35b0b6aa04"
FIXTURES = "citeproc-0.6.0.1/test/csl/"
LICENSE = "citeproc-0.6.0.1/LICENSE"
SOURCE_NOTE = (f"CSL test-suite fixtures (processor-tests/humans) as carried by Debian's source "
               f"package {PACKAGE} {VERSION} ({RELEASE}), file {TARBALL}, sha256 {SHA256}; "
               f"licence of the package: LICENSE (BSD-2-Clause)\n")

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INTO = ROOT / ".venv" / "csl-suite"


def debian_mirror() -> tuple[str, str | None]:
    """the machine's own Debian archive URI (not the security one) and its keyring"""
    sources = sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))
    for path in sources:
        for stanza in path.read_text(encoding="utf-8").split("\n\n"):
            fields = dict(re.findall(r"^([\w-]+):\s*(.*)$", stanza, flags=re.M))
            uris = fields.get("URIs", "").split()
            if "deb" in fields.get("Types", "").split() and uris and "security" not in uris[0]:
                return uris[0], fields.get("Signed-By")
    legacy = Path("/etc/apt/sources.list")
    if legacy.is_file():
        for line in legacy.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "deb" and "security" not in parts[-3]:
                uri = next(p for p in parts[1:] if "://" in p)
                return uri, None
    raise RuntimeError("no Debian archive in /etc/apt/sources.list(.d)")


def fetch(into: Path) -> None:
    uri, keyring = debian_mirror()
    with tempfile.TemporaryDirectory(prefix="refbook-csl-suite-") as tmp:
        work = Path(tmp)
        (work / "lists" / "partial").mkdir(parents=True)
        (work / "cache" / "archives" / "partial").mkdir(parents=True)
        stanza = ["Types: deb-src", f"URIs: {uri}", f"Suites: {RELEASE}", "Components: main"]
        if keyring:
            stanza.append(f"Signed-By: {keyring}")
        (work / "src.sources").write_text("\n".join(stanza) + "\n", encoding="utf-8")
        options = ["-o", f"Dir::Etc::SourceList={work / 'src.sources'}",
                   "-o", "Dir::Etc::SourceParts=-",
                   "-o", f"Dir::State::Lists={work / 'lists'}",
                   "-o", f"Dir::Cache={work / 'cache'}"]
        if os.geteuid() == 0:  # root: apt would hand the download to its _apt user, who cannot write here
            options += ["-o", "APT::Sandbox::User=root"]
        run(["apt-get", "-q", *options, "update"], work)
        run(["apt-get", "-q", *options, "source", "--download-only", "--tar-only",
             f"{PACKAGE}={VERSION}"], work)
        tarball = work / TARBALL
        digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
        if digest != SHA256:
            raise RuntimeError(f"{TARBALL}: sha256 {digest}, expected {SHA256}")
        unpack(tarball, into)


def run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:1] + command[-2:])} failed: "
                           f"{(done.stderr or done.stdout).strip()[-600:]}")


def unpack(tarball: Path, into: Path) -> None:
    """only the fixtures and the licence, into a fresh folder, moved in place at the end"""
    staging = into.with_name(into.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "humans").mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = member.name
            if member.isfile() and name.startswith(FIXTURES) and name.endswith(".txt") \
                    and "/" not in name[len(FIXTURES):]:
                target = staging / "humans" / Path(name).name
            elif member.isfile() and name == LICENSE:
                target = staging / "LICENSE"
            else:
                continue
            source = archive.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
    (staging / "SOURCE").write_text(SOURCE_NOTE, encoding="utf-8")
    shutil.rmtree(into, ignore_errors=True)
    staging.rename(into)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--into", type=Path, default=DEFAULT_INTO)
    args = parser.parse_args(argv)
    into: Path = args.into
    if (into / "SOURCE").is_file() and (into / "SOURCE").read_text(encoding="utf-8") == SOURCE_NOTE:
        return 0
    if shutil.which("apt-get") is None:
        print("fetch_csl_suite: no apt-get here, so the CSL test suite's fixtures (Debian source "
              f"package {PACKAGE}) cannot be fetched; tests/core/test_csl_suite.py will skip. "
              "Name a copy of the suite's processor-tests/humans folder with $REFBOOK_CSL_SUITE "
              "to run it.", file=sys.stderr)
        return 1 if os.environ.get("CI") else 0
    try:
        fetch(into)
    except (RuntimeError, OSError, tarfile.TarError) as error:
        print(f"fetch_csl_suite: {error}", file=sys.stderr)
        return 1 if os.environ.get("CI") else 0
    count = len(list((into / "humans").glob("*.txt")))
    print(f"fetch_csl_suite: {count} CSL test-suite fixtures in {into}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
