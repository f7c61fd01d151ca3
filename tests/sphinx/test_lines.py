"""A citation's own line in reST pages: Sphinx reports an unknown key, a wrong-case key and a
malformed role at the line the role starts on, not at the first line of its paragraph, in every
block that holds text (lists, tables, admonitions, definition lists, field lists, quotes, line
blocks), for ``:cite:`` and ``:footcite:`` alike, and for the same role written twice in one
paragraph. Roles in inline literals and comments are no citations."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from refbook.cli import main

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


# Directive blocks (options, content, nesting), literal blocks, code, comments, substitutions:
# every "nosuch" role is a citation to Sphinx, no "quiet" one is.
DIRECTIVES = r"""Directives
==========

.. note::

   A note :cite:`nosuchD1`
   on two lines :cite:`nosuchD2`.

.. code-block:: python
   :linenos:
   :caption: Code

   print(":cite:`quietD1`")

   more = ":cite:`quietD2`"

After the code :cite:`nosuchD3`.

A paragraph ending in a literal block::

    :cite:`quietD3` in a literal block

      deeper :cite:`quietD4`

- A list item with a literal block::

      :cite:`quietD5`

  and the item goes on :cite:`nosuchD4`.

Expanded form:

::

   :cite:`quietD6`

.. comment :cite:`quietD7`
   still the comment :cite:`quietD8`

..
   an empty-first-line comment :cite:`quietD9`

.. admonition:: A title with :cite:`nosuchD5`
   :class: tip

   Body :cite:`nosuchD6`.

   .. code-block:: rst

      :cite:`quietD10`

   .. note::

      Nested :cite:`nosuchD7`.

      .. math::

         x = :cite:`quietD11`

   Back in the admonition
   :cite:`nosuchD8`.

.. figure:: nothing.png
   :alt: an image :cite:`quietD12`

   The caption :cite:`nosuchD9`.

.. toctree::
   :hidden:

.. only:: html

   Only html :cite:`nosuchD10`.

.. |sub| replace:: substituted :cite:`nosuchD11`

Uses |sub| here.

.. _target:

.. raw:: html

   <p>:cite:`quietD13`</p>

Quoted literal::

> :cite:`quietD14`
> more

Inline ``:cite:`quietD15``` literal and ``a`` then :cite:`nosuchD12`
and :footcite:`nosuchD13` in a paragraph.

.. [#f1] A footnote :cite:`nosuchD14`.

Last line :cite:`nosuchD15`.
"""


def _refbook_rows(warnings: str, page: str) -> set[tuple[str, int]]:
    rows = set()
    for line in warnings.splitlines():
        m = re.match(rf".*{re.escape(page)}:(\d+): WARNING: .*\[refbook\.([a-z-]+)\]$", line)
        if m is not None:
            rows.add((f"refbook.{m.group(2)}", int(m.group(1))))
    return rows


@pytest.mark.parametrize(("page", "text", "count"), [("index.rst", PAGE, 19),
                                                      ("directives.rst", DIRECTIVES, 15)])
def test_check_docs_reports_what_sphinx_reports(tmp_path: Path, build: Callable[..., Built],
                                                capsys: pytest.CaptureFixture[str], page: str,
                                                text: str, count: int) -> None:
    """``refbook check --docs`` reads a reST page as Sphinx does: the same codes at the same
    lines, after directives of every kind, never in literals, code or comments."""
    (tmp_path / "conf.py").write_text(CONF, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / page).write_text(text, encoding="utf-8")
    if page != "index.rst":
        (tmp_path / "index.rst").write_text(f"Home\n====\n\n.. toctree::\n\n   {page[:-4]}\n",
                                            encoding="utf-8")
    sphinx = _refbook_rows(build(tmp_path, "text").warnings, page)
    assert len({line for _, line in sphinx}) == count
    assert main(["check", str(tmp_path / "refs.bib"), "--docs", str(tmp_path / page),
                 "--format", "json"]) == 1
    check = {(r["code"], r["line"]) for r in json.loads(capsys.readouterr().out)
             if r["file"].endswith(page)}
    assert check == sphinx


# A MyST page: roles and Pandoc citations in directive fences are citations, in code not.
MYST = """# MyST

A paragraph over
two lines {cite:p}`nosuchM1` and [@nosuchM2].

```{note}
In a note {cite}`nosuchM3`
and [@nosuchM4].
```

````{admonition} A title
:class: tip

Body {cite:t}`nosuchM5`.

```{code-block} python
print("{cite}`quietM1` [@quietM2]")
```

After the nested code [@nosuchM6].
````

```python
x = "{cite}`quietM3` [@quietM4]"
```

Inline `` {cite}`quietM5` `` code and `[@quietM6]` then {cite}`nosuchM7`.

```{math}
{cite}`quietM7`
```

- A list item
  over two lines {cite}`nosuchM9`
  and three {cite}`nosuchM9`.

> A quote
> with {cite:t}`nosuchM10` in it.

Last [@nosuchM8].
"""

MYST_CONF = """\
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown"}
refbook_bibfiles = ["refs.bib"]
"""


def test_check_docs_reads_a_myst_page_as_sphinx_does(tmp_path: Path, build: Callable[..., Built],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """In a Sphinx project, ``refbook check --docs`` reads a Markdown page as MyST: a directive
    fence holds text (unless the directive holds code), code holds no citation."""
    (tmp_path / "conf.py").write_text(MYST_CONF, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "index.md").write_text(MYST, encoding="utf-8")
    sphinx = _refbook_rows(build(tmp_path, "text").warnings, "index.md")
    # each at its own line (MyST gives a role its paragraph's first line, as docutils does)
    assert {line for _, line in sphinx} == {
        i for i, line in enumerate(MYST.split("\n"), start=1) if "nosuch" in line}
    assert main(["check", str(tmp_path / "refs.bib"), "--docs", str(tmp_path), "--format",
                 "json"]) == 1
    check = {(r["code"], r["line"]) for r in json.loads(capsys.readouterr().out)
             if r["file"].endswith("index.md")}
    assert check == sphinx
