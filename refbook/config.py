"""Validation options: one frozen :class:`Config`, the single source for every host.

Where it sits: hosts (Sphinx ``conf.py``, MkDocs ``mkdocs.yml``, the ``refbook check`` command
line) turn their options into a ``Config`` with :meth:`Config.from_mapping`;
``refbook.validate`` applies it to every diagnostic (rule diagnostics and the reader's).

A code is named by its slug (``doi-prefix``), its qualified name (``refbook.doi-prefix``), its
family (``identifiers``) or ``ALL``, as in ruff's ``select``/``ignore``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbook.diagnostics import FAMILIES, Code, Severity
from refbook.records import fields, record, replace

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["Config", "ConfigError", "expand_selector", "host_config", "pyproject_options"]


class ConfigError(ValueError):
    """An option value that names no code, family or severity."""


@lru_cache(maxsize=1024)
def expand_selector(name: str) -> frozenset[Code]:
    """The codes a selector names: a slug, ``refbook.<slug>``, a family, or ``ALL``."""
    text = name.strip()
    if text.upper() == "ALL":
        return frozenset(Code)
    code = Code.from_slug(text)
    if code is not None:
        return frozenset({code})
    family = text.lower().removeprefix("refbook.")
    if family in FAMILIES:
        return frozenset(c for c in Code if c.family == family)
    raise ConfigError(f"{name!r} is not a refbook diagnostic code or family "
                      f"(families: {', '.join(FAMILIES)}; run 'refbook check --list-rules')")


def _codes(names: Iterable[str]) -> frozenset[Code]:
    return _codes_of(tuple(names))


@lru_cache(maxsize=1024)
def _codes_of(names: tuple[str, ...]) -> frozenset[Code]:
    out: set[Code] = set()
    for n in names:
        out |= expand_selector(n)
    return frozenset(out)


def _names(value: object) -> bool:
    """Whether ``value`` is a name list: a string, or a list/tuple of strings."""
    if isinstance(value, str):
        return True
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _level(value: object) -> str:
    """A severity as written; YAML reads an unquoted ``off`` as false, which means off too."""
    if value is False:
        return "off"
    return str(value).lower()


def _split(value: str | Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.replace(";", ",").split(",")
    return tuple(v.strip() for v in value if v.strip())


@record(frozen=True)
class Config:
    """Validation options (all optional; the default reports every rule at its own severity).

    ``select``: only these codes/families are reported (empty = all). ``ignore``: these are never
    reported. ``severity``: ``(code, "error"|"warning"|"info"|"off")`` pairs overriding a code's
    default. ``per_entry_ignore``: ``(entry key, codes)`` pairs, the config-side twin of an
    entry's ``refbook-ignore = {code, …}`` field. ``extra_fields``: field names accepted besides
    the BibTeX/BibLaTeX and tool fields. ``strict``: warnings fail like errors. ``style``: the
    citation style the book renders with (empty: the default style); rules about output ask it
    whether a suspected problem changes what is printed (``refbook.validate.output``).
    """

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    per_entry_ignore: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extra_fields: tuple[str, ...] = ()
    strict: bool = False
    style: str = ""

    def __post_init__(self) -> None:
        # Validate eagerly so that a typo in conf.py / mkdocs.yml fails at startup, not silently.
        _codes(self.select)
        _codes(self.ignore)
        for name, level in self.severity:
            expand_selector(name)
            if level not in ("error", "warning", "info", "off"):
                raise ConfigError(f"severity of {name!r} is {level!r}; use error, warning, info or off")
        for _, codes in self.per_entry_ignore:
            _codes(codes)

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> Config:
        """Build from host options (lists or comma-separated strings; ``severity`` a mapping)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ConfigError(f"unknown validation option(s): {', '.join(unknown)} "
                              f"(known: {', '.join(sorted(known))})")
        sev = options.get("severity") or {}
        per = options.get("per_entry_ignore") or {}
        shapes = (("severity", sev, "a mapping of code to level, e.g. {'title-case': 'info'}"),
                  ("per_entry_ignore", per,
                   "a mapping of entry key to codes, e.g. {'smith2020': ['title-case']}"))
        for name, value, kind in shapes:
            if not isinstance(value, dict):
                raise ConfigError(f"{name} must be {kind}, not {value!r}")
        for name in ("select", "ignore", "extra_fields"):
            if not _names(options.get(name) or ()):
                raise ConfigError(f"{name} must be a list of code names (or a comma-separated "
                                  f"string), not {options.get(name)!r}")
        for key, codes in per.items():
            if not codes or not _names(codes):
                raise ConfigError(f"per_entry_ignore of {key!r} must be a list of codes, e.g. "
                                  f"['title-case'], not {codes!r}")
        strict = options.get("strict", False)
        if not isinstance(strict, bool):
            raise ConfigError(f"strict must be true or false, not {strict!r}")
        style = options.get("style") or ""
        if not isinstance(style, str):
            raise ConfigError(f"style must be a style name, not {style!r}")
        return cls(
            select=_split(options.get("select") or ()),
            ignore=_split(options.get("ignore") or ()),
            severity=tuple((str(k), _level(v)) for k, v in sev.items()),
            per_entry_ignore=tuple((str(k), _split(v)) for k, v in per.items()),
            extra_fields=tuple(f.lower() for f in _split(options.get("extra_fields") or ())),
            strict=strict,
            style=style.strip(),
        )

    def enabled(self, code: Code) -> bool:
        """Whether ``code`` is reported at all (select, ignore, severity ``off``)."""
        if self.select and code not in _codes(self.select):
            return False
        if code in _codes(self.ignore):
            return False
        return self.severity_of(code) is not None

    def severity_of(self, code: Code) -> Severity | None:
        """The configured severity of ``code`` (None = off); the last matching pair wins."""
        level: str | None = None
        for name, value in self.severity:
            if code in expand_selector(name):
                level = value
        if level is None:
            return code.default_severity
        return None if level == "off" else Severity(level)

    def ignored_for(self, key: str) -> frozenset[Code]:
        """Codes suppressed for the entry ``key`` by the config mapping."""
        out: set[Code] = set()
        for k, codes in self.per_entry_ignore:
            if k == key:
                out |= _codes(codes)
        return frozenset(out)


