"""Run the official CSL processor test suite through refbook's public API (``refbook.api``).

Usage::

    python benchmarks/csl_suite.py DIR [--list] [--category] [--only SUBSTRING] [--diff]
                                       [--expected FILE]

``DIR`` is the suite's ``processor-tests/humans`` folder (one ``.txt`` fixture per test: sections
MODE, RESULT, CSL, INPUT and optionally CITATION-ITEMS, CITATIONS, BIBENTRIES, BIBSECTION,
ABBREVIATIONS; see the suite's ``manual/citeproc-test.rst``). Each fixture is run the way the
reference runner (citeproc-js') runs it: in ``citation`` mode every citation is rendered on a
line of its own (positions from the citations' order and note numbers; CITATIONS rows edit the
document as citeproc-js' processCitationCluster does; no citations given: one citation of every
item, in the bibliography's order), in
``bibliography`` mode the cited items' entries inside citeproc-js' ``csl-bib-body`` divs; the
output is written as citeproc-js' HTML and compared with RESULT exactly (the ``>>[0]`` markers
of a CITATIONS result are removed first, as jgm/citeproc does).

Prints the pass count per category (the file name's prefix before ``_``) and in all;
``--list`` prints each failing fixture with a one-line reason, ``--expected FILE`` the fixtures
that differ from a list of expected failures (``tests/data/csl_suite_expected_failures.txt``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from refbook.api import Citation, Cite, Formatter
from refbook.ir import Inlines, Link, Span, Styled, Text
from refbook.styles import StyleError
from refbook.styles.csl.style import StyleSyntaxError

_SECTION = re.compile(r"^>>=+\s*([A-Z-]+)\s*=+>>\s*$")
_END = re.compile(r"^<<=+\s*([A-Z-]+)\s*=+<<\s*$")
_CITE_NUM = re.compile(r"^(?:>>|\.\.)\[\d+\]\s*")
NO_OUTPUT = "[CSL STYLE ERROR: reference with no printed form.]"


def sections(text: str) -> dict[str, str]:
    """A fixture's sections by name (upper case), their text without the marker lines."""
    found: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in text.lstrip("\ufeff").splitlines():
        if name is None:
            m = _SECTION.match(line)
            if m:
                name, lines = m.group(1), []
        elif _END.match(line):
            found[name] = "\n".join(lines)
            name = None
        else:
            lines.append(line)
    return found


# ----------------------------------------------------------------- citeproc-js' HTML

_TAGS = {
    "emph": ("<i>", "</i>"),
    "strong": ("<b>", "</b>"),
    "smallcaps": ('<span style="font-variant:small-caps;">', "</span>"),
    "sup": ("<sup>", "</sup>"),
    "sub": ("<sub>", "</sub>"),
    "underline": ('<span style="text-decoration:underline;">', "</span>"),
    "code": ("<code>", "</code>"),
    "nocase": ("", ""),
}
_QUOTES = (("\u201c", "\u201d"), ("\u2018", "\u2019"))


# Flip-flop: italics inside italics (bold inside bold, small caps inside small caps) is written
# in the normal font, as citeproc-js' HTML output writes it; the inline tree keeps the nesting
# (pandoc's output nests <em> too).
_NORMAL = {
    "emph": '<span style="font-style:normal;">',
    "strong": '<span style="font-weight:normal;">',
    "smallcaps": '<span style="font-variant:normal;">',
}


