"""Configuration: the options the extension adds to ``conf.py``, declared once.

Where it sits: ``setup()`` registers one Sphinx config value per :class:`Option` (``refbook_*``),
plus sphinxcontrib-bibtex's ``bibtex_bibfiles`` as an alias; ``config-inited`` validates them
and reports every unusable value, at its line of ``conf.py``, before any document is read. The
rest of the adapter reads the validated values through :func:`settings`.
"""

from __future__ import annotations

import ast
import codecs
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from refbook.config import Config as CheckConfig
from refbook.config import ConfigError as CheckConfigError
from refbook.config import host_config
from refbook.diagnostics import Code
from refbook.records import record
from refbook.styles import style_problems
from sphinx_refbook import report
from sphinx_refbook.compat import COMPAT_OPTIONS, Compat, compat_problems, compat_settings

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


@record(frozen=True)
class Option:
    """One configuration value: ``refbook_<name>`` in ``conf.py``."""

    name: str
    default: object
    types: tuple[type, ...]
    doc: str
    #: what a change invalidates: "env" re-reads every document, "html" only re-writes,
    #: "" nothing (the domain's own cache key covers it)
    rebuild: Literal["env", "html", ""] = "env"


OPTIONS: tuple[Option, ...] = (
    Option("bibfiles", (), (list, tuple),
           "The .bib files of the book, relative to the source directory (strings or "
           "`pathlib.Path`)."),
    Option("style", "chicago-author-date", (str,),
           "The citation style: a built-in style (`chicago-author-date`, `numeric`), a path to a "
           "`.csl` file (relative to the folder of `conf.py`; an edit of the file rebuilds), or "
           "the name of a style of the CSL styles repository (`apa`, `ieee`, `nature`, … with "
           "`pip install refbook[styles]`). Not set (nor `refbook_bibfiles`) in a project that "
           "sets `bibtex_*` options: sphinxcontrib-bibtex's look (see Migrating from "
           "sphinxcontrib-bibtex)."),
    Option("locale", None, (str, type(None)),
           "The locale of terms, dates and quotation marks (`de-DE`, `en-GB`, `fr`, …). Unset: "
           "the style's `default-locale`, else `en-US`."),
    Option("strict", False, (bool,),
           "Fail the build on any refbook problem, even without `-W`, listing every problem."),
    Option("backlinks", True, (bool,),
           "List under each entry the places (page, section) that cite it."),
    Option("pandoc_syntax", True, (bool,),
           "Recognise Pandoc citations (`[@key]`, `@key`) in Markdown (MyST) pages."),
    Option("auto_bibliography", True, (bool,),
           "If no page has a bibliography directive, append the book's list to the root document."),
    Option("bibliography_header", "References", (str,),
           "Title of the section the automatic list is placed in."),
    Option("check", None, (dict, type(None)),
           "Validation options, the keys of `[tool.refbook.check]`: `select`, `ignore`, "
           "`severity` (code → error/warning/info/off), `per_entry_ignore` (key → codes), "
           "`extra_fields`. Unset: the `[tool.refbook.check]` table of a `pyproject.toml` next "
           "to `conf.py`, so the build and `refbook check` run there agree.", rebuild=""),
    # rebuild="": a change re-reads the pages through env-get-outdated (also when only
    # pyproject.toml changed, which Sphinx does not watch)
)

#: sphinxcontrib-bibtex names accepted so that a project migrates by swapping the extension.
#: Its paths are relative to the folder of conf.py, as sphinxcontrib-bibtex reads them.
ALIASES: dict[str, str] = {"bibtex_bibfiles": "bibfiles"}

#: sphinxcontrib-bibtex's ``bibtex_encoding`` values refbook honours: its reader reads UTF-8
#: (a byte-order mark included) and, failing that, Latin-1 — declared, that is no problem.
ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "latin-1": "latin-1",
             "iso8859-1": "latin-1"}


