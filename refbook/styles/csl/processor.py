"""Book-wide CSL processing: sorting, disambiguation, citations and the reference list.

A :class:`Processor` is built once for the set of items a book cites (or lists). It sorts the
bibliography, then disambiguates citations over all of those items exactly as citeproc does
(add names, add given names "by-cite", year suffixes in bibliography order), so every citation
and every list entry of the book agrees.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from functools import cmp_to_key
from typing import TYPE_CHECKING, TypeVar

from refbook import csl
from refbook.csl import Date
from refbook.gcpause import paused_gc
from refbook.ir import Inlines, Text
from refbook.records import record
from refbook.styles.csl.engine import Disamb, Evaluator, initialize
from refbook.styles.csl.output import (
    DEFAULT_QUOTES,
    FORMATTING_FIELDS,
    NO_FORMAT,
    Fmt,
    Formatting,
    Linked,
    Lit,
    Out,
    Tag,
    formatted,
    grouped,
    lit,
    localize_quotes,
    map_first_text,
    out_text,
    punctuation_inside_quotes,
    raise_superscripts,
    render,
    stringify,
    universe,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from refbook.csl import Item, Name
    from refbook.styles.csl.style import Node, Style


T = TypeVar("T")


@record(frozen=True)
class CiteItem:
    """One cited key inside a citation. ``mode``: normal, suppress-author, author-only."""

    id: str
    prefix: Inlines = ()
    suffix: Inlines = ()
    locator: str = ""
    label: str = ""
    mode: str = "normal"
    #: show every name (no "et al.")
    all_names: bool = False
    #: CSL position: first, subsequent, ibid, ibid-with-locator; ``refbook.notes.positions``
    #: gives every position the cite holds, space-separated ("subsequent ibid near-note"),
    #: ``refbook.api.positions`` the one it is
    position: str = "first"
    #: cited in a note close enough to an earlier note citing the same item (``near-note``)
    near_note: bool = False
    #: the note that first cited the item (``first-reference-note-number``; 0: none)
    first_note: int = 0


@functools.cache
def _collator() -> Callable[[str], tuple[int, ...]]:
    """The Unicode Collation Algorithm's sort key (pyuca, DUCET), loaded on first use (and its
    table read lazily: ``refbook.styles.csl.uca``)."""
    from refbook.styles.csl.uca import LazyCollator

    key: Callable[[str], tuple[int, ...]] = LazyCollator().fast_sort_key
    return key


class _WholeWord:
    """The tie-breaking half of a collated word: the whole word's collation key, worked out
    only when two words' letters and digits collate alike (rarely: most words differ there,
    and a word compared with itself is the same cached object)."""

    __slots__ = ("_key", "word")

    def __init__(self, word: str) -> None:
        self.word = word
        self._key: tuple[int, ...] | None = None

    def key(self) -> tuple[int, ...]:
        if self._key is None:
            self._key = _collator()(self.word)
        return self._key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _WholeWord):
            return NotImplemented
        return self.word == other.word or self.key() == other.key()

    def __lt__(self, other: _WholeWord) -> bool:
        return self.key() < other.key()

    def __gt__(self, other: _WholeWord) -> bool:
        return self.key() > other.key()

    __hash__ = None  # type: ignore[assignment]


# words repeat across a bibliography's sort keys (names, years, common title words): each is
# collated once per process
@functools.lru_cache(maxsize=1 << 16)
def _collate_word(w: str) -> tuple[int, ...]:
    """One word of a sort key, compared as pandoc's citeproc compares it: its letters and
    digits by the Unicode Collation Algorithm (Ø next to O, ł next to l, ı after i), then, on a
    tie, the whole word (:func:`_whole_word`), punctuation by its DUCET weight ("library:"
    before "library.")."""
    return _collator()("".join(c for c in w.casefold() if c.isalnum()))


CollatedKey = list[tuple[tuple[int, ...], _WholeWord]] | None


@functools.lru_cache(maxsize=1 << 16)
def _whole_word(w: str) -> _WholeWord:
    return _WholeWord(w)


def _collated_key(x: list[str] | None, memo: dict[object, object]) -> CollatedKey:
    """One sort key with each word collated once (comparing must not redo it per comparison).

    Each word's collation key is kept in ``memo`` (the processor's: the style's, which a host
    keeps in its cache folder): a new build process that sorts words an earlier one sorted
    neither collates them again nor loads the collation table (pyuca's 1.8 MB DUCET file: 8 ms
    of a Sphinx citation edit). The whole word's key (:class:`_WholeWord`, for ties) stays
    computed on demand."""
    if x is None:
        return None
    out: list[tuple[tuple[int, ...], _WholeWord]] = []
    for w in x:
        primary = memo.get(("uca", w))
        if not isinstance(primary, tuple):
            primary = memo[("uca", w)] = _collate_word(w)
        out.append((primary, _whole_word(w)))
    return out


class _SortKeys:
    """An item's sort keys (one per ``<key>`` of the style's ``<sort>``), each computed and
    collated the first time a comparison reaches it.

    Two items are compared key by key until one differs, so most comparisons never look past
    the first key or two (author, year): computing every key of every item up front (each a
    macro evaluated by the engine) was the largest cost of sorting a bibliography.
    """

    __slots__ = ("_compute", "_keys", "_memo")

    def __init__(self, compute: Callable[[int], list[str] | None], n: int,
                 memo: dict[object, object]) -> None:
        self._compute = compute
        self._keys: list[CollatedKey | _Missing] = [_MISSING] * n
        self._memo = memo

    def __getitem__(self, i: int) -> CollatedKey:
        k = self._keys[i]
        if isinstance(k, _Missing):
            k = self._keys[i] = _collated_key(self._compute(i), self._memo)
        return k


class _Missing:
    __slots__ = ()


_MISSING = _Missing()


def _cmp_keys(a: _SortKeys | None, b: _SortKeys | None, desc: list[bool], start: int = 0) -> int:
    """Compare two items' sort keys, from the ``start``-th key on."""
    if a is None or b is None:  # no sort keys known: equal
        return 0
    for i in range(start, len(desc)):
        d = desc[i]
        x, y = a[i], b[i]
        if x is None and y is None:
            continue
        if x is None:
            return 1
        if y is None:
            return -1
        if x != y:
            r = -1 if x < y else 1
            return -r if d else r
    return 0


def _anonymous(item: Item) -> Item:
    """``item`` without its id: the engine's output never depends on the id (no CSL variable
    reads it), so this is the part of memo keys that stands for the item (``Item.anonymous``:
    the same object for the same item in every processor)."""
    return item.anonymous()


