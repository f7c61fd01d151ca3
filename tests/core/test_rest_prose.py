"""``refbook check --docs`` on reST pages: which roles are citations and at which line.

Each case is a minimal page with a role Sphinx runs (``nosuch…``, reported at its line) and
roles it never runs (``quiet…``: code, literals, comments, options). The Sphinx comparison on
whole pages is ``tests/sphinx/test_lines.py``; these pin each rule on its own.
"""

from __future__ import annotations

import pytest
from docutils.core import publish_doctree
from docutils.parsers.rst import directives, roles
from docutils.parsers.rst.directives.body import CodeBlock

from refbook.validate.citations import scan_document
from refbook.validate.rest import mask_inline_literals, rst_prose
from tests.growth import LIMIT, doubling_ratio


def cited(page: str) -> list[tuple[str, int]]:
    """The keys the scan finds, with their lines — after checking that docutils, run live on
    the page, calls the citation roles for exactly these keys."""
    found = [(k, where.line) for k, where in scan_document(page, "p.rst", kind="rst").cited]
    assert sorted(k for k, _ in found) == run_by_docutils(page)
    return found


def run_by_docutils(page: str) -> list[str]:
    """The keys of every citation role docutils runs on ``page`` (its parser, not ours)."""
    keys: list[str] = []

    def role(name: str, rawtext: str, text: str, lineno: int, inliner: object,
             options: object = None, content: object = None) -> tuple[list[object], list[object]]:
        keys.extend(k.strip() for k in text.split(",") if k.strip() and "{" not in k)
        return [], []

    # registered for this parse only: a Sphinx build later in this process warns about roles
    # and directives registered before it
    saved = dict(roles._roles), dict(directives._directives)
    try:
        for name in ("cite", "cite:p", "cite:t", "footcite"):
            roles.register_local_role(name, role)
        directives.register_directive("code-block", CodeBlock)  # Sphinx's name for "code"
        publish_doctree(page, settings_overrides={"report_level": 5, "halt_level": 5,
                                                  "syntax_highlight": "none"})
    finally:
        roles._roles.clear()
        roles._roles.update(saved[0])
        directives._directives.clear()
        directives._directives.update(saved[1])
    return sorted(keys)


def test_a_role_after_a_code_block_keeps_its_line() -> None:
    """A blanked block shortened the text searched, so every later role was counted some lines
    too early (line 111 for a citation on line 143)."""
    code = "".join(f"   line {i}\n" for i in range(30))
    page = f"Text.\n\n.. code-block:: python\n   :linenos:\n\n{code}\nAfter :cite:`nosuch`.\n"
    assert cited(page) == [("nosuch", page.split("\n").index("After :cite:`nosuch`.") + 1)]
    assert cited("Text.\n\nAfter :cite:`nosuch`.\n") == [("nosuch", 3)]


def test_directive_content_is_text_unless_it_is_code() -> None:
    page = (".. note::\n\n   In a note :cite:`nosuch1`.\n\n"
            ".. admonition:: Title :cite:`nosuch2`\n   :class: tip\n\n   Body :cite:`nosuch3`.\n\n"
            ".. math::\n\n   :cite:`quiet1`\n\n"
            ".. figure:: a.png\n   :alt: :cite:`quiet2`\n\n   Caption :cite:`nosuch4`.\n")
    assert cited(page) == [("nosuch1", 3), ("nosuch2", 5), ("nosuch3", 8), ("nosuch4", 17)]


def test_literal_blocks_are_skipped() -> None:
    page = ("Para::\n\n    :cite:`quiet1`\n\n  less :cite:`quiet2`\n\nText :cite:`nosuch1`.\n\n"
            "- item::\n\n      :cite:`quiet3`\n\n  item text :cite:`nosuch2`\n\n"
            "Quoted::\n\n> :cite:`quiet4`\n\nAfter :cite:`nosuch3`.\n"
            "Not at a paragraph's end::\nstill text :cite:`nosuch4`\n")
    assert cited(page) == [("nosuch1", 7), ("nosuch2", 13), ("nosuch3", 19), ("nosuch4", 21)]


def test_comments_and_targets_are_skipped_but_footnotes_are_text() -> None:
    page = (".. a comment :cite:`quiet1`\n   :cite:`quiet2`\n\n"
            "..\n   comment :cite:`quiet3`\n\n"
            ".. _target: https://example.org/:cite:`quiet4`\n\n"
            "..\n\n   a block quote after an empty comment :cite:`nosuch1`\n\n"
            ".. [#f] A footnote :cite:`nosuch2`\n   continued :cite:`nosuch3`\n")
    assert cited(page) == [("nosuch1", 11), ("nosuch2", 13), ("nosuch3", 14)]


def test_inline_literals_follow_docutils_rules() -> None:
    literal = "``:cite:`x```"
    assert mask_inline_literals(f"a {literal} b") == f"a {' ' * len(literal)} b"
    page = ("A ``:cite:`quiet1``` then :cite:`nosuch1`,\n"
            "``two\nlines :cite:`quiet2``` and :cite:`nosuch2`.\n\n"
            "x``y`` is no literal: :cite:`nosuch3`\n\n"
            "``open :cite:`nosuch4`\n\nnext paragraph :cite:`nosuch5`\n")
    assert cited(page) == [("nosuch1", 1), ("nosuch2", 3), ("nosuch3", 5), ("nosuch4", 7),
                           ("nosuch5", 9)]


def test_escaped_and_glued_roles_are_text() -> None:
    assert cited("\\:cite:`quiet1` and a:cite:`quiet2` but (:cite:`nosuch1`)\n") == [
        ("nosuch1", 1)]


def test_footcite_roles_and_malformed_roles() -> None:
    scan = scan_document("A :footcite:`nosuch1,` and\n:cite:p:`{broken`.\n", "p.rst", kind="rst")
    assert [(k, w.line) for k, w in scan.cited] == [("nosuch1", 1)]
    assert [(d.code.slug, d.location.line if d.location else 0) for d in scan.problems] == [
        ("citation-syntax", 1), ("citation-syntax", 2)]


def test_blanking_keeps_every_offset() -> None:
    page = ".. code-block::\n\n   x\n\nA ``b`` :cite:`c`\n\n.. a comment\n"
    prose = rst_prose(page)
    assert len(prose) == len(page)
    assert [i for i, ch in enumerate(prose) if ch == "\n"] == [
        i for i, ch in enumerate(page) if ch == "\n"]


@pytest.mark.parametrize("unit", ["``a ", "a::\n\n", ".. note::\n   ", ".. x\n", "``:cite:`a`` ",
                                  "- a::\n\n      b\n"])
def test_rest_scan_is_linear(unit: str) -> None:
    ratio = doubling_ratio(lambda n, _attempt: unit * (n // len(unit)),
                           lambda t: scan_document(t, "p.rst", kind="rst"), 20_000)
    assert ratio <= LIMIT, (unit, ratio)
