"""Real-site migration: public MkDocs sites written for mkdocs-bibtex, built by it and by refbook.

Where it sits: evidence for issue 11 ("a true drop-in for mkdocs-bibtex"). Each site is a public
repository's MkDocs project reduced to its citing pages and its ``.bib`` (the citations, the
commands and the Markdown around them kept as written; ``SOURCE.md`` in each folder names the
repository, the commit, the licence and what was cut). The reduced copies are third-party data,
so they live in the shared test data (``shared/testdata/mkdocs_sites``), not in this repository.

Each site is built twice, unchanged except for the one-line migration the docs promise (the
plugin ``bibtex`` renamed ``refbook``, its options kept as written):

- every citation mkdocs-bibtex resolves (a footnote reference to a footnote it defined) is
  resolved by refbook on the same page, key for key — refbook's data checks only add to that;
- no ``\\bibliography``, ``\\full_bibliography`` or ``[@`` is left in any page outside code;
- refbook's build warns about nothing but what :data:`SITES` lists: real defects of the sites'
  data and configuration, each judged by reading the entry (the comments say why).

The first tests are the regressions these sites found, on minimal generated pages.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.mkdocs.test_build import cites

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project


# -- regressions found on the real sites (minimal generated pages) --------------------------------


@pytest.mark.parametrize("output", ["footnotes", "refbook"])
def test_a_paragraph_that_starts_with_a_code_span_keeps_its_citations(
        project: Project, refbook_log: pytest.LogCaptureFixture, output: str) -> None:
    # ABSESpy's paper page: "`ABSESpy` includes ... `Xarray` [@hoyer2017xarray]": the masked code
    # span made the line look indented (code), so its citations were shown as written
    project.configure({"output": output})
    project.page("index.md", """\
        # Home

        `tool` reads data. The packages `lib` [@smith2020a] and `other` [@doe2019] help.
        """)
    project.build()
    page = project.html("index.html")
    assert "[@" not in page
    assert not [r for r in refbook_log.records if "shown as written" in r.getMessage()]
    if output == "footnotes":
        assert re.findall(r'href="#fn:(\w+)"', page)[:2] == ["smith2020a", "doe2019"]
    else:
        assert len(cites(page)) == 2


@pytest.mark.parametrize("output", ["footnotes", "refbook"])
def test_citations_before_a_colon_and_side_by_side(project: Project, output: str) -> None:
    # Faran's and Baltica's pages: "the Kalman gain[@Thrun2005]:" was taken for a link
    # definition, and "[@r_core][@Lawrence_2013]" for a reference link: each showed "[@key]"'s
    # key as a narrative citation between literal brackets
    project.configure({"output": output})
    project.page("index.md", """\
        # Home

        Using the gain[@smith2020a]: then tools [@doe2019][@lee2021][@smith2020b].
        """)
    project.build()
    page = project.html("index.html")
    assert "[" not in page.split("<article", 1)[-1].split("</p>", 1)[0]
    if output == "footnotes":
        assert re.findall(r'class="footnote-ref" href="#fn:(\w+)"', page) == [
            "smith2020a", "doe2019", "lee2021", "smith2020b"]
    else:
        assert len(cites(page)) == 4
