"""Building diagnostics for rules, and applying the configuration to them.

Every family module of ``refbook.validate`` creates its diagnostics through :func:`at` so that
the location is always the field's ``file:line`` (the entry's when there is no field), and the
entry key and field name are always filled in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.records import replace

if TYPE_CHECKING:
    from collections.abc import Iterable

    from refbook.config import Config
    from refbook.models import Bibliography, Entry, Field

__all__ = ["IGNORE_FIELD", "INFO_LIMIT", "apply_config", "at", "condense", "show"]

#: info diagnostics a host prints per code before it sums the rest up in one line
INFO_LIMIT = 20

IGNORE_FIELD = "refbook-ignore"


def show(value: str, limit: int = 80) -> str:
    """A value quoted for a message, shortened when long."""
    text = " ".join(value.split()) if "\n" in value else value
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return quote(text)


def quote(text: str) -> str:
    """``text`` in quotes for a message, as ``repr`` writes it (control characters and odd
    spaces escaped: ``'\\xa0'``) but with a backslash as itself: LaTeX as written
    (``'\\cite{x}'``, not ``'\\\\cite{x}'``)."""
    return repr(text).replace("\\\\", "\\")


def at(code: Code, entry: Entry, field: Field | None, message: str, hint: str) -> Diagnostic:
    """A diagnostic for ``entry`` located at ``field`` (or at the entry).

    The message always names the entry: hosts print ``file:line: message`` without the key.
    """
    if repr(entry.key) not in message:
        message = f"{entry.key}: {message}"
    return Diagnostic(code, message, field.location if field is not None else entry.location,
                      hint, entry.key, field.name if field is not None else "")


def _entry_ignores(entry: Entry) -> frozenset[Code]:
    from refbook.config import ConfigError, expand_selector

    out: set[Code] = set()
    for name in entry.get(IGNORE_FIELD).replace(";", ",").split(","):
        if name.strip():
            try:
                out |= expand_selector(name)
            except ConfigError:
                continue  # reported by the fields family as a bad refbook-ignore value
    return frozenset(out)


def apply_config(diagnostics: Iterable[Diagnostic], config: Config,
                 bibliography: Bibliography | None = None) -> list[Diagnostic]:
    """Drop disabled and suppressed diagnostics, set configured severities, sort by place.

    Hosts call this on reader and citation diagnostics too, so that one configuration governs
    everything a book reports.
    """
    out: list[Diagnostic] = []
    cache: dict[str, frozenset[Code]] = {}
    # per code: None when off, else the configured severity (a few codes, thousands of
    # diagnostics). Keyed by the code's slug: a code (an Enum member) hashes in Python, three
    # times per diagnostic here (7,800 of them for a 20,000-entry file's check under
    # `mkdocs serve`, after every .bib edit)
    levels: dict[str, Severity | None] = {}
    per_entry = bool(config.per_entry_ignore)
    for d in diagnostics:
        code = d.code
        slug = code.slug
        if slug in levels:
            sev = levels[slug]
        else:
            sev = levels[slug] = config.severity_of(code) if config.enabled(code) else None
        if sev is None:
            continue
        if d.key:
            ignored = cache.get(d.key)
            if ignored is None:
                entry = bibliography.get(d.key) if bibliography is not None else None
                ignored = (_entry_ignores(entry) if entry is not None and IGNORE_FIELD in entry
                           else frozenset())
                if per_entry:
                    ignored |= config.ignored_for(d.key)
                cache[d.key] = ignored
            if ignored and code in ignored:  # (an empty set hashes the code all the same)
                continue
        if sev is not code.default_severity and d.severity is None:
            d = replace(d, severity=sev)
        out.append(d)
    return sorted(out, key=_place)


def _place(d: Diagnostic) -> tuple[str, int, str]:
    loc = d.location
    return (loc.file if loc else "", loc.line if loc else 0, d.code.slug)


def condense(diagnostics: Iterable[Diagnostic], limit: int = INFO_LIMIT,
             ) -> tuple[list[Diagnostic], list[str]]:
    """What a build log shows: every error and warning; per code, the first ``limit`` infos.

    The rest of each code's infos become one summary line (a book on a shared bibliography of
    thousands of entries would otherwise print one ``unused-entry`` line per entry). Raising the
    code's severity to ``warning`` lists each again; ``refbook check`` always lists each.
    """
    shown: list[Diagnostic] = []
    # counted by the code's slug: a code (an Enum member) hashes in Python, and `mkdocs serve`
    # condenses a shared bibliography's ~20,000 unused entries on every rebuild
    hidden: dict[str, tuple[Code, int]] = {}
    seen: dict[str, int] = {}
    info = Severity.INFO
    for d in diagnostics:
        code = d.code
        if (d.severity or code.default_severity) is info:
            slug = code.slug
            n = seen[slug] = seen.get(slug, 0) + 1
            if n > limit:
                hidden[slug] = (code, n - limit)
                continue
        shown.append(d)
    lines = [f"{n} more {code.qualified} (info) not shown; 'refbook check' lists each, and "
             f"setting its severity to warning lists them here too (or off to hide them)"
             for code, n in hidden.values()]
    return shown, lines
