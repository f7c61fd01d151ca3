"""The ``refbook`` command line: formats, errors and exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from refbook import __version__
from refbook.cli import main
from tests.conftest import SEED

BIB = str(SEED / "references.bib")


def test_version() -> None:
    r = subprocess.run([sys.executable, "-m", "refbook.cli", "--version"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0
    assert r.stdout.strip() == f"refbook {__version__}"


def test_render_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", BIB, "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert html.count('<div class="csl-entry"') == 253
    assert 'id="ref-breiman2001random"' in html
    assert '<a href="https://doi.org/10.1023/A:1010933404324">' in html
    assert main(["render", BIB, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "[https://doi.org/10.1023/A:1010933404324](https://doi.org/10.1023/A:1010933404324)" in md
    assert main(["render", BIB, "--style", "numeric"]) == 0
    assert capsys.readouterr().out.startswith("[1] ")


def test_cite_unknown_key_is_marked_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cite", BIB, "[@breiman2001random; @Breiman2001random]"]) == 1
    out = capsys.readouterr()
    assert out.out.strip() == "(Breiman 2001; Breiman2001random?)"
    assert ("<command line>:1: error: citation key 'Breiman2001random' is not in any bibliography "
            "file, but 'breiman2001random' is [refbook.cite-case]") in out.err
    # said once, in the hint
    assert "hint: keys are case-sensitive: did you mean 'breiman2001random'?" in out.err
    assert out.err.count("case-sensitive") == 1


def test_bad_citation_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cite", BIB, "no citation here"]) == 2
    assert "is not one citation in Pandoc syntax" in capsys.readouterr().err


def test_missing_file_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "does-not-exist.bib"]) == 1
    err = capsys.readouterr().err
    assert "does-not-exist.bib" in err
    assert "Traceback" not in err


def test_unknown_style_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["render", BIB, "--style", "nope"])
    assert exc.value.code == 2
    assert "unknown style 'nope'" in capsys.readouterr().err


def test_no_command_prints_help() -> None:
    assert main([]) == 2


def test_every_testdata_file_renders_without_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import TESTDATA

    files = sorted(TESTDATA.rglob("*.bib"))
    assert len(files) > 100
    for path in files:
        for style in ("chicago-author-date", "numeric"):
            assert main(["render", str(path), "--style", style, "--format", "html"]) in (0, 1), path
    out = capsys.readouterr()
    assert "Traceback" not in out.err
