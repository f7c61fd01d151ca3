"""Bad input: unknown keys and bibliography problems, their exact warnings, suppression,
``-W``, strict mode, and configuration errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sphinx

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.sphinx.conftest import Built


def expected_warnings(src: Path) -> list[str]:
    return [
        (f"{src}/refs.bib:8: WARNING: duplicate key `knuth1984`: already defined on line 1; this "
         "entry is ignored (rename one of them, or delete this copy if it is the same work (the "
         f"first is at {src}/refs.bib:1)) [refbook.duplicate-key]"),
        (f"{src}/index.rst:6: WARNING: citation key 'knuht1984' is not in any bibliography file "
         "(did you mean 'knuth1984'? Otherwise add the entry to a .bib file.) [refbook.unknown-key]"),
        (f"{src}/index.rst:6: WARNING: citation key 'nosuchkey' is not in any bibliography file "
         "(add an entry with this key to a .bib file, or fix the key) [refbook.unknown-key]"),
    ]


def test_unknown_keys_marker_and_warnings(copy_root: Callable[[str], Path],
                                          build: Callable[..., Built]) -> None:
    src = copy_root("unknown")
    b = build(src, "text")
    assert b.warnings.splitlines() == expected_warnings(src)
    text = b.read("index.txt")
    assert "Bad (**knuht1984?**) and (**nosuchkey?**)." in text
    html = build(src, "html", freshenv=True).read("index.html")
    assert '<span class="refbook-unknown"><strong>knuht1984?</strong></span>' in html


def test_suppress_warnings_by_code(copy_root: Callable[[str], Path],
                                   build: Callable[..., Built]) -> None:
    src = copy_root("unknown")
    b = build(src, "text", confoverrides={"suppress_warnings": ["refbook.unknown-key"]})
    assert b.warnings.splitlines() == expected_warnings(src)[:1]


def test_warning_is_error_fails(copy_root: Callable[[str], Path], tmp_path: Path) -> None:
    from sphinx.cmd.build import build_main

    src = copy_root("unknown")
    # Sphinx >= 8.1 ends a -W build with 1; before, the first warning stops it with 2
    failed = 1 if sphinx.version_info >= (8, 1) else 2
    assert build_main(["-q", "-W", "-b", "text", str(src), str(tmp_path / "out")]) == failed
    clean = copy_root("roles")
    assert build_main(["-q", "-W", "-b", "text", str(clean), str(tmp_path / "out2")]) == 0


def test_strict_fails_the_command_line_build(copy_root: Callable[[str], Path],
                                             tmp_path: Path) -> None:
    from sphinx.cmd.build import build_main

    src = copy_root("unknown")
    args = ["-q", "-D", "refbook_strict=1", "-b", "text", str(src), str(tmp_path / "out")]
    assert build_main(args) == 1  # as a failed -W build


STRICT_END = ("refbook_strict = True and the book has {} problem(s), each listed above at its "
              "file:line: the build fails (fix them, silence a code with suppress_warnings or "
              "refbook_check, or set refbook_strict = False)")


def test_strict_lists_every_problem_without_w(copy_root: Callable[[str], Path],
                                              build: Callable[..., Built]) -> None:
    src = copy_root("unknown")
    b = build(src, "text", confoverrides={"refbook_strict": True})
    assert b.app.statuscode == 1
    assert b.warnings.splitlines() == [*expected_warnings(src),
                                       "ERROR: " + STRICT_END.format(3)]


def test_strict_passes_a_clean_book(copy_root: Callable[[str], Path],
                                    build: Callable[..., Built]) -> None:
    b = build(copy_root("roles"), "text", confoverrides={"refbook_strict": True})
    assert b.warnings == ""
    assert b.app.statuscode == 0


def test_strict_respects_suppress_warnings(copy_root: Callable[[str], Path],
                                           build: Callable[..., Built]) -> None:
    src = copy_root("unknown")
    b = build(src, "text", confoverrides={
        "refbook_strict": True, "suppress_warnings": ["refbook.unknown-key"]})
    assert b.app.statuscode == 1
    assert b.warnings.splitlines() == [expected_warnings(src)[0], "ERROR: " + STRICT_END.format(1)]


def test_role_syntax_error(copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    (src / "index.rst").write_text(
        "Roles\n=====\n\n.. toctree::\n\n   chapter\n   references\n\nBad :cite:p:`a b`.\n",
        encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == (f"{src}/index.rst:9: WARNING: malformed citation target list 'a b' "
                          "(expected ',' at 'b') [refbook.citation-syntax]\n")


@pytest.mark.parametrize(("line", "message"), [
    ("refbook_bibfiles = []", "refbook_bibfiles is empty: list the book's .bib files in conf.py"),
    ("refbook_style = 'nope'", ("refbook_style = 'nope': unknown style 'nope'; built-in "
                                "styles: chicago-author-date, numeric; the CSL styles "
                                "repository (")),
    ("refbook_locale = 'xx-YY'", "refbook_locale = 'xx-YY': locale 'xx-YY' is not a CSL locale"),
    ("refbook_style = 'missing.csl'", ("refbook_style = 'missing.csl': style 'missing.csl': "
                                       "there is no file ")),
    ("refbook_strict = 'yes'", "refbook_strict must be a bool, not str ('yes')"),
    ("bibtex_bibfiles = 'refs.bib'", "bibtex_bibfiles must be a list of .bib paths, not str"),
    ("refbook_check = {'severity': {'nosuchrule': 'info'}}",
     "refbook_check: 'nosuchrule' is not a refbook diagnostic code or family"),
    ("refbook_check = {'severity': {'title-case': 'loud'}}",
     "refbook_check: severity of 'title-case' is 'loud'; use error, warning, info or off"),
    ("refbook_check = {'colour': 'red'}", "refbook_check: unknown validation option(s): colour"),
    ("refbook_check = ['title-case']", "refbook_check must be a dict or NoneType, not list"),
    ("refbook_bibfiles = ['refs.bib', '']", ("refbook_bibfiles must hold file paths (strings or pathlib.Path), "
                                           "got ['']")),
])
def test_config_errors(copy_root: Callable[[str], Path], build: Callable[..., Built],
                       line: str, message: str) -> None:
    """Logged as errors at the line of conf.py (never raised), refbook idle, the build failed."""
    src = copy_root("roles")
    conf = src / "conf.py"
    lineno = conf.read_text(encoding="utf-8").count("\n") + 1
    with conf.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    b = build(src, "text")
    assert b.app.statuscode == 1
    assert b.warnings.startswith(f"{conf}:{lineno}: ERROR: {message}")
    assert b.warnings.endswith("ERROR: refbook: the configuration has 1 problem(s), listed above: "
                               "citations were left as written and the build fails\n")
    assert b.warnings.count("ERROR") == 2
    assert "Intro cites :cite:p:`knuth1984`." in b.read("index.txt")


def test_bibtex_bibfiles_alias(copy_root: Callable[[str], Path],
                               build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    conf = (src / "conf.py").read_text(encoding="utf-8").replace("refbook_bibfiles", "bibtex_bibfiles")
    (src / "conf.py").write_text(conf, encoding="utf-8")
    b = build(src, "text")
    assert b.warnings == ""
    # a project written for sphinxcontrib-bibtex keeps its look (pybtex's alpha labels) ...
    assert "[Knu84] Donald" in b.read("references.txt")
    # ... until it chooses a refbook style
    b = build(src, "text", freshenv=True,
              confoverrides={"refbook_style": "chicago-author-date"})
    assert b.warnings == ""
    assert "Knuth, Donald E. 1984." in b.read("references.txt")


def test_missing_bib_file(copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    b = build(src, "text", confoverrides={"refbook_bibfiles": ["refs.bib", "missing.bib"]})
    assert b.warnings == (f"WARNING: bibliography file not found: {src}/missing.bib (check "
                          "refbook_bibfiles in conf.py: paths are relative to the source folder "
                          f"{src}) [refbook.file]\n")


def test_validation_options_level_and_silence_codes(copy_root: Callable[[str], Path],
                                                    build: Callable[..., Built]) -> None:
    """The whole catalogue runs in the build, under refbook_check (or pyproject.toml next to
    conf.py): a warning of a .bib rule, raised to error, silenced per entry, or set to info."""
    src = copy_root("roles")
    bib = (src / "refs.bib").read_text(encoding="utf-8")
    # (an article: the default style prints no pages for @misc, so no dash would show)
    (src / "refs.bib").write_text(bib + "\n@article{dashes,\n  title = {Pages}, author = {Doe, Jane}, "
                                  "journal = {J},\n  year = {2020},\n"
                                  "  pages = {1\u20102},\n}\n", encoding="utf-8")  # a Unicode hyphen: printed as written
    line = bib.count("\n") + 5
    # not cited: the book prints nothing of the entry, so no dash of it shows
    b = build(src, "text")
    assert "pages-dash" not in b.warnings
    index = src / "index.rst"
    index.write_text(index.read_text(encoding="utf-8") + "\nDashes :cite:p:`dashes`.\n",
                     encoding="utf-8")
    b = build(src, "text", freshenv=True)
    assert f"refs.bib:{line}: WARNING: dashes: pages '1\u20102' uses a single dash" in b.warnings
    assert "[refbook.pages-dash]" in b.warnings
    assert "[refbook.unused-entry]" not in b.warnings  # info: not a warning
    b = build(src, "text", freshenv=True,
              confoverrides={"refbook_check": {"severity": {"pages-dash": "off"}}})
    assert "pages-dash" not in b.warnings
    (src / "pyproject.toml").write_text(
        '[tool.refbook.check]\nper_entry_ignore = { dashes = ["pages-dash"] }\n'
        'severity = { unused-entry = "warning" }\n', encoding="utf-8")
    b = build(src, "text", freshenv=True)
    assert "pages-dash" not in b.warnings
    index.write_text(index.read_text(encoding="utf-8").replace("Dashes :cite:p:`dashes`.", ""),
                     encoding="utf-8")
    b = build(src, "text", freshenv=True)
    assert "'dashes' is never cited nor listed in the book" in b.warnings


def test_many_infos_are_counted(copy_root: Callable[[str], Path],
                                build: Callable[..., Built]) -> None:
    """30 uncited entries: the build says 20 of them, then how many more (info level)."""
    src = copy_root("roles")
    extra = "".join(f"@misc{{spare{i},\n  title = {{Spare {i}}},\n  year = {{2001}},\n}}\n\n"
                    for i in range(30))
    with (src / "refs.bib").open("a", encoding="utf-8") as f:
        f.write("\n" + extra)
    b = build(src, "text")
    status = b.app.status.getvalue()
    assert status.count("[refbook.unused-entry]") == 20  # 19 entries and one line for the rest
    assert status.count(": info: entry 'spare") == 19
    more = re.search(r"info: (\d+) more entries of the bibliography are never cited", status)
    assert more is not None
    assert int(more.group(1)) >= 11
    assert "unused-entry" not in b.warnings


def test_incremental_builds_report_new_unused_entries_and_option_changes(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    """An entry that loses its last citation is reported by the next incremental build, and a
    change of the validation options re-levels problems found while reading (pages re-read)."""
    src = copy_root("roles")
    (src / "pyproject.toml").write_text(
        '[tool.refbook.check]\nseverity = { unused-entry = "warning" }\n', encoding="utf-8")
    with (src / "refs.bib").open("a", encoding="utf-8") as f:
        f.write("\n@misc{lonely,\n  title = {Cited Once},\n  year = {2001},\n}\n")
    index = src / "index.rst"
    original = index.read_text(encoding="utf-8")
    index.write_text(original + "\nAlso :cite:p:`lonely`.\n", encoding="utf-8")
    first = build(src, "text")
    assert "refbook" not in first.warnings
    index.write_text(original + "\nAlso :cite:p:`a b`.\n", encoding="utf-8")
    second = build(src, "text")
    assert "'lonely' is never cited nor listed in the book" in second.warnings
    assert "[refbook.citation-syntax]" in second.warnings
    # the malformed citation's level follows the options, without touching the page
    (src / "pyproject.toml").write_text(
        '[tool.refbook.check]\nseverity = { citation-syntax = "off", unused-entry = "off" }\n',
        encoding="utf-8")
    third = build(src, "text", confoverrides={"refbook_strict": True})
    assert "refbook" not in third.warnings
    (src / "pyproject.toml").write_text(
        '[tool.refbook.check]\nseverity = { unused-entry = "off" }\n', encoding="utf-8")
    fourth = build(src, "text", confoverrides={"refbook_strict": True})
    assert fourth.app.statuscode == 1
    assert re.search(r"index\.rst:\d+: WARNING: malformed citation", fourth.warnings)
    assert fourth.warnings.endswith("ERROR: " + STRICT_END.format(1) + "\n")
