"""Citation styles: plugins found through the ``refbook.styles`` entry-point group.

A style turns the items a book cites into formatted citations and a reference list (IR trees).
The built-in styles are CSL styles run by our own CSL engine (``refbook.styles.csl``); a third
party registers another under the same group, either a :class:`CslStyle` subclass pointing at
its own ``.csl`` file or any class with the same ``name`` and ``processor(items)``.
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from refbook.memo import code_stamp, load_memo, save_memo
from refbook.styles.csl.processor import CiteItem, Processor
from refbook.styles.csl.style import DATA, load_style

if TYPE_CHECKING:
    from collections.abc import Sequence

    from refbook.csl import Item

__all__ = ["CiteItem", "CslStyle", "Processor", "UnknownStyleError", "available_styles", "get_style"]

GROUP = "refbook.styles"


class UnknownStyleError(LookupError):
    """Raised by :func:`get_style` for a name no installed plugin provides."""


class CslStyle:
    """A style defined by a CSL file. Subclasses set ``name`` and ``csl_file``."""

    name: ClassVar[str] = ""
    csl_file: ClassVar[str] = ""
    #: "author-date" or "numeric": hosts use it to decide label boxes and numbering.
    kind: ClassVar[str] = "author-date"

    def processor(self, items: Sequence[Item], *, memo_dir: str | None = None) -> Processor:
        """A processor for ``items``. With ``memo_dir``, formatting results survive the process:
        a host's next build (a new ``sphinx-build`` run) reformats only the entries that changed."""
        style = load_style(str(self._path()))
        if memo_dir is not None:
            load_memo(style.memo, self._memo_file(memo_dir))
        return Processor(style, items)

    def save_memo(self, memo_dir: str) -> None:
        """Write the formatting memo next to the host's other caches (atomic, best effort)."""
        style = load_style(str(self._path()))
        save_memo(style.memo, self._memo_file(memo_dir))

    def _path(self) -> Path:
        path = Path(self.csl_file)
        return path if path.is_absolute() else DATA / path

    def _memo_file(self, memo_dir: str) -> Path:
        from refbook import __version__

        stamp = self._path().stat().st_mtime_ns
        return Path(memo_dir) / f"style-{self.name}-{__version__}-{code_stamp()}-{stamp}.pickle"


# entry points found per sys.path: scanning every installed distribution's metadata costs
# milliseconds, and a Sphinx build asks for the styles once per page (it was a third of a cold
# build's time); a changed sys.path (a plugin made importable mid-process) scans again
_found: dict[tuple[str, ...], dict[str, type[CslStyle]]] = {}


def available_styles() -> dict[str, type[CslStyle]]:
    path = tuple(sys.path)
    if path not in _found:
        plugins: dict[str, type[CslStyle]] = {}
        for ep in entry_points(group=GROUP):
            plugins.setdefault(ep.name, ep.load())
        _found.clear()
        _found[path] = plugins
    found = dict(_found[path])
    # the built-ins work even from a source checkout that was never installed
    from refbook.styles.chicago_author_date import ChicagoAuthorDate
    from refbook.styles.numeric import Numeric

    found.setdefault(ChicagoAuthorDate.name, ChicagoAuthorDate)
    found.setdefault(Numeric.name, Numeric)
    return found


def get_style(name: str) -> CslStyle:
    styles = available_styles()
    if name not in styles:
        known = ", ".join(sorted(styles))
        msg = f"unknown style {name!r}; installed styles: {known}"
        raise UnknownStyleError(msg)
    return styles[name]()
