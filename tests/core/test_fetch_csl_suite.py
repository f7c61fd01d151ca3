"""tests/fetch_csl_suite.py: what it unpacks from the source tarball (no download here)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from tests import fetch_csl_suite as fetcher


def _tarball(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_unpacks_only_fixtures_and_licence(tmp_path: Path) -> None:
    tarball = _tarball(tmp_path / "src.tar.gz", {
        fetcher.FIXTURES + "affix_One.txt": b"fixture one",
        fetcher.FIXTURES + "sub/nested.txt": b"not a fixture",
        fetcher.FIXTURES + "notes.md": b"not a fixture",
        "citeproc-0.6.0.1/test/extra/other.txt": b"not the suite",
        "../escape.txt": b"outside",
        fetcher.LICENSE: b"BSD-2-Clause",
    })
    into = tmp_path / "csl-suite"
    (into / "humans").mkdir(parents=True)
    (into / "humans" / "stale.txt").write_text("from an earlier fetch")
    fetcher.unpack(tarball, into)
    assert sorted(p.name for p in (into / "humans").iterdir()) == ["affix_One.txt"]
    assert (into / "humans" / "affix_One.txt").read_bytes() == b"fixture one"
    assert (into / "LICENSE").read_bytes() == b"BSD-2-Clause"
    assert (into / "SOURCE").read_text(encoding="utf-8") == fetcher.SOURCE_NOTE
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "csl-suite.partial").exists()


def test_a_copy_in_place_is_not_fetched_again(tmp_path: Path, monkeypatch) -> None:
    into = tmp_path / "csl-suite"
    into.mkdir()
    (into / "SOURCE").write_text(fetcher.SOURCE_NOTE, encoding="utf-8")
    calls: list[Path] = []
    monkeypatch.setattr(fetcher, "fetch", calls.append)
    assert fetcher.main(["--into", str(into)]) == 0
    assert calls == []


def test_without_apt_it_explains_and_fails_only_in_ci(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(fetcher.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    assert fetcher.main(["--into", str(tmp_path / "x")]) == 0
    assert "cannot be fetched" in capsys.readouterr().err
    monkeypatch.setenv("CI", "true")
    assert fetcher.main(["--into", str(tmp_path / "x")]) == 1
