"""The public API (``refbook.api``): items from dicts, CSL-JSON and BibTeX files, styles by name or
path, positions of cites, output formats; it agrees with the command line and with pandoc."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from refbook.api import (
    Citation,
    Cite,
    Formatter,
    format_bibliography,
    format_citations,
    load_items,
    positions,
    render,
)
from refbook.cli import main
from refbook.styles import StyleError
from tests.conftest import SEED

DOE: dict[str, Any] = {"id": "doe", "type": "book", "title": "Tides of the north",
       "author": [{"family": "Doe", "given": "Jane"}], "issued": {"date-parts": [[2001]]},
       "publisher": "Acme"}
ROE: dict[str, Any] = {"id": "roe", "type": "article-journal", "title": "On waves",
       "container-title": "Sea Letters", "volume": "3", "page": "1-9",
       "author": [{"family": "Roe", "given": "Rick"}], "issued": {"date-parts": [[1999]]}}

# a note style of our own: ibid, ibid with a locator, short forms and near-note
NOTE_STYLE = """<?xml version="1.0" encoding="utf-8"?>
<style xmlns="http://purl.org/net/xbiblio/csl" class="note" version="1.0">
  <info><title>t</title><id>t</id><updated>2020-01-01T00:00:00+00:00</updated></info>
  <citation>
    <layout suffix="." delimiter="; ">
      <choose>
        <if position="ibid-with-locator"><group delimiter=", "><text term="ibid"/>
          <text variable="locator"/></group></if>
        <else-if position="ibid"><text term="ibid"/></else-if>
        <else-if position="near-note"><group delimiter=", ">
          <names variable="author"><name form="short"/></names><text value="near"/>
          </group></else-if>
        <else-if position="subsequent"><group delimiter=", ">
          <names variable="author"><name form="short"/></names>
          <text variable="title" form="short"/><text variable="locator"/></group></else-if>
        <else><group delimiter=", "><names variable="author"/><text variable="title"/>
          <date variable="issued"><date-part name="year"/></date>
          <text variable="locator"/></group></else>
      </choose>
    </layout>
  </citation>
</style>
"""

NUMERIC_STYLE = """<?xml version="1.0" encoding="utf-8"?>
<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">
  <info><title>n</title><id>n</id><updated>2020-01-01T00:00:00+00:00</updated></info>
  <citation><layout prefix="[" suffix="]"><text variable="citation-number"/></layout></citation>
  <bibliography><layout><text variable="citation-number" suffix=". "/><text variable="title"/>
  </layout></bibliography>
