"""tests/fetch_citeproc_js.py: what it pins and what it does without node/npm (no download)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import fetch_citeproc_js as fetcher


def test_the_lock_pins_version_and_integrity(tmp_path: Path) -> None:
    fetcher.package_lock(tmp_path)
    lock = json.loads((tmp_path / "package-lock.json").read_text(encoding="utf-8"))
    pinned = lock["packages"]["node_modules/citeproc"]
    assert pinned == {"version": fetcher.VERSION, "integrity": fetcher.INTEGRITY}
    manifest = json.loads((tmp_path / "package.json").read_text(encoding="utf-8"))
    assert manifest["dependencies"] == {"citeproc": fetcher.VERSION}


def test_an_installed_copy_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "node_modules" / "citeproc"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": fetcher.VERSION}))
    monkeypatch.setattr(fetcher.shutil, "which", lambda _: pytest.fail("npm must not run"))
    assert fetcher.main(["--into", str(tmp_path)]) == 0


@pytest.mark.parametrize(("ci", "code"), [("", 0), ("true", 1)])
def test_without_npm_it_explains_and_fails_only_in_ci(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        ci: str, code: int) -> None:
    monkeypatch.setattr(fetcher.shutil, "which", lambda _: None)
    monkeypatch.setenv("CI", ci)
    assert fetcher.main(["--into", str(tmp_path / "node")]) == code
    assert "apt-get install nodejs npm" in capsys.readouterr().err


def test_installed_version_reads_the_manifest(tmp_path: Path) -> None:
    package = tmp_path / "node_modules" / "citeproc"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    assert fetcher.installed_version(tmp_path) == "1.0.0"
    assert fetcher.installed_version(tmp_path / "nothing") is None
