"""The neutral inline tree (IR) that styles produce and renderers consume.

Field values decoded from LaTeX (``refbook.latex``) use the same nodes, so markup written in a
``.bib`` file (``\\emph``, ``{Case Protected}``) flows unchanged into the rendered output. Text is
never pre-escaped: each renderer escapes for its own format.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from refbook.records import record

StyleKind: TypeAlias = Literal[
    "emph", "strong", "smallcaps", "sup", "sub", "code", "nocase", "quoted", "underline"
]


@record(frozen=True)
class Text:
    text: str


@record(frozen=True)
class Styled:
    """Formatting around children. ``nocase`` protects from case changes and renders as nothing;
    ``quoted`` renders with typographic quotes (kept as a node so punctuation can move inside)."""

    kind: StyleKind
    children: tuple[Inline, ...]


@record(frozen=True)
class Link:
    """A hyperlink. Renderers emit it only for http(s) URLs; anything else renders as text."""

    url: str
    children: tuple[Inline, ...]


@record(frozen=True)
class Span:
    """A semantic wrapper: ``role`` says what it holds (``entry``, ``citation``, ``unresolved``,
    ``title`` …); ``key`` is the entry key it belongs to, if any (for ``math``: the TeX source
    with its dollars, the children being its text as pandoc shows it). Renderers may turn it into an
    element with a class/anchor or drop it."""

    role: str
    children: tuple[Inline, ...]
    key: str = ""


Inline: TypeAlias = Text | Styled | Link | Span
Inlines: TypeAlias = tuple[Inline, ...]

def raised_original(children: Inlines) -> str | None:
    """The superscript characters written in the source (``º``, ``ᴳ``) that a ``sup`` of
    ``children`` was raised from (``refbook.styles.csl.output.raise_superscripts``: each a
    ``Span("raised")`` keyed by its character), or ``None`` for any other ``sup``. Plain text
    and Markdown write the characters themselves (pandoc keeps them: ``2º ed.``), HTML the
    raised letters in ``<sup>``, as the CSL test suite has it."""
    if children and all(isinstance(c, Span) and c.role == "raised" for c in children):
        return "".join(c.key for c in children)  # type: ignore[union-attr]
    return None


#: a variable that is there but prints nothing: a .bib value of raw TeX alone (an ADS export's
#: ``journal = {\\aap}``), which pandoc keeps as an invisible raw inline; styles test it as
#: present and print the groups around it
INVISIBLE: Inlines = (Text(""),)


def margin_gap(label: Inlines) -> str:
    """What renderers write after a CSL left-margin label (``[1]``): one space, none when the
    label's own suffix ends with one (iso690-numeric-fr's ``1. ``; pandoc prints one)."""
    return "" if plain(label)[-1:].isspace() else " "


def plain(nodes: Inlines) -> str:
    """The text of a tree without any markup (quotes included as typographic quotes)."""
    out: list[str] = []
    _plain(nodes, out)
    return "".join(out)


def _plain(nodes: Inlines, out: list[str]) -> None:
    for n in nodes:
        if isinstance(n, Text):
            out.append(n.text)
        elif isinstance(n, Styled) and n.kind == "quoted":
            out.append("\u201c")
            _plain(n.children, out)
            out.append("\u201d")
        else:
            _plain(n.children, out)