class _ContentKey:
    """An item (without its id) as part of memo keys: its hash worked out once per processor,
    not again (over all its fields) for every memo look-up of its sort keys, citation forms and
    entry. Equal to another key of an equal item, so the style's memo still serves every
    processor of the same style."""

    __slots__ = ("_hash", "item")

    def __init__(self, item: Item) -> None:
        self.item = item
        self._hash = hash(item)

    def __reduce__(self) -> tuple[type[_ContentKey], tuple[Item]]:
        # the hash is worked out again on loading: string hashes differ from process to
        # process, and a stored one made every key of a host's memo file a miss in the next
        return (_ContentKey, (self.item,))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _ContentKey):
            return NotImplemented
        if self.item is other.item:
            return True
        if self._hash != other._hash or self.item != other.item:
            return False
        # equal items, two objects (a memo read from a file, or written in parts, has its own):
        # from now on this key holds the other's, so each later look-up of the same item finds
        # it by identity — a memo key (the dict's own, ``self`` in a look-up) comes to hold the
        # processor's item, and a second processor's look-ups compare field by field once per
        # item and stored key, not once per look-up (2,022 comparisons for 300 entries)
        self.item = other.item
        return True


def worth_keeping(style: Style) -> Callable[[object], bool] | None:
    """Which entries of ``style``'s memo a cache file keeps (None: all). Not the basic cites'
    output trees (``basic-out``): the largest part of the memo (145 of 315 KB for the 300-entry
    bench book), while a later process reads them only for a new citation of an item (one
    render each: its text and names are kept as ``basic``) — unless the style's given-name
    rule is global, whose passes read every item's."""
    c = style.citation
    if (c is not None and c.attrs.get("disambiguate-add-givenname") == "true"
            and c.attrs.get("givenname-disambiguation-rule", "by-cite") != "by-cite"):
        return None
    return _not_basic_out


def _not_basic_out(key: object) -> bool:
    return not (type(key) is tuple and key and key[0] == "basic-out")


#: per style memo (by its id), the items its processors were made for in this process (their
#: content keys): a memo file written whole again keeps only their entries (still_formatted)
_FORMATTED: dict[int, set[_ContentKey]] = {}


def _content_keys(key: object) -> Iterator[_ContentKey]:
    """The items a memo key names: its own parts, and each cite's of a citation's key."""
    if type(key) is not tuple:
        return
    for part in key[1:]:
        if type(part) is _ContentKey:
            yield part
        elif type(part) is tuple:  # a citation's cites: (cite item, content key, ...)
            for cite in part:
                if type(cite) is tuple:
                    yield from (x for x in cite if type(x) is _ContentKey)


def still_formatted(style: Style) -> Callable[[object], bool] | None:
    """Which entries of ``style``'s memo a memo file written whole again keeps: those of items
    formatted in this process (and those that name no item: collated words, forms of numbered
    items). Without it the file kept every form of every entry ever edited — a 300-entry book's
    grew by ~3 KB per ``.bib`` edit, and every build read it all. None: nothing known (no
    processor of this memo in this process), keep all."""
    formatted = _FORMATTED.get(id(style.memo))
    if not formatted:
        return None

    def current(key: object) -> bool:
        return all(k in formatted for k in _content_keys(key))

    return current


@record()
class _DD:
    item: str
    names: list[Name]
    rendered: str


