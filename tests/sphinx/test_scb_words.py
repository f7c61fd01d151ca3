"""The problems sphinxcontrib-bibtex reports, reported by refbook in its look with its words too.

A project written for sphinxcontrib-bibtex (``bibtex_*`` options, no refbook style) is built
with sphinxcontrib-bibtex and with refbook: every warning sphinxcontrib-bibtex gives has a
refbook warning at the same place, in the same order, that carries sphinxcontrib-bibtex's
words after refbook's message, hint and code (what a migrated project's scripts and tests
search the log for keeps matching). In refbook's look the words are not added.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tests.sphinx.test_bibtex_look import project

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

DUPLICATE = "@misc{knuth1984,\n  author = {Knuth, D.},\n  title = {Again},\n  year = {1985}\n}\n"

PAGES = {"index.rst": """\
Book
====

Known :cite:p:`knuth1984`, unknown :cite:p:`nosuch1`.

Another :cite:t:`nosuch2`.

.. bibliography::
   :filter: author + title

.. bibliography:: unlisted.bib

.. bibliography::
   :filter: False

   badkey
"""}

CONF = 'bibtex_bibfiles = ["refs.bib", "more.bib", "missing.bib"]\n'

# a warning line: "[place: ]WARNING: message[ [type.subtype]]"
_LINE = re.compile(r"^(?:(?P<place>\S+): )?WARNING: (?P<text>.*?)(?: \[[\w.-]+\])?$")


def _warnings(built: Built) -> list[tuple[str, str]]:
    out = []
    for line in built.warnings.splitlines():
        m = _LINE.match(line)
        if m is not None:
            place = (m.group("place") or "").removeprefix(str(built.srcdir) + "/")
            out.append((place, m.group("text")))
    return out


def _build(tmp_path: Path, build: Callable[..., Built], extension: str, conf: str) -> Built:
    src = project(tmp_path, extension, CONF + conf, PAGES)
    (src / "more.bib").write_text(DUPLICATE, encoding="utf-8")
    return build(src, "text")


def test_scb_words_in_its_look(tmp_path: Path, build: Callable[..., Built]) -> None:
    theirs = _warnings(_build(tmp_path, build, "sphinxcontrib.bibtex", ""))
    ours = _warnings(_build(tmp_path, build, "sphinx_refbook", ""))
    # each problem sphinxcontrib-bibtex reports (its filter error once per entry it tries: one
    # problem) is a refbook warning at the same place carrying its words (paths as there)
    problems = {(place, text.split("; invalid node")[0]) for place, text in theirs}
    assert len(problems) == 7, theirs
    ours_text = [(p, t.replace("sphinx_refbook", "sphinxcontrib.bibtex")) for p, t in ours]
    for place, words in problems:
        assert [t for p, t in ours_text if (p == place or not place)
                and f"[sphinxcontrib-bibtex: {words}]" in t], (place, words, ours)
    # refbook's own finding besides: the citation no list shows (the bad filter lets nothing
    # through), which sphinxcontrib-bibtex leaves unlinked without a word
    extra = [t for _, t in ours if "[sphinxcontrib-bibtex: " not in t]
    assert len(extra) == 1, extra
    assert extra[0].startswith("'knuth1984' is cited here but no reference list"), extra
    # both say first that a .bib file cannot be read: the rest follows from it
    assert theirs[1][1].startswith("could not open bibtex file ")
    assert ours[0][1].startswith("bibliography file not found: ")
    # refbook's message comes first, with its hint (and its code after)
    assert ("index.rst:4", (
        "citation key 'nosuch1' is not in any bibliography file (add an entry with this key to "
        'a .bib file, or fix the key) [sphinxcontrib-bibtex: could not find bibtex key "nosuch1"]'
    )) in ours


def test_no_scb_words_in_refbook_look(tmp_path: Path, build: Callable[..., Built]) -> None:
    ours = _warnings(_build(tmp_path, build, "sphinx_refbook",
                            'refbook_style = "chicago-author-date"\n'))
    assert len(ours) >= 6, ours
    assert not [t for _, t in ours if "sphinxcontrib-bibtex:" in t]


TWO_LISTS = {
    "index.rst": "Book\n====\n\n.. toctree::\n\n   doc1\n   doc2\n",
    "doc1.rst": "Doc1\n====\n\nSee :cite:p:`knuth1984`.\n\n.. bibliography:: refs.bib\n{opts}",
    "doc2.rst": "Doc2\n====\n\nSee :cite:p:`other2001`.\n\n.. bibliography:: more.bib\n{opts2}",
}
OTHER = "@book{other2001,\n  author = {Other, Olga},\n  title = {Another},\n  publisher = {P},\n  year = {2001}\n}\n"


def _two_lists(tmp_path: Path, build: Callable[..., Built], extension: str,
               prefixes: tuple[str, str]) -> list[tuple[str, str]]:
    opts = [f"   :labelprefix: {p}\n" if p else "" for p in prefixes]
    pages = {name: text.format(opts=opts[0], opts2=opts[1]) for name, text in TWO_LISTS.items()}
    src = project(tmp_path / "-".join(prefixes), extension,
                  'bibtex_bibfiles = ["refs.bib", "more.bib"]\nbibtex_default_style = "plain"\n',
                  pages)
    (src / "more.bib").write_text(OTHER, encoding="utf-8")
    return _warnings(build(src, "text"))


def test_duplicate_label_across_lists_as_sphinxcontrib_bibtex(
        tmp_path: Path, build: Callable[..., Built]) -> None:
    # two pages, each with its own list numbered from 1: two different works are both [1]
    theirs = _two_lists(tmp_path, build, "sphinxcontrib.bibtex", ("", ""))
    ours = _two_lists(tmp_path, build, "sphinx_refbook", ("", ""))
    assert theirs == [("doc2.rst:6", 'duplicate label "1" for keys "knuth1984" and "other2001"')]
    assert ours == [("doc2.rst:6", (
        'duplicate label "1" for keys "knuth1984" and "other2001": the list of doc1 (line 6) '
        "labels 'knuth1984' [1] and this one labels 'other2001' [1], so readers cannot tell "
        "them apart (give the lists different :labelprefix: values, or use one list of the "
        "whole book)"))]
    # with label prefixes the labels differ: neither warns
    assert _two_lists(tmp_path, build, "sphinxcontrib.bibtex", ("A", "B")) == []
    assert _two_lists(tmp_path, build, "sphinx_refbook", ("A", "B")) == []


NO_YEAR = "@article{noyear,\n  author = {Doe, Jane},\n  title = {T},\n  journal = {J}\n}\n"


def test_entry_the_style_cannot_format_is_reported_at_the_list(
        tmp_path: Path, build: Callable[..., Built]) -> None:
    # with refbook's field rules off, the entry pybtex cannot format (no year) would show
    # pybtex's message in the list without a word: it is reported there, as sphinxcontrib-bibtex
    # reports it
    pages = {"index.rst": "Book\n====\n\n:cite:p:`noyear`\n\n.. bibliography::\n"}
    off = 'refbook_check = {"ignore": ["types", "dates"]}\n'
    found = []
    for extension in ("sphinxcontrib.bibtex", "sphinx_refbook"):
        src = project(tmp_path / "off", extension, off, pages)
        (src / "refs.bib").write_text(NO_YEAR, encoding="utf-8")
        found.append(_warnings(build(src, "text")))
    theirs, ours = found
    assert theirs == [("index.rst:6", "missing year in noyear")]
    assert ours == [("index.rst:6", (
        "missing year in noyear: pybtex's 'alpha' style cannot format 'noyear', so this list "
        "shows that message in bold in its place (add the field to the entry, or choose another "
        "style: bibtex_default_style, or :style: on the list)"))]
