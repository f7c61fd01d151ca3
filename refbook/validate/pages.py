"""Which files under a folder given to ``refbook check --docs`` are the book's pages.

Where it sits: before the citation scan of :mod:`refbook.validate.citations`. A folder is
walked as its host reads it, so that ``--docs .`` in a project reports what its build reports:

- never a build's output or tooling: ``_build``, hidden folders (``.venv``, ``.git``), a
  virtual environment (a ``pyvenv.cfg``), ``node_modules``, ``__pycache__``, and a folder that
  holds a built site (Sphinx's ``.buildinfo``, MkDocs' ``search/search_index.json``);
- where a folder has a Sphinx ``conf.py``: its ``exclude_patterns`` (Sphinx's patterns, relative
  to that folder) and its ``source_suffix`` (and ``.md`` with MyST), read as plain data with
  :mod:`ast` — ``conf.py`` is never run; a value that is no literal is reported as a note and
  the default kept;
- where a folder has a ``mkdocs.yml``: only its ``docs_dir`` (``docs``) is read, never its
  ``site_dir`` (``site``), and only Markdown files there.

A file named on the command line is always read. Each page comes with how to read it: ``rst``
(reST roles), ``myst`` (Markdown of a Sphinx project: MyST roles and Pandoc citations, text in
directive fences), ``mkdocs`` (Pandoc citations outside fenced and indented code, as the MkDocs
plugin reads them) or ``markdown`` (no host found: Pandoc citations and MyST roles outside
fenced code). A folder inside a project — ``--docs
docs`` with ``conf.py`` one level up, as ``sphinx-build -c .`` has it — takes its kind of
Markdown from the nearest ``conf.py`` or ``mkdocs.yml`` above it (in the same repository); only
the rules of a host file inside the folder skip files.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["DOC_SUFFIXES", "Page", "Pages", "find_pages", "page_kind"]

DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt")
MKDOCS_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
SKIPPED_NAMES = frozenset({"_build", "node_modules", "__pycache__"})
# what a folder of built HTML holds (Sphinx, MkDocs); not objects.inv or sitemap.xml, which a
# source folder may hold too (a local intersphinx inventory, a hand-written sitemap)
BUILT_MARKERS = (".buildinfo", "search/search_index.json")


@record(frozen=True)
class Page:
    path: Path
    kind: str  # "rst", "myst", "mkdocs" or "markdown"


@record(frozen=True)
class Pages:
    pages: tuple[Page, ...]
    notes: tuple[str, ...] = ()  # what could not be read of a host's configuration


def page_kind(path: Path, markdown: str = "markdown") -> str:
    """How a page named on the command line is read: by its suffix (``markdown``: the kind of
    a Markdown page where it is)."""
    return "rst" if path.suffix.lower() == ".rst" else markdown


def _markdown_above(path: Path) -> str:
    """How the nearest host file above ``path`` (within its repository) reads Markdown: a
    Sphinx ``conf.py`` as MyST (where both are, Sphinx reads more), a ``mkdocs.yml`` as MkDocs;
    ``markdown`` without either."""
    try:
        here = path.resolve()
    except OSError:
        return "markdown"
    for folder in here.parents:
        if (folder / "conf.py").is_file():
            return _read_conf(folder / "conf.py", []).suffixes.get(".md", "markdown")
        if (folder / "mkdocs.yml").is_file() or (folder / "mkdocs.yaml").is_file():
            return "mkdocs"
        if (folder / ".git").exists():
            break
    return "markdown"


@record(frozen=True)
class _Sphinx:
    root: Path
    exclude: tuple[re.Pattern[str], ...]
    suffixes: dict[str, str]  # suffix -> "rst" / "myst"


@record(frozen=True)
class _MkDocs:
    root: Path
    docs_dir: Path
    site_dir: Path


def find_pages(paths: Iterable[Path]) -> Pages:
    """The pages under ``paths`` (files as given, folders walked as their hosts read them)."""
    pages: list[Page] = []
    notes: list[str] = []
    for p in paths:
        if p.is_dir():
            pages += _walk(p, notes)
        else:
            pages.append(Page(p, page_kind(p, _markdown_above(p))))
    return Pages(tuple(pages), tuple(notes))


def _walk(top: Path, notes: list[str]) -> list[Page]:
    found: list[Page] = []
    above = _markdown_above(top / "x")
    sphinx: list[_Sphinx] = []
    mkdocs: list[_MkDocs] = []
    for dirpath, dirnames, filenames in os.walk(top):  # top-down: a host file before its pages
        here = Path(dirpath)
        if "conf.py" in filenames:
            sphinx.append(_read_conf(here / "conf.py", notes))
        for name in ("mkdocs.yml", "mkdocs.yaml"):
            if name in filenames:
                mkdocs.append(_read_mkdocs(here / name))
                break
        dirnames[:] = sorted(d for d in dirnames if not _skipped(here / d, sphinx, mkdocs))
        for name in sorted(filenames):
            kind = _kind(here / name, sphinx, mkdocs, above)
            if kind is not None:
                found.append(Page(here / name, kind))
    return found


def _skipped(folder: Path, sphinx: list[_Sphinx], mkdocs: list[_MkDocs]) -> bool:
    name = folder.name
    if name.startswith(".") or name in SKIPPED_NAMES or (folder / "pyvenv.cfg").exists():
        return True
    if any((folder / marker).exists() for marker in BUILT_MARKERS):
        return True
    for m in mkdocs:
        if folder == m.site_dir:
            return True
        # beside docs_dir: not read by MkDocs (unless Sphinx reads it)
        if (folder.parent == m.root and not _within(m.docs_dir, folder)
                and not any(_within(folder, s.root) for s in sphinx)):
            return True
    return any(_within(folder, s.root) and _excluded(folder, s) for s in sphinx)


def _kind(path: Path, sphinx: list[_Sphinx], mkdocs: list[_MkDocs], above: str) -> str | None:
    """How a file found in a walk is read, or None when no host reads it as a page."""
    suffix = path.suffix.lower()
    hosts = False
    for s in reversed(sphinx):  # the innermost conf.py decides
        if _within(path, s.root):
            hosts = True
            if suffix in s.suffixes and not _excluded(path, s):
                return s.suffixes[suffix]
            break
    for m in mkdocs:
        if _within(path, m.root):
            hosts = True
            if _within(path, m.docs_dir) and suffix in MKDOCS_SUFFIXES:
                return "mkdocs"
    if hosts or suffix not in DOC_SUFFIXES:
        return None
    return "rst" if suffix == ".rst" else above


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _excluded(path: Path, s: _Sphinx) -> bool:
    rel = path.relative_to(s.root).as_posix()
    return any(p.fullmatch(rel) for p in s.exclude)


def _matcher(pattern: str) -> re.Pattern[str]:
    """Sphinx's glob for ``exclude_patterns``: ``**`` crosses folders, ``*`` and ``?`` do not."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                negate = body.startswith("!")
                body = re.escape(body[1:] if negate else body).replace("\\-", "-")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out))


