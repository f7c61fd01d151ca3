"""Evidence: with a note style, each citation's footnote says what pandoc's says (issue 13).

pandoc (``--citeproc --csl=…``, run live) turns every citation of a Markdown document into a
footnote, numbered with the document's own footnotes, and picks first / subsequent / ibid /
ibid-with-locator / near-note forms per document. Here the same document goes through the
registry (note numbers given as a host gives them) and each note text is compared:

- a probe style whose citation prints the position tests that hold, so every rule of
  ``refbook.notes.positions`` is checked on its own;
- Chicago notes-bibliography (plain and "subsequent ibid."), a small multi-citation document and
  the seed book, every entry cited once, twice and with locators.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from refbook.items import items_for
from refbook.notes import NoteCitation, NoteCite, number_notes, positions
from refbook.readers import read_bibliography
from refbook.registry import CitationSite, Registry, Resolution
from refbook.render.text import to_line
from refbook.styles import styles_dir
from refbook.syntax import Citation, find_citations
from tests.conftest import SEED

CSL_NS = "http://purl.org/net/xbiblio/csl"
BIB = SEED / "references.bib"


def probe_style(near: int | None = None) -> str:
    """A note style whose citations show which position tests are true for each cite."""
    flags = "".join(
        f'<choose><if position="{p}"><text value="{p}" prefix="+"/></if></choose>'
        for p in ("first", "subsequent", "ibid", "ibid-with-locator", "near-note"))
    option = f' near-note-distance="{near}"' if near is not None else ""
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="{CSL_NS}" class="note" '
            f'version="1.0"{option}>\n  <info><title>probe</title><id>probe</id></info>\n'
            '  <citation><layout delimiter="; " suffix=".">'
            f'<group delimiter=" "><text variable="title"/><text variable="locator"/>'
            f'<group>{flags}</group></group></layout></citation>\n'
            '  <bibliography><layout><text variable="title"/></layout></bibliography>\n'
            '</style>\n')


@dataclass(frozen=True, slots=True)
class Written:
    """A Markdown document as a host reads it: its citations with their note numbers."""

    citations: tuple[Citation, ...]
    notes: tuple[int, ...]
    in_note: tuple[bool, ...]


def inline_notes(markdown: str) -> list[tuple[int, int]]:
    """(start, end) of each inline footnote ``^[…]`` (brackets inside it matched)."""
    spans = []
    for m in re.finditer(r"\^\[", markdown):
        depth, i = 1, m.end()
        while i < len(markdown) and depth:
            depth += {"[": 1, "]": -1}.get(markdown[i], 0)
            i += 1
        spans.append((m.start(), i))
    return spans


def read(markdown: str) -> Written:
    """Citations in reading order; a citation of the running text is a note of its own, one
    inside an inline footnote ``^[…]`` shares that footnote's number (as pandoc numbers them)."""
    events: list[tuple[int, Citation | None, int]] = []  # (offset, citation, note span end)
    notes_at = inline_notes(markdown)
    body = markdown
    for start, end in notes_at:  # each note's text is scanned on its own
        body = body[:start] + " " * (end - start) + body[end:]
        inner = markdown[start + 2:end - 1]
        events.append((start, None, end))
        events += [(start + 2 + c.start, c, 0) for c in find_citations(inner)]
    events += [(c.start, c, 0) for c in find_citations(body)]
    events.sort(key=lambda e: e[0])
    cites: list[Citation] = []
    numbers: list[int] = []
    inside: list[bool] = []
    n = 0
    open_until = -1
    for offset, citation, end in events:
        if citation is None:
            n += 1
            open_until = end
            continue
        in_note = offset < open_until
        if not in_note:
            n += 1
        cites.append(citation)
        numbers.append(n)
        inside.append(in_note)
    return Written(tuple(cites), tuple(numbers), tuple(inside))


def pandoc_notes(pandoc: str, markdown: str, bib: Path, style: Path) -> tuple[str, dict[int, str]]:
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={style}"],
        input=markdown, capture_output=True, text=True, check=True, timeout=300).stdout
    body: list[str] = []
    notes: dict[int, str] = {}
    for para in out.split("\n\n"):
        m = re.match(r"\[(\d+)\] (.*)", para.strip(), re.S)
        if m:
            notes[int(m.group(1))] = " ".join(m.group(2).split())
        elif para.strip():
            body.append(" ".join(para.split()))
    return " ".join(body), notes


def resolve(written: Written, bib: Path, style: str) -> Resolution:
    bibliography = read_bibliography([str(bib)])
    registry = Registry()
    registry.add_sites("doc", [
        CitationSite("doc", i, c, c.line, note=n, in_note=inside)
        for i, (c, n, inside) in enumerate(zip(written.citations, written.notes,
                                               written.in_note, strict=True))])
    return registry.resolve(bibliography, items_for(bibliography), style)


def text(res: Resolution, i: int) -> str:
    return " ".join(to_line(res.citations[("doc", i)]).split())


def compare(pandoc: str, markdown: str, bib: Path, style: Path) -> tuple[int, list[str]]:
    """(identical notes, the differences) of a document without footnotes of its own."""
    written = read(markdown)
    assert not any(written.in_note)
    _, theirs = pandoc_notes(pandoc, markdown, bib, style)
    res = resolve(written, bib, str(style))
    diffs = [f"{c.source}\n    pandoc: {theirs.get(n)}\n    ours:   {text(res, i)}"
             for i, (c, n) in enumerate(zip(written.citations, written.notes, strict=True))
             if theirs.get(n) != text(res, i)]
    return len(written.citations) - len(diffs), diffs


# -- the rules, one by one, with the probe style ---------------------------------------------

