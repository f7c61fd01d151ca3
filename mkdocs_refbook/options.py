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
from dataclasses import dataclass, field
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError

from refbook.config import Config as CheckConfig
from refbook.config import ConfigError as CheckConfigError
from refbook.config import host_config
from refbook.diagnostics import Code
from refbook.styles import available_styles

#: Scopes of a bibliography marker: the book's cited entries, this page's, every entry.
SCOPES = ("book", "page", "all")


@dataclass(frozen=True, slots=True)
class Option:
    """One option: its name, the Python type of its value, its default and what it does."""

    name: str
    kind: type
    default: Any
    doc: str


OPTIONS: tuple[Option, ...] = (
    Option("bib_files", list, [],
           "BibTeX/BibLaTeX files, relative to `mkdocs.yml` (at least one). They are watched by "
           "`mkdocs serve`."),
    Option("style", str, "chicago-author-date",
           "Citation style: an installed `refbook.styles` entry point (`chicago-author-date`, "
           "`numeric`, …)."),
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
    Option("suppress_warnings", list, [],
           "Diagnostics not to report: a code (`unknown-key` or `refbook.unknown-key`), or a code "
           "and an entry key (`refbook.unknown-key:somekey`)."),
)


def _config_option(opt: Option) -> base.BaseConfigOption[Any]:
    if opt.kind is list:
        return c.ListOfItems(c.Type(str), default=list(opt.default))
    if opt.default is None:
        return c.Optional(c.Type(opt.kind))
    return c.Type(opt.kind, default=opt.default)


#: The MkDocs config schema, generated from :data:`OPTIONS`.
RefbookConfig: type[base.Config] = type(
    "RefbookConfig", (base.Config,), {o.name: _config_option(o) for o in OPTIONS},
)


@dataclass(frozen=True, slots=True)
class Settings:
    """Validated option values; paths are absolute."""

    bib_files: tuple[str, ...]
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

    def suppressed(self, code: Code, key: str = "") -> bool:
        names = {code.slug, code.qualified}
        if key:
            names |= {f"{code.slug}:{key}", f"{code.qualified}:{key}"}
        return bool(names & self.suppress_warnings)


def settings_from(values: base.Config, config_file: str | None) -> Settings:
    """Check what MkDocs' schema cannot and build :class:`Settings` (``PluginError`` if unusable)."""
    root = os.path.dirname(os.path.abspath(config_file)) if config_file else os.getcwd()
    bibs = list(values["bib_files"])
    if not bibs:
        msg = "refbook: the option 'bib_files' needs at least one .bib file, e.g. bib_files: [references.bib]"
        raise PluginError(msg)
    paths = []
    for b in bibs:
        path = os.path.normpath(os.path.join(root, b))
        if not os.path.isfile(path):
            msg = f"refbook: 'bib_files' names {b!r}, which is not a file (looked for {path})"
            raise PluginError(msg)
        paths.append(path)
    style = values["style"]
    styles = available_styles()
    if style not in styles:
        msg = f"refbook: unknown 'style' {style!r}; installed styles: {', '.join(sorted(styles))}"
        raise PluginError(msg)
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
        check, _ = host_config(values["check"], root, strict=bool(values["strict"]))
    except CheckConfigError as exc:
        where = "'check' option: " if values["check"] is not None else ""
        msg = (f"refbook: {where}{exc} (the validation options are select, ignore, severity, "
               "per_entry_ignore and extra_fields; 'refbook check --list-rules' names every code)")
        raise PluginError(msg) from exc
    return Settings(
        check=check,
        bib_files=tuple(paths), style=style, strict=bool(values["strict"]),
        references_page=page, references_title=str(values["references_title"]),
        per_page_lists=bool(values["per_page_lists"]), nocite=tuple(values["nocite"]),
        backlinks=bool(values["backlinks"]), tooltips=bool(values["tooltips"]),
        stylesheet=bool(values["stylesheet"]),
        suppress_warnings=frozenset(values["suppress_warnings"]), root=root,
    )


def options_table() -> str:
    """The Markdown table of every option, as ``docs/mkdocs.md`` shows it."""
    rows = ["| option | default | what it does |", "|---|---|---|"]
    for o in OPTIONS:
        default = repr(o.default).replace("'", '"')
        if o.default is None:
            default = "null"
        elif isinstance(o.default, bool):
            default = str(o.default).lower()
        rows.append(f"| `{o.name}` | `{default}` | {o.doc} |")
    return "\n".join(rows)
