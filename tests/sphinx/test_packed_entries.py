"""An incremental Sphinx build that re-cites builds the fields of the cited entries only: the
other entries come from the cache folder's parse with their fields packed
(``refbook.models.PackedEntry``), and the book's resolution asks only for their keys. Each build
runs in a new process, as ``sphinx-build`` does; the entries are counted, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

_DRIVER = """
import json, sys
from sphinx.cmd.build import main
assert main(["-q", "-b", "html", sys.argv[1], sys.argv[2]]) == 0
from refbook import bibcache
from refbook.models import PackedEntry
bib = next(iter(bibcache.bibliographies._data.values()), None)
entries = bib.entries if bib is not None else ()
built = [e.key for e in entries if type(e) is PackedEntry and e._packed is None]
print(json.dumps({"entries": len(entries), "built": len(built), "which": built[:10],
                  "packed": sum(type(e) is PackedEntry for e in entries)}))
"""

N = 120


def _book(src: Path) -> None:
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["sphinx_refbook"]\nrefbook_bibfiles = ["refs.bib"]\n'
                                 'exclude_patterns = ["_build"]\n', encoding="utf-8")
    (src / "refs.bib").write_text("".join(
        f"@article{{key{i:03d},\n  author = {{Writer{i}, Ann}},\n  title = {{Topic {i}}},\n"
        f"  journal = {{J{i % 7}}},\n  year = {{{1990 + i % 30}}},\n  pages = {{1--{i + 2}}}\n}}\n\n"
        for i in range(N)), encoding="utf-8")
    (src / "index.rst").write_text("Book\n====\n\n.. toctree::\n\n   ch\n   refs\n", encoding="utf-8")
    (src / "ch.rst").write_text("Chapter\n=======\n\nSee :cite:p:`key001` and :cite:t:`key002`, "
                                "also :cite:p:`key003`.\n", encoding="utf-8")
    (src / "refs.rst").write_text("References\n==========\n\n.. bibliography::\n", encoding="utf-8")


def _build(src: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", _DRIVER, str(src), str(out)], check=True,
                         capture_output=True, text=True, cwd=src, env=env)
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def test_a_citation_edit_builds_the_fields_of_the_cited_entries_only(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    _book(src)
    first = _build(src, out)
    assert first["entries"] == N
    assert first["packed"] == first["built"] == 0  # parsed from the text
    ch = src / "ch.rst"
    ch.write_text(ch.read_text(encoding="utf-8").replace("key003", "key050"), encoding="utf-8")
    again = _build(src, out)
    assert again["entries"] == N
    assert again["packed"] == N  # from the cache folder
    # the cited entries only, 3 of 120: the new conversion (key050's) goes into a file added
    # beside the conversions file, so the conversions kept there are not checked against the
    # entries they came from, as they are when the file is written whole; and the two entries
    # whose printing changed, checked again by the rules (refbook.validate: ``printed``):
    # key050, now cited, and key003, no longer
    assert sorted(again["which"]) == ["key001", "key002", "key003", "key050"]
    assert "key050" in (out / "ch.html").read_text(encoding="utf-8") or \
        "Writer50" in (out / "ch.html").read_text(encoding="utf-8")
    assert "Writer50" in (out / "refs.html").read_text(encoding="utf-8")
    # a .bib edit validates the edited file: the memo's keys of the unchanged entries are made
    # from their packed fields, and only the edited entry is checked again
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("Topic 7}", "Topic seven}"),
                   encoding="utf-8")
    edited = _build(src, out)
    assert edited["entries"] == N
    assert "key007" in edited["which"]
    assert edited["built"] < 10
    assert "Topic seven" not in (out / "refs.html").read_text(encoding="utf-8")  # not cited
    # the control: without the validation memo every entry is checked, which reads them all
    memos = list(out.rglob("validation-*.pickle"))
    assert memos
    for memo in memos:
        memo.unlink()
    bib.write_text(bib.read_text(encoding="utf-8").replace("Topic 8}", "Topic eight}"),
                   encoding="utf-8")
    unmemoized = _build(src, out)
    assert unmemoized["built"] == N
