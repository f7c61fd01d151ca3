"""pyuca's Unicode Collation Algorithm with its table read lazily.

Where it sits: under ``refbook.styles.csl.processor``, which sorts bibliographies by UCA sort
keys as pandoc's citeproc does. pyuca's ``Collator`` parses all ~30,000 lines of its DUCET table
(``allkeys-*.txt``: a regular expression and hex conversions per line) on construction, which
was the largest single cost of a cold build that sorts a bibliography. This collator is pyuca's
own class (same table file, same algorithm, same implicit weights); only the table is filled in
on demand: loading splits each line once, by its first code point, and the weights of the lines
starting with a code point are parsed the first time a string contains that code point. Sort
keys are therefore identical to pyuca's (a test compares them live).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from operator import itemgetter
from typing import Any

from pyuca import Collator

__all__ = ["LazyCollator"]

# a collation element "[.0000.0021.0002]" or "[*0209.0020.0002]": its three weights
_ELEMENT = re.compile(r"\[[*.]([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})(?:\.[0-9A-Fa-f]{4,5})?\]")


# a table line "0041 0300 ; [.1FA1.0020.0008][.0000.0024.0002] # comment": its first code point,
# the further ones, its collation elements
_LINE = re.compile(r"^([0-9A-F]{4,6})((?: [0-9A-F]{4,6})*) *;([^#\n]*)", re.M)
_IMPLICIT = re.compile(r"^@implicitweights ([0-9A-F]+)\.\.([0-9A-F]+); *([0-9A-F]+)", re.M)


class _Node:
    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.value: list[list[int]] | None = None
        self.children: dict[int, _Node] | None = None


class _LazyTable:
    """The trie pyuca looks collation elements up in, built per first code point on demand.

    ``rows``: the table's lines as (first code point, further code points, weights), all in hex
    text, sorted by the first code point (stably: lines keep their file order, and a later line
    for the same code points wins, as in pyuca); ``firsts``: their first code points, for bisect.
    """

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        self.root = _Node()
        self.rows = rows
        self.firsts = [r[0] for r in rows]
        self.done: set[int] = set()

    def _materialize(self, first: int) -> None:
        self.done.add(first)
        h = f"{first:04X}"
        lo = bisect_left(self.firsts, h)
        hi = bisect_right(self.firsts, h, lo)
        for _, rest, raw in self.rows[lo:hi]:
            node = self.root
            for p in (first, *(int(c, 16) for c in rest.split())):
                if node.children is None:
                    node.children = {}
                node = node.children.setdefault(p, _Node())
            node.value = [[int(w, 16) for w in m.groups()] for m in _ELEMENT.finditer(raw)]

    def find_prefix(self, key: list[int]) -> tuple[list[int], list[list[int]] | None, list[int]]:
        """The longest prefix of ``key`` with collation elements (as pyuca's ``Trie``)."""
        if key and key[0] not in self.done:
            self._materialize(key[0])
        node = self.root
        success_index = 0
        success_value = None
        for i, part in enumerate(key):
            if node.children is None or part not in node.children:
                break
            node = node.children[part]
            if node.value:
                success_index = i + 1
                success_value = node.value
        return key[:success_index], success_value, key[success_index:]


class LazyCollator(Collator):  # type: ignore[misc]
    """pyuca's default ``Collator``, loading its table on demand."""

    def load(self, filename: str) -> None:
        with open(filename, encoding="utf-8") as keys_file:
            text = keys_file.read()
        for start, end, base in _IMPLICIT.findall(text):
            self.implicit_weights.append([int(start, 16), int(end, 16), int(base, 16)])
        rows = _LINE.findall(text)
        rows.sort(key=itemgetter(0))
        self.table: Any = _LazyTable(rows)
