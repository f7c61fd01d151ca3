"""The ``refbook`` command line: formats, errors and exit codes."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from refbook import __version__
from refbook.cli import main
from tests.conftest import SEED

if TYPE_CHECKING:
    from pathlib import Path

BIB = str(SEED / "references.bib")


def test_version() -> None:
    r = subprocess.run([sys.executable, "-m", "refbook.cli", "--version"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0
    # and whether the compiled engine is in use (refbook.accel)
    assert r.stdout.startswith(f"refbook {__version__}; compiled engine: ")


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


def test_styles_lists_the_styles_whose_name_or_title_holds_the_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    from refbook.styles import get_style, styles_dir

    assert styles_dir() is not None
    assert main(["styles", "vancouver"]) == 0
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line for line in out.splitlines()}
    # by name (a dependent style, with the style it runs) and by title alone
    assert rows["vancouver-nlm"].split()[1] == "numeric"
    assert rows["vancouver-nlm"].endswith("\u2192 nlm-citation-sequence")
    assert "NLM/Vancouver: Citing Medicine" in rows["nlm-citation-sequence"]
    assert list(rows).index("vancouver-nlm") < list(rows).index("nlm-citation-sequence")
    assert err == f"refbook styles: {len(rows)} installed style(s) matching 'vancouver'\n"
    for name in list(rows)[:5]:
        get_style(name)  # each name listed is a style STYLE may name

    assert main(["styles", "Cite", "Them", "Right"]) == 0  # every word, any letter case
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names[0] == "harvard-cite-them-right"
    assert main(["styles", "chicago", "author"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names[0] == "chicago-author-date"  # the built-in, once
    assert names.count("chicago-author-date") == 1
    assert main(["styles", "apa"]) == 0
    assert all("japan" not in line.lower() for line in capsys.readouterr().out.splitlines())
    assert main(["styles", "zzzq"]) == 1
    assert capsys.readouterr().out == ""


def test_styles_without_the_repository_lists_the_built_ins_and_says_how_to_get_more(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from refbook import styles

    monkeypatch.setattr(styles, "styles_dir", lambda: None)
    assert main(["styles"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == ["chicago-author-date", "numeric"]
    assert "pip install refbook[styles]" in err


@pytest.mark.parametrize("command", ["render", "check"])
def test_a_csl_json_file_is_an_error_not_an_empty_bibliography(
        tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A CSL-JSON file given where .bib files are read was parsed as BibTeX: no entry and no
    word, exit 0 (``refbook render refs.json`` printed nothing; a build lost every reference).
    It is a file error with the way out; a .json that is no JSON stays a .bib read as such."""
    refs = tmp_path / "refs.json"
    refs.write_text('[{"id": "a", "type": "book", "title": "T"}]', encoding="utf-8")
    assert main([command, str(refs)]) == 1
    said = capsys.readouterr()
    err = said.out + said.err  # check reports on stdout, render on stderr
    assert f"{refs}: error: {refs} is CSL-JSON" in err
    assert "pandoc -f csljson -t biblatex refs.json -o refs.bib" in err
    odd = tmp_path / "odd.json"
    odd.write_text("@book{b, title = {B}}\n", encoding="utf-8")
    assert main(["render", str(odd)]) == 0
    assert "B" in capsys.readouterr().out
