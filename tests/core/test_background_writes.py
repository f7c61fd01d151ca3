"""A one-shot build's cache files written by a forked child while the host writes its pages
(``refbook.sealed.hold_writes`` / ``flush_in_background`` / ``settle``): every file held is
written, a read waits for the child, a build returns only once they are on disk, and a child
that fails costs cache files only. The hosts are run as the command-line tools run them (a
new process each), so that the fork is the one a user's build makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from refbook import forking, sealed
from tests.core.test_sealed_caches import plant

ROOT = Path(__file__).resolve().parents[2]
SPHINX_ROOT = ROOT / "tests" / "sphinx" / "roots" / "test-modes"


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork even if another test left a thread running (the child only writes files)."""
    monkeypatch.setattr(forking, "can_fork", lambda: True)
    monkeypatch.setenv("REFBOOK_JOBS", "2")


def held_values(tmp_path: Path) -> dict[Path, object]:
    return {tmp_path / "cache" / f"f{i}.pickle": {"i": i, "data": list(range(i * 1000))}
            for i in range(5)}


@pytest.mark.usefixtures("forks")
def test_held_files_are_written_by_a_child_and_a_read_waits_for_it(tmp_path: Path) -> None:
    values = held_values(tmp_path)
    sealed.hold_writes()
    try:
        assert sealed.holding()
        assert not sealed.deferring()  # brief: caches let their data go as if written
        for path, value in values.items():
            assert sealed.dump(value, path)
        assert not any(p.exists() for p in values)  # held
    finally:
        forked = sealed.flush_in_background()
    assert forked
    assert not sealed.holding()
    first = next(iter(values))
    assert sealed.load(first) == values[first]  # waits for the child first
    assert {p: sealed.load(p) for p in values} == values
    assert sealed.flush_in_background() is False  # nothing held: no child


