"""One book, three tools, one report: a Sphinx build, an MkDocs build and ``refbook check --docs``
give the same diagnostics — code, file and line — for every rule family.

The book below has at least one defect of every family in its ``.bib`` file and in its pages
(unknown and wrong-case keys, entries never cited). The three tools run as a user runs them (the
real command lines, in the book's folder) and share their options through the book's
``pyproject.toml``. A second test does the same on a copy of ``example_book/`` with an unknown
citation and an uncited entry added (evidence 4 of the validation issue).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from refbook.diagnostics import FAMILIES, Code
from tests.conftest import ROOT

BIN = Path(sys.executable).parent

BIB = r"""@article{good2020,
  author = {Good, Alice},
  title = {A Good Paper},
  journal = {Journal of Things},
  year = {2020},
  volume = {3},
  pages = {1--10},
}

@article{sameA2019,
  author = {Twin, Tom},
  title = {Twice Filed},
  journal = {Journal of Things},
  year = {2019},
  doi = {10.1000/twin},
}

@article{sameB2019,
  author = {Twin, Tom},
  title = {Twice Filed, Again},
  journal = {Journal of Things},
  year = {2019},
  doi = {10.1000/TWIN},
}

@incollection{chapter2018,
  author = {Part, Paula},
  title = {A Chapter},
  crossref = {nosuchbook},
  year = {2018},
  pages = {5--9},
}

@article{nojournal2017,
  author = {Lone, Lee},
  title = {Nowhere Published},
  year = {2017},
}

@misc{range2016,
  author = {Span, Sam},
  title = {Two Years},
  year = {2015-2016},
  howpublished = {Report},
}

