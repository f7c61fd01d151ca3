"""Citation texts as sphinxcontrib-bibtex's referencing styles write them, over pybtex labels.

Where it sits: beside ``refbook.styles.pybtex_bridge`` (which labels and formats the list's
entries). The Sphinx adapter's compatibility mode asks :func:`format_citation` for the text of
each ``:cite:<role>:`` (and ``:footcite:t:``'s author part) under the referencing style named
by ``bibtex_reference_style``: ``label`` ([Knu84], Knuth [Knu84]), ``author_year``
([Knuth, 1984], Knuth [1984]), ``super`` (superscript labels) or ``foot`` (footnotes). These are
refbook's own descriptions of those styles — brackets, separators, the "last" name style with
"et al." after the first of three or more names — so they need neither Sphinx nor
sphinxcontrib-bibtex; a referencing style registered as a plugin by another package is run by
the adapter instead. Each cited key's reference is a ``cite-item`` span (the host links it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pybtex.errors
from pybtex.richtext import Text as RichText
from pybtex.style.names import name_part
from pybtex.style.template import join as pybtex_join

from refbook.ir import Span, Styled, Text
from refbook.records import field, record
from refbook.styles.pybtex_bridge import to_inlines, to_pybtex

if TYPE_CHECKING:
    from collections.abc import Sequence

    from refbook.ir import Inline, Inlines
    from refbook.models import Entry

__all__ = ["BUILTIN", "Bracket", "Ref", "ReferenceStyle", "format_citation", "role_names"]


@record(frozen=True)
class Bracket:
    """Brackets around a citation and the separators between its references."""

    left: str = "["
    right: str = "]"
    sep: str = ", "
    sep2: str | None = None
    last_sep: str | None = None


_PLAIN = Bracket()
_BARE_TEXTUAL = Bracket("", "", ", ")
_BARE_PAREN = Bracket("", "", ",")


@record(frozen=True)
class ReferenceStyle:
    """One referencing style: what ``p`` shows (``label``, ``author_year``, ``super`` or
    ``foot``), its brackets and separators."""

    name: str
    kind: str
    textual: Bracket = _PLAIN
    parenthetical: Bracket = _PLAIN
    author: Bracket = _PLAIN
    label: Bracket = _PLAIN
    year: Bracket = _PLAIN
    author_year_sep: str = ", "
    text_reference_sep: str = " "
    pre_text_sep: str = " "
    post_text_sep: str = ", "
    #: between persons: sep, for two, before the last; "et al." after the first of three or more
    person_sep: tuple[str, str, str] = (", ", " and ", ", and ")
    roles: tuple[str, ...] = field(default=())


_CITE_ROLES = ("p", "ps", "alp", "alps", "t", "ts", "ct", "cts", "author", "authors",
               "cauthor", "cauthors", "authorpar", "authorpars", "label", "labelpar",
               "year", "yearpar", "empty")
_FOOT_ROLES = ("p", "ps", "t", "ts", "ct", "cts")

#: sphinxcontrib-bibtex 2.7's built-in referencing styles (its entry points of the same names)
BUILTIN: dict[str, ReferenceStyle] = {
    "label": ReferenceStyle("label", "label", roles=_CITE_ROLES),
    "author_year": ReferenceStyle("author_year", "author_year", roles=_CITE_ROLES),
    "super": ReferenceStyle("super", "super", textual=_BARE_TEXTUAL,
                            parenthetical=_BARE_PAREN, text_reference_sep="",
                            roles=_CITE_ROLES),
    "foot": ReferenceStyle("foot", "foot", text_reference_sep="", roles=_FOOT_ROLES),
}


def role_names(style: ReferenceStyle) -> tuple[str, ...]:
    return style.roles


@record(frozen=True)
class Ref:
    """One cited key: its entry (None: no entry has the key), the label of the list it links
    to, and the texts written before and after it (``{see}key{p. 3}``)."""

    key: str
    entry: Entry | None
    label: str = ""
    pre: str = ""
    post: str = ""


def format_citation(style: ReferenceStyle, role: str, refs: Sequence[Ref]) -> Inlines:
    """The text of ``:cite:<role>:`` (``foot`` style: the author part of ``:footcite:t:``,
    whose footnote marks the host adds) over ``refs``."""
    if role == "empty" or role not in style.roles:
        return ()
    full = role in ("ps", "alps", "ts", "cts", "authors", "cauthors", "authorpars")
    capfirst = role.startswith("c")
    kind = style.kind
    children: list[Inlines] = []
    for ref in refs:
        children.append(_inner(style, role, ref, full=full))
    if role in ("p", "ps", "alp", "alps"):
        if kind == "foot":
            return ()
        brackets = not role.startswith("al")
        out = _outer(style.parenthetical, children, brackets=brackets)
        if kind == "super" and brackets:
            return (Styled("sup", out),) if out else ()
        return out
    if role in ("t", "ts", "ct", "cts"):
        return _outer(style.textual, children, brackets=False, capfirst=capfirst)
    if "author" in role:
        return _outer(style.author, children, brackets="par" in role, capfirst=capfirst)
    if role.startswith("label"):
        return _outer(style.label, children, brackets="par" in role)
    return _outer(style.year, children, brackets="par" in role)


def _inner(style: ReferenceStyle, role: str, ref: Ref, *, full: bool) -> Inlines:
    kind = style.kind
    if role in ("p", "ps", "alp", "alps"):
        if kind == "author_year":
            body = _join(style.author_year_sep, [author_part(style, ref, full=full),
                                                 year_part(ref)])
        else:
            body = _label(ref)
        return _join2(style, ref, _reference(ref, body))
    if role in ("t", "ts", "ct", "cts"):
        author = author_part(style, ref, full=full)
        if kind == "foot":
            return author
        target = year_part(ref) if kind == "author_year" else _label(ref)
        bracket = style.textual
        marked = _join("", [_text(bracket.left), _join2(style, ref, _reference(ref, target)),
                            _text(bracket.right)])
        if kind == "super":
            marked = (Styled("sup", marked),) if marked else ()
        return _join(style.text_reference_sep, [author, marked])
    if "author" in role:
        return _reference(ref, author_part(style, ref, full=full))
    if role.startswith("label"):
        return _reference(ref, _label(ref))
    return _reference(ref, year_part(ref))


def _outer(bracket: Bracket, children: list[Inlines], *, brackets: bool,
           capfirst: bool = False) -> Inlines:
    body = _join(bracket.sep, children, bracket.sep2, bracket.last_sep)
    if capfirst:
        body = _capfirst(body)
    if not brackets:
        return body
    return _join("", [_text(bracket.left), body, _text(bracket.right)])


def _join2(style: ReferenceStyle, ref: Ref, reference: Inlines) -> Inlines:
    """pre-text, the reference, post-text: each separator only between non-empty parts."""
    return _join(style.pre_text_sep, [_text(ref.pre),
                                      _join(style.post_text_sep, [reference, _text(ref.post)])])


def _reference(ref: Ref, body: Inlines) -> Inlines:
    if ref.entry is None:  # refbook's marker of a key no entry has (reported at its line)
        body = (Styled("strong", (Text(f"{ref.key}?"),)),)
    return (Span("cite-item", body, ref.key),) if body else ()


def _label(ref: Ref) -> Inlines:
    return _text(ref.label)


def _text(value: str) -> Inlines:
    return (Text(value),) if value else ()


def _join(sep: str, parts: Sequence[Inlines], sep2: str | None = None,
          last_sep: str | None = None, other: Inlines | None = None) -> Inlines:
    """Non-empty parts joined: ``sep2`` between two, ``last_sep`` before the last of three or
    more — or, given ``other``, the first part and ``other`` ("et al.")."""
    kept = [p for p in parts if p]
    if len(kept) <= 1:
        return kept[0] if kept else ()
    if len(kept) == 2:
        return (*kept[0], *_text(sep if sep2 is None else sep2), *kept[1])
    if other is not None:
        return (*kept[0], *other)
    out: list[Inline] = list(kept[0])
    for i, p in enumerate(kept[1:], start=1):
        out.extend(_text(sep if i < len(kept) - 1 or last_sep is None else last_sep))
        out.extend(p)
    return tuple(out)


def _capfirst(parts: Inlines) -> Inlines:
    if not parts:
        return parts
    first = parts[0]
    if isinstance(first, Text):
        return (Text(first.text[:1].upper() + first.text[1:]), *parts[1:])
    if isinstance(first, Styled):
        return (Styled(first.kind, _capfirst(first.children)), *parts[1:])
    if isinstance(first, Span):
        return (Span(first.role, _capfirst(first.children), first.key), *parts[1:])
    return parts


_ET_AL: Inlines = (Text(" "), Styled("emph", (Text("et al."),)))


def author_part(style: ReferenceStyle, ref: Ref, *, full: bool) -> Inlines:
    """The authors' last names ("von" part included), else the editors', else the title in
    italics; "et al." after the first of three or more unless ``full``."""
    if ref.entry is None:
        return (Text(ref.key),)
    pentry = to_pybtex(ref.entry)
    sep, sep2, last_sep = style.person_sep
    for role in ("author", "editor"):
        persons = pentry.persons.get(role)
        if persons:
            names = [_last_names(p) for p in persons]
            return _join(sep, names, sep2, last_sep, None if full else _ET_AL)
    title = pentry.fields.get("title")
    if title is None:
        return (Text(ref.key),)
    return (Styled("emph", _latex(title)),)


def _last_names(person: Any) -> Inlines:
    try:
        with pybtex.errors.capture():
            rich = pybtex_join[name_part(tie=True)[person.rich_prelast_names],
                               name_part[person.rich_last_names]].format()
    except Exception:  # odd LaTeX in a name: its words as written
        return (Text(" ".join(person.last_names)),)
    return to_inlines(rich)


def year_part(ref: Ref) -> Inlines:
    if ref.entry is None:
        return ()
    year = to_pybtex(ref.entry).fields.get("year")
    return _latex(year) if year else (Text("n.d."),)


def _latex(value: str) -> Inlines:
    try:
        with pybtex.errors.capture():
            return to_inlines(RichText.from_latex(value))
    except Exception:  # LaTeX pybtex cannot parse: the value as written
        return (Text(value),)
