"""Parity: the example book built by Sphinx (sphinx_refbook) and by MkDocs (mkdocs_refbook) shows
the same citation texts, in the same places, and the same reference list: text, ids, classes and
back-links."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import yaml

from tests.test_example_book import BOOK
from tests.test_list_parity import list_structure

if TYPE_CHECKING:
    from pathlib import Path

_SPAN = re.compile(r"<(/?)span\b[^>]*>")


def spans(page: str, opener: str) -> list[str]:
    """The text of every ``<span …>`` that starts with ``opener``, nested spans included."""
    out = []
    for m in re.finditer(opener, page):
        depth, i = 1, m.end()
        while depth:
            nxt = _SPAN.search(page, i)
            assert nxt is not None
            depth += -1 if nxt.group(1) else 1
            i = nxt.end()
        out.append(_text(page[m.end():i]))
    return out


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def list_texts(page: str, opener: str, close: str) -> list[str]:
    return [_text(m.group(1)) for m in re.finditer(
        opener + r"(.*?)(?:<span class=\"refbook-backlinks\">|" + close + ")", page, re.S)]


def test_sphinx_and_mkdocs_agree_on_the_example_book(tmp_path: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from sphinx.cmd.build import build_main

    sphinx_out = tmp_path / "sphinx"
    assert build_main(["-q", "-c", str(BOOK), str(BOOK / "docs"), str(sphinx_out),
                       "-d", str(tmp_path / "doctrees")]) == 0
    mkdocs_out = tmp_path / "mkdocs"
    cfg = load_config(config_file=str(BOOK / "mkdocs.yml"), site_dir=str(mkdocs_out))
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)
    cfg.plugins.on_shutdown()

    nav = yaml.safe_load((BOOK / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    total = 0
    for name in nav:
        stem = name.removesuffix(".md")
        mk = (mkdocs_out / ("index.html" if stem == "index" else f"{stem}/index.html")).read_text(
            encoding="utf-8")
        sp = (sphinx_out / f"{stem}.html").read_text(encoding="utf-8")
        mk_cites = spans(mk, r'<span class="refbook-cite" id="refbook-cite-\d+">')
        sp_cites = spans(sp, r'<span class="refbook-citation">')
        assert mk_cites == sp_cites, name
        total += len(mk_cites)
    assert total >= 250

    mk_list = list_texts((mkdocs_out / "references" / "index.html").read_text(encoding="utf-8"),
                         r'<p class="csl-entry refbook-entry"[^>]*>', "</p>")
    sp_list = list_texts((sphinx_out / "references.html").read_text(encoding="utf-8"),
                         r'<p class="csl-entry refbook-entry"[^>]*>', "</p>")
    assert len(mk_list) == 253
    assert mk_list == sp_list
    # and the lists' structure: ids, classes, back-link texts and the citations they point at
    mk_structure = list_structure(mkdocs_out / "references" / "index.html", "mkdocs")
    assert mk_structure == list_structure(sphinx_out / "references.html", "sphinx")
    entries = mk_structure["entries"]
    assert isinstance(entries, list)
    assert all(e["backlinks"] for e in entries)
