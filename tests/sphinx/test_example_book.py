"""The example book builds with ``sphinx-build -W`` (and refbook_strict) without a warning, and
its References list every cited entry of the book in Chicago author-date."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sphinx.cmd.build import build_main

from tests.conftest import ROOT

if TYPE_CHECKING:
    from pathlib import Path

BOOK = ROOT / "example_book"


def test_example_book_builds_warning_free(tmp_path: Path, capsys: object) -> None:
    out = tmp_path / "html"
    code = build_main(["-W", "-q", "-j", "2", "-c", str(BOOK), str(BOOK / "docs"), str(out),
                       "-d", str(tmp_path / "doctrees")])
    captured = capsys.readouterr()  # type: ignore[attr-defined]
    assert code == 0, captured.err
    assert captured.err == ""
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="csl-entry refbook-entry"' not in index
    # the list sits where the page's marker is (the same marker the MkDocs build uses)
    refs = (out / "references.html").read_text(encoding="utf-8")
    assert refs.count('class="csl-entry refbook-entry"') == 253
    assert "Bekman, Stas. 2023–2026. <em>Machine Learning Engineering Open Book</em>" in refs
    pages = sorted(out.glob("0*.html"))
    assert len(pages) == 8
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "refbook-unknown" not in html
        assert re.search(r'href="references.html#ref-[^"]+" title="[^"]+"', html), page.name
    hardware = (out / "02-distributed-training.html").read_text(encoding="utf-8")
    assert "(e.g., " in hardware
    assert "[@" not in hardware.replace("&#64;", "@").split("<pre>")[0]