class Processor:
    """Formats citations and the bibliography of a fixed set of items with one CSL style."""

    def __init__(self, style: Style, items: Sequence[Item], *, cited: Sequence[str] = (),
                 memo: dict[object, object] | None = None) -> None:
        #: results by (kind, item content, state): the style's memo (shared by every processor
        #: of the style, kept in a host's cache folder) unless the caller gives its own
        self.memo = style.memo if memo is None else memo
        #: when True, the step from a layout to inlines is not run (:meth:`finish` does it):
        #: ``refbook.validate.output`` runs it only when an entry's text is asked for
        self.finish_deferred = False
        # sorting and disambiguating render every item (the citation form, the sort macros):
        # millions of short-lived objects, whose allocations would set off collections that
        # rescan the items and memos again and again (refbook.gcpause)
        with paused_gc():
            self._setup(style, items, cited)

    def _setup(self, style: Style, items: Sequence[Item], cited: Sequence[str]) -> None:
        self.style = style
        # the cited keys in the order first cited: works the bibliography's sort does not tell
        # apart get their year suffixes in that order, the uncited ones after them by key
        self.cited = {k: i for i, k in enumerate(dict.fromkeys(cited))}
        self._position_tested: bool | None = None
        self._position_free: bool | None = None  # _as_basic
        self.items: dict[str, Item] = {}
        for it in items:
            self.items.setdefault(it.id, it)
        self.ev = Evaluator(style)
        # what the engine reads of each item: all but its id (it never shows the key), so
        # entries that differ only in their key share memo entries and sort as equal at once
        # twins share one key object: memo look-ups then find it by identity, without
        # comparing two equal items field by field
        canon: dict[_ContentKey, _ContentKey] = {}
        self.anon: dict[str, _ContentKey] = {
            k: canon.setdefault(a, a)
            for k, a in ((k, _ContentKey(_anonymous(it))) for k, it in self.items.items())}
        twins: dict[_ContentKey, int] = {}
        self.content_id = {k: twins.setdefault(a, len(twins)) for k, a in self.anon.items()}
        if self.memo is style.memo:  # what a memo file written whole keeps (still_formatted)
            if len(_FORMATTED) >= 64 and id(self.memo) not in _FORMATTED:
                _FORMATTED.clear()
            _FORMATTED.setdefault(id(self.memo), set()).update(twins)
        # only a style that names citation-number gets numbered items: elsewhere the number
        # would be in every memo key, so one citation added early renumbers (and re-formats)
        # every later entry for nothing
        self.numbered = style.uses_citation_number()
        self.disamb: dict[str, Disamb] = {k: Disamb() for k in self.items}
        self.bib_order = self._sort_bibliography()
        self.number = {k: i for i, k in enumerate(self.bib_order, start=1)}
        if style.citation is not None:
            self._disambiguate()
        # the sort keys' closures refer back to this processor: dropped once the year suffixes
        # are given, the processor is no reference cycle and goes when its last user lets go
        # (the validation rules make thousands while the collector is paused)
        self._bib_keys: dict[str, _SortKeys] = {}

    # ------------------------------------------------------------------ sorting

    def _sort_bibliography(self) -> list[str]:
        ids = list(self.items)
        bib = self.style.bibliography
        if bib is None:
            return ids
        sort = next((c for c in bib.children if c.tag == "sort"), None)
        if sort is None:
            return ids
        desc = [k.attrs.get("sort") == "descending" for k in sort.children]
        # (methods, not nested functions: compiled by mypyc, a nested function and the
        # environment it shares with its function refer to each other, a cycle that kept every
        # processor alive until the next collection; refbook.accel)
        keys = {i: _SortKeys(functools.partial(self._bib_sort_key, i), len(desc), self.memo)
                for i in ids}
        self._bib_keys = keys

        self._sort_desc = desc
        twin = self.content_id
        if not desc or len(set(twin.values())) < 2:
            return ids  # one item, or all of the same content: nothing to compare
        cmp = self._cmp_later_keys

        # a stable sort: ties keep the order the items came in (the .bib order), as citeproc
        # does. By the first key (every item's is computed: each item is compared at least
        # once) with a key function, compared in C, then each run of items with an equal first
        # key by the later keys, computed only for those: the same order as comparing every
        # pair key by key, without a Python call per comparison of a sort of every item
        firsts = {i: keys[i][0] for i in ids}
        known = {i: k for i, k in firsts.items() if k is not None}
        present = sorted(known, key=known.__getitem__, reverse=desc[0])
        order = present + [i for i in ids if firsts[i] is None]  # a missing key sorts last
        if len(desc) == 1:
            return order
        out: list[str] = []
        for _, group in itertools.groupby(order, key=firsts.__getitem__):  # runs of equal keys
            run = list(group)
            out.extend(sorted(run, key=cmp_to_key(cmp)) if len(run) > 1 else run)
        return out

    def _bib_sort_key(self, key: str, n: int) -> list[str] | None:
        """The bibliography's ``n``-th sort key of item ``key`` (memoized by content)."""
        return self._memo(("sort", self.anon[key], n), functools.partial(
            self._bib_sort_key_now, key, n))

    def _bib_sort_key_now(self, key: str, n: int) -> list[str] | None:
        bib = self.style.bibliography
        assert bib is not None
        sort = next(c for c in bib.children if c.tag == "sort")
        return self.ev.sort_key(bib, sort.children[n], self.items[key], Disamb())

    def _cmp_later_keys(self, a: str, b: str) -> int:
        """Two items of an equal first sort key compared by the later keys."""
        # the same content has the same keys: equal without computing any of them
        if self.content_id[a] == self.content_id[b]:
            return 0
        return _cmp_keys(self._bib_keys[a], self._bib_keys[b], self._sort_desc, 1)

    # ------------------------------------------------------------------ disambiguation

    def _render_basic(self, key: str, position: str = "first") -> Out:
        assert self.style.citation is not None
        out = self.ev.layout(self.style.citation, self.items[key], self.disamb[key],
                             bibliography=False, position=position)
        return Tag("item", out, key)

    def _memo(self, key: object, compute: Callable[[], T]) -> T:
        memo = self.memo
        if key in memo:
            return memo[key]  # type: ignore[return-value]
        if len(memo) > 200_000:
            memo.clear()
        value = memo[key] = compute()
        return value

    def _basic_out(self, key: str) -> Out:
        """The item's first cite in its current disambiguation state, rendered once per
        content and state (the passes of the global given-name rule and of ``_ambiguities``
        read the same forms). Twins share it: its readers use its text and names, never
        the key in its item tag."""
        return self._memo(("basic-out", self.anon[key], _disamb_key(self.disamb[key])),
                          lambda: self._render_basic(key))

    def _basic(self, key: str) -> tuple[str, list[Name]]:
        names: list[Name] = []
        return _text_and_names(self._basic_out(key), names), names

    def _ambiguities(self) -> list[list[_DD]]:
        dds: list[_DD] = []
        for key in self.items:
            state = self.disamb[key]
            rendered, names = self._memo(("basic", self.anon[key], _disamb_key(state)),
                                         lambda key=key: self._basic(key))  # type: ignore[misc]
            dds.append(_DD(key, names, rendered))
        groups: dict[str, list[_DD]] = {}
        for dd in dds:
            groups.setdefault(dd.rendered, []).append(dd)
        found = [g for r, g in sorted(groups.items()) if r and len(g) > 1]
        if self._subsequent_differs():
            found = self._with_subsequent_ambiguities(found, dds)
        elif self.cited and self._tests_position():
            # a later cite of a cited item has its own form ("Doe, supra note 1"): cited items
            # whose later cites look alike are told apart too
            found = self._with_subsequent_ambiguities(
                found, [d for d in dds if d.item in self.cited])
        return found

    def _as_basic(self, ci: CiteItem) -> bool:
        """Whether the cite's item evaluates as its basic cite (``_basic_out``: first
        position, no locator, label, all names or near note), so that render serves it: a
        plain cite, in a style whose output does not depend on its position or in the first
        position."""
        if ci.locator or ci.label or ci.all_names or ci.near_note:
            return False
        if ci.position == "first":
            return True
        if self._position_free is None:
            self._position_free = not (self._tests_position() or self._subsequent_differs())
        return self._position_free

    def _tests_position(self) -> bool:
        c = self.style.citation
        if c is None:
            return False
        if self._position_tested is None:
            self._position_tested = any(
                "position" in n.attrs for n in _descendants(c, self.style.macros))
        return self._position_tested

    def _subsequent_differs(self) -> bool:
        """Whether later cites of an item can look different (et-al-subsequent-*): those must
        be told apart too."""
        c = self.style.citation
        return c is not None and any(
            k in src for src in (c.attrs, self.style.root.attrs)
            for k in ("et-al-subsequent-min", "et-al-subsequent-use-first"))

    def _with_subsequent_ambiguities(self, found: list[list[_DD]], dds: list[_DD]
                                     ) -> list[list[_DD]]:
        """``found`` joined with the groups of items whose subsequent cites look the same."""
        by_text: dict[str, list[str]] = {}
        for dd in dds:
            key = dd.item
            text = self._memo(("basic-subsequent", self.anon[key],
                               _disamb_key(self.disamb[key])),
                              lambda key=key: out_text(  # type: ignore[misc]
                                  self._render_basic(key, "subsequent")))
            by_text.setdefault(text, []).append(key)
        parent = {dd.item: dd.item for dd in dds}

        def root(k: str) -> str:
            while parent[k] != k:
                k = parent[k]
            return k

        for keys in [[d.item for d in g] for g in found] + [
                ks for t, ks in by_text.items() if t and len(ks) > 1]:
            for k in keys[1:]:
                parent[root(k)] = root(keys[0])
        merged: dict[str, list[_DD]] = {}
        for dd in dds:
            merged.setdefault(root(dd.item), []).append(dd)
        return [g for g in merged.values() if len(g) > 1]

    def _try_add_given_names(self, group: list[_DD]) -> None:
        remaining = list(group)
        maxlen = max((len(d.names) for d in group), default=0)
        initials: dict[str, str] = {}

        def initial(given: str) -> str:
            if given not in initials:
                initials[given] = initialize(given, True, False, "")
            return initials[given]

        for pos in range(maxlen):
            column = [(d.item, d.names[pos]) for d in group if pos < len(d.names)]
            # per family, its distinct names and how many of those (with a given name) share
            # each initials: one pass instead of comparing every name with every other
            distinct: dict[str, dict[Name, None]] = {}
            for _, name in column:
                distinct.setdefault(name.family, {})[name] = None
            same_init: dict[tuple[str, str], int] = {}
            for family, names in distinct.items():
                for n in names:
                    if n.given:
                        k = (family, initial(n.given))
                        same_init[k] = same_init.get(k, 0) + 1
            open_items = {d.item for d in remaining}
            hinted: set[str] = set()
            for item, name in column:
                if item not in open_items or len(distinct[name.family]) < 2:  # no other name
                    continue
                same_initials = bool(name.given) and (
                    same_init[(name.family, initial(name.given))] > 1)
                self.disamb[item].name_hints[name] = "given" if same_initials else "initials"
                hinted.add(item)
            remaining = [d for d in remaining if d.item not in hinted]

    def _try_add_names(self, group: list[_DD]) -> None:
        self._try_add_given_names(group)
        self._add_names_until_unique(group, lambda n, _i: n)

    def _add_names_until_unique(self, group: list[_DD], part: Callable[[Name, int], object]
                                ) -> None:
        """Show one more name at a time until an item's first names (``part`` of each) are its
        own; each item keeps the count that was shown when it became unique.

        Every item's first n names are numbered as the nodes of a trie (``prefix``), so
        comparing them costs O(1) per item and step, not a comparison with every other item.
        """
        maxnames = max((len(d.names) for d in group), default=0)
        as_ = list(group)
        nodes: dict[tuple[int, object], int] = {}
        prefix = dict.fromkeys((d.item for d in group), 0)
        for n in range(1, maxnames + 1):
            for x in as_:
                if n <= len(x.names):
                    edge = (prefix[x.item], part(x.names[n - 1], n - 1))
                    prefix[x.item] = nodes.setdefault(edge, len(nodes) + 1)
            counts: dict[int, int] = {}
            for x in as_:
                counts[prefix[x.item]] = counts.get(prefix[x.item], 0) + 1
            unique = {x.item for x in as_ if counts[prefix[x.item]] == 1}
            if unique:
                for x in as_:
                    self.disamb[x.item].et_al_names = n
                as_ = [x for x in as_ if x.item not in unique]

    def _disambiguate(self) -> None:
        c = self.style.citation
        assert c is not None
        add_names = c.attrs.get("disambiguate-add-names") == "true"
        add_given = c.attrs.get("disambiguate-add-givenname") == "true"
        rule = c.attrs.get("givenname-disambiguation-rule", "by-cite")
        add_suffix = c.attrs.get("disambiguate-add-year-suffix") == "true"
        global_rule = add_given and rule != "by-cite"
        if global_rule:
            self._add_given_names_globally(rule)
        if len(self.items) < 2:
            return  # nothing to tell apart (validate.output renders entries one at a time)
        amb = self._ambiguities()
        if amb and add_names:
            for g in amb:
                if add_given and rule == "by-cite":
                    self._try_add_names(g)
                else:
                    self._try_add_names_plain(g, rule if add_given else "")
            if global_rule:  # the names now shown may need their given names too
                self._add_given_names_globally(rule)
            amb = self._ambiguities()
        if amb and add_given and rule == "by-cite":
            for g in amb:
                self._try_add_given_names(g)
            amb = self._ambiguities()
        if amb and add_suffix:
            # the groups are disjoint (one per rendered text): each is sorted once and numbered
            # in one pass, so a book with hundreds of same-author-same-year works stays O(n log n)
            for g in amb:
                companions = sorted({d.item for d in g},
                                    key=cmp_to_key(self._by_sort_key_then_id))
                for i, k in enumerate(companions, start=1):
                    self.disamb[k].year_suffix = i
            amb = self._ambiguities()
        for g in amb:
            for d in g:
                self.disamb[d.item].condition = True

    def _first_cited(self, k: str) -> tuple[int, str]:
        return (self.cited.get(k, len(self.cited)), k)

    def _by_sort_key_then_id(self, a: str, b: str) -> int:
        """The order of ambiguous items' year suffixes. citeproc collects them in the order
        first cited (the uncited ones after, by id), then sorts them stably by the
        bibliography's <sort>; without one they keep the order of first citation (the
        bibliography's order then). (A method, as :meth:`_bib_sort_key`.)"""
        keys: dict[str, _SortKeys] = getattr(self, "_bib_keys", {})
        if not keys:
            return self.number[a] - self.number[b]
        ra, rb = self._first_cited(a), self._first_cited(b)
        if self.content_id[a] == self.content_id[b]:  # the same keys
            return (ra > rb) - (ra < rb)
        desc: list[bool] = getattr(self, "_sort_desc", [])
        return _cmp_keys(keys.get(a), keys.get(b), desc) or (ra > rb) - (ra < rb)

    def _add_given_names_globally(self, rule: str) -> None:
        """``givenname-disambiguation-rule`` other than by-cite: every shown name (or each
        cite's first name, for the primary-name rules) whose family name another person shown
        anywhere shares gets its initials, or its given name when initials do not tell the
        two apart (initials only, for the -with-initials rules) — ambiguous cites or not."""
        primary = rule.startswith("primary-name")
        initials_only = rule.endswith("-with-initials")
        shown: dict[str, list[Name]] = {}
        for key in self.items:
            names = [n.data for n in universe(self._basic_out(key))
                     if isinstance(n, Tag) and n.kind == "name" and isinstance(n.data, csl.Name)]
            shown[key] = names[:1] if primary else names
        def person(n: Name) -> str:  # "J.J." and "J. J." are one person
            return "".join(c for c in n.given if c.isalnum())

        families: dict[tuple[str, str], dict[str, list[Name]]] = {}
        for names in shown.values():
            for n in names:
                if n.family:
                    families.setdefault((n.non_dropping_particle, n.family), {}).setdefault(
                        person(n), []).append(n)
        hints: dict[Name, str] = {}
        for people in families.values():
            if len(people) < 2:
                continue
            same: dict[str, int] = {}
            for forms in people.values():
                i = initialize(forms[0].given, True, False, "")
                same[i] = same.get(i, 0) + 1
            for forms in people.values():
                if not forms[0].given:
                    continue
                unique = same[initialize(forms[0].given, True, False, "")] == 1
                if initials_only and not unique:
                    continue  # initials would not tell them apart
                for n in forms:
                    hints[n] = "initials" if unique else "given"
        for key, names in shown.items():
            for n in names:
                if n in hints:
                    self.disamb[key].name_hints[n] = hints[n]

    def _try_add_names_plain(self, group: list[_DD], rule: str) -> None:
        """Add names until cites differ in the names as the givenname rule shows them: whole
        (all-names), with initials (all-names-with-initials), the first name so and the others
        by family name (primary-name…), or by family name only (no given-name rule)."""
        with_initials = rule.endswith("-with-initials")
        primary = rule.startswith("primary-name")

        def part(n: Name, i: int) -> object:
            if not rule or (primary and i > 0):
                return n.family or n.literal
            if with_initials:
                return (n.family or n.literal, n.non_dropping_particle,
                        initialize(n.given, True, False, "") if n.given else "")
            return n

        self._add_names_until_unique(group, part)

    # ------------------------------------------------------------------ output

    def _finish(self, out: Out) -> Inlines:
        if self.finish_deferred:
            return ()
        return self.finish(out)

    def finish(self, out: Out) -> Inlines:
        """A layout's output as inlines: rendered, punctuation and quotes placed as the
        locale has them, superscripts raised."""
        inl = render(out, link_items=True)
        if self.style.locale.punctuation_in_quote:
            inl = punctuation_inside_quotes(inl)
        quotes = self.style.locale.quotes()
        if quotes != DEFAULT_QUOTES:
            inl = localize_quotes(inl, quotes)
        return raise_superscripts(inl)

    def bibliography(self, ids: Sequence[str] | None = None) -> list[tuple[str, Inlines]]:
        """Formatted entries in bibliography order (all items, or ``ids`` in that order)."""
        with paused_gc():  # as in __init__: every entry rendered
            return self._bibliography_now(ids)

    def _bibliography_now(self, ids: Sequence[str] | None) -> list[tuple[str, Inlines]]:
        bib = self.style.bibliography
        if bib is None:
            return []
        wanted = set(ids) if ids is not None else None
        keys = [k for k in self.bib_order if wanted is None or k in wanted]
        substitute = bib.attrs.get("subsequent-author-substitute")
        if substitute is not None:
            return self._substituted_bibliography(bib, keys, substitute)
        out: list[tuple[str, Inlines]] = []
        for key in keys:
            item = self._with_number(key)
            d = self.disamb[key]

            def entry(item: Item = item, d: Disamb = d) -> Inlines:
                return self._finish(self.ev.layout(bib, item, d, bibliography=True))

            anon: object = self.anon[key] if item is self.items[key] else _anonymous(item)
            out.append((key, self._memo(("entry", anon, _disamb_key(d)), entry)))
        return out

    def _substituted_bibliography(self, bib: Node, keys: list[str], substitute: str
                                  ) -> list[tuple[str, Inlines]]:
        """The entries with ``subsequent-author-substitute``: an entry whose names (at its
        start) repeat the previous entry's shows the substitute ("———") instead, whole or name
        by name as ``subsequent-author-substitute-rule`` says."""
        rule = bib.attrs.get("subsequent-author-substitute-rule", "complete-all")
        outs = [self.ev.layout(bib, self._with_number(k), self.disamb[k], bibliography=True)
                for k in keys]
        result: list[Out] = []
        i = 0
        while i < len(outs):
            first = outs[i]
            result.append(first)
            found = _leading_names(first)
            i += 1
            if found is None:
                continue
            while i < len(outs):
                replaced = _substitute_names(outs[i], found, rule, substitute)
                if replaced is None:
                    break
                result.append(replaced)
                i += 1
        return [(k, self._finish(o)) for k, o in zip(keys, result, strict=True)]

    def _with_number(self, key: str) -> Item:
        item = self.items[key]
        if not self.numbered:
            return item
        from refbook.records import replace

        return replace(item, text=(*item.text, ("citation-number", (Text(str(self.number[key])),))))

    def cite(self, cites: Sequence[CiteItem], *, numbers: dict[str, int] | None = None,
             note_start: bool = True) -> Inlines:
        """Render one citation (a cluster of cited items).

        ``note_start``: with a note style, the citation begins its note, so a leading term is
        capitalized ("Ibid."); a host that places the text itself (``refbook.registry``: a
        citation written inside a footnote is not its start) passes False."""
        memo_key = ("cite", note_start, tuple(
            (ci, self.anon.get(ci.id), _disamb_key(self.disamb[ci.id]) if ci.id in self.disamb else None,
             (numbers or self.number).get(ci.id) if self.numbered else None)
            for ci in cites))
        return self._memo(memo_key, lambda: self._cite(cites, numbers, note_start))

    def _cite(self, cites: Sequence[CiteItem], numbers: dict[str, int] | None,
              note_start: bool = True) -> Inlines:
        c = self.style.citation
        assert c is not None
        layout = next(x for x in c.children if x.tag == "layout")
        lf = Formatting(prefix=layout.attrs.get("prefix"), suffix=layout.attrs.get("suffix"),
                        delimiter=layout.attrs.get("delimiter"),
                        font_style=layout.attrs.get("font-style"),
                        font_weight=layout.attrs.get("font-weight"),
                        vertical_align=layout.attrs.get("vertical-align"),
                        font_variant=layout.attrs.get("font-variant"),
                        text_decoration=layout.attrs.get("text-decoration"),
                        # a citation's formatting covers its affixes: <b>(1–3)</b>
                        affixes_inside=True)
        cites = self._sort_cites(c, cites, numbers)
        outs: list[Out] = []
        for ci in cites:
            if ci.id not in self.items:
                outs.append(Tag("item", Fmt(Formatting(font_weight="bold"), [lit(ci.id + "?")]),
                                ci.id))
                continue
            item = self._numbered(ci.id, numbers)
            if ci.first_note and ci.position != "first":
                from refbook.records import replace

                item = replace(item, text=(*item.text, ("first-reference-note-number",
                                                        (Text(str(ci.first_note)),))))
            if item is self.items[ci.id] and self._as_basic(ci):
                # the same evaluation as the item's basic cite (disambiguation made it)
                basic = self._basic_out(ci.id)
                assert isinstance(basic, Tag)
                o = basic.kid
            else:
                o = self.ev.layout(c, item, self.disamb[ci.id], bibliography=False,
                                   locator=ci.locator, label=ci.label, all_names=ci.all_names,
                                   position=ci.position, near_note=ci.near_note)
            o = grouped([o])
            if ci.mode == "author-only":
                o = _get_authors(o)
            elif note_start and self.style.options.get("class") == "note" and (
                    ci.prefix or not outs) and _starts_sentence(ci.prefix) \
                    and _starts_with_term(o):
                # a note begins with the citation: its first term is capitalized ("Ibid.")
                o = _capitalize_first(o)
            tagged: Out = Tag("item", o, (ci.id, ci.mode)) if o is not None else None
            if ci.suffix:
                tagged = grouped([tagged, Tag("suffix", Lit(ci.suffix))])
            if ci.prefix:
                tagged = grouped([Tag("prefix", Lit(ci.prefix)), tagged])
            outs.append(tagged)
        collapse = c.attrs.get("collapse")
        cluster: Out
        if collapse or "cite-group-delimiter" in c.attrs:
            cluster = self._collapse(outs, lf, c.attrs)
        else:
            cluster = formatted(lf, outs)
        cluster = _handle_author_only(cluster)
        cluster = _suppress_authors(cluster)
        return self._finish(cluster)

    def _sort_cites(self, c: Node, cites: Sequence[CiteItem],
                    numbers: dict[str, int] | None) -> Sequence[CiteItem]:
        """The cites of one citation in the order of the citation's ``<sort>`` (stable: ties and
        unknown keys keep the order they were written in)."""
        sort = next((x for x in c.children if x.tag == "sort"), None)
        if sort is None or len(cites) < 2:
            return cites
        desc = [k.attrs.get("sort") == "descending" for k in sort.children]
        keys: dict[str, _SortKeys] = {}
        for ci in cites:
            if ci.id in keys or ci.id not in self.items:
                continue
            item = self._numbered(ci.id, numbers)
            d = self.disamb[ci.id]
            keys[ci.id] = _SortKeys(functools.partial(self._cite_sort_key, c, sort, item, d),
                                    len(desc), self.memo)
        disamb = self.disamb

        def cmp(a: CiteItem, b: CiteItem) -> int:
            # cites the keys do not tell apart keep their year suffixes' order (2005a, 2005b)
            # (no helper function: compiled, nested functions that call each other are a
            # reference cycle; refbook.accel)
            sa = disamb[a.id].year_suffix if a.id in disamb else 0
            sb = disamb[b.id].year_suffix if b.id in disamb else 0
            return _cmp_keys(keys.get(a.id), keys.get(b.id), desc) or (
                sa - sb if sa and sb else 0)

        return sorted(cites, key=cmp_to_key(cmp))

    def _cite_sort_key(self, c: Node, sort: Node, item: Item, d: Disamb, n: int
                       ) -> list[str] | None:
        """A citation's ``n``-th sort key of one cited item (memoized)."""
        return self._memo(("csort", item, n, _disamb_key(d)), functools.partial(
            self.ev.sort_key, c, sort.children[n], item, d))

    def _numbered(self, key: str, numbers: dict[str, int] | None) -> Item:
        if numbers is not None and key in numbers and self.numbered:
            from refbook.records import replace

            item = self.items[key]
            return replace(item, text=(*item.text,
                                       ("citation-number", (Text(str(numbers[key])),))))
        return self._with_number(key)

    def _collapse(self, outs: list[Out], lf: Formatting, attrs: dict[str, str]) -> Out:
        """Cite grouping and collapsing (``collapse``, ``cite-group-delimiter``): cites with
        the same names are put together after the first of them, their names shown once."""
        collapse = attrs.get("collapse", "")
        group_delim = attrs.get("cite-group-delimiter",
                                self.style.options.get("cite-group-delimiter", ", "))
        after = attrs.get("after-collapse-delimiter")
        delim = lf.delimiter
        # the year-suffix delimiter defaults to the cite-group delimiter when the style sets
        # one, else to the layout's delimiter (as citeproc-js has it)
        suffix_delim = attrs.get("year-suffix-delimiter",
                                 attrs.get("cite-group-delimiter", delim))
        if collapse == "citation-number":
            return self._collapse_numbers(outs, lf, after)
        groups = _group_by_names(outs)
        if collapse not in ("year", "year-suffix", "year-suffix-ranged"):
            # cite grouping alone (cite-group-delimiter without collapse): the names stay
            return formatted(_without_delimiter(lf), [
                formatted(Formatting(suffix=delim if gi < len(groups) - 1 else None),
                          [formatted(Formatting(delimiter=group_delim), g)])
                for gi, g in enumerate(groups)])
        result: list[Out] = []
        flipped = collapse == "year"
        for gi, g in enumerate(groups):
            # a cite that is only its names (no date) shows nothing once they are removed, and
            # leaves no delimiter behind
            ys = [g[0], *[y for y in map(_remove_names, g[1:]) if out_text(y)]]
            if collapse in ("year-suffix", "year-suffix-ranged"):
                ys = _collapse_year_suffixes(ys, suffix_delim,
                                             ranged=collapse == "year-suffix-ranged")
            # nothing collapsed: one cite; no year suffixes joined: as many pieces as cites
            no_collapse = len(g) == 1 and len(ys) == 1
            no_suffix_collapse = len(ys) == len(g)
            any_locator = any(_has(u, "locator") for u in ys)
            inner = group_delim if (no_collapse or (no_suffix_collapse and not (
                flipped and any_locator))) else (after or delim)
            kids: list[Out] = [
                formatted(Formatting(suffix=inner), [u]) if i < len(ys) - 1 else u
                for i, u in enumerate(ys)
            ]
            gsuffix: str | None = None
            if gi < len(groups) - 1:
                gsuffix = delim if (no_collapse and not flipped) else (after or delim)
            result.append(formatted(Formatting(suffix=gsuffix), kids))
        return formatted(Formatting(**{**{k: getattr(lf, k) for k in FORMATTING_FIELDS},
                                       "delimiter": None}), result)

    def _collapse_numbers(self, outs: list[Out], lf: Formatting, after: str | None) -> Out:
        def num(o: Out) -> int | None:
            if _has(o, "prefix") or _has(o, "suffix") or _has(o, "locator"):
                return None
            for n in universe(o):
                if isinstance(n, Tag) and n.kind == "citation-number":
                    return int(str(n.data))
            return None

        runs: list[list[Out]] = []
        prev: int | None = None
        for o in outs:
            n = num(o)
            if runs and n is not None and prev is not None and n == prev + 1:
                runs[-1].append(o)
            else:
                runs.append([o])
            prev = n
        pieces: list[Out] = []
        for i, r in enumerate(runs):
            if len(r) >= 3:
                piece: Out = Fmt(Formatting(delimiter="\u2013"), [r[0], r[-1]])
                sep = after or lf.delimiter
            else:
                piece = formatted(Formatting(delimiter=lf.delimiter), r)
                sep = lf.delimiter
            if i < len(runs) - 1:
                piece = formatted(Formatting(suffix=sep), [piece])
            pieces.append(piece)
        return formatted(Formatting(**{**{k: getattr(lf, k) for k in FORMATTING_FIELDS},
                                       "delimiter": None}), pieces)


