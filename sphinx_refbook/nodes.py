"""Placeholder nodes left in doctrees at read time and replaced at write time.

Where it sits: roles and the Pandoc transform leave a :class:`citation_node` (holding the parsed
``refbook.syntax.Citation``), the directive leaves a :class:`bibliography_node`; footnote
citations (``sphinx_refbook.footnotes``) leave real docutils footnotes, numbered by docutils, whose
texts are placeholders (:class:`footcite_node`, :class:`foot_author_node`,
:class:`foot_entry_node`). Formatting needs the whole book, so all are filled in by
``sphinx_refbook.writer`` once every page has been read.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes


class citation_node(nodes.Inline, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """A citation. Attributes: ``citation`` (Citation), ``form`` (p, t, year …), ``docname``,
    ``index`` (its place among the document's citations, set after reading)."""


class bibliography_node(nodes.General, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """A reference list. Attributes: ``spec`` (``sphinx_refbook.spec.ListSpec``)."""


class footcite_node(nodes.Inline, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """A footnote citation (``:footcite:``): its footnote references, and for the textual forms
    a :class:`foot_author_node` before each. Attributes as :class:`citation_node`."""


class foot_author_node(nodes.Inline, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """The author part of a textual footnote citation. Attributes: ``key``."""


class foot_entry_node(nodes.General, nodes.Element):  # type: ignore[misc,unused-ignore]  # noqa: N801
    """The text of a citation footnote: the formatted entry. Attributes: ``key``."""


# A citation in a section title is copied into the tables of contents before it is filled in:
# ``sphinx_refbook.writer.COPIED_CITATION`` shows the copies' formatted text.


def skip(translator: Any, node: nodes.Element) -> None:
    raise nodes.SkipNode


SKIP = (skip, None)


def _pass(translator: Any, node: nodes.Element) -> None:
    return None


#: visitors for placeholders the writer replaces: should one survive (a copy outside the page),
#: its children — the key as written — are shown
PASS = (_pass, _pass)
