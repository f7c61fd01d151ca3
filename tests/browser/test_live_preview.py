"""Live preview in a real browser: ``mkdocs serve --livereload`` + Debian's chromium via Playwright.

Edits the ``.bib`` file (outside ``docs_dir``: only the plugin's ``on_serve`` makes MkDocs watch it)
and then a page, and waits until the open page shows the new text. Prints the delay from save to
update. Nothing is skipped: a missing chromium fails the test (CI installs it with apt).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import TYPE_CHECKING

import pytest
import yaml

from tests.mkdocs.conftest import BIB

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from playwright.sync_api import Page

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_served(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"mkdocs serve exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"mkdocs serve did not answer on {url} within {timeout} s")


@pytest.fixture
def served_book(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\nAs shown [@smith2020a].\n", encoding="utf-8")
    config = {"site_name": "Live", "plugins": [{"refbook": {"bib_files": ["refs.bib"]}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        _wait_until_served(url, proc)
        yield tmp_path, url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _wait_for_text(page: Page, selector: str, text: str, timeout: float = 30) -> float:
    """Seconds until ``selector`` shows ``text`` (the page reloads itself on rebuild)."""
    start = time.monotonic()
    deadline = start + timeout
    while time.monotonic() < deadline:
        try:
            if text in page.locator(selector).first.inner_text(timeout=500):
                return time.monotonic() - start
        except Exception:
            pass
        page.wait_for_timeout(50)
    pytest.fail(f"{selector} did not show {text!r} within {timeout} s")


def test_bib_and_page_edits_show_up_in_the_open_page(
        served_book: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    from playwright.sync_api import sync_playwright

    root, url = served_book
    chromium = shutil.which("chromium")
    assert chromium is not None, "Debian's chromium is required: apt-get install -y chromium"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(url)
            assert page.locator(".refbook-cite").first.inner_text() == "(Smith 2020)"

            bib = root / "refs.bib"
            bib.write_text(bib.read_text(encoding="utf-8").replace(
                "title = {Alpha Results},\n  journal = {Journal of Tests},\n  year = {2020}",
                "title = {Alpha Results},\n  journal = {Journal of Tests},\n  year = {2024}"),
                encoding="utf-8")
            bib_delay = _wait_for_text(page, ".refbook-cite", "(Smith 2024)")
            title = page.locator(".refbook-cite-item").first.get_attribute("title") or ""
            assert title.startswith("Smith, John. 2024.")

            doc = root / "docs" / "index.md"
            doc.write_text(doc.read_text(encoding="utf-8") + "\nAnd @doe2019 too.\n",
                           encoding="utf-8")
            page_delay = _wait_for_text(page, ".refbook-cite >> nth=1", "Doe and Roe (2019)")
        finally:
            browser.close()
    with capsys.disabled():
        print(f"\nlive preview: .bib edit shown after {bib_delay:.2f} s, "
              f"page edit shown after {page_delay:.2f} s")
