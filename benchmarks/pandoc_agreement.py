"""Benchmark: how many entries of real bibliographies our default style renders as pandoc does.

Where it sits: outside the flow; it backs the agreement numbers of issue 14 and the per-file
floors locked in ``tests/core/test_pandoc_oracle.py``. For each file, pandoc 3.9 (through
pypandoc) renders every entry with its built-in style (``nocite: '@*'``, plain text) and so does
``refbook render --format text``; the script prints identical/total per file and overall.

Run ``.venv/bin/python benchmarks/pandoc_agreement.py [--diff] [FILE ...]``; without files it
uses :data:`CORPUS` (read from ``$REFBOOK_SHARED`` or ``shared/`` beside the checkout, as the
tests do). ``--diff`` prints every paragraph only one side has.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from refbook.cli import main as refbook_main
from tests.conftest import SEED, TESTDATA

#: The corpus: real files nobody here wrote (sources and licences in testdata/SOURCES.md), plus
#: the example book's own bibliography.
CORPUS: tuple[Path, ...] = (
    SEED / "references.bib",
    TESTDATA / "biblatex" / "biblatex-examples.bib",
    TESTDATA / "texlive" / "xampl.bib",
    TESTDATA / "jabref" / "jabref-authors.bib",
    TESTDATA / "jabref" / "testjabref.bib",
    TESTDATA / "jabref" / "complex.bib",
    TESTDATA / "jabref" / "Chocolate.bib",
    TESTDATA / "jabref" / "twente.bib",
    TESTDATA / "jabref" / "crossref.bib",
    TESTDATA / "jabref" / "biblatex-software.bib",
    TESTDATA / "zotero-better-bibtex" / "export" / "Better BibTeX does not export collections #901.bibtex",
    TESTDATA / "zotero-better-bibtex" / "import" / "Math markup to unicode not always imported correctly #472.bib",
    TESTDATA / "biber" / "names.bib",
    TESTDATA / "biber" / "dateformats.bib",
    TESTDATA / "bibtex-tidy" / "others" / "example.bib",
    TESTDATA / "bibtex-tidy" / "others" / "orcid-russian-citations.bib",
)  # fmt: skip


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def pandoc_paragraphs(bib: Path) -> list[str]:
    import pypandoc

    pandoc = str(pypandoc.get_pandoc_path())
    # pandoc reads a ``.bibtex`` file as BibTeX, anything else as BibLaTeX, as we do.
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}"],
        input="---\nnocite: '@*'\n---\n", capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    return paragraphs(out.stdout)


def our_paragraphs(bib: Path) -> list[str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        refbook_main(["render", str(bib), "--format", "text"])
    return paragraphs(buf.getvalue())


def compare(bib: Path) -> tuple[int, int, list[str], list[str]]:
    """(identical, pandoc's total, pandoc-only paragraphs, ours-only paragraphs)."""
    theirs = pandoc_paragraphs(bib)
    ours = our_paragraphs(bib)
    theirs_set, ours_set = set(theirs), set(ours)
    identical = sum(1 for p in ours if p in theirs_set)
    return (
        identical,
        len(theirs),
        [p for p in theirs if p not in ours_set],
        [p for p in ours if p not in theirs_set],
    )


def run(files: list[Path], *, diff: bool) -> None:
    total_same = total = 0
    for bib in files:
        try:
            same, n, only_theirs, only_ours = compare(bib)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
            print(f"  pandoc fails on {bib.name} ({type(err).__name__})", flush=True)
            continue
        total_same += same
        total += n
        share = same / n if n else 1.0
        print(f"{same:5d}/{n:<5d} {share:7.2%}  {bib.relative_to(bib.parents[1])}", flush=True)
        if diff:
            for p in only_theirs:
                print(f"    pandoc: {p}")
            for p in only_ours:
                print(f"    ours:   {p}")
    print(f"{total_same:5d}/{total:<5d} {total_same / max(total, 1):7.2%}  overall")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--diff", action="store_true", help="print the differing paragraphs")
    args = parser.parse_args()
    run(args.files or list(CORPUS), diff=args.diff)


if __name__ == "__main__":
    cli()
