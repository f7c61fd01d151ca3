"""Validation: the rule catalogue applied to a ``Bibliography``.

Where it sits: after the reader, before styles. ``validate(bibliography, config)`` runs every
family of rules (one module each) and returns their diagnostics, filtered and re-levelled by the
:class:`refbook.config.Config`; hosts and ``refbook check`` report them with the reader's.

Families: ``keys`` (duplicates), ``types`` (entry types and fields), ``dates``, ``identifiers``
(DOI, URL, ISBN, ISSN, arXiv), ``names``, ``titles``, ``values`` (pages, month, volume) and
``citations`` (``refbook.validate.citations``: needs the documents, used by ``refbook check
--docs`` and the hosts).

Cost: the per-entry rules run once per entry content and options (``_MEMO``, optionally kept in
a host's cache folder); entries not yet known are checked on forked workers when there are many
(``refbook.validate.workers``); families the options leave out are not run.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbook.config import Config
from refbook.diagnostics import Code
from refbook.gcpause import paused_gc
from refbook.memo import REWRITE_SHARE, code_stamp, load_memo, save_memo
from refbook.models import Location, entry_digest
from refbook.records import record
from refbook.validate.report import apply_config
from refbook.validate.workers import map_entries

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

    from refbook.diagnostics import Diagnostic
    from refbook.models import Bibliography, Entry
    from refbook.validate import keys, names

__all__ = ["FAMILY_CHECKS", "apply_config", "check_bibliography", "printed_key", "recheck_printed",
           "validate"]

def _each_entry(check_entry: Callable[[Entry, Config], Iterable[Diagnostic]],
                ) -> Callable[[Bibliography, Config], Iterator[Diagnostic]]:
    def check(bibliography: Bibliography, config: Config) -> Iterator[Diagnostic]:
        for entry in bibliography:
            yield from check_entry(entry, config)
    return check


@record(frozen=True)
class _Rules:
    """The rule families, imported on first use: a host build whose rule results all come from
    its cache folder (a warm MkDocs build) runs no rule, so it does not pay for importing them
    (``refbook.latex`` and the families' tables, ~30 ms; counted in
    ``tests/mkdocs/test_lazy_imports.py``)."""

    family_checks: dict[str, Callable[[Bibliography, Config], Iterable[Diagnostic]]]
    per_entry: dict[str, Callable[[Entry, Config], Iterable[Diagnostic]]]
    keys_check: Callable[[Bibliography, Config, dict[str, keys.Signals]], Iterable[Diagnostic]]
    signals: Callable[[Entry], keys.Signals]
    names_check_entry: Callable[[Entry, Config],
                                tuple[Iterable[Diagnostic], tuple[names.Spelling, ...]]]
    names_variants: Callable[[Bibliography, dict[str, tuple[names.Spelling, ...]]],
                             Iterable[Diagnostic]]
    no_signals: keys.Signals


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    from refbook.validate import dates, fields, identifiers, keys, names, titles, values

    return _Rules(
        # each family's rules over a whole bibliography, without the memo (tests compare
        # against it)
        family_checks={
            "keys": keys.check,
            "types": _each_entry(fields.check_entry),
            "dates": _each_entry(dates.check_entry),
            "identifiers": _each_entry(identifiers.check_entry),
            "names": names.check,
            "titles": _each_entry(titles.check_entry),
            "values": _each_entry(values.check_entry),
        },
        # the families whose rules look at one entry at a time (names: all but organisation
        # variants)
        per_entry={
            "types": fields.check_entry, "dates": dates.check_entry,
            "identifiers": identifiers.check_entry, "titles": titles.check_entry,
            "values": values.check_entry},
        keys_check=keys.check, signals=keys.signals, names_check_entry=names.check_entry,
        names_variants=names.variants, no_signals=keys.Signals("", "", "", "", "", ""))


def __getattr__(name: str) -> Any:
    """``FAMILY_CHECKS`` and ``PER_ENTRY``, the rule tables, built on first access."""
    if name == "FAMILY_CHECKS":
        return _rules().family_checks
    if name == "PER_ENTRY":
        return _rules().per_entry
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


@lru_cache(maxsize=64)
def active_families(config: Config) -> frozenset[str]:
    """The families with at least one code the config reports: the others are not run at all
    (``ignore = ["ALL"]`` or ``select = ["citations"]`` make a build pay nothing for rules)."""
    return frozenset(c.family for c in Code if config.enabled(c))


@record(frozen=True)
class _Facts:
    """What validation learned from one entry: its own diagnostics (located where the entry
    was when they were computed) and what the rules across entries need from it."""

    where: Location
    diagnostics: tuple[Diagnostic, ...]
    signals: keys.Signals
    spellings: tuple[names.Spelling, ...]


#: (config token, entry signature, printed) → facts. An edit of a 20,000-entry file (``mkdocs
#: serve``, a Sphinx rebuild) re-checks the entries that changed; the others only move to their
#: new lines. ``printed``: whether the book prints the entry (False: :func:`_unprinted_facts`).
_MEMO: dict[tuple[str, bytes, bool], _Facts] = {}
_MEMO_LIMIT = 200_000


@lru_cache(maxsize=64)
def _config_token(config: Config) -> str:
    """``config`` as the memo's keys hold it: a digest of its fields (strings, tuples of them
    and a boolean, so one ``repr`` in every process). A string hashes and compares in C; the
    ``Config`` record itself was hashed in Python twice per entry and compared once per entry
    read from a memo file (a 20,000-entry look-up: 40,000 ``__hash__`` and 20,000 ``__eq__``
    calls, a third of its time)."""
    return hashlib.blake2b(repr(config).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


#: the memo's key for an entry's content (kept on the entry; in the cache folder's pieces too)
_signature = entry_digest


def _facts(entry: Entry, config: Config) -> _Facts:
    active = active_families(config)
    rules = _rules()
    found: list[Diagnostic] = []
    for family, check in rules.per_entry.items():
        if family in active:
            found.extend(check(entry, config))
    spellings: tuple[names.Spelling, ...] = ()
    if "names" in active:
        own, spellings = rules.names_check_entry(entry, config)
        found.extend(own)
    return _Facts(entry.location, tuple(found),
                  rules.signals(entry) if "keys" in active else rules.no_signals, spellings)


def _unprinted_facts(entry: Entry, config: Config) -> _Facts:
    """:func:`_facts` of an entry the book does not print: the rules about what the style prints
    for it ("the style will change this") find that nothing changes
    (``refbook.validate.output.unprinted_facts``)."""
    from refbook.validate.output import unprinted_facts

    return unprinted_facts(_facts, entry, config)


def _moved(d: Diagnostic, old: Location, new: Location) -> Diagnostic:
    loc = d.location
    if loc is None or loc.file != old.file:
        return d
    return d.at(Location(new.file, loc.line - old.line + new.line))


def _placed(facts: _Facts, entry: Entry) -> _Facts:
    """``facts`` (of an entry with the same content) at ``entry``'s place."""
    where, was = entry.location, facts.where
    # compared field by field: the record's __eq__ is a Python call (20,000 per look-up), and
    # facts from a worker or a memo file are never the entry's own Location object
    if was.line == where.line and was.file == where.file:
        return facts
    return _Facts(entry.location, tuple(
        _moved(d, facts.where, entry.location) for d in facts.diagnostics),
        facts.signals, facts.spellings)


