"""A footnote referencing style registered as a plugin (``bibtex_foot_reference_style``), run as
sphinxcontrib-bibtex runs it: the project is built with both extensions and the pages' text
compared (refbook's back-links taken out), as in ``test_bibtex_look.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.sphinx.test_bibtex_look import assert_same_text, both

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

# the customisation sphinxcontrib-bibtex's docs show: its FootReferenceStyle with other
# brackets and person style, registered from conf.py
SEMICOLONS = """\
import dataclasses
import sphinxcontrib.bibtex.plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle, PersonStyle
from sphinxcontrib.bibtex.style.referencing.foot import FootReferenceStyle


def semicolons():
    return BracketStyle(sep="; ", sep2="; ", last_sep="; ")


def last_names():
    return PersonStyle(style="last", abbreviate=False, sep=" & ", sep2=None, last_sep=None,
                       other=" et al")


@dataclasses.dataclass
class SemicolonFoot(FootReferenceStyle):
    bracket_textual: BracketStyle = dataclasses.field(default_factory=semicolons)
    person: PersonStyle = dataclasses.field(default_factory=last_names)


sphinxcontrib.bibtex.plugin.register_plugin(
    "sphinxcontrib.bibtex.style.referencing", "foot_semicolons", SemicolonFoot)
bibtex_foot_reference_style = "foot_semicolons"
"""

PAGE = """\
Notes
=====

One :footcite:t:`kim2021`, all :footcite:ts:`kim2021`, capital :footcite:ct:`vanderberg2020`,
two :footcite:t:`knuth1984,lamport1994`, three :footcite:cts:`kim2021,knuth1984,smith2020a`,
plain :footcite:p:`edited2019,notitle`.

.. footbibliography::
"""


def test_foot_referencing_style_plugin(tmp_path: Path, build: Callable[..., Built]) -> None:
    theirs, ours = both(tmp_path, build, SEMICOLONS, pages={"index.rst": PAGE})
    assert theirs.warnings == ""
    assert ours.warnings == ""
    text = " ".join(ours.read("index.txt").split())
    assert "One Kim et al[1]," in text
    assert "two Knuth[3]; Lamport[4]," in text
    assert_same_text(theirs, ours, "index.txt")
