"""The judged corpus (docs/design/validation-corpus.md): what ``refbook check`` reports on 14
real-world bibliographies of the shared test data, locked per code.

A change that adds diagnostics (a new false alarm) or drops some (a real defect missed) fails
here; after judging the new diagnostics by reading their entries, update the table in the doc
and these counts together (``benchmarks/validation_corpus.py --list`` prints each one).
"""

from __future__ import annotations

from collections import Counter

from benchmarks.validation_corpus import CORPUS, check_corpus
from refbook.diagnostics import Severity
from tests.conftest import SHARED

#: per code, after issue 12 (every one judged in docs/design/validation-corpus.md)
COUNTS = {
    "corporate-author": 18, "crossref-missing": 2, "doi-prefix": 17, "duplicate-key": 25,
    "duplicate-work": 55, "empty-field": 4, "field-type": 14, "isbn-invalid": 12,
    "issn-invalid": 1, "issue-field": 199, "journal-venue": 2, "missing-field": 102,
    "month-invalid": 7, "name-punctuation": 23, "organisation-variants": 8, "shared-url": 2,
    "syntax": 37, "title-case": 8, "title-lost-case": 16, "title-medium": 2, "title-nbsp": 3,
    "title-quotes": 22, "undefined-macro": 8, "undefined-string": 1, "unknown-field": 83,
    "unknown-type": 65, "url-in-field": 18, "url-multiple": 3, "url-scheme-duplicated": 1,
    "url-space": 1, "volume-invalid": 2, "year-before-arxiv": 1, "year-empty": 12,
    "year-in-title": 3, "year-invalid": 1, "year-range": 1,
}
#: the codes that report errors on the corpus: every one judged real (no false error)
ERRORS = {"crossref-missing", "doi-prefix", "duplicate-key", "syntax", "undefined-string",
          "url-multiple", "url-scheme-duplicated", "url-space", "year-invalid"}


def test_corpus_counts_per_code() -> None:
    assert len(CORPUS) >= 10
    found = check_corpus(SHARED)
    counts = Counter(d.code.slug for diags in found.values() for d in diags)
    assert dict(sorted(counts.items())) == COUNTS
    errors = {d.code.slug for diags in found.values() for d in diags
              if d.effective_severity is Severity.ERROR}
    assert errors == ERRORS
