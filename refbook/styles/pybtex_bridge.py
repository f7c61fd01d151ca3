"""pybtex's styles run by pybtex itself, over refbook's parsed entries.

Where it sits: a core style engine beside ``refbook.styles.csl``, for hosts that reproduce what
pybtex-based tools show — sphinxcontrib-bibtex's lists and labels in the Sphinx adapter's
compatibility mode, mkdocs-bibtex's default ("plain") entry text. refbook's reader, validation
and diagnostics stay refbook's: each refbook ``Entry`` becomes a pybtex entry (fields as LaTeX
source, ``author``/``editor`` split into persons as pybtex's parser splits them), and pybtex's
formatting style — a built-in one (plain, unsrt, alpha, unsrtalpha) or any plugin of the
``pybtex.style.formatting`` entry-point group, which may use plugins of ``pybtex.style.labels``,
``pybtex.style.names`` and ``pybtex.style.sorting`` — sorts, labels and formats them. Its rich
text becomes refbook's IR (``refbook.ir``), never markup, so each host escapes it as usual.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import pybtex.errors
import pybtex.plugin
from pybtex.database import Entry as PybtexEntry
from pybtex.database import Person
from pybtex.database.input.bibtex import split_name_list
from pybtex.richtext import BaseMultipartText, HRef, Protected, String, Symbol, Tag
from pybtex.style.template import FieldIsMissing

from refbook.ir import Link, Span, Styled, Text
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from refbook.ir import Inline, Inlines, StyleKind
    from refbook.models import Entry

__all__ = ["FORMATTING", "FormattedItem", "PybtexStyleError", "format_entries", "format_entry",
           "plugin_names", "style_exists", "to_inlines", "to_plain", "to_pybtex"]

FORMATTING = "pybtex.style.formatting"

#: pybtex's tag names → IR styles (the tags pybtex-docutils renders as nodes; others are dropped
#: with their text kept, as there)
_TAGS: dict[str, StyleKind] = {"em": "emph", "emph": "emph", "i": "emph", "strong": "strong",
                               "b": "strong", "tt": "code", "sup": "sup", "sub": "sub"}

#: pybtex's symbols as the docutils backend writes them
_SYMBOLS = {"ndash": "\u2013", "newblock": " ", "nbsp": "\u00a0"}

#: the plain-text backend's (tooltips are plain text)
_PLAIN_SYMBOLS = {"ndash": "-", "newblock": " ", "nbsp": " "}

#: pybtex's parser turns these fields into persons
_PERSON_FIELDS = ("author", "editor")


class PybtexStyleError(LookupError):
    """A style name that no installed pybtex plugin provides."""


@record(frozen=True)
class FormattedItem:
    """One entry as a pybtex style formats it: ``label`` is the style's label (with the list's
    prefix), ``text`` the entry without its label, ``plain`` the same as plain text.
    ``missing`` is pybtex's message when the style could not format the entry (a field the
    style requires is missing): ``text`` then shows that message in bold, as
    sphinxcontrib-bibtex does."""

    key: str
    label: str
    text: Inlines
    plain: str
    missing: str = ""


def plugin_names(group: str = FORMATTING) -> tuple[str, ...]:
    """The installed plugins of a pybtex group (entry points and runtime registrations)."""
    return tuple(sorted(set(pybtex.plugin.enumerate_plugin_names(group))))


def style_exists(name: str, group: str = FORMATTING) -> bool:
    try:
        pybtex.plugin.find_plugin(group, name)
    except pybtex.plugin.PluginNotFound:
        return False
    return True


def _style(name: str) -> Any:
    """A fresh instance of the formatting style ``name`` (a plugin registered at run time in
    ``conf.py`` is found too; instances are cheap)."""
    try:
        cls = pybtex.plugin.find_plugin(FORMATTING, name)
    except pybtex.plugin.PluginNotFound as err:
        msg = (f"{name!r} is not an installed pybtex style; choose one of: "
               f"{', '.join(plugin_names())}")
        raise PybtexStyleError(msg) from err
    return cls()


@lru_cache(maxsize=65536)
def to_pybtex(entry: Entry) -> PybtexEntry:
    """The pybtex entry of a refbook entry: every field as its LaTeX source, ``author`` and
    ``editor`` as persons (split on ``and`` as pybtex's parser splits them)."""
    fields: list[tuple[str, str]] = []
    persons: dict[str, list[Person]] = {}
    with pybtex.errors.capture():  # a name pybtex finds odd is refbook's diagnostic, not an error
        for f in entry.fields:
            if f.name in _PERSON_FIELDS:
                persons.setdefault(f.name, []).extend(
                    _person(name) for name in split_name_list(f.value))
            elif f.name not in {n for n, _ in fields}:
                fields.append((f.name, f.value))
        out = PybtexEntry(entry.type, fields=fields, persons=persons)
    out.key = entry.key
    return out


def _person(name: str) -> Person:
    """pybtex's person; a name it cannot split (unbalanced braces) is one last name."""
    try:
        return Person(name)
    except Exception:  # refbook's bad-name diagnostic reports it
        return Person(last=name)


def format_entries(entries: Sequence[Entry], style: str, *,
                   labelprefix: str = "") -> tuple[FormattedItem, ...]:
    """A reference list: ``entries`` (in citation order, then file order) sorted by the style,
    labelled by it (labels are unique within the list, as the style's label plugin makes them),
    and formatted. Raises :class:`PybtexStyleError` for an unknown style."""
    fmt = _style(style)
    by_key = {e.key: e for e in entries}
    converted = [to_pybtex(by_key[k]) for k in by_key]
    try:
        with pybtex.errors.capture():
            ordered = list(fmt.sort(converted))
            labels = list(fmt.format_labels(ordered))
    except Exception:  # a plugin's sorting or labels failed: keep the order
        ordered, labels = converted, [str(n) for n in range(1, len(converted) + 1)]
    return tuple(_format(fmt, labelprefix + label, e, by_key[e.key])
                 for label, e in zip(labels, ordered, strict=True))


def format_entry(entry: Entry, style: str, label: str = "") -> FormattedItem:
    """One entry formatted alone (a footnote, a hover text)."""
    return _format(_style(style), label, to_pybtex(entry), entry)


def _format(fmt: Any, label: str, pentry: PybtexEntry, entry: Entry) -> FormattedItem:
    try:
        with pybtex.errors.capture():
            rich = _rich(fmt, label, pentry)
    except FieldIsMissing as err:
        return _failed(entry, label, str(err))
    except Exception as err:  # a style plugin's bug never stops the build
        return _failed(entry, label, f"{type(fmt).__name__} cannot format {entry.key}: {err}")
    return FormattedItem(entry.key, label, to_inlines(rich), to_plain(rich))


def _rich(fmt: Any, label: str, pentry: PybtexEntry) -> Any:
    """The entry's rich text; a type the style has no template for (``@online``, ``@report``
    in BibTeX's styles, where pybtex raises AttributeError) is formatted as ``@misc``."""
    if not (hasattr(fmt, f"get_{pentry.type}_template") or hasattr(fmt, f"format_{pentry.type}")):
        misc = PybtexEntry("misc", fields=pentry.fields, persons=pentry.persons)
        misc.key = pentry.key
        pentry = misc
    return fmt.format_entry(label, pentry).text


def _failed(entry: Entry, label: str, message: str) -> FormattedItem:
    return FormattedItem(entry.key, label, (Styled("strong", (Text(message),)),), message,
                         message)


def to_inlines(rich: Any, on_other: Any = None) -> Inlines:
    """pybtex rich text → IR. ``\\url`` followed by text becomes a link, as
    sphinxcontrib-bibtex turns it into one. ``on_other(part, children)`` may give an
    :class:`~refbook.ir.Inline` for a rich-text class this module does not know (a citation
    reference of a sphinxcontrib-bibtex referencing style); by default its children are kept."""
    out: list[Inline] = []
    _walk(rich, out, on_other)
    return _urls(_merged(out))


def _walk(part: Any, out: list[Inline], on_other: Any) -> None:
    if isinstance(part, String):
        if part.value:
            out.append(Text(part.value))
        return
    if isinstance(part, str):
        if part:
            out.append(Text(part))
        return
    if isinstance(part, Symbol):
        out.append(Text(_SYMBOLS.get(part.name, "")))
        return
    children: list[Inline] = []
    for child in getattr(part, "parts", ()):
        last = children[-1] if children else None
        if (isinstance(child, Protected) and isinstance(last, Text)
                and last.text.endswith("\\url ")):
            # ``\url{…}`` in a field: pybtex keeps the command as text before the braced
            # address; sphinxcontrib-bibtex links the address
            address: list[Inline] = []
            _walk(child, address, on_other)
            children[-1:] = [Text(last.text[:-5])] if last.text[:-5] else []
            children.append(Link("".join(a.text for a in address if isinstance(a, Text)),
                                 _merged(address)))
            continue
        _walk(child, children, on_other)
    inner = _merged(children)
    if isinstance(part, Tag):
        kind = _TAGS.get(part.name)
        out.extend([Styled(kind, inner)] if kind is not None else inner)
    elif isinstance(part, HRef):
        out.append(Link(part.url, inner))
    elif isinstance(part, Protected) or type(part).__module__.startswith("pybtex."):
        out.extend(inner)
    elif isinstance(part, BaseMultipartText) and on_other is not None:
        out.append(on_other(part, inner))
    else:
        out.extend(inner)


def _merged(parts: Iterable[Inline]) -> Inlines:
    out: list[Inline] = []
    for p in parts:
        if isinstance(p, Text) and out and isinstance(out[-1], Text):
            out[-1] = Text(out[-1].text + p.text)
        else:
            out.append(p)
    return tuple(out)


def _urls(parts: Inlines) -> Inlines:
    """``…\\url `` then the address (a field written ``\\url{…}``): a link to it."""
    out: list[Inline] = []
    i = 0
    while i < len(parts):
        p = parts[i]
        nxt = parts[i + 1] if i + 1 < len(parts) else None
        if isinstance(p, Text) and p.text.endswith("\\url ") and isinstance(nxt, Text):
            if p.text[:-5]:
                out.append(Text(p.text[:-5]))
            out.append(Link(nxt.text, (nxt,)))
            i += 2
            continue
        if isinstance(p, Styled):
            out.append(Styled(p.kind, _urls(p.children)))
        elif isinstance(p, Span):
            out.append(Span(p.role, _urls(p.children), p.key))
        else:
            out.append(p)
        i += 1
    return tuple(out)


def to_plain(rich: Any) -> str:
    """The plain text of pybtex rich text, as sphinxcontrib-bibtex's hover texts show it."""
    out: list[str] = []

    def walk(part: Any) -> None:
        if isinstance(part, String):
            out.append(part.value)
        elif isinstance(part, str):
            out.append(part)
        elif isinstance(part, Symbol):
            out.append(_PLAIN_SYMBOLS.get(part.name, ""))
        else:
            for child in getattr(part, "parts", ()):
                walk(child)

    walk(rich)
    return "".join(out).replace("\\url ", "")
