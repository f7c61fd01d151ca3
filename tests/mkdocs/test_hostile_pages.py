"""Hostile pages: a page of brackets or backticks builds, in time linear in the page.

The citation finder used to rescan the rest of the paragraph at every ``[`` (1.26 kB of ``[``:
a 46 s build) and the code-span mask was cubic on backticks (1 kB: 28 s). Python-Markdown's own
link parser is still quadratic on ``[``, so the scaling tests measure the refbook extension
inside a Markdown that has no other inline pattern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import markdown
import pytest

from mkdocs_refbook.extension import RefbookExtension
from tests.growth import LIMIT, doubling_ratio
from tests.mkdocs.test_build import cites

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.mkdocs.conftest import Project

HOSTILE: dict[str, Callable[[int], str]] = {
    "open brackets": lambda n: "[" * n,
    "open citations": lambda n: "[@" * (n // 2),
    "narrative then brackets": lambda n: "@a [;" * (n // 5),
    "many citations in one paragraph": lambda n: "[@a] " * (n // 5),
    "citations between open brackets": lambda n: "[[[ [@a] " * (n // 9),
    "mixed": lambda n: "[@`-@;{" * (n // 7),
    "citations before colons": lambda n: "[@a]: x " * (n // 8),
}


def _only_citations() -> markdown.Markdown:
    md = markdown.Markdown(extensions=[RefbookExtension()])
    for name in [name for name in md.inlinePatterns._priority if name.name != "refbook-citation"]:
        md.inlinePatterns.deregister(name.name)
    return md


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_extension_is_linear_on_hostile_paragraphs(name: str) -> None:
    make = HOSTILE[name]
    md = _only_citations()
    ratio = doubling_ratio(lambda n, _attempt: make(n), md.convert, 20_000)
    assert ratio <= LIMIT, (name, ratio)


def test_extension_finds_the_same_citations_after_each_replacement() -> None:
    html = _only_citations().convert("[[ [@a] x [-@b, p. 3] @c [p. 4] [@d] \\@e [no] @f")
    assert html.count('class="refbook-pending"') == 5
    for source in ("[@a]", "[-@b, p. 3]", "@c [p. 4]", "[@d]", "@f"):
        assert f'data-refbook-src="{source}"' in html


def test_extension_reads_adjacent_brackets_and_no_definitions() -> None:
    html = _only_citations().convert("[@a][@b] and x [@c]: y")
    assert [s for s in ("[@a]", "[@b]", "[@c]") if f'data-refbook-src="{s}"' in html] == [
        "[@a]", "[@b]", "[@c]"]


def test_a_page_of_brackets_and_backticks_builds(project: Project) -> None:
    hostile = ("[" * 1500 + "\n\n" + "`" * 1500 + "\n\n" + "[@`" * 500 + "\n\n"
               + "``a`" * 400 + "\n\n" + "[@doe2019" * 300)
    project.page("index.md", f"""\
# Home

A [@doe2019]. B @lee2021 [p. 5] says. `[@smith2020a]` is code.

{hostile}

C [see @smith2020b, p. 3].
""")
    project.build()
    page = project.html("index.html")
    # each unclosed "[@doe2019" leaves a narrative citation
    assert cites(page) == ["(Doe and Roe 2019)", "Lee (2021, 5)", *["Doe and Roe (2019)"] * 300,
                           "(see Smith 2020, 3)"]
