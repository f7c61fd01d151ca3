"""mkdocs-bibtex's plugin API, answered by refbook's plugin (for mkdocs-bibtex's own test suite).

mkdocs-bibtex's tests drive ``BibTexPlugin`` directly: ``load_config(options, path)``,
``on_config(plugin.config)`` and ``on_page_markdown(markdown, ...)`` on one page, and read the
Markdown it returns (footnote references and definitions). :func:`install` puts this class in
place of ``mkdocs_bibtex.plugin.BibTexPlugin``; each call runs refbook's plugin on a one-page book
(the page read, the book resolved, the page's Markdown rendered in ``output: footnotes``, which
the options the tests set select). Nothing here formats anything itself.
"""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace
from typing import Any

from mkdocs_refbook.plugin import RefbookPlugin


class BibTexPlugin:
    """``BibTexPlugin`` of mkdocs-bibtex, backed by :class:`RefbookPlugin`."""

    def __init__(self) -> None:
        self._plugin = RefbookPlugin()
        self._path: str | None = None
        self.csl_file: str | None = None

    def load_config(self, options: dict[str, Any], config_file_path: str | None = None) -> Any:
        self._path = config_file_path
        return self._plugin.load_config(dict(options), config_file_path)

    @property
    def config(self) -> Any:
        return self._plugin.config

    def _mkdocs_config(self) -> Any:
        # the tests pass a folder as the config file path; their paths are absolute
        return SimpleNamespace(config_file_path=self._path, markdown_extensions=[],
                               extra_css=[], nav=None)

    def on_config(self, config: Any) -> Any:
        mkdocs_config = self._mkdocs_config()
        self._plugin.on_config(mkdocs_config)
        self._plugin.on_pre_build(config=mkdocs_config)
        return config

    @property
    def registry(self) -> Any:
        """What the tests read of mkdocs-bibtex's registry: the entries by key."""
        bibliography = self._plugin.bibliography
        entries = {e.key: e for e in bibliography} if bibliography is not None else {}
        return SimpleNamespace(bib_data=SimpleNamespace(entries=entries))

    def on_page_markdown(self, markdown: str, page: Any = None, config: Any = None,
                         files: Any = None) -> str:
        plugin = self._plugin
        # the tests change options between calls (plugin.config.bib_by_default = True)
        plugin.on_config(self._mkdocs_config())
        uri = "page.md"
        file = SimpleNamespace(src_uri=uri, content_string=markdown, abs_src_path=None,
                               name="page")
        one_page = SimpleNamespace(file=file, title=None, toc=None)
        plugin.pages = {}
        plugin.nav_order = [uri]
        plugin.read_page(uri, markdown)
        plugin.resolve_book()
        out = plugin.on_page_markdown(markdown, page=one_page, config=None,  # type: ignore[arg-type]
                                      files=None)  # type: ignore[arg-type]
        plugin._extension.host = None
        return out


def install() -> None:
    """Make ``mkdocs_bibtex.plugin.BibTexPlugin`` this class (mkdocs-bibtex stays installed for
    the modules its tests import but do not run against refbook)."""
    module = types.ModuleType("mkdocs_bibtex.plugin")
    module.BibTexPlugin = BibTexPlugin  # type: ignore[attr-defined]
    sys.modules["mkdocs_bibtex.plugin"] = module
