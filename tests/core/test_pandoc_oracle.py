"""Evidence: our default style against pandoc's own citeproc (pandoc 3.9, built-in style).

For each bibliography, pandoc renders every entry (``nocite: '@*'``) and so do we; the share of
identical entries is printed with every difference, and must be at least 90%.
"""

from __future__ import annotations

import pytest

from refbook.cli import main
from tests.conftest import SEED, TESTDATA, pandoc_render, paragraphs

FILES = [
    SEED / "references.bib",
    TESTDATA / "biblatex" / "biblatex-examples.bib",
    TESTDATA / "texlive" / "xampl.bib",
]


@pytest.mark.parametrize("bib", FILES, ids=lambda p: p.name)
def test_bibliography_matches_pandoc(bib, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    theirs = paragraphs(pandoc_render(pandoc, "---\nnocite: '@*'\n---\n", bib))
    assert main(["render", str(bib), "--format", "text"]) == 0
    out = capsys.readouterr()
    ours = paragraphs(out.out)
    theirs_set = set(theirs)
    identical = sum(1 for p in ours if p in theirs_set)
    share = identical / max(len(theirs), 1)
    with capsys.disabled():
        print(f"\n{bib.name}: {identical}/{len(theirs)} identical ({share:.1%}); ours has {len(ours)}")
        ours_set = set(ours)
        for p in theirs:
            if p not in ours_set:
                print(f"  pandoc only: {p}")
        for p in ours:
            if p not in theirs_set:
                print(f"  ours only:   {p}")
    assert len(ours) == len(theirs)
    assert share >= 0.90
    # same order too, where identical
    common = [p for p in theirs if p in set(ours)]
    assert [p for p in ours if p in theirs_set] == common