def entry_facts(bibliography: Bibliography, config: Config,
                memo_file: Path | None = None,
                printed: Collection[str] | None = None) -> dict[str, _Facts]:
    """The facts of every entry, from the memo where the entry is unchanged.

    ``memo_file``: a host's cache file; it adds to the memo first and keeps, afterwards, the
    facts of this bibliography's entries (so it never grows with old versions), rewritten
    when more than a few of them are new. ``printed``: the keys of the entries the book prints
    (None: all of them); the others are checked without what the style prints
    (:func:`_unprinted_facts`).
    """
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()
    if memo_file is not None:
        load_memo(_MEMO, memo_file)
    out: dict[str, _Facts] = {}
    token = _config_token(config)
    # (an entry's digest is kept on it: read in line, a call to _signature for the others)
    used = [(token, entry._digest or _signature(entry), printed is None or entry.key in printed)
            for entry in bibliography]
    missing = [(entry, key) for entry, key in zip(bibliography, used, strict=True)
               if key not in _MEMO]
    if missing:
        _rules()  # imported before map_entries forks workers: each would import them again
        from refbook.validate.output import new_pass

        new_pass()  # an edited style file is read again, once (the forks inherit that)
    # printed and unprinted entries in one pass: the few hundred a book cites were checked
    # here (too few for the workers) before the workers checked the 19,000 others
    found = map_entries(_facts_of, missing, config)
    for (_, key), facts in zip(missing, found, strict=True):
        _MEMO[key] = facts
    computed = len(missing)
    # (_placed's test in line here saved ~2 ms of 20,000 look-ups (best of 15; the medians
    # equal): not worth a second copy)
    for entry, key in zip(bibliography, used, strict=True):
        out[entry.key] = _placed(_MEMO[key], entry)
    if memo_file is not None:
        # a few new facts are not worth rewriting the file for (refbook.memo.REWRITE_SHARE):
        # the next process checks those entries again (a .bib edit of 20,000 entries rewrote
        # 20,000 facts, 0.11 s, to keep one)
        save_memo({k: _MEMO[k] for k in used}, memo_file,
                  changed=computed > len(used) // REWRITE_SHARE)
    return out


def _facts_of(job: tuple[Entry, tuple[str, bytes, bool]], config: Config) -> _Facts:
    """The facts of an entry (``job``: the entry and its key in ``_MEMO``)."""
    return (_facts if job[1][2] else _unprinted_facts)(job[0], config)


def validate(bibliography: Bibliography, config: Config | None = None, *,
             memo_dir: str | None = None,
             printed: Collection[str] | None = None) -> list[Diagnostic]:
    """Every rule's diagnostics for ``bibliography``, configured and sorted by file and line.

    The reader's own diagnostics (``bibliography.diagnostics``) are not repeated; pass them
    through :func:`apply_config` to configure them the same way. Per-entry results are memoized
    (by the entry's content and the config), so a re-check after an edit costs little; with
    ``memo_dir`` (a host's cache folder) the memo also survives the process.

    ``printed``: the keys of the entries the book prints (cited or listed; None, the default:
    every entry, as ``refbook check`` has it). The rules that report only what changes the
    style's output (a title's case protection, a page range's dash, a braced month, a
    reference manager's field name) do not report the other entries: the book shows nothing of
    them. A host passes its book's keys, and a shared bibliography of 20,000 entries is not
    rendered 13,000 times to find out what nobody reads (:func:`_unprinted_facts`).
    """
    from refbook import __version__

    config = config or Config()
    memo_file = (Path(memo_dir) / f"validation-{__version__}-{code_stamp()}.pickle"
                 if memo_dir else None)
    # checking 20,000 entries allocates millions of objects and no garbage cycles worth a pass;
    # on the way out, the survivors go straight to the oldest generation (refbook.gcpause): a
    # collector merely re-enabled found them all in its youngest one and scanned them at once
    with paused_gc():
        facts = entry_facts(bibliography, config, memo_file, printed)
        found: list[Diagnostic] = [d for f in facts.values() for d in f.diagnostics]
        active = active_families(config)
        if "keys" in active:
            found.extend(_rules().keys_check(bibliography, config,
                                            {k: f.signals for k, f in facts.items()}))
        if "names" in active:
            found.extend(_rules().names_variants(
                bibliography, {k: f.spellings for k, f in facts.items()}))
        return apply_config(found, config, bibliography)


def printed_key(printed: Collection[str] | None) -> str | None:
    """A short stand-in for the ``printed`` argument of :func:`check_bibliography` in a host's
    cache key (None: every entry)."""
    if printed is None:
        return None
    return hashlib.blake2b("\0".join(sorted(printed)).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def check_bibliography(bibliography: Bibliography, config: Config | None = None, *,
                       memo_dir: str | None = None,
                       printed: Collection[str] | None = None) -> list[Diagnostic]:
    """The reader's diagnostics and every rule's, configured alike and sorted by file and line.

    What ``refbook check`` reports for .bib files; hosts call it once per build (with their
    cache folder as ``memo_dir`` and their book's keys as ``printed``: :func:`validate`).
    """
    config = config or Config()
    found = apply_config(bibliography.diagnostics, config, bibliography)
    found += validate(bibliography, config, memo_dir=memo_dir, printed=printed)
    return sorted(found, key=_in_order)


def _in_order(d: Diagnostic) -> tuple[str, int, str, str, str]:
    """The order of :func:`check_bibliography`'s result: by place and code, then by entry and
    message (one order, however the list was made: :func:`recheck_printed`)."""
    loc = d.location
    return (loc.file if loc else "", loc.line if loc else 0, d.code.slug, d.key, d.message)


#: at most this share of a bibliography's entries changing between printed and not is worth
#: :func:`recheck_printed` (a citation edit changes one or two)
RECHECK_SHARE = 20


def recheck_printed(previous: Sequence[Diagnostic], bibliography: Bibliography,
                    config: Config | None, was: Collection[str] | None,
                    now: Collection[str] | None) -> list[Diagnostic] | None:
    """``check_bibliography(bibliography, config, printed=now)`` made from ``previous``, its
    result for ``printed=was`` on the same files: the per-entry diagnostics of the entries
    whose printing changed are taken out as they were and put in as they are now, checked
    alone (without the memo file: a citation edit on a shared bibliography of 20,000 entries
    read all their facts, 0.3 s, to change two). None when that is not worth it (many entries
    changed, every entry printed on one side, keys defined twice) or ``previous`` does not
    hold what it should: then :func:`check_bibliography`.
    """
    if was is None or now is None:
        return None
    config = config or Config()
    flipped = {k for k in set(was) ^ set(now) if k in bibliography}
    if len(flipped) > max(len(bibliography) // RECHECK_SHARE, 4):
        return None
    keys = bibliography.keys()
    if len(set(keys)) != len(keys):  # entry_facts keeps one entry's facts per key
        return None
    entries = [bibliography[k] for k in sorted(flipped)]
    if not entries:
        return list(previous)
    if len(_MEMO) > _MEMO_LIMIT:
        _MEMO.clear()

    token = _config_token(config)

    def diagnostics(printed: Collection[str]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for entry in entries:
            printing = entry.key in printed
            key = (token, _signature(entry), printing)
            facts = _MEMO.get(key)
            if facts is None:
                facts = _MEMO[key] = (_facts if printing else _unprinted_facts)(entry, config)
            out.extend(_placed(facts, entry).diagnostics)
        return apply_config(out, config, bibliography)

    _rules()
    from refbook.validate.output import new_pass

    new_pass()  # an edited style file is read again
    with paused_gc():
        before, after = diagnostics(was), diagnostics(now)
    taken = Counter(before)
    out: list[Diagnostic] = []
    for d in previous:
        if taken.get(d, 0) > 0:
            taken[d] -= 1
        else:
            out.append(d)
    if any(taken.values()):
        return None  # not the result of `was` on these files
    out += after
    return sorted(out, key=_in_order)
