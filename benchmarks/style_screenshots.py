"""Screenshots of the example book's References page in three kinds of style, for docs/styles.md.

Usage: ``python benchmarks/style_screenshots.py [--out docs/images]`` (``make screenshots``).
Builds the example book with Sphinx (``-W``) and MkDocs (``--strict``) in an author-date
(``chicago-author-date``), a numeric (``ieee``) and a note style (``chicago-notes-bibliography``)
— the builds of ``tests/test_example_styles.py`` — and saves the first screenful (1280 x 800) of
each References page, opened in Debian's chromium, as ``styles-<kind>-<host>.png``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the builds are the tests' (tests/test_example_styles.py)

from tests.browser.test_live_preview import CHROMIUM_ARGS  # noqa: E402
from tests.test_example_styles import HOSTS, STYLES, build_all  # noqa: E402

VIEWPORT = {"width": 1280, "height": 800}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("Debian's chromium is required: apt-get install -y chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        builds = build_all(Path(tmp))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                for kind in STYLES:
                    for host in HOSTS:
                        page = browser.new_page(viewport=VIEWPORT)
                        page.goto(builds[host, kind].page("references").as_uri())
                        page.wait_for_load_state("load")
                        shot = args.out / f"styles-{kind}-{host}.png"
                        page.screenshot(path=str(shot))
                        page.close()
                        print(f"{shot} ({shot.stat().st_size // 1024} KiB)")
            finally:
                browser.close()


if __name__ == "__main__":
    main()
