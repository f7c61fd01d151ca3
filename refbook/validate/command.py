"""``refbook check``: read .bib files, validate them, check the citations of documents, report.

Where it sits: the standalone end of the flow, for CI and pre-commit; ``refbook.cli`` registers
the subcommand from here. Output formats: ``text`` (``file:line: severity: message
[refbook.code]`` + hint), ``json`` (a list of objects), ``github`` (workflow annotations).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbook.config import Config, ConfigError, pyproject_options
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.readers import read_bibliography
from refbook.validate import apply_config, check_bibliography
from refbook.validate.citations import (
    check_citations,
    lists_every_entry,
    printed_keys,
    read_document,
    scan_document,
)
from refbook.validate.pages import DOC_SUFFIXES, find_pages

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["add_check_parser", "format_diagnostics", "run_check"]

FORMATS = ("text", "json", "github", "markdown")


def add_check_parser(sub: Any) -> None:
    """Add the ``check`` subcommand to the ``refbook`` parser's subparsers."""
    k = sub.add_parser(
        "check", help="validate .bib files and the citations of documents",
        description="Validate .bib files (and, with --docs, the citations of Markdown/MyST/reST "
                    "sources). Exit 0 when clean, 1 when errors (with --strict: warnings) "
                    "remain, 2 for bad usage.")
    k.add_argument("paths", nargs="*", metavar="PATH",
                   help=".bib files; .md/.rst/.txt files or directories are scanned as --docs")
    k.add_argument("--docs", nargs="+", default=[], metavar="DIR",
                   help="documents or directories whose citations to check (unknown, "
                        "wrong-case and unused keys)")
    k.add_argument("--ignore-key-case", action="store_true",
                   help="with --docs: a key cited with other letter case than its entry's "
                        "stands for that entry (a key-case warning), as the MkDocs plugin and "
                        "mkdocs-bibtex resolve keys; by default it is an error (cite-case), as "
                        "in Sphinx and Pandoc")
    k.add_argument("--format", choices=FORMATS, default="text",
                   help="output format (markdown: only with --list-rules)")
    k.add_argument("--strict", action="store_true", help="fail on warnings too")
    k.add_argument("--select", action="append", default=[], metavar="CODES",
                   help="report only these codes or families (comma-separated; repeatable)")
    k.add_argument("--ignore", action="append", default=[], metavar="CODES",
                   help="never report these codes or families (comma-separated; repeatable)")
    k.add_argument("--severity", action="append", default=[], metavar="CODE=LEVEL",
                   help="set the severity of a code or family: error, warning, info or off")
    k.add_argument("--fix", action="store_true",
                   help="rewrite unambiguous defects of .bib files (DOI prefix, doubled URL "
                        "scheme, page dashes, braced month macros; atomically, every other "
                        "byte kept) and report what remains")
    k.add_argument("--config", metavar="TOML",
                   help="read options from this file's [tool.refbook.check] table (default: "
                        "./pyproject.toml when it has one)")
    k.add_argument("--list-rules", action="store_true",
                   help="print the rule catalogue (text, json or markdown) and exit")
    k.add_argument("--style", metavar="STYLE",
                   help="the citation style the book uses (default: the config's, else "
                        "chicago-author-date): a built-in name, a .csl file or a CSL repository "
                        "name. It is checked too (a bad file is reported at the line of the "
                        "element at fault), and rules about output report only what changes "
                        "what this style prints")
    k.add_argument("--locale", metavar="LANG", help="also check a locale (de-DE, en-GB …)")


