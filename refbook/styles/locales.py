"""CSL locales: where the locale files are, and the fallback chain that assembles one locale.

Where it sits: :func:`refbook.styles.csl.style.load_style` asks :func:`build_locale` for the
locale of a style. The CSL locale files (CC BY-SA 3.0, the Citation Style Language project) are
read at run time from the package data of citeproc-py (the ``citeproc`` package, a dependency),
found without importing it. en-US, the last fallback, ships with refbook (the copy pandoc 3.9
embeds), so an English style works without citeproc-py too.

The chain is the specification's (CSL 1.0.2, "Locale Fallback"), lowest priority first: the en-US
file, the language's primary dialect file (``de-DE`` for ``de-AT``), the chosen dialect's file,
then the style's own ``<locale>`` elements without ``xml:lang``, with the language (``de``),
with the dialect (``de-AT``). A term missing in one is looked up in the next.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from refbook.styles import DATA

if TYPE_CHECKING:
    from collections.abc import Sequence

    from refbook.styles.csl.style import Locale, Node

__all__ = ["available_locales", "build_locale", "locale_dir", "locale_files", "locales_stamp",
           "normalize"]

#: a folder of ``locales-*.xml`` files that wins over citeproc-py's (development, or newer files)
LOCALES_ENV = "REFBOOK_CSL_LOCALES"


def locale_dir() -> Path | None:
    """The folder holding the CSL locale files: ``$REFBOOK_CSL_LOCALES``, or citeproc-py's
    package data (``citeproc/data/locales``); None when neither is there. The variable is read
    at each call (a process that sets it later uses it from then on)."""
    env = os.environ.get(LOCALES_ENV)
    if env and Path(env).is_dir():
        return Path(env)
    return _citeproc_locales()


@lru_cache(maxsize=1)
def _citeproc_locales() -> Path | None:
    try:
        spec = find_spec("citeproc")
    except (ImportError, ValueError):
        return None
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(base) / "data" / "locales"
        if folder.is_dir():
            return folder
    return None


def locale_files() -> dict[str, Path]:
    """Every available locale by tag (``de-DE`` → its file); en-US always."""
    found: dict[str, Path] = {}
    folder = locale_dir()
    if folder is not None:
        for p in sorted(folder.glob("locales-*.xml")):
            found[p.stem.removeprefix("locales-")] = p
    # en-US: refbook's own copy, the one pandoc embeds, so English output matches pandoc's
    found["en-US"] = DATA / "locales-en-US.xml"
    return found


def available_locales() -> list[str]:
    return sorted(locale_files())


def _stamp(path: str) -> tuple[int, int]:
    """A file's size and modification time, keys of the caches of what is read from it (a
    changed file is read again); (0, 0) when it cannot be looked at."""
    try:
        st = os.stat(path)
    except OSError:
        return 0, 0
    return st.st_size, st.st_mtime_ns


def _primary_dialects() -> dict[str, str]:
    folder = locale_dir()
    if folder is None:
        return {"en": "en-US"}
    table = str(folder / "locales.json")
    return _dialects(table, *_stamp(table))


@lru_cache(maxsize=8)
def _dialects(table: str, _size: int, _mtime: int) -> dict[str, str]:
    """The primary dialect of each language from the locales' ``locales.json`` (read again
    once the file changed, or another folder is used)."""
    found: dict[str, str] = {"en": "en-US"}
    try:
        data = json.loads(Path(table).read_text(encoding="utf-8"))
        found.update({str(k): str(v) for k, v in data.get("primary-dialects", {}).items()})
    except (OSError, ValueError, AttributeError):
        pass  # without the table, a language falls back to en-US directly
    return found


def normalize(tag: str) -> str:
    """A language tag as the locale files spell it: ``de_at`` → ``de-AT``, ``EN`` → ``en``."""
    parts = tag.strip().replace("_", "-").split("-")
    out = [parts[0].lower()]
    for p in parts[1:]:
        out.append(p.upper() if len(p) == 2 else p.title() if len(p) == 4 else p)
    return "-".join(p for p in out if p)


def language_of(tag: str) -> str:
    return normalize(tag).split("-")[0]


def resolve_tag(tag: str) -> str | None:
    """The locale file a tag uses: itself, or its language's primary dialect (``de`` →
    ``de-DE``); None when neither exists (en-US then supplies every term)."""
    files = locale_files()
    t = normalize(tag)
    if t in files:
        return t
    primary = _primary_dialects().get(language_of(t))
    return primary if primary in files else None


def _locale_node(path: str) -> Node:
    """The parsed locale file (parsed again once the file changed)."""
    return _parsed_locale(path, *_stamp(path))


@lru_cache(maxsize=128)
def _parsed_locale(path: str, _size: int, _mtime: int) -> Node:
    from refbook.styles.csl.style import parse_xml

    return parse_xml(Path(path).read_bytes(), path)


def locales_stamp() -> str:
    """What the locale files are now: :func:`locale_dir`'s path and each file's name, size and
    modification time (~0.2 ms for citeproc-py's 60 files). Part of every style's digest
    (``refbook.styles.CslStyle.digest``), which keys the hosts' caches of formatted entries,
    resolutions and the style's language: upgrading citeproc-py's locales, or editing a file of
    ``$REFBOOK_CSL_LOCALES``, formats the book again — before, the cached text of the old
    terms stayed until the cache folder was deleted. en-US's own copy is refbook's, in its
    code stamp."""
    folder = locale_dir()
    if folder is None:
        return ""
    parts = [str(folder)]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return parts[0]
    for entry in entries:
        if entry.name.startswith("locales") and entry.is_file():
            st = entry.stat()
            parts.append(f"{entry.name}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(parts)


def build_locale(lang: str, style_locales: Sequence[Node] = ()) -> Locale:
    """The locale for the tag ``lang``, with the specification's fallback chain."""
    from refbook.styles.csl.style import Locale, StyleSyntaxError

    tag = normalize(lang) or "en-US"
    language = language_of(tag)
    files = locale_files()
    chain: list[str] = ["en-US"]
    primary = _primary_dialects().get(language)
    if primary in files and primary not in chain:
        chain.append(primary)
    if tag in files and tag not in chain:
        chain.append(tag)
    loc = Locale(lang=tag)
    for t in chain:
        try:
            loc.merge(_locale_node(str(files[t])))
        except (OSError, StyleSyntaxError):
            continue  # a broken locale file: the terms fall back to the next one
    for wanted in dict.fromkeys(("", language, tag)):
        for node in style_locales:
            if normalize(node.attrs.get("lang", "")) == wanted:
                loc.merge(node)
    return loc
