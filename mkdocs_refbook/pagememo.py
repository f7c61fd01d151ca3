"""Per-page results kept between builds: what each page's Markdown holds, and the HTML of each
citation and reference list.

Where it sits: beside the plugin (:mod:`mkdocs_refbook.plugin`), which asks it before it reads a
page (code masking and the citation scan) and before it writes a citation or a list as HTML.
Each result is a pure function of its key, so a hit is exactly what computing would give:

- a page's reading is keyed by a digest of the Markdown text read (and the memo is emptied when
  the options the reading follows change);
- a citation's HTML by the citation's formatted text, its id, and for each key it cites the
  link target and the tooltip text the page would give it;
- a list's HTML by its formatted entries, ids, back-links and the style's kind.

The memo lives as long as the plugin instance, so ``mkdocs serve`` re-reads and re-renders only
what an edit changed, and in one sealed file of the cache folder (``refbook.sealed``: a planted,
corrupt or foreign file is a miss), so a new build process with a warm cache reads and renders
nothing again. After each build it keeps only what that build used: it never grows past the
book.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from refbook.records import field, record

#: HTML kinds kept in memory only: their keys hold formatted text (IR objects), which is slow
#: to read back, and a new process finds the same HTML under a cheaper key
MEMORY_ONLY = frozenset({"cite", "list-text"})


def digest(text: str) -> bytes:
    """A digest of a page's text (the memo's key for its reading)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@lru_cache(maxsize=1)
def plugin_stamp() -> str:
    """A short digest of this package's source files (names, sizes, modification times): the
    memo's HTML is written by them, so a changed plugin (a development checkout) reuses none.
    (The cache files' names carry ``refbook.memo.code_stamp``, the core's.)"""
    h = hashlib.blake2b(digest_size=6)
    for path in sorted(Path(__file__).parent.glob("*.py")):
        st = path.stat()
        h.update(f"{path.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@record()
class Reading:
    """What one Markdown text holds, code masked out; each part computed when first asked."""

    #: the text with mkdocs-bibtex's commands turned into markers and code blanked out (kept in
    #: memory only: it is as large as the page)
    masked: str | None = None
    #: the citations found (lines of the text; sources on one line), narrative ones only when
    #: they are citations
    citations: tuple[Any, ...] | None = None
    #: the scopes of the list markers (``<!-- refbook:bibliography … -->``), and how many
    #: markers of mkdocs-bibtex's full list as footnotes the text holds
    markers: tuple[tuple[str, ...], int] | None = None


@record()
class PageMemo:
    """The memo: readings by text digest, rendered HTML by its inputs (see the module)."""

    #: what the readings depend on besides the text (the plugin's options); another value
    #: empties the readings
    options: tuple[Any, ...] = ()
    readings: dict[bytes, Reading] = field(default_factory=dict)
    html: dict[tuple[Any, ...], str] = field(default_factory=dict)
    _used_readings: set[bytes] = field(default_factory=set)
    _used_html: set[tuple[Any, ...]] = field(default_factory=set)
    #: an entry's other key (memory only): used along with it, so that it outlives the builds
    #: that found the HTML under the first key (see :meth:`keep`)
    _also: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)
    #: text → its digest, for this build (the plugin reads a page's text up to three times)
    _digests: dict[str, bytes] = field(default_factory=dict)
    #: something was computed since the memo was loaded or saved
    changed: bool = False
    #: the cache file was read (once per process)
    loaded: bool = False

    def follow(self, options: tuple[Any, ...]) -> None:
        """The options the readings follow; changed options empty them."""
        if options != self.options:
            self.options = options
            self.readings.clear()
            self.changed = True

    def reading(self, text: str) -> Reading:
        key = self._digests.get(text)
        if key is None:
            key = self._digests[text] = digest(text)
        found = self.readings.get(key)
        if found is None:
            found = self.readings[key] = Reading()
            self.changed = True
        self._used_readings.add(key)
        return found

    def rendered(self, key: tuple[Any, ...]) -> str | None:
        found = self.html.get(key)
        if found is not None:
            self._used_html.add(key)
            also = self._also.get(key)
            if also is not None:
                self._used_html.add(also)
        return found

    def keep(self, key: tuple[Any, ...], value: str, *,
             also: tuple[Any, ...] | None = None) -> str:
        """Keep ``value`` under ``key``; ``also``: the key it is kept under too (by content,
        while ``key`` names its source), used whenever ``key`` is."""
        self.html[key] = value
        self._used_html.add(key)
        if also is not None:
            self._also[key] = also
        self.changed = True
        return value

    def end_build(self) -> None:
        """Forget what the build just finished did not use."""
        for gone in self.readings.keys() - self._used_readings:
            del self.readings[gone]
            self.changed = True
        for gone_html in self.html.keys() - self._used_html:
            del self.html[gone_html]
            self._also.pop(gone_html, None)
            self.changed = True
        self._used_readings.clear()
        self._used_html.clear()
        self._digests.clear()

    def packed(self) -> tuple[Any, ...]:
        """What the cache file holds: the options, the readings' results (not the masked
        texts), the HTML but that kept by kinds in :data:`MEMORY_ONLY`."""
        return (self.options,
                {k: (r.citations, r.markers) for k, r in self.readings.items()
                 if r.citations is not None or r.markers is not None},
                {k: v for k, v in self.html.items() if k[0] not in MEMORY_ONLY})

    def unpack(self, packed: object) -> bool:
        """Take in what :meth:`packed` gave (from the cache file); False if it is not that."""
        if not (isinstance(packed, tuple) and len(packed) == 3 and isinstance(packed[1], dict)
                and isinstance(packed[2], dict)):
            return False
        options, readings, html = packed
        if options == self.options:
            for k, (citations, markers) in readings.items():
                self.readings.setdefault(k, Reading(None, citations, markers))
        for k, v in html.items():
            self.html.setdefault(k, v)
        return True
