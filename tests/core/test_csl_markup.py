"""CSL engine: markup in a style's text values and in field values, flip-flop in the suite's
HTML (issue 13). Where pandoc defines the behaviour it runs live on the same input."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.csl_suite import html
from refbook.api import Formatter, render
from refbook.ir import Span, Styled, Text

CSL_NS = "http://purl.org/net/xbiblio/csl"


def csl(body: str) -> str:
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="{CSL_NS}" class="in-text" '
            'version="1.0">\n  <info><title>t</title><id>t</id></info>\n'
            '  <citation><layout><text variable="title"/></layout></citation>\n'
            f'  <bibliography><layout>{body}</layout></bibliography>\n</style>\n')


def pandoc_markdown(pandoc: str, bib: Path, style: Path) -> str:
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "markdown", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={style}"],
        input="---\nnocite: '@*'\n---\n", capture_output=True, text=True, check=True, timeout=120)
    lines = [ln for ln in out.stdout.splitlines() if ln and not ln.startswith(":::")]
    assert len(lines) == 1, out.stdout
    return lines[0]


def test_markup_in_a_text_value_is_read_as_pandoc_reads_it(tmp_path: Path, pandoc: str) -> None:
    style = tmp_path / "s.csl"
    style.write_text(csl('<text value="Speak, &lt;b&gt;friend&lt;/b&gt;, and "/>'
                         '<text variable="title" font-style="italic"/>'), encoding="utf-8")
    bib = tmp_path / "r.json"
    bib.write_text('[{"id": "a", "type": "book", "title": "Enter"}]', encoding="utf-8")
    ((_, entry),) = Formatter(str(bib), style=str(style)).bibliography()
    assert render(entry, "markdown") == pandoc_markdown(pandoc, bib, style)
    assert Styled("strong", (Text("friend"),)) in entry


def test_a_text_value_without_markup_stays_text(tmp_path: Path) -> None:
    style = tmp_path / "s.csl"
    style.write_text(csl('<text value="a &lt; b"/>'), encoding="utf-8")
    ((_, entry),) = Formatter([{"id": "a", "type": "book"}], style=str(style)).bibliography()
    assert entry == (Text("a < b"),)


def test_nodecor_in_a_field_is_kept_and_protects_its_case(tmp_path: Path) -> None:
    style = tmp_path / "s.csl"
    style.write_text(csl('<text variable="title" text-case="capitalize-all" '
                         'font-style="italic"/>'), encoding="utf-8")
    item = {"id": "a", "type": "legal_case",
            "title": 'lessard <span class="nodecor">v.</span> schmidt'}
    ((_, entry),) = Formatter([item], style=str(style)).bibliography()
    assert entry == (Styled("emph", (Text("Lessard "), Span("nodecor", (Text("v."),)),
                                     Text(" Schmidt"))),)
    # the suite's citeproc-js HTML turns the font off inside italics
    assert html(entry) == '<i>Lessard <span style="font-style:normal;">v.</span> Schmidt</i>'


def test_flip_flop_in_the_suite_html() -> None:
    nested = (Styled("emph", (Text("a "), Styled("emph", (Text("b "), Styled(
        "emph", (Text("c"),)),)))),)
    assert html(nested) == ('<i>a <span style="font-style:normal;">b <i>c</i></span></i>')
    assert html((Styled("strong", (Styled("emph", (Text("x"),)),)),)) == "<b><i>x</i></b>"
    assert html((Span("nodecor", (Text("v."),)),)) == "v."
