"""The plugin's documentation is generated from its option declaration: keep them in sync."""

from __future__ import annotations

from mkdocs_refbook.options import OPTIONS, RefbookConfig, options_table
from tests.conftest import ROOT


def test_docs_show_the_generated_option_table() -> None:
    assert options_table() in (ROOT / "docs" / "mkdocs.md").read_text(encoding="utf-8")


def test_config_schema_is_generated_from_the_declaration() -> None:
    assert [name for name, _ in RefbookConfig._schema] == [o.name for o in OPTIONS]