def html(nodes: Inlines, depth: int = 0, on: frozenset[str] = frozenset()) -> str:
    """Inline tree → the HTML citeproc-js writes (``&#38;`` for ``&``, ``<i>``/``<b>``, links
    as their text: the suite's runs link nothing). ``on``: the flip-flop styles in effect."""
    out: list[str] = []
    for n in nodes:
        if isinstance(n, Text):
            out.append(escape(n.text, quote=False).replace("&amp;", "&#38;")
                       .replace("&lt;", "&#60;").replace("&gt;", "&#62;"))
        elif isinstance(n, Styled):
            if n.kind == "quoted":
                o, c = _QUOTES[depth % 2]
                out.append(o + html(n.children, depth + 1, on) + c)
            elif n.kind in on:
                out.append(_NORMAL[n.kind] + html(n.children, depth, on - {n.kind}) + "</span>")
            else:
                start, end = _TAGS[n.kind]
                inner = on | {n.kind} if n.kind in _NORMAL else on
                out.append(start + html(n.children, depth, inner) + end)
        elif isinstance(n, Span) and n.role.startswith("csl-") and n.role != "csl-entry":
            out.append(f'<div class="{n.role}">{html(n.children, depth, on)}</div>')
        elif isinstance(n, Span) and n.role == "nodecor" and on:
            # citeproc-js: the styles in effect turned off, one span each
            inner_html = html(n.children, depth, frozenset())
            for kind in sorted(on):
                inner_html = _NORMAL[kind] + inner_html + "</span>"
            out.append(inner_html)
        elif isinstance(n, (Span, Link)):
            out.append(html(n.children, depth, on))
    return "".join(out)


def bib_body(entries: list[str]) -> str:
    """Entries inside citeproc-js' bibliography divs (as jgm/citeproc's runner writes them)."""
    lines = ['<div class="csl-bib-body">']
    block = '<div class="csl-block">'
    for t in entries:
        if t.startswith(block):
            # citeproc-js sets a leading block (display="block") apart by blank lines
            end = t.index("</div>") + len("</div>")
            rest = f"\n\n    {t[end:]}" if t[end:] else ""
            lines.append(f'  <div class="csl-entry">\n\n    {t[:end]}{rest}\n  </div>')
        elif t.startswith("<div"):
            lines.append(f'  <div class="csl-entry">\n    {t}\n  </div>')
        elif t.endswith("</div>"):
            lines.append(f'  <div class="csl-entry">{t}\n  </div>')
        else:
            lines.append(f'  <div class="csl-entry">{t}</div>')
    lines.append("</div>")
    return "\n".join(lines)


# ----------------------------------------------------------------- running one fixture


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    category: str
    passed: bool
    reason: str = ""
    expected: str = ""
    actual: str = ""


def _cite(raw: dict[str, Any]) -> Cite:
    mode = ("suppress-author" if raw.get("suppress-author") else
            "author-only" if raw.get("author-only") else "normal")
    # a position given in the fixture (citeproc-js' numbers) replaces the computed one
    pos = raw.get("position")
    position = _POSITIONS[pos] if isinstance(pos, int) and pos in _POSITIONS else ""
    return Cite(str(raw.get("id", "")), locator=str(raw.get("locator", "") or ""),
                label=str(raw.get("label", "") or ""), prefix=str(raw.get("prefix", "") or ""),
                suffix=str(raw.get("suffix", "") or ""), mode=mode, position=position)


_POSITIONS = {0: "first", 1: "subsequent", 2: "ibid", 3: "ibid-with-locator"}


def citations_of(sec: dict[str, str]) -> list[Citation] | None:
    """The fixture's citations in document order (None: none given)."""
    if "CITATIONS" in sec:
        # each row is citeproc-js' processCitationCluster(citation, citationsPre, citationsPost):
        # a citation is inserted (or, with an id seen before, replaces that one) between the
        # document's citations listed before and after it, each with its note number now. The
        # result is the document after the last row: its pre list, itself, its post list.
        rows = json.loads(sec["CITATIONS"])
        latest: dict[str, tuple[Cite, ...]] = {}
        order: list[tuple[str, int]] = []
        for n, row in enumerate(rows):
            c = row[0] if isinstance(row, list) else row
            cid = str(c.get("citationID") or f"CITATION-#{n}")
            note = int((c.get("properties") or {}).get("noteIndex", 0) or 0)
            latest[cid] = tuple(_cite(x) for x in c.get("citationItems", []))
            pre, post = (row[1], row[2]) if isinstance(row, list) and len(row) == 3 else (
                [[k, nt] for k, nt in order if k != cid], [])
            order = [(str(k), int(nt or 0)) for k, nt in pre]
            order += [(cid, note)] + [(str(k), int(nt or 0)) for k, nt in post]
        return [Citation(latest[k], nt) for k, nt in order if k in latest]
    if "CITATION-ITEMS" in sec:
        return [Citation(tuple(_cite(x) for x in row))
                for row in json.loads(sec["CITATION-ITEMS"])]
    return None


