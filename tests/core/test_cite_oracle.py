"""Evidence: ``refbook cite`` equals pandoc's rendering for a table of citations.

Each citation is rendered on its own, by pandoc (``--citeproc``, built-in Chicago author-date,
the seed's raw bibliography) and by ``refbook cite``, so both disambiguate over the same items.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from refbook.cli import main
from tests.conftest import SEED, pandoc_render, paragraphs

BIB = SEED / "references.raw.bib"

CITATIONS = [
    # parenthetical, one key: one, two, three and many authors; corporate; lower-case name
    "[@breiman2001random]",
    "[@lin2004rouge]",
    "[@angwin2016machine]",
    "[@adebayo2018sanity]",
    "[@kwon2023efficient]",
    "[@amd2021cdna2]",
    "[@ashworks17062023rlhf]",
    "[@googlecloudreinforcement]",
    # narrative, with and without a locator
    "@breiman2001random",
    "@kwon2023efficient",
    "@andersch2022hopper",
    "@kwon2023efficient [p. 4]",
    "@young1974first [chap. 2]",
    # suppress author
    "[-@breiman2001random]",
    "[-@kwon2023efficient, p. 12]",
    # prefix, locator, suffix
    "[see @breiman2001random]",
    "[see @breiman2001random, p. 45]",
    "[@breiman2001random, 45]",
    "[@breiman2001random, pp. 33-35]",
    "[@breiman2001random, chap. 3]",
    "[@breiman2001random, sec. 2.1]",
    "[@breiman2001random, fig. 4]",
    "[see @breiman2001random, pp. 33-35, and elsewhere]",
    "[@breiman2001random, and elsewhere]",
    "[e.g., @breiman2001random; @friedman2001greedy]",
    # clusters
    "[@kwon2023efficient; @breiman2001random]",
    "[@breiman2001random; @lin2004rouge; @papineni2002bleu]",
    "[see @kwon2023efficient, sec. 2; also @breiman2001random, chap. 3]",
    # same author(s), same year: names added, given names, year suffixes, collapsing
    "[@grattafiori2024llama; @grattafiori2024llamab]",
    "[@grattafiori2024llamab; @grattafiori2024llamac]",
    "[@kwon2023efficient; @kwon2023efficientb]",
    "[@rajbhandari2021zero; @rajbhandari2021zerob]",
    "[@rajbhandari2021zero; @rajbhandari2021zerob; @rajbhandari2020zero]",
    "[@dettmers2021bitsandbytes; @dettmers2021optimizers]",
    "[@chowdhery2022palm; @chowdhery2023palm]",
    "[@liang2023holistic; @liang2023holisticb]",
    "[@nvidiacorp2025rtxpro6000; @nvidiacorp2025rtxpro6000server; @nvidiacorp2025dgxb200]",
    "[@pytorch2023fsdp; @pytorch2023dcp, p. 2]",
    "[-@dettmers2021bitsandbytes; -@dettmers2021optimizers]",
    # undated (no year field) and braced keys
    "[@googlecloudreinforcement; @lightlyreinforcement]",
    "[@{breiman2001random}]",
]


def _pandoc(pandoc: str, citation: str) -> str:
    return paragraphs(pandoc_render(pandoc, citation + "\n", BIB))[0]


def test_table_is_large_enough() -> None:
    assert len(CITATIONS) >= 30


def test_cite_matches_pandoc(pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs = list(pool.map(lambda c: _pandoc(pandoc, c), CITATIONS))
    mismatches = []
    for citation, want in zip(CITATIONS, theirs, strict=True):
        assert main(["cite", str(BIB), citation]) == 0
        got = " ".join(capsys.readouterr().out.split())
        if got != want:
            mismatches.append((citation, want, got))
    with capsys.disabled():
        print(f"\n{len(CITATIONS) - len(mismatches)}/{len(CITATIONS)} citations identical to pandoc")
        for c, w, g in mismatches:
            print(f"  {c}\n    pandoc: {w}\n    ours:   {g}")
    assert mismatches == []
