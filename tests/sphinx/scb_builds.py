"""Build every test project of sphinxcontrib-bibtex's suite with it and with refbook; count the
linked citations of each HTML build (run by ``tests/sphinx/test_scb_suite.py`` in a subprocess).

Usage: ``python -m tests.sphinx.scb_builds ROOTS OUT.json``. ROOTS is the ``test/roots`` folder of
an unpacked sphinxcontrib-bibtex sdist (its parent's parent goes on ``sys.path``: some roots use
modules of the suite). Each root is copied twice into a temporary folder: as it is, and with
``sphinxcontrib.bibtex`` replaced by ``sphinx_refbook`` in its ``conf.py``; both are built
(html) in this one process, one Sphinx application after the other.

A *linked citation* is a link from the text to an entry of a list (a docutils citation or
footnote of sphinxcontrib-bibtex, a ``refbook-entry`` paragraph or footnote of refbook, an item
of a bullet or enumerated list of entries), on any page; the links of one citation (refbook
links the author part and the year of ``Knuth (1984)`` to the same entry) count once per entry.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import tempfile
import traceback
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: classes of an element that is an entry of a reference list or a footnote
ENTRY_CLASSES = frozenset({"citation", "footnote", "refbook-entry", "csl-entry"})
#: classes of the element that wraps one citation (its links count once per entry)
CITATION_CLASSES = frozenset({"bibtex-citation", "refbook-citation"})
LINK_CLASSES = frozenset({"reference", "footnote-reference"})
_VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "col", "wbr", "area", "base",
                   "source", "embed", "track", "param"})


class _Page(HTMLParser):
    """The entry ids of one page, and its links to ids, grouped by citation."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.entries: set[str] = set()
        #: (href, citation group or -1)
        self.links: list[tuple[str, int]] = []
        self._stack: list[tuple[str, int]] = []  # (tag, citation group or -1)
        self._groups = 0
        self._lists: list[bool] = []  # ul/ol whose items are entries (items carry ids)

    def _group(self) -> int:
        for _, group in reversed(self._stack):
            if group >= 0:
                return group
        return -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        ident = values.get("id")
        if ident and (classes & ENTRY_CLASSES or (tag == "li" and self._lists)):
            self.entries.add(ident)
        if tag in ("ul", "ol"):
            self._lists.append(bool(ident) and "simple" in classes)
        if tag == "a" and classes & LINK_CLASSES and values.get("href") and (
                values.get("role") != "doc-backlink"):
            self.links.append((values["href"] or "", self._group()))
        if tag in _VOID:
            return
        group = -1
        if classes & CITATION_CLASSES:
            self._groups += 1
            group = self._groups
        self._stack.append((tag, group))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ul", "ol") and self._lists:
            self._lists.pop()
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                del self._stack[i:]
                return


def linked_citations(outdir: Path) -> int:
    """The linked citations of an HTML build (see the module's docstring)."""
    pages: dict[str, _Page] = {}
    for path in sorted(outdir.rglob("*.html")):
        if "_static" in path.parts or "_sources" in path.parts:
            continue
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.relative_to(outdir).as_posix()] = page
    total = 0
    for name, page in pages.items():
        seen: set[tuple[int, str, str]] = set()
        for href, group in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.fragment:
                continue
            target = name if not parts.path else (
                Path(name).parent / unquote(parts.path)).as_posix()
            target = str(Path(target)).replace("\\", "/")
            ident = unquote(parts.fragment)
            if target not in pages or ident not in pages[target].entries:
                continue
            if group >= 0:
                if (group, target, ident) in seen:
                    continue
                seen.add((group, target, ident))
            total += 1
    return total


def build(root: Path, extension: str, work: Path) -> dict[str, object]:
    """One HTML build of a copy of ``root`` with ``extension`` in place of sphinxcontrib-bibtex."""
    from sphinx.testing.util import SphinxTestApp

    src = work / "src"
    shutil.copytree(root, src)
    if extension != "sphinxcontrib.bibtex":
        conf = src / "conf.py"
        conf.write_text(conf.read_text(encoding="utf-8").replace(
            "sphinxcontrib.bibtex", extension), encoding="utf-8")
    warnings = io.StringIO()
    result: dict[str, object] = {"built": False, "citations": 0, "error": ""}
    app = None
    try:
        app = SphinxTestApp("html", srcdir=src, status=io.StringIO(), warning=warnings,
                            freshenv=True)
        app.build()
        result["built"] = True
        result["citations"] = linked_citations(Path(app.outdir))
    except Exception:  # a build that fails is a result, not the end of the run
        result["error"] = traceback.format_exc(limit=-3)
    finally:
        if app is not None:
            app.cleanup()
    result["warnings"] = warnings.getvalue().count("WARNING")
    return result


def main(roots: Path, out: Path) -> None:
    sys.path.insert(0, str(roots.parent.parent))  # `test.natbib`, `test.some_module`
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for root in sorted(p for p in roots.iterdir() if (p / "conf.py").is_file()):
            name = root.name.removeprefix("test-")
            results[name] = {}
            for label, extension in (("scb", "sphinxcontrib.bibtex"),
                                     ("refbook", "sphinx_refbook")):
                work = Path(tmp) / label / name
                results[name][label] = build(root, extension, work)
    out.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
