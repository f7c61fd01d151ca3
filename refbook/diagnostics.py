"""Diagnostics: the data every stage returns instead of raising or logging.

Each :class:`Code` has a stable name (shown as ``refbook.<name>``), a default severity and a
description, which the docs and the CLI show. Adapters hand diagnostics to their host's logger.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refbook.models import Location


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Code(Enum):
    """Diagnostic codes. Value: (name, default severity, description)."""

    SYNTAX = ("syntax", Severity.ERROR, "The .bib file has text that is not valid BibTeX; the entry it belongs to is skipped, every other entry is kept.")
    ENCODING = ("encoding", Severity.ERROR, "The file is not valid UTF-8; it was decoded as Latin-1 instead.")
    FILE = ("file", Severity.ERROR, "A bibliography file cannot be read (missing, a directory, no permission).")
    DUPLICATE_KEY = ("duplicate-key", Severity.ERROR, "Two entries share one citation key; the first one is kept.")
    DUPLICATE_FIELD = ("duplicate-field", Severity.ERROR, "An entry sets the same field twice; the first value is kept.")
    UNDEFINED_STRING = ("undefined-string", Severity.ERROR, "A field uses an @string macro that is never defined; the macro name is kept as text.")
    CROSSREF_MISSING = ("crossref-missing", Severity.ERROR, "An entry's crossref (or xdata) names a key that does not exist.")
    CROSSREF_CYCLE = ("crossref-cycle", Severity.ERROR, "Entries inherit from each other in a loop through crossref or xdata; the link that closes the loop is ignored.")
    BAD_NAME = ("bad-name", Severity.WARNING, "A name list has a part that BibTeX cannot split (too many commas, an empty name).")
    UNKNOWN_STYLE = ("unknown-style", Severity.ERROR, "The configured style is not installed.")
    UNKNOWN_KEY = ("unknown-key", Severity.ERROR, "A citation names a key that is in no bibliography file.")
    CITATION_SYNTAX = ("citation-syntax", Severity.ERROR, "A citation cannot be parsed.")

    def __init__(self, slug: str, severity: Severity, doc: str) -> None:
        self.slug = slug
        self.default_severity = severity
        self.doc = doc

    @property
    def qualified(self) -> str:
        return f"refbook.{self.slug}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem: what (code + message), where (location, entry key, field), how to fix (hint)."""

    code: Code
    message: str
    location: Location | None = None
    hint: str = ""
    key: str = ""
    field: str = ""
    severity: Severity | None = None

    @property
    def effective_severity(self) -> Severity:
        return self.severity or self.code.default_severity

    def format(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        sev = self.effective_severity.value
        text = f"{where}{sev}: {self.message} [{self.code.qualified}]"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text