def pyproject_options(file: Path) -> dict[str, Any]:
    """The ``[tool.refbook.check]`` table of a ``pyproject.toml`` ({} when there is none)."""
    import tomllib

    if not file.is_file():
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{file}: {exc}") from exc
    table: object = data
    for part in ("tool", "refbook", "check"):
        if not isinstance(table, dict):
            break
        table = table.get(part, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{file}: [tool.refbook.check] must be a table")
    return table


def host_config(options: Mapping[str, Any] | None, folder: str | Path,
                *, strict: bool = False, style: str = "") -> tuple[Config, str]:
    """The validation config of a book and where it came from.

    ``options``: the host's own mapping (``refbook_check`` in ``conf.py``, ``check:`` in
    ``mkdocs.yml``); when it is not given, the ``[tool.refbook.check]`` table of the
    ``pyproject.toml`` in ``folder`` (the folder of ``conf.py`` / ``mkdocs.yml``), so that the
    build and ``refbook check`` run there agree. ``strict`` (the host's strict option) is
    or-ed with the mapping's; ``style`` (the host's style option) is the style the rules ask
    when the mapping names none.
    """
    if options is None:
        file = Path(folder) / "pyproject.toml"
        table, origin = pyproject_options(file), f"{file} [tool.refbook.check]"
    else:
        if not isinstance(options, dict):
            raise ConfigError(f"must be a mapping of validation options, not "
                              f"{type(options).__name__} ({options!r})")
        table, origin = dict(options), ""
    try:
        config = Config.from_mapping(table)
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {exc}" if origin else str(exc)) from exc
    if strict and not config.strict:
        config = replace(config, strict=True)
    if style and not config.style:
        config = replace(config, style=style)
    return config, origin
