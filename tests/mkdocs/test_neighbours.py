"""refbook next to popular plugins, in one site built as a user builds it (``mkdocs build --strict``).

Material for MkDocs with its blog and tags plugins, mkdocs-awesome-pages, mkdocs-macros (a
citation that a macro writes), mkdocs-video (it parses every page with lxml, which fails on a page
that is only an HTML comment), mkdocs-git-revision-date-localized (the site is a git repository),
mkdocstrings with the Python handler (a citation in a docstring) — and a page that is nothing but
a list marker. Nothing reaches the network: the video is an embed URL that is never fetched.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.mkdocs.conftest import BIB
from tests.mkdocs.test_build import cites, entries

BIN = Path(sys.executable).parent

MKDOCS_YML = """\
site_name: Neighbours
site_url: https://example.org/book/
theme:
  name: material
markdown_extensions:
  - toc:
      permalink: true
  - attr_list
  - md_in_html
plugins:
  - search
  - awesome-pages
  - blog
  - tags
  - macros
  - mkdocs-video
  - git-revision-date-localized:
      enable_creation_date: true
  - mkdocstrings:
      handlers:
        python:
          paths: [src]
  - refbook:
      bib_files: [refs.bib]
extra:
  paper: "[@doe2019]"
"""

PAGES = {
    "index.md": """\
        ---
        tags:
          - intro
        ---
        # Home

        See [@smith2020a] and {{ paper }}.

        ![type:video](https://www.youtube.com/embed/LXb3EKWsInQ)
        """,
    "all.md": "<!-- refbook:bibliography all -->\n",
    "api.md": "# API\n\n::: tinymod\n",
    "blog/index.md": "# Blog\n",
    "blog/posts/first.md": """\
        ---
        date: 2024-01-02
        ---
        # First post

        Cites @lee2021.

        <!-- more -->

        More text.
        """,
    ".pages": "nav:\n  - index.md\n  - api.md\n  - blog\n  - ...\n",
}

MODULE = '''\
"""A tiny module."""


def answer() -> int:
    """The answer, as in [@smith2020b].

    Returns:
        Forty-two.
    """
    return 42
'''


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.org",
                    "-c", "commit.gpgsign=false", *args], cwd=root, check=True,
                   capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("neighbours")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "tinymod.py").write_text(MODULE, encoding="utf-8")
    for name, text in PAGES.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the book")
    env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([str(BIN / "mkdocs"), "build", "--strict"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    return root / "site", done


def test_the_site_builds_strict_without_a_warning(
        site: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, done = site
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("WARNING")] == []


def test_every_citation_is_resolved_and_the_lists_are_there(
        site: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, done = site
    assert done.returncode == 0, done.stderr[-3000:]

    def page(name: str) -> str:
        return (out / name).read_text(encoding="utf-8")

    # a macro's citation and the page's own; year suffixes are book-wide (2020b is in a docstring)
    assert cites(page("index.html")) == ["(Smith 2020a)", "(Doe and Roe 2019)"]
    assert "<video" in page("index.html") or "<iframe" in page("index.html")
    assert cites(page("api/index.html")) == ["(Smith 2020b)"]
    assert cites(page("blog/2024/01/02/first-post/index.html")) == ["Lee (2021)"]
    # the blog's index shows the post's excerpt, citation included
    assert cites(page("blog/index.html")) == ["Lee (2021)"]
    # the marker-only page holds the book's list: every entry, with back-links
    listed = page("all/index.html")
    assert entries(listed) == ["doe2019", "lee2021", "uncited2017", "odd.key:x/y",
                               "smith2020a", "smith2020b"]
    backlinks = [re.sub(r"<[^>]+>", "", b) for b in
                 re.findall(r'<span class="refbook-backlinks">(.*?)</span>', listed)]
    assert backlinks == ["Cited in: Home.", "Cited in: First post.", "Cited in: Home.",
                         "Cited in: API › answer."]
    for path in out.rglob("*.html"):
        # (mkdocstrings shows the module's source: code keeps the citation as written)
        text = re.sub(r"<pre\b.*?</pre>", "", path.read_text(encoding="utf-8"), flags=re.S)
        assert "refbook-pending" not in text, path
        assert "refbook-unresolved" not in text, path
        assert "refbook:bibliography" not in text, path
        assert "[@" not in text, path
