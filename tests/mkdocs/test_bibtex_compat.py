"""mkdocs-bibtex compatibility: its options, its commands and its output form.

A site written for mkdocs-bibtex is built twice, by mkdocs-bibtex itself (offline: without a
``csl_file`` it formats with pybtex) and by refbook under the same options: the footnote
references and the per-page footnote lists have the same structure (ids, numbers, order, back
references); only the entries' text differs (refbook's style instead of pybtex's "plain"). Every
other option works or stops the build with a ``PluginError`` that names it, and no command text is
left in any page.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from mkdocs.exceptions import PluginError

from tests.mkdocs.conftest import BIB, refbook_warnings
from tests.mkdocs.test_build import cites, entries

if TYPE_CHECKING:
    from pathlib import Path

    from tests.mkdocs.conftest import Project

# keys mkdocs-bibtex can cite (its pattern is [\w-]+): no "odd.key:x/y" here
PAGES = {
    "index.md": """\
        # Home

        See [@smith2020a] and [@doe2019; @lee2021]. A note of mine[^mine].

        [^mine]: My own note.

        ```text
        [@smith2020a] in code stays as written
        ```
        """,
    "chapter.md": """\
        # Chapter

        ## Part

        Again [@smith2020a], then [@smith2020b].

        \\bibliography

        ## After the list

        No citation here.
        """,
    "plain.md": "# Plain\n\nNo citations.\n",
    "everything.md": "# Everything\n\n\\full_bibliography\n",
}


def _site(root: Path, plugin: str, options: dict[str, Any], **config: Any) -> None:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    data: dict[str, Any] = {"site_name": "Compat", "markdown_extensions": ["footnotes"],
                            "plugins": [{plugin: options}]}
    data.update(config)
    (root / "mkdocs.yml").write_text(yaml.safe_dump(data), encoding="utf-8")


def _write(root: Path, pages: dict[str, str]) -> None:
    import textwrap

    for name, text in pages.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _build(root: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="build", dirty=False)
    build(cfg)


def _footnote_structure(page: str) -> dict[str, list[str]]:
    """What the footnotes extension made of the page: references in text order (id, target,
    number), the list's items (id, back reference)."""
    refs = re.findall(r'<sup id="([^"]+)"><a class="footnote-ref" href="([^"]+)">(\d+)</a></sup>',
                      page)
    items = re.findall(r'<li id="([^"]+)">.*?<a class="footnote-backref" href="([^"]+)"', page,
                       re.S)
    return {"refs": [" ".join(r) for r in refs], "items": [" ".join(i) for i in items]}


def _text(page: str) -> str:
    """A page's text outside code."""
    body = re.sub(r"<(pre|code)\b.*?</\1>", "", page, flags=re.S)
    return re.sub(r"<[^>]+>", "", body)


def _footnote_texts(page: str) -> dict[str, str]:
    """Each footnote's text (id → text), without its back reference and refbook's back-links."""
    out = {}
    for ident, body in re.findall(r'<li id="(fn:[^"]+)">(.*?)</li>', page, re.S):
        body = re.sub(r'<a class="footnote-backref".*?</a>', "", body, flags=re.S)
        body = re.sub(r'<span class="refbook-backlinks">.*?</span>', "", body, flags=re.S)
        out[ident] = " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())
    return out


def test_footnote_output_has_mkdocs_bibtex_structure_and_text(tmp_path: Path) -> None:
    theirs, ours = tmp_path / "bibtex", tmp_path / "refbook"
    for root, plugin in ((theirs, "bibtex"), (ours, "refbook")):
        _site(root, plugin, {"bib_file": "refs.bib"})
        _write(root, {k: v for k, v in PAGES.items() if k != "everything.md"})
        _build(root)
    for name in ("index.html", "chapter/index.html", "plain/index.html"):
        mine = (ours / "site" / name).read_text(encoding="utf-8")
        theirs_page = (theirs / "site" / name).read_text(encoding="utf-8")
        assert _footnote_structure(mine) == _footnote_structure(theirs_page), name
        # no style chosen: the entries' text is pybtex's "plain", as mkdocs-bibtex writes it
        assert _footnote_texts(mine) == _footnote_texts(theirs_page), name
    index = _footnote_structure((ours / "site" / "index.html").read_text(encoding="utf-8"))
    assert index["refs"] == ["fnref:smith2020a #fn:smith2020a 2", "fnref:doe2019 #fn:doe2019 3",
                             "fnref:lee2021 #fn:lee2021 4", "fnref:mine #fn:mine 1"]
    # no generated References page: mkdocs-bibtex's form has lists where its commands are
    assert not (ours / "site" / "references").exists()


