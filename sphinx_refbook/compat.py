"""sphinxcontrib-bibtex's look: its options, and its referencing styles registered as plugins.

Where it sits: configuration and resolution time. A project written for sphinxcontrib-bibtex
(it sets ``bibtex_*`` options) and that has not chosen a refbook style keeps what its readers
saw: lists formatted and labelled by pybtex's styles (``refbook.styles.pybtex_bridge``),
citation texts by sphinxcontrib-bibtex's referencing styles (``refbook.styles.pybtex_refs``
for the built-in ``label``, ``author_year``, ``super`` and ``foot``; a style another package
registers in the ``sphinxcontrib.bibtex.style.referencing`` entry-point group, or in
sphinxcontrib-bibtex's run-time store from ``conf.py``, is run here through
sphinxcontrib-bibtex's own template functions, which such a style is written against).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from refbook.diagnostics import Code
from refbook.ir import Span, Text
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sphinx.config import Config

    from refbook.diagnostics import Diagnostic
    from refbook.ir import Inline, Inlines
    from refbook.styles.pybtex_refs import Ref, ReferenceStyle

#: sphinxcontrib-bibtex 2.7's options besides bibtex_bibfiles/bibtex_encoding, with its defaults
COMPAT_OPTIONS: dict[str, object] = {
    "bibtex_default_style": "alpha",
    "bibtex_reference_style": "label",
    "bibtex_foot_reference_style": "foot",
    "bibtex_tooltips": True,
    "bibtex_tooltips_style": "",
    "bibtex_bibliography_header": "",
    "bibtex_footbibliography_header": "",
    "bibtex_cite_id": "",
    "bibtex_footcite_id": "",
    "bibtex_bibliography_id": "",
    "bibtex_footbibliography_id": "",
}

REFERENCING = "sphinxcontrib.bibtex.style.referencing"


@record(frozen=True)
class Compat:
    """The values of sphinxcontrib-bibtex's options (see :data:`COMPAT_OPTIONS`)."""

    default_style: str = "alpha"
    reference_style: str = "label"
    foot_reference_style: str = "foot"
    tooltips: bool = True
    tooltips_style: str = ""
    bibliography_header: str = ""
    footbibliography_header: str = ""
    cite_id: str = ""
    footcite_id: str = ""
    bibliography_id: str = ""
    footbibliography_id: str = ""


def compat_settings(config: Config) -> Compat:
    values: dict[str, Any] = {}
    for name, default in COMPAT_OPTIONS.items():
        value = getattr(config, name, default)
        values[name.removeprefix("bibtex_")] = value if isinstance(value, type(default)) \
            else default
    return Compat(**values)