def test_without_a_fork_the_files_are_written_here(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    values = held_values(tmp_path)
    for why in ("threads", "REFBOOK_JOBS=1"):
        monkeypatch.setattr(forking, "can_fork", lambda why=why: why != "threads")
        monkeypatch.setenv("REFBOOK_JOBS", "1" if why == "REFBOOK_JOBS=1" else "2")
        sealed.hold_writes()
        for path, value in values.items():
            sealed.dump(value, path)
        assert sealed.flush_in_background() is False, why
        assert all(p.is_file() for p in values), why  # written before it returned
        for p in values:
            p.unlink()


@pytest.mark.usefixtures("forks")
def test_a_child_that_fails_loses_cache_files_only(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    values = held_values(tmp_path)

    def dies(value: object, path: Path) -> bool:
        os._exit(3)  # the child's write fails hard (killed, out of memory)

    monkeypatch.setattr(sealed, "_write", dies)
    sealed.hold_writes()
    for path, value in values.items():
        sealed.dump(value, path)
    assert sealed.flush_in_background()
    monkeypatch.undo()
    assert [sealed.load(p) for p in values] == [None] * len(values)  # misses, no error
    assert not sealed.take_rejected()  # nothing half-written under a cache name


SPY = """
import sys
import refbook.sealed as sealed
real = sealed.flush_in_background
def spy():
    forked = real()
    print(f"flush_in_background: {forked}", file=sys.stderr)
    return forked
sealed.flush_in_background = spy
"""


def run_tool(code: str, cwd: Path, jobs: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, REFBOOK_JOBS=jobs, SOURCE_DATE_EPOCH="0")  # (MkDocs dates its pages)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-c", SPY + code], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False, timeout=300)


def test_sphinx_build_returns_with_its_cache_folder_written(tmp_path: Path) -> None:
    """``sphinx-build`` hands its cache files to a child (on a machine of several cores) and
    returns once they are written: the folder holds the same files as a build that writes them
    itself (``REFBOOK_JOBS=1``), each of them sealed and read back, and the next build, made
    from them, writes the same pages."""
    import shutil

    folders = {}
    src = tmp_path / "src"
    shutil.copytree(SPHINX_ROOT, src)
    for jobs in ("2", "1"):
        out, doctrees = tmp_path / f"out{jobs}", tmp_path / f"doctrees{jobs}"
        code = ("from sphinx.cmd.build import main\n"
                f"sys.exit(main(['-q', '-b', 'html', {str(src)!r}, {str(out)!r}, '-d', "
                f"{str(doctrees)!r}]))\n")
        r = run_tool(code, tmp_path, jobs)
        assert r.returncode == 0, r.stderr
        assert f"flush_in_background: {jobs == '2'}" in r.stderr
        cache = doctrees / "refbook-cache"
        folders[jobs] = sorted(p.name for p in cache.glob("*.pickle"))
        assert all(sealed.load(p) is not None for p in cache.glob("*.pickle"))
        pages = {p.name: p.read_bytes() for p in sorted(out.glob("*.html"))}
        again = run_tool(code, tmp_path, jobs)
        assert again.returncode == 0, again.stderr
        assert {p.name: p.read_bytes() for p in sorted(out.glob("*.html"))} == pages
    assert folders["2"] == folders["1"]
    assert len(folders["2"]) >= 5  # parse, pieces, items, memos, the check


def test_mkdocs_build_returns_with_its_cache_folder_written(tmp_path: Path) -> None:
    """``mkdocs build`` likewise: the files are written before it returns, a planted one among
    them refused (never unpickled) by the next build, which writes the same site."""
    from tests.mkdocs.conftest import BIB

    root = tmp_path / "book"
    (root / "docs").mkdir(parents=True)
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Book\n\nAs [@smith2020a] shows.\n",
                                            encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - refbook:\n      bib_files: [refs.bib]\n", encoding="utf-8")
    code = ("from mkdocs.__main__ import cli\n"
            "sys.argv = ['mkdocs', 'build', '-q']\n"
            "cli()\n")
    r = run_tool(code, root, "2")
    assert r.returncode == 0, r.stderr
    assert "flush_in_background: True" in r.stderr
    cache = root / ".cache" / "refbook"
    files = sorted(cache.glob("*.pickle"))
    assert len(files) >= 5
    assert all(sealed.load(p) is not None for p in files)
    site = (root / "site" / "index.html").read_text(encoding="utf-8")
    marker = tmp_path / "marker"
    plant(files[0], marker)
    again = run_tool(code, root, "2")
    assert again.returncode == 0, again.stderr
    assert not marker.exists()
    assert (root / "site" / "index.html").read_text(encoding="utf-8") == site


@pytest.mark.usefixtures("forks")
def test_a_big_files_parse_goes_to_a_writer_as_soon_as_it_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a build holds its writes, the parse and pieces of a file of ``split.MIN_CHARS`` bytes or more
    are handed to a child at once (the build goes on holding its other files); the next
    process reads the file from them without parsing it."""
    from refbook import bibcache, readers
    from refbook.readers import chunks, read_bibliography
    from tests.core.test_split_parse import big_bib

    path = big_bib(tmp_path / "big.bib", int(readers._split_min() * 1.1))
    handed: list[bool] = []
    real = sealed.flush_in_background

    def spy(*, keep_holding: bool = False) -> bool:
        handed.append(keep_holding)
        return real(keep_holding=keep_holding)

    monkeypatch.setattr(sealed, "flush_in_background", spy)
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    cache = tmp_path / "cache"
    sealed.hold_writes()
    try:
        first = read_bibliography([path], cache_dir=str(cache))
        assert handed == [True]
        assert sealed.holding()  # the build's later files are held still
    finally:
        sealed.flush_in_background()
    parses: list[str] = []
    parse = readers._parser()

    def counting(text: str, file: str, **kw: Any) -> Any:
        parses.append(file)
        return parse(text, file, **kw)

    monkeypatch.setattr(readers, "parse_bibtex", counting)
    bibcache.clear_memory_cache()
    chunks.clear_memory()
    again = read_bibliography([path], cache_dir=str(cache))  # waits for the child's files
    assert parses == []
    assert list(again.entries) == list(first.entries)
    bibcache.clear_memory_cache()
    chunks.clear_memory()
