"""Bad input: unknown keys, bad .bib files, strict modes, suppressed codes and unusable config."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from mkdocs.exceptions import Abort, PluginError

from tests.mkdocs.conftest import BIB, refbook_warnings

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

BAD_BIB = BIB + """
@article{lee2021,
  author = {Lee, Again},
  title = {Duplicate},
  year = {2022},
}

@article{broken,
  author = {X, Y
  title = {Oops},

@misc{after2001,
  title = {Still Read},
  year = {2001},
}
"""
DUP_LINE = BIB.count("\n") + 2
BROKEN_LINE = DUP_LINE + 7


def test_unknown_key_is_a_visible_marker_and_a_warning_with_file_and_line(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\nFine [@lee2021].\n\nBad [@nosuchkey] here.\n")
    project.build()
    page = project.html("index.html")
    assert ('<span class="refbook-unresolved" data-key="nosuchkey" '
            'title="unknown citation key: nosuchkey"><strong>nosuchkey?</strong></span>') in page
    assert refbook_warnings(refbook_log) == [
        ("docs/index.md:5: error: citation key 'nosuchkey' is not in any bibliography file "
        "[refbook.unknown-key]\n    hint: add an entry with this key to a .bib file, or fix the key"),
    ]
    # it is logged through MkDocs' plugin logger, with the plugin's prefix
    record = next(r for r in refbook_log.records if "nosuchkey" in r.getMessage())
    assert record.name == "mkdocs.plugins.refbook.mkdocs"


def test_unknown_key_hint_suggests_the_close_key(project: Project,
                                                 refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\n@Lee2021 and @smith2020c.\n")
    project.build()
    warnings = refbook_warnings(refbook_log)
    assert len(warnings) == 2
    assert "docs/index.md:3:" in warnings[0]
    # (other letter case: the MkDocs plugin resolves it, as mkdocs-bibtex did, and says so)
    assert "citation key 'Lee2021' stands for the entry 'lee2021'" in warnings[0]
    assert "[refbook.key-case]" in warnings[0]
    assert "did you mean 'smith2020b'?" in warnings[1]


def test_mkdocs_strict_fails_on_an_unknown_key(project: Project,
                                              refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\n[@nosuchkey]\n")
    with pytest.raises(Abort, match="warnings in strict mode"):
        project.build(strict=True)


def test_bib_problems_are_reported_at_their_line_and_other_entries_are_kept(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    (project.root / "refs.bib").write_text(BAD_BIB, encoding="utf-8")
    project.page("index.md", "# Home\n\n[@lee2021] and [@after2001].\n")
    project.build()
    warnings = refbook_warnings(refbook_log)
    assert [w.split(" error: ")[0] for w in warnings] == [
        f"refs.bib:{DUP_LINE}:", f"refs.bib:{BROKEN_LINE}:"]
    assert "[refbook.duplicate-key]" in warnings[0]
    assert "[refbook.syntax]" in warnings[1]
    assert "Still Read" in project.html("references/index.html")


def test_plugin_strict_fails_without_mkdocs_strict_and_lists_every_problem(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    (project.root / "refs.bib").write_text(BAD_BIB, encoding="utf-8")
    project.page("index.md", "# Home\n\n[@nosuchkey]\n\n[@otherbad]\n")
    project.configure({"strict": True})
    with pytest.raises(Abort):
        project.build()
    errors = [r.getMessage() for r in refbook_log.records if "refbook strict mode" in r.getMessage()]
    assert len(errors) == 1
    lines = [ln for ln in errors[0].splitlines() if ": error: " in ln]
    assert [ln.split(" error: ")[0] for ln in lines] == [
        f"refs.bib:{DUP_LINE}:", f"refs.bib:{BROKEN_LINE}:", "docs/index.md:3:", "docs/index.md:5:"]
    assert errors[0].startswith("refbook strict mode: 4 problem(s):")


def test_plugin_strict_passes_a_clean_book(project: Project,
                                          refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.configure({"strict": True})
    project.build(strict=True)
    assert refbook_warnings(refbook_log) == []


@pytest.mark.parametrize("suppress", [["unknown-key"], ["refbook.unknown-key"],
                                      ["refbook.unknown-key:nosuchkey"]])
def test_suppress_warnings(project: Project, refbook_log: pytest.LogCaptureFixture,
                           suppress: list[str]) -> None:
    project.page("index.md", "# Home\n\n[@nosuchkey]\n")
    project.configure({"suppress_warnings": suppress, "strict": True})
    project.build(strict=True)
    assert refbook_warnings(refbook_log) == []
    # still visible in the page
    assert "nosuchkey?" in project.html("index.html")


def test_suppress_one_key_keeps_the_others(project: Project,
                                          refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\n[@nosuchkey] [@otherbad]\n")
    project.configure({"suppress_warnings": ["unknown-key:nosuchkey"]})
    project.build()
    assert [w.split(" [")[0] for w in refbook_warnings(refbook_log)] == [
        "docs/index.md:3: error: citation key 'otherbad' is not in any bibliography file"]


def test_unknown_marker_scope_warns(project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n\n<!-- refbook:bibliography chapter -->\n")
    project.build()
    assert refbook_warnings(refbook_log) == [
        ("docs/index.md: unknown bibliography scope 'chapter' in '<!-- refbook:bibliography chapter -->'; "
        "use one of book, page, all")]


@pytest.mark.parametrize(("options", "message"), [
    ({"bib_files": []}, "the option 'bib_files' needs at least one .bib file"),
    ({"bib_files": ["missing.bib"]}, "'bib_files' names 'missing.bib', which is not a file"),
    ({"style": "harvard-ish"}, "'style' option: unknown style 'harvard-ish'; built-in styles: "),
    ({"style": "styles/none.csl"}, "'style' option: style "),
    ({"locale": "xx-YY"}, "'locale' option: locale 'xx-YY' is not a CSL locale"),
    ({"csl_file": "https://example.org/apa.csl"}, "'csl_file' is the URL"),
    ({"csl_file": "a.csl", "style": "numeric"}, "'style' ('numeric') and mkdocs-bibtex's "),
    ({"references_page": "../outside.md"}, "'references_page' must be a .md path inside docs_dir"),
    ({"references_page": "refs.html"}, "'references_page' must be a .md path inside docs_dir"),
    ({"suppress_warnings": ["no-such-code"]}, "'suppress_warnings' has 'no-such-code'"),
])
def test_unusable_config_is_a_plugin_error(project: Project, options: dict[str, object],
                                           message: str, refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n")
    project.configure(options)
    with pytest.raises(Abort, match="BuildError"):
        project.build()
    errors = [r for r in refbook_log.records if r.levelname == "ERROR"]
    assert [r.getMessage().startswith("refbook: " + message) for r in errors] == [True]


def test_plugin_error_is_raised_by_on_config(project: Project) -> None:
    from mkdocs.config import load_config

    project.configure({"style": "nope"})
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match="unknown style 'nope'"):
        cfg.plugins.on_config(cfg)


def test_wrong_option_type_is_rejected_by_mkdocs(project: Project,
                                                 refbook_log: pytest.LogCaptureFixture) -> None:
    from mkdocs.config import load_config

    project.configure({"strict": "yes please"})
    with pytest.raises(Abort, match="configuration error"):
        load_config(config_file=str(project.root / "mkdocs.yml"))
    assert any("Plugin 'refbook' option 'strict': Expected type: <class 'bool'>" in r.getMessage()
               for r in refbook_log.records)


BIB_PROBLEMS = {
    "syntax": ("@misc{a,\n  title = {T,\n  year = {2020},\n}\n\n@misc{b,\n  title = {U},\n}\n", 2),
    "duplicate-key": ("@misc{a,\n  title = {T},\n}\n\n@misc{a,\n  title = {U},\n}\n", 5),
    "duplicate-field": ("@misc{a,\n  title = {T},\n  title = {U},\n  year = {2020},\n}\n", 3),
    "undefined-string": ("@misc{a,\n  title = {T},\n  publisher = nosuchmacro,\n}\n", 3),
    "crossref-missing": ("@misc{a,\n  title = {T},\n  crossref = {nope},\n}\n", 3),
    "crossref-cycle": (("@misc{a,\n  title = {T},\n  crossref = {b},\n}\n\n"
                       "@misc{b,\n  title = {U},\n  crossref = {a},\n}\n"), 8),
}


@pytest.mark.parametrize("code", [*BIB_PROBLEMS, "encoding"])
def test_each_bib_diagnostic_fails_both_strict_modes(project: Project, code: str,
                                                     refbook_log: pytest.LogCaptureFixture) -> None:
    bib = project.root / "refs.bib"
    if code == "encoding":
        bib.write_bytes("@misc{a,\n  title = {Caf\xe9},\n}\n".encode("latin-1"))
        line = 2
    else:
        text, line = BIB_PROBLEMS[code]
        bib.write_text(text, encoding="utf-8")
    # the entry with a syntax error is skipped: cite the one after it
    project.page("index.md", "# Home\n\n[@b]\n" if code == "syntax" else "# Home\n\n[@a]\n")
    with pytest.raises(Abort, match="warnings in strict mode"):
        project.build(strict=True)
    assert [w.split(" error: ")[0] for w in refbook_warnings(refbook_log)] == [f"refs.bib:{line}:"]
    assert f"[refbook.{code}]" in refbook_warnings(refbook_log)[0]
    project.configure({"strict": True})
    with pytest.raises(Abort, match="BuildError"):
        project.build()


def test_the_mkdocs_command_line_fails_in_both_strict_modes(project: Project) -> None:
    import subprocess
    import sys

    project.page("index.md", "# Home\n\n[@nosuchkey]\n\n[@lee2021]\n\n[@otherbad]\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args], cwd=project.root,
                              capture_output=True, text=True, check=False, timeout=120)

    plain = run()
    assert plain.returncode == 0
    assert "WARNING -  refbook: docs/index.md:3: error: citation key 'nosuchkey'" in plain.stderr
    strict = run("--strict")
    assert strict.returncode == 1
    assert "Aborted with 2 warnings in strict mode!" in strict.stdout + strict.stderr
    project.configure({"strict": True})
    own = run()
    assert own.returncode == 1
    assert "refbook strict mode: 2 problem(s):" in own.stdout + own.stderr
    assert "docs/index.md:3: error: citation key 'nosuchkey'" in own.stderr
    assert "docs/index.md:7: error: citation key 'otherbad'" in own.stderr


def test_infos_beyond_twenty_a_code_are_counted_and_options_level_them(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    """A shared bibliography: 30 uncited entries give 20 info lines and one count (a build log
    stays readable); the ``check`` option turns them into warnings, each listed."""
    import logging

    extra = "".join(f"@misc{{spare{i},\n  title = {{Spare {i}}},\n  year = {{2001}},\n}}\n\n"
                    for i in range(30))
    (project.root / "refs.bib").write_text(BIB + "\n" + extra, encoding="utf-8")
    project.page("index.md", "# Home\n\n[@smith2020a; @smith2020b; @doe2019; @lee2021]\n"
                             "[@{odd.key:x/y}] [@uncited2017]\n")
    project.build()
    infos = [r.getMessage() for r in refbook_log.records
             if r.name == "mkdocs.plugins.refbook.mkdocs" and r.levelno == logging.INFO]
    listed = [m for m in infos if "[refbook.unused-entry]" in m]
    assert len(listed) == 20
    assert listed[0].startswith("refbook: refs.bib:")
    assert ": info: entry 'spare0' is never" in listed[0]
    assert any(m.startswith("refbook: 10 more refbook.unused-entry (info) not shown") for m in infos)
    assert refbook_warnings(refbook_log) == []
    refbook_log.clear()
    project.configure({"check": {"severity": {"unused-entry": "warning"},
                                 "per_entry_ignore": {"spare0": ["unused-entry"]}}})
    project.build()
    warned = refbook_warnings(refbook_log)
    assert len(warned) == 29
    assert all("[refbook.unused-entry]" in w for w in warned)
    assert not any("'spare0'" in w for w in warned)


@pytest.mark.parametrize(("check", "says"), [
    ({"severity": {"no-such-rule": "info"}}, "'no-such-rule' is not a refbook diagnostic code"),
    ({"severity": {"title-case": "loud"}}, "use error, warning, info or off"),
    ({"select": 3}, "select must be a list of code names"),
    ({"colour": "red"}, "unknown validation option"),
])
def test_a_bad_check_option_stops_the_build(project: Project, check: dict[str, object],
                                            says: str) -> None:
    from mkdocs.config import load_config

    project.configure({"check": check})
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=f"refbook: 'check' option: .*{says}"):
        cfg.plugins.on_config(cfg)


def test_check_options_come_from_pyproject_when_unset(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    (project.root / "pyproject.toml").write_text(
        '[tool.refbook.check]\nseverity = { unused-entry = "warning" }\n', encoding="utf-8")
    project.page("index.md", "# Home\n\n[@smith2020a]\n")
    project.build()
    assert sum("[refbook.unused-entry]" in w for w in refbook_warnings(refbook_log)) == 5
    (project.root / "pyproject.toml").write_text("[tool.refbook.check]\nselect = 3\n",
                                                 encoding="utf-8")
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=r"pyproject.toml \[tool.refbook.check\]: select must"):
        cfg.plugins.on_config(cfg)


@pytest.mark.parametrize("hook", [False, True])
def test_lines_count_the_front_matter(project: Project, refbook_log: pytest.LogCaptureFixture,
                                      hook: bool) -> None:
    """MkDocs strips a page's YAML front matter before plugins see it; diagnostics still name
    the line of the file — also when another plugin (a hook running first) changed the page."""
    project.page("index.md", "---\ntitle: Home\ntags: [a, b]\n---\n\n# Home\n\nSee [@nosuch2020].\n")
    config: dict[str, object] = {}
    if hook:
        (project.root / "hooks.py").write_text(
            "from mkdocs.plugins import event_priority\n\n\n@event_priority(100)\n"
            "def on_page_markdown(markdown, **kwargs):\n"
            "    return markdown + '\\n\\nAdded by a hook.\\n'\n", encoding="utf-8")
        config["hooks"] = ["hooks.py"]
    project.configure(**config)
    project.build()
    warned = refbook_warnings(refbook_log)
    assert [w.split(" error: ")[0] for w in warned] == ["docs/index.md:8:"]


DASHED = """
@article{dashes,
  author = {Doe, Jane},
  title = {Pages},
  journal = {J},
  year = {2020},
  pages = {1\u20102},
}
"""


def test_the_rules_about_the_styles_output_ask_about_printed_entries(
        project: Project, refbook_log: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A page range's dash is reported only for an entry the book prints: cited or listed (the
    result kept in the cache folder is one of the printed entries' set; the next build process,
    a citation added, checks the newly cited entry only)."""
    import mkdocs_refbook.plugin

    whole: list[object] = []
    real = mkdocs_refbook.plugin.check_bibliography

    def counted(*args: object, **kwargs: object) -> object:
        whole.append(kwargs.get("printed"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mkdocs_refbook.plugin, "check_bibliography", counted)
    (project.root / "refs.bib").write_text(BIB + DASHED, encoding="utf-8")
    line = (BIB + DASHED).count("\n") - 1
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.build()
    assert not any("pages-dash" in w for w in refbook_warnings(refbook_log))
    assert whole == [frozenset({"lee2021"})]
    refbook_log.clear()
    project.page("index.md", "# Home\n\n[@lee2021] and [@dashes].\n")
    project.build()
    assert len(whole) == 1  # refbook.validate.recheck_printed, from the cache folder's result
    dashes = [w for w in refbook_warnings(refbook_log) if "[refbook.pages-dash]" in w]
    assert len(dashes) == 1
    assert dashes[0].startswith(f"refs.bib:{line}: warning: dashes: pages '1\u20102' uses a")
    refbook_log.clear()
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("refs.md", "# References\n\n<!-- refbook:bibliography all -->\n")
    project.build()
    assert sum("[refbook.pages-dash]" in w for w in refbook_warnings(refbook_log)) == 1
