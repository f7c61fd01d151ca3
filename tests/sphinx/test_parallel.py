"""``-j 2`` gives the same output as ``-j 1``; two clean builds are byte-identical."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def _outputs(b: Built) -> dict[str, bytes]:
    return {str(p.relative_to(b.outdir)): p.read_bytes()
            for p in sorted(b.outdir.rglob("*")) if p.is_file()}


def test_parallel_equals_serial(tmp_path: Path, copy_root: Callable[[str], Path],
                                build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    serial = build(src, "html", builddir=tmp_path / "j1")
    parallel = build(src, "html", builddir=tmp_path / "j2", parallel=2)
    assert parallel.warnings == serial.warnings == ""
    assert _outputs(parallel) == _outputs(serial)
    assert 'id="ref-knuth1984"' in parallel.read("all.html")


def test_two_clean_builds_are_byte_identical(tmp_path: Path, copy_root: Callable[[str], Path],
                                             build: Callable[..., Built]) -> None:
    src = copy_root("myst")
    first = build(src, "html", builddir=tmp_path / "a")
    second = build(src, "html", builddir=tmp_path / "b")
    assert _outputs(first) == _outputs(second)
    assert len(_outputs(first)) > 10


def test_parallel_incremental_bib_edit(tmp_path: Path, copy_root: Callable[[str], Path],
                                       build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    build(src, "html", builddir=tmp_path / "j2", parallel=2)
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {1994}", "year = {1995}"),
                   encoding="utf-8")
    again = build(src, "html", builddir=tmp_path / "j2", parallel=2)
    assert again.warnings == ""
    for page in ("one.html", "all.html", "references.html"):
        html = again.read(page)
        assert "Lamport (1995)" in html or "Lamport, Leslie. 1995." in html, page
        assert "Leslie. 1994" not in html, page
        assert "(1994)" not in html, page