def compat_problems(config: Config, *, compat: bool) -> list[tuple[str, str]]:
    """(option, message) for each sphinxcontrib-bibtex option refbook cannot use."""
    found: list[tuple[str, str]] = []
    for name, default in COMPAT_OPTIONS.items():
        value = getattr(config, name, default)
        if not isinstance(value, type(default)):
            found.append((name, (f"{name} must be a {type(default).__name__}, not "
                                f"{type(value).__name__} ({value!r})")))
    if not compat:
        return found
    # pybtex is imported only when sphinxcontrib-bibtex's look is on (tests/sphinx/test_lazy_imports.py)
    from refbook.styles.pybtex_bridge import plugin_names, style_exists
    from refbook.styles.pybtex_refs import BUILTIN, ReferenceStyle

    s = compat_settings(config)
    for name, style in (("bibtex_default_style", s.default_style),
                        ("bibtex_tooltips_style", s.tooltips_style)):
        if style and not style_exists(style):
            found.append((name, (f"{name} = {style!r} is not an installed pybtex style; choose "
                                f"one of: {', '.join(plugin_names())} (or install the package "
                                "that provides it)")))
    if referencing_style(s.reference_style) is None:
        found.append(("bibtex_reference_style", (
            f"bibtex_reference_style = {s.reference_style!r} is not a referencing style; "
            f"choose one of: {', '.join(referencing_names())} (or install or register the "
            "plugin that provides it)")))
    foot = s.foot_reference_style
    if foot != "foot" and (foot in BUILTIN or isinstance(referencing_style(foot),
                                                           ReferenceStyle | None)):
        plugins = [n for n in referencing_names() if n not in BUILTIN]
        found.append(("bibtex_foot_reference_style", (
            f"bibtex_foot_reference_style = {foot!r} is not a footnote referencing style; "
            "use 'foot' (the default) or a plugin registered in the "
            f"{REFERENCING} entry-point group (installed: {', '.join(plugins) or 'none'}), "
            "or set refbook_style for refbook's footnotes")))
    for name, template, fields in (("bibtex_cite_id", s.cite_id, ("bibliography_count", "key")),
                                   ("bibtex_footcite_id", s.footcite_id,
                                    ("footbibliography_count", "key")),
                                   ("bibtex_bibliography_id", s.bibliography_id,
                                    ("bibliography_count",)),
                                   ("bibtex_footbibliography_id", s.footbibliography_id,
                                    ("footbibliography_count",))):
        try:
            template.format(**dict.fromkeys(fields, "x"))
        except (KeyError, IndexError, ValueError, AttributeError) as err:
            found.append((name, (f"{name} = {template!r} is not a usable id template ({err!r}); "
                                f"it may use {', '.join('{' + f + '}' for f in fields)}")))
    return found


#: the place of a footnote reference in a foot style plugin's text (see :func:`foot_formatter`)
_FOOT_REF = "foot-ref"


def foot_formatter(name: str) -> Callable[[str, Sequence[Ref]], tuple[Inlines, ...] | None] | None:
    """For a foot referencing style registered as a plugin (``bibtex_foot_reference_style``):
    ``(role, refs) →`` the citation's text around its footnote references, one part more than
    references (before the first, between, after the last), or None where the plugin does not
    write each reference once, in order. None for the built-in ``foot`` (refbook's own)."""
    from refbook.styles.pybtex_refs import ReferenceStyle

    style = referencing_style(name)
    if style is None or isinstance(style, ReferenceStyle):
        return None
    return lambda role, refs: _plugin_foot(style, role, refs)


def _plugin_foot(style: Any, role: str, refs: Sequence[Ref]) -> tuple[Inlines, ...] | None:
    """The plugin's text, made by sphinxcontrib-bibtex's own template functions (as
    :func:`_plugin_citation`); its footnote references mark where the parts split."""
    from pybtex.richtext import Text as RichText
    from pybtex.style import FormattedEntry
    from sphinxcontrib.bibtex.style.referencing import format_references
    from sphinxcontrib.bibtex.style.template import FootReferenceInfo

    from refbook.styles.pybtex_bridge import to_inlines, to_pybtex

    if role not in set(style.role_names()) or any(r.entry is None for r in refs):
        return None
    references = [
        (to_pybtex(r.entry), FormattedEntry(r.key, RichText(), r.label),
         FootReferenceInfo(key=r.key, document=None, refname=r.key))
        for r in refs]
    try:
        rich = format_references(style, role, references)
    except Exception:  # a plugin's bug: refbook's 'foot' text instead
        return None

    def reference(part: Any, inner: Inlines) -> Span:
        return Span(_FOOT_REF, (), str(part.info[0].key))

    parts: list[list[Inline]] = [[]]
    keys = []
    for x in to_inlines(rich, reference):
        if isinstance(x, Span) and x.role == _FOOT_REF:
            keys.append(x.key)
            parts.append([])
        else:
            parts[-1].append(x)
    if keys != [r.key for r in refs]:
        return None
    return tuple(tuple(p) for p in parts)


