"""sphinxcontrib-bibtex's look, kept until the author opts in: a project that sets ``bibtex_*``
options and no ``refbook_style`` shows what sphinxcontrib-bibtex 2.7.0 shows.

Each test builds one small project twice — with ``sphinxcontrib.bibtex`` and with
``sphinx_refbook`` swapped in — and compares what a reader sees, computed from both builds:
the pages' text (citation texts, labels, list items, numbering), hover texts, and the ids the
``bibtex_*_id`` templates make. refbook adds its back-links ("Cited in: …") after each entry;
they are taken out before comparing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.sphinx.conftest import Built

BIB = """\
@book{knuth1984,
  author = {Knuth, Donald E.},
  title = {The {TeX}book},
  publisher = {Addison-Wesley},
  year = {1984}
}

@book{lamport1994,
  author = {Lamport, Leslie},
  title = {{LaTeX}: A Document Preparation System},
  publisher = {Addison-Wesley},
  year = {1994},
  edition = {2}
}

@article{vanderberg2020,
  author = {van der Berg, Anna and Jones, Carl},
  title = {Prefixes in names},
  journal = {Journal of Names},
  year = {2020},
  volume = {3},
  pages = {1--10},
  doi = {10.1000/names.3}
}

@article{kim2021,
  author = {Kim, Ann and Lee, Bo and Park, Cy},
  title = {Three authors},
  journal = {Journal B},
  year = {2021},
  url = {https://example.org/kim}
}

@article{smith2020a,
  author = {Smith, John},
  title = {First paper},
  journal = {Journal A},
  year = {2020}
}

@article{smith2020b,
  author = {Smith, John},
  title = {Second paper},
  journal = {Journal A},
  year = {2020}
}

@book{edited2019,
  editor = {Ed, Eve},
  title = {Edited Volume},
  publisher = {Press},
  year = {2019}
}

@misc{notitle,
  title = {Anonymous Work},
  howpublished = {Online}
}

@misc{uncited,
  author = {Nobody, Nadia},
  title = {Never cited},
  year = {1999}
}
"""

ROLES = """\
P :cite:p:`knuth1984`; PS :cite:ps:`kim2021`; ALP :cite:alp:`lamport1994`;
ALPS :cite:alps:`kim2021,knuth1984`; T :cite:t:`knuth1984,lamport1994`; TS :cite:ts:`kim2021`;
T3 :cite:t:`kim2021`; CT :cite:ct:`vanderberg2020`; CTS :cite:cts:`vanderberg2020`;
AUTHOR :cite:author:`kim2021`; AUTHORS :cite:authors:`kim2021`;
CAUTHOR :cite:cauthor:`vanderberg2020`; CAUTHORS :cite:cauthors:`vanderberg2020`;
AUTHORPAR :cite:authorpar:`knuth1984`; AUTHORPARS :cite:authorpars:`kim2021`;
LABEL :cite:label:`smith2020a`; LABELPAR :cite:labelpar:`smith2020b`;
YEAR :cite:year:`smith2020a`; YEARPAR :cite:yearpar:`notitle`;
EMPTY :cite:empty:`uncited` done; EDITOR :cite:t:`edited2019`; NOAUTHOR :cite:t:`notitle`;
PREPOST :cite:p:`{see}smith2020a{p. 3},knuth1984`; BARE :cite:`lamport1994`.
"""

INDEX = f"""\
Book
====

.. toctree::

   chapter

{ROLES}
"""

CHAPTER = """\
Chapter
=======

Later :cite:p:`vanderberg2020` and :cite:t:`smith2020b`.

.. bibliography::
"""


def project(tmp_path: Path, extension: str, conf: str = "", pages: dict[str, str] | None = None,
            ) -> Path:
    src = tmp_path / extension
    src.mkdir(parents=True)
    (src / "refs.bib").write_text(BIB, encoding="utf-8")
    (src / "conf.py").write_text(
        f'extensions = ["{extension}"]\nbibtex_bibfiles = ["refs.bib"]\n{conf}\n',
        encoding="utf-8")
    for name, text in (pages or {"index.rst": INDEX, "chapter.rst": CHAPTER}).items():
        (src / name).write_text(text, encoding="utf-8")
    return src


def both(tmp_path: Path, build: Callable[..., Built], conf: str = "",
         pages: dict[str, str] | None = None, builder: str = "text") -> tuple[Built, Built]:
    theirs = build(project(tmp_path, "sphinxcontrib.bibtex", conf, pages), builder)
    ours = build(project(tmp_path, "sphinx_refbook", conf, pages), builder)
    return theirs, ours


_BACKLINKS = re.compile(r" Cited in: [^.]*\.")


def visible(text: str) -> str:
    """A text page as one line of words, refbook's back-links taken out."""
    return _BACKLINKS.sub("", " ".join(text.split()))


def assert_same_text(theirs: Built, ours: Built, *pages: str) -> None:
    for page in pages or ("index.txt", "chapter.txt"):
        assert visible(ours.read(page)) == visible(theirs.read(page)), page


@pytest.mark.parametrize("style", ["alpha", "plain", "unsrt", "unsrtalpha"])
def test_default_style_lists_and_labels(tmp_path: Path, build: Callable[..., Built],
                                        style: str) -> None:
    theirs, ours = both(tmp_path, build, f"bibtex_default_style = {style!r}")
    assert theirs.warnings == ""
    assert_same_text(theirs, ours)
    assert "sphinxcontrib-bibtex's look kept" in ours.app._status.getvalue()
    assert 'refbook_style = "chicago-author-date"' in ours.app._status.getvalue()


@pytest.mark.parametrize("reference_style", ["label", "author_year", "super"])
def test_reference_styles_and_roles(tmp_path: Path, build: Callable[..., Built],
                                    reference_style: str) -> None:
    theirs, ours = both(tmp_path, build, f"bibtex_reference_style = {reference_style!r}")
    assert theirs.warnings == ""
    assert_same_text(theirs, ours)
    # the superscripts too
    theirs_html, ours_html = both(tmp_path / "html", build,
                                  f"bibtex_reference_style = {reference_style!r}", builder="html")
    assert sups(ours_html.read("index.html")) == sups(theirs_html.read("index.html"))


def sups(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", s) for s in re.findall(r"<sup>(.*?)</sup>", html, re.S)]


ROUND = """\
import dataclasses
import sphinxcontrib.bibtex.plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle


def round_brackets():
    return BracketStyle(left="(", right=")")


@dataclasses.dataclass
class RoundStyle(AuthorYearReferenceStyle):
    bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=round_brackets)
    bracket_textual: BracketStyle = dataclasses.field(default_factory=round_brackets)
    bracket_author: BracketStyle = dataclasses.field(default_factory=round_brackets)
    bracket_label: BracketStyle = dataclasses.field(default_factory=round_brackets)
    bracket_year: BracketStyle = dataclasses.field(default_factory=round_brackets)


sphinxcontrib.bibtex.plugin.register_plugin(
    "sphinxcontrib.bibtex.style.referencing", "author_year_round", RoundStyle)
bibtex_reference_style = "author_year_round"
"""


def test_referencing_style_plugin(tmp_path: Path, build: Callable[..., Built]) -> None:
    """A referencing style registered as a plugin (here from conf.py, as sphinxcontrib-bibtex's
    docs show for round brackets) is run as sphinxcontrib-bibtex runs it."""
    theirs, ours = both(tmp_path, build, ROUND)
    assert theirs.warnings == ""
    assert "(Knuth, 1984)" in ours.read("index.txt")
    assert_same_text(theirs, ours)


LISTS = """\
Lists
=====

Cites :cite:p:`knuth1984,lamport1994,vanderberg2020,kim2021` and :cite:p:`a-smith2020a`.

.. bibliography::
   :list: enumerated
   :enumtype: upperroman
   :start: 3
   :filter: key in {"knuth1984", "lamport1994"}

.. bibliography::
   :list: enumerated
   :start: continue
   :filter: key == "vanderberg2020"

.. bibliography::
   :list: bullet
   :style: plain
   :filter: key == "kim2021"

.. bibliography::
   :labelprefix: X
   :style: unsrt
   :filter: key in {"knuth1984", "kim2021"} | {"lamport1994", "vanderberg2020"}

.. bibliography::
   :keyprefix: a-
   :labelprefix: A

.. bibliography::
   :list: bullet
   :filter: title % "THREE AUTHORS" or docnames & {"nosuch"}
"""


def test_list_options(tmp_path: Path, build: Callable[..., Built]) -> None:
    pages = {"index.rst": LISTS}
    theirs, ours = both(tmp_path, build, pages=pages)
    assert theirs.warnings == ""
    assert ours.warnings == ""
    assert_same_text(theirs, ours, "index.txt")
    theirs_html, ours_html = both(tmp_path / "html", build, pages=pages, builder="html")
    # :enumtype: and :start: (continue: on from the page's previous enumerated list)
    assert starts(ours_html.read("index.html")) == starts(theirs_html.read("index.html")) == [
        ("upperroman", "3"), ("arabic", "5")]


def starts(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<ol class="(\w+)[^>]*start="(\d+)"', html)


IDS = """\
bibtex_cite_id = "cite-{bibliography_count}-{key}"
bibtex_footcite_id = "footcite-{footbibliography_count}-{key}"
bibtex_bibliography_id = "bibliography-{bibliography_count}"
bibtex_footbibliography_id = "footbibliography-{footbibliography_count}"
bibtex_bibliography_header = "**Bibliography header**"
bibtex_footbibliography_header = "*Footnotes header*"
bibtex_tooltips_style = "plain"
"""

FOOT = """\
Book
====

Cites :cite:p:`knuth1984` and :cite:t:`kim2021`; notes :footcite:`lamport1994` and
:footcite:t:`kim2021,vanderberg2020`, :footcite:ts:`kim2021`.

.. footbibliography::

.. bibliography::

More
----

Again :footcite:p:`smith2020a` and :footcite:ct:`vanderberg2020`;
:footcite:cts:`knuth1984,vanderberg2020`.

.. footbibliography::

.. bibliography::
   :filter: key == "lamport1994"
"""


def test_ids_headers_tooltips_and_footnotes(tmp_path: Path,
                                            build: Callable[..., Built]) -> None:
    pages = {"index.rst": FOOT}
    theirs, ours = both(tmp_path, build, IDS, pages, builder="html")
    assert theirs.warnings == ""
    assert ours.warnings == ""
    mine, their = ours.read("index.html"), theirs.read("index.html")
    wanted = re.compile(r'id="((?:cite|footcite|bibliography|footbibliography)-[^"]*)"')
    # refbook's own anchors of citations (cite-<page>-<n>, the back-links' targets) aside
    assert [i for i in wanted.findall(mine) if not re.fullmatch(r"cite-index-\d+", i)] == \
        wanted.findall(their)
    assert 'id="cite-1-knuth1984"' in mine
    assert titles(mine) == titles(their)
    assert titles(mine)  # hover texts in the tooltip style
    assert texts(mine) == texts(their)
    text_theirs, text_ours = both(tmp_path / "text", build, IDS, pages)
    assert_same_text(text_theirs, text_ours, "index.txt")


def test_no_tooltips(tmp_path: Path, build: Callable[..., Built]) -> None:
    theirs, ours = both(tmp_path, build, "bibtex_tooltips = False", builder="html")
    assert titles(ours.read("index.html")) == titles(theirs.read("index.html")) == []


def titles(html: str) -> list[str]:
    """The hover texts of the citation links."""
    return re.findall(r'<a class="reference internal" href="[^"]*" title="([^"]*)"', html)


def texts(html: str) -> list[str]:
    """The body's paragraphs and headings as text (back-links taken out)."""
    body = html[html.index('<div class="body"'):html.index('<div class="sphinxsidebar"')]
    return [visible(re.sub(r"<[^>]+>", "", p))
            for p in re.findall(r"<(?:p|h\d)[^>]*>(.*?)</(?:p|h\d)>", body, flags=re.S)]


def test_refbook_style_opts_in(tmp_path: Path, build: Callable[..., Built]) -> None:
    """refbook_style switches to refbook's styles; sphinxcontrib-bibtex's presentation options
    are then reported as having no effect, at their line of conf.py."""
    src = project(tmp_path, "sphinx_refbook", 'bibtex_default_style = "plain"\n'
                  'refbook_style = "chicago-author-date"')
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/conf.py:3: WARNING: bibtex_default_style has no effect: refbook_style = "
        "'chicago-author-date' formats the citations and lists (remove refbook_style to keep "
        "sphinxcontrib-bibtex's look) [refbook.ignored-option]\n")
    assert "P (Knuth 1984);" in " ".join(b.read("index.txt").split())


def test_directive_look_options_reported_in_refbook_style(tmp_path: Path,
                                                          build: Callable[..., Built]) -> None:
    src = project(tmp_path, "sphinx_refbook", 'refbook_style = "chicago-author-date"',
                  {"index.rst": "Book\n====\n\n:cite:p:`knuth1984`\n\n.. bibliography::\n"
                                "   :style: plain\n   :list: bullet\n"})
    b = build(src, "text")
    assert b.warnings == (
        f"{src}/index.rst:6: WARNING: :style:, :list: have no effect: refbook_style = "
        "'chicago-author-date' formats the list (remove refbook_style from conf.py to keep "
        "sphinxcontrib-bibtex's look) [refbook.ignored-option]\n")


@pytest.mark.parametrize(("line", "message"), [
    ('bibtex_default_style = "nosuch"',
     ("bibtex_default_style = 'nosuch' is not an installed pybtex style; choose one of: alpha, "
     "plain, unsrt, unsrtalpha (or install the package that provides it)")),
    ('bibtex_reference_style = "nosuch"',
     ("bibtex_reference_style = 'nosuch' is not a referencing style; choose one of: "
     "author_year, ")),
    ('bibtex_foot_reference_style = "super"',
     ("bibtex_foot_reference_style = 'super' is not a footnote referencing style; use 'foot' "
      "(the default) or a plugin registered in the sphinxcontrib.bibtex.style.referencing "
      "entry-point group (installed: ")),
    ('bibtex_foot_reference_style = "nosuch"',
     ("bibtex_foot_reference_style = 'nosuch' is not a footnote referencing style; use 'foot' "
      "(the default) or a plugin registered")),
    ('bibtex_cite_id = "{nosuch}"',
     ("bibtex_cite_id = '{nosuch}' is not a usable id template (KeyError('nosuch')); it may use "
     "{bibliography_count}, {key}")),
])
def test_unusable_options_are_configuration_errors(tmp_path: Path, build: Callable[..., Built],
                                                   line: str, message: str) -> None:
    src = project(tmp_path, "sphinx_refbook", line)
    b = build(src, "text")
    assert b.app.statuscode == 1
    assert f"{src}/conf.py:3: ERROR: {message}" in b.warnings
    assert "Traceback" not in b.warnings


def test_unknown_directive_style_is_reported(tmp_path: Path,
                                             build: Callable[..., Built]) -> None:
    src = project(tmp_path, "sphinx_refbook", "",
                  {"index.rst": "Book\n====\n\n:cite:p:`knuth1984`\n\n.. bibliography::\n"
                                "   :style: nosuch\n   :list: table\n"})
    b = build(src, "text")
    assert b.warnings.splitlines() == [
        (f"{src}/index.rst:6: WARNING: :style: nosuch is not an installed pybtex style; this "
        "list uses bibtex_default_style = 'alpha' (installed: alpha, plain, unsrt, unsrtalpha) "
        "[refbook.unknown-style]"),
        (f"{src}/index.rst:6: WARNING: unknown bibliography list type 'table': this list is a "
        "citation list (choose one of citation, bullet, enumerated) [refbook.ignored-option]")]
    assert "[Knu84] Donald" in b.read("index.txt")


MYST = """\
# Markdown

Pandoc syntax [@knuth1984; @lamport1994] and @kim2021, roles {cite:p}`vanderberg2020`.
"""


def test_myst_pandoc_syntax_and_roles(tmp_path: Path, build: Callable[..., Built]) -> None:
    """Roles in MyST pages are sphinxcontrib-bibtex's; Pandoc citations (refbook's addition)
    get its referencing style too: parenthetical like :cite:p:, narrative like :cite:t:."""
    pages = {"index.rst": INDEX.replace("   chapter", "   chapter\n   markdown"),
             "chapter.rst": CHAPTER, "markdown.md": MYST}
    conf = 'extensions.insert(0, "myst_parser")'
    theirs = build(project(tmp_path, "sphinxcontrib.bibtex", conf, pages), "text")
    ours = build(project(tmp_path, "sphinx_refbook", conf, pages), "text")
    assert ours.warnings == ""
    assert_same_text(theirs, ours, "index.txt", "chapter.txt")
    roles = visible(theirs.read("markdown.txt")).split("roles ")[1]
    assert visible(ours.read("markdown.txt")) == (
        "Markdown ******** Pandoc syntax [Knu84, Lam94] and Kim *et al.* [KLP21], roles " + roles)


@pytest.mark.parametrize("builder", ["latex", "epub", "singlehtml"])
def test_other_builders(tmp_path: Path, build: Callable[..., Built], builder: str) -> None:
    conf = 'copyright = "2026"\nversion = "1"'
    theirs, ours = both(tmp_path, build, conf, builder=builder)
    assert ours.warnings == theirs.warnings == ""
    if builder == "latex":
        tex = next(ours.outdir.glob("*.tex")).read_text(encoding="utf-8")
        assert r"\bibitem[Knu84]{chapter:ref-knuth1984}" in tex
        # citations link to the entries' labels (in the root document's bibliography)
        assert r"\hyperref[\detokenize{index:ref-knuth1984}]" in tex
        assert r"\label{\detokenize{index:ref-knuth1984}}" in tex


def test_bib_edit_rewrites_every_page(tmp_path: Path, build: Callable[..., Built]) -> None:
    """Never stale in sphinxcontrib-bibtex's look too: a new entry that changes alpha labels
    (Smi20a → Smi20b) re-writes the citing pages and the list's."""
    src = project(tmp_path, "sphinx_refbook")
    first = build(src, "text")
    assert "LABEL Smi20a" in visible(first.read("index.txt"))
    bib = src / "refs.bib"
    bib.write_text("@article{smith2020,\n  author = {Smith, John},\n  title = {Aardvarks},\n"
                   "  journal = {J},\n  year = {2020}\n}\n\n" + bib.read_text(encoding="utf-8"),
                   encoding="utf-8")
    (src / "chapter.rst").write_text(CHAPTER.replace("Later", "Later :cite:p:`smith2020`"),
                                     encoding="utf-8")
    second = build(src, "text")
    fresh = build(src, "text", freshenv=True)
    for page in ("index.txt", "chapter.txt"):
        assert second.read(page) == fresh.read(page), page
    assert "LABEL Smi20b" in visible(second.read("index.txt"))


def test_entry_the_style_cannot_format(tmp_path: Path, build: Callable[..., Built]) -> None:
    """An entry without a field the pybtex style needs shows pybtex's message in bold, as in
    sphinxcontrib-bibtex; refbook reports the missing field at the entry's line."""
    pages = {"index.rst": "Book\n====\n\n:cite:p:`nojournal`\n\n.. bibliography::\n"}
    bib = "\n@article{nojournal,\n  author = {Doe, Jane},\n  title = {T},\n  year = {2020}\n}\n"
    srcs = []
    for extension in ("sphinxcontrib.bibtex", "sphinx_refbook"):
        src = project(tmp_path, extension, "", pages)
        (src / "refs.bib").write_text(BIB + bib, encoding="utf-8")
        srcs.append(src)
    theirs, ours = build(srcs[0], "text"), build(srcs[1], "text")
    assert "missing journal in nojournal" in theirs.warnings
    assert_same_text(theirs, ours, "index.txt")
    line = BIB.count("\n") + 2
    assert ours.warnings.startswith(
        f"{srcs[1]}/refs.bib:{line}: WARNING: @article 'nojournal' has no journal or "
        "journaltitle (")
    assert ours.warnings.endswith("[refbook.missing-field]\n")
    assert ours.warnings.count("WARNING") == 1


CUSTOM_STYLE = """\
import pybtex.plugin
from pybtex.style.formatting import toplevel
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.template import field, sentence, tag


class TitleFirst(UnsrtStyle):
    default_label_style = "alpha"

    def get_article_template(self, e):
        return toplevel[sentence[tag("strong")[field("title")], self.format_names("author"),
                                 field("year")]]


pybtex.plugin.register_plugin("pybtex.style.formatting", "titlefirst", TitleFirst, force=True)
bibtex_default_style = "titlefirst"
"""


def test_custom_pybtex_style_from_conf_py(tmp_path: Path, build: Callable[..., Built]) -> None:
    """A pybtex style written in conf.py (the issue's crashing project) is run by pybtex."""
    theirs, ours = both(tmp_path, build, CUSTOM_STYLE)
    assert theirs.warnings == ours.warnings == ""
    assert "**Three authors**, Ann Kim, Bo Lee, and Cy Park" in visible(
        ours.read("chapter.txt"))
    assert_same_text(theirs, ours)


def test_automatic_list_in_the_look(tmp_path: Path, build: Callable[..., Built]) -> None:
    """refbook's automatic list (no directive anywhere) is a list of labelled entries too, so
    the labels the citations show are in it."""
    src = project(tmp_path, "sphinx_refbook", "", {"index.rst": "Book\n====\n\n"
                                                   ":cite:p:`knuth1984,kim2021`\n"})
    b = build(src, "text")
    assert b.warnings == ""
    text = visible(b.read("index.txt"))
    assert text.startswith("Book **** [KLP21, Knu84] References ========== [KLP21] Ann Kim")
    assert "[Knu84] Donald E. Knuth." in text


def test_markup_in_the_bib_stays_text(tmp_path: Path, build: Callable[..., Built]) -> None:
    """pybtex's text goes through docutils nodes: markup in a .bib value is escaped, and only
    http(s) addresses become links (sphinxcontrib-bibtex links a javascript: url)."""
    hostile = ("\n@misc{hostile,\n  author = {Evil, Eve},\n"
               "  title = {<script>alert(1)</script> and <b>bold</b>},\n"
               "  url = {javascript:alert(2)},\n  year = {2020}\n}\n")
    src = project(tmp_path, "sphinx_refbook", "",
                  {"index.rst": "Book\n====\n\n:cite:p:`hostile`\n\n.. bibliography::\n"})
    (src / "refs.bib").write_text(BIB + hostile, encoding="utf-8")
    html = build(src, "html").read("index.html")
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; and &lt;b&gt;bold&lt;/b&gt;" in html
    assert 'href="javascript' not in html
    assert "javascript:alert(2)" in html  # shown as text


def test_ids_are_docutils_ids(tmp_path: Path, build: Callable[..., Built]) -> None:
    """In the look, entry ids are docutils ids (as sphinxcontrib-bibtex's are): a key with a
    colon or capitals still gives an id a stylesheet or a test can select."""
    src = project(tmp_path, "sphinx_refbook", "",
                  {"index.rst": "Book\n====\n\n:cite:p:`2009:Mandel`\n\n.. bibliography::\n"})
    (src / "refs.bib").write_text(BIB + "\n@misc{2009:Mandel,\n  author = {Mandel, Jan},\n"
                                  "  title = {Tutorial},\n  year = {2009}\n}\n", encoding="utf-8")
    html = build(src, "html").read("index.html")
    assert 'id="ref-2009-mandel"' in html
    assert 'href="#ref-2009-mandel"' in html
    assert re.search(r'<span class="bibtex-citation" id="cite-index-0">\[<a class="reference '
                     r'internal" href="#ref-2009-mandel" title="[^"]+">Man09</a>\]</span>', html)


@pytest.mark.parametrize(("conf", "look"), [
    ('bibtex_bibfiles = ["refs.bib"]', "pybtex"),
    ('refbook_bibfiles = ["refs.bib"]\nbibtex_encoding = "latin-1"', "refbook"),
    ('bibtex_bibfiles = ["refs.bib"]\nrefbook_style = "chicago-author-date"', "refbook"),
])
def test_which_look(tmp_path: Path, build: Callable[..., Built], conf: str, look: str) -> None:
    """sphinxcontrib-bibtex's look needs its options and no refbook choice; bibtex_encoding,
    which refbook's docs give any project with Latin-1 files, is no such option."""
    src = project(tmp_path, "sphinx_refbook", "",
                  {"index.rst": "Book\n====\n\n:cite:p:`knuth1984`\n\n.. bibliography::\n"})
    (src / "conf.py").write_text(f'extensions = ["sphinx_refbook"]\n{conf}\n', encoding="utf-8")
    text = visible(build(src, "text").read("index.txt"))
    assert text.startswith("Book **** [Knu84]" if look == "pybtex" else "Book **** (Knuth 1984)")


def test_footnote_markup_as_theirs(tmp_path: Path, build: Callable[..., Built]) -> None:
    """In the look, a citation footnote's text is a plain paragraph, as sphinxcontrib-bibtex's
    is (its suite's footnote matcher expects ``<p>``); refbook's look marks it with a class."""
    theirs, ours = both(tmp_path, build, "", {"index.rst": FOOT}, builder="html")
    paragraph = re.compile(r'<aside class="footnote brackets"[^>]*>.*?(<p[^>]*>)', re.S)
    mine = paragraph.findall(ours.read("index.html"))
    assert mine
    assert mine == paragraph.findall(theirs.read("index.html"))


def test_ids_of_keys_differing_in_accents(tmp_path: Path, build: Callable[..., Built]) -> None:
    """Keys that make the same docutils id (``Tèst``, ``Tést``, ``Têst``: sphinxcontrib-bibtex's
    suite) get distinct docutils ids in the look, and each citation links to its own entry."""
    src = project(tmp_path, "sphinx_refbook", "",
                  {"index.rst": "Book\n====\n\n:cite:`Tèst` :cite:`Tést` :cite:`Têst`\n\n"
                                ".. bibliography::\n"})
    (src / "refs.bib").write_text("".join(
        f"@misc{{{key},\n  author = {{{name}}},\n  title = {{T}}\n}}\n"
        for key, name in (("Tèst", "Smith, John"), ("Tést", "Poppins, Mary"),
                          ("Têst", "Einstein, Albert"))), encoding="utf-8")
    built = build(src, "html")
    html = built.read("index.html")
    ids = re.findall(r'<div class="citation" id="([^"]+)"', html)
    assert len(set(ids)) == 3
    assert all(re.fullmatch(r"[a-z][-a-z0-9]*", i) for i in ids), ids
    links = re.findall(r'href="#([^"]+)" title="[^"]*">(\w+)</a>', html)
    assert {label for _, label in links} == {"Smi", "Pop", "Ein"}
    assert {target for target, _ in links} == set(ids)


URL_BIB = r"""
@misc{urlnote,
  author = {Een, A.},
  title = {One},
  note = {\url{https://example.org/one}}
}

@misc{urlinside,
  author = {Twee, B.},
  title = {Two},
  note = {aaa\url{https://example.org/two}bbb}
}

@misc{urlhow,
  author = {Drie, C.},
  title = {Three},
  howpublished = {\url{https://example.org/three}}
}
"""


def test_url_command_in_a_field_links(tmp_path: Path, build: Callable[..., Built]) -> None:
    """``\\url{…}`` in a note or howpublished field is a link to the address in the look, as
    sphinxcontrib-bibtex makes it (not the text ``\\url https://…``); hover texts drop the
    command."""
    pages = {"index.rst": "Book\n====\n\n:cite:`urlnote,urlinside,urlhow`\n\n"
                          ".. bibliography::\n"}
    built = []
    for extension in ("sphinxcontrib.bibtex", "sphinx_refbook"):
        src = project(tmp_path, extension, "", pages)
        (src / "refs.bib").write_text(URL_BIB, encoding="utf-8")
        built.append(build(src, "html").read("index.html"))
    theirs, ours = built
    link = re.compile(r'<a class="reference external" href="([^"]+)">([^<]+)</a>')
    assert len(link.findall(theirs)) == 3
    assert link.findall(ours) == link.findall(theirs)
    assert "aaa<a" in ours
    assert "\\url" not in ours
    assert titles(ours) == titles(theirs)


def test_author_year_label_of_several_parts(tmp_path: Path, build: Callable[..., Built]) -> None:
    """An author_year label of several parts (an entry without author: its title in italics,
    then the year) is linked as sphinxcontrib-bibtex links it: the parts in the link itself."""
    pages = {"index.rst": "Book\n====\n\n:cite:p:`mesos2015` :cite:t:`mesos2015` "
                          ":cite:p:`knuth1984`\n\n.. bibliography::\n"}
    conf = 'bibtex_reference_style = "author_year"'
    built = []
    for extension in ("sphinxcontrib.bibtex", "sphinx_refbook"):
        src = project(tmp_path, extension, conf, pages)
        (src / "refs.bib").write_text(BIB + "\n@misc{mesos2015,\n  title = {Software {Mesos}},\n"
                                      "  year = {2015}\n}\n", encoding="utf-8")
        built.append(build(src, "html").read("index.html"))
    theirs, ours = built
    link = re.compile(r'<a class="reference internal" href="#[^"]+" title="[^"]*">(.*?)</a>')
    assert "<em>Software Mesos</em>, 2015" in link.findall(theirs)
    assert link.findall(ours) == link.findall(theirs)
