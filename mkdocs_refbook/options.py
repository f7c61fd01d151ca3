"""The plugin's options, declared once.

Where it sits: the start of the MkDocs flow. :data:`OPTIONS` is the single declaration; the MkDocs
config class (:data:`RefbookConfig`, what ``plugins: [refbook: {...}]`` is validated against), the
typed :class:`Settings` the plugin works with and the option table in ``docs/mkdocs.md`` (see
:func:`options_table`) are all generated from it. Values MkDocs' own validation cannot judge (the
style name, the bibliography files) are checked in :func:`settings_from`, which raises
``PluginError`` with a message that names the option.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError

from refbook.config import Config as CheckConfig
from refbook.config import ConfigError as CheckConfigError
from refbook.config import host_config
from refbook.diagnostics import Code
from refbook.records import field, record
from refbook.styles import style_problems

#: Scopes of a bibliography marker: the book's cited entries, this page's, every entry.
SCOPES = ("book", "page", "all")


@record(frozen=True)
class Option:
    """One option: its name, the Python type of its value, its default and what it does."""

    name: str
    kind: type
    default: Any
    doc: str


OPTIONS: tuple[Option, ...] = (
    Option("bib_files", list, [],
           "BibTeX/BibLaTeX files, relative to `mkdocs.yml` (at least one here or in `bib_file` "
           "or `bib_dir`). They are watched by `mkdocs serve`."),
    Option("style", str, "chicago-author-date",
           "Citation style: a built-in style (`chicago-author-date`, `numeric`), a path to a "
           "`.csl` file (relative to `mkdocs.yml`; watched by `mkdocs serve`, an edit rebuilds), "
           "or the name of a style of the CSL styles repository (`apa`, `ieee`, `nature`, … with "
           "`pip install refbook[styles]`)."),
    Option("locale", str, None,
           "Locale of terms, dates and quotation marks (`de-DE`, `en-GB`, `fr`, …). Unset: the "
           "style's `default-locale`, else `en-US`."),
    Option("strict", bool, False,
           "Fail the build on any error or warning from refbook even without `mkdocs build "
           "--strict`, listing every problem."),
    Option("references_page", str, "references.md",
           "Page (relative to `docs_dir`) that holds the book's reference list. Generated, and "
           "appended to the nav, when no page of the book has a book-wide list marker."),
    Option("references_title", str, "References",
           "Title of the generated references page."),
    Option("per_page_lists", bool, False,
           "Append a list of the entries cited on a page at the end of every page that cites."),
    Option("nocite", list, [],
           "Keys listed even if never cited; `\"*\"` lists every entry of the bibliography."),
    Option("backlinks", bool, True,
           "After each entry, link back to every page and section that cites it."),
    Option("tooltips", bool, True,
           "Give each citation a `title` with the formatted entry (shown on hover; Material's "
           "`content.tooltips` feature styles it)."),
    Option("stylesheet", bool, True,
           "Add a small stylesheet (`assets/refbook.css`): hanging indents, long URLs that wrap, "
           "a red unknown-key marker."),
    Option("check", dict, None,
           "Validation options, the keys of `[tool.refbook.check]`: `select`, `ignore`, "
           "`severity` (code: error/warning/info/off), `per_entry_ignore` (key: codes), "
           "`extra_fields`. Unset: the `[tool.refbook.check]` table of a `pyproject.toml` next "
           "to `mkdocs.yml`, so the build and `refbook check` run there agree."),
    Option("cache_dir", str, ".cache/refbook",
           "Folder, relative to `mkdocs.yml`, of refbook's persistent cache (parsed `.bib` "
           "entries, validation results, formatted entries and citations), so that the next "
           "`mkdocs build` redoes only what changed. Safe to delete at any time, and safe to "
           "keep between CI runs (files are sealed: a corrupt, foreign or planted file is "
           "ignored and rebuilt). `false` (or `\"\"`): no cache on disk."),
    Option("suppress_warnings", list, [],
           "Diagnostics not to report: a code (`unknown-key` or `refbook.unknown-key`), or a code "
           "and an entry key (`refbook.unknown-key:somekey`)."),
    Option("output", str, "auto",
           "`refbook` (linked citations, a book-wide list, back-links), `footnotes` (as "
           "mkdocs-bibtex: footnote references and a footnote list per page) or `auto`: "
           "`footnotes` when an mkdocs-bibtex option below is set and none of `style`, "
           "`references_page`, `references_title`, `per_page_lists`, `backlinks`, `tooltips`. "
           "`footnotes` without `style`, `csl_file`, `locale` and `cite_inline` formats entries "
           "with pybtex's \"plain\" style, as mkdocs-bibtex does (pybtex comes with "
           "`refbook[mkdocs]`)."),
    # mkdocs-bibtex's options (docs/mkdocs-migration.md), same names, same defaults
    Option("bib_file", str, None,
           "mkdocs-bibtex: one more `.bib` file, relative to `mkdocs.yml` (a URL is an error: "
           "nothing is downloaded at build time)."),
    Option("bib_dir", str, None,
           "mkdocs-bibtex: a folder, relative to `mkdocs.yml`, whose `.bib` files (subfolders "
           "included) are read too. `mkdocs serve` watches the folder: a new, edited or removed "
           "`.bib` file rebuilds the site."),
    Option("bib_command", str, "\\bibliography",
           "mkdocs-bibtex: text that stands for the list of the page's citations (outside code)."),
    Option("full_bib_command", str, "\\full_bibliography",
           "mkdocs-bibtex: text that stands for the list of every entry of the `.bib` files "
           "(with `footnotes` output a footnote per entry, as mkdocs-bibtex writes them, with "
           "back-links to every citing place)."),
    Option("bib_by_default", bool, None,
           "mkdocs-bibtex: add the page's list to every page that cites (unset: yes with "
           "`footnotes` output, `per_page_lists` with `refbook` output). `false` with "
           "`footnotes` output: a citing page without `bib_command` shows `[^key]` as "
           "mkdocs-bibtex does, with a `footnote-undefined` warning."),
    Option("footnote_format", str, None,
           "mkdocs-bibtex: the footnote label, holding `{key}` (unset: `{key}`); `footnotes` "
           "output only."),
    Option("enable_inline_citations", bool, True,
           "mkdocs-bibtex: a bare `@key` is a citation (with `footnotes` output it shows the "
           "entry's text, as mkdocs-bibtex does); `false`: only bracketed citations are."),
    Option("cite_inline", bool, None,
           "mkdocs-bibtex 2.x: `true` shows the citation's text before its footnote references "
           "(`footnotes` output); `refbook` output always shows it."),
    Option("csl_file", str, None,
           "mkdocs-bibtex: a CSL file, relative to `mkdocs.yml`, run by refbook's engine: the "
           "same as `style` (set one of them; a URL is an error: nothing is downloaded at build "
           "time)."),
    Option("csl_file_encoding", str, None,
           "mkdocs-bibtex: the encoding of `csl_file`; refbook reads CSL files as XML, which "
           "declare their encoding, so only UTF-8 (the CSL files' own) is accepted."),
)

#: mkdocs-bibtex's options: setting one asks for its output form (``output: auto``)
BIBTEX_OPTIONS = frozenset({"bib_file", "bib_dir", "bib_command", "full_bib_command",
                            "bib_by_default", "footnote_format", "enable_inline_citations",
                            "cite_inline", "csl_file", "csl_file_encoding"})
#: options that only make sense for refbook's own output form
REFBOOK_OUTPUT_OPTIONS = frozenset({"style", "references_page", "references_title",
                                    "per_page_lists", "backlinks", "tooltips"})
OUTPUTS = ("auto", "refbook", "footnotes")


def _config_option(opt: Option) -> base.BaseConfigOption[Any]:
    if opt.name == "cache_dir":  # a folder, or false for none
        return c.Type((str, bool), default=opt.default)
    if opt.kind is list:
        return c.ListOfItems(c.Type(str), default=list(opt.default))
    if opt.default is None:
        return c.Optional(c.Type(opt.kind))
    return c.Type(opt.kind, default=opt.default)


#: The MkDocs config schema, generated from :data:`OPTIONS`.
RefbookConfig: type[base.Config] = type(
    "RefbookConfig", (base.Config,), {o.name: _config_option(o) for o in OPTIONS},
)


@record(frozen=True)
class Settings:
    """Validated option values; paths are absolute."""

    bib_files: tuple[str, ...]
    #: a style name, or the absolute path of a .csl file
    style: str
    strict: bool
    references_page: str
    references_title: str
    per_page_lists: bool
    nocite: tuple[str, ...]
    backlinks: bool
    tooltips: bool
    stylesheet: bool
    suppress_warnings: frozenset[str]
    #: the folder of ``mkdocs.yml``: diagnostics name files relative to it
    root: str
    #: the validation options (from ``check:`` or ``pyproject.toml``), strict included
    check: CheckConfig = field(default_factory=CheckConfig)
    #: "refbook" or "footnotes" (mkdocs-bibtex's form)
    output: str = "refbook"
    #: mkdocs-bibtex's commands: the page's list, every entry
    bib_command: str = "\\bibliography"
    full_bib_command: str = "\\full_bibliography"
    #: the footnote label of a key (``footnotes`` output)
    footnote_format: str = "{key}"
    #: a bare ``@key`` is a citation
    narrative: bool = True
    #: ``footnotes`` output: the citation's text before its footnote references
    cite_inline: bool = False
    #: mkdocs-bibtex's ``bib_dir``, absolute: ``mkdocs serve`` watches the folder, so a new or
    #: removed ``.bib`` file in it rebuilds the site too
    bib_dir: str | None = None
    #: the locale asked for (None: the style's default-locale)
    locale: str | None = None
    #: the pybtex style that formats entries in ``footnotes`` output (mkdocs-bibtex's look):
    #: ``"plain"`` when the site sets none of ``style``, ``csl_file``, ``locale`` and
    #: ``cite_inline`` (mkdocs-bibtex formats with pybtex's "plain" without a CSL file);
    #: None: the refbook style formats them
    entry_style: str | None = None
    #: the persistent cache folder, absolute (None: no cache on disk)
    cache_dir: str | None = None

    def suppressed(self, code: Code, key: str = "") -> bool:
        if not self.suppress_warnings:  # (the usual case: a serve rebuild asks ~20,000 times)
            return False
        names = {code.slug, code.qualified}
        if key:
            names |= {f"{code.slug}:{key}", f"{code.qualified}:{key}"}
        return bool(names & self.suppress_warnings)


def _bib_paths(values: base.Config, root: str) -> list[str]:
    """The ``.bib`` files of ``bib_files``, ``bib_file`` and ``bib_dir``, absolute."""
    named = [("bib_files", b) for b in values["bib_files"]]
    if values["bib_file"] is not None:
        bib_file = str(values["bib_file"])
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", bib_file):
            msg = (f"refbook: 'bib_file' is the URL {bib_file!r}: refbook reads no network at "
                   "build time; download it to a file and set bib_file to it (e.g. "
                   "bib_file: references.bib)")
            raise PluginError(msg)
        named.append(("bib_file", bib_file))
    paths = []
    for option, b in named:
        path = os.path.normpath(os.path.join(root, b))
        if not os.path.isfile(path):
            msg = f"refbook: {option!r} names {b!r}, which is not a file (looked for {path})"
            raise PluginError(msg)
        paths.append(path)
    if values["bib_dir"] is not None:
        folder = os.path.normpath(os.path.join(root, str(values["bib_dir"])))
        if not os.path.isdir(folder):
            msg = f"refbook: 'bib_dir' names {values['bib_dir']!r}, which is not a folder (looked for {folder})"
            raise PluginError(msg)
        found = sorted(str(p) for p in Path(folder).rglob("*.bib") if p.is_file())
        if not found:
            msg = f"refbook: 'bib_dir' names {values['bib_dir']!r}, which holds no .bib file"
            raise PluginError(msg)
        paths += [p for p in found if p not in paths]
    if not paths:
        msg = ("refbook: the option 'bib_files' needs at least one .bib file, e.g. bib_files: "
               "[references.bib] (or mkdocs-bibtex's bib_file or bib_dir)")
        raise PluginError(msg)
    return paths


def _output(values: base.Config, given: frozenset[str]) -> str:
    """The output form: what ``output`` says, or (``auto``) what the options set suggest."""
    output = str(values["output"])
    if output not in OUTPUTS:
        msg = f"refbook: unknown 'output' {output!r}; use one of {', '.join(OUTPUTS)}"
        raise PluginError(msg)
    if output == "auto":
        output = ("footnotes" if given & BIBTEX_OPTIONS and not given & REFBOOK_OUTPUT_OPTIONS
                  else "refbook")
    return output


def _bibtex_options(values: base.Config, output: str, given: frozenset[str]) -> dict[str, Any]:
    """mkdocs-bibtex's options as settings: each works for the output form, or is an error."""
    encoding = values["csl_file_encoding"]
    if encoding is not None and _codec(str(encoding)) != "utf-8":
        msg = (f"refbook: 'csl_file_encoding' is {encoding!r}: refbook reads CSL files as XML "
               "in UTF-8 (as the CSL styles repository writes them); convert the file, e.g. "
               f"iconv -f {encoding} -t utf-8, and remove 'csl_file_encoding'")
        raise PluginError(msg)
    footnote_format = values["footnote_format"]
    if footnote_format is not None and "{key}" not in footnote_format:
        msg = f"refbook: 'footnote_format' must hold the placeholder {{key}}, got {footnote_format!r}"
        raise PluginError(msg)
    if output != "footnotes":
        # refbook's form has no footnotes; its citations always show their text (cite_inline)
        unfit = [name for name in ("footnote_format", "cite_inline") if name in given
                 and not (name == "cite_inline" and values[name])]
        if unfit:
            msg = (f"refbook: {unfit[0]!r} is about footnotes, which only 'output: footnotes' "
                   "(mkdocs-bibtex's form) makes; remove it, or set output: footnotes")
            raise PluginError(msg)
    commands = [str(values["bib_command"]), str(values["full_bib_command"])]
    for name, command in zip(("bib_command", "full_bib_command"), commands, strict=True):
        if not command.strip():
            msg = f"refbook: {name!r} must not be empty"
            raise PluginError(msg)
    if commands[0] == commands[1]:
        msg = "refbook: 'bib_command' and 'full_bib_command' must differ"
        raise PluginError(msg)
    by_default = values["bib_by_default"]
    per_page = bool(values["per_page_lists"])
    if by_default is not None and "per_page_lists" in given and bool(by_default) != per_page:
        msg = ("refbook: 'bib_by_default' (mkdocs-bibtex) and 'per_page_lists' say different "
               "things; keep one of them")
        raise PluginError(msg)
    if by_default is not None:
        per_page_lists = bool(by_default)
    else:  # mkdocs-bibtex's default with its form, refbook's own with refbook's
        per_page_lists = True if output == "footnotes" else per_page
    return {
        "output": output,
        "bib_command": commands[0], "full_bib_command": commands[1],
        "footnote_format": footnote_format or "{key}",
        "narrative": bool(values["enable_inline_citations"]),
        "cite_inline": bool(values["cite_inline"]),
        "per_page_lists": per_page_lists,
    }


