"""``style:`` as a ``.csl`` file (relative to ``mkdocs.yml``) or a CSL repository name, ``locale:``,
mkdocs-bibtex's ``csl_file``; under ``mkdocs serve`` an edited style file rebuilds the pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from mkdocs.exceptions import PluginError

from tests.mkdocs.test_build import cites
from tests.mkdocs.test_rebuilds import _build

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

CSL_NS = "http://purl.org/net/xbiblio/csl"


def style(citation: str, *, options: str = "") -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="{CSL_NS}" class="in-text" '
            f'version="1.0" {options}>\n<info><title>t</title><id>t</id></info>\n'
            f'<citation><layout prefix="(" suffix=")">{citation}</layout></citation>\n'
            '<bibliography><layout><group delimiter=". "><names variable="author"/>'
            '<text variable="title"/></group></layout></bibliography>\n</style>\n')


def test_style_file_edit_rebuilds_under_serve(project: Project) -> None:
    (project.root / "styles").mkdir()
    csl = project.root / "styles" / "mine.csl"
    csl.write_text(style('<text variable="title"/>'), encoding="utf-8")
    project.configure({"style": "styles/mine.csl"})
    project.page("index.md", "# Home\n\nSee [@lee2021].\n")
    first = _build(project)
    [before] = cites(project.html("index.html"))
    csl.write_text(style('<text variable="title" suffix="!"/>'), encoding="utf-8")
    second = _build(project)
    assert second is first  # the same plugin: only the style file's digest changed
    assert cites(project.html("index.html")) == [before.replace(")", "!)")]


def test_on_serve_watches_the_style_file(project: Project) -> None:
    from mkdocs.config import load_config

    (project.root / "mine.csl").write_text(style('<text variable="title"/>'), encoding="utf-8")
    project.configure({"style": "mine.csl"})
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_config(cfg)

    class Server:
        def __init__(self) -> None:
            self.watched: list[str] = []

        def watch(self, path: str) -> None:
            self.watched.append(path)

    server = Server()
    cfg.plugins["refbook"].on_serve(server, config=cfg, builder=None)
    assert str(project.root / "mine.csl") in server.watched


def test_csl_file_and_locale(project: Project) -> None:
    (project.root / "mine.csl").write_text(
        style('<group delimiter=" "><text term="in"/><text variable="title"/></group>'),
        encoding="utf-8")
    project.configure({"bib_file": "refs.bib", "csl_file": "mine.csl", "output": "refbook",
                       "locale": "de-DE"})
    project.page("index.md", "# Home\n\nSee [@lee2021].\n")
    project.build()
    [cite] = cites(project.html("index.html"))
    assert cite.startswith("(in ")


def test_repository_style_by_name(project: Project) -> None:
    project.configure({"style": "ieee"})
    project.page("index.md", "# Home\n\nSee [@lee2021].\n")
    project.build()
    assert cites(project.html("index.html")) == ["[1]"]
    refs = project.html("references/index.html")
    assert '<span class="refbook-csl-left-margin">[1]</span> ' in refs


def test_bad_style_file_names_its_line(project: Project) -> None:
    from mkdocs.config import load_config

    (project.root / "bad.csl").write_text(style('<text macro="gone"/>'), encoding="utf-8")
    project.configure({"style": "bad.csl"})
    cfg: Any = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=(
            f"refbook: {project.root / 'bad.csl'}:4: 'style' option: the style file cannot be "
            "used: the macro 'gone' is not defined")):
        cfg.plugins.on_config(cfg)


def test_a_display_block_is_a_line_of_its_own(project: Project) -> None:
    """``display="block"``: the same class as in Sphinx (``refbook-csl-block``), which
    refbook.css lays out as a block."""
    csl = style('<text variable="title"/>').replace(
        '<text variable="title"/></group>',
        '<text variable="title"/></group><text variable="title" display="block"/>')
    (project.root / "block.csl").write_text(csl, encoding="utf-8")
    project.configure({"style": "block.csl"})
    project.page("index.md", "# Home\n\nSee [@lee2021].\n")
    project.build()
    refs = project.html("references/index.html")
    assert '<span class="refbook-csl-block">' in refs
    css = project.html("assets/refbook.css")
    assert ".refbook-bibliography .refbook-csl-block" in css
