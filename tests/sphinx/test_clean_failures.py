"""A build that refbook fails — strict mode, an unusable configuration — ends as a failed ``-W``
build ends: every problem listed at its ``file:line``, a non-zero exit status, and never Sphinx's
crash report (its "Traceback" section and the request to report a Sphinx bug), which Sphinx 8
and 9 print for any exception an extension raises. Real ``sphinx-build`` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

CRASH_REPORT = ("Traceback", "sphinx-doc/sphinx", "Exception occurred", "please open an issue")


def sphinx_build(src: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "text", *args, str(src),
         str(src / "_build")],
        capture_output=True, text=True, env=env, timeout=300, check=False)


def assert_clean_failure(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode != 0, run.stderr
    for marker in CRASH_REPORT:
        assert marker not in run.stderr, run.stderr


def test_strict_mode_lists_every_problem_and_fails_cleanly(
        copy_root: Callable[[str], Path]) -> None:
    src = copy_root("unknown")
    with (src / "conf.py").open("a", encoding="utf-8") as f:
        f.write("refbook_strict = True\n")
    run = sphinx_build(src)
    assert_clean_failure(run)
    err = run.stderr
    assert f"{src}/refs.bib:8: WARNING: duplicate key `knuth1984`" in err
    assert f"{src}/index.rst:6: WARNING: citation key 'knuht1984' is not in any" in err
    assert f"{src}/index.rst:6: WARNING: citation key 'nosuchkey' is not in any" in err
    assert "ERROR: refbook_strict = True and the book has 3 problem(s)" in err
    # a second, incremental build reads nothing and still lists every problem
    again = sphinx_build(src)
    assert_clean_failure(again)
    assert again.stderr == err


def test_strict_mode_on_the_command_line_and_a_page_syntax_error(
        copy_root: Callable[[str], Path]) -> None:
    src = copy_root("roles")
    (src / "chapter2.rst").write_text("Two\n===\n\nBad :cite:p:`a b`.\n", encoding="utf-8")
    run = sphinx_build(src, "-D", "refbook_strict=1")
    assert_clean_failure(run)
    assert (f"{src}/chapter2.rst:4: WARNING: malformed citation target list 'a b' (expected ',' "
            "at 'b') [refbook.citation-syntax]") in run.stderr
    assert "refbook_strict = True and the book has 1 problem(s)" in run.stderr
    again = sphinx_build(src, "-D", "refbook_strict=1")  # the page is not read again
    assert_clean_failure(again)
    assert f"{src}/chapter2.rst:4: WARNING: malformed citation target list" in again.stderr


def test_a_clean_strict_build_succeeds(copy_root: Callable[[str], Path]) -> None:
    run = sphinx_build(copy_root("roles"), "-D", "refbook_strict=1")
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_bad_option_on_the_command_line(copy_root: Callable[[str], Path]) -> None:
    src = copy_root("roles")
    run = sphinx_build(src, "-D", "refbook_style=apaa")
    assert_clean_failure(run)
    assert ("ERROR: refbook_style = 'apaa': unknown style 'apaa'; built-in styles: "
            "chicago-author-date, numeric; the CSL styles repository (") in run.stderr
    # the name it was probably meant to be, and where the value came from
    assert ("has none of that file name; similar: apa (set on the command line: "
            "-D refbook_style=apaa)") in run.stderr
    assert "refbook: the configuration has 1 problem(s)" in run.stderr


def test_every_configuration_problem_at_its_line_of_conf_py(
        copy_root: Callable[[str], Path]) -> None:
    src = copy_root("roles")
    conf = src / "conf.py"
    start = conf.read_text(encoding="utf-8").count("\n")
    with conf.open("a", encoding="utf-8") as f:
        f.write("refbook_style = 'apaa'\nrefbook_backlinks = 'yes'\n"
                "refbook_check = {'colour': 'red'}\n")
    run = sphinx_build(src)
    assert_clean_failure(run)
    err = run.stderr
    assert (f"{conf}:{start + 1}: ERROR: refbook_style = 'apaa': unknown style 'apaa'") in err
    assert (f"{conf}:{start + 2}: ERROR: refbook_backlinks must be a bool, not str ('yes')"
            ) in err
    assert (f"{conf}:{start + 3}: ERROR: refbook_check: unknown validation option(s): colour"
            ) in err
    assert "refbook: the configuration has 3 problem(s)" in err
    # the pages were still written, each citation as written in the source
    assert ":cite:p:`knuth1984`" in (src / "_build" / "index.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(("line", "message"), [
    ("refbook_bibfiles = []", "refbook_bibfiles is empty: list the book's .bib files"),
    ("bibtex_bibfiles = 'refs.bib'", "bibtex_bibfiles must be a list of .bib paths, not str"),
    ("refbook_bibfiles = ['refs.bib', 3]", "refbook_bibfiles must hold file paths (strings or pathlib.Path)"),
])
def test_bibliography_files_problems(copy_root: Callable[[str], Path], line: str,
                                     message: str) -> None:
    src = copy_root("roles")
    with (src / "conf.py").open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    run = sphinx_build(src)
    assert_clean_failure(run)
    assert f"ERROR: {message}" in run.stderr
