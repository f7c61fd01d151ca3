"""Diagnostics → MkDocs' plugin logger (so ``mkdocs build --strict`` counts them).

Where it sits: the side channel of the flow. The core returns :class:`~refbook.diagnostics.Diagnostic`
values; this module names their files relative to ``mkdocs.yml``, drops the suppressed ones, logs
the rest through ``mkdocs.plugins.get_plugin_logger`` (a logger outside ``mkdocs.*`` would not
count for ``--strict``) and says which ones make ``strict: true`` fail.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from mkdocs.plugins import get_plugin_logger

from refbook.diagnostics import Severity
from refbook.models import Location
from refbook.validate.report import condense

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from mkdocs_refbook.options import Settings
    from refbook.diagnostics import Diagnostic

# named so that messages read "refbook: file:line: …"
log = get_plugin_logger("refbook.mkdocs")


def localize(d: Diagnostic, settings: Settings, document_path: Callable[[str], str | None]) -> Diagnostic:
    """Name the diagnostic's file relative to ``mkdocs.yml`` (pages are given by ``src_uri``)."""
    if d.location is None:
        return d
    path = document_path(d.location.file) or d.location.file
    return d.at(Location(_relative(path, settings.root), d.location.line))


@lru_cache(maxsize=1024)
def _relative(path: str, root: str) -> str:
    if os.path.isabs(path):
        rel = os.path.relpath(path, root)
        path = path if rel.startswith("..") else rel
    return path.replace(os.sep, "/")


#: the last report's diagnostics and options, what it logged (is it a warning, the line) and
#: returned, and the diagnostics those lines show (the first lines, in order): a ``mkdocs
#: serve`` rebuild after a prose edit reports the very same diagnostic objects again (27,000
#: of them for a 20,000-entry shared bibliography, 25 ms), one after a citation edit most
#: of them (their lines are re-used)
_LAST: list[tuple[list[Diagnostic], Settings, list[tuple[bool, str]], list[Diagnostic],
                  list[Diagnostic]]] = []


def report(diagnostics: Iterable[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """Log every diagnostic not suppressed; return those that fail a strict build.

    Errors and warnings are MkDocs warnings (``--strict`` counts them); infos are info lines,
    at most :data:`~refbook.validate.report.INFO_LIMIT` per code and then a count.
    """
    given = list(diagnostics)
    last = _LAST[0] if _LAST else None
    if (last is not None and len(last[0]) == len(given) and last[1] == settings
            and all(a is b for a, b in zip(last[0], given, strict=True))):
        lines, failing = last[2], last[3]
    else:
        kept = ([d for d in given if not settings.suppressed(d.code, d.key)]
                if settings.suppress_warnings else given)
        shown, summaries = condense(kept)
        # the lines of the diagnostics the last report showed too (a citation edit: all but a
        # few of them), by identity
        known = ({id(d): line for d, (_, line) in zip(last[4], last[2], strict=False)}
                 if last is not None and last[1] == settings else {})
        failing = []
        lines = []
        for d in shown:
            line = known.get(id(d)) or d.format()
            if d.effective_severity is Severity.INFO:
                lines.append((False, line))
                continue
            lines.append((True, line))
            failing.append(d)
        lines += [(False, line) for line in summaries]
        _LAST[:] = [(given, settings, lines, failing, shown)]
    for warning, line in lines:
        if warning:
            log.warning(line)
        else:
            log.info(line)
    return list(failing)