def run_fixture(path: Path, workdir: Path) -> Outcome:
    name = path.stem
    category = name.split("_", 1)[0]
    sec = sections(path.read_text(encoding="utf-8"))
    mode = sec.get("MODE", "").strip()
    expected = sec.get("RESULT", "")
    for unsupported in ("BIBENTRIES", "BIBSECTION", "ABBREVIATIONS"):
        if unsupported in sec:
            return Outcome(name, category, False, f"{unsupported} not supported by the runner")
    try:
        items = json.loads(sec["INPUT"])
        # a few fixtures leave the id out: citeproc-js numbers such items itself
        items = [i if "id" in i else {**i, "id": f"ITEM-{n}"} for n, i in enumerate(items, 1)]
    except (KeyError, json.JSONDecodeError) as exc:
        return Outcome(name, category, False, f"bad INPUT: {exc}")
    style_file = workdir / f"{name}.csl"
    style_file.write_text(sec.get("CSL", ""), encoding="utf-8")
    try:
        fmt = Formatter(items, style=str(style_file))
        cits = citations_of(sec)
        ids = list(dict.fromkeys(str(i.get("id")) for i in items))
        if mode == "citation":
            if cits is None:
                # no citations given: citeproc-js' runner cites every item in one citation,
                # in the order its registry holds them (the bibliography's sort)
                ids = [k for k, _ in fmt.bibliography(ids)] or ids
                cits = [Citation(tuple(Cite(i) for i in ids))]
            else:
                expected = "\n".join(_CITE_NUM.sub("", line) for line in expected.split("\n"))
            actual = "\n".join(html(c) or NO_OUTPUT for c in fmt.citations(cits))
        elif mode == "bibliography":
            if cits is None:
                cits = [Citation((Cite(i),)) for i in ids]
            cited = list(dict.fromkeys(c.id for cit in cits for c in cit.cites))
            entries = fmt.bibliography(cited, citations=cits)
            actual = bib_body([html(e) or NO_OUTPUT for _, e in entries])
        else:
            return Outcome(name, category, False, f"unknown mode {mode!r}")
    except (StyleError, StyleSyntaxError) as exc:
        return Outcome(name, category, False, f"style refused: {exc}")
    except Exception as exc:
        return Outcome(name, category, False, f"crash: {type(exc).__name__}: {exc}")
    if actual == expected:
        return Outcome(name, category, True)
    return Outcome(name, category, False, "output differs", expected, actual)


def fixtures(folder: Path, only: str = "") -> Iterator[Path]:
    for p in sorted(folder.glob("*.txt")):
        if only.lower() in p.name.lower():
            yield p


def run_suite(folder: Path, only: str = "") -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="refbook-csl-suite-") as tmp:
        return [run_fixture(p, Path(tmp)) for p in fixtures(folder, only)]


def _first_difference(o: Outcome) -> str:
    e, a = o.expected.split("\n"), o.actual.split("\n")
    for x, y in zip(e, a, strict=False):
        if x != y:
            return f"expected {x.strip()!r} got {y.strip()!r}"
    return f"expected {len(e)} lines, got {len(a)}"