@record(frozen=True)
class Settings:
    """The validated options."""

    bibfiles: tuple[str, ...]
    #: the style as written, a relative .csl path made absolute (relative to conf.py's folder)
    style: str
    strict: bool
    backlinks: bool
    pandoc_syntax: bool
    auto_bibliography: bool
    bibliography_header: str
    #: the validation options (from ``refbook_check`` or ``pyproject.toml``), strict included
    check: CheckConfig
    #: the folder the bibfiles are relative to: "" for the source folder (refbook_bibfiles),
    #: the folder of conf.py for sphinxcontrib-bibtex's bibtex_bibfiles
    bibfiles_dir: str = ""
    #: bibtex_encoding declares Latin-1: the reader's "not UTF-8" diagnostic is expected
    latin1: bool = False
    #: sphinxcontrib-bibtex's look (pybtex styles, its referencing styles): a project that sets
    #: bibtex_* options and no refbook_style; None: refbook's own styles
    compat: Compat | None = None
    #: the locale asked for (None: the style's default-locale)
    locale: str | None = None


#: id(Sphinx config) → its validation options, computed once at ``config-inited`` (reading
#: ``pyproject.toml`` needs the folder of ``conf.py``, which only the application knows)
_CHECKS: dict[int, CheckConfig] = {}

#: id(Sphinx config) → the problems ``config-inited`` found (empty: the configuration is usable)
_PROBLEMS: dict[int, tuple[str, ...]] = {}

#: id(Sphinx config) → the folder of conf.py (sphinxcontrib-bibtex's paths are relative to it)
_CONFDIRS: dict[int, str] = {}

#: id(Sphinx config) → whether refbook_style / refbook_locale were unusable at config-inited
_STYLE_PROBLEMS: dict[int, bool] = {}


def _style_path(style: str, confdir: str) -> str:
    """A ``.csl`` path relative to the folder of ``conf.py`` made absolute (names stay names)."""
    if (style.endswith(".csl") or "/" in style or os.sep in style) and confdir:
        return os.path.normpath(os.path.join(confdir, os.path.expanduser(style)))
    return style


def register(app: Sphinx) -> None:
    for opt in OPTIONS:
        app.add_config_value(f"refbook_{opt.name}", opt.default, opt.rebuild, opt.types)
    for alias in ALIASES:
        app.add_config_value(alias, None, "env")
    app.add_config_value("bibtex_encoding", "utf-8-sig", "env", (str,))
    for name, default in COMPAT_OPTIONS.items():
        app.add_config_value(name, default, "env")


def settings(config: Config) -> Settings:
    """The options, each unusable value replaced by its default (the build then fails with the
    problems :func:`validate` logged, see :func:`problems`)."""
    values: dict[str, Any] = {}
    for opt in OPTIONS:
        value = getattr(config, f"refbook_{opt.name}", opt.default)
        values[opt.name] = value if isinstance(value, opt.types) else opt.default
    values["bibfiles_dir"] = ""
    for alias, name in ALIASES.items():
        given = getattr(config, alias, None)
        if given and isinstance(given, list | tuple) and not values[name]:
            values[name] = given
            values["bibfiles_dir"] = _CONFDIRS.get(id(config), "")
    values["bibfiles"] = tuple(_path(p) for p in values["bibfiles"] if _path(p))
    values["latin1"] = ENCODINGS.get(_codec(getattr(config, "bibtex_encoding", ""))) == "latin-1"
    values["style"] = _style_path(values["style"], _CONFDIRS.get(id(config), ""))
    if _STYLE_PROBLEMS.get(id(config)):
        values["style"] = _default("style")  # the build is idle and fails (see problems)
    check = _CHECKS.get(id(config))
    if check is None:  # a config that did not pass config-inited (never in a real build)
        try:
            check, _ = host_config(values["check"] or {}, ".", strict=values["strict"])
        except CheckConfigError:
            check = CheckConfig()
    values["check"] = check
    values["compat"] = compat_settings(config) if compat_mode(config) else None
    return Settings(**values)


def given(config: Config, name: str) -> bool:
    """Whether ``conf.py`` (or ``-D``) sets ``name`` (not only its default)."""
    return name in config.overrides or name in getattr(config, "_raw_config", {})


