"""One book, two hosts, one reference list: the Sphinx extension and the MkDocs plugin write the
same list structure — container and entry classes, entry ids ``ref-<key>``, back-links with the
same text pointing at the same citations — because one core function
(``refbook.render.reference_list``) lays it out.

The book cites from page tops, sub-sections and a section title holding a citation (the
back-link names it by its rendered text, ``Sub section with citation (Long 2021)``, not by its
source), also in a sub-section deeper than MkDocs' table of contents. The HTML is parsed; the
browser test (``tests/browser/test_reference_list_layout.py``) builds the same book.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from refbook.render.reference_list import STYLESHEET

LONG_URL = "https://example.org/" + "a" * 280
assert len(LONG_URL) == 300

BIB = f"""@article{{alpha2020,
  author = {{Alpha, Ann}},
  title = {{First Things}},
  journal = {{Journal of Things}},
  year = {{2020}},
}}

@book{{beta2019,
  author = {{Beta, Bo and Gamma, Gil}},
  title = {{Second Thoughts}},
  publisher = {{Press}},
  year = {{2019}},
}}

@misc{{longurl2021,
  author = {{Long, Lou}},
  title = {{A Page with a Very Long Address}},
  year = {{2021}},
  howpublished = {{Web}},
  url = {{{LONG_URL}}},
}}
"""

INDEX = """# Home

```{toctree}
:hidden:

ch1
ch2
references
```

Home cites [@alpha2020].
"""

CH1 = """# Chapter, One

Top cites [@alpha2020; @longurl2021].

## Sub section with citation [@longurl2021]

Again [@alpha2020] and [see @beta2019, p. 3].

### Deeper than the toc [@beta2019]

Deep down, @beta2019 and [@alpha2020].
"""

CH2 = """# Two

As @beta2019 showed, and [@longurl2021].

## Also here

[@beta2019; @alpha2020]
"""

REFERENCES = """# References

<!-- refbook:bibliography -->
"""

CONF = """\
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {{".md": "markdown"}}
root_doc = "index"
refbook_bibfiles = ["../refs.bib"]
refbook_style = "{style}"
"""

MKDOCS = """\
site_name: A book
docs_dir: docs
nav: [index.md, ch1.md, ch2.md, references.md]
markdown_extensions:
  - toc:
      toc_depth: 2
plugins:
  - refbook:
      bib_files: [refs.bib]
      style: {style}
"""


@dataclass(frozen=True)
class Built:
    """A built book: the two sites and their References pages."""

    sphinx: Path
    mkdocs: Path

    @property
    def sphinx_references(self) -> Path:
        return self.sphinx / "references.html"

    @property
    def mkdocs_references(self) -> Path:
        return self.mkdocs / "references" / "index.html"


def build_book(root: Path, style: str = "chicago-author-date") -> Built:
    """Write the book under ``root`` and build it with both hosts, warnings as errors."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from sphinx.cmd.build import build_main

    book = root / "book"
    (book / "docs").mkdir(parents=True)
    for name, text in {"refs.bib": BIB, "conf.py": CONF.format(style=style),
                       "mkdocs.yml": MKDOCS.format(style=style), "docs/index.md": INDEX,
                       "docs/ch1.md": CH1, "docs/ch2.md": CH2,
                       "docs/references.md": REFERENCES}.items():
        (book / name).write_text(text, encoding="utf-8")
    built = Built(root / "sphinx", root / "mkdocs")
    assert build_main(["-W", "-q", "-c", str(book), str(book / "docs"), str(built.sphinx),
                       "-d", str(root / "doctrees")]) == 0
    cfg = load_config(config_file=str(book / "mkdocs.yml"), site_dir=str(built.mkdocs),
                      strict=True)
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)
    cfg.plugins.on_shutdown()
    return built


# -- the list as a structure ---------------------------------------------------------------------

#: classes a host adds on its own (docutils' container, Sphinx's reference links)
_HOST_CLASSES = {"docutils", "container", "reference", "internal", "external"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str]

    @property
    def classes(self) -> list[str]:
        return [c for c in self.attrs.get("class", "").split() if c not in _HOST_CLASSES]

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, cls: str) -> list[Element]:
        out = []
        for c in self.children:
            if isinstance(c, Element):
                if cls in c.classes:
                    out.append(c)
                out.extend(c.find_all(cls))
        return out


_VOID = frozenset({"meta", "link", "br", "img", "input", "hr", "source", "col", "area", "base",
                   "wbr"})


class _Tree(HTMLParser):

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("root", {}, [])
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs}, [])
        self.stack[-1].children.append(el)
        if tag not in _VOID:
            self.stack.append(el)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(path: Path) -> Element:
    tree = _Tree()
    tree.feed(path.read_text(encoding="utf-8"))
    return tree.root


def link_target(href: str, host: str) -> tuple[str, int]:
    """A back-link's target as (page, n-th citation of that page), whatever the host's URLs."""
    parts = urlsplit(href)
    path = parts.path.rstrip("/")
    page = path.rsplit("/", 1)[-1].removesuffix(".html") if path and path != ".." else "index"
    pattern = r"cite-[a-z0-9-]+-(\d+)" if host == "sphinx" else r"refbook-cite-(\d+)"
    m = re.fullmatch(pattern, unquote(parts.fragment))
    assert m is not None, href
    return page, int(m.group(1))