</style>
"""


def test_bibliography_from_dicts_in_three_formats() -> None:
    assert format_bibliography([ROE, DOE]) == [
        "Doe, Jane. 2001. Tides of the North. Acme.",
        "Roe, Rick. 1999. \u201cOn Waves.\u201d Sea Letters 3: 1\u20139.",
    ]
    assert format_bibliography([DOE], format="html") == [
        "Doe, Jane. 2001. <em>Tides of the North</em>. Acme."]
    assert format_bibliography([DOE], format="markdown") == [
        "Doe, Jane. 2001. *Tides of the North*. Acme."]


def test_csl_json_file_equals_dicts(tmp_path: Path) -> None:
    f = tmp_path / "refs.json"
    f.write_text(json.dumps([DOE, ROE]), encoding="utf-8")
    assert format_bibliography(f, style="numeric") == format_bibliography([DOE, ROE],
                                                                          style="numeric")


def test_bibtex_file_agrees_with_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    bib = SEED / "references.bib"
    assert main(["render", str(bib)]) == 0
    cli = capsys.readouterr().out.strip().split("\n\n")
    assert format_bibliography(bib) == cli
    assert main(["cite", str(bib), "[@breiman2001random, p. 7]"]) == 0
    assert format_citations(bib, [[Cite("breiman2001random", locator="7")]]) == [
        capsys.readouterr().out.strip()]


def test_style_by_path_and_locale(tmp_path: Path) -> None:
    style = tmp_path / "notes.csl"
    style.write_text(NOTE_STYLE, encoding="utf-8")
    # relative to base, as refbook_style is relative to conf.py
    got = format_citations([DOE], ["doe", "doe"], style="notes.csl", base=tmp_path)
    assert got == ["Jane Doe, Tides of the north, 2001.", "Ibid."]
    assert format_citations([DOE], ["doe", "doe"], style=str(style), locale="de-DE")[1] == "Ebd."


def test_positions_follow_the_specification() -> None:
    a, b = Cite("a"), Cite("b")
    cits = [Citation((a,), 1), Citation((a,), 2), Citation((Cite("a", locator="4"),), 3),
            Citation((Cite("a", locator="4"),), 4), Citation((Cite("a"),), 5),
            Citation((b, a), 6), Citation((a,), 20), Citation((b,), 21), Citation((b, b), 22)]
    got = [[(c.position, c.near_note) for c in row] for row in positions(cits)]
    assert got == [
        [("first", False)], [("ibid", True)], [("ibid-with-locator", True)],
        [("ibid", True)],
        # the preceding cite had a locator, this one has none: not the same place
        [("subsequent", True)],
        [("first", False), ("subsequent", True)],
        # the previous citation has two cites: no ibid; 14 notes back is not near
        [("subsequent", False)], [("subsequent", False)],
        [("ibid", True), ("ibid", True)],
    ]


def test_note_style_citations_agree_with_pandoc(tmp_path: Path, pandoc: str) -> None:
    """pandoc puts each citation of a note style into a footnote and computes positions: the
    API given the same notes writes the same texts."""
    style = tmp_path / "notes.csl"
    style.write_text(NOTE_STYLE, encoding="utf-8")
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps([DOE, ROE]), encoding="utf-8")
    doc = ("One [@doe]. Two [@doe, 12]. Three [@doe, 12]. Four [@roe]. Five [@doe]. "
           "Six [@roe; @doe]. Seven [@doe].\n")
    out = subprocess.run([pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
                          f"--csl={style}", f"--bibliography={refs}"], input=doc,
                         capture_output=True, text=True, check=True, timeout=120).stdout
    notes = [line.split("] ", 1)[1] for line in out.splitlines() if line.startswith("[")
             and "] " in line and line[1].isdigit()]
    cites = [[Cite("doe")], [Cite("doe", locator="12")], [Cite("doe", locator="12")],
             [Cite("roe")], [Cite("doe")], [Cite("roe"), Cite("doe")], [Cite("doe")]]
    ours = format_citations(refs, [Citation(tuple(c), i) for i, c in enumerate(cites, 1)],
                            style=str(style))
    assert len(notes) == 7
    assert ours == notes


def test_bad_input_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    items, diags = load_items([{"type": "book", "title": "no id"}, DOE])
    assert [i.id for i in items] == ["doe"]
    assert "has no id" in diags[0].message
    items, diags = load_items(tmp_path / "missing.json")
    assert items == ()
    assert diags[0].location is not None
    assert "missing.json" in diags[0].message
    with pytest.raises(StyleError) as err:
        Formatter([DOE], style="no-such-style")
    assert "unknown style" in err.value.diagnostic.message


def test_citation_numbers_follow_first_citation(tmp_path: Path) -> None:
    """Without a bibliography <sort>, items are numbered in the order they are first cited."""
    style = tmp_path / "num.csl"
    style.write_text(NUMERIC_STYLE, encoding="utf-8")
    f = Formatter([DOE, ROE], style=str(style))
    assert [render(x) for x in f.citations(["roe", "doe"])] == ["[1]", "[2]"]
    assert [render(e) for _, e in f.bibliography(citations=["roe", "doe"])] == [
        "1. On waves", "2. Tides of the north"]


def test_an_unreadable_file_raises_source_error(tmp_path: Path) -> None:
    from refbook.api import SourceError

    for missing in (tmp_path / "nope.bib", tmp_path / "nope.json", tmp_path):
        with pytest.raises(SourceError) as caught:
            format_bibliography(missing)
        assert caught.value.diagnostic.location is not None
        with pytest.raises(SourceError):
            format_citations(missing, ["doe"])


def test_other_problems_reach_the_caller_and_the_good_items_are_formatted(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@book{doe2001, author={Doe, Jane}, title={Tides}, year={2001},\n"
                   "  publisher={Acme}}\n\n@book{broken, title={No end}\n\n"
                   "@book{roe1999, author={Roe, Rick}, title={Waves}, year={1999},\n"
                   "  publisher={Acme}}\n", encoding="utf-8")
    problems: list[Any] = []
    entries = format_bibliography(bib, problems=problems)
    assert {"Doe, Jane", "Roe, Rick"} <= {e.split(".")[0] for e in entries}
    assert problems
    assert all(p.location is not None and p.location.line for p in problems)
    quiet = format_bibliography(bib)  # no list given: the same entries
    assert quiet == entries
    cited: list[Any] = []
    assert format_citations(bib, ["doe2001"], problems=cited) == ["(Doe 2001)"]
    assert [p.message for p in cited] == [p.message for p in problems]
