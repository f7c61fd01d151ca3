"""False alarms of issue 12, each from a minimal copy of the real entry: the real-world value
stays silent, a value with the defect the rule is for is still reported."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refbook.config import Config
from refbook.diagnostics import Code
from refbook.readers import read_bibliography
from refbook.validate import validate

if TYPE_CHECKING:
    from pathlib import Path


def _entry(kind: str = "article", **fields: str) -> str:
    base = {"author": "Kwon, Woosuk", "title": "Efficient Memory Management",
            "journal": "Journal", "year": "2023"}
    base.update(fields)
    body = "".join(f"  {k} = {{{v}}},\n" for k, v in base.items() if v != "-")
    return f"@{kind}{{k,\n{body}}}\n"


def _codes(tmp_path: Path, text: str, config: Config | None = None) -> list[Code]:
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    return [d.code for d in validate(read_bibliography([path]), config or Config())]


# code, real-world value that is right (silent), value with the defect (reported)
CASES = [
    (Code.YEAR_IN_TITLE,
     _entry("proceedings", title="Proceedings of the 41st International Conference on High "
            "Energy Physics, Bologna, Italy, July 6-13, 2022", author="-", journal="-"),
     _entry(title="Dapo: An open-source llm reinforcement learning system at scale, 2025")),
    (Code.YEAR_IN_TITLE, _entry(title="Workshop on Data Mining, 6 June, 2021"),
     _entry(title="A Survey of Everything, 2021")),
    (Code.URL_SPACE, _entry(url="http://www.cs.example.edu/~jdoe/paper.pdf"),
     _entry(url="https://arxiv. org/abs/2506.14245")),
    (Code.DOI_SYNTAX, _entry(doi="10/gkb5pd"), _entry(doi="10.1118 1.3528204")),
    (Code.URLDATE_WITHOUT_URL, _entry(doi="10.1145/3600006.3613165", urldate="2024-05-01"),
     _entry(urldate="2024-05-01")),
    (Code.NAME_PUNCTUATION,
     _entry(author="Natera Orozco, Luis Guillermo and Martinez Lavanchy, Paula Maria and "
            "Smith, John"),
     _entry(author="Piotr Mazurek, Felix Gabriel")),
    (Code.VOLUME_INVALID, _entry(volume="ICHEP2022"), _entry(volume="Advances in NeurIPS 31")),
    (Code.VOLUME_INVALID, _entry(volume="BME-34"), _entry(volume="vol. 3, no. 4")),
    (Code.TITLE_NBSP, _entry(title="Measurement at $\\sqrt{s} = 13~\\text{TeV}$"),
     _entry(title="Analysis and~Challenges")),
    (Code.TITLE_NBSP, _entry(title="Data Structures and Algorithms~{II}"),
     _entry(title="Data Structures~and Algorithms")),
    (Code.TITLE_NBSP, _entry(title="Results at 13~TeV and Part~2"),
     _entry(title="Results at~the LHC")),
    (Code.TITLE_NBSP, _entry(title="Die nordischen L{\\\"a}nder des 11.~Jahrhunderts"),
     _entry(title="Twittering on: Audience research and\u00a0participation")),
    (Code.TITLE_NBSP, _entry(title="Earl, Saint, Bishop, Skald~-- and Music"),
     _entry(title="Earl, Saint,~Bishop")),
    (Code.PAGES_DASH, _entry(pages="12\u201315"), _entry(pages="12\u201015")),
    (Code.PAGES_DASH, _entry(pages="12-15"), _entry(pages="12\u201115")),
    (Code.TITLE_CASE, _entry(title="Serving with PagedAttention on a GPU"),
     _entry(title="Optimizing I/O Performance")),
    (Code.UNKNOWN_FIELD,
     _entry(mrclass="68T05", mrnumber="1234567", mrreviewer="Doe, J.", fjournal="Journal",
            acmid="3600006", numpages="17", issue_date="October 2023", articleno="12",
            timestamp="Tue, 01 Oct 2024", biburl="https://dblp.org/rec/x.bib",
            bibsource="dblp", eprint="2309.06180", archiveprefix="arXiv",
            primaryclass="cs.LG", reportnumber="CERN-TH-2023-001", collaboration="ATLAS",
            slaccitation="%%CITATION = X;%%", googlebooks="abc", lccn="2001012345",
            coden="JACSAT", handle="10902/1234", introducedin="cgal:5.1",
            **{"subject-category": "Engineering", "medline-pst": "ppublish"}),
     _entry(titel="X")),
]


@pytest.mark.parametrize(("code", "good", "bad"), CASES,
                         ids=[f"{c[0].slug}-{i}" for i, c in enumerate(CASES)])
def test_real_value_is_silent_and_defect_reported(tmp_path: Path, code: Code, good: str,
                                                  bad: str) -> None:
    assert code not in _codes(tmp_path, good)
    assert code in _codes(tmp_path, bad)


def test_suffix_after_the_comma_gets_the_suffix_hint(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(_entry(author="W. D. Hibler, III and Smith, John"), encoding="utf-8")
    (d,) = [d for d in validate(read_bibliography([path]), Config())
            if d.code is Code.NAME_PUNCTUATION]
    assert "I. I. I." not in d.hint
    assert d.hint == "write 'Family, Suffix, Given': Hibler, III, W. D."


def test_custom_fields_are_declared_in_the_config(tmp_path: Path) -> None:
    text = _entry(groupfield="x")
    assert Code.UNKNOWN_FIELD in _codes(tmp_path, text)
    assert Code.UNKNOWN_FIELD not in _codes(tmp_path, text,
                                            Config.from_mapping({"extra_fields": ["groupfield"]}))


def test_synonym_field_the_style_would_not_print_is_silent(tmp_path: Path) -> None:
    # Mendeley writes city for address: the default style (Chicago, 18th edition) prints no
    # place for a book, and a journal's place after its name
    book = _entry("book", city="Berlin", publisher="Springer", journal="-")
    assert Code.UNKNOWN_FIELD not in _codes(tmp_path, book)
    assert Code.UNKNOWN_FIELD in _codes(tmp_path, _entry(city="Berlin"))


def test_proceedings_journal_of_an_article(tmp_path: Path) -> None:
    bad = _entry(journal="Proceedings of the 12th Annual ACM Symposium on Theory of Computing")
    assert Code.JOURNAL_VENUE in _codes(tmp_path, bad)
    bad = _entry(journal="Proc. 2019 International Joint Meeting on Things")
    assert Code.JOURNAL_VENUE in _codes(tmp_path, bad)
    for journal in ("Proceedings of the National Academy of Sciences", "Proc. IEEE",
                    "Proceedings of the IEEE", "Proceedings of the VLDB Endowment"):
        assert Code.JOURNAL_VENUE not in _codes(tmp_path, _entry(journal=journal)), journal


def test_leftover_tex_is_reported(tmp_path: Path) -> None:
    assert Code.UNDEFINED_MACRO in _codes(tmp_path, _entry(title="Mass \\vphantom{x} Scale"))
    assert Code.UNDEFINED_MACRO in _codes(tmp_path, _entry(title="Mass {\\vphantom{}} Scale"))
    assert Code.UNDEFINED_MACRO in _codes(tmp_path, _entry(title="The $B^{\\vphantom{}}_s$ Meson"))
    for title in ("{\\sc Lisp} Systems", "A \\noopsort{b}Title", "Caf\\'e \\emph{x}"):
        assert Code.UNDEFINED_MACRO not in _codes(tmp_path, _entry(title=title)), title


def test_style_option_is_asked(tmp_path: Path) -> None:
    text = _entry(title="Optimizing I/O Performance")
    assert Code.TITLE_CASE in _codes(tmp_path, text, Config(style="numeric"))


def test_crossref_parent_and_child_sharing_a_doi_are_not_duplicates(tmp_path: Path) -> None:
    parent = ("@proceedings{icml2020,\n  title = {Proceedings of ICML 2020},\n  year = {2020},\n"
              "  doi = {10.5555/3524938},\n}\n")
    child = ("@inproceedings{{{key},\n  author = {{Kwon, Woosuk}},\n  title = {{{title}}},\n"
             "  booktitle = {{Proceedings of ICML 2020}},\n  year = {{2020}},\n"
             "  doi = {{10.5555/3524938}},\n{xref}}}\n")
    good = (child.format(key="a", title="First", xref="  crossref = {icml2020},\n")
            + child.format(key="b", title="Second", xref="  crossref = {icml2020},\n") + parent)
    assert Code.DUPLICATE_WORK not in _codes(tmp_path, good)
    bad = child.format(key="a", title="First", xref="") + child.format(key="b", title="Second",
                                                                       xref="")
    assert Code.DUPLICATE_WORK in _codes(tmp_path, bad)


def test_same_author_and_title_years_apart_are_two_works(tmp_path: Path) -> None:
    book = ("@book{b,\n  author = {Chomsky, Noam},\n  title = {Syntactic Structures},\n"
            "  publisher = {Mouton},\n  year = {1957},\n}\n")
    article = ("@article{a,\n  author = {Chomsky, Noam},\n  title = {Syntactic Structures},\n"
               "  journal = {J},\n  year = {1966},\n}\n")
    assert Code.DUPLICATE_WORK not in _codes(tmp_path, book + article)
    assert Code.DUPLICATE_WORK not in _codes(tmp_path, book + article.replace("1966", "1957"))
    assert Code.DUPLICATE_WORK in _codes(tmp_path, article + article.replace("{a,", "{a2,")
                                         .replace("1966", "1967"))


def test_unused_entry_hint_in_the_syntax_of_the_documents(tmp_path: Path) -> None:
    from refbook.validate.citations import check_citations

    path = tmp_path / "refs.bib"
    path.write_text(_entry(), encoding="utf-8")
    bib = read_bibliography([path])
    (md,) = check_citations(bib, [])
    (rst,) = check_citations(bib, [], syntaxes=("rst",))
    assert "[@k]" in md.hint
    assert ":cite:`k`" in rst.hint
    assert "[@" not in rst.hint


def test_crossref_child_inheriting_the_url_is_no_duplicate(tmp_path: Path) -> None:
    # biblatex-software's example: a code fragment of the Parmap library (JabRef test data)
    parent = ("@software{parmap,\n  title = {The Parmap library},\n  author = {Di Cosmo, Roberto},\n"
              "  date = {2020},\n  url = {https://rdicosmo.github.io/parmap/},\n}\n")
    child = "@software{simplemapper,\n  subtitle = {Core mapping routine},\n{xref}}\n"
    assert Code.DUPLICATE_WORK not in _codes(
        tmp_path, parent + child.replace("{xref}", "  crossref = {parmap},\n"))
    copy = parent.replace("{parmap,", "{parmap2,")
    assert Code.DUPLICATE_WORK in _codes(tmp_path, parent + copy)


def test_catalogue_qualifiers_after_isbn_and_issn(tmp_path: Path) -> None:
    # Better BibTeX and Mendeley exports: "092492201X (PBK)", "2689-6575(ELECTRONIC)"
    good = _entry(isbn="092492201X (PBK)", issn="2689-6575(ELECTRONIC)")
    codes = _codes(tmp_path, good)
    assert Code.ISBN_CHECKSUM not in codes
    assert Code.ISSN_CHECKSUM not in codes
    bad = _entry(isbn="0924922011 (PBK)", issn="2689-6576(ELECTRONIC)")
    codes = _codes(tmp_path, bad)
    assert Code.ISBN_CHECKSUM in codes
    assert Code.ISSN_CHECKSUM in codes


def test_host_config_carries_the_host_style() -> None:
    from refbook.config import host_config

    config, _ = host_config({}, ".", style="numeric")
    assert config.style == "numeric"
    config, _ = host_config({"style": "chicago-author-date"}, ".", style="numeric")
    assert config.style == "chicago-author-date"


def test_check_command_takes_the_style(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from refbook.cli import main

    path = tmp_path / "refs.bib"
    path.write_text(_entry(title="Optimizing I/O Performance"), encoding="utf-8")
    assert main(["check", str(path), "--style", "numeric", "--format", "json"]) == 0
    assert '"refbook.title-case"' in capsys.readouterr().out
    # an unknown style is a diagnostic naming it (and the exit status of an error)
    assert main(["check", str(path), "--style", "no-such-style"]) == 1
    out = capsys.readouterr()
    assert "unknown style 'no-such-style'" in out.out + out.err
