"""``refbook check --docs FOLDER`` reads the pages its host reads: never a build's output, a
virtual environment or a hidden folder; Sphinx's ``exclude_patterns`` and ``source_suffix``
(read from ``conf.py`` without running it); MkDocs' ``docs_dir``, never its ``site_dir``.

(The reST parity test in ``tests/test_host_parity.py`` runs Sphinx itself on such a folder.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbook.cli import main
from refbook.validate.pages import find_pages

BIB = "@book{good,\n  author = {Good, Al},\n  title = {Good},\n  publisher = {P},\n  year = {2000},\n}\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _pages(root: Path) -> set[str]:
    return {p.path.relative_to(root).as_posix() for p in find_pages([root]).pages}


def _reported(root: Path, capsys: pytest.CaptureFixture[str], *docs: str) -> set[tuple[str, int]]:
    main(["check", str(root / "refs.bib"), "--docs", *(str(root / d) for d in docs),
          "--format", "json"])
    return {(Path(r["file"]).relative_to(root).as_posix(), r["line"])
            for r in json.loads(capsys.readouterr().out) if r["code"] == "refbook.unknown-key"}


SPHINX = {
    "refs.bib": BIB,
    "conf.py": ('extensions = ["sphinx_refbook"]\nrefbook_bibfiles = ["refs.bib"]\n'
                'exclude_patterns = ["_build", "drafts/*", "**/old.rst"]\n'),
    "index.rst": "Home\n====\n\nText\n:cite:`nosuch1`.\n",
    "part/ch.rst": "Ch\n==\n\n:cite:`nosuch2`\n",
    "part/old.rst": "Old\n===\n\n:cite:`quiet1`\n",
    "drafts/d.rst": "Draft\n=====\n\n:cite:`quiet2`\n",
    # a stale copy of a page, and a theme's licence file with a role-like string
    "_build/html/_sources/index.rst.txt": "Home\n====\n\n:cite:`quiet3`\n",
    "_build/html/_static/LICENSE.txt": "Use :cite:`quiet4` freely.\n",
    "build/html/.buildinfo": "# Sphinx build info\n",
    "build/html/_sources/ch.rst.txt": ":cite:`quiet5`\n",
    ".venv/lib/pkg/README.rst": ":cite:`quiet6`\n",
    "env/pyvenv.cfg": "home = /usr\n",
    "env/lib/pkg/doc.rst": ":cite:`quiet7`\n",
    "requirements.txt": "pkg @ git+https://example.org/@quiet8\n",
}


def test_sphinx_folder_skips_build_output_and_excluded_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, SPHINX)
    assert _pages(tmp_path) == {"index.rst", "part/ch.rst"}
    assert _reported(tmp_path, capsys, ".") == {("index.rst", 5), ("part/ch.rst", 4)}


def test_exclude_patterns_that_are_no_literal_leave_the_defaults_and_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = dict(SPHINX)
    files["conf.py"] = "import os\nexclude_patterns = os.environ.get('X', '_build').split()\n"
    _write(tmp_path, files)
    assert _pages(tmp_path) == {"index.rst", "part/ch.rst", "part/old.rst", "drafts/d.rst"}
    main(["check", str(tmp_path / "refs.bib"), "--docs", str(tmp_path)])
    assert "exclude_patterns is not a plain list of strings" in capsys.readouterr().err


def test_conf_py_is_read_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _write(tmp_path, {"conf.py": f"open({str(marker)!r}, 'w').close()\nexclude_patterns = []\n",
                      "index.rst": "x\n"})
    assert _pages(tmp_path) == {"index.rst"}
    assert not marker.exists()


def test_sphinx_source_suffix_and_myst(tmp_path: Path) -> None:
    _write(tmp_path, {"conf.py": 'extensions = ["myst_parser"]\nsource_suffix = [".rst", ".txt"]\n',
                      "a.rst": "", "b.txt": "", "c.md": "", "d.markdown": ""})
    assert {(p.path.name, p.kind) for p in find_pages([tmp_path]).pages} == {
        ("a.rst", "rst"), ("b.txt", "rst"), ("c.md", "myst")}


def test_mkdocs_folder_reads_docs_dir_only(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, {
        "refs.bib": BIB,
        "mkdocs.yml": "site_name: x\ndocs_dir: 'src'  # pages\nsite_dir: public\n"
                      "markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: "
                      "!!python/name:material.extensions.emoji.twemoji\n",
        "src/index.md": "# Home\n\n[@nosuch1]\n",
        "src/sub/ch.md": "# Ch\n\nText [@nosuch2]\n",
        "public/index.md": "[@quiet1]\n",
        "site/search/search_index.json": "{}",
        "site/old.md": "[@quiet2]\n",
        "README.md": "[@quiet3]\n",
        "notes/n.md": "[@quiet4]\n",
    })
    assert _pages(tmp_path) == {"src/index.md", "src/sub/ch.md"}
    assert _reported(tmp_path, capsys, ".") == {("src/index.md", 3), ("src/sub/ch.md", 3)}


def test_a_file_named_on_the_command_line_is_always_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, SPHINX)
    assert _reported(tmp_path, capsys, "drafts/d.rst") == {("drafts/d.rst", 4)}
