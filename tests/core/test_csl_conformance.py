"""CSL 1.0.2 behaviours the engine gained while raising its CSL test-suite count
(``tests/core/test_csl_suite.py``), each on a minimal input of our own through the public API."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from refbook.api import Citation, Cite, Formatter, format_bibliography, format_citations, render
from refbook.ir import Styled, Text
from refbook.readers.csl_json import markup_to_inlines
from tests.conftest import pandoc_cites, pandoc_render, paragraphs

HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n'
        '<style xmlns="http://purl.org/net/xbiblio/csl" class="{cls}" version="1.0"{extra}>'
        "<info><title>t</title><id>t</id><updated>2020-01-01T00:00:00+00:00</updated></info>")


def style(tmp_path: Path, body: str, *, cls: str = "in-text", extra: str = "") -> str:
    path = tmp_path / "s.csl"
    path.write_text(HEAD.format(cls=cls, extra=extra) + body + "</style>", encoding="utf-8")
    return str(path)


def book(id_: str, family: str, year: int, title: str = "T") -> dict[str, Any]:
    return {"id": id_, "type": "book", "title": title, "author": [{"family": family}],
            "issued": {"date-parts": [[year]]}}


def test_citation_sort_orders_the_cites_of_one_citation(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><sort><key variable="author"/><key variable="issued"/>'
                        '</sort><layout delimiter="; "><group delimiter=" ">'
                        '<names variable="author"/><date variable="issued">'
                        '<date-part name="year"/></date></group></layout></citation>')
    items = [book("z", "Zed", 2000), book("a2", "Abe", 2010), book("a1", "Abe", 2001)]
    assert format_citations(items, [["z", "a2", "a1"]], style=s) == [
        "Abe 2001; Abe 2010; Zed 2000"]


def test_citation_number_in_a_note_style(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><text variable="citation-number" prefix="["'
                        ' suffix="]"/></layout></citation>', cls="note")
    assert format_citations([book("a", "A", 1), book("b", "B", 2)], ["b", "a"], style=s) == [
        "[1]", "[2]"]


def test_straight_quotes_in_field_values_become_quoted_text() -> None:
    assert markup_to_inlines("Simple 'title' here") == (
        Text("Simple "), Styled("quoted", (Text("title"),)), Text(" here"))
    assert markup_to_inlines('Say "a \'b\' c" now') == (
        Text("Say "), Styled("quoted", (Text("a "), Styled("quoted", (Text("b"),)), Text(" c"))),
        Text(" now"))
    # apostrophes: in a word, before a year, after a plural; a lone mark stays as written
    assert markup_to_inlines("Plato's view") == (Text("Plato\u2019s view"),)
    assert markup_to_inlines("(ETFA '09)") == (Text("(ETFA \u201909)"),)
    assert markup_to_inlines("the authors' view") == (Text("the authors\u2019 view"),)
    assert markup_to_inlines('an orphan " mark') == (Text('an orphan " mark'),)
    assert markup_to_inlines("<i>it's</i>") == (Styled("emph", (Text("it\u2019s"),)),)


def test_nested_quotes_alternate_and_follow_the_locale(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><text variable="title" quotes="true"/></layout>'
                        "</citation>")
    item = {"id": "a", "type": "book", "title": 'My "inner" title'}
    assert format_citations([item], ["a"], style=s) == ["\u201cMy \u2018inner\u2019 title\u201d"]
    assert format_citations([item], ["a"], style=s, locale="fr-FR") == [
        "\u00ab\u00a0My \u201cinner\u201d title\u00a0\u00bb"]


def test_apostrophe_in_a_name_is_typographic() -> None:
    item = {"id": "a", "type": "book", "title": "T",
            "author": [{"family": "Aalto", "given": "Shun'ichi"}]}
    assert format_bibliography([item])[0].startswith("Aalto, Shun\u2019ichi.")


def test_ibid_matches_ibid_with_locator(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><choose><if position="ibid"><text term="ibid"/>'
                        '</if><else><text variable="title"/></else></choose>'
                        '<text variable="locator" prefix=" "/></layout></citation>',
              cls="note")
    f = Formatter([{"id": "a", "type": "book", "title": "T"}], style=s)
    got = [render(x) for x in f.citations([["a"], [Cite("a", locator="4")]])]
    assert got == ["T", "Ibid. 4"]


AUTHOR_YEAR = ('<layout prefix="(" suffix=")" delimiter="; "><group delimiter=" ">'
               '<names variable="author"/><date variable="issued"><date-part name="year"/>'
               "</date></group></layout></citation>")


def _smiths() -> list[dict[str, Any]]:
    return [book(f"s{i}", "Smith", 2000, f"T{i}") for i in range(1, 5)] + [
        book("s9", "Smith", 2001)]


def test_year_suffix_collapse(tmp_path: Path) -> None:
    ids = ["s1", "s2", "s3", "s4", "s9"]
    plain = style(tmp_path, '<citation disambiguate-add-year-suffix="true" '
                            'collapse="year-suffix">' + AUTHOR_YEAR)
    # the year-suffix delimiter defaults to the layout's delimiter
    assert format_citations(_smiths(), [ids], style=plain) == ["(Smith 2000a; b; c; d; 2001)"]
    ranged = style(tmp_path, '<citation disambiguate-add-year-suffix="true" '
                             'collapse="year-suffix-ranged" year-suffix-delimiter="," '
                             'after-collapse-delimiter=", ">' + AUTHOR_YEAR)
    assert format_citations(_smiths(), [ids], style=ranged) == ["(Smith 2000a\u2013d, 2001)"]
    assert format_citations(_smiths(), [ids, ["s1", "s2", "s4"]], style=ranged)[1] == (
        "(Smith 2000a,b,d)")


def test_cite_group_delimiter_groups_without_collapsing(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation cite-group-delimiter=", ">' + AUTHOR_YEAR)
    items = [book("a", "Aalto", 2000), book("b", "Banda", 1999), book("c", "Aalto", 2001)]
    assert format_citations(items, [["a", "b", "c"]], style=s) == [
        "(Aalto 2000, Aalto 2001; Banda 1999)"]


def test_subsequent_author_substitute(tmp_path: Path) -> None:
    def s(rule: str) -> str:
        return style(tmp_path, '<citation><layout><text variable="title"/></layout></citation>'
                               f'<bibliography subsequent-author-substitute="---" '
                               f'subsequent-author-substitute-rule="{rule}"><layout>'
                               '<group delimiter=". "><names variable="author">'
                               '<name delimiter=", "/></names><text variable="title"/></group>'
                               "</layout></bibliography>")

    def two(id_: str, title: str, *names: str) -> dict[str, Any]:
        return {"id": id_, "type": "book", "title": title,
                "author": [{"family": n, "given": "A"} for n in names]}

    items = [two("a", "One", "Doe", "Roe"), two("b", "Two", "Doe", "Roe"),
             two("c", "Three", "Doe", "Poe"), two("d", "Four", "Moe")]
    assert format_bibliography(items, style=s("complete-all")) == [
        "A Doe, A Roe. One", "---. Two", "A Doe, A Poe. Three", "A Moe. Four"]
    assert format_bibliography(items, style=s("complete-each")) == [
        "A Doe, A Roe. One", "---, ---. Two", "A Doe, A Poe. Three", "A Moe. Four"]
    assert format_bibliography(items, style=s("partial-each")) == [
        "A Doe, A Roe. One", "---, ---. Two", "---, A Poe. Three", "A Moe. Four"]
    assert format_bibliography(items, style=s("partial-first")) == [
        "A Doe, A Roe. One", "---, A Roe. Two", "---, A Poe. Three", "A Moe. Four"]


def test_a_note_citation_starting_with_a_term_is_capitalized(tmp_path: Path) -> None:
    note = '<citation><layout><text term="ibid"/></layout></citation>'
    items = [{"id": "a", "type": "book", "title": "T"}]
    cites = [[Cite("a")], [Cite("a", prefix="As said before. ")], [Cite("a", prefix="See ")]]
    assert format_citations(items, cites, style=style(tmp_path, note, cls="note")) == [
        "Ibid.", "As said before. Ibid.", "See ibid."]
    # an in-text style leaves the term as the locale writes it
    assert format_citations(items, [["a"]], style=style(tmp_path, note)) == ["ibid."]


def test_superscript_characters_become_superscript_text(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><text value="1\u1d49\u02b3 N\u00ba 5\u2122"/>'
                        "</layout></citation>")
    got = Formatter([book("a", "A", 1)], style=s).citations(["a"])[0]
    assert render(got, "html") == ('<span class="refbook-cite-item" data-key="a">'
                                   "1<sup>e</sup><sup>r</sup> N<sup>o</sup> 5<sup>TM</sup>"
                                   "</span>")


def test_first_reference_note_number(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><choose><if position="first">'
                        '<text variable="title"/></if><else><text variable="title"/>'
                        '<text variable="first-reference-note-number" prefix=", note "/>'
                        "</else></choose></layout></citation>", cls="note")
    items = [book("a", "A", 1, "Alpha"), book("b", "B", 2, "Beta")]
    cits = [Citation((Cite("a"),), 1), Citation((Cite("b"),), 2), Citation((Cite("a"),), 3)]
    assert format_citations(items, cits, style=s) == ["Alpha", "Beta", "Alpha, note 1"]


def test_positions_per_note_and_per_sequence() -> None:
    from refbook.api import positions

    a, b = Cite("a"), Cite("b")
    # two citations in note 1: the next note's cite of b is not ibid (note 1 had two cites)
    got = positions([Citation((a,), 1), Citation((b,), 1), Citation((b,), 2),
                     Citation((b,), 3)])
    assert [r[0].position for r in got] == ["first", "first", "subsequent", "ibid"]
    # in a note style, citations in the text and in notes are separate sequences
    got = positions([Citation((a,), 0), Citation((b,), 1), Citation((a,), 0)])
    assert [r[0].position for r in got] == ["first", "first", "ibid"]
    # the same locator under another label is another place
    got = positions([Citation((Cite("a", locator="2"),), 1),
                     Citation((Cite("a", locator="2", label="chapter"),), 2)])
    assert got[1][0].position == "ibid-with-locator"


def test_citation_formatting_covers_its_affixes(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout prefix="(" suffix=")" font-weight="bold">'
                        '<text variable="title"/></layout></citation>')
    got = Formatter([book("a", "A", 1)], style=s).citations(["a"])[0]
    assert render(got, "html") == (
        '<strong>(<span class="refbook-cite-item" data-key="a">T</span>)</strong>')


def test_chicago_page_ranges_are_chicago_15(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><text variable="page"/></layout></citation>',
              extra=' page-range-format="chicago"')
    items = [{"id": "a", "type": "book", "page": "1496-1504"},
             {"id": "b", "type": "book", "page": "321-328"}]
    assert format_citations(items, ["a", "b"], style=s) == ["1496\u20131504", "321\u201328"]


def test_suffix_written_in_the_given_name(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><names variable="author"/></layout></citation>')
    items = [{"id": "a", "type": "book", "author": [{"family": "Doe", "given": "John, III"}]},
             {"id": "b", "type": "book", "author": [{"family": "Doe", "given": "John,! Jr."}]},
             {"id": "c", "type": "book",
              "author": [{"family": "Doe", "given": "Al", "suffix": "Jr.", "comma-suffix": True}]}]
    assert format_citations(items, ["a", "b", "c"], style=s) == [
        "John Doe III", "John Doe, Jr.", "Al Doe, Jr."]


def test_an_empty_et_al_term_shows_nothing(tmp_path: Path) -> None:
    s = style(tmp_path, '<locale><terms><term name="et-al"></term></terms></locale>'
                        '<citation et-al-min="3" et-al-use-first="1"><layout>'
                        '<names variable="author"/></layout></citation>')
    item = {"id": "a", "type": "book", "author": [{"family": f, "given": "A"}
                                                  for f in ("Doe", "Roe", "Poe")]}
    assert format_citations([item], ["a"], style=s) == ["A Doe"]


def test_year_suffixes_follow_first_citation_without_a_bibliography_sort(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation disambiguate-add-year-suffix="true">' + AUTHOR_YEAR)
    items = [book(f"i{n}", "Smith", 1986, f"T{n}") for n in range(1, 13)]
    got = format_citations(items, [[f"i{n}"] for n in range(1, 13)], style=s)
    assert got == [f"(Smith 1986{c})" for c in "abcdefghijkl"]


def test_givenname_disambiguation_rules_other_than_by_cite(tmp_path: Path) -> None:
    def s(rule: str) -> str:
        return style(tmp_path, '<citation disambiguate-add-givenname="true" '
                               f'givenname-disambiguation-rule="{rule}"><layout delimiter="; ">'
                               '<names variable="author"><name form="short" and="text" '
                               'initialize-with=". "/></names></layout></citation>')

    def cite(id_: str, *people: tuple[str, str]) -> dict[str, Any]:
        return {"id": id_, "type": "book",
                "author": [{"family": f, "given": g} for f, g in people]}

    items = [cite("a", ("Roe", "Ann"), ("Doe", "John")),
             cite("b", ("Roe", "Ann"), ("Doe", "Jane"), ("Poe", "Carl")),
             cite("c", ("Poe", "Bea")), cite("d", ("Poe", "Carl"))]
    ids = [["a", "b", "c", "d"]]
    # the two Does have the same initials (given names then), the Poes do not (initials);
    # the one Roe stays as she is, though every cite was told apart already
    assert format_citations(items, ids, style=s("all-names")) == [
        "Roe and John Doe; Roe, Jane Doe, and C. Poe; B. Poe; C. Poe"]
    assert format_citations(items, ids, style=s("all-names-with-initials")) == [
        "Roe and Doe; Roe, Doe, and C. Poe; B. Poe; C. Poe"]
    # only the first name of each cite counts
    assert format_citations(items, ids, style=s("primary-name")) == [
        "Roe and Doe; Roe, Doe, and Poe; B. Poe; C. Poe"]


def test_zotero_short_form_names_are_read(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout delimiter="; "><text variable="container-title" '
                        'form="short"/></layout></citation>')
    items = [{"id": "a", "type": "article-journal", "container-title": "Journal of Tides",
              "journalAbbreviation": "J. Tides"},
             {"id": "b", "type": "article-journal", "container-title": "Journal of Tides",
              "journalAbbreviation": "J. Tides", "container-title-short": "JT"}]
    assert format_citations(items, [["a", "b"]], style=s) == ["J. Tides; JT"]


def test_names_min_on_a_sort_key(tmp_path: Path) -> None:
    def s(key_attrs: str) -> str:
        return style(tmp_path, '<macro name="author"><names variable="author"/></macro>'
                               '<citation><layout><text variable="title"/></layout></citation>'
                               f'<bibliography><sort><key macro="author" {key_attrs}/>'
                               '<key variable="issued"/></sort><layout><text variable="title"/>'
                               "</layout></bibliography>")

    items = [{"id": "a", "type": "book", "title": "A", "issued": {"date-parts": [[1990]]},
              "author": [{"family": "Smith"}, {"family": "Jones"}]},
             {"id": "b", "type": "book", "title": "B", "issued": {"date-parts": [[2000]]},
              "author": [{"family": "Smith"}, {"family": "Adams"}]}]
    assert format_bibliography(items, style=s("")) == ["B", "A"]
    # only the first name counts: the year decides
    assert format_bibliography(items, style=s('names-min="1" names-use-first="1"')) == [
        "A", "B"]


def test_date_sort_keys_for_ranges_and_years_before_1(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><sort><key variable="issued"/></sort><layout delimiter="; ">'
                        '<text variable="title"/></layout></citation>')

    def dated(id_: str, *parts: list[int]) -> dict[str, Any]:
        return {"id": id_, "type": "book", "title": id_, "issued": {"date-parts": list(parts)}}

    items = [dated("range", [2000, 5], [2001, 5]), dated("single", [2000, 5]),
             dated("ad54", [54]), dated("bc44", [-44]), dated("bc100", [-100])]
    assert format_citations(items, [[i["id"] for i in items]], style=s) == [
        "bc100; bc44; ad54; single; range"]


def test_citation_labels(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation disambiguate-add-year-suffix="true"><sort>'
                        '<key variable="citation-label"/></sort><layout delimiter="; ">'
                        '<text variable="citation-label"/></layout></citation>')

    def by(id_: str, year: int, *fams: str, **extra: Any) -> dict[str, Any]:
        return {"id": id_, "type": "book", "title": id_, "issued": {"date-parts": [[year]]},
                "author": [{"family": f} for f in fams], **extra}

    items = [by("d", 1926, "Dalton", "Evans", "Fisher", "Green", "Hill"),
             by("a1", 2000, "Asthma"), by("a2", 2000, "Asthma", title="other"),
             by("b", 1998, "Brown", "van Chase"), by("c", 2001, "Cole", "Dee", "Eel"),
             by("own", 1900, "Zed", **{"citation-label": "Mine1900"})]
    assert format_citations(items, [[i["id"] for i in items]], style=s) == [
        "Asth00a; Asth00b; BrCh98; CoDE01; DEFG26; Mine1900"]


def test_punctuation_moves_into_the_innermost_quotes(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout suffix="." delimiter=", ">'
                        '<text variable="title" quotes="true"/></layout></citation>')
    items = [{"id": "a", "type": "book", "title": "This is 'The One'"},
             {"id": "b", "type": "book", "title": "Why?"}]
    assert format_citations(items, ["a", "b", ["b", "a"]], style=s) == [
        "\u201cThis is \u2018The One.\u2019\u201d", "\u201cWhy?\u201d",
        # a comma after "?" is dropped, as pandoc writes it ("“Why?” “This is …”"); the CSL
        # suite's bugreports_IeeePunctuation keeps it (listed in its expected failures)
        "\u201cWhy?\u201d \u201cThis is \u2018The One.\u2019\u201d"]
    # quotes inside italics keep the period out (as pandoc's engine)
    s2 = style(tmp_path, '<citation><layout suffix="."><group font-style="italic">'
                         '<text variable="title" quotes="true"/></group></layout></citation>')
    got = Formatter([{"id": "c", "type": "book", "title": "Tides"}], style=s2).citations(["c"])
    assert render(got[0], "html") == (
        '<span class="refbook-cite-item" data-key="c"><em>\u201cTides\u201d</em></span>.')


def test_cites_that_differ_only_when_first_are_told_apart_later_too(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation disambiguate-add-year-suffix="true" et-al-min="3" '
                        'et-al-use-first="3" et-al-subsequent-min="1" '
                        'et-al-subsequent-use-first="1"><layout delimiter="; ">'
                        '<group delimiter=" "><names variable="author"><name form="short"/>'
                        '</names><date variable="issued"><date-part name="year"/></date>'
                        "</group></layout></citation>")

    def by(id_: str, *fams: str) -> dict[str, Any]:
        return {"id": id_, "type": "book", "issued": {"date-parts": [[2000]]},
                "author": [{"family": f} for f in fams]}

    items = [by("a", "Baur", "Fox", "Gill"), by("b", "Baur", "Hay", "Ives")]
    # first cites differ, but both later cites would read "Baur et al. 2000"
    assert format_citations(items, [["a", "b"], ["a", "b"]], style=s) == [
        "Baur, Fox, Gill 2000a; Baur, Hay, Ives 2000b", "Baur et al. 2000a; Baur et al. 2000b"]


def test_particles_written_into_csl_json_name_parts() -> None:
    from refbook.csl import Name
    from refbook.readers.csl_json import item_from_json

    def names(*people: dict[str, Any]) -> tuple[Name, ...]:
        return item_from_json({"id": "a", "type": "book", "author": list(people)}).name_list(
            "author")

    assert names({"family": "van Gogh", "given": "Vincent"},
                 {"family": "Humboldt", "given": "Alexander von"},
                 {"family": "al-One", "given": "Al"},
                 {"family": "d'Aubignac", "given": "F."}) == (
        Name(family="Gogh", given="Vincent", non_dropping_particle="van"),
        Name(family="Humboldt", given="Alexander", dropping_particle="von"),
        Name(family="One", given="Al", non_dropping_particle="al-"),
        Name(family="Aubignac", given="F.", non_dropping_particle="d\u2019"))
    # quoted: taken as written; told not to parse: neither
    assert names({"family": '"van Dyke"', "given": "Dick"},
                 {"family": "van Dyke", "given": "Dick", "parse-names": False}) == (
        Name(family="van Dyke", given="Dick"), Name(family="van Dyke", given="Dick"))


def test_quotes_in_a_style_value_and_apostrophes_in_nocase(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><text value="Speak, \'friend\', and enter."/>'
                        "</layout></citation>")
    assert format_citations([book("a", "A", 1)], ["a"], style=s) == [
        "Speak, \u201cfriend,\u201d and enter."]
    assert markup_to_inlines('<span class="nocase">l\'a</span>') == (
        Styled("nocase", (Text("l\u2019a"),)),)


def test_a_particle_starting_with_an_apostrophe() -> None:
    from refbook.csl import Name
    from refbook.readers.csl_json import item_from_json

    item = item_from_json({"id": "a", "type": "book",
                           "author": [{"family": "in 't Veld", "given": "Jan"}]})
    assert item.name_list("author") == (
        Name(family="Veld", given="Jan", non_dropping_particle="in \u2019t"),)


def test_no_delimiter_after_an_institution_before_the_last_name(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><names variable="author"><name and="symbol" '
                        'name-as-sort-order="all" delimiter-precedes-last="after-inverted-name"/>'
                        "</names></layout></citation>")
    items = [{"id": "a", "type": "book", "author": [{"literal": "Acme Board"},
                                                    {"literal": "Zed Board"}]},
             {"id": "b", "type": "book", "author": [{"family": "Doe", "given": "J."},
                                                    {"family": "Roe", "given": "R."}]}]
    assert format_citations(items, ["a", "b"], style=s) == [
        "Acme Board & Zed Board", "Doe, J., & Roe, R."]


def test_months_past_the_seasons() -> None:
    from refbook.csl import DatePart
    from refbook.readers.csl_json import item_from_json

    def issued(*parts: int) -> DatePart | None:
        d = item_from_json({"id": "a", "type": "book",
                            "issued": {"date-parts": [list(parts)]}}).date("issued")
        return d.start if d is not None else None

    assert issued(1965, 13, 1) == DatePart(1965, 13, 1)  # spring
    assert issued(1965, 17, 1) == DatePart(1965, 13, 1)  # spring again
    assert issued(1965, 24, 0) == DatePart(1965, 16, 0)  # winter
    assert issued(1965, 60, 1) == DatePart(1965, 0, 0)
    assert issued(1965, -1, 1) == DatePart(1965, 0, 0)


def test_quotes_in_field_values_are_read_in_linear_time() -> None:
    from tests.growth import LIMIT, doubling_ratio

    # every quote mark might open quoted text: whether one closes it is known in one pass
    for piece in (" 'a b", 'x "y', "l'a "):
        ratio = doubling_ratio(lambda n, _attempt, p=piece: p * n,  # type: ignore[misc]
                               markup_to_inlines, 500)
        assert ratio <= LIMIT, (piece, ratio)


def test_year_suffixes_of_tied_works_follow_first_citation_as_pandoc(tmp_path: Path,
                                                                       pandoc: str) -> None:
    """Works the bibliography's sort cannot tell apart get their year suffixes in the order
    first cited, the uncited ones after them by key (not all of them by key)."""
    bib = tmp_path / "tied.bib"
    bib.write_text("".join(
        f"@book{{{k}, author = {{Doe, Jane}}, title = {{Same Title}}, year = {{2000}},"
        " publisher = {P}}\n" for k in ("zeta", "alpha", "mid")), encoding="utf-8")
    f = Formatter(bib)
    for cited in (["mid", "zeta", "alpha"], ["mid"]):
        md = "---\nnocite: '@*'\n---\n\n" + "\n\n".join(f"[@{k}]" for k in cited) + "\n"
        theirs = paragraphs(pandoc_render(pandoc, md, bib))
        ours = [render(c) for c in f.citations([[k] for k in cited])]
        entries = {render(e) for _, e in f.bibliography(citations=[[k] for k in cited])}
        assert ours == theirs[:len(cited)]
        assert entries == set(theirs[len(cited):])


def test_gendered_ordinals_agree_with_their_noun_as_pandoc(tmp_path: Path, pandoc: str) -> None:
    """French: la 1re édition, le 1er volume, le 1er janvier; 21e, 101e (the locale's
    ordinal-01 matches the whole number only)."""
    s = style(tmp_path, '<citation><layout delimiter="; "><group delimiter=", ">'
                        '<number variable="edition" form="ordinal"/>'
                        '<number variable="volume" form="ordinal"/><date variable="issued">'
                        '<date-part name="day" form="ordinal" suffix=" "/>'
                        '<date-part name="month"/></date></group></layout></citation>',
              extra=' default-locale="fr-FR"')
    items = [{"id": k, "type": "book", "edition": e, "volume": v,
              "issued": {"date-parts": [[2000, 1, d]]}}
             for k, e, v, d in (("a", "1", "1", 1), ("b", "21", "2", 2), ("c", "11", "101", 21))]
    theirs = paragraphs(pandoc_cites(pandoc, tmp_path, items, s, "[@a]\n\n[@b]\n\n[@c]\n"))
    # pandoc's plain text writes superscript letters as such; ours marks them ^(x)
    ours = [render(c).replace("^(r)", "\u02b3").replace("^(e)", "\u1d49")
            for c in Formatter(items, style=s).citations(["a", "b", "c"])]
    assert theirs[0].startswith("1\u02b3\u1d49, 1\u1d49\u02b3")
    assert ours == theirs


def test_collapsed_cite_without_a_date_leaves_no_delimiter_as_pandoc(tmp_path: Path,
                                                                     pandoc: str) -> None:
    s = style(tmp_path, '<citation collapse="year"><layout prefix="(" suffix=")" '
                        'delimiter=", "><group delimiter=" "><names variable="author">'
                        '<name form="short"/></names><date variable="issued">'
                        '<date-part name="year"/></date></group></layout></citation>')
    items = [book("a", "Smith", 2000), {"id": "b", "type": "book",
                                        "author": [{"family": "Smith"}]},
             book("c", "Smith", 2001)]
    theirs = paragraphs(pandoc_cites(pandoc, tmp_path, items, s, "[@a; @b; @c]\n"))
    assert format_citations(items, [["a", "b", "c"]], style=s) == theirs == [
        "(Smith 2000, 2001)"]


def test_names_added_until_cites_differ_as_the_givenname_rule_shows_them(
        tmp_path: Path, pandoc: str) -> None:
    """disambiguate-add-names with the all-names rule: a name counts as different when its
    given name differs too (J. Jones, A. Jones), not only its family name."""
    def s(rule: str) -> str:
        return style(tmp_path, '<citation et-al-min="3" et-al-use-first="1" '
                               'disambiguate-add-names="true" disambiguate-add-givenname="true"'
                               f' givenname-disambiguation-rule="{rule}"><layout delimiter="; ">'
                               '<group delimiter=" "><names variable="author"><name '
                               'initialize-with=". " and="symbol" form="short"/></names>'
                               '<date variable="issued" prefix="(" suffix=")">'
                               '<date-part name="year"/></date></group></layout></citation>')

    def item(id_: str, *people: tuple[str, str]) -> dict[str, Any]:
        return {"id": id_, "type": "book", "issued": {"date-parts": [[1980]]},
                "author": [{"family": f, "given": g} for f, g in people]}

    items = [item("a", ("Smith", "John"), ("Brown", "John"), ("Jones", "John")),
             item("b", ("Smith", "John"), ("Benson", "John"), ("Jones", "John")),
             item("c", ("Smith", "John"), ("Brown", "John"), ("Jones", "Arthur"))]
    for rule in ("all-names", "all-names-with-initials", "primary-name"):
        path = s(rule)
        theirs = paragraphs(pandoc_cites(pandoc, tmp_path, items, path, "[@a]\n\n[@b]\n\n[@c]\n"))
        assert format_citations(items, ["a", "b", "c"], style=path) == theirs, rule


def test_subsequent_author_substitute_a_literal_and_a_family_name_alike(tmp_path: Path) -> None:
    """An institution written as one literal and the same written as a family name are one
    author: the second entry gets the substitute (pandoc's engine compares the name records
    and does not; the CSL suite's sort_ChicagoYearSuffix1 wants the substitute)."""
    s = style(tmp_path, '<citation><layout><text variable="title"/></layout></citation>'
                        '<bibliography subsequent-author-substitute="---"><layout>'
                        '<group delimiter=". "><names variable="author"/>'
                        '<text variable="title"/></group></layout></bibliography>')
    items = [{"id": "a", "type": "book", "title": "One", "author": [{"family": "Beijing Zoo"}]},
             {"id": "b", "type": "book", "title": "Two", "author": [{"literal": "Beijing Zoo"}]},
             {"id": "c", "type": "book", "title": "Three",
              "author": [{"family": "Zoo", "given": "Beijing"}]}]
    assert format_bibliography(items, style=s) == [
        "Beijing Zoo. One", "---. Two", "Beijing Zoo. Three"]


def test_formatting_on_names_reaches_each_name_as_pandoc(tmp_path: Path, pandoc: str) -> None:
    """font-style on <names> (here through a macro, with a substitute) formats the names."""
    s = style(tmp_path, '<macro name="author"><names variable="author" font-style="italic">'
                        '<name name-as-sort-order="all" delimiter="/ "/>'
                        '<label form="short" prefix=" (" suffix=")"/>'
                        '<substitute><names variable="editor"/></substitute></names></macro>'
                        '<citation><layout><text macro="author"/></layout></citation>')
    items = [{"id": "a", "type": "book", "author": [{"family": "Smith", "given": "Reggie"},
                                                    {"family": "Doe", "given": "Jo"}]},
             {"id": "b", "type": "book", "editor": [{"family": "Roe", "given": "Al"}]}]
    theirs = pandoc_cites(pandoc, tmp_path, items, s, "[@a]\n\n[@b]\n", to="html")
    ours = [render(c, "html") for c in Formatter(items, style=s).citations(["a", "b"])]

    def bare(html: str) -> str:  # the text and its inline markup, without the hosts' spans
        return re.sub(r"</?(?:span|p)\b[^>]*>", "", html).strip()

    assert [bare(x) for x in ours] == [bare(x) for x in theirs.split("\n") if x.strip()][:2]
    assert bare(ours[0]) == "<em>Smith, Reggie</em>/ <em>Doe, Jo</em>"


def test_variables_written_at_the_start_of_the_note_as_pandoc(tmp_path: Path,
                                                             pandoc: str) -> None:
    """Zotero's "cheater syntax": ``name: value`` lines (or ``{:name: value}``) opening a
    CSL-JSON note are variables; a name is ``family || given``; the rest stays the note."""
    s = style(tmp_path, '<citation><layout><group delimiter="; ">'
                        '<date variable="original-date"><date-part name="year"/></date>'
                        '<names variable="editor"/><text variable="container-title"/>'
                        '<text variable="note"/></group></layout></citation>')
    items = [{"id": "a", "type": "book",
              "note": "original-date: 1920\neditor: Thompson || Hunter S.\n"
                      "{:container-title: Rolling Stone}Kept: as the note"},
             {"id": "b", "type": "book", "note": "Just a note: with a colon"}]
    theirs = paragraphs(pandoc_cites(pandoc, tmp_path, items, s, "[@a]\n\n[@b]\n"))
    assert format_citations(items, ["a", "b"], style=s) == theirs
    # "Kept" reads as a variable too (pandoc drops it): a line of prose whose first word ends
    # in a colon is lost, as in pandoc
    assert theirs == ["1920; Hunter S. Thompson; Rolling Stone", "Just a note: with a colon"]


def test_a_term_written_empty_across_lines_is_empty_as_pandoc(tmp_path: Path,
                                                              pandoc: str) -> None:
    s = style(tmp_path, '<locale><terms><term name="and others">\n      </term></terms></locale>'
                        '<citation><layout><names variable="author" suffix=". ">'
                        '<name et-al-min="2" et-al-use-first="1"/><et-al term="and others"/>'
                        '</names><text variable="title"/></layout></citation>')
    items = [{"id": "a", "type": "book", "title": "T",
              "author": [{"family": "Doe", "given": "J"}, {"family": "Roe", "given": "K"}]}]
    theirs = paragraphs(pandoc_cites(pandoc, tmp_path, items, s, "[@a]\n"))
    assert format_citations(items, ["a"], style=s) == theirs == ["J Doe. T"]


def test_later_cites_that_look_alike_are_told_apart_as_pandoc(tmp_path: Path,
                                                              pandoc: str) -> None:
    """A note style whose later cites have their own form ("Doe, supra note 1"): two cited
    works of one author get disambiguate="true" there; an uncited work of another cited
    author does not make that author's cites ambiguous."""
    s = style(tmp_path, '<citation><layout delimiter="; " suffix="."><choose>'
                        '<if position="first"><names variable="author"><name/></names>'
                        '<text prefix=", " variable="title"/></if><else>'
                        '<names variable="author"><name form="short"/></names><choose>'
                        '<if disambiguate="true"><text prefix=", " variable="title"/></if>'
                        '</choose><text prefix=", supra note " '
                        'variable="first-reference-note-number"/></else></choose></layout>'
                        "</citation>", cls="note")
    items = [{"id": k, "type": "book", "title": t, "author": [{"family": f, "given": g}]}
             for k, t, f, g in (("a", "His Book", "Doe", "John"),
                                ("b", "His Other Book", "Doe", "John"),
                                ("c", "Her Book", "Roe", "Jane"),
                                ("d", "Her Other Book", "Roe", "Jane"))]
    out = pandoc_cites(pandoc, tmp_path, items, s,
                       "One [@a; @b]. Two [@c]. Three [@c]. Four [@a].\n")
    theirs = [re.sub(r"^\[\d+\] ", "", p) for p in paragraphs(out)[1:]]
    cits = [Citation((Cite("a"), Cite("b")), 1), Citation((Cite("c"),), 2),
            Citation((Cite("c"),), 3), Citation((Cite("a"),), 4)]
    ours = [render(c) for c in Formatter(items, style=s).citations(cits)]
    assert ours == theirs
    assert ours[2:] == ["Roe, supra note 2.", "Doe, His Book, supra note 1."]


def test_a_locator_without_label_that_names_its_own_as_pandoc(tmp_path: Path,
                                                             pandoc: str) -> None:
    """A locator passed without a label that starts with one ("vol. 1, fol. 186") prints as
    written, as pandoc prints the same written in a citation; a bare number is a page."""
    s = style(tmp_path, '<locale><terms><term name="folio" form="short">fol.</term></terms>'
                        '</locale><citation><layout><group delimiter=", ">'
                        '<text variable="title"/><group delimiter=" ">'
                        '<label variable="locator" form="short"/><text variable="locator"/>'
                        "</group></group></layout></citation>", cls="note")
    items = [{"id": "a", "type": "book", "title": "Book Title"}]
    out = pandoc_cites(pandoc, tmp_path, items, s,
                       "x [@a, vol. 1, fol. 186, 8 April 1544]\n\ny [@a, 33]\n")
    theirs = [re.sub(r"^\[\d+\] ", "", p) for p in paragraphs(out)[2:]]
    cits = [Citation((Cite("a", locator="vol. 1, fol. 186, 8 April 1544"),), 1),
            Citation((Cite("a", locator="33"),), 2)]
    ours = [render(c) for c in Formatter(items, style=s).citations(cits)]
    assert ours == theirs == ["Book Title, vol. 1, fol. 186, 8 April 1544", "Book Title, p. 33"]


def test_a_cite_can_carry_its_position(tmp_path: Path) -> None:
    s = style(tmp_path, '<citation><layout><choose><if position="subsequent">'
                        '<text value="later"/></if><else><text value="first"/></else>'
                        "</choose></layout></citation>", cls="note")
    items = [book("a", "A", 2000)]
    # a first cite said to be a later one, and a later one said to be first
    assert format_citations(items, [[Cite("a", position="subsequent")]], style=s) == ["later"]
    assert format_citations(items, [[Cite("a")], [Cite("a", position="first")]],
                            style=s) == ["first", "first"]


def test_no_space_before_a_cjk_et_al_term(tmp_path: Path) -> None:
    """As citeproc-js (the CSL suite's name_EtAlWithCombined): "Ziggy Zither等", not "… 等"
    (pandoc's engine keeps the space); a delimiter before it stays."""
    def s(extra: str) -> str:
        return style(tmp_path, f'<citation et-al-min="3" et-al-use-first="{extra}"><layout>'
                               '<names variable="author"><name/></names></layout></citation>',
                     extra=' default-locale="zh-TW"')

    items = [{"id": "a", "type": "book", "author": [
        {"family": "Zither", "given": "Ziggy"}, {"family": "Yoda", "given": "Y"},
        {"family": "X", "given": "X"}]}]
    assert format_citations(items, ["a"], style=s("1")) == ["Ziggy Zither等"]
    assert format_citations(items, ["a"], style=s("2")) == ["Ziggy Zither, Y Yoda, 等"]
