"""The rule catalogue: every rule with a bad example (reported, at the right field and line, with
a hint) and a good example (silent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refbook.config import Config
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.readers import read_bibliography
from refbook.validate import FAMILY_CHECKS, validate

if TYPE_CHECKING:
    from pathlib import Path


def _article(**fields: str) -> str:
    base = {"author": "Kwon, Woosuk", "title": "Efficient Memory Management", "journal": "Journal",
            "year": "2023"}
    base.update(fields)
    body = "".join(f"  {k} = {{{v}}},\n" for k, v in base.items() if v is not None and v != "-")
    return "@article{k,\n" + body + "}\n"


def _misc(**fields: str) -> str:
    body = "".join(f"  {k} = {{{v}}},\n" for k, v in fields.items())
    return "@misc{k,\n" + body + "}\n"


# code, bad .bib, good .bib, field reported ("" = the entry), words the message must contain
CASES: list[tuple[Code, str, str, str, str]] = [
    # keys
    (Code.DUPLICATE_KEY_CASE, _article() + _article().replace("{k,", "{K,").replace("Efficient", "Other"),
     _article() + _article().replace("{k,", "{k2,").replace("Efficient", "Other"), "", "'K'"),
    (Code.DUPLICATE_WORK, _misc(title="A", url="https://arxiv.org/abs/2309.06180")
     + _article(title="Something Else", doi="10.48550/arXiv.2309.06180").replace("{k,", "{k2,"),
     _misc(title="A", url="https://arxiv.org/abs/2309.06180")
     + _article(title="Something Else", doi="10.48550/arXiv.2309.06181").replace("{k,", "{k2,"),
     "doi", "same arXiv id 2309.06180"),
    (Code.SHARED_URL, _misc(title="Darshan", url="https://example.org/darshan/")
     + _misc(title="IOR", url="https://example.org/darshan").replace("{k,", "{k2,"),
     _misc(title="Darshan", url="https://example.org/darshan/")
     + _misc(title="IOR", url="https://github.com/hpc/ior").replace("{k,", "{k2,"), "url", "'k'"),
    # types and fields
    (Code.UNKNOWN_TYPE, "@web_page{k,\n  title = {A},\n}\n", "@online{k,\n  title = {A},\n  url = {https://a.org},\n}\n",
     "", "@web_page"),
    (Code.MISSING_FIELD, _article(journal="-"), _article(), "", "journal"),
    (Code.UNKNOWN_FIELD, _article(titel="X"), _article(timestamp="2024", biburl="https://dblp.org"),
     "titel", "'titel'"),
    (Code.EMPTY_FIELD, _article(volume=""), _article(volume="3"), "volume", "volume is empty"),
    (Code.FIELD_TYPE, _misc(title="A", journal="GitHub repository"),
     _misc(title="A", howpublished="GitHub repository"), "journal", "GitHub repository"),
    (Code.ISSUE_FIELD, _article(issue="4"), _article(number="4"), "issue", "no number"),
    (Code.JOURNAL_VENUE, _article(journal="International Conference on Learning Representations"),
     _article(journal="Journal of Physics: Conference Series"), "journal", "conference"),
    # dates
    (Code.YEAR_EMPTY, _article(year=""), _article(year="-"), "year", "empty"),
    (Code.YEAR_INVALID, _article(year="n.d. 2019"), _article(year="2019"), "year", "'n.d. 2019'"),
    (Code.YEAR_RANGE, _article(year="2023-2026"), _article(year="2026", date="2023/2026"), "year",
     "'2023-2026'"),
    (Code.YEAR_IN_TITLE, _article(title="Dapo: An open-source system at scale, 2025"),
     _article(title="{DAPO}: An Open-Source System at Scale"), "title", "2025"),
    (Code.DATE_INVALID, _article(date="2023-13-01"), _article(date="2023-12-01"), "date", "2023-13-01"),
    (Code.DATE_YEAR_MISMATCH, _article(date="2021-05-01", year="2023"),
     _article(date="2023-05-01", year="2023"), "year", "2021-05-01"),
    (Code.YEAR_BEFORE_ARXIV, _misc(title="A", year="2023", url="https://arxiv.org/abs/2401.10241"),
     _misc(title="A", year="2024", url="https://arxiv.org/abs/2401.10241"), "year", "2401.10241"),
    # identifiers
    (Code.DOI_PREFIX, _article(doi="https://doi.org/10.1118/1.3528204"),
     _article(doi="10.1118/1.3528204"), "doi", "https://doi.org/10.1118/1.3528204"),
    (Code.DOI_SYNTAX, _article(doi="10.1118 1.3528204"), _article(doi="10.1145/3600006.3613165"),
     "doi", "space"),
    (Code.URL_SCHEME_DUPLICATED, _misc(title="A", url="https://https://huggingface.co/x"),
     _misc(title="A", url="https://huggingface.co/x"), "url", "https://https://"),
    (Code.DOI_END, _article(doi="10.1145/3600006.3613165."), _article(doi="10.1145/3600006.3613165"),
     "doi", "ends with '.'"),
    (Code.URL_SPACE, _misc(title="A", url="https://arxiv. org/abs/2506.14245"),
     _misc(title="A", url="https://arxiv.org/abs/2506.14245"), "url", "space"),
    (Code.URL_MULTIPLE, _misc(title="A", url="https://a.org/x | https://b.org/y"),
     _misc(title="A", url="https://a.org/x", note="Code: \\url{https://b.org/y}"), "url", "2 URLs"),
    (Code.URL_MALFORMED, _misc(title="A", url="www.example.org/page"),
     _misc(title="A", url="https://www.example.org/page"), "url", "www.example.org/page"),
    (Code.URL_SCHEME, _misc(title="A", url="ftp://ftp.example.org/a.pdf"),
     _misc(title="A", url="https://example.org/a.pdf"), "url", "ftp:"),
    (Code.URL_IN_FIELD, _misc(title="A", howpublished="\\url{https://github.com/tatsu-lab/alpaca}"),
     _misc(title="A", howpublished="GitHub", url="https://github.com/tatsu-lab/alpaca"),
     "howpublished", "https://github.com/tatsu-lab/alpaca"),
    (Code.DOI_URL_MISMATCH, _article(doi="10.1145/1", url="https://doi.org/10.1145/2"),
     _article(doi="10.1145/1", url="https://doi.org/10.1145/1"), "url", "'10.1145/2'"),
    (Code.URLDATE_WITHOUT_URL, _article(urldate="2024-05-01"),
     _article(urldate="2024-05-01", url="https://example.org"), "urldate", "2024-05-01"),
    (Code.ISBN_CHECKSUM, _article(isbn="978-0-262-03384-7"), _article(isbn="978-0-262-03384-8"),
     "isbn", "978-0-262-03384-7"),
    (Code.ISSN_CHECKSUM, _article(issn="0360-0301"), _article(issn="0360-0300"), "issn", "0360-0301"),
    (Code.ARXIV_ID, _misc(title="A", eprint="arXiv:23-09.06180", eprinttype="arXiv"),
     _misc(title="A", eprint="2309.06180", eprinttype="arXiv"), "eprint", "arXiv:23-09.06180"),
    # names
    (Code.BAD_NAME, _article(author="Kwon, Woosuk, Jr, Extra and Li, Zhuohan"),
     _article(author="Kwon, Jr, Woosuk and Li, Zhuohan"), "author", "3 commas"),
    (Code.OTHERS_NOT_LAST, _article(author="Kwon, Woosuk and others and Li, Zhuohan"),
     _article(author="Kwon, Woosuk and Li, Zhuohan and others"), "author", "Li"),
    (Code.CORPORATE_AUTHOR, _misc(title="A", author="Google Cloud"),
     _misc(title="A", author="{Google Cloud}"), "author", "'Google Cloud'"),
    (Code.AND_CASE, _misc(title="A", author="Garcia, B\u00e9r\u00e9nice AND Burke, Leyla AND Batut, B."),
     _misc(title="A", author="Garcia, B\u00e9r\u00e9nice and Burke, Leyla and Batut, B."), "author", "'AND'"),
    (Code.ET_AL_LITERAL, _misc(title="A", author="Garcia, B. and Burke, L. and et al."),
     _misc(title="A", author="Garcia, B. and Burke, L. and others"), "author", "'and et al.'"),
    (Code.NAME_PUNCTUATION, _misc(title="A", author='Lian, Wing and "Teknium"'),
     _misc(title="A", author="Lian, Wing and {Teknium}"), "author", "quotes"),
    (Code.ORGANISATION_VARIANTS, _misc(title="A", author="{NVIDIA}")
     + _misc(title="B", author="{NVIDIA}").replace("{k,", "{k2,")
     + _misc(title="C", author="{NVIDIA Corporation}").replace("{k,", "{k3,"),
     _misc(title="A", author="{NVIDIA}") + _misc(title="B", author="{NVIDIA}").replace("{k,", "{k2,"),
     "author", "'NVIDIA Corporation'"),
    # titles
    # the default style prints 'I/O' as 'i/o' unless braced; PagedAttention and GPU stay as written
    (Code.TITLE_CASE, _article(title="Serving PagedAttention I/O on a GPU"),
     _article(title="Serving PagedAttention {I/O} on a GPU"), "title", "'I/O'"),
    (Code.TITLE_LOST_CASE, _article(title="Qlora: Efficient finetuning of quantized llms"),
     _article(title="{QLoRA}: Efficient Finetuning of Quantized {LLMs}"), "title", "'llms'"),
    (Code.TITLE_MEDIUM, _misc(title="Chatbot Arena Conversations [Dataset]"),
     _misc(title="Chatbot Arena Conversations", howpublished="Dataset"), "title", "[Dataset]"),
    (Code.TITLE_QUOTES, _article(title='"Why Should {I} Trust You?"'),
     _article(title="``Why Should {I} Trust You?''"), "title", "straight"),
    (Code.TITLE_NBSP, _article(title="Analysis and~Challenges"),
     _article(title="Analysis and Challenges"), "title", "non-breaking"),
    # values
    # a Unicode hyphen is printed as written; an ASCII one becomes an en dash anyway
    (Code.PAGES_DASH, _article(pages="12\u201015"), _article(pages="12-15"), "pages", "'12\u201015'"),
    # an abbreviated range (125--31: 125 to 131, PubMed's form) ends after it starts: silent
    (Code.PAGES_REVERSED, _article(pages="131--125"), _article(pages="125--31"), "pages", "131--125"),
    (Code.MONTH_INVALID, _article(month="Spring"), _article(month="June"), "month", "'Spring'"),
    (Code.MONTH_BRACED, _article(month="{jan}"), ("@article{k,\n  title = {A},\n  author = {A, B},\n"
     "  journal = {J},\n  year = {2020},\n  month = jan,\n}\n"), "month", "'jan'"),
    # \proglang{R} (Journal of Statistical Software's macro): refbook prints it as nothing
    (Code.UNDEFINED_MACRO, _article(title="The \\proglang{R} Package"),
     _article(title="The \\textsf{R} Package"), "title", "'\\proglang{R}'"),
    (Code.VOLUME_INVALID, _article(volume="Advances in NeurIPS 31"), _article(volume="31"),
     "volume", "Advances"),
]


def _check(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    bib = read_bibliography([path])
    assert not bib.diagnostics, bib.diagnostics
    return validate(bib, Config())


def _line_of(text: str, key: str, field: str) -> int:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("@") and ln.endswith(f"{{{key},"))
    if not field:
        return start + 1
    return next(i for i, ln in enumerate(lines[start:], start)
                if ln.strip().startswith(f"{field} ")) + 1


@pytest.mark.parametrize(("code", "bad", "good", "field", "words"), CASES,
                         ids=[c[0].slug for c in CASES])
def test_rule(tmp_path: Path, code: Code, bad: str, good: str, field: str, words: str) -> None:
    found = [d for d in _check(tmp_path, bad) if d.code is code]
    assert len(found) == 1, [d.format() for d in _check(tmp_path, bad)]
    d = found[0]
    assert words in d.message
    assert d.hint
    assert d.field == field
    assert d.location is not None
    assert d.location.file.endswith("refs.bib")
    assert d.location.line == _line_of(bad, d.key, field)
    assert [g.format() for g in _check(tmp_path, good) if g.code is code] == []


def test_every_rule_has_an_example() -> None:
    reader_or_hosts = {"syntax", "crossref", "citations", "config"}
    rules = {c for c in Code if c.family not in reader_or_hosts} - {Code.DUPLICATE_KEY}
    assert rules == {c[0] for c in CASES}
    assert set(FAMILY_CHECKS) | reader_or_hosts == {c.family for c in Code}


def test_hints_show_the_fix(tmp_path: Path) -> None:
    by = {d.code: d for d in _check(tmp_path, _article(
        doi="https://doi.org/10.1118/1.3528204", pages="12\u201015",
        title="Serving Q&A with PagedAttention on I/O", author="Google Cloud"))}
    assert by[Code.DOI_PREFIX].hint.startswith("write doi = {10.1118/1.3528204}")
    assert by[Code.PAGES_DASH].hint.startswith("write 12--15")
    assert by[Code.TITLE_CASE].hint == "brace them: title = {Serving {Q&A} with PagedAttention on {I/O}}"
    assert "{{Google Cloud}}" in by[Code.CORPORATE_AUTHOR].hint
    assert "'Cloud, G.'" in by[Code.CORPORATE_AUTHOR].message


@pytest.mark.parametrize("author", ["{NVIDIA Corporation}", "NVIDIA Corporation", "Workshop, BigScience",
                                    "McCandlish, Sam and OpenAI Dota Team"])
def test_corporate_names(tmp_path: Path, author: str) -> None:
    codes = {d.code for d in _check(tmp_path, _misc(title="A", author=author))}
    assert (Code.CORPORATE_AUTHOR in codes) == (not author.startswith("{"))


@pytest.mark.parametrize("author", ["Armato III, Samuel G.", "Le Scao, Teven", "Li, PengXiang",
                                    "de la Fuente, Ana", "Hu, Edward J. and others"])
def test_real_people_are_not_flagged(tmp_path: Path, author: str) -> None:
    codes = {d.code for d in _check(tmp_path, _misc(title="A", author=author))}
    assert not codes & {Code.CORPORATE_AUTHOR, Code.NAME_PUNCTUATION}


def test_initials_run_together(tmp_path: Path) -> None:
    ds = _check(tmp_path, _misc(title="A", author="Navaux, Philippe OA and Reitan, KIR"))
    found = [d for d in ds if d.code is Code.NAME_PUNCTUATION]
    assert [d.hint for d in found] == ["write Navaux, Philippe O. A.", "write Reitan, K. I. R."]
    assert not [d for d in ds if d.code is Code.CORPORATE_AUTHOR]


def test_two_people_joined_by_a_comma(tmp_path: Path) -> None:
    ds = _check(tmp_path, _misc(title="A", author="Piotr Mazurek, Felix Gabriel"))
    (d,) = [d for d in ds if d.code is Code.NAME_PUNCTUATION]
    assert "two people" in d.message
    # alone in its list it has the shape of a compound family name too (issue 12): advice only
    assert d.effective_severity is Severity.INFO
    assert d.hint == "if they are two people, separate them with 'and': Piotr Mazurek and Felix Gabriel"
    ds = _check(tmp_path, _misc(title="A", author="Piotr Mazurek, Felix Gabriel and John Smith"))
    (d,) = [d for d in ds if d.code is Code.NAME_PUNCTUATION]
    assert d.effective_severity is Severity.WARNING
    assert d.hint == "separate people with 'and': Piotr Mazurek and Felix Gabriel"


def test_tool_names_and_protected_words_are_not_title_case(tmp_path: Path) -> None:
    ds = _check(tmp_path, _misc(title="nvidia-smi: {NVIDIA} {GPU} Tool for Checkpoint/Restore"))
    assert not [d for d in ds if d.code in (Code.TITLE_CASE, Code.TITLE_LOST_CASE)]


def test_duplicate_work_by_title_and_first_author(tmp_path: Path) -> None:
    text = (_misc(title="The {Llama} 3 Herd of Models", author="Grattafiori, Aaron", year="2024")
            + _article(title="The llama 3 herd of models", author="Grattafiori, Aaron and Dubey, A",
                       year="2024").replace("{k,", "{k2,"))
    (d,) = [d for d in _check(tmp_path, text) if d.code is Code.DUPLICATE_WORK]
    assert d.key == "k2"
    assert "'k2' is the same work as 'k'" in d.message
    assert "same title and first author" in d.message
    assert "cite 'k' instead" in d.hint


def test_month_forms(tmp_path: Path) -> None:
    for month in ("June--August", "Sept.", "12", "January"):
        ds = _check(tmp_path, _article(month=month))
        assert not [d for d in ds if d.code in (Code.MONTH_INVALID, Code.MONTH_BRACED)], month


def test_brackets_that_are_not_a_medium(tmp_path: Path) -> None:
    for title in ("Comment on [J. Chem. Phys. 124, 201104 (2006)]", "[Hart's] Rules for Compositors"):
        assert not [d for d in _check(tmp_path, _misc(title=title)) if d.code is Code.TITLE_MEDIUM]


def test_reference_manager_types_get_the_standard_name(tmp_path: Path) -> None:
    for written, standard in (("web_page", "online"), ("book_section", "incollection")):
        ds = _check(tmp_path, f"@{written}{{k,\n  title = {{A}},\n}}\n")
        (d,) = [d for d in ds if d.code is Code.UNKNOWN_TYPE]
        assert d.hint == f"did you mean @{standard}?"


def test_isbn_forms(tmp_path: Path) -> None:
    ds = _check(tmp_path, _article(isbn="978-0-262-03384-8, 0-262-03384-4 and 0029-5132"))
    (d,) = [d for d in ds if d.code is Code.ISBN_CHECKSUM]
    assert d.message == "k: isbn '0029-5132' is an ISSN, not an ISBN"


def test_year_in_parentheses_at_the_end_of_a_title(tmp_path: Path) -> None:
    ds = _check(tmp_path, _misc(title="Chatbot Arena Conversations (2023)"))
    (d,) = [d for d in ds if d.code is Code.YEAR_IN_TITLE]
    assert d.hint == "write title = {Chatbot Arena Conversations} and put 2023 in year"
    assert not [d for d in _check(tmp_path, _misc(title="IEEE Std 754-2019"))
                if d.code is Code.YEAR_IN_TITLE]


def test_title_keys_of_values_without_commands_are_those_of_their_latex_reading() -> None:
    """``keys.title_key`` compares a value without commands, math or comments as written (its
    shortcut, braces included); on every field of the shared test data the key is the one made
    from the value's full LaTeX reading (``refbook.latex.parsed_text``, without to_text's own
    shortcut)."""
    import re
    import unicodedata

    from refbook.latex import parsed_text
    from refbook.validate import keys
    from tests.conftest import SEED, TESTDATA

    def full(value: str) -> str:
        text = parsed_text(value)
        if not text.isascii():
            text = "".join(c for c in unicodedata.normalize("NFKD", text)
                           if not unicodedata.combining(c))
        return re.sub(r"[\W_]+", "", text.lower())

    compared = braced = 0
    for path in [SEED / "references.raw.bib", *sorted(TESTDATA.rglob("*.bib"))]:
        for entry in read_bibliography([path]):
            for f in entry.fields:
                if not keys._READS_WORDS.search(f.value):
                    compared += 1
                    braced += "{" in f.value
                    assert keys.title_key(f.value) == full(f.value), (path.name, f.value)
    assert compared > 10_000
    assert braced > 500  # groups ({B}ayesian, {{NASA}}) take the shortcut too
    # and a value with markup goes through LaTeX: its key drops the command, not its letters
    assert keys.title_key(r"The {\TeX}book: \emph{na\"ive} -- ``quoted''") == "thetexbooknaivequoted"


def test_a_length_is_no_text_that_vanishes_but_a_character_is(tmp_path: Path) -> None:
    """An unknown command's length (\\kern2pt, \\hskip 1em, \\penalty-100) prints nothing and
    hides nothing; \\char22 hides its character (found in xraylarch's larch.bib)."""
    spacing = _article(title=r"Four \kern2pt X, \hskip 1em plus 1fil Y and \penalty-100 Z")
    assert [d.format() for d in _check(tmp_path, spacing) if d.code is Code.UNDEFINED_MACRO] == []
    char = [d for d in _check(tmp_path, _article(title=r"X-Ray\char22{}Absorption"))
            if d.code is Code.UNDEFINED_MACRO]
    assert len(char) == 1
    assert r"'\char22{}'" in char[0].message  # LaTeX as written, one backslash


def test_unknown_commands_are_named_short_and_at_most_five(tmp_path: Path) -> None:
    """A value with thousands of unknown commands, or one with a huge argument, gives a
    message of bounded length: five commands named, each shortened, and the count of the
    others (it quoted every command whole: a 50,000-digit \\char was 50,000 characters)."""
    many = " ".join(rf"\foo{{w{i}}}" for i in range(2000))
    found = [d for d in _check(tmp_path, _article(title=many)) if d.code is Code.UNDEFINED_MACRO]
    assert len(found) == 1
    message = found[0].message
    assert r"'\foo{w0}'" in message
    assert r"'\foo{w4}'" in message
    assert r"\foo{w5}" not in message
    assert "and 1995 more" in message
    assert len(message) < 400
    huge = [d for d in _check(tmp_path, _article(title=r"X\char" + "1" * 50_000 + "{} Y"))
            if d.code is Code.UNDEFINED_MACRO]
    assert len(huge) == 1
    assert len(huge[0].message) < 300
    assert "…" in huge[0].message


def test_a_tilde_accent_in_a_name_is_kept_in_the_hint(tmp_path: Path) -> None:
    """``Qui\\~{n}ones``: the tilde accent is no tie between two words (the hint said
    "write Qui nones, M. G.")."""
    found = [d for d in _check(tmp_path, _article(author=r"Qui\~{n}ones, MG"))
             if d.code is Code.NAME_PUNCTUATION]
    assert len(found) == 1
    assert found[0].hint == "write Quiñones, M. G."
    assert r"'Qui\~{n}ones, MG'" in found[0].message
