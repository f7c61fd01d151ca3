"""The example book in three kinds of style, built by both hosts with warnings as errors.

Issue 13's evidence 3: the book of ``example_book/`` is built by Sphinx (``-W``) and by MkDocs
(``--strict``) with an author-date style (``chicago-author-date``, the default), a numeric style
whose labels sit in a margin column (``ieee``, ``second-field-align``) and a note style
(``chicago-notes-bibliography``: citations become footnotes). The book is not edited: Sphinx gets
``-D refbook_style=...``, MkDocs a temporary copy of ``mkdocs.yml`` with ``style:`` set (its paths
made absolute, the book's ``pyproject.toml`` beside it). The six builds run as subprocesses,
two at a time, once per test session (the ``example_style_builds`` fixture of
``tests/conftest.py``); the tests read the HTML they wrote, and ``tests/browser/test_example_styles_layout.py`` opens it.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

BOOK = ROOT / "example_book"
HOSTS = ("sphinx", "mkdocs")
#: kind of style -> the style name both hosts are given
STYLES = {"author-date": "chicago-author-date", "numeric": "ieee",
          "note": "chicago-notes-bibliography"}
ENTRIES = 253  # the seed bibliography: every entry is cited somewhere in the book


@dataclass(frozen=True)
class Build:
    """One finished build: its host, kind of style and output folder."""

    host: str
    kind: str
    out: Path

    def page(self, name: str) -> Path:
        """The HTML file of a page (``references``, ``01-hardware``) in this host's layout."""
        if self.host == "sphinx":
            return self.out / f"{name}.html"
        return self.out / name / "index.html" if name != "index" else self.out / "index.html"


def build_command(host: str, style: str, out: Path) -> list[str]:
    """The command that builds the book with ``style`` into ``out`` (warnings are errors)."""
    if host == "sphinx":
        return [sys.executable, "-m", "sphinx", "-W", "-q", "-c", str(BOOK),
                "-D", f"refbook_style={style}", str(BOOK / "docs"), str(out)]
    config = yaml.safe_load((BOOK / "mkdocs.yml").read_text(encoding="utf-8"))
    config["docs_dir"] = str(BOOK / "docs")
    config["site_dir"] = str(out)
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "refbook" in plugin:
            options = plugin["refbook"]
            options["bib_files"] = [str(BOOK / b) for b in options["bib_files"]]
            options["style"] = style
    out.parent.mkdir(parents=True, exist_ok=True)
    yml = out.parent / f"mkdocs-{out.name}.yml"
    # the book's check settings ([tool.refbook.check]) are read next to mkdocs.yml
    (out.parent / "pyproject.toml").write_bytes((BOOK / "pyproject.toml").read_bytes())
    yml.write_text(yaml.safe_dump(config), encoding="utf-8")
    return [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(yml)]


def build_all(root: Path) -> dict[tuple[str, str], Build]:
    """Build the book in every host and kind of style under ``root``, two builds at a time.

    A failed build (a warning under -W/--strict) raises with its output."""
    jobs = [(host, kind) for kind in STYLES for host in HOSTS]

    def run(job: tuple[str, str]) -> Build:
        host, kind = job
        out = root / f"{host}-{kind}"
        proc = subprocess.run(build_command(host, STYLES[kind], out), capture_output=True,
                              text=True, cwd=root, timeout=900, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{host} build with {STYLES[kind]} failed ({proc.returncode}):\n"
                               f"{proc.stdout}\n{proc.stderr}")
        return Build(host, kind, out)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return {(b.host, b.kind): b for b in pool.map(run, jobs)}


CITE_LINK = re.compile(r'<a [^>]*href="[^"]*#ref-[^"]*"[^>]*>(.*?)</a>', re.S)
ENTRY = re.compile(r'<p class="[^"]*refbook-entry[^"]*" id="ref-[^"]*">(.*?)</p>', re.S)
LABEL = re.compile(r'^<span class="refbook-csl-left-margin">(.*?)</span>(\s*)(.*)$', re.S)
#: an author-date citation's text: "Peddie 2023", "Lee et al. 2024b", "Goldberg 1991, sec. 1",
#: "2023–2026" (a narrative citation's year part), "n.d."
AUTHOR_DATE = re.compile(r"(^|\s)(\d{4}[a-z]?(–\d{4})?|n\.d\.)(,|$)")
NUMBER_LABEL = re.compile(r"^\[(\d+)\]$")
#: a numeric citation: "[3]", with a locator "[34, Sec. 1]"
NUMBER_CITE = re.compile(r"^\[(\d+)(, [^\]]+)?\]$")


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def chapters(build: Build) -> list[Path]:
    names = sorted(p.stem for p in (BOOK / "docs").glob("*.md") if p.stem != "references")
    return [build.page(n) for n in names]


