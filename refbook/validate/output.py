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

import os
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refbook.models import Entry
    from refbook.styles import CslStyle

__all__ = ["DEFAULT_STYLE", "output_changes"]

DEFAULT_STYLE = "chicago-author-date"


#: the styles the rules render with, by (name, working folder): resolving a name reads and digests
#: its file, and the rules ask for the output of most entries of a real bibliography (13,564 of
#: 20,000 in the benchmark's file); the stat stamp of the file(s) makes an edited style current
_STYLES: dict[tuple[str, str], tuple[tuple[object, ...], CslStyle]] = {}


def _stamp(style: CslStyle) -> tuple[object, ...]:
    out: list[object] = []
    for path in dict.fromkeys((style.path, style._run_path())):
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
        else:
            out.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
    return tuple(out)


def _style_named(name: str) -> CslStyle:
    from refbook.styles import get_style

    key = (name, os.getcwd())
    found = _STYLES.get(key)
    if found is not None and _stamp(found[1]) == found[0]:
        return found[1]
    style = get_style(name)
    if len(_STYLES) > 64:
        _STYLES.clear()
    _STYLES[key] = (_stamp(style), style)
    return style


def _render(entry: Entry, style: str) -> str | None:
    """The entry's reference-list text under ``style``; None when it cannot be rendered (an
    unknown style is reported by the hosts, not here)."""
    from refbook.bibtex_csl import entry_to_item
    from refbook.render.text import to_text
    from refbook.styles import StyleError

    try:
        # a memo of its own: these one-off forms would only crowd the style's shared memo,
        # and the host's memo file, with entries no build asks for
        processor = _style_named(style or DEFAULT_STYLE).processor([entry_to_item(entry)],
                                                                   memo={})
        return "\n".join(to_text(nodes) for _, nodes in processor.bibliography())
    except StyleError:  # an unknown or bad style is reported by the hosts, not here
        return None


@lru_cache(maxsize=4096)
def _render_as_written(entry: Entry, style: str) -> str | None:
    """:func:`_render` of an entry as read: several rules ask about the same entry (a title's
    case, its page dashes, a braced month), each with its own fix."""
    return _render(entry, style)


@lru_cache(maxsize=4096)
def output_changes(entry: Entry, name: str, fixed: str, style: str, rename: str = "") -> bool:
    """Whether writing ``fixed`` as the value of field ``name`` (renamed ``rename`` when given)
    changes what ``style`` prints for ``entry`` (True when the style cannot tell: the rule then
    reports as before)."""
    before = _render_as_written(entry, style)
    if before is None:
        return True
    fields = tuple(replace(f, name=rename or name, value=fixed) if f.name == name else f
                   for f in entry.fields)
    after = _render(replace(entry, fields=fields), style)
    return after is None or after != before