def _leading_names(o: Out) -> tuple[tuple[Name, ...], str] | None:
    """The names an entry starts with (its first element's first names) and their text."""
    while isinstance(o, (Fmt, Linked)) or (isinstance(o, Tag) and o.kind != "names"):
        if isinstance(o, Tag):
            o = o.kid
        else:
            i = _first_kid(o.kids)
            if i is None:
                return None
            o = o.kids[i]
    if isinstance(o, Tag) and o.kind == "names" and isinstance(o.data, tuple):
        if not o.data[1] and _has_named(o.kid):  # names that <substitute> put there
            return _leading_names(o.kid)
        return tuple(o.data[1]), out_text(o.kid)
    # names inside the first element but deeper (a group of names and a date)
    return None


def _starts_sentence(prefix: Inlines) -> bool:
    """No prefix, or one that ends a sentence of more than one word ("As shown above. "):
    what follows starts a sentence."""
    if not prefix:
        return True
    t = stringify(prefix).rstrip().rstrip("\u201d\u2019\"')\u00bb")
    return t[-1:] in (".", "!", "?") and len(t.split()) > 1


def _lead(o: Out) -> list[Out]:
    """The path from ``o`` down to the first thing it shows."""
    path: list[Out] = []
    while o is not None:
        path.append(o)
        if isinstance(o, Tag):
            o = o.kid
        elif isinstance(o, (Fmt, Linked)):
            i = _first_kid(o.kids)
            if i is None:
                break
            if isinstance(o, Fmt) and o.f.prefix:
                break  # an affix comes first
            o = o.kids[i]
        else:
            break
    return path


