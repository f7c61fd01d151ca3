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


def report(diagnostics: Iterable[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """Log every diagnostic not suppressed; return those that fail a strict build.

    Errors and warnings are MkDocs warnings (``--strict`` counts them); infos are info lines,
    at most :data:`~refbook.validate.report.INFO_LIMIT` per code and then a count.
    """
    kept = [d for d in diagnostics if not settings.suppressed(d.code, d.key)]
    shown, summaries = condense(kept)
    failing: list[Diagnostic] = []
    for d in shown:
        if d.effective_severity is Severity.INFO:
            log.info(d.format())
            continue
        log.warning(d.format())
        failing.append(d)
    for line in summaries:
        log.info(line)
    return failing
