"""Hostile entries never become markup in a Sphinx HTML build.

Sphinx writes nodes, which its HTML writer escapes, so citations in section titles, figure
captions, admonition titles and tables (reStructuredText roles and MyST's Pandoc syntax) show
the entries' markup as text. Every HTML file and the search index are parsed.
"""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING

import sphinx

from tests.hostile import (
    AUTHOR_TEXT,
    HOSTILE_BIB,
    HOSTILE_KEYS,
    HOSTILE_KEYS_BIB,
    attribute_values,
    html_texts,
    markup_problems,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

CONF = """\
project = "hostile"
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["colon_fence"]
refbook_bibfiles = ["refs.bib"]
"""

INDEX = """\
Results of :cite:t:`evil`
=========================

.. toctree::

   other
   page

R :cite:p:`evil`
----------------

.. figure:: x.png
   :alt: alt

   Caption :cite:p:`evil`.

.. note:: Note :cite:p:`evil2`

.. admonition:: Admonition :cite:p:`evil`

   Body :cite:p:`evil2`.

=====  ==================
a      b
=====  ==================
c      :cite:p:`evil;evil2`
=====  ==================
"""

OTHER = """\
About :cite:t:`evil2`
=====================

Text :cite:p:`evil`.
"""

PAGE = """\
# Results in MyST @evil

## R [@evil2]

:::{admonition} Admonition [@evil]
Body [@evil2].
:::

| a | b |
|---|---|
| [@evil] | @evil2 |
"""


def test_hostile_entries_in_titles_captions_admonitions_and_tables(
        tmp_path: Path, build: Callable[..., Built]) -> None:
    for name, text in (("conf.py", CONF), ("refs.bib", HOSTILE_BIB), ("index.rst", INDEX),
                       ("other.rst", OTHER), ("page.md", PAGE)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "x.png").write_bytes(b"")
    built = build(tmp_path, "html")
    problems = []
    pages = sorted(built.outdir.rglob("*.html"))
    assert len(pages) >= 5
    for path in pages:
        problems += markup_problems(path.read_text(encoding="utf-8"), path.name)
    # the search index holds plain text, which Sphinx's script escapes before showing it
    index = built.read("searchindex.js")
    data = json.loads(index.removeprefix("Search.setIndex(").removesuffix(")"))
    titles = [*data["titles"], *data["alltitles"]]
    if sphinx.version_info >= (9,):  # the search page escapes what it shows
        assert f"R ({AUTHOR_TEXT} 2020)" in titles
        assert "_escapeHTML(title)" in built.read("_static/searchtools.js")
    else:  # it shows titles as HTML: refbook escapes the section titles (as Sphinx the pages')
        assert "_escapeHTML(title)" not in built.read("_static/searchtools.js")
        assert f"R ({html.escape(AUTHOR_TEXT, quote=False)} 2020)" in titles
        assert not [t for t in titles if "<" in t or ">" in t]
    assert problems == []
    # the entry's markup shows as text: in the section title, hover titles and the list
    index_html = built.read("index.html")
    assert f"R ({AUTHOR_TEXT} 2020)¶" in html_texts(index_html, "h2")
    assert any(t.startswith(f"{AUTHOR_TEXT}. 2020.") for t in html_texts(index_html, "p",
                                                                          **{"class": "csl-entry refbook-entry"}))


def test_a_key_that_looks_like_python_is_only_a_key(tmp_path: Path,
                                                    build: Callable[..., Built]) -> None:
    """A cited key is never evaluated: a key starting with ``(`` used to be read as a Python
    literal, and 6 kB of ``(1+1+…)`` crashed the build with a RecursionError."""
    deep = "(" + "1+" * 3000 + "1)"
    (tmp_path / "conf.py").write_text(
        'extensions = ["sphinx_refbook"]\nrefbook_bibfiles = ["refs.bib"]\n', encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@book{a, author = {Ann, A}, title = {T}, year = {2000}}\n",
                                       encoding="utf-8")
    (tmp_path / "index.rst").write_text(
        f"Home\n====\n\nDeep :cite:p:`{deep}`, narrative :cite:t:`(a)`, real :cite:p:`a`.\n",
        encoding="utf-8")
    built = build(tmp_path, "html")
    unknown = re.findall(r"citation key (.*?) is not in any bibliography file", built.warnings)
    assert unknown == [repr(deep), repr("(a)")]
    page = built.read("index.html")
    assert page.count('href="#ref-a"') == 1  # the real citation only
    assert html_texts(page, "span", **{"class": "refbook-unknown"}) == [
        f"{deep}?", "(a)?"]


def test_hostile_keys_in_anchors_links_and_markers(tmp_path: Path,
                                                   build: Callable[..., Built]) -> None:
    """Keys reach ids, hrefs and the unknown-key marker as attribute values or text."""
    unknown = 'u"><svg/onload=alert(22)>'
    roles = " ".join(":cite:p:`" + k.replace("`", "\\`") + "`" for k in (*HOSTILE_KEYS, unknown))
    (tmp_path / "conf.py").write_text(
        'extensions = ["sphinx_refbook"]\nrefbook_bibfiles = ["refs.bib"]\n', encoding="utf-8")
    (tmp_path / "refs.bib").write_text(HOSTILE_KEYS_BIB, encoding="utf-8")
    (tmp_path / "index.rst").write_text(f"Home\n====\n\nText {roles}.\n", encoding="utf-8")
    built = build(tmp_path, "html")
    page = built.read("index.html")
    assert markup_problems(page, "index.html") == []
    assert [v for v in attribute_values(page, "id") if v.startswith("ref-")] == [
        f"ref-{k}" for k in HOSTILE_KEYS]
    assert sorted({v for v in attribute_values(page, "href") if v.startswith("#ref-")}) == sorted(
        f"#ref-{k}" for k in HOSTILE_KEYS)
    assert html_texts(page, "span", **{"class": "refbook-unknown"}) == [f"{unknown}?"]
