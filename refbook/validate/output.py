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
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from refbook.records import replace

if TYPE_CHECKING:
    from refbook.config import Config
    from refbook.csl import Date, Item, Name
    from refbook.ir import Inlines
    from refbook.models import Entry
    from refbook.styles import CslStyle
    from refbook.styles.csl.output import Out
    from refbook.styles.csl.processor import Processor

__all__ = ["DEFAULT_STYLE", "output_changes", "printed", "unprinted_facts"]

T = TypeVar("T")

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


#: the keys of ``_STYLES`` whose stamp was checked in this pass of validation (:func:`new_pass`):
#: a check of 20,000 entries asked 10,534 times, and stat-ing the files was 4% of its time
_CURRENT: set[tuple[str, str]] = set()


def new_pass() -> None:
    """A new pass of validation begins (``refbook.validate.entry_facts``): the style files are
    looked at again, once, when first asked for."""
    _CURRENT.clear()


def _style_named(name: str) -> CslStyle:
    from refbook.styles import get_style

    key = (name, os.getcwd())
    found = _STYLES.get(key)
    if found is None or (key not in _CURRENT and _stamp(found[1]) != found[0]):
        style = get_style(name)
        if len(_STYLES) > 64:
            _STYLES.clear()
            _CURRENT.clear()
        found = _STYLES[key] = (_stamp(style), style)
    _CURRENT.add(key)
    return found[1]


class _Reads:
    """What one render read of its item: the variables whose value it read, and those whose
    presence it tested in a ``<choose>`` (``Item.tested``: present or not, in the item or not).

    And what :func:`_substituted` needs to redo the render with one text variable's value
    replaced: how many times each text variable's value was read (``counts``; ``rich`` for a
    read of all of them), the entry's layout as evaluated with the number of reads made while
    evaluating it (``layouts``, one per layout evaluated), and the processor's last step from
    a layout to inlines (``finish``).

    The render's text is made from its layouts only when asked (:meth:`text`): a question
    answered from the reads alone (a place the layout never read) needs no text."""

    __slots__ = ("_text", "counts", "entries", "finish", "layouts", "presence", "values")

    def __init__(self) -> None:
        self.values: set[str] = set()
        self.presence: set[str] = set()
        self.counts: dict[str, int] = {}
        self.layouts: list[tuple[Out, dict[str, int]]] = []
        self.finish: Callable[[Out], Inlines] | None = None
        self.entries = 0  # the entries the deferred bibliography gave (one layout each)
        self._text: tuple[str | None] | None = None

    def text(self) -> str | None:
        """The render's text (None: the style cannot render it), made once."""
        if self._text is None:
            from refbook.render.text import to_text

            assert self.finish is not None
            assert self.entries == len(self.layouts)
            self._text = ("\n".join(to_text(self.finish(o)) for o, _ in self.layouts),)
        return self._text[0]

    def told(self, text: str | None) -> None:
        """The render's text, made otherwise (:func:`_as_written`'s whole render)."""
        self._text = (text,)


#: the logs of the renders under way, per thread (validation renders one entry at a time)
_LOG = threading.local()


def _log(names: Iterable[str], presence: bool = False) -> None:
    stack: list[_Reads] | None = getattr(_LOG, "stack", None)
    if stack:
        (stack[-1].presence if presence else stack[-1].values).update(names)


def _log_value(name: str) -> None:
    """A read of the value of the text variable ``name``: logged (``_Reads.values``) and
    counted (``_Reads.counts``), with one look at the log stack."""
    stack: list[_Reads] | None = getattr(_LOG, "stack", None)
    if stack:
        reads = stack[-1]
        reads.values.add(name)
        counts = reads.counts
        counts[name] = counts.get(name, 0) + 1