def _starts_with_term(o: Out) -> bool:
    return any(isinstance(n, Tag) and n.kind == "term" for n in _lead(o)) and isinstance(
        _lead(o)[-1], Lit)


def _capitalize_first(o: Out) -> Out:
    if isinstance(o, Lit):
        return Lit(map_first_text(o.inl, lambda t: t[:1].upper() + t[1:]))
    if isinstance(o, Tag):
        return Tag(o.kind, _capitalize_first(o.kid), o.data)
    if isinstance(o, (Fmt, Linked)):
        i = _first_kid(o.kids)
        if i is None:
            return o
        kids = [*o.kids[:i], _capitalize_first(o.kids[i]), *o.kids[i + 1:]]
        return Fmt(o.f, kids) if isinstance(o, Fmt) else Linked(o.url, kids)
    return o


def _has_named(o: Out) -> bool:
    return any(isinstance(n, Tag) and n.kind == "names" and isinstance(n.data, tuple)
               and n.data[1] for n in universe(o))


def _first_kid(kids: list[Out]) -> int | None:
    """The index of the first child that shows something (elements that rendered nothing
    are None)."""
    return next((i for i, k in enumerate(kids) if k is not None), None)


def _substitute_names(o: Out, previous: tuple[tuple[Name, ...], str], rule: str,
                      text: str) -> Out | None:
    """``o`` with its leading names replaced by ``text`` as ``rule`` says when they repeat
    ``previous``; None when they do not (the run of substitutions ends)."""
    names, rendered = previous
    if isinstance(o, Tag) and (o.kind != "names" or (
            isinstance(o.data, tuple) and not o.data[1] and _has_named(o.kid))):
        kid = _substitute_names(o.kid, previous, rule, text)
        return None if kid is None else Tag(o.kind, kid, o.data)
    if isinstance(o, (Fmt, Linked)):
        i = _first_kid(o.kids)
        if i is None:
            return None
        kid = _substitute_names(o.kids[i], previous, rule, text)
        if kid is None:
            return None
        kids = [*o.kids[:i], kid, *o.kids[i + 1:]]
        return Fmt(o.f, kids) if isinstance(o, Fmt) else Linked(o.url, kids)
    if not (isinstance(o, Tag) and isinstance(o.data, tuple)):
        return None
    mine = tuple(o.data[1])
    if not names:
        rule = "complete-all"
    if rule == "complete-all":
        if not _same_people(mine, names) or (not names and out_text(o.kid) != rendered):
            return None
        if not mine:
            return Tag("names", lit(text), o.data)
        kept = _transform(o.kid, lambda n: None if isinstance(n, Tag) and n.kind == "name"
                          else n)
        if isinstance(kept, Fmt):
            return Tag("names", Fmt(kept.f, [lit(text), *kept.kids]), o.data)
        return Tag("names", lit(text), o.data)
    if rule == "complete-each":
        if mine != names:
            return None
        count = len(mine)
    else:
        count = 0
        for a, b in zip(mine, names, strict=False):
            if a != b:
                break
            count += 1
        if count == 0:
            return None
        if rule == "partial-first":
            count = 1
    replace_ = set(mine[:count])
    return _transform(o, lambda n: Tag("name", lit(text), n.data)
                      if isinstance(n, Tag) and n.kind == "name" and n.data in replace_ else n)