def compat_mode(config: Config) -> bool:
    """sphinxcontrib-bibtex's look: the project configures ``bibtex_*`` options (it was written
    for sphinxcontrib-bibtex) and no refbook option that chooses refbook's way (a style, or
    ``refbook_bibfiles``). ``bibtex_encoding`` alone does not count: refbook's docs give it to
    any project whose files are Latin-1."""
    if given(config, "refbook_style") or given(config, "refbook_bibfiles"):
        return False
    names = set(config.overrides) | set(getattr(config, "_raw_config", {}))
    return any(n.startswith("bibtex_") and n != "bibtex_encoding" for n in names)


def problems(config: Config) -> tuple[str, ...]:
    """The configuration problems logged at ``config-inited``; while there are any, refbook
    leaves every citation as written and the build fails at its end."""
    return _PROBLEMS.get(id(config), ())


def _path(value: object) -> str:
    """A bibfiles entry as a path string ("" for anything else): str or ``pathlib.Path``."""
    if isinstance(value, str | os.PathLike):
        return os.fsdecode(os.fspath(value))
    return ""


def _codec(name: object) -> str:
    """The canonical name of an encoding ("" for an unknown one)."""
    try:
        return codecs.lookup(str(name)).name
    except LookupError:
        return ""


def _default(name: str) -> Any:
    return next(opt.default for opt in OPTIONS if opt.name == name)


def validate(app: Sphinx, config: Config) -> None:
    """``config-inited``: every unusable value, each with a message that says how to fix it.

    They are logged as errors at the line of ``conf.py`` that sets the option (or named as a
    ``-D`` override), not raised: Sphinx 8 and 9 print any exception an extension raises —
    their own ``ConfigError`` too — as a crash report asking to report a Sphinx bug. The build
    goes on with refbook idle (citations left as written) and ends with a non-zero status
    (``on_build_finished``). Also reads the validation options once (``refbook_check`` or the
    ``pyproject.toml`` next to ``conf.py``).
    """
    found: list[tuple[str, str]] = []  # (option, message)
    for opt in OPTIONS:
        value = getattr(config, f"refbook_{opt.name}")
        if not isinstance(value, opt.types):
            wanted = " or ".join(t.__name__ for t in opt.types)
            found.append((f"refbook_{opt.name}",
                          (f"refbook_{opt.name} must be a {wanted}, not {type(value).__name__} "
                          f"({value!r}): {opt.doc}")))
    for alias in ALIASES:
        value = getattr(config, alias, None)
        if value is not None and not isinstance(value, list | tuple):
            found.append((alias, (f"{alias} must be a list of .bib paths, not "
                                 f"{type(value).__name__} ({value!r})")))
    given_check = config.refbook_check if isinstance(config.refbook_check, dict | None) else {}
    try:
        # the rules that ask whether a fix changes the output ask the book's style
        style = config.refbook_style if isinstance(config.refbook_style, str) else ""
        if style and os.path.isfile(os.path.join(app.confdir or ".", style)):
            style = os.path.join(app.confdir or ".", style)  # a .csl file beside conf.py
        check, _ = host_config(given_check, app.confdir or ".",
                               strict=config.refbook_strict is True, style=style)
    except CheckConfigError as exc:
        check = CheckConfig(strict=config.refbook_strict is True)
        where = "refbook_check: " if given_check is not None else ""
        found.append(("refbook_check" if given_check is not None else "",
                      (f"{where}{exc} (the validation options are select, ignore, severity, "
                      "per_entry_ignore and extra_fields; 'refbook check --list-rules' names "
                      "every code)")))
    _CHECKS[id(config)] = check
    _CONFDIRS[id(config)] = str(app.confdir or "")
    alias_given = getattr(config, "bibtex_bibfiles", None)
    bibfiles = config.refbook_bibfiles
    if not isinstance(bibfiles, list | tuple) or not bibfiles:
        bibfiles = alias_given
    named = "refbook_bibfiles" if config.refbook_bibfiles else (
        "bibtex_bibfiles" if alias_given is not None else "refbook_bibfiles")
    bad = [p for p in bibfiles if not _path(p)] if isinstance(bibfiles, list | tuple) else []
    if bad:
        found.append((named, (f"{named} must hold file paths (strings or pathlib.Path), got "
                             f"{bad!r}")))
    elif not bibfiles and alias_given is None:
        # sphinxcontrib-bibtex accepts bibtex_bibfiles = [] (a book without entries yet)
        found.append((named, ("refbook_bibfiles is empty: list the book's .bib files in "
                             "conf.py, e.g. refbook_bibfiles = ['references.bib'] "
                             "(bibtex_bibfiles is accepted too)")))
    encoding = getattr(config, "bibtex_encoding", "utf-8-sig")
    if _codec(encoding) not in ENCODINGS:
        found.append(("bibtex_encoding", (
            f"bibtex_encoding = {encoding!r}: refbook reads .bib files as UTF-8 (or Latin-1, "
            "bibtex_encoding = 'latin-1'); convert the files to UTF-8, e.g. with "
            f"iconv -f {encoding} -t utf-8")))
    style = config.refbook_style
    locale = config.refbook_locale if isinstance(config.refbook_locale, str) else None
    style_found: list[tuple[tuple[str | None, str], str]] = []
    if isinstance(style, str):
        for d in style_problems(style, base=app.confdir or ".", locale=locale):
            if d.code is Code.BAD_STYLE and d.location is not None:
                # the file's own line: where the fix is
                style_found.append(((str(d.location), ""),
                                    f"refbook_style = {style!r}: {d.message}"))
            elif d.code is Code.UNKNOWN_LOCALE:
                found.append(("refbook_locale",
                              f"refbook_locale = {locale!r}: {d.message}; {d.hint}"))
            else:
                found.append(("refbook_style", f"refbook_style = {style!r}: {d.message}"))
    compat = compat_mode(config)
    found += compat_problems(config, compat=compat)
    _STYLE_PROBLEMS[id(config)] = bool(style_found) or any(
        n in ("refbook_style", "refbook_locale") for n, _ in found)
    _PROBLEMS[id(config)] = tuple(message for _, message in found) + tuple(
        message for _, message in style_found)
    located = [(_origin(name, app, config), message) for name, message in found] + style_found
    for (place, suffix), message in sorted(located, key=lambda x: _line_of(x[0][0])):
        report.config_error(message, place, suffix)
    if compat and not found:
        s = compat_settings(config)
        report.logger.info(
            f"refbook: sphinxcontrib-bibtex's look kept (pybtex style {s.default_style!r}, "
            f"reference style {s.reference_style!r}), with refbook's checks and back-links; "
            "for refbook's styles set refbook_style = \"chicago-author-date\" in conf.py")
    elif not compat:
        for name, message in unused_compat_options(config):
            place, suffix = _origin(name, app, config)
            report.logger.warning(f"{message}{suffix}{report.code_suffix('ignored-option', config)}",
                                  location=place, type="refbook", subtype="ignored-option")


