"""The extension's early pass: bracketed citations taken before Python-Markdown's link
processors, each of which scans the whole text of a paragraph that holds a ``[``.

The early pass must change nothing but the time: every page renders the same HTML with it as
without it (the same citations, with the same sources, and every link, image, reference link,
footnote, raw HTML and autolink as Python-Markdown makes them), and on a paragraph of
citations Python-Markdown's bracket scans run no more."""

from __future__ import annotations

import html
import random
import sys
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING

import markdown
import pytest
from markdown.inlinepatterns import LinkInlineProcessor

from mkdocs_refbook.extension import RefbookExtension

if TYPE_CHECKING:
    from refbook.syntax import Citation

ROOT = Path(__file__).resolve().parents[2]
SDIST = Path(sys.executable).parent.parent / "sdists" / "mkdocs_bibtex-4.4.0.tar.gz"

#: the extensions of real MkDocs sites (Material's recommended set among them) that put
#: inline patterns near the citations' or change the text they see
EXTENSIONS = ["footnotes", "attr_list", "md_in_html", "abbr", "def_list", "tables", "toc",
              "pymdownx.magiclink", "pymdownx.bracketspan", "pymdownx.inlinehilite",
              "pymdownx.keys", "pymdownx.emoji", "pymdownx.mark", "pymdownx.tilde",
              "pymdownx.caret", "pymdownx.betterem"]

TRICKY = [
    "Plain [@a] and [see @b, p. 3; @c] and [-@d].",
    "A link [@a](https://example.org) and a citation [@b].",
    "An image ![@a](x.png) then [@b].",
    "A reference link [@a][ref] and [@b].\n\n[ref]: https://example.org",
    "A shortcut reference [@a] defined below, and [@b].\n\n[@a]: https://example.org",
    "A spaced reference [@a] [ref] and [@b].\n\n[ref]: https://example.org",
    "Raw <span title='[@a]'>html</span> and [@b].",
    "An autolink <https://example.org/@a> and [@b].",
    "A mail <someone@example.org> and [@b].",
    "A bare URL https://example.org/[@a] and [@b].",
    "www.example.org and [@b].",
    "A narrative @a [p. 4] and [@b].",
    "A narrative @a [@b] and [@c].",
    "Hard  \nbreak [@a] and [see  \n@b].",
    "Nested [see [x] @a] and [[@b]] and [@c [x]].",
    "Link text holding a citation [see [@a]](https://example.org) and [@b].",
    "Code `[@a]` and [@b] and ``[@c]`` .",
    "Escaped \\[@a] and [\\@b] and [@c].",
    "A footnote[^n] and [@a].\n\n[^n]: The note cites [@b] and @c.",
    "Emphasis *see [@a]* and **[@b]** and ==[@c]== and ~~[@d]~~.",
    "Attributes [@a]{: .x} and [text]{: .y} and [@b].",
    "Keys ++ctrl+[@a]++ and [@b].",
    "Emoji :smile: [@a] and :[@b]:.",
    "Brackets [no citation] [@a] [also none] [@b; @c].",
    "An e-mail in brackets [write to a@b.org] and [@a].",
    "Unclosed [@a and [@b].",
    "Suffix with a link [@a, see https://example.org] and [@b].",
    "Abbreviation HTML [@a].\n\n*[HTML]: Hyper Text Markup Language",
    "| table | [@a] |\n|---|---|\n| [@b] | x [@c] |",
    "Term [@a]\n:   Definition [@b].",
    "<div markdown>\nInside [@a] and [@b].\n</div>",
]


class Host:
    """Every citation as a ``<cite>`` naming its keys, mode and source, as a host would."""

    def cite(self, citation: Citation) -> str:
        return (f'<cite data-mode="{citation.mode}" data-src="{html.escape(citation.source)}">'
                f'{" ".join(citation.keys)}</cite>')

    def lists(self, text: str) -> str:
        return text

    def footnotes(self, root: object) -> None:
        return None


