"""What the configured style prints for an entry: the test behind every "the style will change
this" rule.

Where it sits: beside the rule families of ``refbook.validate``; ``titles`` (case protection)
and ``values`` (page dashes, braced months) ask :func:`output_changes` before they report, so a
diagnostic about output fires only when the output is affected. The entry is rendered alone,
once as written and once with the suspected problem fixed, by the style named in
:attr:`refbook.config.Config.style` (the default style when empty), as a reference-list entry in
plain text (links and formatting kept as their text).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refbook.models import Entry

__all__ = ["DEFAULT_STYLE", "output_changes"]

DEFAULT_STYLE = "chicago-author-date"


def _render(entry: Entry, style: str) -> str | None:
    """The entry's reference-list text under ``style``; None when it cannot be rendered (an
    unknown style is reported by the hosts, not here)."""
    from refbook.bibtex_csl import entry_to_item
    from refbook.render.text import to_text
    from refbook.styles import StyleError, get_style

    try:
        processor = get_style(style or DEFAULT_STYLE).processor([entry_to_item(entry)])
        return "\n".join(to_text(nodes) for _, nodes in processor.bibliography())
    except StyleError:  # an unknown or bad style is reported by the hosts, not here
        return None


@lru_cache(maxsize=4096)
def output_changes(entry: Entry, name: str, fixed: str, style: str, rename: str = "") -> bool:
    """Whether writing ``fixed`` as the value of field ``name`` (renamed ``rename`` when given)
    changes what ``style`` prints for ``entry`` (True when the style cannot tell: the rule then
    reports as before)."""
    before = _render(entry, style)
    if before is None:
        return True
    fields = tuple(replace(f, name=rename or name, value=fixed) if f.name == name else f
                   for f in entry.fields)
    after = _render(replace(entry, fields=fields), style)
    return after is None or after != before
