"""Sphinx extension for refbook: ``extensions = ["sphinx_refbook"]``.

Where it sits: the Sphinx adapter over the ``refbook`` core. Reading leaves placeholders
(roles, Pandoc syntax in MyST pages, the ``bibliography`` directive) and records each page's
citations in the ``refbook`` domain; once every page is read the domain resolves the book and
names the pages to re-write; writing fills the placeholders with nodes. Diagnostics go through
``sphinx_refbook.report``.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from refbook import __version__
from refbook.gcpause import skip_final_collection
from refbook.render.reference_list import STYLESHEET_FILE
from sphinx_refbook import config
from sphinx_refbook.directive import BibliographyDirective
from sphinx_refbook.domain import (
    ENV_VERSION,
    CiteDomain,
    FootCiteDomain,
    RefbookDomain,
    on_before_read,
    on_build_ended,
    on_build_finished,
    on_doctree_read,
    on_env_updated,
    on_get_outdated,
    on_write_started,
)
from sphinx_refbook.footnotes import FootBibliographyDirective, FootCiteRole, PlaceFootnotes
from sphinx_refbook.lines import CitationLines
from sphinx_refbook.nodes import (
    PASS,
    SKIP,
    bibliography_node,
    citation_node,
    foot_author_node,
    foot_entry_node,
    footcite_node,
)
from sphinx_refbook.notes import NoteCitations, note_author_node
from sphinx_refbook.pandoc import PandocCitations
from sphinx_refbook.replaces import take_place
from sphinx_refbook.roles import CiteRole
from sphinx_refbook.search import escape_section_titles
from sphinx_refbook.writer import COPIED_CITATION, EntryLabels, ResolveCitations

if TYPE_CHECKING:
    from sphinx.application import Sphinx

__all__ = ["setup"]

_HTML_BUILDERS = ("html", "dirhtml", "singlehtml")


def _add_css(app: Sphinx) -> None:
    # web pages only; every builder renders the nodes, the stylesheet is a nicety
    if app.builder.name in _HTML_BUILDERS:
        app.add_css_file("refbook.css")
        # Copied before any page is written, so that every page links it with the same
        # "?v=<checksum>" in a clean build as in an incremental one (copied at the end, the first
        # build linked it bare). Sphinx copies the project's static files later: a refbook.css
        # of html_static_path replaces this one. The stylesheet is the core's, the MkDocs
        # plugin's too: both hosts style their identical lists alike.
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        # a plain copy: Sphinx's copy_asset_file has no force= before 8 and never overwrites
        shutil.copyfile(STYLESHEET_FILE, static / "refbook.css")


def setup(app: Sphinx) -> dict[str, Any]:
    metadata = {
        "version": __version__,
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }
    if not take_place(app):
        return metadata
    # a sphinx-build's exit need not rescan the objects the build leaves (refbook.gcpause)
    skip_final_collection()
    config.register(app)
    app.connect("config-inited", config.validate)
    app.add_node(citation_node, html=COPIED_CITATION, latex=COPIED_CITATION,
                 text=COPIED_CITATION, man=COPIED_CITATION, texinfo=COPIED_CITATION)
    app.add_node(bibliography_node, html=SKIP, latex=SKIP, text=SKIP, man=SKIP, texinfo=SKIP)
    for placeholder in (footcite_node, foot_author_node, foot_entry_node, note_author_node):
        app.add_node(placeholder, html=PASS, latex=PASS, text=PASS, man=PASS, texinfo=PASS)
    app.add_domain(RefbookDomain)
    app.add_domain(CiteDomain)
    app.add_domain(FootCiteDomain)
    app.add_role("cite", CiteRole())
    app.add_role("footcite", FootCiteRole())
    app.add_directive("bibliography", BibliographyDirective)
    app.add_directive("footbibliography", FootBibliographyDirective)
    app.add_transform(CitationLines)
    app.add_transform(PandocCitations)
    app.add_transform(NoteCitations)
    app.add_transform(PlaceFootnotes)
    app.add_post_transform(ResolveCitations)
    app.add_post_transform(EntryLabels)
    app.connect("env-before-read-docs", on_before_read)
    # before Sphinx's collectors (500) copy section titles into the tables of contents, so the
    # copies of a title's citations are numbered too and show their formatted text
    app.connect("doctree-read", on_doctree_read, priority=400)
    app.connect("env-updated", on_env_updated)
    app.connect("env-get-outdated", on_get_outdated)
    # (a Sphinx without the event would write the parents as before)
    with contextlib.suppress(ExtensionError):
        app.connect("write-started", on_write_started)
    app.connect("builder-inited", _add_css)
    # first of all build-finished handlers (on_build_finished may fail the build)
    app.connect("build-finished", on_build_ended, priority=100)
    app.connect("build-finished", on_build_finished)
    app.connect("build-finished", escape_section_titles)
    return metadata
