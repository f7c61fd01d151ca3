"""Validation: the rule catalogue applied to a ``Bibliography``.

Where it sits: after the reader, before styles. ``validate(bibliography, config)`` runs every
family of rules (one module each) and returns their diagnostics, filtered and re-levelled by the
:class:`refbook.config.Config`; hosts and ``refbook check`` report them with the reader's.

Families: ``keys`` (duplicates), ``types`` (entry types and fields), ``dates``, ``identifiers``
(DOI, URL, ISBN, ISSN, arXiv), ``names``, ``titles``, ``values`` (pages, month, volume) and
``citations`` (``refbook.validate.citations``: needs the documents, used by ``refbook check
--docs`` and the hosts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refbook.config import Config
from refbook.validate import dates, fields, identifiers, keys, names, titles, values
from refbook.validate.report import apply_config

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from refbook.diagnostics import Diagnostic
    from refbook.models import Bibliography

__all__ = ["FAMILY_CHECKS", "apply_config", "check_bibliography", "validate"]

FAMILY_CHECKS: dict[str, Callable[[Bibliography, Config], Iterable[Diagnostic]]] = {
    "keys": keys.check,
    "types": fields.check,
    "dates": dates.check,
    "identifiers": identifiers.check,
    "names": names.check,
    "titles": titles.check,
    "values": values.check,
}


def validate(bibliography: Bibliography, config: Config | None = None) -> list[Diagnostic]:
    """Every rule's diagnostics for ``bibliography``, configured and sorted by file and line.

    The reader's own diagnostics (``bibliography.diagnostics``) are not repeated; pass them
    through :func:`apply_config` to configure them the same way.
    """
    config = config or Config()
    found: list[Diagnostic] = []
    for check in FAMILY_CHECKS.values():
        found.extend(check(bibliography, config))
    return apply_config(found, config, bibliography)


def check_bibliography(bibliography: Bibliography, config: Config | None = None) -> list[Diagnostic]:
    """The reader's diagnostics and every rule's, configured alike and sorted by file and line.

    What ``refbook check`` reports for .bib files; hosts call it once per build.
    """
    config = config or Config()
    found = apply_config(bibliography.diagnostics, config, bibliography)
    found += validate(bibliography, config)
    return sorted(found, key=lambda d: (d.location.file if d.location else "",
                                        d.location.line if d.location else 0, d.code.slug))
