"""pyuca's Unicode Collation Algorithm with its table read lazily.

Where it sits: under ``refbook.styles.csl.processor``, which sorts bibliographies by UCA sort
keys as pandoc's citeproc does. pyuca's ``Collator`` parses all ~30,000 lines of its DUCET table
(``allkeys-*.txt``: a regular expression and hex conversions per line) on construction, which
was the largest single cost of a cold build that sorts a bibliography. This collator is pyuca's
own class (same table file, same algorithm, same implicit weights); only the table is filled in
on demand: loading splits the file into lines and sorts them (both in C), and the weights of the
lines starting with a code point are parsed the first time a string contains that code point. Sort
keys are therefore identical to pyuca's (a test compares them live).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from pyuca import Collator

__all__ = ["LazyCollator"]

# a collation element "[.0000.0021.0002]" or "[*0209.0020.0002]": its three weights
_ELEMENT = re.compile(r"\[[*.]([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})\.([0-9A-Fa-f]{4})(?:\.[0-9A-Fa-f]{4,5})?\]")


# a table line "0041 0300 ; [.1FA1.0020.0008][.0000.0024.0002] # comment": its first code point,
# the further ones, its collation elements
_LINE = re.compile(r"^([0-9A-F]{4,6})((?: [0-9A-F]{4,6})*) *;([^#\n]*)", re.M)
# a table line that joins ASCII code points into one collation element ("0041 0042 ; …")
_ASCII_RUN = re.compile(r"^00[0-7][0-9A-F](?: 00[0-7][0-9A-F])+ *;")
_IMPLICIT = re.compile(r"^@implicitweights ([0-9A-F]+)\.\.([0-9A-F]+); *([0-9A-F]+)", re.M)


class _Node:
    __slots__ = ("children", "value")

    def __init__(self) -> None:
        self.value: list[list[int]] | None = None
        self.children: dict[int, _Node] | None = None


class _LazyTable:
    """The trie pyuca looks collation elements up in, built per first code point on demand.

    ``lines``: the table file's lines, sorted as strings. A line that gives weights starts with
    its first code point and a space ("0041 0300 ; …", "0041  ; …"), so the lines of one first
    code point are one run, found by bisection. Sorting whole lines keeps pyuca's result because
    no code point sequence has two lines in pyuca's tables (where pyuca would keep the later):
    ``tests/core/test_lazy_work.py`` checks both facts on every table pyuca ships.
    """

    def __init__(self, lines: list[str]) -> None:
        self.root = _Node()
        self.lines = lines
        self.done: set[int] = set()

    def run(self, first: int) -> list[str]:
        """The table's lines that start with code point ``first``."""
        h = f"{first:04X}"
        lo = bisect_left(self.lines, h + " ")
        return self.lines[lo:bisect_left(self.lines, h + "!", lo)]  # "!" follows " "

    def _materialize(self, first: int) -> None:
        self.done.add(first)
        for line in self.run(first):
            m = _LINE.match(line)
            if m is None:
                continue
            node = self.root
            for p in (first, *(int(c, 16) for c in m.group(2).split())):
                if node.children is None:
                    node.children = {}
                node = node.children.setdefault(p, _Node())
            node.value = [[int(w, 16) for w in e.groups()] for e in _ELEMENT.finditer(m.group(3))]

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
        # the few "@implicitweights" lines, found by plain search: a multi-line regular
        # expression tried at each of the 1.8 MB file's line starts cost as much as the rest
        pos = text.find("@implicitweights")
        while pos >= 0:
            m = _IMPLICIT.match(text, pos) if pos == 0 or text[pos - 1] == "\n" else None
            if m is not None:
                start, end, base = m.groups()
                self.implicit_weights.append([int(start, 16), int(end, 16), int(base, 16)])
            pos = text.find("@implicitweights", pos + 1)
        # split and sorted once (both in C), each line read when a string first contains its
        # first code point; the regular expressions over the whole 1.8 MB file cost ~3x more
        lines = text.split("\n")
        lines.sort()
        self.table: Any = _LazyTable(lines)

    def fast_sort_key(self, string: str) -> tuple[int, ...]:
        """``sort_key`` of ``string``; an ASCII string's from each character's weights, kept
        per character (pyuca works each string out code point by code point through its trie:
        8 µs a word, 67 ms for the 8,566 words of a 2,000-entry bibliography). The same key:
        ASCII is its own NFD form, has no non-starters, and no table line joins ASCII
        characters into one element (checked when the table is first read; a table with one
        would take pyuca's way for every string)."""
        if not string.isascii():
            return self.sort_key(string)  # type: ignore[no-any-return]
        levels = self._ascii_levels()
        if levels is None:
            return self.sort_key(string)  # type: ignore[no-any-return]
        try:
            per_char = [levels[c] for c in string]
        except KeyError:
            per_char = [self._ascii_level(levels, c) for c in string]
        key: list[int] = []
        for level in range(4):
            if level:
                key.append(0)  # pyuca's level separator
            for weights in per_char:
                key.extend(weights[level])
        return tuple(key)

    def _ascii_levels(self) -> dict[str, tuple[tuple[int, ...], ...]] | None:
        if not hasattr(self, "_levels"):
            table = self.table
            joined = not isinstance(table, _LazyTable) or any(
                _ASCII_RUN.match(line) for first in range(0x80) for line in table.run(first))
            self._levels: dict[str, tuple[tuple[int, ...], ...]] | None = None if joined else {}
        return self._levels

    def _ascii_level(self, levels: dict[str, tuple[tuple[int, ...], ...]],
                     char: str) -> tuple[tuple[int, ...], ...]:
        """One ASCII character's non-zero weights per level (pyuca's elements of it alone)."""
        found = levels.get(char)
        if found is None:
            elements = self.collation_elements(char)
            found = levels[char] = tuple(
                tuple(e[level] for e in elements if len(e) > level and e[level])
                for level in range(4))
        return found
