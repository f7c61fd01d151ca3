"""The example book's References page in three kinds of style, in a real browser.

The six builds of ``tests/test_example_styles.py`` (Sphinx and MkDocs; author-date, numeric,
note) are opened in Debian's chromium via Playwright at a desktop width (1280 x 800). Each page
must fit the window (no horizontal scrollbar). For the numeric style (IEEE: CSL's
``second-field-align``) the labels form a margin column: every label box starts at the same left
edge, every entry's text starts at one left edge right of the labels — on its first line and on
the lines it wraps to, whether the label is ``[9]`` or ``[253]`` — with a gap between the label's
last character and the text. A screenshot of the first screenful of each page is saved in the
test's temporary folder (``benchmarks/style_screenshots.py`` writes the ones in docs/images/).
Nothing is skipped: a missing chromium fails.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.test_live_preview import CHROMIUM_ARGS
from tests.test_example_styles import HOSTS, STYLES

if TYPE_CHECKING:
    from pathlib import Path

    from tests.test_example_styles import Build

VIEWPORT = {"width": 1280, "height": 800}

PAGE_WIDTH = """() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"""

# For each entry with a margin label: the label box's left edge, the right edge of the label's
# last character, the left edge of the first character of the text after it, and the left edge
# of the text's further lines (where the lines it wraps to start).
MARGIN_COLUMN = """() => {
  const entries = [...document.querySelectorAll(".refbook-bibliography .refbook-entry")];
  return entries.map(e => {
    const label = e.querySelector(".refbook-csl-left-margin");
    if (!label) return null;
    const box = label.getBoundingClientRect();
    const glyphs = document.createRange();
    glyphs.selectNodeContents(label);
    const labelRects = [...glyphs.getClientRects()].filter(r => r.width > 0);
    // the first non-blank character after the label
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    let node, first = null;
    while ((node = walker.nextNode())) {
      if (label.contains(node) || !(label.compareDocumentPosition(node) &
                                    Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      const at = node.data.search(/\\S/);
      if (at >= 0) { first = [node, at]; break; }
    }
    const start = document.createRange();
    start.setStart(first[0], first[1]);
    start.setEnd(first[0], first[1] + 1);
    const textRect = start.getBoundingClientRect();
    const rest = document.createRange();
    rest.setStart(first[0], first[1]);
    rest.setEnd(e, e.childNodes.length);
    // a range has a rectangle per line and per inline element: the leftmost one below the
    // first line is where the wrapped lines start
    const below = [...rest.getClientRects()].filter(r => r.width > 0 &&
                                                       r.top >= textRect.bottom - 1);
    const lines = below.length ? [Math.min(...below.map(r => r.left))] : [];
    return {
      label: label.textContent,
      labelLeft: box.left,
      labelGlyphsRight: Math.max(...labelRects.map(r => r.right)),
      textLeft: textRect.left,
      textTop: textRect.top,
      labelTop: box.top,
      laterLines: lines,
    };
  }).filter(x => x !== null);
}"""


def _spread(values: list[float]) -> float:
    return max(values) - min(values)


def check_margin_column(found: list[dict[str, Any]], where: str) -> None:
    """The labels of a numeric list form a column and the texts start at one edge beside it."""
    assert len(found) > 100, where
    assert {e["label"] for e in found} >= {"[9]", "[10]", "[100]"}, where
    assert _spread([e["labelLeft"] for e in found]) < 0.5, where
    text_left = [e["textLeft"] for e in found]
    assert _spread(text_left) < 0.5, (where, sorted(
        {(round(e["textLeft"], 1), e["label"]) for e in found})[:5])
    edge = text_left[0]
    wrapped = [x for e in found for x in e["laterLines"]]
    assert wrapped, where  # some entries wrap at this width
    assert max(abs(x - edge) for x in wrapped) < 0.5, where
    for e in found:
        # the text on the label's line, with a gap after the label's last character
        assert abs(e["textTop"] - e["labelTop"]) < 8, (where, e["label"])
        assert e["textLeft"] - e["labelGlyphsRight"] >= 3, (where, e["label"])


def test_references_pages_of_every_style_fit_and_numeric_labels_align(
        example_style_builds: dict[tuple[str, str], Build], tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium is not None, "Debian's chromium is required: apt-get install -y chromium"
    checked = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            for kind in STYLES:
                for host in HOSTS:
                    build = example_style_builds[host, kind]
                    page = browser.new_page(viewport=VIEWPORT)
                    page.goto(build.page("references").as_uri())
                    page.wait_for_load_state("load")
                    shot = tmp_path / f"references-{kind}-{host}.png"
                    page.screenshot(path=str(shot))
                    assert shot.stat().st_size > 0
                    scroll_width, client_width = page.evaluate(PAGE_WIDTH)
                    assert scroll_width <= client_width, (host, kind, scroll_width)
                    found = page.evaluate(MARGIN_COLUMN)
                    if kind == "numeric":
                        check_margin_column(found, f"{host} {kind}")
                    else:
                        assert found == [], (host, kind)  # no labels in other kinds of list
                    checked.append((host, kind))
                    page.close()
        finally:
            browser.close()
    assert len(checked) == 6
    assert len(list(tmp_path.glob("references-*.png"))) == 6


@pytest.mark.parametrize("label_edges", [
    # a label wider than the others pushes its text right: not a column
    [(0.0, 30.0, 34.0), (0.0, 36.0, 40.0)],
])
def test_the_column_check_fails_on_a_ragged_column(label_edges: list[tuple[float, ...]]) -> None:
    found = [{"label": f"[{n}]", "labelLeft": left, "labelGlyphsRight": glyphs,
              "textLeft": text, "textTop": 0, "labelTop": 0, "laterLines": [34.0]}
             for n, (left, glyphs, text) in zip((9, 10, 100) * 40, label_edges * 60,
                                                strict=False)]
    with pytest.raises(AssertionError):
        check_margin_column(found, "made up")
