"""Evidence: what ``refbook check`` reports on a corpus of real-world bibliographies.

Where it sits: outside the flow; it backs the judged table in ``docs/design/validation-corpus.md``
(every diagnostic read against its entry: real, debatable or false) and the counts that
``tests/core/test_validation_corpus.py`` locks. The corpus is shared test data (never copied
into the repository): ``$REFBOOK_SHARED/testdata`` (sources and licences in its ``SOURCES.md``)
and the example book's raw bibliography ``$REFBOOK_SHARED/seed/references.raw.bib``.

Run ``.venv/bin/python benchmarks/validation_corpus.py [--shared DIR] [--list] [--style NAME]``:
it checks each file alone, as ``refbook check FILE`` does (default configuration), and prints
the count per code and per file; ``--list`` prints every diagnostic too.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from refbook.config import Config
from refbook.diagnostics import Diagnostic
from refbook.readers import read_bibliography
from refbook.validate import check_bibliography

#: (path under the shared folder, what the file is). Real bibliographies, not checker fixtures
#: that are broken on purpose: tool exports, a shared group's file, canonical example databases.
CORPUS: tuple[tuple[str, str], ...] = (
    ("testdata/biblatex/biblatex-examples.bib", "biblatex's example database (crossref, xdata)"),
    ("testdata/texlive/xampl.bib", "BibTeX's canonical example database (@string, crossref)"),
    ("testdata/jabref/jabref-authors.bib", "JabRef's authors' publications (JabRef export)"),
    ("testdata/jabref/testjabref.bib", "a JabRef user library (JabRef test resource)"),
    ("testdata/jabref/complex.bib", "a JabRef library with groups and custom fields"),
    ("testdata/jabref/Chocolate.bib", "JabRef's demo library"),
    ("testdata/jabref/twente.bib", "a university group's entries (JabRef test resource)"),
    ("testdata/jabref/biblatex-software.bib", "biblatex-software entries (software, swhid)"),
    ("testdata/bibtex-tidy/others/example.bib", "a mixed real-world file (bibtex-tidy's example)"),
    ("testdata/bibtex-tidy/others/orcid-russian-citations.bib", "ORCID export, Cyrillic"),
    ("testdata/bibtex-tidy/others/orcid-jan_month.bib", "ORCID export"),
    ("testdata/zotero-better-bibtex/import/web_page and other mendeley idiocy.bib",
     "a Mendeley export (468 kB, Zotero Better BibTeX import fixture)"),
    ("testdata/zotero-better-bibtex/export/Better BibTeX does not export collections #901.bibtex",
     "a Better BibTeX export"),
    ("seed/references.raw.bib", "the example book's raw bibliography (Google Scholar, websites)"),
)


def shared_folder() -> Path:
    """``$REFBOOK_SHARED``, else ``shared/`` beside the checkout (as the tests find it)."""
    env = os.environ.get("REFBOOK_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def check_corpus(shared: Path, config: Config | None = None,
                 ) -> dict[str, list[Diagnostic]]:
    """Each corpus file's diagnostics (the file checked alone), by its path under ``shared``."""
    return {name: check_bibliography(read_bibliography([shared / name]), config or Config())
            for name, _ in CORPUS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=None, help="the shared data folder")
    parser.add_argument("--style", default="", help="the style the rules ask (default: default)")
    parser.add_argument("--list", action="store_true", help="print every diagnostic")
    args = parser.parse_args(argv)
    shared = args.shared or shared_folder()
    found = check_corpus(shared, Config(style=args.style))
    codes: Counter[tuple[str, str]] = Counter()
    for name, diags in found.items():
        print(f"{len(diags):5d}  {name}")
        for d in diags:
            codes[(d.code.slug, d.effective_severity.value)] += 1
            if args.list:
                print("       " + d.format().replace("\n", "\n       "))
    print()
    for (slug, severity), n in sorted(codes.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:5d}  {slug} ({severity})")
    print(f"{sum(codes.values()):5d}  in all, {len(CORPUS)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
