"""Untrusted entry text through the renderers: titles and attributes (``to_title``) and Markdown.

Markdown output is parsed back with Python-Markdown (with the extensions MkDocs sites use and
refbook's citation syntax) and with markdown-it (CommonMark): every entry must be one paragraph
that shows exactly the entry's text, with no element made from the data.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import TYPE_CHECKING

import markdown
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markupsafe import Markup

from mkdocs_refbook.extension import RefbookExtension
from refbook.cli import main
from refbook.ir import Link, Styled, Text
from refbook.render.html import escape_title, to_title
from refbook.render.markdown import to_markdown
from refbook.render.text import one_line, to_line, to_text
from tests.scaling import assert_linear

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from refbook.ir import Inline, Inlines

# -- titles and attributes -------------------------------------------------------------------


class _Doc(HTMLParser):
    """Elements (tag, attributes) and the text of a parsed document."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text = ""
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text += data


HOSTILE_TEXT = st.lists(st.sampled_from([*"<>&\"'`=/ \n\t\x00\x0b\x85\u00a0\u2028aZ;#:",
                                         "<img src=x onerror=alert(1)>", "<script>", "&lt;",
                                         "javascript:", '" onmouseover="alert(1)', "&#34;",
                                         "</title>", "</TITLE ", "<!--", "<?x", "</"]),
                        max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(HOSTILE_TEXT)
def test_escape_title_is_text_in_element_and_attribute_contexts(text: str) -> None:
    title = escape_title(text)
    for context in (f"<a>{title}</a>", f'<a title="{title}">x</a>', f"<a title='{title}'>x</a>",
                    f"<a title={title}>x</a>" if title and " " not in title else "<a>x</a>"):
        doc = _Doc(context)
        assert [tag for tag, _ in doc.elements] == ["a"], context
        assert set(doc.elements[0][1]) <= {"title"}
    shown = one_line(text).replace("<", "<\u2060")  # an invisible word joiner after each "<"
    assert _Doc(f"<a>{title}</a>").text == shown
    assert _Doc(f'<a title="{title}">x</a>').elements[0][1]["title"] == shown
    # a template that unescapes it (Jinja's striptags, as Material's <title>) makes no tag either
    stripped = str(Markup(title).striptags())
    assert "</title" not in stripped.lower()
    assert [tag for tag, _ in _Doc(f"<a>{stripped}</a>").elements] == ["a"], stripped


def test_to_title_is_the_plain_text_on_one_line_escaped() -> None:
    ir: Inlines = (Text('<img src=x onerror="alert(1)">\n  and\x00 '),
                   Styled("emph", (Text("it's"),)), Link("javascript:alert(1)", (Text(" link"),)))
    assert to_line(ir) == '<img src=x onerror="alert(1)"> and it\'s link'
    assert to_title(ir) == ("&lt;\u2060img src=x onerror=&quot;alert(1)&quot;&gt; and it&#x27;s link")


# -- Markdown --------------------------------------------------------------------------------

PYTHON_MARKDOWN_EXTENSIONS = ["extra", "admonition", "meta", "sane_lists", "toc", "nl2br"]
INLINE_TAGS = {"em", "strong", "a"}

HOSTILE_MARKDOWN_BIB = r"""
@book{md1,
  author = {{1. Numbered Corp}},
  title = {A\\# H1\\- item\\+ item\\* item\\> quote\\1) item\newline    code
    \\```\\~~~\\<div onclick="alert(1)">x</div>\\| a | b |\\|---|---|\\[r]: http://e.example
    \\!!! note "x"\\: def\\=== \\--- \\Key: v\par ## after a paragraph break},
  publisher = {P},
  year = {2020},
}

@book{md2,
  author = {{- Dash Corp}},
  title = {<img src=x onerror=alert(1)> *a* _b_ [l](javascript:alert(2)) \verb|`c`| {: onclick="alert(3)"}
    \&amp; \&\#60;script\&\#62; @md1 \$x\$ ~s~ ^p^ | \{++ins++\} [[wiki]] [^1] \textbackslash},
  publisher = {<script>alert(4)</script>},
  year = {2021},
}

@book{md3,
  author = {{Key: Corp}},
  title = {Title},
  year = {2022},
  url = {http://a.example/x "title" 'single' (paren) <angle> \textbackslash},
}

@book{md4,
  author = {{! Bang Corp}},
  title = {Title},
  year = {2023},
  url = {http://b.example/y~"title"},
}

@book{md5,
  author = {{: Colon Corp}},
  title = {Title},
  year = {2024},
  url = {http://c.example/z"onmouseover="alert(5)},
}
"""


def _flat(text: str) -> str:
    # what a Markdown paragraph shows: inner no-break spaces kept, other whitespace one space
    return re.sub(r"[\x00-\x20\x7f-\x9f\u2028\u2029]+", " ", text).strip()


def _python_markdown(source: str) -> str:
    return markdown.markdown(source, extensions=[*PYTHON_MARKDOWN_EXTENSIONS, RefbookExtension()])


def _commonmark(source: str) -> str:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough").render(source)


def _paragraphs(rendered: str) -> list[tuple[list[tuple[str, dict[str, str | None]]], str]]:
    """Per top-level block: the elements inside it, and its text. Fails on a non-paragraph."""
    blocks = re.split(r"(?<=</p>)\s*", rendered.strip())
    out = []
    for block in filter(None, blocks):
        doc = _Doc(block)
        assert doc.elements, block
        assert doc.elements[0] == ("p", {}), block
        out.append((doc.elements[1:], doc.text))
    return out


def _check_markdown(source: str, entries: list[Inlines]) -> None:
    """Each entry is one paragraph showing its text; only emphasis and http(s) links."""
    for parse in (_python_markdown, _commonmark):
        paragraphs = _paragraphs(parse(source))
        assert len(paragraphs) == len(entries), parse(source)
        for (elements, text), entry in zip(paragraphs, entries, strict=True):
            assert text == _flat(to_text(entry)), (parse.__name__, source)
            for tag, attrs in elements:
                assert tag in INLINE_TAGS, (parse.__name__, tag, attrs, source)
                assert set(attrs) <= ({"href"} if tag == "a" else set()), (tag, attrs)
                if tag == "a":
                    href = attrs["href"] or ""
                    assert re.fullmatch(r"https?://[!#-;=?-~]+", href), href  # no space, ", <, >


def test_render_markdown_hostile_entries_are_one_paragraph_of_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = tmp_path / "hostile.bib"
    bib.write_text(HOSTILE_MARKDOWN_BIB, encoding="utf-8")
    from refbook.items import items_for
    from refbook.readers import read_bibliography
    from refbook.registry import Registry

    book = read_bibliography([str(bib)])
    res = Registry().resolve(book, items_for(book), "chicago-author-date", nocite=["*"])
    entries = [ir for _, ir in res.entries]
    assert len(entries) == 5
    capsys.readouterr()
    assert main(["render", str(bib), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    _check_markdown(out, entries)
    for entry in entries:  # each entry alone, too: the first line of a page is special (meta-data)
        _check_markdown(to_markdown(entry), [entry])
    # the data's line breaks and markup are shown as text
    text = _flat(to_text(dict(res.entries)["md1"]))
    assert "# h1 - item + item * item > quote 1) item code" in text.lower()
    assert '<div onclick="alert(1)">x</div> | a | b |' in text.lower()
    assert any("http://a.example/x%20%22title%22%20%27single%27%20%28paren%29%20%3Cangle%3E%20%5C"
               in line for line in out.splitlines())


def _hostile_inlines() -> st.SearchStrategy[Inlines]:
    words = st.lists(st.sampled_from([*"\\`*_{}[]()<>#+-.!|~^$@&:;=%\"' \n\t\u00a0\u2028aZ09",
                                      "1.", "1)", "- ", "+ ", "> ", "```", "~~~", "    ", "\n\n",
                                      "<div>", "[x]: http://e.example", "!!! note", "Key: ",
                                      "&lt;", "&#60;", "{: .c}", "@key", "[@key]", "\\\\"]),
                     max_size=12).map("".join)
    text: st.SearchStrategy[Inline] = words.map(Text)
    url = st.builds(lambda host, path: f"http://{host}.example/{path}",
                    st.sampled_from(["a", "b-c"]), words)
    link: st.SearchStrategy[Inline] = st.builds(
        lambda u, t: Link(u, (Text(t),)), url, st.text(st.sampled_from("abc"), min_size=1))
    emph: st.SearchStrategy[Inline] = st.text(st.sampled_from("abc"), min_size=1).map(
        lambda t: Styled("emph", (Text(t),)))
    return st.lists(st.one_of(text, text, link, emph), min_size=1, max_size=6).map(tuple)


@settings(max_examples=300, deadline=None)
@given(_hostile_inlines())
def test_markdown_of_any_text_is_one_paragraph_of_that_text(ir: Inlines) -> None:
    md = to_markdown(ir)
    if not _flat(to_text(ir)):
        assert md == ""
        return
    assert "\n" not in md
    _check_markdown(md, [ir])


def test_an_entry_opening_with_a_link_is_never_a_link_reference_definition(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A title-only ``@standard`` whose title is a link with the text ``]: gone`` renders as
    ``[\\]: gone](https://…).``, which Python-Markdown took for the definition of the
    reference ``[\\]`` (to the URL ``gone](https://…).``): the entry vanished from the page."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@standard{a, title = {\\href{https://x.example/a}{]: gone}}}\n"
                   "@legislation{b, title = {\\href{https://x.example/b}{x]:y}}}\n",
                   encoding="utf-8")
    from refbook.items import items_for
    from refbook.readers import read_bibliography
    from refbook.registry import Registry

    book = read_bibliography([str(bib)])
    res = Registry().resolve(book, items_for(book), "chicago-author-date", nocite=["*"])
    entries = [ir for _, ir in res.entries]
    assert [to_markdown(ir)[:1] for ir in entries] == ["[", "["]  # a link opens each entry
    capsys.readouterr()
    assert main(["render", str(bib), "--format", "markdown"]) == 0
    _check_markdown(capsys.readouterr().out, entries)
    for entry in entries:
        _check_markdown(to_markdown(entry), [entry])


def test_an_entry_opening_with_three_dots_is_no_end_of_meta_data(tmp_path: Path) -> None:
    """Python-Markdown's ``meta`` extension ends a page's meta-data at a first line starting
    with ``...``, and dropped it: ``...And Justice for All`` (a title-only ``@standard``, shown
    plain) vanished from the top of a page."""
    from refbook.items import items_for
    from refbook.readers import read_bibliography
    from refbook.registry import Registry

    bib = tmp_path / "refs.bib"
    bib.write_text("@standard{a, title = {...And Justice for All}}\n"
                   "@standard{b, title = {{... }and more}}\n", encoding="utf-8")
    book = read_bibliography([str(bib)])
    res = Registry().resolve(book, items_for(book), "chicago-author-date", nocite=["*"])
    entries = [ir for _, ir in res.entries]
    assert [to_text(ir)[:3] for ir in entries] == ["...", "..."]
    for entry in entries:
        _check_markdown(to_markdown(entry), [entry])


def test_a_url_with_spaces_and_quotes_never_gets_a_link_title() -> None:
    for space in ("\u00a0", "\u2003", "\u3000", " "):
        sp = "".join(f"%{b:02X}" for b in space.encode())
        for url, destination in (
                (f'http://a.example/x{space}"title"', f"http://a.example/x{sp}%22title%22"),
                (f"http://a.example/x{space}'title'", f"http://a.example/x{sp}%27title%27"),
                (f"http://a.example/x{space}(title)", f"http://a.example/x{sp}%28title%29"),
                (f"http://a.example/&lt;{space}<x>", f"http://a.example/&amp;lt;{sp}%3Cx%3E")):
            ir: Inlines = (Text("See "), Link(url, (Text("here"),)), Text("."))
            md = to_markdown(ir)
            for parse in (_python_markdown, _commonmark):
                [(elements, text)] = _paragraphs(parse(md))
                assert text == "See here."
                assert [tag for tag, _ in elements] == ["a"]
                assert set(elements[0][1]) == {"href"}, (parse.__name__, md, elements)
            assert md == f"See [here]({destination})."


def test_renderers_are_linear_on_hostile_text() -> None:
    """Doubling a value full of markup characters, line breaks and references at most about
    doubles the time of the Markdown and title renderers (best of 3, ratio <= 3 for a loaded
    machine)."""
    unit = "<\\\n1. [x]* `|~ \u00a0 &lt; {: .c} "

    def run(n: int) -> None:
        text = unit * n
        to_markdown((Text(text), Styled("emph", (Text("a " * n),)),
                     Link("http://a.example/" + "\"' (" * n, (Text("x"),))))
        escape_title(text)

    assert_linear(lambda n: lambda: run(n), 6000)
