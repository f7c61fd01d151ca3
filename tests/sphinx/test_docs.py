"""The user documentation lists every configuration value with its default and description,
straight from the declaration (``sphinx_refbook.config.OPTIONS``)."""

from __future__ import annotations

from sphinx_refbook.config import OPTIONS
from tests.conftest import ROOT


def test_every_option_is_documented() -> None:
    doc = (ROOT / "docs" / "sphinx.md").read_text(encoding="utf-8")
    for opt in OPTIONS:
        default = repr(opt.default).replace("'", '"')
        row = f"| `refbook_{opt.name}` | `{default}` | {opt.doc}"
        assert row in doc, row
