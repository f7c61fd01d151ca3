"""``refbook check``: output formats, exit codes, citations in documents, --fix, the catalogue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbook.cli import main
from refbook.validate.docs import catalogue
from refbook.validate.fix import fix_text
from tests.conftest import ROOT, SEED

BIB = """@article{kwon2023efficient,
  author = {Kwon, Woosuk},
  title = {Efficient Memory Management},
  journal = {SOSP},
  year = {2023},
}

@misc{unused2020,
  title = {Never Cited},
  year = {2020},
}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = _write(tmp_path, "clean.bib", BIB)
    warn = _write(tmp_path, "warn.bib", BIB.replace("Efficient Memory", "Efficient I/O Memory"))
    # a doubled DOI resolver: a broken link, an error (an empty year is a warning: n.d. is shown)
    err = _write(tmp_path, "err.bib", BIB.replace("{2023},", "{2023},\n  doi = {https://doi.org/10.1145/3600006.3613165},"))
    assert main(["check", str(clean)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", str(warn)]) == 0
    assert main(["check", str(warn), "--strict"]) == 1
    assert main(["check", str(err)]) == 1
    assert main(["check", str(err), "--ignore", "doi-prefix"]) == 0
    assert main(["check", str(err), "--severity", "identifiers=warning"]) == 0
    capsys.readouterr()
    for bad in (["check"], ["check", str(clean), "--select", "nope"],
                ["check", str(clean), "--format", "markdown"],
                ["check", str(clean), "--severity", "loud"]):
        with pytest.raises(SystemExit) as exc:
            main(bad)
        assert exc.value.code == 2
    assert "give at least one .bib file" in capsys.readouterr().err


def test_missing_file_is_an_error_not_a_crash(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "nope.bib"]) == 1
    assert "nope.bib" in capsys.readouterr().out


def test_text_json_and_github(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = _write(tmp_path, "r.bib", BIB.replace("  year = {2023},\n",
                                                "  year = {2023},\n  doi = {doi:10.1145/1},\n"))
    assert main(["check", str(bib)]) == 1
    text = capsys.readouterr().out
    assert text.startswith(f"{bib}:6: error: kwon2023efficient: doi 'doi:10.1145/1' holds a "
                           "resolver prefix")
    assert "[refbook.doi-prefix]\n    hint: write doi = {10.1145/1}" in text
    assert text.rstrip().endswith("1 error(s), 0 warning(s), 0 info")

    assert main(["check", str(bib), "--format", "json"]) == 1
    (record,) = json.loads(capsys.readouterr().out)
    assert record == {"code": "refbook.doi-prefix", "severity": "error", "file": str(bib),
                      "line": 6, "key": "kwon2023efficient", "field": "doi",
                      "message": record["message"], "hint": "write doi = {10.1145/1} "
                      "(refbook check --fix does this)"}

    assert main(["check", str(bib), "--format", "github"]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"::error file={bib},line=6,title=refbook.doi-prefix::kwon2023efficient: doi ")
    assert "%0Ahint: write doi" in line


DOC_MD = """# Chapter

As shown by [@kwon2023efficient] and @Kwon2023efficient, see [@nosuch; @kwon2023efficient].

```python
x = "[@incode]"
```

Inline `@alsocode` is code. Email me at someone@example.org.
MyST: {cite:p}`kwon2023efficient,mystmissing`
"""
DOC_RST = """Title
=====

Text :cite:p:`kwon2023efficient,rstmissing` and :cite:t:`{see}kwon2023efficient{p. 3}`.

.. code-block:: rst

   :cite:p:`incode`
"""


def test_docs_unknown_case_and_unused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = _write(tmp_path, "r.bib", BIB)
    _write(tmp_path, "docs/ch1.md", DOC_MD)
    _write(tmp_path, "docs/sub/ch2.rst", DOC_RST)
    assert main(["check", str(bib), "--docs", str(tmp_path / "docs"), "--format", "json"]) == 1
    got = [(r["code"], Path(r["file"]).name, r["line"], r["key"])
           for r in json.loads(capsys.readouterr().out)]
    assert got == [
        ("refbook.cite-case", "ch1.md", 3, "Kwon2023efficient"),
        ("refbook.unknown-key", "ch1.md", 3, "nosuch"),
        ("refbook.unknown-key", "ch1.md", 10, "mystmissing"),
        ("refbook.unknown-key", "ch2.rst", 4, "rstmissing"),
        ("refbook.unused-entry", "r.bib", 8, "unused2020"),
    ]
    # as the MkDocs plugin resolves keys: the wrong-case key stands for its entry, a warning
    assert main(["check", str(bib), "--docs", str(tmp_path / "docs"), "--format", "json",
                 "--ignore-key-case"]) == 1
    folded = [(r["code"], r["severity"], r["line"], r["key"])
              for r in json.loads(capsys.readouterr().out)][:2]
    assert folded == [("refbook.key-case", "warning", 3, "Kwon2023efficient"),
                      ("refbook.unknown-key", "error", 3, "nosuch")]


@pytest.mark.parametrize("listing", [
    "<!-- refbook:bibliography all -->",
    "```{bibliography}\n:all:\n```",
    "```{bibliography}\n:notcited:\n```",
])
def test_a_list_of_every_entry_leaves_none_unused(tmp_path: Path, listing: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """As in the hosts: an entry a reference list shows is used even if nothing cites it."""
    bib = _write(tmp_path, "r.bib", BIB)
    _write(tmp_path, "docs/ch.md", "[@kwon2023efficient]\n")
    args = ["check", str(bib), "--docs", str(tmp_path / "docs"), "--format", "json"]
    assert main(args) == 0
    assert "unused-entry" in capsys.readouterr().out
    _write(tmp_path, "docs/refs.md", f"# References\n\n{listing}\n")
    assert main(args) == 0
    assert "unused-entry" not in capsys.readouterr().out


def test_positional_documents_are_scanned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = _write(tmp_path, "r.bib", BIB)
    doc = _write(tmp_path, "ch.md", "[@kwon2023efficient; @unused2020]\n")
    assert main(["check", str(bib), str(doc)]) == 0
    assert main(["check", "--docs", str(doc), str(bib)]) == 0
    assert capsys.readouterr().out == ""


FIXABLE = (
    "% a comment with https://https://example.org and pages 1-2 stays as it is\r\n"
    "@article{a,\r\n"
    "  doi   =  {https://doi.org/10.1118/1.3528204},\r\n"
    "  pages = {12-15},\r\n"
    "  month = {jan},\r\n"
    "  url = \"https://https://huggingface.co/x\",\r\n"
    "  howpublished = {\\url{https://https://hf.co/y}},\r\n"
    "  title = {Pages 3-4 in {GPU} Land},\r\n"
    "  volume = {12-15},\r\n"
    "}\r\n"
    "@misc{b, pages={7 - 9}, month=\"Feb\", doi={10.1/ok}}\n"
)
FIXED = (
    "% a comment with https://https://example.org and pages 1-2 stays as it is\r\n"
    "@article{a,\r\n"
    "  doi   =  {10.1118/1.3528204},\r\n"
    "  pages = {12--15},\r\n"
    "  month = jan,\r\n"
    "  url = \"https://huggingface.co/x\",\r\n"
    "  howpublished = {\\url{https://hf.co/y}},\r\n"
    "  title = {Pages 3-4 in {GPU} Land},\r\n"
    "  volume = {12-15},\r\n"
    "}\r\n"
    "@misc{b, pages={7--9}, month=feb, doi={10.1/ok}}\n"
)


def test_fix_rewrites_only_the_defects() -> None:
    text, changes = fix_text(FIXABLE)
    assert text == FIXED
    # Fields are found by the reader, so a one-line entry's fields are fixed too.
    assert [line for line, _ in changes] == [3, 4, 5, 6, 7, 11, 11]
    assert fix_text(FIXED) == (FIXED, [])


def test_fix_round_trip_on_the_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = (SEED / "references.raw.bib").read_bytes()
    p = tmp_path / "raw.bib"
    p.write_bytes(raw)
    main(["check", str(p), "--fix", "--format", "json"])
    out = capsys.readouterr()
    after = p.read_bytes()
    before_lines, after_lines = raw.split(b"\n"), after.split(b"\n")
    assert len(before_lines) == len(after_lines)
    changed = [i + 1 for i, (x, y) in enumerate(zip(before_lines, after_lines, strict=True)) if x != y]
    assert changed == [77, 981]
    assert after_lines[76] == b"  doi     = {10.1118/1.3528204}"
    assert b"\\url{https://huggingface.co/datasets/Open-Orca/OpenOrca}" in after_lines[980]
    assert "raw.bib:77: fixed: doi" in out.err
    codes = {r["code"] for r in json.loads(out.out)}
    assert "refbook.doi-prefix" not in codes
    assert "refbook.url-scheme-duplicated" not in codes
    # Nothing left to fix: the file is not touched again.
    main(["check", str(p), "--fix"])
    assert p.read_bytes() == after


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--list-rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    slugs = [r["code"] for r in rules]
    assert len(slugs) == len(set(slugs))
    assert {"refbook.duplicate-work", "refbook.unknown-key", "refbook.doi-prefix"} <= set(slugs)
    assert all(r["severity"] in ("error", "warning", "info") and r["description"] for r in rules)
    assert main(["check", "--list-rules"]) == 0
    assert "refbook.title-case" in capsys.readouterr().out


def test_committed_catalogue_page_is_generated() -> None:
    committed = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    assert committed == catalogue("markdown"), (
        "docs/validation.md is stale: run "
        "'refbook check --list-rules --format markdown > docs/validation.md'")


def test_seed_raw_fails_and_clean_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SEED / "references.raw.bib")]) == 1
    assert main(["check", str(SEED / "references.bib")]) == 0
    capsys.readouterr()


def test_options_from_pyproject(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    bib = _write(tmp_path, "r.bib", BIB.replace("{2023}", "{}").replace("Efficient Memory",
                                                                          "Efficient I/O Memory"))
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "pyproject.toml", '[tool.refbook.check]\nseverity = {"year-empty" = "info"}\n'
           'per_entry_ignore = {kwon2023efficient = ["titles"]}\nstrict = true\n')
    assert main(["check", str(bib), "--format", "json"]) == 0
    assert [r["code"] for r in json.loads(capsys.readouterr().out)] == ["refbook.year-empty"]
    assert main(["check", str(bib), "--select", "titles", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    other = _write(tmp_path, "other.toml", "[tool.refbook.check]\nselect = ['nope']\n")
    with pytest.raises(SystemExit) as exc:
        main(["check", str(bib), "--config", str(other)])
    assert exc.value.code == 2
    assert "'nope' is not a refbook diagnostic code" in capsys.readouterr().err


def test_pre_commit_hooks() -> None:
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["refbook-check", "refbook-fix"]
    for h in hooks:
        assert h["entry"].startswith("refbook check")
        assert h["language"] == "python"
        assert h["files"] == r"\.bib$"
