"""Renderers: IR (``refbook.ir``) → text, HTML or Markdown strings.

Every renderer escapes text for its format (bibliography text is untrusted) and emits a link only
for ``http``/``https`` URLs; anything else (``javascript:``, ``data:``) is shown as plain text.
"""

from __future__ import annotations

from urllib.parse import urlsplit

OPEN_QUOTES = ("\u201c", "\u2018")
CLOSE_QUOTES = ("\u201d", "\u2019")


def safe_url(url: str) -> str | None:
    """The URL if it is an absolute http(s) URL without control characters, else None."""
    u = url.strip()
    if any(ord(c) < 0x20 or c in "\x7f" for c in u):
        return None
    try:
        parts = urlsplit(u)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return u
