"""Back-references in sphinxcontrib-bibtex's look: a citation list's label links back to the
page's own citations of the entry, as docutils writes them for sphinxcontrib-bibtex
(``role="doc-backlink"``: the label itself for one, "(1,2)" for several); refbook's "Cited in"
back-links name only the other pages' sections. Both extensions build the same project and
the back-references are compared."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tests.sphinx.test_bibtex_look import project

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

PAGES = {
    "index.rst": """\
Book
====

.. toctree::

   other

First :cite:p:`knuth1984,lamport1994` and again :cite:t:`lamport1994`; once more
:cite:p:`lamport1994,kim2021`.

.. bibliography::
""",
    "other.rst": "Other\n=====\n\nElsewhere :cite:p:`kim2021`.\n",
}

_CITATION = re.compile(r'<div class="citation" id="(?P<id>[^"]+)"[^>]*>(?P<body>.*?)</div>', re.S)
_BACK = re.compile(r'role="doc-backlink" href="#([^"]+)"')


def _backrefs(page: str) -> dict[str, list[str]]:
    """Per entry (its label), the ids its back-references point to, each checked to be the
    id of a citation on the page."""
    out = {}
    for m in _CITATION.finditer(page):
        head = m.group("body")[:m.group("body").find("<p>")]
        label = re.search(r"\[([^\]]*)\]", re.sub(r"<[^>]+>", "", head))
        assert label is not None
        targets = _BACK.findall(head)
        for t in targets:
            assert re.search(rf'<span class="bibtex-citation" id="{re.escape(t)}">', page), t
        out[label.group(1)] = [f"#{i}" for i, _ in enumerate(targets)]
    return out


def test_labels_link_back_as_in_sphinxcontrib_bibtex(
        tmp_path: Path, build: Callable[..., Built]) -> None:
    theirs = build(project(tmp_path, "sphinxcontrib.bibtex", "", PAGES), "html")
    ours = build(project(tmp_path, "sphinx_refbook", "", PAGES), "html")
    assert ours.warnings == ""
    mine = ours.read("index.html")
    # knuth1984 once (the label links back), lamport1994 three times ("(1,2,3)"), kim2021 once
    # here (and once on the other page, which docutils' back-references do not reach)
    assert _backrefs(mine) == _backrefs(theirs.read("index.html")) == {
        "Knu84": ["#0"], "Lam94": ["#0", "#1", "#2"], "KLP21": ["#0"]}
    # refbook's back-links name the other page only
    text = " ".join(re.sub(r"<[^>]+>", "", mine).split())
    assert text.count("Cited in:") == 1
    assert "Cited in: Other." in text
    assert 'href="other.html#cite-other-0"' in mine