def cite_texts(build: Build) -> list[str]:
    """The text of every link to a reference-list entry on the book's pages (not the list)."""
    return [text(m.group(1)) for page in chapters(build)
            for m in CITE_LINK.finditer(page.read_text(encoding="utf-8"))]


def entries(build: Build) -> list[str]:
    return [m.group(1) for m in
            ENTRY.finditer(build.page("references").read_text(encoding="utf-8"))]


def footnotes(build: Build, page: Path) -> tuple[list[str], list[str]]:
    """(marks in the text, footnote bodies) of a page, in the host's own footnote markup."""
    source = page.read_text(encoding="utf-8")
    if build.host == "sphinx":
        marks = re.findall(r'role="doc-noteref"', source)
        bodies = re.findall(r'<aside class="footnote[^"]*"[^>]*role="doc-footnote">(.*?)</aside>',
                            source, re.S)
    else:
        marks = re.findall(r'class="footnote-ref"', source)
        bodies = re.findall(r'<li id="fn:[^"]*">(.*?)</li>', source, re.S)
    return marks, bodies


def list_kind(build: Build) -> str:
    found = re.search(r'class="refbook-bibliography csl-bib-body refbook-([a-z-]+)',
                      build.page("references").read_text(encoding="utf-8"))
    assert found, build
    return found.group(1)


@pytest.mark.parametrize("host", HOSTS)
def test_author_date_style_cites_author_and_year(
        example_style_builds: dict[tuple[str, str], Build], host: str) -> None:
    build = example_style_builds[host, "author-date"]
    cites = cite_texts(build)
    assert len(cites) > 250
    # a citation link holds the year, or is a narrative citation's author ("Smith (2020)")
    with_year = [c for c in cites if AUTHOR_DATE.search(c)]
    assert len(with_year) > 0.75 * len(cites)
    assert [c for c in cites if c not in with_year and re.search(r"\d", c)] == []
    assert not [c for c in cites if NUMBER_CITE.match(c)]
    # parenthetical citations read "(Author Year)" in the page text
    page_text = text(build.page("01-hardware").read_text(encoding="utf-8"))
    assert len(re.findall(r"\([A-Z][^()]* \d{4}[a-z]?\)", page_text)) > 10
    found = entries(build)
    assert len(found) == ENTRIES
    assert not [e for e in found if "refbook-csl-left-margin" in e]
    assert list_kind(build) == "author-date"
    assert not any(footnotes(build, page)[0] for page in chapters(build))


@pytest.mark.parametrize("host", HOSTS)
def test_numeric_style_has_number_labels_in_a_margin_column(
        example_style_builds: dict[tuple[str, str], Build], host: str) -> None:
    build = example_style_builds[host, "numeric"]
    cites = cite_texts(build)
    assert len(cites) > 250
    assert [c for c in cites if not NUMBER_CITE.match(c)] == []
    found = entries(build)
    assert len(found) == ENTRIES
    labels = []
    for entry in found:
        # second-field-align: the label in its own box, then a space, then the entry's text
        parts = LABEL.match(entry)
        assert parts, entry[:200]
        label, gap, rest = parts.groups()
        assert gap == " ", entry[:200]  # not glued to the text ("[1]Y. LeCun")
        assert text(rest)[:1].isalnum() or text(rest)[:1] in "“\"", entry[:200]
        number = NUMBER_LABEL.match(text(label))
        assert number, label
        labels.append(int(number.group(1)))
    # numbered in the order of first citation, every label once
    assert labels == list(range(1, ENTRIES + 1))
    assert list_kind(build) == "numeric"
    # the citations use the labels of the list
    assert {int(NUMBER_CITE.match(c).group(1)) for c in cites} == set(labels)  # type: ignore[union-attr]


@pytest.mark.parametrize("host", HOSTS)
def test_note_style_turns_citations_into_footnotes(
        example_style_builds: dict[tuple[str, str], Build], host: str) -> None:
    build = example_style_builds[host, "note"]
    total = 0
    for page in chapters(build):
        marks, bodies = footnotes(build, page)
        assert len(marks) == len(bodies), page
        total += len(bodies)
        # the book's pages have no footnotes of their own: every note is a citation
        for body in bodies:
            assert "#ref-" in body, (page, body[:300])
    assert total > 200
    cites = cite_texts(build)
    # no "(Author Year)" or "[n]" citation left in the text: the notes hold full references
    assert not [c for c in cites if NUMBER_CITE.match(c)]
    assert not [c for c in cites if re.fullmatch(r"[^,]+ \d{4}[a-z]?", c)]
    found = entries(build)
    assert len(found) == ENTRIES
    assert not [e for e in found if "refbook-csl-left-margin" in e]
    assert list_kind(build) == "note"