@lru_cache(maxsize=1)
def _logged_item_class() -> type[Item]:
    """A subclass of :class:`refbook.csl.Item` that records, in the current log, every
    variable the engine reads through it. The engine reads an item only through these methods
    (its type, language and id aside, which the caller compares); ``refbook.records.replace`` keeps
    the class, so the copies the processor makes (a citation number added) record too."""
    from refbook.csl import Item

    class _LoggedItem(Item):
        __slots__ = ()

        def var(self, name: str) -> Inlines:
            _log_value(name)
            return Item.var(self, name)

        def name_list(self, name: str) -> tuple[Name, ...]:
            _log((name,))
            return Item.name_list(self, name)

        def date(self, name: str) -> Date | None:
            _log((name,))
            return Item.date(self, name)

        def has(self, name: str) -> bool:
            _log((name,))
            return Item.has(self, name)

        def rich(self) -> tuple[tuple[str, Inlines], ...]:
            _log(_parts(self))
            _log_value(_RICH)
            return Item.rich(self)

        logged = True

        def tested(self, names: frozenset[str]) -> None:
            _log(names, presence=True)

    return _LoggedItem


def _parts(item: Item) -> dict[str, tuple[object, ...]]:
    """Each variable of ``item`` with what the item holds for it (text, names, date, LaTeX)."""
    out: dict[str, tuple[object, ...]] = {}
    for i, part in enumerate((item.text, item.names, item.dates, item.latex)):
        for k, v in part:
            out[k] = (*out.get(k, ()), i, v)
    return out


#: the key of ``_Reads.counts`` that counts reads of every text variable at once (``rich``)
_RICH = "\x00rich"


def _render(entry: Entry, style: str, item: Item | None = None) -> str | None:
    """The entry's reference-list text under ``style``; None when it cannot be rendered (an
    unknown style is reported by the hosts, not here)."""
    from refbook.bibtex_csl import entry_to_item
    from refbook.render.text import to_text
    from refbook.styles import StyleError

    try:
        # a memo of its own: these one-off forms would only crowd the style's shared memo,
        # and the host's memo file, with entries no build asks for
        processor = _style_named(style or DEFAULT_STYLE).processor(
            [item if item is not None else entry_to_item(entry)], memo={})
        return "\n".join(to_text(nodes) for _, nodes in processor.bibliography())
    except StyleError:  # an unknown or bad style is reported by the hosts, not here
        return None


def _evaluate(style: str, item: Item, reads: _Reads) -> bool:
    """Render ``item`` under ``style`` as :func:`_render` does, but only up to its layouts:
    they are kept in ``reads`` with the processor's last step, which runs when the text is
    asked for (``_Reads.text``). False when the style cannot be read."""
    from refbook.styles import StyleError

    try:
        processor = _style_named(style or DEFAULT_STYLE).processor([item], memo={})
        with _layouts_kept(processor, reads):
            reads.entries = len(processor.bibliography())
    except StyleError:
        return False
    return True


@contextmanager
def _layouts_kept(processor: Processor, reads: _Reads) -> Iterator[None]:
    """While inside, make ``processor`` keep, in ``reads``, each layout it evaluates with the
    reads made while evaluating it; and its step from a layout to inlines, which it no longer
    runs itself (its bibliography's inlines are then empty: the text is ``reads.text()``).

    On the way out the evaluator's watch is gone: the watch holds ``reads``, which
    holds the processor (``finish``), a cycle per render that validation (the collector
    paused) kept to its end — 5,570 renders' processors, layouts and logs, ~35 MB in each
    worker of a 20,000-entry check."""
    evaluator = processor.ev

    def layout(evaluate: Callable[..., Out], *args: Any, **kwargs: Any) -> Out:
        before = dict(reads.counts)
        out = evaluate(*args, **kwargs)
        reads.layouts.append((out, {k: n - before.get(k, 0) for k, n in reads.counts.items()
                                    if n != before.get(k, 0)}))
        return out

    evaluator.layout_watch = layout
    reads.finish = processor.finish
    processor.finish_deferred = True
    try:
        yield
    finally:
        evaluator.layout_watch = None


def _changed(before: Item, after: Item) -> list[str] | None:
    """The variables whose content differs between ``before`` and ``after`` (None: they
    differ in what every render reads, their id, type or language)."""
    if (before.id, before.type, before.language) != (after.id, after.type, after.language):
        return None
    old, new = _parts(before), _parts(after)
    return [v for v in old.keys() | new.keys() if old.get(v) != new.get(v)]