def _text_and_names(o: Out, names: list[Name]) -> str:
    """``out_text(o)``, the names of its ``names`` tags put into ``names`` on the way, in
    the order ``universe`` lists them: one walk of the tree instead of two."""
    if o is None:
        return ""
    if type(o) is Lit:
        return stringify(o.inl)
    if type(o) is Tag:
        if o.kind == "names" and isinstance(o.data, tuple):
            names.extend(o.data[1])
        return _text_and_names(o.kid, names)
    assert isinstance(o, (Fmt, Linked))
    return " ".join([_text_and_names(k, names) for k in o.kids])


def _descendants(n: Node, macros: dict[str, Node]) -> Iterator[Node]:
    """Every node under ``n``, through the macros it calls (each macro once)."""
    stack, seen = [n], set()
    while stack:
        x = stack.pop()
        yield x
        stack.extend(x.children)
        m = x.attrs.get("macro")
        if m and m in macros and m not in seen:
            seen.add(m)
            stack.append(macros[m])


def _same_people(xs: tuple[Name, ...], ys: tuple[Name, ...]) -> bool:
    """Whether two name lists name the same people: a name written as one literal string and
    the same written as a family name alone ("Beijing Zoo") are one."""
    if xs == ys:
        return True
    if len(xs) != len(ys):
        return False
    return all(x == y or (not x.given and not y.given and (x.literal or x.family) == (
        y.literal or y.family) and not (x.non_dropping_particle or y.non_dropping_particle))
        for x, y in zip(xs, ys, strict=True))


