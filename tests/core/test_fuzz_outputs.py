"""Property tests (hypothesis, bounded): hostile entry text through every renderer, and random
page text through the citation finder.

What they hold, for any generated entry: reading, resolving (author-date and numeric) and
rendering raise nothing; the HTML holds only the elements and attributes the renderer writes
(no markup from data, links only http(s)); the Markdown, parsed by Python-Markdown, is one
paragraph with inline emphasis and http(s) links only. The long campaign is
``benchmarks/fuzz_campaign.py``.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import TYPE_CHECKING

import markdown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.html import to_html
from refbook.render.markdown import to_markdown
from refbook.render.text import to_text
from refbook.syntax import find_citations

if TYPE_CHECKING:
    from pathlib import Path

HOSTILE = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", '"', "'", "&amp;",
           "javascript:alert(1)", "\\\\", "\\newline ", "\n\n", "# ", "- ", "1. ", "> ", "    ",
           "| a | b |", "```", "`", "*", "_", "[x](http://e.com)", "![i](x)", "<http://e.com>",
           "\\url{javascript:x}", "\\href{javascript:x}{y}", "{", "}", "$x$", "~", "\u00a0",
           "\\emph{", "\\textbf{", "--", "=", "\\'e", "@", "[", "]", "<!--", "-->", "&#60;"]
FIELDS = ["author", "editor", "title", "booktitle", "journal", "publisher", "note", "url", "doi",
          "howpublished", "year", "pages", "volume", "edition", "address", "series"]

text = st.lists(st.one_of(st.sampled_from(HOSTILE),
                          st.text(alphabet=st.characters(codec="utf-8"), max_size=8)),
                max_size=6).map("".join)
entry = st.fixed_dictionaries(
    {"type": st.sampled_from(["article", "book", "misc", "inproceedings", "online"])},
    optional=dict.fromkeys(FIELDS, text))


def bib_text(entries: list[dict[str, str]]) -> str:
    out = []
    for i, e in enumerate(entries):
        # Balanced braces keep the entry readable, so its fields reach the renderers.
        fields = ",\n".join(f"  {k} = {{{_balanced(v)}}}" for k, v in e.items() if k != "type")
        out.append(f"@{e['type']}{{k{i},\n{fields}\n}}")
    return "\n\n".join(out)


def _balanced(value: str) -> str:
    depth = 0
    kept = []
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                continue
            depth -= 1
        kept.append(ch)
    return "".join(kept) + "}" * depth


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Elements()
    p.feed(html)
    p.close()
    return p.tags


RENDERER_TAGS = {"em", "strong", "sup", "sub", "code", "span", "a"}
RENDERER_STYLES = {None, "font-variant:small-caps", "text-decoration:underline"}


def assert_no_markup_from_data(html: str) -> None:
    for tag, attrs in elements(html):
        assert tag in RENDERER_TAGS, (tag, html)
        assert set(attrs) <= {"href", "class", "data-key", "style"}, (tag, attrs, html)
        assert attrs.get("style") in RENDERER_STYLES, html
        if tag == "a":
            assert (attrs["href"] or "").startswith(("http://", "https://")), html
        if "class" in attrs:
            assert (attrs["class"] or "").startswith("refbook-"), html


def assert_one_paragraph(md: str) -> None:
    html = markdown.markdown(md)
    tags = elements(html)
    assert tags, (md, html)
    assert tags[0][0] == "p", (md, html)
    assert [t for t, _ in tags].count("p") == 1, (md, html)
    for tag, attrs in tags[1:]:
        assert tag in {"em", "strong", "a"}, (tag, md, html)
        if tag == "a":
            assert (attrs.get("href") or "").startswith(("http://", "https://")), (md, html)
            assert "title" not in attrs, (md, html)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(entries=st.lists(entry, min_size=1, max_size=3))
def test_hostile_entries_render_without_markup_from_data(entries: list[dict[str, str]],
                                                         tmp_path: Path) -> None:
    path = tmp_path / "fuzz.bib"
    path.write_text(bib_text(entries), encoding="utf-8", errors="surrogatepass")
    bib = read_bibliography([path])
    assert len(bib.entries) == len(entries), [d.format() for d in bib.diagnostics]
    items = items_for(bib)
    for style in ("chicago-author-date", "numeric"):
        res = Registry().resolve(bib, items, style, nocite=["*"])
        assert len(res.entries) == len(entries)
        for _, rendered in res.entries:
            to_text(rendered)
            assert_no_markup_from_data(to_html(rendered))
            md = to_markdown(rendered)
            if md.strip():
                assert_one_paragraph(md)


page = st.lists(st.one_of(st.sampled_from(["[", "]", "@", "[@", "; ", "-@", "`", "``", "{", "}",
                                           "\n", "\n\n", " ", "p. 3", ",", "@{a:b}", "\\["]),
                          st.text(alphabet="abk1 .:", max_size=4)), max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(before=page, after=page)
def test_citation_finder_on_random_pages(before: str, after: str) -> None:
    found = find_citations(before + after)
    for c in found:
        assert c.keys
    # A well-formed citation between blank lines is found whatever surrounds it.
    text = f"{before}\n\n[@wellformed2020]\n\n{after}"
    keys = {k for c in find_citations(text) for k in c.keys}
    if "`" not in before + after:  # an unclosed code span may legitimately swallow it
        assert "wellformed2020" in keys