@misc{prefix2015,
  author = {Link, Lina},
  title = {Linked},
  year = {2015},
  doi = {https://doi.org/10.1000/linked},
  url = {https://https://example.org/linked},
}

@book{others2014,
  author = {First, Fay and others and Last, Lou},
  title = {Many Hands},
  publisher = {Press},
  year = {2014},
}

@inproceedings{caps2013,
  author = {Case, Carl},
  title = {Training BERT on I/O},
  booktitle = {Proceedings of Things},
  year = {2013},
  pages = {7‐9},
  month = {Smarch},
}

@misc{uncited2012,
  author = {Quiet, Quinn},
  title = {Never Cited},
  year = {2012},
  howpublished = {Web},
}

@misc{broken2011,
  author = {Bad, Bea},
  title = {Unclosed,
  year = {2011},
}

@misc{after2010,
  author = {Still, Stan},
  title = {Still Read},
  year = {2010},
  howpublished = {Web},
}
"""

INDEX = """# A book

```{toctree}
:hidden:

ch1
ch2
references
```

This book cites [@good2020] and [@sameA2019; @sameB2019].
"""

CH1 = """# One

Chapters cite [@chapter2018, p. 6], @nojournal2017 and [@range2016].

A key that is in no file: [@nosuch2020].

```python
print("@notacitation")  # code is never a citation
```

Wrong case: [@Good2020].
"""

CH2 = """---
title: Two, with front matter (MkDocs strips it before plugins see the page)
---

# Two

See [@prefix2015; @others2014] and [@caps2013].

The last ones: [@after2010] and again [@nosuch2020].
"""

REFERENCES = """# References

<!-- refbook:bibliography -->
"""

CONF = """\
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown"}
root_doc = "index"
refbook_bibfiles = ["../refs.bib"]
"""

MKDOCS = """\
site_name: A book
docs_dir: docs
site_dir: _build/mkdocs
nav: [index.md, ch1.md, ch2.md, references.md]
plugins:
  - refbook:
      bib_files: [refs.bib]
"""

PYPROJECT = """\
[tool.refbook.check]
# every entry never cited is listed (info by default: summed up past 20 in a build log)
severity = { unused-entry = "warning" }
"""

Row = tuple[str, str, int]  # (code, file relative to the book, line)
# one diagnostic in any of the three outputs: "<file>:<line>: … [refbook.<code>]"
LINE = re.compile(r"(?:^|\s)(?P<file>[^\s:]+):(?P<line>\d+): .*\[(?P<code>refbook\.[a-z-]+)\]\s*$")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=env,
                          check=False)


def _rows(text: str, book: Path) -> set[Row]:
    rows: set[Row] = set()
    for line in text.splitlines():
        m = LINE.search(line)
        if m is None:
            continue
        path = Path(m.group("file"))
        name = os.path.relpath(path, book) if path.is_absolute() else str(path)
        rows.add((m.group("code"), name.replace(os.sep, "/"), int(m.group("line"))))
    return rows


def sphinx_rows(book: Path, *, fails: bool = False) -> set[Row]:
    """The diagnostics of ``sphinx-build`` (``fails``: the book is strict and has errors)."""
    out = _run([str(BIN / "sphinx-build"), "-b", "html", "-c", ".", "docs", "_build/sphinx"], book)
    assert (out.returncode != 0) == fails, out.stderr
    if fails:  # a failed -W build's ending, not a crash report
        assert "ERROR: refbook_strict = True and the book has" in out.stderr
        assert "Traceback" not in out.stderr
    return _rows(out.stdout + "\n" + out.stderr, book)


def mkdocs_rows(book: Path, *, fails: bool = False) -> set[Row]:
    """The diagnostics of ``mkdocs build`` (``fails``: the book is strict and has errors)."""
    out = _run([str(BIN / "mkdocs"), "build", "-f", "mkdocs.yml"], book)
    assert (out.returncode != 0) == fails, out.stderr
    if fails:
        assert "refbook strict mode" in out.stderr
    return _rows(out.stderr, book)


def check_rows(book: Path, bib: str, *options: str) -> set[Row]:
    out = _run([str(BIN / "refbook"), "check", bib, "--docs", "docs", "--format", "json",
                *options], book)
    assert out.returncode in (0, 1), out.stderr
    return {(d["code"], d["file"], d["line"]) for d in json.loads(out.stdout)}


def _write_book(root: Path) -> Path:
    book = root / "book"
    (book / "docs").mkdir(parents=True)
    for name, text in {"refs.bib": BIB, "conf.py": CONF, "mkdocs.yml": MKDOCS,
                       "pyproject.toml": PYPROJECT, "docs/index.md": INDEX, "docs/ch1.md": CH1,
                       "docs/ch2.md": CH2, "docs/references.md": REFERENCES}.items():
        (book / name).write_text(text, encoding="utf-8")
    return book


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[Row]]:
    book = _write_book(tmp_path_factory.mktemp("parity"))
    # the MkDocs plugin looks keys up ignoring letter case, as mkdocs-bibtex did (key-case, a
    # warning); Sphinx, as sphinxcontrib-bibtex's :cite: and Pandoc, does not (cite-case)
    return {"check": check_rows(book, "refs.bib"), "sphinx": sphinx_rows(book),
            "check-mkdocs": check_rows(book, "refs.bib", "--ignore-key-case"),
            "mkdocs": mkdocs_rows(book)}


def _family(rows: set[Row], family: str) -> set[Row]:
    return {r for r in rows if (c := Code.from_slug(r[0])) is not None and c.family == family}


FAMILIES_IN_BOOK = [f for f in FAMILIES if f != "config"]


@pytest.mark.parametrize("family", FAMILIES_IN_BOOK)
def test_hosts_report_what_check_reports(reports: dict[str, set[Row]], family: str) -> None:
    expected = _family(reports["check"], family)
    assert expected, f"the parity book has no {family} defect"
    assert _family(reports["sphinx"], family) == expected
    assert _family(reports["mkdocs"], family) == _family(reports["check-mkdocs"], family)
    if family != "citations":
        assert _family(reports["check-mkdocs"], family) == expected
    else:  # one wrong-case key: an error for Sphinx, a warning (resolved) for MkDocs
        assert ({r for r in expected if r[0] == "refbook.cite-case"}
                == {("refbook.cite-case", *r[1:]) for r in reports["mkdocs"]
                    if r[0] == "refbook.key-case"} == {("refbook.cite-case", "docs/ch1.md", 11)})


def test_parity_book_defects_are_where_a_reviewer_puts_them(reports: dict[str, set[Row]]) -> None:
    """The check output itself (what the hosts are compared to) names the planted defects."""
    rows = reports["check"]
    expected = {
        ("refbook.duplicate-work", "refs.bib", 23),      # sameB2019's doi (sameA2019's DOI)
        ("refbook.crossref-missing", "refs.bib", 29),
        ("refbook.missing-field", "refs.bib", 26),       # @incollection without booktitle
        ("refbook.missing-field", "refs.bib", 34),       # @article without journal
        ("refbook.year-range", "refs.bib", 43),
        ("refbook.doi-prefix", "refs.bib", 51),
        ("refbook.url-scheme-duplicated", "refs.bib", 52),
        ("refbook.others-not-last", "refs.bib", 56),
        ("refbook.title-case", "refs.bib", 64),
        ("refbook.pages-dash", "refs.bib", 67),         # a Unicode hyphen: printed as written
        ("refbook.month-invalid", "refs.bib", 68),
        ("refbook.unused-entry", "refs.bib", 71),       # uncited2012
        ("refbook.syntax", "refs.bib", 80),
        ("refbook.unknown-key", "docs/ch1.md", 5),
        ("refbook.cite-case", "docs/ch1.md", 11),
        ("refbook.unknown-key", "docs/ch2.md", 9),
    }
    assert expected <= rows, sorted(expected - rows)
    assert not any("notacitation" in str(r) for r in rows)
    # the entry after the broken one is still read and cited: no unknown-key for it
    assert ("refbook.unknown-key", "docs/ch2.md", 9) in rows
    assert all(r[0] != "refbook.unused-entry" or r[2] == 71 for r in rows)


def test_example_book_unknown_and_unused_citations_reported_alike(tmp_path: Path) -> None:
    """Evidence 4: in a copy of example_book/ with one citation of a missing key and one entry
    no page cites, both hosts and ``refbook check --docs`` report both at the same places
    (unused-entry at its default severity, info)."""
    book = tmp_path / "example_book"
    shutil.copytree(ROOT / "example_book", book,
                    ignore=shutil.ignore_patterns("_build", ".cache"))
    chapter = book / "docs" / "04-inference.md"
    lines = chapter.read_text(encoding="utf-8").split("\n")
    lines.insert(4, "As nobody showed [@nosuchkey2031, p. 3].")
    chapter.write_text("\n".join(lines), encoding="utf-8")
    bib = book / "references.bib"
    text = bib.read_text(encoding="utf-8")
    entry_line = text.count("\n") + 2
    bib.write_text(text + "\n@misc{neverCited2030,\n  author = {Nobody, Nora},\n"
                   "  title = {Cited Nowhere},\n  year = {2030},\n  howpublished = {Web},\n}\n",
                   encoding="utf-8")
    # conf.py takes the .bib from the book folder and the pages from docs/, as in the repository
    wanted = {("refbook.unknown-key", "docs/04-inference.md", 5),
              ("refbook.unused-entry", "references.bib", entry_line)}
    check = check_rows(book, "references.bib")
    # the example book is strict in both hosts: the unknown key fails both builds, after
    # every diagnostic was reported
    sphinx = sphinx_rows(book, fails=True)
    mkdocs = mkdocs_rows(book, fails=True)
    family = {"refbook.unknown-key", "refbook.unused-entry", "refbook.cite-case"}
    assert {r for r in check if r[0] in family} == wanted
    assert {r for r in sphinx if r[0] in family} == wanted
    assert {r for r in mkdocs if r[0] in family} == wanted
    # and nothing else is reported by any of the three
    assert check == sphinx == mkdocs == wanted


def _after(text: str, marker: str) -> str:
    assert marker in text, text[-3000:]
    return text[text.index(marker):]


def test_strict_mode_lists_every_problem_in_one_failure(tmp_path: Path) -> None:
    """Strict mode (``refbook_strict`` / ``strict: true``) fails once and lists every error and
    warning of the book — the rows ``refbook check`` reports, not only the first (Sphinx: as
    warnings closed by one error line; MkDocs: in its failure message)."""
    book = _write_book(tmp_path)
    (book / "conf.py").write_text(CONF + "refbook_strict = True\n", encoding="utf-8")
    (book / "mkdocs.yml").write_text(MKDOCS + "      strict: true\n", encoding="utf-8")
    expected = check_rows(book, "refs.bib")
    expected_mkdocs = check_rows(book, "refs.bib", "--ignore-key-case")
    assert len(expected) >= 15
    sphinx = _run([str(BIN / "sphinx-build"), "-b", "html", "-c", ".", "docs", "_build/s"], book)
    assert sphinx.returncode != 0
    # Sphinx: listed as warnings, closed by one error line, as a failed -W build
    assert sphinx.stderr.rstrip().splitlines()[-1].startswith(
        f"ERROR: refbook_strict = True and the book has {len(expected)} problem(s)")
    assert "Traceback" not in sphinx.stderr
    assert _rows(sphinx.stderr, book) == expected
    mkdocs = _run([str(BIN / "mkdocs"), "build", "-f", "mkdocs.yml"], book)
    assert mkdocs.returncode != 0
    listed = _after(mkdocs.stderr, f"refbook strict mode: {len(expected_mkdocs)} problem(s):")
    assert _rows(listed, book) == expected_mkdocs


# The same book in reST, as a Sphinx project in one folder (conf.py beside the pages, the build
# in _build/ as sphinx-quickstart lays it out): citations in multi-line paragraphs, after
# directive blocks, in inline literals and code (no citations), a footnote citation, an
# excluded draft, and a _build/ folder holding a stale copy of a page and a theme's licence.
RST_CONF = """\
extensions = ["sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
exclude_patterns = ["_build", "drafts/*"]
"""

RST_INDEX = """\
A book
======

.. toctree::
   :hidden:

   ch1
   ch2

This book cites :cite:p:`good2020` and
:cite:p:`sameA2019,sameB2019`.

.. bibliography::
"""

RST_CH1 = """\
One
===

Chapters cite :cite:p:`chapter2018`, :cite:t:`nojournal2017`
and :cite:p:`range2016` over
three lines; a key that is in no file: :cite:`nosuch2020`.

.. note::
   :class: margin

   A note that cites :cite:t:`prefix2015`
   and, on its second line, :cite:`nosuchnote`.

.. code-block:: python
   :caption: Code is never a citation

   print(":cite:`notacitation`")

An inline literal ``:cite:`notaliteral``` is none either,
but this is: :cite:`nosuch2020` (again).

Wrong case, after a literal block::

    :cite:`Good2020` in a literal block

.. a comment :cite:`notacomment`

The real wrong case:
:cite:`Good2020`.
"""

RST_CH2 = """\
Two
===

- A list item
  citing :cite:p:`others2014` and :footcite:`caps2013`.

+----------+---------------------+
| a table  | cell text           |
|          | :cite:`after2010`   |
|          | :cite:`nosuchcell`  |
+----------+---------------------+

.. footbibliography::
"""

DRAFT = "Draft\n=====\n\n:cite:`nosuchdraft`\n"


def _write_rst_book(root: Path) -> Path:
    book = root / "rstbook"
    for name, text in {"refs.bib": BIB, "conf.py": RST_CONF, "pyproject.toml": PYPROJECT,
                       "index.rst": RST_INDEX, "ch1.rst": RST_CH1, "ch2.rst": RST_CH2,
                       "drafts/draft.rst": DRAFT}.items():
        (book / name).parent.mkdir(parents=True, exist_ok=True)
        (book / name).write_text(text, encoding="utf-8")
    return book


def _rst_sphinx_rows(book: Path) -> set[Row]:
    # -E: every page read again (an incremental build reports only the pages it reads)
    out = _run([str(BIN / "sphinx-build"), "-E", "-b", "html", ".", "_build/html"], book)
    assert out.returncode == 0, out.stderr
    return _rows(out.stdout + "\n" + out.stderr, book)


def test_rest_book_sphinx_and_check_docs_report_alike(tmp_path: Path) -> None:
    """Evidence 3 of the validation issue: on a reST book, Sphinx and ``refbook check --docs .``
    report the same ``(code, file, line)`` set — each citation at its own line in multi-line
    paragraphs, list items, table cells and after directive blocks; none in inline literals,
    literal blocks, code or comments; none from the excluded draft or from ``_build/`` (a stale
    ``_sources`` copy of a page whose citations were on other lines, a theme's licence file with
    a role-like string). (MkDocs reads no reST: the Markdown book above compares all three.)"""
    book = _write_rst_book(tmp_path)
    _rst_sphinx_rows(book)  # a first build leaves _build/html/_sources/ch1.rst.txt …
    stale = book / "_build" / "html" / "_sources" / "ch1.rst.txt"
    assert ":cite:`nosuch2020`" in stale.read_text(encoding="utf-8")
    # … then the chapter moves down four lines, so the copy is stale
    (book / "ch1.rst").write_text(RST_CH1.replace("One\n===\n", "One\n===\n\nIntro.\n\nMore.\n",
                                                  1), encoding="utf-8")
    licence = book / "_build" / "html" / "_static" / "LICENSE.txt"
    licence.write_text("Copyright: use :cite:`nosuchlicence` freely, see [@nosuchlicence].\n",
                       encoding="utf-8")
    sphinx = _rst_sphinx_rows(book)
    check_out = _run([str(BIN / "refbook"), "check", "refs.bib", "--docs", ".", "--format",
                      "json"], book)
    assert check_out.returncode in (0, 1), check_out.stderr
    check = {(d["code"], d["file"], d["line"]) for d in json.loads(check_out.stdout)}
    assert check == sphinx
    ch1 = (book / "ch1.rst").read_text(encoding="utf-8").split("\n")

    def line_of(text: str, start: int = 0) -> int:
        return next(i for i, x in enumerate(ch1) if i >= start and text in x) + 1

    # the planted citations, at the lines a reader finds them on
    assert {("refbook.unknown-key", "ch1.rst", line_of("no file: :cite:`nosuch2020`")),
            ("refbook.unknown-key", "ch1.rst", line_of("second line, :cite:`nosuchnote`")),
            ("refbook.unknown-key", "ch1.rst", line_of("but this is: :cite:`nosuch2020`")),
            ("refbook.cite-case", "ch1.rst", line_of(":cite:`Good2020`.")),
            ("refbook.unknown-key", "ch2.rst", 10)} <= check
    for quiet in ("notacitation", "notaliteral", "notacomment", "nosuchdraft", "nosuchlicence"):
        assert not any(quiet in str(r) for r in check)
    assert not any(r[1].startswith(("_build", "drafts")) for r in check)
    cite_rows = {r for r in check if r[1].endswith(".rst")}
    assert len(cite_rows) == 5, sorted(cite_rows)


MKDOCS_PAGE = """\
# A page

A paragraph over
two lines [@nosuch1] and {cite}`notarole` (MkDocs has no roles).

    [@notindented] is indented code

```{note}
[@notinfence]: a MyST directive is a code block to MkDocs
```

- a list item

    [@nosuch2] indented in the item: its text, not code

Inline `[@notinspan]` then [@nosuch3].
"""


def test_mkdocs_book_check_docs_reads_pages_as_the_plugin(tmp_path: Path) -> None:
    """``refbook check --docs .`` in an MkDocs project reports what ``mkdocs build`` reports:
    the pages of ``docs_dir`` only, no citation in fenced or indented code or code spans, no
    MyST role (MkDocs has none), each at its line; never the built ``site/``."""
    book = tmp_path / "mk"
    (book / "docs").mkdir(parents=True)
    (book / "refs.bib").write_text(BIB, encoding="utf-8")
    (book / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (book / "mkdocs.yml").write_text("site_name: x\nplugins:\n  - refbook:\n      bib_files: "
                                     "[refs.bib]\n", encoding="utf-8")
    (book / "docs" / "index.md").write_text(MKDOCS_PAGE, encoding="utf-8")
    (book / "README.md").write_text("[@notapage]\n", encoding="utf-8")
    mkdocs = mkdocs_rows(book)
    assert (book / "site" / "index.html").exists()
    (book / "site" / "index.md").write_text("[@notapage]\n", encoding="utf-8")
    out = _run([str(BIN / "refbook"), "check", "refs.bib", "--docs", ".", "--format", "json"],
               book)
    check = {(d["code"], d["file"], d["line"]) for d in json.loads(out.stdout)}
    assert check == mkdocs
    lines = MKDOCS_PAGE.split("\n")
    assert {r for r in check if r[1].endswith(".md")} == {
        ("refbook.unknown-key", "docs/index.md", i) for i, x in enumerate(lines, 1)
        if "nosuch" in x}