def list_structure(path: Path, host: str) -> dict[str, object]:
    """The reference list of a built page, host-neutral: what a reader and a stylesheet see."""
    lists = parse(path).find_all("refbook-bibliography")
    assert len(lists) == 1, path
    box = lists[0]
    entries = []
    for entry in box.find_all("refbook-entry"):
        backs = entry.find_all("refbook-backlinks")
        assert len(backs) <= 1
        content = [c for c in entry.children if not (isinstance(c, Element) and c in backs)]
        links = [a for a in (backs[0].children if backs else []) if isinstance(a, Element)]
        entries.append({
            "tag": entry.tag,
            "id": entry.attrs.get("id"),
            "classes": entry.classes,
            "text": "".join(c if isinstance(c, str) else c.text() for c in content),
            "backlinks": backs[0].text() if backs else None,
            "backlinks_classes": backs[0].classes if backs else None,
            "links": [(a.tag, a.text(), link_target(a.attrs["href"], host)) for a in links],
        })
    return {"tag": box.tag, "classes": box.classes, "entries": entries}


def citation_ids(path: Path, host: str) -> list[str]:
    """The ids of the citations of a page, in order (what back-links point at)."""
    pattern = r'id="(cite-[a-z0-9-]+-\d+)"' if host == "sphinx" else r'id="(refbook-cite-\d+)"'
    return re.findall(pattern, path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=["chicago-author-date", "numeric"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_book(tmp_path_factory.mktemp("list-parity"), request.param)


def test_both_hosts_write_the_same_reference_list(built: Built) -> None:
    sphinx = list_structure(built.sphinx_references, "sphinx")
    mkdocs = list_structure(built.mkdocs_references, "mkdocs")
    assert sphinx == mkdocs


def _numeric(built: Built) -> bool:
    return "refbook-numeric" in str(list_structure(built.mkdocs_references, "mkdocs")["classes"])


def test_the_list_structure_is_the_core_s(built: Built) -> None:
    """What both hosts agree on is what the core decides (not an accident of both)."""
    numeric = _numeric(built)
    heading = "Sub section with citation " + ("[2]" if numeric else "(Long 2021)")
    deeper = "Deeper than the toc " + ("[3]" if numeric else "(Beta and Gamma 2019)")
    found = list_structure(built.mkdocs_references, "mkdocs")
    assert found["tag"] == "div"
    assert found["classes"] == ["refbook-bibliography", "csl-bib-body",
                                "refbook-numeric" if numeric else "refbook-author-date"]
    entries = found["entries"]
    assert isinstance(entries, list)
    assert [e["id"] for e in entries] == (
        ["ref-alpha2020", "ref-longurl2021", "ref-beta2019"] if numeric
        else ["ref-alpha2020", "ref-beta2019", "ref-longurl2021"])
    by_id = {e["id"]: e for e in entries}
    for e in entries:
        assert e["tag"] == "p"
        assert e["classes"] == ["csl-entry", "refbook-entry"]
        assert e["backlinks_classes"] == ["refbook-backlinks"]
        assert e["text"].endswith(". ")  # the entry, then the gap before its back-links
    assert by_id["ref-alpha2020"]["backlinks"] == (
        f"Cited in: Home; Chapter, One; Chapter, One › {heading}; "
        f"Chapter, One › {deeper}; Two › Also here.")
    assert by_id["ref-alpha2020"]["links"] == [
        ("a", "Home", ("index", 0)),
        ("a", "Chapter, One", ("ch1", 0)),
        ("a", f"Chapter, One › {heading}", ("ch1", 2)),
        ("a", f"Chapter, One › {deeper}", ("ch1", 6)),
        ("a", "Two › Also here", ("ch2", 2)),
    ]
    assert by_id["ref-longurl2021"]["backlinks"] == (
        f"Cited in: Chapter, One; Chapter, One › {heading}; Two.")
    assert [t for _, _, t in by_id["ref-longurl2021"]["links"]] == [
        ("ch1", 0), ("ch1", 1), ("ch2", 1)]
    assert LONG_URL in by_id["ref-longurl2021"]["text"]


def test_back_links_point_at_citations_that_exist(built: Built) -> None:
    pages = {"sphinx": lambda p: built.sphinx / f"{p}.html",
             "mkdocs": lambda p: built.mkdocs / ("index.html" if p == "index" else f"{p}/index.html")}
    for host, references in (("sphinx", built.sphinx_references),
                             ("mkdocs", built.mkdocs_references)):
        entries = list_structure(references, host)["entries"]
        assert isinstance(entries, list)
        for e in entries:
            for _tag, _text, (page, n) in e["links"]:
                assert n < len(citation_ids(pages[host](page), host)), (host, page, n)


def test_section_titles_show_their_citations_formatted(built: Built) -> None:
    """The heading itself shows the citation's text, as its back-links do."""
    text = "Sub section with citation " + ("[2]" if _numeric(built) else "(Long 2021)")
    for page in (built.sphinx / "ch1.html", built.mkdocs / "ch1" / "index.html"):
        headings = [" ".join(h.text().split()) for h in _elements(parse(page), "h2")]
        assert any(h.startswith(text) for h in headings), headings


def _elements(root: Element, tag: str) -> list[Element]:
    out = []
    for c in root.children:
        if isinstance(c, Element):
            if c.tag == tag:
                out.append(c)
            out.extend(_elements(c, tag))
    return out


def test_both_hosts_ship_the_one_stylesheet(built: Built) -> None:
    sphinx_css = (built.sphinx / "_static" / "refbook.css").read_text(encoding="utf-8")
    mkdocs_css = (built.mkdocs / "assets" / "refbook.css").read_text(encoding="utf-8")
    assert sphinx_css == mkdocs_css == STYLESHEET
    rule = re.search(r"\.refbook-bibliography \.refbook-entry \{(.*?)\}", STYLESHEET, re.S)
    assert rule is not None
    assert "overflow-wrap: anywhere;" in rule.group(1)