def _render(text: str, *, early: bool, host: bool) -> str:
    ext = RefbookExtension()
    ext.host = Host() if host else None
    md = markdown.Markdown(extensions=[*EXTENSIONS, ext])
    if not early:
        md.inlinePatterns.deregister("refbook-citation-early")
    return md.convert(text)


def _pages() -> list[tuple[str, str]]:
    pages = [(f"tricky {i}", t) for i, t in enumerate(TRICKY)]
    for path in sorted([*ROOT.glob("docs/**/*.md"), *ROOT.glob("example_book/**/*.md"),
                        ROOT / "README.md"]):
        pages.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from mkdocs_bench import make_page
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    rng = random.Random(7)
    pages += [(f"bench page {p}", make_page(p, 300, rng)) for p in range(3)]
    return pages


def _sdist_pages() -> list[tuple[str, str]]:
    if not SDIST.is_file():
        return []
    with tarfile.open(SDIST) as archive:
        return [(m.name, archive.extractfile(m).read().decode("utf-8"))  # type: ignore[union-attr]
                for m in archive.getmembers() if m.isfile() and m.name.endswith(".md")]


@pytest.mark.parametrize("host", [True, False], ids=["host", "pending"])
def test_early_pass_renders_every_page_as_the_usual_pass(host: bool) -> None:
    pages = [*_pages(), *_sdist_pages()]
    assert len(pages) > 60
    taken = 0
    for name, text in pages:
        usual = _render(text, early=False, host=host)
        assert _render(text, early=True, host=host) == usual, name
        taken += usual.count("<cite" if host else "refbook-pending")
    assert taken > 100  # the corpus has citations to find


def test_early_pass_leaves_links_to_python_markdown() -> None:
    """Where a bracket is a link (or may be), the citation is not taken early."""
    out = _render("[@a](https://example.org) [@b]", early=True, host=True)
    assert '<a href="https://example.org">@a</a>' in out
    assert '<cite data-mode="parenthetical" data-src="[@b]">b</cite>' in out
    out = _render("[@a] [@b]\n\n[@a]: https://example.org", early=True, host=True)
    assert '<a href="https://example.org">@a</a>' in out


def test_paragraphs_with_citations_are_not_scanned_as_links(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: Python-Markdown's bracket scan (a pass over the whole text of a
    paragraph, character by character, by each of its reference, link and short-reference
    processors that meets a ``[`` in it) runs three times per paragraph that cites without the
    early pass, and not at all with it."""
    calls: list[int] = []
    scan = LinkInlineProcessor._findBracketEnds

    def counted(data: str) -> list[int | None]:
        calls.append(len(data))
        return scan(data)

    monkeypatch.setattr(LinkInlineProcessor, "_findBracketEnds", staticmethod(counted))
    text = "\n\n".join(f"Words about topic {i} [@key{i}], then [see @a; @b, p. {i}] and more."
                        for i in range(40))
    usual = _render(text, early=False, host=True)
    assert len(calls) == 3 * 40
    calls.clear()
    assert _render(text, early=True, host=True) == usual
    assert calls == []
    assert usual.count("<cite") == 80


def test_a_paragraph_is_read_whole_once_by_the_early_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: the early pass decides on a paragraph's whole text once; the texts it makes
    from it (each citation replaced by a placeholder) keep that answer without being read
    whole again, so a paragraph of n citations costs it linear time."""
    import re

    from mkdocs_refbook import extension

    reads: list[int] = []

    class Counted:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def sub(self, repl: str, text: str) -> str:
            reads.append(len(text))
            return self.pattern.sub(repl, text)

    monkeypatch.setattr(extension, "_BRACKETED", Counted(extension._BRACKETED))
    for n in (10, 200):
        reads.clear()
        text = " ".join(f"Words [@key{i}; @b, p. {i}] and more." for i in range(n))
        assert _render(text, early=True, host=True).count("<cite") == n
        assert len(reads) == 1