def settings_from(values: base.Config, config_file: str | None,
                  given: frozenset[str] = frozenset()) -> Settings:
    """Check what MkDocs' schema cannot and build :class:`Settings` (``PluginError`` if unusable).

    ``given`` names the options the user set (the output form ``auto`` depends on them).
    """
    root = os.path.dirname(os.path.abspath(config_file)) if config_file else os.getcwd()
    paths = _bib_paths(values, root)
    output = _output(values, given)
    bibtex = _bibtex_options(values, output, given)
    style, locale = _style(values, root, given)
    page = str(values["references_page"]).strip("/")
    if not page.endswith(".md") or ".." in page.split("/"):
        msg = f"refbook: 'references_page' must be a .md path inside docs_dir, got {page!r}"
        raise PluginError(msg)
    known = {code.slug for code in Code} | {code.qualified for code in Code}
    for s in values["suppress_warnings"]:
        if s.split(":", 1)[0] not in known:
            msg = (f"refbook: 'suppress_warnings' has {s!r}, which is not a refbook code; known: "
                   f"{', '.join(sorted(code.slug for code in Code))}")
            raise PluginError(msg)
    try:
        # the rules about output ask the book's style whether a suspected problem shows
        check, _ = host_config(values["check"], root, strict=bool(values["strict"]),
                               style=str(values["style"]))
    except CheckConfigError as exc:
        where = "'check' option: " if values["check"] is not None else ""
        msg = (f"refbook: {where}{exc} (the validation options are select, ignore, severity, "
               "per_entry_ignore and extra_fields; 'refbook check --list-rules' names every code)")
        raise PluginError(msg) from exc
    return Settings(
        check=check, entry_style=_entry_style(values, bibtex["output"], given),
        bib_files=tuple(paths), style=style, strict=bool(values["strict"]),
        references_page=page, references_title=str(values["references_title"]),
        nocite=tuple(values["nocite"]),
        backlinks=bool(values["backlinks"]), tooltips=bool(values["tooltips"]),
        stylesheet=bool(values["stylesheet"]),
        suppress_warnings=frozenset(values["suppress_warnings"]), root=root, locale=locale,
        bib_dir=(os.path.normpath(os.path.join(root, str(values["bib_dir"])))
                 if values["bib_dir"] is not None else None),
        cache_dir=_cache_dir(values["cache_dir"], root),
        **bibtex,
    )