def unused_compat_options(config: Config) -> list[tuple[str, str]]:
    """sphinxcontrib-bibtex's presentation options a project sets while refbook's style is
    chosen: they change nothing, which is said rather than ignored."""
    style = getattr(config, "refbook_style", "")
    return [(name, (f"{name} has no effect: refbook_style = {style!r} formats the citations "
                   "and lists (remove refbook_style to keep sphinxcontrib-bibtex's look)"))
            for name in COMPAT_OPTIONS if given(config, name)]


def _line_of(where: str | None) -> int:
    """The line of a ``path:line`` location (problems are listed in the order of conf.py)."""
    tail = (where or "").rpartition(":")[2]
    return int(tail) if tail.isdigit() else 0


def _origin(name: str, app: Sphinx, config: Config) -> tuple[str | None, str]:
    """Where an option was set: ``("conf.py:LINE", "")`` or ``(None, " (set by -D …)")``."""
    if name in config.overrides:
        return None, f" (set on the command line: -D {name}={config.overrides[name]})"
    if not name or not app.confdir:
        return None, ""
    conf = Path(app.confdir) / "conf.py"
    try:
        tree = ast.parse(conf.read_bytes(), filename=str(conf))
    except (OSError, SyntaxError, ValueError):
        return str(conf), ""
    line = 0
    for node in tree.body:  # the last top-level assignment wins, as in Python
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            line = node.lineno
    return (f"{conf}:{line}" if line else str(conf)), ""
