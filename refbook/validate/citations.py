"""Rules for citations: unknown keys, keys cited with different case, entries never cited.

Where it sits: beside the registry. ``refbook check --docs`` scans Markdown/MyST/reST sources
with :func:`scan_text` (citations in code are skipped, as the hosts skip them) and checks
the keys against the bibliography with :func:`check_citations`.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.codemask import mask_code_spans
from refbook.diagnostics import Code, Diagnostic
from refbook.models import Location
from refbook.registry import KeyIndex, case_folded_key, unresolved_key
from refbook.syntax import find_citations

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Sequence

    from refbook.models import Bibliography

__all__ = ["DOC_SUFFIXES", "check_citations", "find_documents", "lists_every_entry", "read_document",
           "scan_text", "unused_entries"]

DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt")
# Sphinx roles (reST ``:cite:p:`a,b```, MyST ``{cite:p}`a,b```) as sphinxcontrib-bibtex has them.
RST_ROLE = re.compile(r":cite(?::[a-z]+)?:`([^`]*)`")
MYST_ROLE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]*)`")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
RST_LITERAL = re.compile(r"^\s*\.\. (?:code-block|code|sourcecode|literalinclude)::|::\s*$")


def _role_keys(text: str) -> list[str]:
    text = re.sub(r"\{[^{}]*\}", "", text)  # {pre}key{post}
    return [k.strip() for k in text.split(",") if k.strip()]


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def _markdown_prose(text: str) -> str:
    """``text`` with fenced code blocks and inline code blanked out (lines kept)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(line)
    return mask_code_spans("\n".join(out))


def _rst_prose(text: str) -> str:
    """reST ``text`` with literal blocks (``::`` and code directives) blanked out."""
    out: list[str] = []
    literal_indent = -1
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        if literal_indent >= 0:
            if not line.strip() or indent > literal_indent:
                out.append("")
                continue
            literal_indent = -1
        if RST_LITERAL.search(line):
            literal_indent = indent
        out.append(line)
    return "\n".join(out)


def scan_text(text: str, document: str, *, rst: bool = False) -> list[tuple[str, Location]]:
    """Every cited key of one document with its ``document:line``, in order."""
    found: list[tuple[str, Location]] = []

    breaks = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:  # a binary search, not a count from the start per citation
        return bisect.bisect_left(breaks, pos) + 1

    if rst:
        for m in RST_ROLE.finditer(_rst_prose(text)):
            found.extend((k, Location(document, line_of(m.start()))) for k in _role_keys(m.group(1)))
        return found
    for m in MYST_ROLE.finditer(text):
        found.extend((k, Location(document, line_of(m.start()))) for k in _role_keys(m.group(1)))
    prose = _markdown_prose(MYST_ROLE.sub(_blank, text))
    for c in find_citations(prose):
        found.extend((k, Location(document, c.line)) for k in c.keys)
    found.sort(key=lambda kl: kl[1].line)
    return found


def read_document(path: Path) -> str:
    """A document's text ('' when it cannot be read; undecodable bytes replaced)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def find_documents(paths: Iterable[Path]) -> list[Path]:
    """The documentation sources under ``paths`` (files as given, directories recursively)."""
    docs: list[Path] = []
    for p in paths:
        if p.is_dir():
            docs.extend(sorted(q for q in p.rglob("*") if q.is_file()
                               and q.suffix.lower() in DOC_SUFFIXES
                               and not any(part.startswith(".") for part in q.parts)))
        else:
            docs.append(p)
    return docs


def check_citations(bib: Bibliography, cited: Sequence[tuple[str, Location]], *,
                    lists_all: bool = False, fold_case: bool = False,
                    syntax: str = "markdown") -> list[Diagnostic]:
    """Unknown and case-mismatched keys at their citation; unused entries at their entry.

    ``fold_case``: a key cited with other letter case stands for its entry (``key-case``), as
    in the MkDocs host (``Registry.resolve(fold_case=True)``).
    ``lists_all``: a document lists every entry (``<!-- refbook:bibliography all -->``, a
    bibliography directive with ``:all:`` or ``:notcited:``), so no entry is unused.
    ``syntax``: the documents' citation syntax, for the unused-entry hint (see
    :func:`unused_entries`).
    """
    out: list[Diagnostic] = []
    index = KeyIndex(bib.keys())  # a Bibliography iterates entries, not keys
    used: set[str] = set()
    for key, where in cited:
        if key in bib:
            used.add(key)
            continue
        right = index.with_other_case(key)
        if right is not None:
            used.add(right)
            if fold_case:
                out.append(case_folded_key(key, right, where))
                continue
        out.append(unresolved_key(key, where, index))
    if not lists_all:
        out += unused_entries(bib, used, syntax=syntax)
    return out


#: how a book cites a key, by the syntax of its documents (one hint, in the book's syntax)
CITE_EXAMPLE = {"markdown": "[@{key}]", "rst": ":cite:`{key}`", "myst": "{{cite}}`{key}`",
                "sphinx": ":cite:`{key}` in reST, {{cite}}`{key}` in MyST"}


def unused_entries(bib: Bibliography, used: Container[str], *,
                   syntax: str = "markdown") -> list[Diagnostic]:
    """An ``unused-entry`` diagnostic at each entry whose key is not in ``used``.

    The hosts pass the keys their reference lists show (cited, ``nocite``, ``all`` lists);
    ``refbook check --docs`` passes the keys the documents cite. ``syntax``: a key of
    :data:`CITE_EXAMPLE` (``markdown`` for Pandoc/MkDocs, ``rst``, ``myst``, ``sphinx`` for both).
    """
    example = CITE_EXAMPLE.get(syntax, CITE_EXAMPLE["markdown"])
    return [Diagnostic(Code.UNUSED_ENTRY, f"entry {entry.key!r} is never cited nor listed in "
                       "the book", entry.location,
                       f"cite it (e.g. {example.format(key=entry.key)}) or remove it; to keep it "
                       "without citing, "
                       "add refbook-ignore = {unused-entry} to the entry", entry.key)
            for entry in bib if entry.key not in used]


# A list of every entry: the Markdown marker, or a bibliography directive's :all:/:notcited:.
LISTS_ALL = re.compile(r"<!--\s*refbook:bibliography\s+all\s*-->|^[ \t]*:(?:all|notcited):[ \t]*$",
                       re.MULTILINE)


def lists_every_entry(text: str) -> bool:
    """Whether a document's source holds a reference list of every (or every uncited) entry."""
    return bool(LISTS_ALL.search(text)) and ("bibliography" in text)
