"""Rules for citations: unknown keys, keys cited with different case, entries never cited.

Where it sits: beside the registry. ``refbook check --docs`` scans Markdown/MyST/reST sources
with :func:`scan_text` (citations in code are skipped, as the hosts skip them) and checks
the keys against the bibliography with :func:`check_citations`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.codemask import mask_code_spans
from refbook.diagnostics import Code, Diagnostic
from refbook.models import Location
from refbook.registry import KeyIndex, unresolved_key
from refbook.role_targets import parse_foot_keys, parse_targets
from refbook.syntax import find_citations
from refbook.validate.rest import rst_prose

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Sequence

    from refbook.models import Bibliography

__all__ = ["CITE_EXAMPLES", "Scan", "check_citations", "cite_example", "lists_every_entry", "read_document", "scan_document",
           "scan_text", "unused_entries"]

# Sphinx roles as sphinxcontrib-bibtex has them: reST ``:cite:p:`a,b```, ``:footcite:`a```
# (a role starts after white space or an opening mark, as docutils' inline markup does), MyST
# ``{cite:p}`a,b```.
RST_ROLE = re.compile(r"(?<![^\s'\"(\[{<\-/:\u2018\u201c\u2019\u00ab\u2013\u2014])"
                      r":(?P<name>(?:foot)?cite)(?::(?P<form>[a-z]+))?:`(?P<text>[^`]*)`")
MYST_ROLE = re.compile(r"\{(?P<name>(?:foot)?cite)(?::(?P<form>[a-z]+))?\}`(?P<text>[^`]*)`")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Scan:
    """What a document cites: each key at its ``document:line``, in order, and the roles that
    cannot be parsed (``citation-syntax``, as the Sphinx roles report them)."""

    cited: tuple[tuple[str, Location], ...]
    problems: tuple[Diagnostic, ...] = ()


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


def _role(m: re.Match[str], where: Location) -> tuple[list[str], Diagnostic | None]:
    """A role's keys, parsed as the Sphinx roles parse them, and its problem if any."""
    if m.group("name") == "footcite":
        keys, problem = parse_foot_keys(m.group("text"))
    else:
        try:
            keys, problem = [r.key for r in parse_targets(m.group("text"))], ""
        except ValueError as err:
            keys, problem = [], str(err)
    if not problem:
        return keys, None
    return keys, Diagnostic(Code.CITATION_SYNTAX, problem, where,
                            "write the keys separated by commas, each with an optional {prefix} "
                            "before and {suffix} after it")


def scan_document(text: str, document: str, *, rst: bool = False) -> Scan:
    """Every cited key of one document with its ``document:line``, and its malformed roles."""
    found: list[tuple[str, Location]] = []
    problems: list[Diagnostic] = []
    prose = rst_prose(text) if rst else text
    # lines counted in the text searched (blanking keeps every line break where it was)
    breaks = [m.start() for m in re.finditer("\n", prose)]

    def line_of(pos: int) -> int:  # a binary search, not a count from the start per citation
        return bisect.bisect_left(breaks, pos) + 1

    def roles(pattern: re.Pattern[str], prose: str) -> None:
        for m in pattern.finditer(prose):
            where = Location(document, line_of(m.start()))
            keys, problem = _role(m, where)
            found.extend((k, where) for k in keys)
            if problem is not None:
                problems.append(problem)

    if rst:
        roles(RST_ROLE, prose)
        return Scan(tuple(found), tuple(problems))
    roles(MYST_ROLE, text)
    prose = _markdown_prose(MYST_ROLE.sub(_blank, text))
    for c in find_citations(prose):
        found.extend((k, Location(document, c.line)) for k in c.keys)
    found.sort(key=lambda kl: kl[1].line)
    return Scan(tuple(found), tuple(problems))


def scan_text(text: str, document: str, *, rst: bool = False) -> list[tuple[str, Location]]:
    """Every cited key of one document with its ``document:line``, in order."""
    return list(scan_document(text, document, rst=rst).cited)


def read_document(path: Path) -> str:
    """A document's text ('' when it cannot be read; undecodable bytes replaced)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def check_citations(bib: Bibliography, cited: Sequence[tuple[str, Location]], *,
                    lists_all: bool = False,
                    syntaxes: Iterable[str] = ("markdown",)) -> list[Diagnostic]:
    """Unknown and case-mismatched keys at their citation; unused entries at their entry.

    ``lists_all``: a document lists every entry (``<!-- refbook:bibliography all -->``, a
    bibliography directive with ``:all:`` or ``:notcited:``), so no entry is unused.
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
        out.append(unresolved_key(key, where, index))
    if not lists_all:
        out += unused_entries(bib, used, syntaxes=syntaxes)
    return out


#: how a page cites a key, by the page's syntax: the example an ``unused-entry`` hint gives
CITE_EXAMPLES = {"rst": (":cite:`{key}`", "reST"), "myst": ("{{cite}}`{key}`", "MyST"),
                 "markdown": ("[@{key}]", "Markdown")}


def cite_example(key: str, syntaxes: Iterable[str]) -> str:
    """How to cite ``key`` in the book's page syntaxes (``rst``, ``myst``, ``markdown``):
    ``:cite:`k``` for a reST book, ``[@k]`` for Markdown, both, named, for a mixed one."""
    known = [s for s in dict.fromkeys(syntaxes) if s in CITE_EXAMPLES] or ["markdown"]
    if len(known) == 1:
        return CITE_EXAMPLES[known[0]][0].format(key=key)
    return ", ".join(f"{CITE_EXAMPLES[s][0].format(key=key)} in {CITE_EXAMPLES[s][1]}"
                     for s in known)


def unused_entries(bib: Bibliography, used: Container[str], *,
                   syntaxes: Iterable[str] = ("markdown",)) -> list[Diagnostic]:
    """An ``unused-entry`` diagnostic at each entry whose key is not in ``used``.

    The hosts pass the keys their reference lists show (cited, ``nocite``, ``all`` lists);
    ``refbook check --docs`` passes the keys the documents cite. ``syntaxes``: those of the
    book's pages, so that the hint shows a citation as the pages write one.
    """
    syntaxes = tuple(syntaxes)
    return [Diagnostic(Code.UNUSED_ENTRY, f"entry {entry.key!r} is never cited nor listed in "
                       "the book", entry.location,
                       f"cite it (e.g. {cite_example(entry.key, syntaxes)}) or remove it; to "
                       "keep it without citing, add refbook-ignore = {unused-entry} to the entry",
                       entry.key)
            for entry in bib if entry.key not in used]


# A list of every entry: the Markdown marker, or a bibliography directive's :all:/:notcited:.
LISTS_ALL = re.compile(r"<!--\s*refbook:bibliography\s+all\s*-->|^[ \t]*:(?:all|notcited):[ \t]*$",
                       re.MULTILINE)


def lists_every_entry(text: str) -> bool:
    """Whether a document's source holds a reference list of every (or every uncited) entry."""
    return bool(LISTS_ALL.search(text)) and ("bibliography" in text)