def _listed(path: Path) -> dict[str, str]:
    """name -> reason of a list of expected failures"""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def sync_expected(outcomes: list[Outcome], listing: Path, folder: Path,
                  reasons: Path | None = None, reasons_folder: Path | None = None) -> list[str]:
    """Bring a list of expected failures up to date with ``outcomes`` (fixtures of ``folder``):
    the lines of fixtures that pass now go; a failing fixture not listed is added with its
    reason from the list ``reasons`` when its text is the same in ``reasons_folder`` (the copy
    of the suite that list is about; tests/data holds one list per copy). Comment lines stay
    on top, the rest is sorted. Returns the failing fixtures that still need a reason written
    by hand (not added)."""
    lines = listing.read_text(encoding="utf-8").splitlines()
    failing = {o.name for o in outcomes if not o.passed}
    other = _listed(reasons) if reasons is not None else {}

    def same_text(name: str) -> bool:
        theirs = reasons_folder / f"{name}.txt" if reasons_folder is not None else None
        return (theirs is not None and theirs.is_file()
                and theirs.read_bytes() == (folder / f"{name}.txt").read_bytes())

    head = [ln for ln in lines if not ln.strip() or ln.startswith("#")]
    body = {ln.partition(" ")[0]: ln for ln in lines
            if ln.strip() and not ln.startswith("#") and ln.partition(" ")[0] in failing}
    unreasoned: list[str] = []
    for name in sorted(failing - set(body)):
        if name in other and same_text(name):
            body[name] = f"{name} {other[name]}"
        else:
            unreasoned.append(name)
    listing.write_text("\n".join(head + [body[n] for n in sorted(body)]) + "\n", encoding="utf-8")
    return unreasoned


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("dir", type=Path, help="the suite's processor-tests/humans folder")
    ap.add_argument("--list", action="store_true", help="list the failing fixtures")
    ap.add_argument("--category", action="store_true", help="the count per category")
    ap.add_argument("--only", default="", help="run only fixtures whose name contains this")
    ap.add_argument("--diff", action="store_true", help="with --list: full expected/actual")
    ap.add_argument("--expected", type=Path, metavar="FILE",
                    help="a list of expected failures (tests/data/csl_suite_expected_failures"
                         ".txt): print the fixtures that differ from it")
    ap.add_argument("--sync-expected", type=Path, metavar="FILE",
                    help="rewrite this list of expected failures: drop the fixtures that pass, "
                         "add failing ones with a reason from --reasons (when their text is "
                         "the same in --reasons-dir); print those that need a reason by hand")
    ap.add_argument("--reasons", type=Path, metavar="FILE",
                    help="with --sync-expected: the list whose reasons may be taken over")
    ap.add_argument("--reasons-dir", type=Path, metavar="DIR",
                    help="with --sync-expected: the suite copy --reasons is about")
    args = ap.parse_args(argv)
    outcomes = run_suite(args.dir, args.only)
    if args.sync_expected:
        for name in sync_expected(outcomes, args.sync_expected, args.dir, args.reasons,
                                  args.reasons_dir):
            o = next(x for x in outcomes if x.name == name)
            print(f"needs a reason: {name}: {_first_difference(o)}")
    if args.expected:
        listed = {line.split()[0] for line in args.expected.read_text(encoding="utf-8")
                  .splitlines() if line.strip() and not line.startswith("#")}
        for o in outcomes:
            if o.passed and o.name in listed:
                print(f"now passes (take it off the list): {o.name}")
            elif not o.passed and o.name not in listed:
                print(f"fails, not listed: {o.name}: {o.reason}")
    if args.list:
        for o in outcomes:
            if not o.passed:
                why = _first_difference(o) if o.reason == "output differs" else o.reason
                print(f"FAIL {o.name}: {why}")
                if args.diff and o.reason == "output differs":
                    print(f"  expected:\n{o.expected}\n  actual:\n{o.actual}\n")
    if args.category:
        cats: dict[str, list[int]] = {}
        for o in outcomes:
            c = cats.setdefault(o.category, [0, 0])
            c[0] += o.passed
            c[1] += 1
        for cat in sorted(cats):
            p, n = cats[cat]
            print(f"{cat:<16} {p:4d}/{n:<4d}")
    passed = sum(o.passed for o in outcomes)
    total = len(outcomes)
    print(f"passed {passed}/{total} ({100 * passed / max(total, 1):.1f}%)")
    return 0



if __name__ == "__main__":
    sys.exit(main())
