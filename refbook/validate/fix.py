"""``refbook check --fix``: rewrite only unambiguous defects, byte for byte.

Fixes: a resolver prefix in ``doi`` (``https://doi.org/10.…`` → ``10.…``), a doubled URL
scheme (``https://https://`` → ``https://``), a single dash in ``pages`` (``12-15`` →
``12--15``) and a braced month macro (``{jan}`` → ``jan``). Each works on one ``name = value``
line whose value is delimited on that line; everything else in the file is left as it was
(line endings, comments, spacing, other entries).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from refbook.validate.identifiers import DOI_PREFIX, SCHEME_TWICE
from refbook.validate.values import MONTHS, SINGLE_DASH

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["fix_file", "fix_text"]

FIELD_LINE = re.compile(
    r"(?P<head>^[ \t]*(?P<name>[A-Za-z][\w-]*)[ \t]*=[ \t]*)"
    r"(?P<open>[{\"])(?P<value>[^{}\"\n]*)(?P<close>[}\"])", re.MULTILINE)
URL_FIELD_LINE = re.compile(r"^[ \t]*(?:url|howpublished|note|doi)[ \t]*=.*$",
                            re.MULTILINE | re.IGNORECASE)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def fix_text(text: str) -> tuple[str, list[tuple[int, str]]]:
    """The fixed text and ``(line, what)`` for each change."""
    changes: list[tuple[int, str]] = []

    def field(m: re.Match[str]) -> str:
        name = m.group("name").lower()
        value = m.group("value")
        new: str | None = None
        if name == "doi":
            bare = DOI_PREFIX.sub("", value)
            if bare != value and bare.startswith("10."):
                new = bare
        elif name == "pages":
            # Only the dash changes; spaces around the parts are kept as written.
            new = ",".join(re.sub(r"(\S)\s*(?:-|–|‐|‑)\s*(\S)", r"\1--\2", p)
                           if SINGLE_DASH.match(p) else p for p in value.split(","))
        elif name == "month" and value.strip().lower() in {m[:3] for m in MONTHS} \
                and m.group("open") + m.group("close") in ("{}", '""'):
            written = m.group(0)[len(m.group("head")):]
            changes.append((_line(text, m.start()), f"month {written} -> {value.strip().lower()}"))
            return m.group("head") + value.strip().lower()
        if new is None or new == value:
            return m.group(0)
        changes.append((_line(text, m.start()), f"{name} {value!r} -> {new!r}"))
        return m.group("head") + m.group("open") + new + m.group("close")

    text = FIELD_LINE.sub(field, text)

    def scheme(m: re.Match[str]) -> str:
        line = m.group(0)
        new = SCHEME_TWICE.sub("", line)
        if new != line:
            changes.append((_line(text, m.start()), "doubled URL scheme removed"))
        return new

    text = URL_FIELD_LINE.sub(scheme, text)
    changes.sort()
    return text, changes


def fix_file(path: Path) -> list[tuple[int, str]]:
    """Fix ``path`` in place (only when something changes); the changes made."""
    try:
        data = path.read_bytes()
    except OSError:
        return []  # the reader reports the file
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []  # never rewrite a file we cannot round-trip
    # newline="" semantics: split/join on "\n" only, so "\r\n" survives untouched.
    new, changes = fix_text(text)
    if changes:
        path.write_bytes(new.encode("utf-8"))
    return changes
