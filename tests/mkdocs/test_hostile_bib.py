"""A contributor's hostile ``.bib`` (issue 9) builds: limits are warnings, never a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.mkdocs.conftest import refbook_warnings

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project


def hostile_bib() -> str:
    """An @string bomb, values nested 300-1000 deep, numbers of 5000 digits, and a fine entry."""
    strings = '@string{a0 = "xx"}\n' + "".join(
        f"@string{{a{i} = a{i - 1} # a{i - 1}}}\n" for i in range(1, 41))
    digits = "1" * 5000
    return (strings
            + "@misc{bomb, author = {Bomb, B}, title = a40, year = 2001}\n"
            + "@misc{braces, author = {Deep, D}, title = {" + "{" * 1000 + "x" + "}" * 1000
            + "}, year = 2002}\n"
            + "@misc{accents, author = {" + "\\'" * 300 + "e}, title = {"
            + "`" * 500 + "}, year = 2003}\n"
            + "@article{numbers, author = {Num, N}, title = {N}, journal = {J},\n"
            + f"  year = {{{digits}}}, volume = {{{digits}}}, pages = {{{digits}--2}}}}\n"
            + "@misc{fine, author = {Fine, F}, title = {Fine}, year = 2004}\n")


def test_hostile_bib_builds_with_input_limit_warnings(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    (project.root / "refs.bib").write_text(hostile_bib(), encoding="utf-8")
    project.page("index.md", "# Home\n\nSee [@bomb; @braces; @accents; @numbers; @fine].\n")
    project.build()
    limits = [w for w in refbook_warnings(refbook_log) if "[refbook.input-limit]" in w]
    assert any("refs.bib:20: error: this @string value grows past" in w for w in limits)
    assert any("refs.bib:43: error: field `title` nests braces" in w for w in limits)
    assert any("refs.bib:44: error: field `author` nests braces" in w for w in limits)
    assert any("refs.bib:46: error: field `year` holds a number with more than 18" in w
               for w in limits)
    page = project.html("index.html")
    assert "Fine" in page
    assert "2004" in page
