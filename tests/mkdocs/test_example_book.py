"""The example book built by MkDocs: strict, zero warnings, and the same citation texts and list
as the core computes from the same pages (what the Sphinx build must match too)."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import yaml

from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.syntax import find_citations
from tests.mkdocs.test_build import cites, entries
from tests.test_example_book import BOOK, prose

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_example_book_builds_strict_with_zero_warnings(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    caplog.set_level(logging.INFO, logger="mkdocs")
    site = tmp_path / "site"
    cfg = load_config(config_file=str(BOOK / "mkdocs.yml"), site_dir=str(site), strict=True)
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)
    cfg.plugins.on_shutdown()
    said = [r for r in caplog.records if r.levelno >= logging.INFO
            and "Building documentation" not in r.getMessage()
            and "Documentation built" not in r.getMessage()
            and "Cleaning site" not in r.getMessage()]
    # example_book/pyproject.toml turns title-case off (Chicago keeps title case) and ignores
    # one name for its entry: the build says nothing
    assert [r.getMessage() for r in said] == []

    nav = yaml.safe_load((BOOK / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    bib = read_bibliography([BOOK / "references.bib"])
    registry = Registry()
    for name in nav:
        registry.set_document(name, find_citations(prose(BOOK / "docs" / name)))
    res = registry.resolve(bib, items_for(bib), "chicago-author-date", order=nav)

    for name in nav:
        out = "index.html" if name == "index.md" else name.removesuffix(".md") + "/index.html"
        page = (site / out).read_text(encoding="utf-8")
        expected = [to_text(res.citations[(name, i)])
                    for i in range(len(find_citations(prose(BOOK / "docs" / name))))]
        assert cites(page) == expected, name
        assert "refbook-unresolved" not in page
    refs = (site / "references" / "index.html").read_text(encoding="utf-8")
    assert entries(refs) == [k for k, _ in res.entries]
    assert len(entries(refs)) == 253
    texts = [re.sub(r"<[^>]+>", "", m) for m in
             re.findall(r'<p class="csl-entry refbook-entry"[^>]*>(.*?)(?: <span class="refbook-backlinks">|</p>)',
                        refs, re.S)]
    import html

    assert [html.unescape(t) for t in texts] == [to_text(ir) for _, ir in res.entries]
    # every entry links back to at least one citing place
    assert refs.count('<span class="refbook-backlinks">') == 253