def _substituted(before: Item, after: Item, changed: list[str], reads: _Reads) -> str | None:
    """The text of ``after``'s render, made from ``before``'s layout (``_as_written``) with
    one text variable's value replaced; None when that is not known to be the same as
    rendering ``after`` (then it is rendered).

    It is the same when ``after`` differs only in the value of one text variable (a title
    with a word braced), present and with text in both, and every read of that value while
    the entry's one layout was evaluated put the value itself into the layout as a leaf (a
    ``<text variable>``): counted, reads against leaves holding that very value. The other
    reads get the same answers, so the evaluation of ``after`` takes the same path and builds
    the same layout with the new value in those leaves; the processor's last step (rendering,
    quotes, punctuation, which do look at the text) then runs on it as on any layout. A value
    that also decided something (``is-numeric``, a number's form, a label's plural) is a read
    without its leaf, and the entry is rendered."""
    from refbook.render.text import to_text
    from refbook.styles.csl.output import first_char

    if (len(reads.layouts) != 1 or reads.entries != 1 or reads.finish is None
            or _RICH in reads.counts):
        return None
    if len(changed) != 1:
        return None
    name = changed[0]
    was, now = dict(before.text).get(name), dict(after.text).get(name)
    if (was is None or now is None or not first_char(was) or not first_char(now)
            or any(v is was for k, v in before.text if k != name)):
        return None
    layout, counted = reads.layouts[0]
    leaves = [0]
    replaced = _with_value(layout, was, now, leaves)
    if leaves[0] == 0 or leaves[0] != counted.get(name, 0):
        return None
    return to_text(reads.finish(replaced))


def _with_value(o: Out, was: Inlines, now: Inlines, leaves: list[int]) -> Out:
    """``o`` with each leaf that holds ``was`` itself holding ``now`` (counted in ``leaves``);
    the subtrees without one are kept as they are (rendering never changes a layout)."""
    from refbook.styles.csl.output import Fmt, Linked, Lit, Tag

    kind = type(o)
    if kind is Lit:
        if o.inl is was:  # type: ignore[union-attr]
            leaves[0] += 1
            return Lit(now)
        return o
    if kind is Tag:
        kid = _with_value(o.kid, was, now, leaves)  # type: ignore[union-attr]
        return o if kid is o.kid else Tag(o.kind, kid, o.data)  # type: ignore[union-attr]
    if kind is Fmt or kind is Linked:
        old = o.kids  # type: ignore[union-attr]
        kids = [_with_value(k, was, now, leaves) for k in old]
        if all(a is b for a, b in zip(kids, old, strict=True)):
            return o
        return Fmt(o.f, kids) if kind is Fmt else Linked(o.url, kids)  # type: ignore[union-attr]
    return o


def _usable(style: str) -> bool:
    """Whether ``style`` resolves and reads (what :func:`_render` needs before any entry)."""
    from refbook.styles import StyleError

    try:
        _style_named(style or DEFAULT_STYLE).style()
    except StyleError:
        return False
    return True


@lru_cache(maxsize=4096)
def _written_item(entry: Entry) -> Item:
    """The entry's CSL item as read (asked for by each question about the entry)."""
    from refbook.bibtex_csl import entry_to_item

    return entry_to_item(entry)


@lru_cache(maxsize=256)
def _as_written(entry: Entry, style: str) -> _Reads | None:
    """What the render of the entry as read, under ``style``, read of its item, with its
    layouts, from which its text is made when asked (``_Reads.text``); None when the style
    cannot be read. Several rules ask about the same entry (a title's case, its page dashes,
    a braced month), each with its own fix, one after the other (validation checks an entry
    with every rule before the next): a few hundred are kept, each with its layout and
    processor."""
    from refbook.records import fields as dc_fields

    item = _written_item(entry)
    logged = _logged_item_class()(**{f.name: getattr(item, f.name) for f in dc_fields(item) if f.init})
    reads = _Reads()
    stack = _LOG.__dict__.setdefault("stack", [])
    stack.append(reads)
    try:
        if not _evaluate(style, logged, reads):
            return None
    finally:
        stack.pop()
    if reads.entries != len(reads.layouts):  # not one layout per entry: the whole render
        reads.told(_render(entry, style, item))
    return reads


