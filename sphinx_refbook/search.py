"""The HTML search index on Sphinx 7 and 8: section titles made safe for their search page.

Where it sits: after an HTML build (``build-finished``). Before Sphinx 9, the search page puts a
matched section title into the page as HTML (``innerHTML``), and the index holds section titles
as plain text — so a citation in a heading, whose text comes from a .bib entry (a shared
bibliography someone else writes), could put markup into the search page. Page titles are
already escaped by those versions; this escapes ``<`` and ``>`` in the section titles the same
way. Only those two characters change (idempotent on the next incremental build, which reloads
the index); Sphinx 9 escapes in its script and is left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sphinx

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def escape_section_titles(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or sphinx.version_info >= (9,):
        return
    name = getattr(app.builder, "searchindex_filename", None)
    if not name or not getattr(app.builder, "search", False):
        return
    from sphinx.search import js_index

    path = Path(app.outdir) / name
    try:
        data = js_index.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # no index written (search off, or another format): nothing shows it
    titles = data.get("alltitles") if isinstance(data, dict) else None
    if not isinstance(titles, dict) or not any("<" in t or ">" in t for t in titles):
        return
    safe: dict[str, list[object]] = {}
    for title, places in titles.items():
        safe.setdefault(title.replace("<", "&lt;").replace(">", "&gt;"), []).extend(places)
    data["alltitles"] = safe
    path.write_text(js_index.dumps(data), encoding="utf-8")
