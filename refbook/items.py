"""Bibliography → CSL items: the step between reading and styling.

Conversion follows pandoc's BibTeX mapping (``refbook.bibtex_csl``). It is lazy and cached per
entry (entries are frozen and hashable): a book that cites 300 of 20,000 entries converts 300, and
a rebuild after an edit converts only the entries that changed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from refbook.bibtex_csl import entry_to_item
from refbook.readers import is_bibtex_file

if TYPE_CHECKING:
    from refbook.csl import Item
    from refbook.models import Bibliography, Entry


@lru_cache(maxsize=65536)
def _item(entry: Entry, language: str = "en-US") -> Item:
    # pandoc maps an entry of a .bibtex file with its BibTeX rules, any other with BibLaTeX's;
    # the document's language decides whether English titles are sentence-cased (pandoc's
    # BibTeX reader does so only when it, and the entry's langid, are English)
    return entry_to_item(entry, default_language=language,
                         biblatex=not is_bibtex_file(entry.location.file))


class Items(Mapping[str, "Item"]):
    """Key → CSL item of a bibliography, converted on first access (first definition wins).

    An ``@xdata`` entry is no work but a store of fields for others (the reader has already
    given them to its children): it has no item, as in biblatex and pandoc.
    """

    def __init__(self, bibliography: Bibliography, language: str = "en-US") -> None:
        self.bibliography = bibliography
        self.language = language

    def __getitem__(self, key: str) -> Item:
        entry = self.bibliography.get(key)
        if entry is None or entry.type == "xdata":
            raise KeyError(key)
        return _item(entry, self.language)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        entry = self.bibliography.get(key)
        return entry is not None and entry.type != "xdata"

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for e in self.bibliography:
            if e.key not in seen and e.type != "xdata":
                seen.add(e.key)
                yield e.key

    def __len__(self) -> int:
        return sum(1 for _ in self)


def items_for(bibliography: Bibliography, language: str = "en-US") -> Items:
    """CSL items of every entry, by key, converted lazily. ``language``: the locale of the style
    in use (``CslStyle.language``)."""
    return Items(bibliography, language)