def _group_by_names(outs: list[Out]) -> list[list[Out]]:
    """Cites in groups of the same names, each group where its first cite is; no cite moves
    past one with a prefix or a suffix."""
    groups: list[list[Out]] = []
    rest = list(outs)
    while rest:
        z = rest.pop(0)
        if _has(z, "suffix"):
            groups.append([z])
            continue
        ws: list[Out] = []
        while rest and not _has(rest[0], "prefix") and not _has(rest[0], "suffix"):
            ws.append(rest.pop(0))
        if not ws:
            groups.append([z])
            continue
        matched = [w for w in ws if _same_names(z, w)]
        groups.append([z, *matched])
        rest = [w for w in ws if not _same_names(z, w)] + rest
    return groups


def _without_delimiter(f: Formatting) -> Formatting:
    return Formatting(**{**{k: getattr(f, k) for k in FORMATTING_FIELDS}, "delimiter": None})


def _years(o: Out) -> list[tuple[int, int]]:
    """The years of the dates a cite shows (what decides whether its year suffix joins the
    previous cite's: "2000a, b")."""
    found: list[tuple[int, int]] = []
    for n in universe(o):
        if isinstance(n, Tag) and n.kind == "date" and isinstance(n.data, Date) \
                and not n.data.literal:
            d = n.data
            found.append((d.start.year if d.start else 0, d.end.year if d.end else 0))
    return found


