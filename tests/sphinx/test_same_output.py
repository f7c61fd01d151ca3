"""Same output: an incremental build writes the same bytes as a clean build of the same sources.

The stylesheet is the case that differed: the first build copied ``refbook.css`` after writing
the pages, so Sphinx linked it bare, and pages re-written later linked ``refbook.css?v=<checksum>``.
Each build is its own ``sphinx-build`` process, as real builds are (Sphinx caches checksums per
process, which would hide the difference).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sphinx

if TYPE_CHECKING:
    from collections.abc import Callable

ROOT = Path(__file__).resolve().parents[2]


def _build(src: Path) -> dict[str, bytes]:
    """Build ``src`` into ``src/_build``; every output file but the pickled environment."""
    env = {**os.environ, "NO_COLOR": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    out = src / "_build"
    r = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
                       capture_output=True, text=True, timeout=300, env=env, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
             if p.is_file() and ".doctrees" not in p.relative_to(out).parts}
    if sphinx.version_info < (9,) and "searchindex.js" in files:
        files["searchindex.js"] = _without_empty_terms(files["searchindex.js"])
    return files


def _without_empty_terms(index: bytes) -> bytes:
    """Sphinx 7 and 8 keep a word that no page holds any more in the index of an incremental build
    (with no page); a clean build has no such word. Those are dropped before comparing."""
    prefix, suffix = b"Search.setIndex(", b")"
    data = json.loads(index.removeprefix(prefix).removesuffix(suffix))
    for table in ("terms", "titleterms"):
        data[table] = {word: pages for word, pages in data[table].items() if pages != []}
    return prefix + json.dumps(data, sort_keys=True).encode() + suffix


def _edit_bib(src: Path) -> None:
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {1984}", "year = {1985}"),
                   encoding="utf-8")


def _edit_page(src: Path) -> None:
    two = src / "two.rst"
    two.write_text(two.read_text(encoding="utf-8").replace(
        "Cites :cite:p:`smith2020a`.", "Cites :cite:p:`smith2020a` and :cite:p:`vanderberg2020`."),
        encoding="utf-8")


def test_a_clean_build_links_the_stylesheet_with_its_checksum(
        copy_root: Callable[[str], Path]) -> None:
    first = _build(copy_root("modes"))
    links = {name: re.findall(r'href="(_static/refbook\.css[^"]*)"', text.decode())
             for name, text in first.items() if name.endswith(".html")}
    assert len(links) >= 6
    assert all(len(found) == 1 and re.fullmatch(r"_static/refbook\.css\?v=[0-9a-f]{8}", found[0])
               for found in links.values()), links


@pytest.mark.parametrize("edit", [_edit_bib, _edit_page], ids=["bib-edit", "page-edit"])
def test_incremental_build_is_byte_identical_to_a_clean_build(
        copy_root: Callable[[str], Path], tmp_path: Path, edit: Callable[[Path], None]) -> None:
    src = copy_root("modes")
    before = _build(src)
    edit(src)
    incremental = _build(src)
    clean_src = tmp_path / "clean"
    shutil.copytree(src, clean_src, ignore=shutil.ignore_patterns("_build"))
    clean = _build(clean_src)
    assert sorted(incremental) == sorted(clean)
    assert sorted(name for name in clean if incremental[name] != clean[name]) == []
    # the edit re-wrote pages: the comparison covers re-written pages, not only kept ones
    assert any(before[name] != incremental[name] for name in clean if name.endswith(".html"))


def test_a_projects_own_refbook_css_replaces_the_default(copy_root: Callable[[str], Path]) -> None:
    src = copy_root("modes")
    (src / "_static").mkdir()
    (src / "_static" / "refbook.css").write_text(".refbook-entry { color: teal; }\n",
                                                 encoding="utf-8")
    with (src / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('html_static_path = ["_static"]\n')
    out = _build(src)
    assert out["_static/refbook.css"] == b".refbook-entry { color: teal; }\n"
