"""A big ``.bib`` file parsed on several cores.

Where it sits: under ``refbook.readers``, on the first parse of a file (no whole-file cache, no
pieces of a last version to assemble from: a cold build, ``refbook check``). Parsing is pure
Python, ~50 µs an entry: a shared bibliography of 20,000 entries (12 MB) took about a second of
one core while the other waited. :func:`parse_split` cuts the text at lines that start an
entry into one part per core, forks a process per part but the first, parses the first part
here meanwhile, and puts the parts' entries together, each part's lines moved to where the part
starts. A child sends its entries back as the cache folder stores them (plain tuples, built
into entries when read: ``refbook.models.packed_entry``).

The result must be the whole text's parse, entry for entry and line for line. A parser reads
an entry from its ``@`` on with nothing carried over from the text before it but the
``@string`` macros, the keys already defined (a duplicate is dropped, with a diagnostic) and
the line count; so the text is cut only when it holds no ``@string``, ``@preamble`` or
``@comment`` (whose braces may span entry lines), and the parts are given up, the whole text
parsed here instead, when any part has a diagnostic (a cut inside a value leaves the part
before it unclosed, which is one) or a key is defined in two parts. ``tests/core/
test_split_parse.py`` compares both ways on every file of the shared test data, cut at every
line that starts an entry.

Forking follows ``refbook.forking`` (as ``refbook.validate.workers`` does): Linux only, no other thread running (``mkdocs
serve`` parses in its own way: from pieces, after the first build), more than one core
(``REFBOOK_JOBS=1``: none), and a file of at least :data:`MIN_CHARS` characters.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import re
from typing import TYPE_CHECKING

from refbook.forking import can_fork, worker_count
from refbook.gcpause import paused_gc
from refbook.models import packed_entry
from refbook.readers.chunks import _ENTRY_START as _ENTRY_LINE  # cut where pieces are cut
from refbook.readers.result import ParseResult

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["MIN_CHARS", "parse_split"]

#: below this many characters (~1,700 entries) forking costs about what it saves
MIN_CHARS = 1_000_000
#: what makes a part read differently alone: macros, preambles, comments spanning entries
_ORDER_BOUND = re.compile(r"@\s*(?:string|preamble|comment)", re.IGNORECASE)

#: an entry as a child sends it: key, type, line, ((field, value, line), ...)
_Sent = tuple[str, str, int, tuple[tuple[str, str, int], ...]]


#: the first part's share over an even one: a child also forks, touches copied pages, packs and
#: sends its entries (~25 % more time for the same text), the parent only reads them back
FIRST_SHARE = 1.16


def cuts(text: str, parts: int) -> list[int]:
    """Where the parts after the first start: at the first entry line from each of their
    shares of the text on (fewer when entry lines are scarce). The first part, parsed here,
    is :data:`FIRST_SHARE` times an even share, the others even."""
    first = min(FIRST_SHARE / parts, 0.9)
    found: list[int] = []
    for i in range(1, parts):
        at = int(len(text) * (first + (1 - first) * (i - 1) / (parts - 1)))
        m = _ENTRY_LINE.search(text, max(at, found[-1] + 1 if found else 1))
        if m is None:
            break
        found.append(m.start())
    return found


def parse_split(text: str, file: str, macros: Mapping[str, str],
                parse: Callable[..., ParseResult], *, parts: int | None = None,
                min_chars: int = MIN_CHARS, starts: Sequence[int] | None = None,
                ) -> ParseResult | None:
    """The parse of ``text`` (normalized: ``\\n`` line ends, no byte-order mark) made in
    ``parts`` processes (default: one per core), or ``None`` when it is not made so (see the
    module docstring): the caller parses the whole text. ``starts``: where the parts after
    the first start (default: :func:`cuts`; tests cut at other lines)."""
    wanted = parts if parts is not None else min(worker_count(), 8)
    if (wanted < 2 or len(text) < min_chars or "\r" in text or text.startswith("\ufeff")
            or not can_fork() or _ORDER_BOUND.search(text)):
        return None  # (a text not normalized counts its lines otherwise)
    starts = list(starts) if starts is not None else cuts(text, wanted)
    if not starts:
        return None
    bounds = list(zip(starts, [*starts[1:], len(text)], strict=True))
    children: list[tuple[int, int]] = []
    try:
        for start, end in bounds:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child: measured by its result
                os.close(read)
                _child(text[start:end], file, macros, parse, write)
            os.close(write)
            children.append((pid, read))
        first = parse(text[:starts[0]], file, macros=macros)
        sent = [_collect(pid, read) for pid, read in children]
    finally:
        for pid, read in children:
            _reap(pid, read)
    if first.diagnostics or first.strings or first.preambles or any(s is None for s in sent):
        return None
    entries = list(first.entries)
    seen = {e.key for e in entries}
    with paused_gc():  # hundreds of thousands of tuples, none of them cyclic
        for (start, _end), part in zip(bounds, sent, strict=True):
            assert part is not None
            shift = text.count("\n", 0, start)
            for key, type_, line, triples in part:
                if key in seen:
                    return None  # a duplicate across parts: the whole parse reports it
                seen.add(key)
                entries.append(packed_entry(file, key, type_, line, triples, shift))
    return ParseResult(tuple(entries), (), (), ())


def _child(text: str, file: str, macros: Mapping[str, str], parse: Callable[..., ParseResult],
           write: int) -> None:  # pragma: no cover - runs in the forked child
    """Parse one part and send its entries (or ``None``: it has diagnostics, macros or
    preambles) through ``write``; never returns (``os._exit``: no cleanup of the parent's
    state, no buffers of the parent flushed twice)."""
    gc.disable()  # a short life: a collection would scan (and copy) the inherited heap
    code = 1
    try:
        result = parse(text, file, macros=macros)
        payload: list[_Sent] | None = None
        if not (result.diagnostics or result.strings or result.preambles):
            payload = [(e.key, e.type, e.location.line,
                        tuple((f.name, f.value, f.location.line) for f in e.fields))
                       for e in result.entries]
        with os.fdopen(write, "wb") as out:
            # marshal: plain tuples of strings and numbers, read by this very interpreter
            # (several times faster than pickle both ways)
            out.write(marshal.dumps(payload))
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int, read: int) -> list[_Sent] | None:
    """What the child sent (``None`` if it sent nothing usable or failed)."""
    with os.fdopen(read, "rb", closefd=False) as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not data:
        return None
    with paused_gc():
        found = marshal.loads(data)  # noqa: S302 - our own fork's output, through a pipe
    return found if isinstance(found, list) else None


def _reap(pid: int, read: int) -> None:
    """Close the pipe and wait for the child if :func:`_collect` did not (an exception in the
    parent's own part)."""
    with contextlib.suppress(OSError):
        os.close(read)
    with contextlib.suppress(ChildProcessError):  # already waited for
        os.waitpid(pid, 0)
