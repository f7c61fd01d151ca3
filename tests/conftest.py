"""Shared test fixtures: where the shared data lives and how to run the pandoc oracle."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SEED = SHARED / "seed"
TESTDATA = SHARED / "testdata"


@pytest.fixture(scope="session")
def pandoc() -> str:
    import pypandoc

    return str(pypandoc.get_pandoc_path())


def pandoc_render(pandoc: str, markdown: str, bib: Path, *, to: str = "plain") -> str:
    """Run pandoc --citeproc with its built-in style on a Markdown string."""
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", to, "--wrap=none", "--citeproc", f"--bibliography={bib}"],
        input=markdown, capture_output=True, text=True, check=True, timeout=120,
    )
    return out.stdout


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
