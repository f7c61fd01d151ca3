"""The doctree's ``refbook-cache`` folder never runs code: a pickle planted there (a CI cache
restored from a pull-request build, say) is ignored by the next build, which gives the same
pages, while the extension's own sealed files are still reused."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import sphinx_refbook.book as book_module
from refbook import sealed
from tests.core.test_sealed_caches import new_process, plant

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.sphinx.conftest import Built

# every file the extension keeps in <doctrees>/refbook-cache, by what reads it
KINDS = {
    "book": r"book\.pickle",                          # the domain's resolved book
    "bib-checks": r"bib-checks-.*\.pickle",           # the .bib diagnostics (sphinx_refbook.book)
    "validation": r"validation-.*\.pickle",           # the validation memo (refbook.validate)
    "style": r"style-.*\.pickle",                     # the formatting memo (refbook.styles)
    "parsed-style": r"parsed-style-.*\.pickle",       # the parsed style (refbook.styles)
    "items": r"items-.*\.pickle",                     # entry -> CSL item (refbook.items)
    "parse": r"[0-9a-f]{40}\.pickle",                 # the parse cache (refbook.bibcache)
    "chunks": r"chunks-[0-9a-f]{40}\.pickle",         # its pieces (refbook.readers.chunks)
}


def outputs(b: Built) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(b.outdir.glob("*.txt"))}


def cache_files(b: Built) -> dict[str, Path]:
    folder = Path(b.app.doctreedir) / "refbook-cache"
    found = {kind: [p for p in folder.iterdir() if re.fullmatch(pattern, p.name)]
             for kind, pattern in KINDS.items()}
    assert all(len(files) == 1 for files in found.values()), found
    # beside them only the folder's markers (refbook.cachedir)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(f[0].name for f in found.values()), "CACHEDIR.TAG", "VERSION"])
    return {kind: files[0] for kind, files in found.items()}


def fresh_process() -> None:
    new_process()
    book_module._BIB_CHECKS.clear()


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_planted_cache_file_is_ignored(kind: str, copy_root: Callable[[str], Path],
                                         build: Callable[..., Built], tmp_path: Path) -> None:
    src = copy_root("modes")
    fresh_process()
    first = build(src, "text")
    files = cache_files(first)
    # only the planted file is left, so that the build reaches the stage that reads it
    for other, path in files.items():
        if other != kind:
            path.unlink()
    marker = tmp_path / "marker"
    plant(files[kind], marker)
    fresh_process()
    second = build(src, "text")
    assert not marker.exists()
    assert outputs(second) == outputs(first)
    assert second.warnings == first.warnings == ""
    # the planted file was replaced by a sealed one
    assert files[kind].read_bytes().startswith(b"refbook-sealed-1\n")


def test_the_sealed_book_and_bib_checks_are_reused(copy_root: Callable[[str], Path],
                                                   build: Callable[..., Built],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[int] = []
    checked: list[int] = []
    real_resolve, real_check = book_module.resolve_book, book_module.check_bibliography

    def resolve(**kw):  # type: ignore[no-untyped-def]
        resolved.append(1)
        return real_resolve(**kw)

    def check(*a, **kw):  # type: ignore[no-untyped-def]
        checked.append(1)
        return real_check(*a, **kw)

    monkeypatch.setattr(book_module, "resolve_book", resolve)  # domain imports it when used
    monkeypatch.setattr(book_module, "check_bibliography", check)
    src = copy_root("modes")
    fresh_process()
    first = build(src, "text")
    assert (len(resolved), len(checked)) == (1, 1)
    fresh_process()
    assert outputs(build(src, "text")) == outputs(first)
    assert (len(resolved), len(checked)) == (1, 1)  # the book came from book.pickle
    cache_files(first)["book"].unlink()
    fresh_process()
    assert outputs(build(src, "text")) == outputs(first)
    assert (len(resolved), len(checked)) == (2, 1)  # the .bib checks came from their file
    # files sealed with another key are misses
    monkeypatch.setenv(sealed.KEY_ENV, "another key")
    fresh_process()
    assert outputs(build(src, "text")) == outputs(first)
    assert (len(resolved), len(checked)) == (3, 2)


def test_sphinx_build_twice_with_every_cache_file_planted(copy_root: Callable[[str], Path],
                                                          tmp_path: Path) -> None:
    """Two real ``sphinx-build`` processes; between them every cache file is replaced by a
    pickle that would write its own marker (a rejected book.pickle makes the build read all
    the others)."""
    src = copy_root("modes")
    out, doctrees = tmp_path / "out", tmp_path / "doctrees"

    def sphinx_build() -> dict[str, str]:
        r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "text", "-q", "-W", str(src),
                            str(out), "-d", str(doctrees)],
                           capture_output=True, text=True, check=False, timeout=300)
        assert (r.returncode, r.stderr) == (0, "")
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.txt"))}

    first = sphinx_build()
    assert "Knuth" in first["references.txt"]
    markers = []
    for path in sorted((doctrees / "refbook-cache").glob("*.pickle")):
        markers.append(tmp_path / f"marker-{path.name}")
        plant(path, markers[-1])
    assert len(markers) == len(KINDS)
    assert sphinx_build() == first
    assert [m for m in markers if m.exists()] == []
