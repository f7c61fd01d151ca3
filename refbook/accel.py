"""The compiled engine: refbook's hottest modules built with mypyc, used when built and current.

Where it sits: ``refbook/__init__.py`` calls :func:`install` first thing, before any other
module of the package is imported. The modules of :data:`MODULES` (the LaTeX reader, the
BibTeX → CSL mapping, names, text case, the CSL engine, the BibTeX reader and the per-entry
validation rules) are plain, typed Python; mypyc
compiles them to C extension modules (``accel_build.py`` at the repository's root, run by
``make accel``, which ``make test`` and ``make bench`` run first). The extension modules live
in ``refbook/_compiled/`` beside a manifest; :func:`install` puts a finder at the front of
``sys.meta_path`` that loads them in place of the Python sources. Nothing else changes: the
same code, the same output (``tests/core/test_accel.py`` compares both), the engine about 1.7×
faster (``benchmarks/engine_speed.py``, ``docs/design/performance.md``).

When the compiled modules are **not** used, and refbook runs as plain Python:

- nothing is built (``refbook/_compiled/manifest.txt`` absent: a wheel or checkout without a
  C compiler, or never built);
- ``REFBOOK_PURE`` is set in the environment (to compare, or to rule the compiled code out);
- the build is for another Python (the extension suffix differs);
- **any** of refbook's Python sources differs from what was compiled (a stale build): the
  compiled modules call each other in C and assume the types of the modules they import, so
  it is all of them or none. The check is on each file's size and modification time, and on a
  digest of the contents when those differ (a ``git checkout`` touches times, not contents).

:func:`status` says which, and why (``refbook --version`` prints it).
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec
from pathlib import Path

__all__ = ["FOLDER", "GROUP", "MODULES", "active", "install", "sources", "status"]

#: the modules compiled, one group: their calls to each other are C calls. The engine and
#: the conversion before it, the BibTeX reader and its incremental form (``readers.chunks``:
#: a .bib edit's pieces), the per-entry validation rules and the configuration of their
#: diagnostics (``validate.report``). Not ``validate.output``, which nests a class mypyc does
#: not compile, nor the record classes' modules, whose objects are pickled.
MODULES: tuple[str, ...] = (
    "refbook.casing",
    "refbook.names",
    "refbook.latex",
    "refbook.bibtex_csl",
    "refbook.styles.csl.output",
    "refbook.styles.csl.compiled",
    "refbook.styles.csl.engine",
    "refbook.styles.csl.processor",
    "refbook.readers.bibtex",
    "refbook.readers.chunks",
    "refbook.validate.keys",
    "refbook.validate.names",
    "refbook.validate.titles",
    "refbook.validate.dates",
    "refbook.validate.fields",
    "refbook.validate.identifiers",
    "refbook.validate.pages",
    "refbook.validate.values",
    "refbook.validate.report",
)
#: the group's shared library is the top-level module ``{GROUP}__mypyc``
GROUP = "refbook_accel"
ROOT = Path(__file__).resolve().parent
FOLDER = ROOT / "_compiled"
MANIFEST = FOLDER / "manifest.txt"
#: the manifest's format: a new one makes older builds unused
FORMAT = "1"

_state: dict[str, object] = {"active": False, "why": "not installed yet"}


def sources(root: Path = ROOT) -> list[Path]:
    """Every Python source of the package (the compiled modules and all they may import), in a
    stable order."""
    return sorted(p for p in root.rglob("*.py") if "_compiled" not in p.parts)


def stat_signature(files: list[Path], root: Path = ROOT) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in files:
        st = p.stat()
        h.update(f"{p.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def content_digest(files: list[Path], root: Path = ROOT) -> str:
    h = hashlib.blake2b(digest_size=16)
    for p in files:
        h.update(f"{p.relative_to(root)}\0".encode())
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def read_manifest(path: Path = MANIFEST) -> dict[str, str] | None:
    """The manifest's ``key<TAB>value`` lines (modules as ``module:NAME``), or None."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("\t")
        if sep:
            out[key] = value
    return out


class _Finder:
    """Finds the compiled modules (and their group's shared library) in :data:`FOLDER`."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        loader = ExtensionFileLoader(fullname, str(file))
        return ModuleSpec(fullname, loader, origin=str(file))

    def invalidate_caches(self) -> None:
        """Nothing cached (``importlib.invalidate_caches`` calls this on every finder)."""


def _why_not(manifest: dict[str, str] | None) -> str | None:
    if os.environ.get("REFBOOK_PURE"):
        return "REFBOOK_PURE is set"
    if manifest is None:
        return "not built (refbook compile)"
    if manifest.get("format") != FORMAT:
        return "built by another refbook (refbook compile)"
    if manifest.get("suffix") != EXTENSION_SUFFIXES[0]:
        return f"built for another Python ({manifest.get('suffix')})"
    if tuple(k.removeprefix("module:") for k in manifest if k.startswith("module:")) != (
            *MODULES, GROUP + "__mypyc"):
        return "built for other modules (refbook compile)"
    files = sources()
    if stat_signature(files) != manifest.get("stat") and (
            content_digest(files) != manifest.get("digest")):
        return "stale: refbook's sources changed since the build (refbook compile)"
    for key, value in manifest.items():
        if key.startswith("module:") and not (FOLDER / value).is_file():
            return f"incomplete build: {value} is missing (refbook compile)"
    return None


def install() -> None:
    """Use the compiled modules when built and current (once per process)."""
    if _state["why"] != "not installed yet":
        return
    manifest = read_manifest()
    why = _why_not(manifest)
    if why is not None or manifest is None:
        _state["why"] = why
        return
    files = {k.removeprefix("module:"): FOLDER / v for k, v in manifest.items()
             if k.startswith("module:")}
    if any(name in sys.modules for name in MODULES):
        _state["why"] = "the Python modules were imported first"
        return
    sys.meta_path.insert(0, _Finder(files))
    _state.update(active=True, why="built and current")


def active() -> bool:
    """Whether this process uses the compiled modules."""
    return bool(_state["active"])


def status() -> str:
    """One line: whether the compiled modules are in use, and why (not)."""
    return f"compiled engine: {'in use' if active() else 'not used'} ({_state['why']})"

