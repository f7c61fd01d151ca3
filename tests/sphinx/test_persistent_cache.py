"""The doctree folder's ``refbook-cache`` in real ``sphinx-build`` runs: a full read with a warm
refbook cache writes the same HTML byte for byte as one with a cold cache; a corrupt, truncated
or foreign-version cache is ignored with one info line (``-W`` stays green) and rebuilt."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import counted_conversions
from tests.core.test_sealed_caches import new_process

if TYPE_CHECKING:
    from collections.abc import Callable


def html_tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file()}


def sphinx_build(src: Path, out: Path, doctrees: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -W -b html`` in a new process; the environment is dropped first, so every
    page is read again and the book formatted again (only the refbook cache is kept)."""
    if doctrees.is_dir():
        for p in doctrees.iterdir():
            if p.name != "refbook-cache":
                shutil.rmtree(p) if p.is_dir() else p.unlink()
    if out.exists():
        shutil.rmtree(out)
    env_path = str(Path(__file__).parents[2])
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", str(src), str(out), "-d",
         str(doctrees)], capture_output=True, text=True, check=False, timeout=300,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "HOME": str(Path.home())})


def cache_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if "the cache in" in line]


def test_cold_and_warm_cache_give_the_same_html(copy_root: Callable[[str], Path],
                                                tmp_path: Path) -> None:
    src = copy_root("modes")
    doctrees = tmp_path / "doctrees"
    cold = sphinx_build(src, tmp_path / "out", doctrees)
    assert (cold.returncode, cold.stderr) == (0, ""), cold.stderr
    first = html_tree(tmp_path / "out")
    assert any(p.suffix == ".pickle" for p in (doctrees / "refbook-cache").iterdir())
    warm = sphinx_build(src, tmp_path / "out", doctrees)
    assert (warm.returncode, warm.stderr) == (0, "")
    assert html_tree(tmp_path / "out") == first
    assert cache_lines(cold) == cache_lines(warm) == []
    # and without any cache at all
    shutil.rmtree(doctrees)
    assert sphinx_build(src, tmp_path / "out", doctrees).returncode == 0
    assert html_tree(tmp_path / "out") == first


@pytest.mark.parametrize("how", ["corrupt", "truncated", "foreign-version"])
def test_a_damaged_cache_is_ignored_with_one_info_line(how: str, copy_root: Callable[[str], Path],
                                                       tmp_path: Path) -> None:
    src = copy_root("modes")
    doctrees = tmp_path / "doctrees"
    assert sphinx_build(src, tmp_path / "out", doctrees).returncode == 0
    first = html_tree(tmp_path / "out")
    folder = doctrees / "refbook-cache"
    for p in folder.glob("*.pickle"):
        data = p.read_bytes()
        if how == "corrupt":
            p.write_bytes(data[:-40] + bytes(40))
        elif how == "truncated":
            p.write_bytes(data[: len(data) // 2])
    if how == "foreign-version":
        (folder / "VERSION").write_text("refbook-cache 0 refbook 0.0.0\n", encoding="utf-8")
    damaged = sphinx_build(src, tmp_path / "out", doctrees)
    assert (damaged.returncode, damaged.stderr) == (0, "")  # -W: no warning
    lines = cache_lines(damaged)
    assert len(lines) == 1, damaged.stdout
    assert ("it was cleared" if how == "foreign-version" else "ignored and rebuilt") in lines[0]
    assert html_tree(tmp_path / "out") == first
    again = sphinx_build(src, tmp_path / "out", doctrees)
    assert cache_lines(again) == []
    assert html_tree(tmp_path / "out") == first


def test_an_any_citation_read_before_the_book_says_nothing_about_the_cache(
        copy_root: Callable[[str], Path], tmp_path: Path) -> None:
    """``:any:`key``` reads the ``.bib`` files (through the cache folder) while pages are read,
    before the book is resolved: the folder must already be prepared then, or its first files
    look like a foreign cache (an info line on every first build)."""
    src = copy_root("modes")
    with (src / "one.rst").open("a", encoding="utf-8") as fh:
        fh.write("\nAlso :any:`knuth1984`.\n")
    doctrees = tmp_path / "doctrees"
    first = sphinx_build(src, tmp_path / "out", doctrees)
    assert (first.returncode, first.stderr) == (0, "")
    assert cache_lines(first) == []
    assert "Knuth" in (tmp_path / "out" / "one.html").read_text(encoding="utf-8")
    again = sphinx_build(src, tmp_path / "out", doctrees)
    assert cache_lines(again) == []


def test_an_incremental_build_converts_only_the_edited_entry(
        copy_root: Callable[[str], Path], build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache folder keeps the entry -> CSL item conversions: a build in a new process after
    a one-entry edit converts that entry alone (counted, not timed)."""
    src = copy_root("modes")
    build(src, "text")
    # as a new `sphinx-build` process: nothing of the first build in memory, the folder kept
    new_process()
    first_pass = counted_conversions(monkeypatch)
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {1984}", "year = {1985}"),
                   encoding="utf-8")
    second = build(src, "text")
    assert second.warnings == ""
    assert "(Knuth 1985)" in " ".join(second.read("one.txt").split())
    assert first_pass == ["knuth1984"]


def test_a_citation_edit_adds_to_the_style_memo_and_equals_a_clean_build(
        copy_root: Callable[[str], Path], tmp_path: Path) -> None:
    """A new citation's formatting goes into a file added beside the style memo (the memo
    itself is not rewritten); the next process reads both. Its HTML is the same as a build
    without any cache, and a planted added file is refused, never unpickled."""
    from tests.core.test_sealed_caches import plant

    src = copy_root("modes")
    doctrees, cache = tmp_path / "doctrees", tmp_path / "doctrees" / "refbook-cache"
    assert sphinx_build(src, tmp_path / "out", doctrees).returncode == 0
    [memo] = [p for p in cache.glob("style-*.pickle") if "+" not in p.name]
    written = memo.read_bytes()
    page = src / "two.rst"
    page.write_text(page.read_text(encoding="utf-8").replace(
        ":cite:p:`smith2020a`", ":cite:p:`smith2020a` and :cite:t:`knuth1984`"),
        encoding="utf-8")
    edited = sphinx_build(src, tmp_path / "out", doctrees)
    assert (edited.returncode, edited.stderr) == (0, "")
    assert memo.read_bytes() == written
    [added] = cache.glob(f"{memo.stem}+*.pickle")
    html = html_tree(tmp_path / "out")
    assert "Knuth" in html["two.html"].decode()
    # read back by a new process: the same pages
    assert sphinx_build(src, tmp_path / "out", doctrees).returncode == 0
    assert html_tree(tmp_path / "out") == html
    # a planted added file: refused (one info line), the memo written whole, the same pages
    marker = tmp_path / "marker"
    plant(added, marker)
    page.write_text(page.read_text(encoding="utf-8") + "\nAnd :cite:t:`lamport1994`.\n",
                    encoding="utf-8")
    planted = sphinx_build(src, tmp_path / "out", doctrees)
    assert (planted.returncode, planted.stderr) == (0, "")
    assert not marker.exists()
    assert len(cache_lines(planted)) == 1
    assert not added.exists()
    assert memo.read_bytes() != written
    html = html_tree(tmp_path / "out")
    shutil.rmtree(doctrees)
    assert sphinx_build(src, tmp_path / "out", doctrees).returncode == 0
    assert html_tree(tmp_path / "out") == html
