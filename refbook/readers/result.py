"""What a reader returns for one ``.bib`` text (:class:`ParseResult`).

A module of its own, not part of ``refbook.readers.bibtex``: a build whose parses all come from
the cache folder (a warm MkDocs build, a Sphinx rebuild) rebuilds results from their packed form
and never imports the parser (its tables and regular expressions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refbook.records import record

if TYPE_CHECKING:
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry

__all__ = ["ParseResult"]


@record(frozen=True)
class ParseResult:
    """What one ``.bib`` text holds, in source order.

    ``strings`` are this text's ``@string`` definitions (name as written, expanded value);
    ``preambles`` the expanded ``@preamble`` values. Entries with a syntax error are absent and
    reported in ``diagnostics``.
    """

    entries: tuple[Entry, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    strings: tuple[tuple[str, str], ...] = ()
    preambles: tuple[str, ...] = ()
