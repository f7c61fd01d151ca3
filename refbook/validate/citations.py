"""Rules for citations: unknown keys, keys cited with different case, entries never cited.

Where it sits: beside the registry. ``refbook check --docs`` finds the pages as their host reads
them (:mod:`refbook.validate.pages`), scans each with :func:`scan_document` — reST without its
literal text (:mod:`refbook.validate.rest`), Markdown without its code
(:mod:`refbook.validate.myst`, :mod:`refbook.codemask`), as the hosts skip them — and checks the
keys against the bibliography with :func:`check_citations`.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.codemask import code_spans, mask_code_spans, mask_mkdocs_code
from refbook.diagnostics import Code, Diagnostic
from refbook.models import Location
from refbook.records import record
from refbook.registry import KeyIndex, case_folded_key, unresolved_key
from refbook.role_targets import parse_foot_keys, parse_targets
from refbook.syntax import find_citations

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Sequence

    from refbook.models import Bibliography, Entry

__all__ = ["CITE_EXAMPLES", "Scan", "check_citations", "cite_example", "lists_every_entry",
           "read_document", "scan_document", "scan_text", "unused_entries"]

# Sphinx roles as sphinxcontrib-bibtex has them: reST ``:cite:p:`a,b```, ``:footcite:`a```
# (a role starts after white space or an opening mark, as docutils' inline markup does), MyST
# ``{cite:p}`a,b```.
RST_ROLE = re.compile(r"(?<![^\s'\"(\[{<\-/:\u2018\u201c\u2019\u00ab\u2013\u2014])"
                      r":(?P<name>(?:foot)?cite)(?::(?P<form>[a-z]+))?:`(?P<text>[^`]*)`")
MYST_ROLE = re.compile(r"\{(?P<name>(?:foot)?cite)(?::(?P<form>[a-z]+))?\}`(?P<text>[^`]*)`")


@record(frozen=True)
class Scan:
    """What a document cites: each key at its ``document:line``, in order, and the roles that
    cannot be parsed (``citation-syntax``, as the Sphinx roles report them)."""

    cited: tuple[tuple[str, Location], ...]
    problems: tuple[Diagnostic, ...] = ()


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


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


def scan_document(text: str, document: str, *, kind: str = "markdown") -> Scan:
    """Every cited key of one document with its ``document:line``, and its malformed roles.

    ``kind``: ``rst`` (reST roles), ``myst`` (a Sphinx project's Markdown: MyST roles and
    Pandoc citations, directive fences hold text), ``mkdocs`` (Pandoc citations outside fenced
    and indented code, as the MkDocs plugin reads them) or ``markdown`` (Pandoc citations and
    MyST roles; every fence is code).
    """
    found: list[tuple[str, Location]] = []
    problems: list[Diagnostic] = []
    # the reST and MyST readers are imported by the kinds that use them: a MkDocs build never
    # scans reST (tests/mkdocs/test_lazy_imports.py)
    if kind == "rst":
        from refbook.validate.rest import rst_prose

        prose = rst_prose(text)
    elif kind == "mkdocs":
        prose = mask_mkdocs_code(text)
    else:
        from refbook.validate.myst import markdown_prose_blocks

        prose = markdown_prose_blocks(text, myst=kind == "myst")
    # lines counted in the text searched (blanking keeps every line break where it was)
    breaks = [m.start() for m in re.finditer("\n", prose)]

    def line_of(pos: int) -> int:  # a binary search, not a count from the start per citation
        return bisect.bisect_left(breaks, pos) + 1

    def add_role(m: re.Match[str]) -> None:
        where = Location(document, line_of(m.start()))
        keys, problem = _role(m, where)
        found.extend((k, where) for k in keys)
        if problem is not None:
            problems.append(problem)

    if kind == "rst":
        for m in RST_ROLE.finditer(prose):
            add_role(m)
        return Scan(tuple(found), tuple(problems))
    if kind == "mkdocs":  # no roles in MkDocs
        found.extend((k, Location(document, c.line)) for c in find_citations(prose)
                     for k in c.keys)
        return Scan(tuple(found), tuple(problems))
    # a role's text is a code span of its own; a role inside another code span is code
    spans = code_spans(prose)
    starts = [s for s, _ in spans]
    for m in MYST_ROLE.finditer(prose):
        i = bisect.bisect_left(starts, m.start()) - 1
        if i < 0 or spans[i][1] <= m.start():
            add_role(m)
    for c in find_citations(mask_code_spans(MYST_ROLE.sub(_blank, prose))):
        found.extend((k, Location(document, c.line)) for k in c.keys)
    found.sort(key=lambda kl: kl[1].line)
    return Scan(tuple(found), tuple(problems))


def scan_text(text: str, document: str, *, rst: bool = False) -> list[tuple[str, Location]]:
    """Every cited key of one document with its ``document:line``, in order."""
    return list(scan_document(text, document, kind="rst" if rst else "markdown").cited)


def read_document(path: Path) -> str:
    """A document's text ('' when it cannot be read; undecodable bytes replaced)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def check_citations(bib: Bibliography, cited: Sequence[tuple[str, Location]], *,
                    lists_all: bool = False, fold_case: bool = False,
                    syntaxes: Iterable[str] = ("markdown",)) -> list[Diagnostic]:
    """Unknown and case-mismatched keys at their citation; unused entries at their entry.

    ``fold_case``: a key cited with other letter case stands for its entry (``key-case``), as
    in the MkDocs host (``Registry.resolve(fold_case=True)``).
    ``lists_all``: a document lists every entry (``<!-- refbook:bibliography all -->``, a
    bibliography directive with ``:all:`` or ``:notcited:``), so no entry is unused.
    ``syntaxes``: the pages' syntaxes, for the unused-entry hint (see :func:`unused_entries`).
    """
    out: list[Diagnostic] = []
    index = KeyIndex(bib.keys())  # a Bibliography iterates entries, not keys
    for key, where in cited:
        if key in bib:
            continue
        right = index.with_other_case(key)
        if right is not None and fold_case:
            out.append(case_folded_key(key, right, where))
            continue
        out.append(unresolved_key(key, where, index))
    if not lists_all:
        # a key cited in another letter case keeps its entry from being unused either way
        out += unused_entries(bib, _cited_keys(bib, cited, index, fold_case=True),
                              syntaxes=syntaxes)
    return out