def scb_words(d: Diagnostic) -> str:
    """sphinxcontrib-bibtex 2.7's words for the problem ``d`` ("" where it reports none): the
    Sphinx adapter adds them to refbook's message in this look (``report.with_scb_words``)."""
    if d.code is Code.UNKNOWN_KEY and d.key:
        return f'could not find bibtex key "{d.key}"'
    if d.code is Code.DUPLICATE_KEY and d.key and d.location is not None:
        # pybtex's error, which sphinxcontrib-bibtex logs with the file it was parsing
        return (f"bibliography data error in {d.location.file}: repeated bibliography entry: "
                f"{d.key}")
    if d.code is Code.FILE and d.location is not None and not d.location.line:
        return f"could not open bibtex file {d.location.file}."  # a whole file unreadable
    return ""


def referencing_names() -> list[str]:
    from refbook.styles.pybtex_refs import BUILTIN

    names = set(BUILTIN) - {"foot"}
    names |= {ep.name for ep in entry_points(group=REFERENCING)} - {"foot"}
    names |= set(_runtime_store())
    return sorted(names)


def _runtime_store() -> dict[str, type]:
    """sphinxcontrib-bibtex's run-time plugins (``register_plugin`` in conf.py), if installed."""
    try:
        from sphinxcontrib.bibtex import plugin
    except ImportError:
        return {}
    store = getattr(plugin, "_runtime_plugins", {})
    return dict(store.get(REFERENCING, {}))


def referencing_style(name: str) -> ReferenceStyle | Any | None:
    """refbook's description of a built-in referencing style, else an instance of the plugin
    registered under ``name``, else None."""
    from refbook.styles.pybtex_refs import BUILTIN

    if name in BUILTIN:
        return BUILTIN[name]
    cls = _runtime_store().get(name)
    if cls is None:
        for ep in entry_points(group=REFERENCING, name=name):
            try:
                cls = ep.load()
            except Exception:  # a broken plugin is a configuration problem
                return None
            break
    if cls is None:
        return None
    try:
        return cls()
    except Exception:
        return None


def citation_formatter(name: str) -> Callable[[str, Sequence[Ref]], Inlines]:
    """``(role, refs) → text`` under the referencing style ``name``."""
    from refbook.styles.pybtex_refs import BUILTIN, ReferenceStyle, format_citation

    style = referencing_style(name)
    if isinstance(style, ReferenceStyle) or style is None:
        builtin = style if isinstance(style, ReferenceStyle) else BUILTIN["label"]
        return lambda role, refs: format_citation(builtin, role, refs)
    return lambda role, refs: _plugin_citation(style, role, refs)


def _plugin_citation(style: Any, role: str, refs: Sequence[Ref]) -> Inlines:
    """A plugin style's text, made by sphinxcontrib-bibtex's own template functions (the
    plugin is written against them); each reference becomes a ``cite-item`` span."""
    from pybtex.richtext import Text as RichText
    from pybtex.style import FormattedEntry
    from sphinxcontrib.bibtex.style.referencing import format_references
    from sphinxcontrib.bibtex.style.template import SphinxReferenceInfo

    from refbook.styles.pybtex_bridge import to_inlines, to_pybtex

    if role not in set(style.role_names()):
        return ()
    known = [r for r in refs if r.entry is not None]
    references = [
        (to_pybtex(r.entry), FormattedEntry(r.key, RichText(), r.label),
         SphinxReferenceInfo(builder=None, fromdocname="", todocname="",  # type: ignore[arg-type]
                             citation_id=r.key, title=None, pre_text=r.pre, post_text=r.post))
        for r in known]
    rich = format_references(style, role, references)

    def reference(part: Any, inner: Inlines) -> Span:
        return Span("cite-item", inner, str(part.info[0].citation_id))

    out = to_inlines(rich, reference)
    unknown = [Span("cite-item", (Text(f"{r.key}?"),), r.key) for r in refs if r.entry is None]
    return (*out, *unknown)
