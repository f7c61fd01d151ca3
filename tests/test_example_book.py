"""The example book: every entry of its bibliography is cited, every citation resolves, and the
whole book formats book-wide without a diagnostic (what both hosts will build)."""

from __future__ import annotations

import re
from pathlib import Path

from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.syntax import find_citations
from tests.conftest import ROOT, SEED

BOOK = ROOT / "example_book"
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def _blank(m: re.Match[str]) -> str:
    # keep line numbers: replace code by spaces/newlines of the same shape
    return re.sub(r"[^\n]", " ", m.group(0))


def prose(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return CODE_SPAN.sub(_blank, FENCE.sub(_blank, text))


def pages() -> list[Path]:
    return sorted((BOOK / "docs").glob("*.md"))


def test_book_bibliography_is_the_seed() -> None:
    assert (BOOK / "references.bib").read_bytes() == (SEED / "references.bib").read_bytes()


def test_every_entry_cited_and_every_citation_resolves() -> None:
    bib = read_bibliography([BOOK / "references.bib"])
    assert bib.diagnostics == ()
    assert len(bib) == 253
    registry = Registry()
    for page in pages():
        registry.set_document(page.name, find_citations(prose(page)))
    assert len(pages()) >= 7
    items = items_for(bib)
    res = registry.resolve(bib, items, "chicago-author-date", order=[p.name for p in pages()])
    assert res.diagnostics == ()
    assert set(registry.cited_keys()) == set(bib.keys())
    assert len(res.entries) == 253
    for key, text in res.citations.items():
        # an unresolved key would render as "key?"
        assert not re.search(r"\w\?[);,]", to_text(text)), key
    # back-links: every entry has at least one citing place
    assert all(res.backlinks[e.key] for e in bib)


def test_at_signs_in_code_are_not_citations() -> None:
    raw = "\n".join(p.read_text(encoding="utf-8") for p in pages())
    assert "`@torch" in raw or "user@" in raw
    for page in pages():
        for c in find_citations(prose(page)):
            assert "torch" not in c.keys
            assert "host" not in c.keys