def _unread(before: Item, after: Item, changed: list[str], reads: _Reads) -> bool:
    """Whether the render of ``before`` read nothing that ``after`` has otherwise: then the
    render of ``after`` makes the same reads, gets the same answers and gives the same text
    (the engine's output is a function of what it reads; its one-item processor has a memo of
    its own). A variable whose presence alone was tested may change while it stays present
    (or absent). ``changed``: the variables that differ (:func:`_changed`)."""
    for v in changed:
        if v in reads.values:
            return False
        if v in reads.presence:
            only = frozenset((v,))
            if (v in before.present(only)) != (v in after.present(only)):
                return False
    return True


def _same_field_variable(entry: Entry, name: str, fixed: str) -> bool:
    """Whether writing ``fixed`` for the field ``name`` leaves the entry's CSL item as it is,
    decided from that field alone, without converting the entry twice: for a field the
    conversion reads at one place only (``pages``, ``refbook.bibtex_csl.page_variable``), of
    which the entry has one. False means "not known here", not "changes"."""
    if name != "pages":
        return False
    from refbook.bibtex_csl import page_variable

    found = [f for f in entry.fields if f.name == name]
    return len(found) == 1 and page_variable(found[0].value) == page_variable(fixed)


def unprinted_facts(check: Callable[[Entry, Config], T], entry: Entry, config: Config) -> T:
    """``check(entry, config)`` for an entry that the book does not print (a host's shared
    bibliography: the entries no page cites or lists): every :func:`output_changes` asked
    meanwhile is False, at once. Nothing the style prints for the entry shows in the book, so
    no fix of its fields changes what the book shows, and the renders are not made: they were
    three quarters of checking an entry (20,000 real entries: 9.5 s of rules, 2.5 s without
    them)."""
    _LOG.unprinted = True
    try:
        return check(entry, config)
    finally:
        _LOG.unprinted = False


def printed() -> bool:
    """Whether the entry being checked is one the book prints (False inside
    :func:`unprinted_facts`): a rule whose only use of some work is to ask
    :func:`output_changes` about its result may skip the work when not."""
    return not getattr(_LOG, "unprinted", False)


def output_changes(entry: Entry, name: str, fixed: str, style: str, rename: str = "") -> bool:
    """Whether writing ``fixed`` as the value of field ``name`` (renamed ``rename`` when given)
    changes what ``style`` prints for ``entry`` (True when the style cannot tell: the rule then
    reports as before). False for an entry the book does not print (:func:`unprinted_facts`).
    """
    if getattr(_LOG, "unprinted", False):
        return False
    return _output_changes(entry, name, fixed, style, rename)


@lru_cache(maxsize=4096)
def _output_changes(entry: Entry, name: str, fixed: str, style: str, rename: str) -> bool:
    """:func:`output_changes` for an entry the book prints (the CLI's ``refbook check``: every
    entry).

    Most questions are answered without rendering the fixed entry: when its CSL item is the
    same (a dash the conversion normalizes anyway; for ``pages`` told from the field alone,
    without converting either entry), or differs only in variables the render as
    written never read (a place an article's layout never prints) — counted in
    ``tests/core/test_validate_output_cost.py`` and checked against the full render on real
    files."""
    from refbook.bibtex_csl import entry_to_item

    if not rename and _same_field_variable(entry, name, fixed):
        return not _usable(style)  # the items are equal: True only when the style cannot tell
    fields = tuple(replace(f, name=rename or name, value=fixed) if f.name == name else f
                   for f in entry.fields)
    fixed_entry = replace(entry, fields=fields)
    before_item, after_item = _written_item(entry), entry_to_item(fixed_entry)
    if after_item == before_item:
        return not _usable(style)  # True when the style cannot tell
    reads = _as_written(entry, style)
    if reads is None:
        return True
    changed = _changed(before_item, after_item)
    if changed is not None and _unread(before_item, after_item, changed, reads):
        return False  # the written render's text was never made
    before = reads.text()
    if before is None:
        return True
    substituted = (_substituted(before_item, after_item, changed, reads)
                   if changed is not None else None)
    if substituted is not None:
        return substituted != before
    after = _render(fixed_entry, style, after_item)
    return after is None or after != before