#: options that choose refbook's styles for the entry text of ``footnotes`` output
REFBOOK_STYLE_OPTIONS = frozenset({"style", "csl_file", "locale"})


def _entry_style(values: base.Config, output: str, given: frozenset[str]) -> str | None:
    """mkdocs-bibtex's look: without a CSL file it formats entries with pybtex's "plain" style;
    a site that picks no style keeps that look (``cite_inline`` shows a citation text, which
    only refbook's styles make, so it selects them)."""
    if output != "footnotes" or given & REFBOOK_STYLE_OPTIONS or values["cite_inline"]:
        return None
    return "plain"


def _cache_dir(value: object, root: str) -> str | None:
    """The cache folder, absolute; ``None`` for ``false``/``""``. ``true`` is the default."""
    if value is True:
        value = ".cache/refbook"
    if not value:
        return None
    return os.path.normpath(os.path.join(root, os.path.expanduser(str(value))))


def _codec(name: str) -> str:
    import codecs

    try:
        return codecs.lookup(name).name
    except LookupError:
        return ""


def _style(values: base.Config, root: str, given: frozenset[str]) -> tuple[str, str | None]:
    """The style (a name, or a .csl file's absolute path) and locale, checked: ``style`` or
    mkdocs-bibtex's ``csl_file``, paths relative to ``mkdocs.yml``."""
    style = str(values["style"])
    option = "style"
    csl_file = values["csl_file"]
    if csl_file is not None:
        csl_file = str(csl_file)
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", csl_file):
            msg = (f"refbook: 'csl_file' is the URL {csl_file!r}: refbook reads no network at "
                   "build time; download it to a file and set csl_file to it, or set 'style' to "
                   "its name in the CSL styles repository (pip install refbook[styles])")
            raise PluginError(msg)
        if "style" in given and style != csl_file:
            msg = (f"refbook: 'style' ({style!r}) and mkdocs-bibtex's 'csl_file' ({csl_file!r}) "
                   "name different styles; keep one of them")
            raise PluginError(msg)
        style, option = csl_file, "csl_file"
    if style.endswith(".csl") or "/" in style or os.sep in style:
        style = os.path.normpath(os.path.join(root, os.path.expanduser(style)))
    locale = values["locale"]
    for d in style_problems(style, base=root, locale=locale):
        where = f"{d.location}: " if d.location is not None else ""
        name = "locale" if d.code is Code.UNKNOWN_LOCALE else option
        hint = f" ({d.hint})" if d.code is not Code.BAD_STYLE and d.hint else ""
        msg = f"refbook: {where}{name!r} option: {d.message}{hint}"
        raise PluginError(msg)
    return style, locale


def options_table() -> str:
    """The Markdown table of every option, as ``docs/mkdocs.md`` shows it."""
    rows = ["| option | default | what it does |", "|---|---|---|"]
    for o in OPTIONS:
        default = repr(o.default).replace("'", '"')
        if isinstance(o.default, str):  # as written in mkdocs.yml (one backslash)
            default = f'"{o.default}"'
        if o.default is None:
            default = "null"
        elif isinstance(o.default, bool):
            default = str(o.default).lower()
        rows.append(f"| `{o.name}` | `{default}` | {o.doc} |")
    return "\n".join(rows)