def _split(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(p.strip() for v in values for p in v.split(",") if p.strip())


def _file_options(path: str | None) -> dict[str, Any]:
    """The ``[tool.refbook.check]`` table of ``path`` (or ./pyproject.toml), else {}."""
    if path and not Path(path).is_file():
        raise ConfigError(f"--config {path}: no such file")
    return pyproject_options(Path(path) if path else Path("pyproject.toml"))


def _config(args: argparse.Namespace) -> Config:
    """File options, then the command line: --select replaces, the other options add."""
    base = Config.from_mapping(_file_options(args.config))
    severity: list[tuple[str, str]] = list(base.severity)
    for item in args.severity:
        name, sep, level = item.partition("=")
        if not sep:
            raise ConfigError(f"--severity {item!r}: write CODE=LEVEL, e.g. title-case=info")
        severity.append((name.strip(), level.strip().lower()))
    return Config(select=_split(args.select) or base.select,
                  ignore=base.ignore + _split(args.ignore), severity=tuple(severity),
                  per_entry_ignore=base.per_entry_ignore, extra_fields=base.extra_fields,
                  strict=args.strict or base.strict, style=args.style or base.style)


def run_check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.list_rules:
        from refbook.validate.docs import catalogue

        print(catalogue(args.format), end="")
        return 0
    if args.format == "markdown":
        parser.error("--format markdown is only for --list-rules")
    try:
        config = _config(args)
    except ConfigError as exc:
        parser.error(str(exc))
    # "--docs docs refs.bib" puts the .bib after --docs: sort every path by what it is.
    paths = [*args.paths, *args.docs]
    bibs = [p for p in paths if not _is_doc(p) and (p in args.paths or p.endswith(".bib"))]
    docs = [Path(p) for p in paths if p not in bibs]
    if not bibs:
        parser.error("check: give at least one .bib file")
    notes: list[str] = []
    fix_problems: list[Diagnostic] = []
    if args.fix:
        from refbook.validate.fix import fix_files

        report = fix_files(bibs)
        notes = [*report.fixed, *report.notes]
        fix_problems = list(report.diagnostics)
    bib = read_bibliography(bibs)
    problems: list[Diagnostic] = []
    printed = None  # without documents, every entry is checked as printed
    if docs:
        cited: list[tuple[str, Any]] = []
        lists_all = False
        for doc in docs:
            if not doc.exists():
                parser.error(f"check: {doc}: no such file or directory")
        found = find_pages(docs)
        notes += found.notes
        for page in found.pages:
            text = read_document(page.path)
            scan = scan_document(text, str(page.path), kind=page.kind)
            cited.extend(scan.cited)
            problems.extend(scan.problems)
            lists_all = lists_all or lists_every_entry(text)
        # an unused entry's hint cites it as the pages do (reST roles, Pandoc brackets)
        syntaxes = sorted({"rst" if p.kind == "rst" else "markdown" for p in found.pages})
        problems += check_citations(bib, cited, lists_all=lists_all, syntaxes=syntaxes,
                                    fold_case=args.ignore_key_case)
        # the rules about what the style prints ask only about the entries the book prints,
        # as in the builds
        printed = printed_keys(bib, cited, lists_all=lists_all, fold_case=args.ignore_key_case)
    diags = check_bibliography(bib, config, printed=printed)
    if fix_problems:
        diags += apply_config(fix_problems, config, bib)
    if config.style or args.locale:
        # the style the rules ask (--style or the config's) is checked: unknown, or a bad .csl
        # file at the line of the element at fault
        from refbook.styles import style_problems

        diags += apply_config(style_problems(config.style or "chicago-author-date",
                                             locale=args.locale), config, bib)
    diags += apply_config(problems, config, bib)
    diags.sort(key=lambda d: (d.location.file if d.location else "",
                              d.location.line if d.location else 0, d.code.slug))
    for line in notes:
        print(line, file=sys.stderr)
    out = format_diagnostics(diags, args.format)
    if out:
        print(out)
    failing = {Severity.ERROR, Severity.WARNING} if config.strict else {Severity.ERROR}
    return 1 if any(d.effective_severity in failing for d in diags) else 0


def _is_doc(path: str) -> bool:
    p = Path(path)
    return p.is_dir() or p.suffix.lower() in DOC_SUFFIXES


def _record(d: Diagnostic) -> dict[str, Any]:
    return {
        "code": d.code.qualified,
        "severity": d.effective_severity.value,
        "file": d.location.file if d.location else None,
        "line": d.location.line if d.location and d.location.line else None,
        "key": d.key or None,
        "field": d.field or None,
        "message": d.message,
        "hint": d.hint or None,
    }


def _gh_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_diagnostics(diags: Sequence[Diagnostic], fmt: str) -> str:
    """Diagnostics as ``text``, ``json`` or ``github`` annotations."""
    if fmt == "json":
        return json.dumps([_record(d) for d in diags], indent=2, ensure_ascii=False)
    if fmt == "github":
        level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
        lines = []
        for d in diags:
            props = []
            if d.location is not None:
                props.append(f"file={_gh_escape(d.location.file, prop=True)}")
                if d.location.line:
                    props.append(f"line={d.location.line}")
            props.append(f"title={_gh_escape(d.code.qualified, prop=True)}")
            body = d.message + (f"\nhint: {d.hint}" if d.hint else "")
            lines.append(f"::{level[d.effective_severity]} {','.join(props)}::{_gh_escape(body)}")
        return "\n".join(lines)
    lines = [d.format() for d in diags]
    counts = {s: sum(d.effective_severity is s for d in diags) for s in Severity}
    if diags:
        lines.append(f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), "
                     f"{counts[Severity.INFO]} info")
    return "\n".join(lines)


def count_by_code(diags: Sequence[Diagnostic]) -> dict[Code, int]:
    """How many diagnostics each code produced (for summaries and tests)."""
    out: dict[Code, int] = {}
    for d in diags:
        out[d.code] = out.get(d.code, 0) + 1
    return out
