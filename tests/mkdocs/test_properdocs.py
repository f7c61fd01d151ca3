"""ProperDocs (the maintained MkDocs fork) loads the plugin from its own entry point group and
builds the example book as MkDocs does: same citation texts on every page, same reference list.

The example book is copied with its theme named (ProperDocs ships no theme of its own and warns
when none is named; ``properdocs-theme-mkdocs`` is MkDocs' default theme).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.mkdocs.test_build import cites, entries
from tests.test_example_book import BOOK

BIN = Path(sys.executable).parent


def _build(tool: str, config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run([str(BIN / tool), "build", "--strict", "-f", str(config), "-d", str(out)],
                          cwd=config.parent, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_properdocs_finds_the_plugin_in_its_own_entry_point_group() -> None:
    from importlib.metadata import entry_points

    found = [e for e in entry_points(group="properdocs.plugins") if e.name == "refbook"]
    assert [e.value for e in found] == ["mkdocs_refbook.plugin:RefbookPlugin"]


def test_properdocs_builds_the_example_book_as_mkdocs_does(tmp_path: Path) -> None:
    book = tmp_path / "book"
    shutil.copytree(BOOK, book, ignore=shutil.ignore_patterns("_build", ".cache"))
    config = yaml.safe_load((book / "mkdocs.yml").read_text(encoding="utf-8"))
    config["theme"] = {"name": "mkdocs"}
    (book / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")

    proper = _build("properdocs", book / "mkdocs.yml", tmp_path / "proper")
    assert proper.returncode == 0, proper.stderr[-3000:]
    said = [line for line in proper.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert said == []
    mk = _build("mkdocs", book / "mkdocs.yml", tmp_path / "mk")
    assert mk.returncode == 0, mk.stderr[-3000:]

    total = 0
    for name in config["nav"]:
        stem = name.removesuffix(".md")
        page = "index.html" if stem == "index" else f"{stem}/index.html"
        ours = cites((tmp_path / "proper" / page).read_text(encoding="utf-8"))
        assert ours == cites((tmp_path / "mk" / page).read_text(encoding="utf-8")), name
        total += len(ours)
    assert total >= 250
    listed = entries((tmp_path / "proper" / "references" / "index.html").read_text(encoding="utf-8"))
    assert len(listed) == 253
    assert listed == entries((tmp_path / "mk" / "references" / "index.html").read_text(
        encoding="utf-8"))
