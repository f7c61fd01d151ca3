"""The ``refbook`` command line: ``check`` bibliographies and citations, ``render`` a reference
list, ``cite`` one citation, list the ``styles`` whose name or title holds some words.

Exit codes: 0 success, 1 a bibliography problem stopped the work (unreadable file, unknown key;
for ``check``: errors, or with ``--strict`` warnings, remain; for ``styles``: no style matches),
2 bad usage. ``render`` and
``cite`` print diagnostics to stderr as ``file:line: severity: message [refbook.code]``;
``check`` prints them to stdout in the chosen format.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from refbook import __version__
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.ir import Inlines
from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.html import to_html
from refbook.render.markdown import to_markdown
from refbook.render.text import to_text
from refbook.styles import (
    StyleError,
    UnknownStyleError,
    available_styles,
    get_style,
    locale_problem,
)
from refbook.syntax import parse_citation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

RENDERERS: dict[str, Callable[[Inlines], str]] = {
    "text": to_text,
    "html": to_html,
    "markdown": to_markdown,
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="refbook", description="References for technical books.")
    from refbook import accel

    p.add_argument("--version", action="version",
                   version=f"refbook {__version__}; {accel.status()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    styles = sorted(available_styles())

    r = sub.add_parser("render", help="print the formatted reference list of .bib files")
    r.add_argument("bib", nargs="+", metavar="BIB", help=".bib files (BibTeX or BibLaTeX)")
    _style_arguments(r, styles)
    r.add_argument("--format", choices=sorted(RENDERERS), default="text")

    c = sub.add_parser("cite", help="render one citation written in Pandoc syntax")
    c.add_argument("bib", nargs="+", metavar="BIB")
    c.add_argument("citation", metavar="CITATION", help="e.g. '[see @key, p. 3; @other]'")
    _style_arguments(c, styles)
    c.add_argument("--format", choices=sorted(RENDERERS), default="text")

    st = sub.add_parser(
        "styles", help="list the installed styles whose name or title holds QUERY",
        description="List the styles STYLE may name: the built-ins and, with refbook[styles], "
                    "the CSL styles repository's (name, citation format, title; a dependent "
                    "style with the style it runs). Every word of QUERY must start a word of "
                    "the name or the title, letter case ignored; no QUERY lists them all.")
    st.add_argument("query", nargs="*", metavar="QUERY", help="e.g. vancouver, 'cite them right'")

    from refbook.validate.command import add_check_parser

    add_check_parser(sub)
    comp = sub.add_parser(
        "compile", help="build the compiled engine (mypyc; about a minute)",
        description="Compile refbook's style engine, LaTeX and BibTeX readers and "
                    "validation rules with mypyc into the package's _compiled/ folder: the "
                    "same code, the style engine about 1.7x faster. Needs "
                    "refbook[accel] (mypy, setuptools) and a C compiler with the Python "
                    "headers; without them refbook stays plain Python. Used only while it "
                    "matches refbook's sources (refbook --version says whether it is).")
    comp.add_argument("--require", action="store_true",
                      help="exit 1 when it cannot be built (default: say why, exit 0)")
    return p


STYLE_HELP = ("a built-in style ({}), a .csl file (relative to the working directory), or a "
              "style of the CSL styles repository (apa, ieee, nature, …; needs refbook[styles])")
LOCALE_HELP = ("the locale of terms, dates and quotation marks (de-DE, en-GB, fr …); default: "
               "the style's default-locale, else en-US")


def _style_arguments(p: argparse.ArgumentParser, styles: Sequence[str]) -> None:
    p.add_argument("--style", default="chicago-author-date", metavar="STYLE",
                   help=STYLE_HELP.format(", ".join(styles)))
    p.add_argument("--locale", default=None, metavar="LANG", help=LOCALE_HELP)


def _report(diags: Sequence[Diagnostic]) -> None:
    for d in diags:
        print(d.format(), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from refbook.gcpause import skip_final_collection

    skip_final_collection()  # the process's exit need not rescan what it read (refbook.gcpause)
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away (`refbook render … | head`): not an error worth a traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "check":
        from refbook.validate.command import run_check

        return run_check(args, parser)
    if args.command == "styles":
        return _styles(" ".join(args.query))
    if args.command == "compile":
        from refbook.accel_build import build

        return build(args.require)
    try:
        style = get_style(args.style, locale=args.locale)
    except UnknownStyleError as exc:
        parser.error(str(exc))
    except StyleError as exc:  # a .csl file that cannot run: where and why, no traceback
        _report([exc.diagnostic])
        return 1
    problem = locale_problem(args.locale)
    if problem is not None:
        parser.error(problem.message + f"; {problem.hint}")
    bib = read_bibliography(args.bib)
    _report(bib.diagnostics)
    if any(d.code in (Code.FILE,) for d in bib.diagnostics):
        return 1
    items = items_for(bib, style.language)
    render = RENDERERS[args.format]
    if args.command == "render":
        registry = Registry()
        res = registry.resolve(bib, items, style, nocite=["*"])
        sep = "\n" if args.format == "html" else "\n\n"
        # an entry's text without the spaces a style's affixes leave at its ends (a layout's
        # suffix " "; a prefix of an element that printed nothing first), as pandoc prints it
        body = [render(entry).strip(" ") if args.format != "html" else render(entry)
                for _, entry in res.entries]
        if args.format == "html":
            body = [f'<div class="csl-entry" id="ref-{_attr(k)}">{b}</div>'
                    for (k, _), b in zip(res.entries, body, strict=True)]
        if body:
            print(sep.join(body))
        return 0
    citation = parse_citation(args.citation)
    if citation is None:
        print(f"refbook cite: error: {args.citation!r} is not one citation in Pandoc syntax "
              "(examples: '[@key]', '[see @a, p. 3; @b]', '@key', '[-@key]')", file=sys.stderr)
        return 2
    registry = Registry()
    registry.set_document("<command line>", [citation])
    res = registry.resolve(bib, items, style)
    _report(res.diagnostics)
    print(render(res.citations[("<command line>", 0)]))
    errors = [d for d in res.diagnostics if d.effective_severity is Severity.ERROR]
    return 1 if errors else 0


def _styles(query: str) -> int:
    """``refbook styles``: one line per style (name, citation format, title, → the style a
    dependent one runs), then a count on stderr; 1 when none matches."""
    from refbook.styles import find_styles, styles_dir

    found = find_styles(query)
    width = min(max((len(s.name) for s in found), default=0), 40)  # (a longer name overflows)
    for s in found:
        runs = f"  \u2192 {s.parent}" if s.parent else ""
        print(f"{s.name:<{width}}  {s.format or '-':<11}  {s.title}{runs}")
    where = ("" if styles_dir() is not None else
             "; the CSL styles repository's (apa, ieee, nature, …) need "
             "'pip install refbook[styles]'")
    what = f" matching {query!r}" if query else ""
    print(f"refbook styles: {len(found)} installed style(s){what}{where}", file=sys.stderr)
    return 0 if found else 1


def _attr(s: str) -> str:
    from html import escape

    return escape(s, quote=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
