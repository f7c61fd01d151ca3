"""Validation configuration: select/ignore like ruff, severities, per-entry suppression."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refbook.config import Config, ConfigError, expand_selector
from refbook.diagnostics import Code, Severity
from refbook.readers import read_bibliography
from refbook.validate import validate

if TYPE_CHECKING:
    from pathlib import Path

BIB = """@article{a,
  author = {Kwon, Woosuk},
  title = {Serving on I/O},
  journal = {J},
  year = {2023},
  pages = {12‐15},
  doi = {https://doi.org/10.1145/3600006.3613165},
}

@article{b,
  author = {Li, Zhuohan},
  title = {Other Q&A},
  journal = {J},
  year = {2023},
  refbook-ignore = {title-case, pages-dash},
  pages = {1‐2},
}
"""


def _codes(tmp_path: Path, config: Config) -> list[tuple[str, str, Severity]]:
    p = tmp_path / "r.bib"
    p.write_text(BIB, encoding="utf-8")
    bib = read_bibliography([p])
    return [(d.key, d.code.slug, d.effective_severity) for d in validate(bib, config)]


def test_default_reports_everything_but_the_entrys_own_ignores(tmp_path: Path) -> None:
    assert _codes(tmp_path, Config()) == [
        ("a", "title-case", Severity.WARNING), ("a", "pages-dash", Severity.WARNING),
        ("a", "doi-prefix", Severity.ERROR)]


def test_select_and_ignore_by_code_family_or_qualified_name(tmp_path: Path) -> None:
    assert [c for _, c, _ in _codes(tmp_path, Config(select=("identifiers",)))] == ["doi-prefix"]
    assert [c for _, c, _ in _codes(tmp_path, Config(select=("ALL",),
                                                      ignore=("refbook.doi-prefix", "values")))] \
        == ["title-case"]


def test_severity_override_and_off(tmp_path: Path) -> None:
    got = _codes(tmp_path, Config(severity=(("titles", "info"), ("doi-prefix", "off"))))
    assert got == [("a", "title-case", Severity.INFO), ("a", "pages-dash", Severity.WARNING)]


def test_per_entry_ignore_from_config(tmp_path: Path) -> None:
    got = _codes(tmp_path, Config(per_entry_ignore=(("a", ("identifiers", "title-case")),)))
    assert got == [("a", "pages-dash", Severity.WARNING)]


def test_from_mapping_accepts_host_shapes() -> None:
    c = Config.from_mapping({"select": "identifiers, values", "ignore": ["pages-dash"],
                             "severity": {"title-case": "INFO"}, "strict": True,
                             "per_entry_ignore": {"a": "doi-prefix"},
                             "extra_fields": ["Mendeley-Tags2"]})
    assert c.select == ("identifiers", "values")
    assert c.severity == (("title-case", "info"),)
    assert c.per_entry_ignore == (("a", ("doi-prefix",)),)
    assert c.extra_fields == ("mendeley-tags2",)
    assert c.strict
    assert not c.enabled(Code.PAGES_DASH)
    assert c.enabled(Code.DOI_PREFIX)


@pytest.mark.parametrize("options", [
    {"select": "nope"}, {"severity": {"title-case": "loud"}}, {"sellect": "ALL"},
    {"per_entry_ignore": {"a": "x"}},
    # shapes YAML and TOML produce by mistake: never a traceback, always a ConfigError
    {"per_entry_ignore": {"a": None}}, {"per_entry_ignore": {"a": 5}},
    {"per_entry_ignore": {"a": [1]}}, {"per_entry_ignore": ["a"]}, {"severity": ["off"]},
    {"select": 3}, {"ignore": [None]}, {"strict": "no"},
])
def test_bad_options_fail_loudly(options: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Config.from_mapping(options)


def test_selectors() -> None:
    assert expand_selector("refbook.doi-prefix") == {Code.DOI_PREFIX}
    assert Code.UNKNOWN_KEY in expand_selector("citations")
    assert expand_selector("all") == frozenset(Code)


def test_bad_refbook_ignore_value_is_reported(tmp_path: Path) -> None:
    p = tmp_path / "r.bib"
    p.write_text("@misc{a,\n  title = {A},\n  refbook-ignore = {titel-case},\n}\n", encoding="utf-8")
    (d,) = validate(read_bibliography([p]))
    assert d.code is Code.UNKNOWN_FIELD
    assert d.location is not None
    assert d.location.line == 3
    assert "'titel-case'" in d.message


def test_yaml_off_is_off() -> None:
    """``severity: {unused-entry: off}`` in mkdocs.yml arrives as False (YAML 1.1)."""
    assert not Config.from_mapping({"severity": {"unused-entry": False}}).enabled(Code.UNUSED_ENTRY)


@pytest.mark.parametrize("text", ['tool = {refbook = "x"}', "[tool.refbook]\ncheck = 3",
                                  "tool = 1", "not toml ["])
def test_odd_pyproject_tables_are_config_errors(tmp_path: Path, text: str) -> None:
    from refbook.config import host_config

    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pyproject\.toml"):
        host_config(None, tmp_path)
