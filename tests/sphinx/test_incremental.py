"""Never stale: after a .bib edit or a citation edit, an incremental build re-writes every page
whose citations or lists changed — and only those."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from sphinx.builders import Builder

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

PAGES = ("index", "one", "two", "all", "filtered", "references")
#: whether this Sphinx writes the root document whenever it writes pages (Builder.write of
#: Sphinx 7.4 adds it to every write; 8.2 and 9 do not)
_ROOT_ALWAYS = "docnames.add(self.config.root_doc)" in inspect.getsource(Builder.write)


def _mtimes(b: Built) -> dict[str, int]:
    return {p: (b.outdir / f"{p}.txt").stat().st_mtime_ns for p in PAGES}


def _flat(b: Built, page: str) -> str:
    return " ".join(b.read(f"{page}.txt").split())


def _year_changed(src: Path, build: Callable[..., Built], before: dict[str, int],
                  ) -> tuple[Built, set[str]]:
    """Knuth's year 1984 -> 1985 in the .bib file, then a build: that build (warning-free)
    and the pages it wrote again."""
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {1984}", "year = {1985}"),
                   encoding="utf-8")
    second = build(src, "text")
    assert second.warnings == ""
    after = _mtimes(second)
    return second, {p for p in PAGES if after[p] != before[p]}


def test_bib_year_change_rewrites_every_citing_page(copy_root: Callable[[str], Path],
                                                    build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    first = build(src, "text")
    before = _mtimes(first)
    assert "Cites (Knuth 1984)" in _flat(first, "one")
    second, rewritten = _year_changed(src, build, before)
    # index holds the toctree of the updated pages, whose titles did not change (they were not
    # read again and hold no citation): it is not written again, unless Sphinx writes the root
    # document in every build that writes a page (Sphinx 7.4 does)
    assert rewritten == {"one", "all", "references"} | ({"index"} if _ROOT_ALWAYS else set())
    for page in ("one", "all", "references"):
        text = _flat(second, page)
        assert "1985" in text
        assert "1984" not in text
    assert "Cites (Knuth 1985)" in _flat(second, "one")


def test_a_citation_in_a_title_rewrites_the_contents_that_show_it(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    """The parents of a re-written page are written again when its titles show the book (a
    citation in a section title, copied into the parent's table of contents); the held
    entries go back to the environment, so a later edit of the page still re-writes them."""
    src = copy_root("modes")
    (src / "titled.rst").write_text("After :cite:t:`knuth1984`\n=========================\n\n"
                                    "Text.\n", encoding="utf-8")
    index = src / "index.rst"
    index.write_text(index.read_text(encoding="utf-8") + "   titled\n", encoding="utf-8")
    first = build(src, "text")
    assert "After Knuth (1984)" in _flat(first, "index")
    before = _mtimes(first)
    second, rewritten = _year_changed(src, build, before)
    assert rewritten == {"index", "one", "all", "references"}
    assert "After Knuth (1985)" in _flat(second, "index")
    assert "1984" not in _flat(second, "index")
    # the environment saved by that build still names index as the parent of every page
    files = second.app.env.files_to_rebuild
    assert all(files.get(p) == {"index"} for p in ("one", "two", "all", "titled"))


def test_adding_and_removing_a_citation(copy_root: Callable[[str], Path],
                                        build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    build(src, "text")
    two = src / "two.rst"
    two.write_text(two.read_text(encoding="utf-8").replace(
        "Cites :cite:p:`smith2020a`.", "Cites :cite:p:`smith2020a` and :cite:p:`vanderberg2020`."),
        encoding="utf-8")
    second = build(src, "text")
    assert "Berg, Anna van der, and Carl Jones. 2020." in _flat(second, "references")
    assert "Cited in: Two" in _flat(second, "all").split("Not cited")[0].split("Knuth")[0]
    assert "Berg" not in _flat(second, "all").split("Not cited")[1]
    one = src / "one.rst"
    one.write_text(one.read_text(encoding="utf-8").replace(
        "Cites :cite:p:`knuth1984` and ", "Cites "), encoding="utf-8")
    third = build(src, "text")
    assert "Knuth" not in _flat(third, "references")
    assert "Knuth" in _flat(third, "all").split("Not cited")[1]
    assert third.warnings == ""


def test_noop_rebuild_writes_nothing(copy_root: Callable[[str], Path],
                                     build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    before = _mtimes(build(src, "text"))
    assert _mtimes(build(src, "text")) == before


def test_removing_a_key_from_the_bib_warns_on_the_unchanged_page(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = copy_root("modes")
    build(src, "text")
    bib = src / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("@book{knuth1984,", "@book{knuth1984x,"),
                   encoding="utf-8")
    second = build(src, "text")
    assert second.warnings == (
        f"{src}/one.rst:4: WARNING: citation key 'knuth1984' is not in any bibliography file "
        "(did you mean 'knuth1984x'? Otherwise add the entry to a .bib file.) "
        "[refbook.unknown-key]\n")
    assert "Cites (**knuth1984?**)" in _flat(second, "one")