PROBE_DOC = """\
A [@breiman2001random]. B [@breiman2001random]. C [@breiman2001random, p. 4].
D [@breiman2001random, p. 4]. E [@breiman2001random, p. 5]. F [@breiman2001random].
G [@breiman2001random]. H [@lin2004rouge; @breiman2001random]. I [@breiman2001random].
J [@lin2004rouge; @lin2004rouge, p. 3]. K @lin2004rouge says. L [@lin2004rouge].
M [@kwon2023efficient]. N [@papineni2002bleu]. O [@friedman2001greedy]. P [@young1974first].
Q [@lin2004rouge]. R [@kwon2023efficient]. S [-@kwon2023efficient]. T [see @papineni2002bleu].
"""

NOTE_DOC = """\
A [@breiman2001random]. B^[In a note [@breiman2001random] and [@lin2004rouge].]
C [@breiman2001random]. D^[Only [@lin2004rouge].] E [@lin2004rouge]. F [@lin2004rouge].
G^[A plain note.] H [@lin2004rouge].
"""


@pytest.mark.parametrize("near", [None, 2])
def test_probe_positions_match_pandoc(near: int | None, pandoc: str, tmp_path: Path) -> None:
    style = tmp_path / "probe.csl"
    style.write_text(probe_style(near), encoding="utf-8")
    same, diffs = compare(pandoc, PROBE_DOC, BIB, style)
    assert diffs == []
    assert same == 20


def test_positions_of_citations_inside_footnotes_match_pandoc(pandoc: str,
                                                             tmp_path: Path) -> None:
    """A citation inside a footnote is printed there in parentheses and counts with that
    note's number; a footnote without citations still counts in the numbering."""
    style = tmp_path / "probe.csl"
    style.write_text(probe_style(), encoding="utf-8")
    written = read(NOTE_DOC)
    assert written.in_note == (False, True, True, False, True, False, False, False)
    assert written.notes == (1, 2, 2, 3, 4, 5, 6, 8)
    _, theirs = pandoc_notes(pandoc, NOTE_DOC, BIB, style)
    res = resolve(written, BIB, str(style))
    assert theirs[2] == f"In a note {text(res, 1)} and {text(res, 2)}."
    assert theirs[4] == f"Only {text(res, 4)}."
    for i, n in ((0, 1), (3, 3), (5, 5), (6, 6), (7, 8)):
        assert theirs[n] == text(res, i)


def test_positions_rules_without_a_host() -> None:
    """The core function alone: ibid needs the previous citation to hold the item alone."""
    a, b = NoteCite("a"), NoteCite("b")
    held = positions([NoteCitation((a,), 1), NoteCitation((a, b), 2), NoteCitation((b,), 3),
                      NoteCitation((NoteCite("b", "7"),), 4), NoteCitation((b,), 5),
                      NoteCitation((a,), 12)])
    assert held == [("first",), ("subsequent ibid near-note", "first"), ("subsequent near-note",),
                    ("subsequent ibid ibid-with-locator near-note",), ("subsequent near-note",),
                    ("subsequent",)]
    assert number_notes([False, True, False]) == [1, 1, 2]


def test_narrative_citation_keeps_its_author_in_the_text(pandoc: str) -> None:
    """``@key says``: the author in the text, the rest in the footnote (pandoc's split)."""
    folder = styles_dir()
    assert folder is not None
    style = folder / "chicago-notes-bibliography.csl"
    markdown = "A [@lin2004rouge]. Then @lin2004rouge says.\n"
    body, theirs = pandoc_notes(pandoc, markdown, BIB, style)
    res = resolve(read(markdown), BIB, str(style))
    assert text(res, 1) == theirs[2]
    author = to_line(res.in_text[("doc", 1)])
    assert f"Then {author}[2] says." in body


# -- Chicago notes-bibliography ------------------------------------------------------------

CHICAGO = ("chicago-notes-bibliography", "chicago-notes-bibliography-subsequent-ibid")

SMALL_DOC = """\
First [@breiman2001random]. Again [@breiman2001random]. With a locator
[@breiman2001random, p. 4]. The same locator [@breiman2001random, p. 4]. Another work
[@lin2004rouge]. Two works [@lin2004rouge; @breiman2001random]. Back [@breiman2001random, 7].
A prefix [see @kwon2023efficient, chap. 2]. Two more [@papineni2002bleu; @lin2004rouge, 75].
Again [@lin2004rouge]. And again [@lin2004rouge].
"""


@pytest.mark.parametrize("name", CHICAGO)
def test_chicago_notes_match_pandoc(name: str, pandoc: str) -> None:
    folder = styles_dir()
    assert folder is not None
    same, diffs = compare(pandoc, SMALL_DOC, BIB, folder / f"{name}.csl")
    assert diffs == []
    assert same == 11


def seed_document() -> str:
    """Every entry of the seed cited once, then again (subsequent), then 40 of them twice in a
    row with a locator (ibid with locator, ibid)."""
    keys = [e.key for e in read_bibliography([str(BIB)])]
    parts = [f"[@{k}]" for k in keys] * 2
    parts += [f"[@{k}, p. 3]" for k in keys[:40] for _ in range(2)]
    return "\n\n".join(f"Text {p}." for p in parts) + "\n"


@pytest.mark.parametrize("name", CHICAGO)
def test_seed_notes_match_pandoc(name: str, pandoc: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = styles_dir()
    assert folder is not None
    same, diffs = compare(pandoc, seed_document(), BIB, folder / f"{name}.csl")
    total = same + len(diffs)
    with capsys.disabled():
        print(f"\n{name}: {same}/{total} footnotes identical to pandoc's")
        for d in diffs:
            print("  " + d)
    assert total > 500
    assert diffs == []
