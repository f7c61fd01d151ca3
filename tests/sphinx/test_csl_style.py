"""``refbook_style`` as a ``.csl`` file or a CSL repository name, ``refbook_locale``, a bad style
file reported at its line, and an edited style file rebuilding the pages it formats."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

CSL_NS = "http://purl.org/net/xbiblio/csl"


def style(citation: str, *, options: str = "") -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="{CSL_NS}" class="in-text" '
            f'version="1.0" {options}>\n<info><title>t</title><id>t</id></info>\n'
            f'<citation><layout prefix="(" suffix=")">{citation}</layout></citation>\n'
            '<bibliography><layout><group delimiter=". "><names variable="author"/>'
            '<text variable="title"/></group></layout></bibliography>\n</style>\n')


def _flat(b: Built, page: str) -> str:
    return " ".join(b.read(f"{page}.txt").split())


def _use(src: Path, line: str) -> None:
    with (src / "conf.py").open("a", encoding="utf-8") as f:
        f.write(line + "\n")


def test_style_file_relative_to_conf_py_and_its_edit_rebuilds(
        copy_root: Callable[[str], Path], build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    (src / "styles").mkdir()
    csl = src / "styles" / "mine.csl"
    csl.write_text(style('<text variable="title"/>'), encoding="utf-8")
    _use(src, "refbook_style = 'styles/mine.csl'")
    first = build(src, "text")
    assert first.warnings == ""
    assert "Intro cites (The TeXbook)." in _flat(first, "index")
    # an edit of the style file alone (conf.py unchanged) formats the book anew
    csl.write_text(style('<text variable="title" suffix="!"/>'), encoding="utf-8")
    second = build(src, "text")
    assert second.warnings == ""
    assert "Intro cites (The TeXbook!)." in _flat(second, "index")


def test_bad_style_file_reported_at_its_line(copy_root: Callable[[str], Path],
                                            build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    (src / "bad.csl").write_text(style('<text macro="nowhere"/>'), encoding="utf-8")
    _use(src, "refbook_style = 'bad.csl'")
    b = build(src, "text")
    assert b.app.statuscode == 1
    assert b.warnings.startswith(
        f"{src / 'bad.csl'}:4: ERROR: refbook_style = 'bad.csl': the style file cannot be used: "
        "the macro 'nowhere' is not defined in this style")
    assert "Traceback" not in b.warnings


def test_repository_style_and_locale(copy_root: Callable[[str], Path],
                                     build: Callable[..., Built]) -> None:
    src = copy_root("roles")
    _use(src, "refbook_style = 'din-1505-2'")
    german = build(src, "text")
    assert german.warnings == ""
    refs = _flat(german, "references")
    assert "2. Aufl." in refs
    assert "Bd. 3" in refs  # de-DE, the style's default-locale
    src2 = copy_root("modes")
    (src2 / "mine.csl").write_text(style(
        '<group delimiter=" "><text term="in"/><text variable="title"/></group>'),
        encoding="utf-8")
    _use(src2, "refbook_style = 'mine.csl'\nrefbook_locale = 'de-DE'")
    b = build(src2, "text")
    assert b.warnings == ""
    assert "(in The TeXbook)" in _flat(b, "one")


def test_a_display_block_is_a_line_of_its_own(copy_root: Callable[[str], Path],
                                              build: Callable[..., Built]) -> None:
    """``display="block"`` (an annotated list's abstract) keeps the class the MkDocs plugin
    writes too (``refbook-csl-block``, laid out by refbook.css); it was lost in Sphinx."""
    src = copy_root("roles")
    csl = style('<text variable="title"/>').replace(
        '<text variable="title"/></group>',
        '<text variable="title"/></group><text variable="title" display="block"/>')
    (src / "block.csl").write_text(csl, encoding="utf-8")
    _use(src, "refbook_style = 'block.csl'")
    b = build(src, "html")
    assert b.warnings == ""
    assert '<span class="refbook-csl-block">The TeXbook</span>' in b.read("references.html")
