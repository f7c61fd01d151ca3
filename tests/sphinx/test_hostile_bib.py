"""A contributor's hostile ``.bib`` (issue 9) builds: limits are warnings, never a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.mkdocs.test_hostile_bib import hostile_bib

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built


def test_hostile_bib_builds_with_input_limit_warnings(copy_root: Callable[[str], Path],
                                                      build: Callable[..., Built]) -> None:
    src = copy_root("unknown")
    (src / "refs.bib").write_text(hostile_bib(), encoding="utf-8")
    (src / "index.rst").write_text(
        "Hostile\n=======\n\nSee :cite:p:`bomb,braces,accents,numbers,fine`.\n\n"
        ".. bibliography::\n", encoding="utf-8")
    b = build(src, "text")
    assert f"{src}/refs.bib:20: WARNING: this @string value grows past" in b.warnings
    assert f"{src}/refs.bib:43: WARNING: field `title` nests braces" in b.warnings
    assert f"{src}/refs.bib:46: WARNING: field `year` holds a number" in b.warnings
    assert "Fine" in b.read("index.txt")
