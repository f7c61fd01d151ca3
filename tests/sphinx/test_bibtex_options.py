"""sphinxcontrib-bibtex's ways of naming the bibliography, honoured: the directive's file
argument (``.. bibliography:: other.bib``), keys listed in its body, ``bibtex_bibfiles = []``,
``pathlib.Path`` entries, paths relative to the folder of ``conf.py``, ``bibtex_encoding``.
The projects set ``refbook_style`` (refbook's look); sphinxcontrib-bibtex's look is
``test_bibtex_look.py``'s."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ROOT
from tests.sphinx.conftest import ROOTS

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

OTHER_BIB = """\
@book{other2001,
  author = {Other, Olga},
  title = {Another Book},
  publisher = {Press},
  year = {2001}
}

@book{spare2002,
  author = {Spare, Sam},
  title = {Never Cited},
  publisher = {Press},
  year = {2002}
}
"""


REFBOOK_STYLE = 'refbook_style = "chicago-author-date"'


def project(tmp_path: Path, index_body: str, conf: str = "") -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "refs.bib").write_text((ROOTS / "test-roles" / "refs.bib").read_text(encoding="utf-8"),
                                  encoding="utf-8")
    (src / "other.bib").write_text(OTHER_BIB, encoding="utf-8")
    (src / "conf.py").write_text(
        'extensions = ["sphinx_refbook"]\nbibtex_bibfiles = ["refs.bib", "other.bib"]\n'
        f"{REFBOOK_STYLE}\n" + conf,
        encoding="utf-8")
    (src / "index.rst").write_text("Book\n====\n\nCites :cite:p:`knuth1984` and "
                                   ":cite:p:`other2001`.\n\n" + index_body, encoding="utf-8")
    return src


def entries(text: str) -> list[str]:
    """The first words of each entry of the text output's lists."""
    return [line.split(".")[0] for line in text.splitlines()
            if line[:1].isupper() and ". " in line and "Cites" not in line]


def test_file_argument_lists_only_that_files_entries(tmp_path: Path,
                                                     build: Callable[..., Built]) -> None:
    src = project(tmp_path, "Own\n---\n\n.. bibliography:: refs.bib\n\n"
                            "Other\n-----\n\n.. bibliography:: other.bib\n")
    b = build(src, "html")
    assert b.warnings == ""
    html = b.read("index.html")
    own, other = html.split('id="own"')[1].split('id="other"')
    assert 'id="ref-knuth1984"' in own
    assert "ref-other2001" not in own
    assert 'id="ref-other2001"' in other
    assert "ref-knuth1984" not in other
    assert "spare2002" not in html
    assert 'href="#ref-other2001"' in html


def test_file_argument_outside_the_book_is_reported(tmp_path: Path,
                                                    build: Callable[..., Built]) -> None:
    src = project(tmp_path, ".. bibliography:: missing.bib\n\n.. bibliography::\n")
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/index.rst:6: WARNING: missing.bib is not one of the book's bibliography files, "
        "so this list leaves it out (add it to refbook_bibfiles or bibtex_bibfiles in conf.py) "
        "[refbook.file]\n")


def test_keys_in_the_body_are_listed(tmp_path: Path, build: Callable[..., Built]) -> None:
    src = project(tmp_path, ".. bibliography::\n\n   spare2002\n   nosuch\n")
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/index.rst:6: WARNING: listed key 'nosuch' is not in any bibliography file (add "
        "an entry with this key to a .bib file, or fix the key) [refbook.unknown-key]\n")
    assert entries(b.read("index.txt")) == ["Knuth, Donald E", "Other, Olga", "Spare, Sam"]


def test_keys_in_the_body_only_from_the_lists_files(tmp_path: Path,
                                                    build: Callable[..., Built]) -> None:
    src = project(tmp_path, ".. bibliography:: other.bib\n\n   lamport1994\n   spare2002\n\n"
                            ".. bibliography:: refs.bib\n")
    b = build(src, "text")
    assert b.warnings == ""
    assert entries(b.read("index.txt")) == ["Other, Olga", "Spare, Sam", "Knuth, Donald E"]


@pytest.mark.parametrize("line", ["bibtex_bibfiles = []", ("refbook_bibfiles = []\n"
                                  "bibtex_bibfiles = []")])
def test_empty_bibtex_bibfiles_is_accepted(tmp_path: Path, build: Callable[..., Built],
                                           line: str) -> None:
    src = project(tmp_path, "")
    (src / "conf.py").write_text(f'extensions = ["sphinx_refbook"]\n{line}\n{REFBOOK_STYLE}\n',
                                 encoding="utf-8")
    b = build(src, "text")
    assert b.app.statuscode == 0
    # a book without entries: its citations are unknown keys, nothing else
    assert [w.rsplit("[", 1)[1] for w in b.warnings.splitlines()] == ["refbook.unknown-key]"] * 2


@pytest.mark.parametrize("option", ["bibtex_bibfiles", "refbook_bibfiles"])
def test_pathlib_paths(tmp_path: Path, build: Callable[..., Built], option: str) -> None:
    src = project(tmp_path, ".. bibliography::\n")
    (src / "conf.py").write_text(
        'from pathlib import Path\nextensions = ["sphinx_refbook"]\n'
        f'{option} = [Path("refs.bib"), Path("other.bib")]\n{REFBOOK_STYLE}\n',
        encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == ""
    assert entries(b.read("index.txt")) == ["Knuth, Donald E", "Other, Olga"]


def test_bibtex_bibfiles_are_relative_to_the_folder_of_conf_py(tmp_path: Path) -> None:
    """As sphinxcontrib-bibtex reads them (refbook_bibfiles: the source folder); ``-c``."""
    src = project(tmp_path, ".. bibliography::\n")
    confdir = tmp_path / "conf"
    (confdir / "bib").mkdir(parents=True)
    (confdir / "conf.py").write_text('extensions = ["sphinx_refbook"]\n'
                                     'bibtex_bibfiles = ["bib/refs.bib", "bib/other.bib"]\n'
                                     f"{REFBOOK_STYLE}\n", encoding="utf-8")
    for name in ("refs.bib", "other.bib"):
        (src / name).rename(confdir / "bib" / name)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "text", "-c", str(confdir),
                          str(src), str(out)], capture_output=True, text=True, env=env,
                         timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert entries((out / "index.txt").read_text(encoding="utf-8")) == [
        "Knuth, Donald E", "Other, Olga"]


def test_bibtex_encoding_latin1(tmp_path: Path, build: Callable[..., Built]) -> None:
    src = project(tmp_path, ".. bibliography::\n")
    (src / "other.bib").write_bytes(OTHER_BIB.replace("Other, Olga", "Öther, Olga")
                                    .encode("latin-1"))
    undeclared = build(src, "text")
    assert "[refbook.encoding]" in undeclared.warnings
    declared = build(src, "text", freshenv=True,
                     confoverrides={"bibtex_encoding": "latin-1"})
    assert declared.warnings == ""
    assert "Öther, Olga. 2001." in declared.read("index.txt")


def test_bibtex_encoding_refbook_cannot_read(tmp_path: Path,
                                            build: Callable[..., Built]) -> None:
    src = project(tmp_path, "", conf="bibtex_encoding = 'cp1251'\n")
    b = build(src, "text")
    assert b.app.statuscode == 1
    assert (f"{src}/conf.py:4: ERROR: bibtex_encoding = 'cp1251': refbook reads .bib files as "
            "UTF-8 (or Latin-1, bibtex_encoding = 'latin-1'); convert the files to UTF-8, e.g. "
            "with iconv -f cp1251 -t utf-8") in b.warnings
