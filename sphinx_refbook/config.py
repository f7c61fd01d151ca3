"""Configuration: the options the extension adds to ``conf.py``, declared once.

Where it sits: ``setup()`` registers one Sphinx config value per :class:`Option` (``refbook_*``),
plus sphinxcontrib-bibtex's ``bibtex_bibfiles`` as an alias; ``config-inited`` validates them
and fails with a clear message before any document is read. The rest of the adapter reads the
validated values through :func:`settings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sphinx.errors import ConfigError

from refbook.config import Config as CheckConfig
from refbook.config import ConfigError as CheckConfigError
from refbook.config import host_config
from refbook.styles import available_styles

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


@dataclass(frozen=True, slots=True)
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
           "The .bib files of the book, relative to the source directory."),
    Option("style", "chicago-author-date", (str,),
           "The citation style (an installed refbook style: chicago-author-date, numeric, …)."),
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
ALIASES: dict[str, str] = {"bibtex_bibfiles": "bibfiles"}


@dataclass(frozen=True, slots=True)
class Settings:
    """The validated options."""

    bibfiles: tuple[str, ...]
    style: str
    strict: bool
    backlinks: bool
    pandoc_syntax: bool
    auto_bibliography: bool
    bibliography_header: str
    #: the validation options (from ``refbook_check`` or ``pyproject.toml``), strict included
    check: CheckConfig


#: id(Sphinx config) → its validation options, computed once at ``config-inited`` (reading
#: ``pyproject.toml`` needs the folder of ``conf.py``, which only the application knows)
_CHECKS: dict[int, CheckConfig] = {}


def register(app: Sphinx) -> None:
    for opt in OPTIONS:
        app.add_config_value(f"refbook_{opt.name}", opt.default, opt.rebuild, opt.types)
    for alias in ALIASES:
        app.add_config_value(alias, None, "env")


def settings(config: Config) -> Settings:
    values: dict[str, Any] = {opt.name: getattr(config, f"refbook_{opt.name}") for opt in OPTIONS}
    for alias, name in ALIASES.items():
        given = getattr(config, alias, None)
        if given and not values[name]:
            values[name] = given
    values["bibfiles"] = tuple(values["bibfiles"])
    check = _CHECKS.get(id(config))
    if check is None:  # a config that did not pass config-inited (never in a real build)
        check, _ = host_config(values["check"] or {}, ".", strict=values["strict"])
    values["check"] = check
    return Settings(**values)


def validate(app: Sphinx, config: Config) -> None:
    """``config-inited``: reject unusable values with a message that says how to fix them.

    Also reads the validation options once (``refbook_check`` or the ``pyproject.toml`` next
    to ``conf.py``).
    """
    for opt in OPTIONS:
        value = getattr(config, f"refbook_{opt.name}")
        if not isinstance(value, opt.types):
            wanted = " or ".join(t.__name__ for t in opt.types)
            msg = (f"refbook_{opt.name} must be a {wanted}, not {type(value).__name__} "
                   f"({value!r}): {opt.doc}")
            raise ConfigError(msg)
    for alias in ALIASES:
        value = getattr(config, alias, None)
        if value is not None and not isinstance(value, list | tuple):
            msg = f"{alias} must be a list of .bib paths, not {type(value).__name__} ({value!r})"
            raise ConfigError(msg)
    try:
        check, _ = host_config(config.refbook_check, app.confdir,
                               strict=bool(config.refbook_strict))
    except CheckConfigError as exc:
        where = "refbook_check: " if config.refbook_check is not None else ""
        msg = (f"{where}{exc} (the validation options are select, ignore, severity, "
               "per_entry_ignore and extra_fields; 'refbook check --list-rules' names every code)")
        raise ConfigError(msg) from exc
    _CHECKS[id(config)] = check
    s = settings(config)
    if not s.bibfiles:
        msg = ("refbook_bibfiles is empty: list the book's .bib files in conf.py, e.g. "
               "refbook_bibfiles = ['references.bib'] (bibtex_bibfiles is accepted too)")
        raise ConfigError(msg)
    bad = [p for p in s.bibfiles if not isinstance(p, str) or not p]
    if bad:
        msg = f"refbook_bibfiles must hold file paths (strings), got {bad!r}"
        raise ConfigError(msg)
    styles = available_styles()
    if s.style not in styles:
        msg = (f"refbook_style = {s.style!r} is not an installed style; "
               f"choose one of: {', '.join(sorted(styles))}")
        raise ConfigError(msg)