_SPHINX_DEFAULT_SUFFIXES = {".rst": "rst"}


def _read_conf(conf: Path, notes: list[str]) -> _Sphinx:
    """``exclude_patterns``, ``source_suffix`` and ``extensions`` of a ``conf.py``, as data."""
    root = conf.parent
    try:
        tree = ast.parse(conf.read_text(encoding="utf-8", errors="replace"), str(conf))
    except (OSError, SyntaxError, ValueError) as exc:
        notes.append(f"{conf}: note: cannot be read ({exc.__class__.__name__}); every page but "
                     "those in _build and hidden folders is checked")
        return _Sphinx(root, (), {**_SPHINX_DEFAULT_SUFFIXES, ".md": "myst"})
    values = _assignments(tree)
    exclude: list[str] = []
    raw = values.get("exclude_patterns")
    if raw is not None:
        if isinstance(raw, list) and all(isinstance(p, str) for p in raw):
            exclude = raw
        else:
            notes.append(f"{conf}: note: exclude_patterns is not a plain list of strings (refbook "
                         "reads conf.py without running it); only _build and hidden folders "
                         "are skipped")
    suffixes = dict(_SPHINX_DEFAULT_SUFFIXES)
    raw = values.get("source_suffix")
    if isinstance(raw, str):
        suffixes = {raw.lower(): "rst"}
    elif isinstance(raw, list) and all(isinstance(s, str) for s in raw):
        suffixes = {s.lower(): "rst" for s in raw}
    elif isinstance(raw, dict) and all(isinstance(s, str) for s in raw):
        suffixes = {s.lower(): "myst" if "markdown" in str(v) or "myst" in str(v) else "rst"
                    for s, v in raw.items()}
    elif raw is not None:
        notes.append(f"{conf}: note: source_suffix is not plain data; .rst and .md files are read")
        suffixes[".md"] = "myst"
    extensions = values.get("extensions")
    if isinstance(extensions, list) and any(
            isinstance(e, str) and e.startswith("myst") for e in extensions):
        suffixes.setdefault(".md", "myst")
    return _Sphinx(root, tuple(_matcher(p) for p in exclude), suffixes)


_UNKNOWN = object()


def _assignments(tree: ast.Module) -> dict[str, object]:
    """Names bound at the top level of a module (in ``if``/``try`` blocks too) to literals;
    ``+=`` of a literal list extends one. A value that is not a literal is ``_UNKNOWN``."""
    values: dict[str, object] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        values[t.id] = _literal(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                old, new = values.get(node.target.id), _literal(node.value)
                values[node.target.id] = (old + new if isinstance(old, list)
                                          and isinstance(new, list) else _UNKNOWN)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return values


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


_YAML_KEY = re.compile(r"^(docs_dir|site_dir)[ \t]*:[ \t]*(?P<value>.*?)[ \t]*(?:#.*)?$")


def _read_mkdocs(yml: Path) -> _MkDocs:
    """``docs_dir`` and ``site_dir`` of a ``mkdocs.yml`` (top-level keys; MkDocs' defaults)."""
    root = yml.parent
    found = {"docs_dir": "docs", "site_dir": "site"}
    try:
        lines = yml.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        m = _YAML_KEY.match(line)
        if m and m.group("value"):
            found[m.group(1)] = m.group("value").strip("'\"")
    return _MkDocs(root, root / found["docs_dir"], root / found["site_dir"])
