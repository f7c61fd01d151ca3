"""A book pays only for what it uses: a cold ``mkdocs build`` (a new process) of a book that
cites nothing never imports pybtex, pyuca or docutils, and one that cites with the default style
never imports pybtex or docutils; a build whose results all come from the cache folder (the
second CI run) imports no validation rule, no LaTeX decoder and no collation table. Checked
through ``sys.modules`` in a subprocess, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pybtex", "pyuca", "docutils", "sphinx", "bibtexparser", "pypandoc")

_DRIVER = """
import json, sys
from mkdocs.__main__ import cli
try:
    cli(["build", "-q", "-f", sys.argv[1]])
except SystemExit as exit:
    assert not exit.code, exit.code
print(json.dumps(sorted(n for n in sys.argv[2:]
                        if any(m == n or m.startswith(n + ".") for m in sys.modules))))
"""
#: what a build needs only when it computes: the rule families (refbook.validate's own
#: ``__init__`` is a small table), LaTeX decoding (parsing and .bib → CSL conversion), the
#: reST/MyST scanners of ``refbook check --docs``, the collation table (sorting), the .bib parser
#: (a warm build rebuilds its entries from the parse cache)
COMPUTING = ("refbook.readers.bibtex", "refbook.validate.dates", "refbook.validate.fields", "refbook.validate.keys",
             "refbook.validate.names", "refbook.validate.titles", "refbook.validate.values",
             "refbook.validate.identifiers", "refbook.latex", "refbook.bibtex_csl",
             "refbook.validate.rest", "refbook.validate.myst", "pyuca",
             "refbook.validate.citations")
#: what only another output form or style needs: note styles (their footnotes, their cite
#: positions), mkdocs-bibtex's footnote output (entries as Markdown)
OTHER_FORMS = ("mkdocs_refbook.notes", "refbook.notes", "refbook.render.markdown")
#: what a build whose results all come from the cache folder no longer imports either: the CSL
#: style parser (the style's language is kept in the folder; its digest stats the locale files
#: without parsing them), the incremental parser's pieces
READING = ("refbook.styles.csl.style", "refbook.readers.chunks")


def _imported(project: Project, names: tuple[str, ...] = HEAVY) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _DRIVER, str(project.root / "mkdocs.yml"), *names],
                         check=True, capture_output=True, text=True, cwd=project.root, env=env)
    assert (project.root / "site" / "index.html").is_file()
    result: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_book_that_cites_nothing_imports_none_of_the_heavy_modules(project: Project) -> None:
    project.page("index.md", "# Book\n\nNo citations here.\n")
    assert _imported(project) == []


def test_a_book_that_cites_nothing_imports_no_style_engine(project: Project) -> None:
    # choosing and checking the style reads the CSL file only; the engine formats
    project.page("index.md", "# Book\n\nNo citations here.\n")
    engine = ("refbook.styles.csl.processor", "refbook.styles.csl.engine",
              "refbook.styles.csl.output")
    assert _imported(project, engine) == []


def test_a_cited_book_imports_the_collation_table_only(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a; @doe2019] and @lee2021.\n")
    assert _imported(project) == ["pyuca"]


def test_a_build_from_a_warm_cache_imports_nothing_it_does_not_compute(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a; @doe2019] and @lee2021.\n")
    cold = _imported(project, COMPUTING)
    assert (project.root / ".cache" / "refbook").is_dir()
    # the first build computed: it used the rules, the LaTeX decoder and the collation table
    assert {"refbook.readers.bibtex", "refbook.validate.dates", "refbook.latex",
            "refbook.bibtex_csl", "pyuca"} <= set(cold)
    assert _imported(project, COMPUTING) == []


def test_a_build_from_a_warm_cache_reads_no_style_file_and_no_bib_pieces(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a; @doe2019] and @lee2021.\n")
    cold = _imported(project, READING)
    assert {"refbook.styles.csl.style", "refbook.readers.chunks"} <= set(cold)  # it read them
    assert _imported(project, READING) == []


def test_a_warm_build_after_a_bib_edit_imports_what_it_computes_again(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a].\n")
    _imported(project, COMPUTING)
    bib = project.root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {2020}", "year = {2021}", 1),
                   encoding="utf-8")
    # the edited entry is parsed, validated, converted and formatted again
    assert {"refbook.validate.dates", "refbook.latex", "refbook.bibtex_csl"} <= set(
        _imported(project, COMPUTING))


def test_an_author_date_book_imports_neither_note_nor_footnote_output(project: Project) -> None:
    project.page("index.md", "# Book\n\nSee [@smith2020a; @doe2019] and @lee2021.\n")
    assert _imported(project, OTHER_FORMS) == []  # the cold build
    assert _imported(project, OTHER_FORMS) == []  # and the warm one
    project.configure({"style": "chicago-notes-bibliography"})
    assert {"mkdocs_refbook.notes", "refbook.notes"} <= set(_imported(project, OTHER_FORMS))
    project.configure({"output": "footnotes"})
    assert "refbook.render.markdown" in _imported(project, OTHER_FORMS)
