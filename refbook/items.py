"""Bibliography → CSL items: the step between reading and styling.

Conversion follows pandoc's BibTeX mapping (``refbook.bibtex_csl``). Items are cached per
entry (entries are frozen and hashable), so a rebuild after an edit converts only what changed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from refbook.bibtex_csl import entry_to_item

if TYPE_CHECKING:
    from refbook.csl import Item
    from refbook.models import Bibliography, Entry


@lru_cache(maxsize=65536)
def _item(entry: Entry) -> Item:
    return entry_to_item(entry)


def items_for(bibliography: Bibliography) -> dict[str, Item]:
    """CSL items of every entry, by key (first definition of a key wins)."""
    out: dict[str, Item] = {}
    for e in bibliography:
        if e.key not in out:
            out[e.key] = _item(e)
    return out
