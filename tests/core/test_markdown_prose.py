"""``refbook check --docs`` on Markdown: MyST directive fences (text unless they hold code, with
nesting, colon fences, options and a YAML block) and MkDocs pages (no roles, indented code).

Whole pages are compared with the hosts run live in ``tests/sphinx/test_lines.py`` (MyST) and
``tests/test_host_parity.py`` (MkDocs); these pin each rule on its own.
"""

from __future__ import annotations

import pytest

from refbook.validate.citations import scan_document
from refbook.validate.myst import markdown_prose_blocks
from tests.growth import LIMIT, doubling_ratio


def cited(page: str, kind: str) -> list[tuple[str, int]]:
    return [(k, where.line) for k, where in scan_document(page, "p.md", kind=kind).cited]


NESTED = """\
````{admonition} Title [@nosuch1]
:class: tip
:name: box

Body {cite}`nosuch2`.

```{code-block} python
x = "[@quiet1] {cite}`quiet2`"
```

```python
[@quiet3]
```

After [@nosuch3].
````

:::{note}
---
class: x
---
Colon fence [@nosuch4]
:::

```{math}
[@quiet4]
```
"""


def test_myst_directive_fences_hold_text_unless_they_hold_code() -> None:
    lines = NESTED.split("\n")
    expected = [(f"nosuch{i}", next(n for n, x in enumerate(lines, 1) if f"nosuch{i}" in x))
                for i in range(1, 5)]
    assert cited(NESTED, "myst") == expected


def test_plain_markdown_fences_are_code() -> None:
    # ":::" is no fence outside MyST: its lines are text
    colon = next(n for n, x in enumerate(NESTED.split("\n"), 1) if "nosuch4" in x)
    assert cited(NESTED, "markdown") == [("nosuch4", colon)]
    assert cited(NESTED, "mkdocs") == [("nosuch4", colon)]


def test_myst_roles_in_code_are_no_citations() -> None:
    page = "A `` {cite}`quiet1` `` span, {cite}`nosuch1` and `{cite}`.\n\n```\n{cite}`quiet2`\n```\n"
    assert cited(page, "myst") == [("nosuch1", 1)]
    assert cited(page, "markdown") == [("nosuch1", 1)]


def test_mkdocs_pages_have_no_roles_and_indented_code() -> None:
    page = "Text [@nosuch1] {cite}`quiet1`.\n\n    [@quiet2]\n\n- item\n\n    [@nosuch2]\n"
    assert cited(page, "mkdocs") == [("nosuch1", 1), ("nosuch2", 7)]


def test_blanking_keeps_every_offset() -> None:
    prose = markdown_prose_blocks(NESTED, myst=True)
    assert len(prose) == len(NESTED)
    assert prose.count("\n") == NESTED.count("\n")


@pytest.mark.parametrize("unit", ["```{note}\n", "````{note}\n```\n", ":::{x}\n:a: b\n",
                                  "``` ``` {cite}`a`\n"])
def test_markdown_scan_is_linear(unit: str) -> None:
    ratio = doubling_ratio(lambda n, _attempt: unit * (n // len(unit)),
                           lambda t: scan_document(t, "p.md", kind="myst"), 20_000)
    assert ratio <= LIMIT, (unit, ratio)
