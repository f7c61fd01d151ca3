"""The References page of both hosts in a real browser (Debian's chromium via Playwright).

The book of ``tests/test_list_parity.py`` (one entry holds a 300-character URL) is built by the
Sphinx extension and by the MkDocs plugin, each with its default theme. At a phone width (375 px)
and a desktop width (1280 px) each References page must fit the window — no horizontal
scrollbar, every entry inside the window, the long URL wrapped by the shared stylesheet — and
both hosts' lists must read the same in the DOM: the same entries in the same order, the same
ids and classes, the same back-link texts pointing at the same citations. Screenshots of every
page are saved in the test's temporary folder. Nothing is skipped: a missing chromium fails.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.test_live_preview import CHROMIUM_ARGS
from tests.test_list_parity import LONG_URL, build_book, link_target

if TYPE_CHECKING:
    from pathlib import Path

    from tests.test_list_parity import Built

WIDTHS = {"phone": 375, "desktop": 1280}

# What a reader sees of the list, read from the live DOM (host-specific classes left out, link
# targets as written in the page: the hosts' URLs differ, the pages and citations do not).
READ_LIST = """() => {
  const own = el => [...el.classList].filter(c => c.startsWith("refbook-") || c.startsWith("csl-"));
  const box = document.querySelector(".refbook-bibliography");
  return {
    classes: own(box),
    entries: [...box.querySelectorAll(".refbook-entry")].map(e => {
      const back = e.querySelector(".refbook-backlinks");
      const rect = e.getBoundingClientRect();
      return {
        tag: e.tagName.toLowerCase(), id: e.id, classes: own(e),
        backlinks: back ? back.textContent : null,
        links: back ? [...back.querySelectorAll("a")].map(a => [a.textContent,
                                                               a.getAttribute("href")]) : [],
        left: rect.left, right: rect.right, height: rect.height,
        lineHeight: parseFloat(getComputedStyle(e).lineHeight) || 20,
        overflowWrap: getComputedStyle(e).overflowWrap,
      };
    }),
  };
}"""

PAGE_WIDTH = """() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,
                  window.innerWidth]"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_book(tmp_path_factory.mktemp("layout"))


def _targets(entries: list[dict[str, Any]], host: str) -> list[list[tuple[str, tuple[str, int]]]]:
    return [[(text, link_target(href, host)) for text, href in e["links"]] for e in entries]


def test_references_page_fits_phone_and_desktop_in_both_hosts(built: Built,
                                                              tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium is not None, "Debian's chromium is required: apt-get install -y chromium"
    pages = {"sphinx": built.sphinx_references, "mkdocs": built.mkdocs_references}
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            for width_name, width in WIDTHS.items():
                for host, path in pages.items():
                    page = browser.new_page(viewport={"width": width, "height": 800})
                    page.goto(path.as_uri())
                    page.wait_for_load_state("load")
                    shot = tmp_path / f"references-{host}-{width_name}.png"
                    page.screenshot(path=str(shot), full_page=True)
                    assert shot.stat().st_size > 0
                    scroll_width, client_width, inner = page.evaluate(PAGE_WIDTH)
                    assert client_width <= inner
                    # no horizontal scrollbar
                    assert scroll_width <= client_width, (host, width_name, scroll_width)
                    seen[host, width_name] = found = page.evaluate(READ_LIST)
                    for entry in found["entries"]:
                        assert entry["overflowWrap"] == "anywhere", (host, entry["id"])
                        assert entry["left"] >= 0, (host, width_name, entry["id"])
                        assert entry["right"] <= client_width, (
                            host, width_name, entry["id"], entry["right"])
                    page.close()
        finally:
            browser.close()

    for width_name in WIDTHS:
        sphinx, mkdocs = seen["sphinx", width_name], seen["mkdocs", width_name]
        assert sphinx["classes"] == mkdocs["classes"] == [
            "refbook-bibliography", "csl-bib-body", "refbook-author-date"]
        layout_free = [{k: e[k] for k in ("tag", "id", "classes", "backlinks")}
                       for e in sphinx["entries"]]
        assert layout_free == [{k: e[k] for k in ("tag", "id", "classes", "backlinks")}
                               for e in mkdocs["entries"]]
        assert [e["id"] for e in sphinx["entries"]] == [
            "ref-alpha2020", "ref-beta2019", "ref-longurl2021"]
        assert _targets(sphinx["entries"], "sphinx") == _targets(mkdocs["entries"], "mkdocs")
        # the 300-character URL wraps: its entry is many lines high on a phone, in both hosts
        if width_name == "phone":
            for host in pages:
                long_entry = seen[host, width_name]["entries"][2]
                assert long_entry["height"] > 5 * long_entry["lineHeight"], (host, long_entry)
    assert len(LONG_URL) == 300
    assert sorted(p.name for p in tmp_path.glob("references-*.png")) == sorted(
        f"references-{h}-{w}.png" for h in pages for w in WIDTHS)
