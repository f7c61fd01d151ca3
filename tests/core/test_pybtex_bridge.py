"""refbook.styles.pybtex_bridge: pybtex's styles over refbook's parsed entries give what pybtex
gives over its own parse of the same files (run live over the shared real-world .bib files),
and never raise."""

from __future__ import annotations

from pathlib import Path

import pybtex.errors
import pytest
from pybtex.database.input.bibtex import Parser
from pybtex.plugin import find_plugin

from refbook.readers import read_bibliography
from refbook.styles.pybtex_bridge import format_entries, format_entry

TESTDATA = Path("/work/shared/testdata")
FILES = sorted(TESTDATA.rglob("*.bib"))


def _same_data(ours: object, theirs: object) -> bool:
    """Whether pybtex reads the entry as refbook hands it over (no crossref or undefined
    @string, which the readers resolve differently)."""
    from refbook.styles.pybtex_bridge import to_pybtex

    mine = to_pybtex(ours)  # type: ignore[arg-type]
    return (dict(mine.fields.items()) == dict(theirs.fields.items())  # type: ignore[attr-defined]
            and {r: [str(p) for p in ps] for r, ps in mine.persons.items()}
            == {r: [str(p) for p in ps] for r, ps in theirs.persons.items()})  # type: ignore[attr-defined]


@pytest.mark.skipif(not FILES, reason="the shared test data is not on this machine")
@pytest.mark.parametrize("style", ["alpha"])
def test_same_text_as_pybtex_over_real_files(style: str) -> None:
    plaintext = find_plugin("pybtex.backends", "plaintext")()
    compared = 0
    for path in FILES:
        strict = pybtex.errors.strict
        pybtex.errors.set_strict_mode(False)
        try:
            with pybtex.errors.capture():
                data = Parser().parse_file(str(path))
        except Exception:  # a file pybtex cannot read has nothing to compare
            continue
        finally:
            pybtex.errors.set_strict_mode(strict)
        bib = read_bibliography([str(path)])
        entries = [bib[k] for k in data.entries if bib.get(k) is not None]
        items = format_entries(entries, style)  # never raises, whatever the entry types
        assert len(items) == len(entries), path
        fmt = find_plugin("pybtex.style.formatting", style)()
        for item in items:
            theirs = data.entries[item.key]
            if item.missing or not _same_data(bib[item.key], theirs):
                continue
            try:
                with pybtex.errors.capture():
                    expected = fmt.format_entry("", theirs).text.render(plaintext)
            except Exception:  # a type pybtex itself cannot format
                continue
            assert item.plain == expected, (path, item.key)
            compared += 1
    assert compared > 500


def test_unknown_type_and_missing_field_never_raise(tmp_path: Path) -> None:
    """pybtex raises on a type its style has no template for (sphinxcontrib-bibtex then
    crashes): refbook formats it as @misc; a missing field shows pybtex's message."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@online{web, author = {Doe, Jane}, title = {Site}, year = {2020},\n"
                   "  url = {https://example.org}}\n"
                   "@article{nojournal, author = {Doe, Jane}, title = {T}, year = {2020}}\n",
                   encoding="utf-8")
    entries = list(read_bibliography([str(bib)]))
    web, nojournal = (format_entry(e, "plain") for e in entries)
    assert web.plain == "Jane Doe. Site. 2020. URL: https://example.org."
    assert not web.missing
    assert nojournal.missing == "missing journal in nojournal"