def _only_year_suffix(o: Out) -> Out:
    """A cite reduced to its year suffix where its date was (names are gone already)."""
    def fix(n: Out) -> Out:
        if isinstance(n, Tag) and n.kind == "date":
            return Tag("date", _first_tag(n.kid, "year-suffix"), n.data)
        return n

    return _transform(o, fix)


def _collapse_year_suffixes(cites: list[Out], delim: str | None, *, ranged: bool) -> list[Out]:
    """Cites of one author group whose years are the same as the cite before show only their
    year suffix, joined by ``delim`` (``year-suffix-delimiter``); ``ranged``: three or more
    successive suffixes become a range (a–c)."""
    runs: list[list[Out]] = []
    for c in cites:
        if runs and _years(runs[-1][0]) == _years(c):
            runs[-1].append(_only_year_suffix(c))
        else:
            runs.append([c])
    out: list[Out] = []
    for run in runs:
        if len(run) == 1:
            out.append(run[0])
            continue
        pieces: list[Out] = run
        if ranged:
            pieces = []
            seq: list[Out] = []
            for c in [*run, None]:
                if c is not None and seq and _suffix_number(seq[-1]) is not None \
                        and _suffix_number(c) == (_suffix_number(seq[-1]) or 0) + 1:
                    seq.append(c)
                    continue
                if len(seq) >= 3:
                    pieces.append(Fmt(Formatting(delimiter="\u2013"), [seq[0], seq[-1]]))
                elif len(seq) == 2:
                    pieces.append(Fmt(Formatting(delimiter=delim), seq))
                elif seq:
                    pieces.append(seq[0])
                seq = [c] if c is not None else []
        out.append(Fmt(Formatting(delimiter=delim), pieces))
    return out


def _suffix_number(o: Out) -> int | None:
    t = _first_tag(o, "year-suffix")
    return t.data if t is not None and isinstance(t.data, int) else None


def _disamb_key(d: Disamb) -> tuple[object, ...]:
    return (d.year_suffix, tuple(sorted(d.name_hints.items(), key=repr)), d.et_al_names,
            d.condition)


def _has(o: Out, kind: str) -> bool:
    return any(isinstance(n, Tag) and n.kind == kind for n in universe(o))


def _first_tag(o: Out, kind: str) -> Tag | None:
    for n in universe(o):
        if isinstance(n, Tag) and n.kind == kind:
            return n
    return None


def _extract_names_or_date(o: Out) -> Tag | None:
    items = [n for n in universe(o) if isinstance(n, Tag) and n.kind == "item"
             and not (isinstance(n.data, tuple) and n.data[1] == "author-only")]
    if not items:
        return None
    for it in items:
        t = _first_tag(it, "names")
        if t is not None:
            return t
    for it in items:
        t = _first_tag(it, "date")
        if t is not None:
            return t
    return None


def _same_names(x: Out, y: Out) -> bool:
    a, b = _extract_names_or_date(x), _extract_names_or_date(y)
    if a is None or b is None:
        return False
    if a.kind == "names" and b.kind == "names":
        assert isinstance(a.data, tuple)
        assert isinstance(b.data, tuple)
        if a.data[0] != b.data[0]:
            return False
        if a.data[1] == b.data[1]:
            return bool(a.data[1]) or out_text(a.kid) == out_text(b.kid)
        return out_text(a.kid) == out_text(b.kid)
    return a.kind == "date" and b.kind == "date"


def _transform(o: Out, f: object) -> Out:
    """Bottom-up transform (citeproc's ``transform``)."""
    fn = f
    if o is None:
        return None
    if isinstance(o, Fmt):
        o = Fmt(o.f, [_transform(k, f) for k in o.kids])
    elif isinstance(o, Tag):
        o = Tag(o.kind, _transform(o.kid, f), o.data)
    elif not isinstance(o, Lit):
        o = type(o)(o.url, [_transform(k, f) for k in o.kids])
    return fn(o)  # type: ignore[operator, no-any-return]


def _remove_names(o: Out) -> Out:
    return _transform(o, lambda n: None if isinstance(n, Tag) and n.kind == "names" else n)


def _get_authors(o: Out) -> Out:
    return _first_tag(o, "names")


def _handle_author_only(c: Out) -> Out:
    if not isinstance(c, Fmt) or not c.kids:
        return c
    first = c.kids[0]
    if _is_author_only(first):
        xs = c.kids[1:]
        return formatted(NO_FORMAT, [first, *([lit(" "), formatted(c.f, xs)] if xs else [])])
    if isinstance(first, Fmt) and first.kids and _is_author_only(first.kids[0]):
        x = first.kids[0]
        xs, ys = first.kids[1:], c.kids[1:]
        if not xs and not ys:
            return formatted(NO_FORMAT, [x])
        return Fmt(NO_FORMAT, [x, lit(" "), formatted(c.f, [formatted(first.f, xs), *ys])])
    return c


def _is_author_only(o: Out) -> bool:
    return (isinstance(o, Tag) and o.kind == "item" and isinstance(o.data, tuple)
            and o.data[1] == "author-only")


def _suppress_authors(c: Out) -> Out:
    return _transform(c, _without_authors)


def _without_authors(n: Out) -> Out:
    """A suppress-author cite without its names (a function of its own, not nested: compiled,
    a nested function holding a lambda is a reference cycle; refbook.accel)."""
    if isinstance(n, Tag) and n.kind == "item" and isinstance(n.data, tuple) \
            and n.data[1] == "suppress-author":
        y = _get_authors(n.kid)
        if y is None:
            return n
        return Tag(n.kind, _transform(n.kid, functools.partial(_unless_equal, y)), n.data)
    return n


def _unless_equal(y: Out, z: Out) -> Out:
    return None if z == y else z
