"""The official CSL processor test suite, run through the public API (``benchmarks/csl_suite.py``).

The fixtures are third-party data and are not kept in this repository. They are read from, in
this order: ``$REFBOOK_CSL_SUITE`` (a ``processor-tests/humans`` folder); the shared test data
(``shared/testdata/csl-test-suite/processor-tests/humans``); the copy that ``make test`` fetches at
install time (``tests/fetch_csl_suite.py``: Debian's source package of pandoc's CSL engine carries
the suite, pinned by version and digest, into ``.venv/csl-suite``). Each copy has its list of
expected failures: ``tests/data/csl_suite_expected_failures.txt`` for the suite's current
version, ``…debian-citeproc-0.6.txt`` for the fetched one (a ``SOURCE`` file beside ``humans``
says which copy it is). Every fixture not listed must pass, and every listed one must still fail:
a fixed feature is taken off the list, a regression shows at once. Under ``CI=true`` a missing
suite fails instead of skipping.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.csl_suite import run_suite
from tests.conftest import TESTDATA

DATA = Path(__file__).resolve().parents[1] / "data"
EXPECTED = DATA / "csl_suite_expected_failures.txt"
EXPECTED_DEBIAN = DATA / "csl_suite_expected_failures.debian-citeproc-0.6.txt"
FETCHED = Path(__file__).resolve().parents[2] / ".venv" / "csl-suite" / "humans"


def suite_dir() -> Path:
    env = os.environ.get("REFBOOK_CSL_SUITE")
    if env:
        return Path(env)
    shared = TESTDATA / "csl-test-suite" / "processor-tests" / "humans"
    return shared if shared.is_dir() or not FETCHED.is_dir() else FETCHED


def expected_list(folder: Path) -> Path:
    """the list that goes with this copy of the fixtures"""
    source = folder.parent / "SOURCE"
    if source.is_file() and "haskell-citeproc 0.6.0.1" in source.read_text(encoding="utf-8"):
        return EXPECTED_DEBIAN
    return EXPECTED


def expected_failures(listing: Path = EXPECTED) -> dict[str, str]:
    """fixture name -> our reason, from one committed list"""
    found: dict[str, str] = {}
    for line in listing.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            found[name] = reason.strip()
    return found


@pytest.mark.parametrize("listing", [EXPECTED, EXPECTED_DEBIAN], ids=lambda p: p.name)
def test_expected_failures_have_reasons(listing: Path) -> None:
    listed = expected_failures(listing)
    assert listed
    assert all(reason for reason in listed.values()), [k for k, v in listed.items() if not v]


def test_csl_suite() -> None:
    folder = suite_dir()
    if not folder.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI: the CSL test suite's fixtures are missing ({folder}); "
                        "`make test` fetches them (tests/fetch_csl_suite.py)")
        pytest.skip(f"the CSL test suite's fixtures are not here ({folder}): they must be added "
                    "to shared/testdata/csl-test-suite (the processor-tests/humans folder of "
                    "the CSL test suite's repository), fetched by tests/fetch_csl_suite.py "
                    "(`make test` runs it on Debian), or named by $REFBOOK_CSL_SUITE")
    outcomes = run_suite(folder)
    assert len(outcomes) > 800
    listing = expected_list(folder)
    listed = expected_failures(listing)
    failing = {o.name for o in outcomes if not o.passed}
    newly_failing = sorted(failing - set(listed))
    newly_passing = sorted(set(listed) - failing)
    assert not newly_failing, [
        (o.name, o.reason, o.expected, o.actual) for o in outcomes if o.name in newly_failing]
    assert not newly_passing, f"these pass now: take them off {listing.name}: {newly_passing}"


def test_citations_rows_are_read_as_citeproc_js_edits_a_document() -> None:
    """A CITATIONS row inserts its citation between the ones it lists before and after it (with
    their note numbers now); a row with an id seen before replaces that citation in place."""
    from benchmarks.csl_suite import citations_of

    rows = [
        [{"citationID": "C1", "citationItems": [{"id": "a"}], "properties": {"noteIndex": 1}},
         [], []],
        [{"citationID": "C2", "citationItems": [{"id": "b"}], "properties": {"noteIndex": 2}},
         [["C1", 1]], []],
        # inserted first: the others move one note on
        [{"citationID": "C3", "citationItems": [{"id": "c"}], "properties": {"noteIndex": 1}},
         [], [["C1", 2], ["C2", 3]]],
        # C1 edited in place
        [{"citationID": "C1", "citationItems": [{"id": "d"}], "properties": {"noteIndex": 2}},
         [["C3", 1]], [["C2", 3]]],
    ]
    got = citations_of({"CITATIONS": json.dumps(rows)})
    assert got is not None
    assert [([c.id for c in x.cites], x.note) for x in got] == [
        (["c"], 1), (["d"], 2), (["b"], 3)]


def test_a_fixture_without_citations_cites_every_item_in_bibliography_order(
        tmp_path: Path) -> None:
    from benchmarks.csl_suite import run_fixture

    csl = ('<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">'
           "<info><title>t</title><id>t</id><updated>2020-01-01T00:00:00+00:00</updated></info>"
           '<citation><layout delimiter="; "><text variable="title"/></layout></citation>'
           '<bibliography><sort><key variable="title"/></sort><layout>'
           '<text variable="title"/></layout></bibliography></style>')
    items = [{"id": "a", "type": "book", "title": "Zulu"},
             {"id": "b", "type": "book", "title": "Alpha"}]
    fixture = tmp_path / "sort_Fixture.txt"
    fixture.write_text(
        ">>===== MODE =====>>\ncitation\n<<===== MODE =====<<\n"
        ">>===== RESULT =====>>\nAlpha; Zulu\n<<===== RESULT =====<<\n"
        f">>===== CSL =====>>\n{csl}\n<<===== CSL =====<<\n"
        f">>===== INPUT =====>>\n{json.dumps(items)}\n<<===== INPUT =====<<\n",
        encoding="utf-8")
    outcome = run_fixture(fixture, tmp_path)
    assert outcome.passed, (outcome.reason, outcome.actual)