def printed_keys(bib: Bibliography, cited: Iterable[tuple[str, Location]], *,
                 lists_all: bool = False, fold_case: bool = False) -> frozenset[str] | None:
    """The keys of the entries that the documents print, None when a document lists every
    entry (``lists_all``): what ``refbook check --docs`` passes on as the rules' ``printed``,
    as the hosts do. ``fold_case``: a key cited in another letter case prints its entry (the
    MkDocs host; in Sphinx it is an unknown key, ``cite-case``)."""
    if lists_all:
        return None
    return frozenset(_cited_keys(bib, cited, KeyIndex(bib.keys()), fold_case=fold_case))


def _cited_keys(bib: Bibliography, cited: Iterable[tuple[str, Location]], index: KeyIndex, *,
                fold_case: bool) -> set[str]:
    used: set[str] = set()
    for key, _ in cited:
        if key in bib:
            used.add(key)
        elif fold_case:
            right = index.with_other_case(key)
            if right is not None:
                used.add(right)
    return used


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


def unused_entries(bib: Iterable[Entry], used: Container[str], *,
                   syntaxes: Iterable[str] = ("markdown",)) -> list[Diagnostic]:
    """An ``unused-entry`` diagnostic at each entry whose key is not in ``used``.

    ``bib``: a bibliography, or some of its entries. The hosts pass the keys their reference
    lists show (cited, ``nocite``, ``all`` lists);
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
