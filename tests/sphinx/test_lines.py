"""A citation's own line in reST pages: Sphinx reports an unknown key, a wrong-case key and a
malformed role at the line the role starts on, not at the first line of its paragraph, in every
block that holds text (lists, tables, admonitions, definition lists, field lists, quotes, line
blocks), for ``:cite:`` and ``:footcite:`` alike, and for the same role written twice in one
paragraph. Roles in inline literals and comments are no citations."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

BIB = """@book{good,
  author = {Good, Al},
  title = {Good},
  publisher = {P},
  year = {2000},
}
"""

CONF = """\
extensions = ["sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
"""

# every role naming a "nosuch" key is reported at the line it starts on; "quiet" keys are in
# literals and comments, never reported
PAGE = r"""Lines
=====

First line of a paragraph
second line :cite:p:`nosuch1` here
third line :cite:t:`nosuch1` and :cite:p:`nosuch1`,
fourth :footcite:`nosuch2`.

- item one
  continues :cite:`nosuch3`

  1. nested
     deeper :cite:`nosuch4`

.. note::

   Admonition text
   with :cite:`nosuch5`.

   .. warning:: Nested directive
      with :cite:`nosuch6`.

term
   definition text
   more :cite:`nosuch7`.

+------+------------------+
| a    | b                |
|      | :cite:`nosuch8`  |
+------+------------------+
| c    | d                |
|      | e                |
|      | :cite:`nosuch9`  |
+------+------------------+

A ``:cite:`quiet1``` and
then :cite:`nosuch10` and a second ``:cite:`nosuch10``` then
:cite:`nosuch10` again.

:field: value
  continued :cite:`nosuch11`

   Block quote
   with :cite:`nosuch12`.

| Line block
| with :cite:`nosuch13`

.. list-table::
   :header-rows: 1

   * - Head
     - Other
   * - cell
     - text
       :cite:`nosuch14`

Escaped \:cite:`nosuch15` is no role, and
this one is: :cite:`nosuch15`.

.. a comment with :cite:`quiet2`
   over two lines :cite:`quiet3`

Wrong case
in :cite:`Good` and a malformed
role :cite:p:`{broken`.

.. bibliography::
"""

ROLE = re.compile(r"(?<!\\):(?:foot)?cite(?::[a-z]+)?:`([^`]*)`")


def _roles_by_line(page: str) -> set[tuple[str, int]]:
    """(key, line) of every role outside inline literals and comments, found in the text."""
    found = set()
    for number, line in enumerate(page.split("\n"), start=1):
        for m in ROLE.finditer(re.sub(r"``.*?``", "", line)):
            if "quiet" not in m.group(1):
                found.add((m.group(1).strip("{"), number))
    return found


def test_rest_citations_are_reported_at_their_own_line(tmp_path: Path,
                                                        build: Callable[..., Built]) -> None:
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "index.rst").write_text(PAGE, encoding="utf-8")
    b = build(tmp_path, "text")
    reported = set()
    for line in b.warnings.splitlines():
        m = re.match(r".*index\.rst:(\d+): WARNING: (.*)\[refbook\.([a-z-]+)\]$", line)
        if m is None:
            continue
        key = re.search(r"key '([^']+)'|list '\{?([^']+)'", m.group(2))
        assert key is not None, line
        reported.add((key.group(1) or key.group(2), int(m.group(1))))
    assert "quiet" not in b.warnings
    expected = _roles_by_line(PAGE)
    assert len(expected) == 19
    assert reported == expected