def test_footnote_output_with_a_refbook_style_formats_entries_book_wide(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib", "output": "footnotes",
                                    "style": "chicago-author-date"})
    _write(project.root, {k: v for k, v in PAGES.items() if k != "everything.md"})
    project.build()
    # refbook's entry text (its style), book-wide: the year suffixes come from both pages
    chapter = project.html("chapter/index.html")
    assert "Smith, John. 2020a. “Alpha Results.”" in chapter
    assert "Smith, John. 2020b. “Beta Results.”" in chapter
    assert "pybtex" not in refbook_log.text


def test_the_pybtex_look_is_announced_with_the_way_out(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib"})
    _write(project.root, {"index.md": "# Home\n\n[@doe2019]\n"})
    project.build()
    infos = [r for r in refbook_log.records if "pybtex" in r.getMessage() and "refbook" in r.name]
    assert [r.getMessage() for r in infos] == [(
        "refbook: entries are formatted with pybtex's 'plain' style, as mkdocs-bibtex formats "
        "them without a csl_file; set style: chicago-author-date (or numeric, or a CSL style) "
        "for refbook's styles")]
    assert [r.levelname for r in infos] == ["INFO"]


def test_without_pybtex_the_footnotes_use_refbook_style_and_say_why(
        project: Project, refbook_log: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    # pybtex not installed (the `mkdocs` extra installs it; a bare `pip install refbook` not)
    monkeypatch.setitem(sys.modules, "pybtex", None)
    monkeypatch.setitem(sys.modules, "refbook.styles.pybtex_bridge", None)
    _site(project.root, "refbook", {"bib_file": "refs.bib"})
    _write(project.root, {"index.md": "# Home\n\n[@doe2019]\n"})
    project.build()
    assert "Doe, Jane, and Richard Roe. 2019." in _text(project.html("index.html"))
    assert ("refbook: entries are formatted with refbook's style, not pybtex's 'plain' as "
            "mkdocs-bibtex formats them: pybtex is not installed (pip install 'refbook[mkdocs]' "
            "installs it)") in refbook_log.text
    assert refbook_warnings(refbook_log) == []


def test_inline_citations_show_the_entry_text_as_mkdocs_bibtex_does(tmp_path: Path) -> None:
    page = "# Home\n\nAs @lee2021 shows, and mail@example.org.\n"
    theirs, ours = tmp_path / "bibtex", tmp_path / "refbook"
    for root, plugin in ((theirs, "bibtex"), (ours, "refbook")):
        _site(root, plugin, {"bib_file": "refs.bib"})
        _write(root, {"index.md": page})
        _build(root)
    mine = (ours / "site" / "index.html").read_text(encoding="utf-8")
    bibtex = (theirs / "site" / "index.html").read_text(encoding="utf-8")
    # the entry's text stands in the sentence, nothing around it (an empty anchor follows it,
    # the back-links' target)
    sentence = re.compile(r"<p>As (.*?) shows, and mail@example.org.</p>", re.S)
    mine_text = sentence.search(mine)
    assert mine_text is not None
    assert re.sub(r'<span id="refbook-cite-0"></span>$', "", mine_text.group(1)) == \
        sentence.search(bibtex).group(1)  # type: ignore[union-attr]
    assert mine_text.group(1).startswith("Kim Lee. Linked things.")
    assert "fnref:" not in mine


def test_enable_inline_citations_false_leaves_bare_keys_as_text(project: Project) -> None:
    for output in ("footnotes", "refbook"):
        _site(project.root, "refbook", {"bib_file": "refs.bib", "output": output,
                                        "enable_inline_citations": False})
        _write(project.root, {"index.md": "# Home\n\nAs @lee2021 shows [@doe2019].\n"})
        project.build()
        page = project.html("index.html")
        assert "As @lee2021 shows" in page, output
        assert "lee2021" not in entries(project.html(
            "index.html" if output == "footnotes" else "references/index.html"))


def test_cite_inline_shows_the_citation_text_before_the_footnotes(project: Project) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib", "cite_inline": True})
    _write(project.root, {"index.md": "# Home\n\nSee [see @doe2019, p. 3; @lee2021].\n"})
    project.build()
    page = project.html("index.html")
    assert cites(page) == ["(see Doe and Roe 2019, 3; Lee 2021)"]
    assert _footnote_structure(page)["refs"] == ["fnref:doe2019 #fn:doe2019 1",
                                                 "fnref:lee2021 #fn:lee2021 2"]


def test_footnote_format_labels_the_footnotes(project: Project) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib", "footnote_format": "cite-{key}"})
    _write(project.root, {"index.md": "# Home\n\n[@doe2019]\n"})
    project.build()
    assert _footnote_structure(project.html("index.html")) == {
        "refs": ["fnref:cite-doe2019 #fn:cite-doe2019 1"],
        "items": ["fn:cite-doe2019 #fnref:cite-doe2019"]}


def test_bib_by_default_false_places_lists_only_at_the_command(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib", "bib_by_default": False})
    _write(project.root, {"index.md": "# Home\n\n[@doe2019]\n",
                          "other.md": "# Other\n\n[@lee2021]\n\n\\bibliography\n"})
    project.build()
    # as mkdocs-bibtex: a footnote reference that nothing defines, which Python-Markdown leaves
    # as the text "[^doe2019]" — and a warning at the citation that says so and how to fix it
    index = project.html("index.html")
    assert "[^doe2019]" in _text(index)
    assert "footnote" not in index
    assert [w.split("\n")[0] for w in refbook_warnings(refbook_log)] == [
        ("docs/index.md:3: warning: the citation '[@doe2019]' becomes the footnote reference "
        "[^doe2019], but no footnote list on the page defines it (bib_by_default: false and no "
        "\\bibliography on the page), so readers see '[^doe2019]' as text "
        "[refbook.footnote-undefined]")]
    assert "add \\bibliography to the page" in refbook_log.text
    assert _footnote_structure(project.html("other/index.html"))["items"] == [
        "fn:lee2021 #fnref:lee2021"]


def test_full_bibliography_is_footnotes_as_mkdocs_bibtex_makes_them(
        tmp_path: Path, refbook_log: pytest.LogCaptureFixture) -> None:
    # (at a default MkDocs' INFO level, mkdocs-bibtex's back references that point nowhere are
    # "a footnote that is never referenced"; a site with validation.anchors: warn fails --strict)
    pages = {"index.md": "# Home\n\nSee [@doe2019; @lee2021].\n\n## Part\n\n"
                         "Then [@lee2021; @doe2019].\n\n\\bibliography\n",
             "everything.md": "# Everything\n\nCited here [@smith2020b].\n\n"
                              "\\full_bibliography\n"}
    theirs, ours = tmp_path / "bibtex", tmp_path / "refbook"
    for root, plugin in ((theirs, "bibtex"), (ours, "refbook")):
        _site(root, plugin, {"bib_file": "refs.bib", "bib_by_default": False})
        _write(root, pages)
        _build(root)
    mine = (ours / "site" / "everything" / "index.html").read_text(encoding="utf-8")
    bibtex = (theirs / "site" / "everything" / "index.html").read_text(encoding="utf-8")
    # every entry of the .bib file, in the file's order, as footnotes; the references the same
    items = re.findall(r'<li id="(fn:[^"]+)">', mine)
    assert items == re.findall(r'<li id="(fn:[^"]+)">', bibtex)
    assert items == ["fn:smith2020a", "fn:smith2020b", "fn:doe2019", "fn:odd.key:x/y",
                     "fn:lee2021", "fn:uncited2017"]
    assert _footnote_structure(mine)["refs"] == _footnote_structure(bibtex)["refs"]
    # mkdocs-bibtex's back references of entries not cited on the page point nowhere;
    # refbook's point to a reference on the page, and its back-links to every citing place
    ids = set(re.findall(r'\bid="([^"]+)"', mine))
    targets = re.findall(r'class="footnote-backref" href="#([^"]+)"', mine)
    assert targets == ["fnref:smith2020b"]
    assert set(targets) <= ids
    assert not set(re.findall(r'class="footnote-backref" href="#([^"]+)"', bibtex)) <= ids
    backlinks = dict(re.findall(r'<li id="fn:([^"]+)">(?:(?!</li>).)*?'
                                r'<span class="refbook-backlinks">(.*?)</span>', mine, re.S))
    # one back-link per citing section, to the section's first citation of that key: the
    # second key of a citation links to its own footnote reference, not to the first key's
    assert re.findall(r'href="([^"]+)"', backlinks["doe2019"]) == [
        "../#fnref:doe2019", "../#fnref2:doe2019"]
    assert re.findall(r'href="([^"]+)"', backlinks["lee2021"]) == [
        "../#fnref:lee2021", "../#fnref2:lee2021"]
    assert re.findall(r'href="([^"]+)"', backlinks["smith2020b"]) == ["#fnref:smith2020b"]
    assert "uncited2017" not in backlinks
    assert refbook_warnings(refbook_log) == []
    never = [r.getMessage() for r in refbook_log.records if "never referenced" in r.getMessage()]
    assert len(never) == 5  # mkdocs-bibtex's build only


def test_unknown_keys_are_reported_at_their_line_and_shown(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib"})
    _write(project.root, {"index.md": "# Home\n\n[@doe2019; @nosuch]\n"})
    project.build()
    assert [w.split(" [")[0] for w in refbook_warnings(refbook_log)] == [
        "docs/index.md:3: error: citation key 'nosuch' is not in any bibliography file"]
    page = project.html("index.html")
    assert '<span class="refbook-unresolved" data-key="nosuch">(nosuch?)</span>' in page
    assert _footnote_structure(page)["refs"] == ["fnref:doe2019 #fn:doe2019 1"]


@pytest.mark.parametrize("output", ["footnotes", "refbook"])
def test_no_command_text_is_left_in_any_page(project: Project, output: str) -> None:
    options = {"bib_file": "refs.bib", "output": output}
    _site(project.root, "refbook", options)
    _write(project.root, PAGES | {
        "custom.md": "# Custom\n\n[@lee2021]\n\n\\refs\n\n\\allrefs\n",
        # (mkdocs-bibtex replaces its command in code too, so its list lands in the code block)
        "code.md": "# Code\n\n[@doe2019]\n\n    \\bibliography in code stays as written\n"})
    project.build()
    for path in (project.root / "site").rglob("*.html"):
        text = _text(path.read_text(encoding="utf-8"))
        assert "\\bibliography" not in text, path
        assert "\\full_bibliography" not in text, path
    everything = project.html("everything/index.html")
    if output == "footnotes":
        assert len(re.findall(r'<li id="fn:', everything)) == 6
    else:
        assert len(entries(everything)) == 6
    assert "Cited in:" in everything
    # in code they stay as written
    assert "\\bibliography in code stays as written" in project.html("code/index.html")

    options |= {"bib_command": "\\refs", "full_bib_command": "\\allrefs"}
    _site(project.root, "refbook", options)
    project.build()
    custom = project.html("custom/index.html")
    assert "\\refs" not in _text(custom)
    assert "\\allrefs" not in _text(custom)
    if output == "footnotes":  # the page's footnote is one of the six
        assert len(re.findall(r'<li id="fn:', custom)) == 6
    else:
        assert len(entries(custom)) == 7


def test_refbook_output_maps_the_commands_to_its_lists(project: Project) -> None:
    _site(project.root, "refbook", {"bib_file": "refs.bib", "style": "numeric"})
    _write(project.root, PAGES)
    project.build()
    chapter = project.html("chapter/index.html")
    assert cites(chapter) == ["[1]", "[4]"]  # numbered in the book's order: index.md first
    assert "<!--refbook-list:page-->" in chapter  # \bibliography is the page's list
    assert entries(chapter) == ["smith2020a", "smith2020b"]
    assert "footnote" not in chapter
    # the full bibliography is the book's list: citations link to it
    assert 'href="../everything/#ref-smith2020a"' in chapter


def test_bib_dir_reads_every_bib_file_below_it(project: Project) -> None:
    (project.root / "bibs" / "more").mkdir(parents=True)
    (project.root / "bibs" / "a.bib").write_text(BIB, encoding="utf-8")
    (project.root / "bibs" / "more" / "b.bib").write_text(
        "@misc{extra2001,\n  author = {Extra, Eve},\n  title = {More},\n  year = {2001},\n}\n",
        encoding="utf-8")
    _site(project.root, "refbook", {"bib_dir": "bibs"})
    _write(project.root, {"index.md": "# Home\n\n[@extra2001; @doe2019]\n"})
    project.build()
    assert _footnote_structure(project.html("index.html"))["items"] == [
        "fn:extra2001 #fnref:extra2001", "fn:doe2019 #fnref:doe2019"]


@pytest.mark.parametrize(("options", "says"), [
    ({"bib_file": "https://example.org/refs.bib"},
     (r"'bib_file' is the URL 'https://example.org/refs.bib': refbook reads no network at build "
     r"time; download it to a file and set bib_file to it")),
    ({"bib_file": "missing.bib"}, r"'bib_file' names 'missing.bib', which is not a file"),
    ({"bib_dir": "nowhere"}, r"'bib_dir' names 'nowhere', which is not a folder"),
    ({"bib_file": "refs.bib", "csl_file": "nature.csl"},
     r"'csl_file' option: style '.*nature.csl': there is no file "),
    ({"bib_file": "refs.bib", "csl_file_encoding": "latin-1"},
     r"'csl_file_encoding' is 'latin-1': refbook reads CSL files as XML in UTF-8"),
    ({"bib_file": "refs.bib", "footnote_format": "cite"}, r"'footnote_format' must hold .*\{key\}"),
    ({"bib_file": "refs.bib", "style": "numeric", "footnote_format": "x-{key}"},
     r"'footnote_format' is about footnotes, which only 'output: footnotes'"),
    ({"bib_file": "refs.bib", "output": "refbook", "cite_inline": False},
     r"'cite_inline' is about footnotes"),
    ({"bib_file": "refs.bib", "output": "html"}, r"unknown 'output' 'html'"),
    ({"bib_file": "refs.bib", "bib_by_default": True, "per_page_lists": False},
     r"'bib_by_default' \(mkdocs-bibtex\) and 'per_page_lists' say different things"),
    ({"bib_file": "refs.bib", "bib_command": "\\refs", "full_bib_command": "\\refs"},
     r"'bib_command' and 'full_bib_command' must differ"),
    ({}, r"'bib_files' needs at least one .bib file"),
])
def test_unusable_mkdocs_bibtex_options_stop_the_build_naming_the_option(
        project: Project, options: dict[str, Any], says: str) -> None:
    from mkdocs.config import load_config

    _site(project.root, "refbook", options)
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=says):
        cfg.plugins.on_config(cfg)


def test_every_option_of_mkdocs_bibtex_is_known(project: Project) -> None:
    """Each option of mkdocs-bibtex's config class is one of ours (so none is ignored)."""
    from mkdocs_bibtex.config import BibTexConfig

    from mkdocs_refbook.options import BIBTEX_OPTIONS, OPTIONS

    theirs = {name for name in vars(BibTexConfig) if not name.startswith("_")}
    ours = {o.name for o in OPTIONS}
    assert theirs <= ours
    assert theirs <= BIBTEX_OPTIONS
    assert BIBTEX_OPTIONS - theirs == {"cite_inline"}  # mkdocs-bibtex 2.x


def test_keys_cited_with_other_letter_case_resolve_as_in_mkdocs_bibtex_with_a_warning(
        tmp_path: Path, refbook_log: pytest.LogCaptureFixture) -> None:
    # Baltica cites [@Hartley2016] for the entry hartley2016: pybtex, and so mkdocs-bibtex,
    # looks keys up ignoring case; refbook resolves it too, and says so at the citation
    pages = {"index.md": "# Home\n\nSee [@Doe2019; @lee2021] and [@DOE2019].\n\n\\bibliography\n"}
    theirs, ours = tmp_path / "bibtex", tmp_path / "refbook"
    for root, plugin in ((theirs, "bibtex"), (ours, "refbook")):
        _site(root, plugin, {"bib_file": "refs.bib"})
        _write(root, pages)
        _build(root)
    mine = (ours / "site" / "index.html").read_text(encoding="utf-8")
    bibtex = (theirs / "site" / "index.html").read_text(encoding="utf-8")
    assert _footnote_structure(mine) == _footnote_structure(bibtex)
    assert _footnote_structure(mine)["items"] == [
        "fn:Doe2019 #fnref:Doe2019", "fn:lee2021 #fnref:lee2021", "fn:DOE2019 #fnref:DOE2019"]
    assert mine.count("A Book about Things") == 2
    assert "(Doe2019?)" not in mine
    assert [w.split("\n")[0] for w in refbook_warnings(refbook_log)] == [
        ("docs/index.md:3: warning: citation key 'Doe2019' stands for the entry 'doe2019' "
         "(letter case ignored, as mkdocs-bibtex does) [refbook.key-case]"),
        ("docs/index.md:3: warning: citation key 'DOE2019' stands for the entry 'doe2019' "
         "(letter case ignored, as mkdocs-bibtex does) [refbook.key-case]")]


def test_keys_cited_with_other_letter_case_resolve_in_refbook_output_too(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    project.configure({"check": {"severity": {"unused-entry": "warning"}}})
    project.page("index.md", "# Home\n\nSee [@Doe2019] and [@nosuch].\n")
    project.page("two.md", "# Two\n\nAgain [@doe2019], [@smith2020a; @smith2020b; @lee2021; "
                           "@odd.key:x/y; @uncited2017].\n")
    project.build()
    assert cites(project.html("index.html")) == ["(Doe and Roe 2019)", "(nosuch?)"]
    assert 'href="references/#ref-doe2019"' in project.html("index.html")
    references = project.html("references/index.html")
    assert entries(references).count("doe2019") == 1
    # both citations are back-links of the one entry
    assert re.findall(r'id="ref-doe2019".*?<span class="refbook-backlinks">(.*?)</span>',
                      references, re.S)[0].count("<a ") == 2
    assert [w.split(" [")[0] for w in refbook_warnings(refbook_log)] == [
        ("docs/index.md:3: warning: citation key 'Doe2019' stands for the entry 'doe2019' "
         "(letter case ignored, as mkdocs-bibtex does)"),
        "docs/index.md:3: error: citation key 'nosuch' is not in any bibliography file"]


# a value for each option of mkdocs-bibtex's config schema, and what refbook's build shows for it
# (None: the option is answered by an error that names it, or — csl_file, issue 13 — honoured)
_OPTION_SAMPLES: dict[str, tuple[Any, str | None]] = {
    "bib_file": ("refs.bib", 'id="fn:doe2019"'),
    "bib_dir": ("bibs", 'id="fn:doe2019"'),
    "bib_command": ("\\refs", 'id="fn:doe2019"'),
    "full_bib_command": ("\\allrefs", 'id="fn:uncited2017"'),
    "bib_by_default": (False, "[^doe2019]"),
    "footnote_format": ("c-{key}", 'id="fn:c-doe2019"'),
    "enable_inline_citations": (False, "As @lee2021 says"),
    "csl_file": ("style.csl", None),
    "csl_file_encoding": ("utf-8", None),
}


def test_the_sample_table_covers_mkdocs_bibtex_s_schema() -> None:
    from mkdocs_bibtex.config import BibTexConfig

    assert {name for name, _ in BibTexConfig._schema} == set(_OPTION_SAMPLES)


@pytest.mark.parametrize("option", sorted(_OPTION_SAMPLES))
def test_each_mkdocs_bibtex_option_is_honoured_or_an_error_naming_it(
        project: Project, option: str) -> None:
    """Every option of mkdocs-bibtex 4.4.0's schema (read from the installed package) either
    changes refbook's output as it changes mkdocs-bibtex's, or stops the build naming it."""
    value, shows = _OPTION_SAMPLES[option]
    (project.root / "bibs").mkdir()
    (project.root / "bibs" / "all.bib").write_text(BIB, encoding="utf-8")
    options: dict[str, Any] = {"bib_dir": "bibs"} if option != "bib_file" else {}
    options[option] = value
    _site(project.root, "refbook", options)
    command = "\\refs" if option == "bib_command" else "\\bibliography"
    full = "\\allrefs" if option == "full_bib_command" else ""
    _write(project.root, {"index.md": f"# Home\n\nAs @lee2021 says [@doe2019].\n\n"
                                      f"{command if option != 'bib_by_default' else ''}\n\n"
                                      f"{full}\n"})
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    error = ""
    try:
        cfg.plugins.on_config(cfg)
    except PluginError as exc:
        error = str(exc)
    if error:
        assert f"'{option}'" in error
        assert shows is None, f"{option} is not honoured: {error}"
        return
    project.build()
    page = project.html("index.html")
    if shows is not None:
        assert shows in page
    assert "\\refs" not in _text(page)
    assert "\\allrefs" not in _text(page)
