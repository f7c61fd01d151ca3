"""Bibliography → CSL items: the step between reading and styling.

Conversion follows pandoc's BibTeX mapping (``refbook.bibtex_csl``). It is lazy and cached per
entry (entries are frozen and hashable): a book that cites 300 of 20,000 entries converts 300, and
a rebuild after an edit converts only the entries that changed. With a host's cache folder
(``memo_dir``) the conversions also survive the process: a sealed memo file keyed by the entries
themselves (key, type, fields and their locations) and the language, so a new build with a warm
cache converts only new or edited entries.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from refbook import __version__
from refbook.memo import code_stamp, load_memo, save_memo
from refbook.models import is_bibtex_file  # not the readers: a cached book never parses

if TYPE_CHECKING:
    from refbook.csl import Item
    from refbook.models import Bibliography, Entry


#: (entry, language) → item, shared by the process; bounded (cleared when it grows too big)
_MEMO: dict[tuple[Entry, str], Item] = {}
_MEMO_MAX = 65536
_lock = threading.Lock()


def entry_to_item(entry: Entry, *, default_language: str, biblatex: bool) -> Item:
    """``refbook.bibtex_csl.entry_to_item``, imported on the first conversion: a build whose
    items all come from the cache folder never decodes LaTeX (``refbook.latex`` and its tables;
    ``tests/mkdocs/test_lazy_imports.py``)."""
    from refbook.bibtex_csl import entry_to_item as convert

    return convert(entry, default_language=default_language, biblatex=biblatex)


def _item(entry: Entry, language: str = "en-US") -> Item:
    key = (entry, language)
    found = _MEMO.get(key)
    if found is not None:
        return found
    # pandoc maps an entry of a .bibtex file with its BibTeX rules, any other with BibLaTeX's;
    # the document's language decides whether English titles are sentence-cased (pandoc's
    # BibTeX reader does so only when it, and the entry's langid, are English)
    item = entry_to_item(entry, default_language=language,
                         biblatex=not is_bibtex_file(entry.location.file))
    with _lock:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = item
    return item


#: the shape of the items memo file's values; a new one (2: ``Item.latex``, variables kept as
#: LaTeX until read) makes older files misses even where the code stamp cannot tell
_FORMAT = 2


def _memo_file(memo_dir: str) -> Path:
    return Path(memo_dir) / f"items-{_FORMAT}-{__version__}-{code_stamp()}.pickle"


def clear_memo() -> None:
    """Forget the conversions held in memory (tests use it to act as a new process)."""
    _MEMO.clear()


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

    def many(self, keys: Iterable[str]) -> list[Item]:
        """The items of ``keys`` (each must be in the mapping), converted with the cyclic
        collector paused: a conversion allocates a few dozen objects that all stay alive, and
        on a large bibliography the collections they set off rescan the whole heap again and
        again (a fifth of a cold 2,000-entry run; ``refbook.gcpause``)."""
        from refbook.gcpause import paused_gc

        with paused_gc():
            return [self[k] for k in keys]


def items_for(bibliography: Bibliography, language: str = "en-US", *,
              memo_dir: str | None = None) -> Items:
    """CSL items of every entry, by key, converted lazily. ``language``: the locale of the style
    in use (``CslStyle.language``). ``memo_dir``: a host's cache folder whose conversions are
    reused (write them back with :func:`save_items`)."""
    if memo_dir is not None:
        load_items(memo_dir)
    return Items(bibliography, language)


def load_items(memo_dir: str) -> None:
    """Take in the conversions the cache folder holds (once per process and folder)."""
    load_memo(_MEMO, _memo_file(memo_dir))


def save_items(items: Items, memo_dir: str) -> None:
    """Write the conversions of ``items``' bibliography made so far to the cache folder (only
    this bibliography's entries: an edited entry's old conversion is not kept)."""
    bib, lang = items.bibliography, items.language

    def ours(key: tuple[Entry, str]) -> bool:
        return key[1] == lang and bib.get(key[0].key) == key[0]

    # new conversions (a .bib edit's entry, a newly cited one) go into an added file; an
    # edited entry's old conversion is dropped when the file is next written whole
    save_memo(_MEMO, _memo_file(memo_dir), grows=True, keep=ours)
