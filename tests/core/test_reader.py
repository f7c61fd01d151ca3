"""The BibTeX reader: values, locations, error recovery, crossref, files, encodings, caches."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from refbook import bibcache
from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.models import Bibliography, Entry, Location
from refbook.readers import read_bibliography, resolve_crossrefs
from refbook.readers.bibtex import ParseResult, parse_bibtex
from tests.conftest import TESTDATA


@pytest.fixture(autouse=True)
def _cold_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bibcache.CACHE_DIR_ENV, raising=False)
    bibcache.clear_memory_cache()


def parse(text: str) -> ParseResult:
    return parse_bibtex(text, "t.bib")


def codes(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, int]]:
    return [(d.code.slug, d.location.line if d.location else -1) for d in diagnostics]


def values(entry: Entry) -> dict[str, str]:
    return {f.name: f.value for f in entry.fields}


def lines(entry: Entry) -> dict[str, int]:
    return {f.name: f.location.line for f in entry.fields}


def shared_file(relative: str) -> Path:
    path = TESTDATA / relative
    assert path.is_file(), f"shared test data not present: {path}"
    return path


# -- values and locations ----------------------------------------------------------------------

TWO_ENTRIES = """\
% a comment line
@Article{Knuth:1984,
  AUTHOR    = {Donald E. Knuth},
  title     = {Literate
               Programming},
  journal   = {The Computer Journal}, year = 1984,
  abstract  = {Multi-line
    with {nested {braces}} and \\emph{commands}
    and a blank-free end},
  pages     = "97--111"
}

@BOOK{lamport94,
  title = {{\\LaTeX}: A Document Preparation System},
}
"""


def test_entry_and_field_lines_including_multiline_values() -> None:
    r = parse(TWO_ENTRIES)
    assert r.diagnostics == ()
    knuth, lamport = r.entries
    assert knuth.location == Location("t.bib", 2)
    assert lines(knuth) == {"author": 3, "title": 4, "journal": 6, "year": 6, "abstract": 7,
                            "pages": 10}
    assert lamport.location == Location("t.bib", 13)
    assert lines(lamport) == {"title": 14}


def test_names_case_and_value_cleanup() -> None:
    knuth, lamport = parse(TWO_ENTRIES).entries
    assert (knuth.key, knuth.type, lamport.key, lamport.type) == (
        "Knuth:1984", "article", "lamport94", "book")
    v = values(knuth)
    assert v["author"] == "Donald E. Knuth"
    assert v["title"] == "Literate Programming"  # white space collapsed as BibTeX does
    assert v["abstract"] == ("Multi-line with {nested {braces}} and \\emph{commands} and a "
                             "blank-free end")
    assert v["year"] == "1984"
    assert v["pages"] == "97--111"
    assert values(lamport)["title"] == "{\\LaTeX}: A Document Preparation System"


def test_string_macros_concatenation_and_months() -> None:
    r = parse("""\
@string{acm = "Association for Computing Machinery"}
@STRING(stoc = " Symposium on the Theory of Computing")
@string{both = acm # stoc}
@inproceedings{a,
  booktitle = "Proc. Fifteenth Annual ACM" # STOC,
  publisher = acm,
  note = both # { (} # 1983 # ")",
  month = "10~" # jan,
  month2 = dec,
  year = 1983,
}
""")
    assert r.diagnostics == ()
    v = values(r.entries[0])
    assert v["booktitle"] == "Proc. Fifteenth Annual ACM Symposium on the Theory of Computing"
    assert v["publisher"] == "Association for Computing Machinery"
    assert v["note"] == ("Association for Computing Machinery Symposium on the Theory of "
                         "Computing (1983)")
    assert v["month"] == "10~January"
    assert v["month2"] == "December"
    assert r.strings == (
        ("acm", "Association for Computing Machinery"),
        ("stoc", " Symposium on the Theory of Computing"),
        ("both", "Association for Computing Machinery Symposium on the Theory of Computing"),
    )


def test_string_can_redefine_a_month() -> None:
    r = parse("@string{jan = {Jan.}}\n@misc{a, month = jan}\n")
    assert values(r.entries[0]) == {"month": "Jan."}


def test_undefined_macro_keeps_its_name_and_is_reported() -> None:
    r = parse("@article{a,\n  title = {T},\n  journal = jcomp,\n}\n")
    assert values(r.entries[0])["journal"] == "jcomp"
    (d,) = r.diagnostics
    assert (d.code, d.location, d.key, d.field) == (
        Code.UNDEFINED_STRING, Location("t.bib", 3), "a", "journal")
    assert "jcomp" in d.message
    assert "@string{jcomp" in d.hint


def test_comments_preambles_and_text_between_entries_are_ignored() -> None:
    r = parse("""\
Text before the first entry, even with (parentheses) and = signs.
@comment{jabref-meta: databaseType:bibtex; @misc{notreal, title = {x}}}
@preamble{ "\\newcommand{\\noopsort}[1]{}" # "\\relax" }
%@book{commented-out, title = {No}}
@Comment this whole line is a comment @book{neither,
@misc{real, title = {Yes}}
""")
    assert r.diagnostics == ()
    assert [e.key for e in r.entries] == ["real"]
    assert r.entries[0].location.line == 6
    assert r.preambles == ("\\newcommand{\\noopsort}[1]{}\\relax",)


def test_parenthesised_entries_and_comments_between_fields() -> None:
    r = parse("""\
@article(paren,
  title = {A (nested) title},   % biber allows comments here
  % and on their own line
  year = 2001
)
@misc{brace, note = {x}}
""")
    assert r.diagnostics == ()
    paren, brace = r.entries
    assert values(paren) == {"title": "A (nested) title", "year": "2001"}
    assert lines(paren) == {"title": 2, "year": 4}
    assert brace.location.line == 6


def test_quoted_values_may_hold_quotes_inside_braces() -> None:
    r = parse('@misc{q, title = "The {"}Quote{"} and \\{escaped\\}",}\n')
    assert values(r.entries[0])["title"] == 'The {"}Quote{"} and \\{escaped\\}'


def test_fast_and_general_paths_agree() -> None:
    # Comments between fields send every entry down the general path.
    path = shared_file("texlive/xampl.bib")
    text = path.read_text(encoding="utf-8")
    slow_text = text.replace(",\n", ",\n\n% force the general path\n")
    fast = parse_bibtex(text, "x.bib")
    slow = parse_bibtex(slow_text, "x.bib")
    assert [(e.key, e.type, values(e)) for e in fast.entries] == [
        (e.key, e.type, values(e)) for e in slow.entries]
    assert fast.strings == slow.strings


# -- duplicates --------------------------------------------------------------------------------

def test_duplicate_key_in_one_file_keeps_the_first() -> None:
    r = parse("@misc{k, title = {First}}\n\n@book{k,\n  title = {Second}}\n")
    assert [values(e) for e in r.entries] == [{"title": "First"}]
    (d,) = r.diagnostics
    assert (d.code, d.location, d.key) == (Code.DUPLICATE_KEY, Location("t.bib", 3), "k")
    assert "line 1" in d.message
    assert "t.bib:1" in d.hint


def test_duplicate_field_keeps_the_first() -> None:
    for text in ("@misc{k,\n  title = {A},\n  Title = {B},\n}\n",          # fast path
                 "@misc{k,\n  title = {A},\n% a comment\n  Title = {B},\n}\n"):  # general path
        r = parse(text)
        assert values(r.entries[0]) == {"title": "A"}
        (d,) = r.diagnostics
        assert (d.code, d.key, d.field) == (Code.DUPLICATE_FIELD, "k", "title")
        assert d.location is not None
        assert d.location.line == text.count("\n", 0, text.index("Title")) + 1
        assert "line 2" in d.hint


# -- syntax errors: the broken entry is skipped, every other entry is kept -----------------------

SYNTAX_CASES = [
    # (name, text of the broken entry, line of the diagnostic, words of the message)
    ("missing =", "@article{bad,\n  title {T},\n}\n", 2, "expected `=`"),
    ("value runs over a field", "@article{bad,\n  title = {T,\n  year = 2000}\n", 2,
     "unbalanced braces"),
    ("value runs into the next entry", "@article{bad,\n  title = {T,\n  year = 2000,\n}\n", 2,
     "unbalanced braces"),
    ("no key", "@article{\n  title = {T},\n}\n", 1, "no citation key"),
    ("stray character", "@article{bad,\n  title = {T};\n}\n", 2, "expected `,` or `}`"),
    ("empty key", "@article{,\n  title = {T},\n}\n", 1, "no citation key"),
    ("bare word value", "@article{bad,\n  pages = 12-15,\n}\n", 2, "not a valid value"),
    ("wrong closing delimiter", "@article(bad,\n  title = {T}}\n", 2, "expected `,` or `)`"),
    ("no delimiter", "@article bad,\n  title = {T},\n}\n", 1, "not followed by `{`"),
]


@pytest.mark.parametrize(("name", "broken", "line", "words"), SYNTAX_CASES,
                         ids=[c[0] for c in SYNTAX_CASES])
def test_syntax_error_skips_only_the_broken_entry(
    name: str, broken: str, line: int, words: str
) -> None:
    text = "@misc{before, title = {B}}\n" + broken + "\n@misc{after,\n  title = {A}}\n"
    r = parse(text)
    assert [e.key for e in r.entries] == ["before", "after"], name
    after = r.entries[1]
    assert after.location.line == text[: text.index("@misc{after")].count("\n") + 1
    assert lines(after) == {"title": after.location.line + 1}
    (d,) = r.diagnostics
    assert d.code is Code.SYNTAX
    assert d.location == Location("t.bib", line + 1)  # +1: the entry before the broken one
    assert words in d.message
    assert d.hint
    assert d.key == ("bad" if "bad" in broken and name != "no delimiter" else "")


# -- slips that BibTeX and pybtex read past: the entry is kept, with a warning at the line -------

RECOVERED_CASES = [
    # (name, text of the entry, line of the warning, words of the message)
    ("missing comma after key", "@Article{white:95\n  author = {White, A.},\n  title = {T},\n}\n",
     1, "missing `,` after the key `white:95`"),
    ("missing comma after key, same line", "@article{bad title = {T}, author = {White, A.}}\n",
     1, "missing `,` after the key `bad`"),
    ("missing comma between fields", "@article{bad,\n  title = {T}\n  author = {White, A.},\n}\n",
     2, "missing `,` between field `title`"),
    ("comma too many", "@article{bad,\n  title = {T},,\n  author = {White, A.}\n}\n", 2,
     "a `,` too many"),
    ("entry not closed", "@article{bad,\n  title = {T},\n  author = {White, A.}\n", 3,
     "entry `bad` is not closed: expected `}` before the next `@`"),
    ("entry not closed, trailing comma", "@article{bad,\n  title = {T},\n  year = 2000,\n", 3,
     "entry `bad` is not closed"),
    ("closing brace too many", "@article{bad,\n  title = {T}},\n  year = 2000,\n}\n", 2,
     "a `}` too many closes the entry early; the fields after it are lost"),
    ("field without a value", "@article{bad,\n  note = ,\n  title = {T}\n}\n", 2,
     "field `note` has no value in entry `bad`; it is left out"),
    ("last field without a value", "@article{bad,\n  title = {T},\n  note =\n}\n", 3,
     "field `note` has no value"),
    ("comma too many after the key", "@article{bad,,\n  title = {T}, author = {White, A.}}\n", 1,
     "a `,` too many in entry `bad` after the key"),
]


@pytest.mark.parametrize(("name", "broken", "line", "words"), RECOVERED_CASES,
                         ids=[c[0] for c in RECOVERED_CASES])
def test_slips_pybtex_reads_past_keep_the_entry(name: str, broken: str, line: int,
                                                words: str) -> None:
    from pybtex import errors as pybtex_errors
    from pybtex.database.input import bibtex as pybtex_bibtex

    text = "@misc{before, title = {B}}\n" + broken + "\n@misc{after,\n  title = {A}}\n"
    r = parse(text)
    # pybtex (the reader sphinxcontrib-bibtex uses), run live: every entry it keeps, refbook
    # keeps, with every field pybtex reads and the same values
    strict = pybtex_errors.strict
    # non-strict: pybtex reports an error and reads on (strict, its default, reads the slips
    # after a key silently and stops the whole file at a missing comma between fields)
    pybtex_errors.set_strict_mode(False)
    try:
        theirs = pybtex_bibtex.Parser(strict=False).parse_string(text).entries
    finally:
        pybtex_errors.set_strict_mode(strict)
    ours = {e.key: {f.name: f.value for f in e.fields} for e in r.entries}
    assert set(theirs) <= set(ours), name
    for key, entry in theirs.items():
        for field, value in entry.fields.items():
            assert ours[key][field.lower()] == value, (key, field)
    for key, entry in theirs.items():
        assert len(ours[key]) >= len(entry.fields) + len(entry.persons), key
    # a warning at the slip's line, which names the entry
    (d,) = r.diagnostics
    assert d.code is Code.SYNTAX_RECOVERED
    assert d.code.default_severity is Severity.WARNING
    assert d.location == Location("t.bib", line + 1)  # +1: the entry before the broken one
    assert words in d.message
    assert d.hint
    (broken_key,) = set(ours) - {"before", "after"}
    assert d.key == broken_key


def test_last_entry_not_closed_at_end_of_file() -> None:
    # trailing text of a file cut short: pybtex keeps the last entry, refbook too, with its fields
    r = parse("@misc{ok, title = {x}}\n@article{last,\n  title = {T},\n  year = 2000\n")
    assert [e.key for e in r.entries] == ["ok", "last"]
    assert {f.name: f.value for f in r.entries[1].fields} == {"title": "T", "year": "2000"}
    assert codes(r.diagnostics) == [("syntax-recovered", 4)]
    assert "before the end of the file" in r.diagnostics[0].message


def test_unclosed_value_at_end_of_file() -> None:
    r = parse("@misc{ok, title = {x}}\n@article{bad,\n  title = {Unclosed,\n  year = 1\n")
    assert [e.key for e in r.entries] == ["ok"]
    assert codes(r.diagnostics) == [("syntax", 3)]
    d = r.diagnostics[0]
    assert "opened on line 3 is never closed" in d.message
    assert (d.key, d.field) == ("bad", "title")


def test_testdata_missing_commas() -> None:
    bib = read_bibliography([shared_file("biblatex-check/input.bib")])
    # missing commas after a key and between fields: read past, as pybtex reads them
    assert codes(bib.diagnostics) == [("syntax-recovered", n) for n in (49, 51, 56, 58, 59)]
    assert "`author` (line 49) and field `title` (line 50)" in bib.diagnostics[0].message
    assert "after the key `paneMyers`" in bib.diagnostics[2].message
    assert bib["elephants"].get("title") == "Elephants Don't Play Chess"
    assert bib["paneMyers"].get("institution") == "Carnegie Mellon University"
    assert "emberFest2017" in bib
    assert bib["nistFIPS197Advanced2001"].location.line == 65
    assert len(bib) == 12


def test_testdata_brace_errors() -> None:
    bib = read_bibliography([shared_file("biblint/clean_wholebrace_in.bib")])
    assert codes(bib.diagnostics) == [("syntax-recovered", 20), ("syntax-recovered", 25)]
    assert "too many" in bib.diagnostics[1].message
    # test5's `}` too many: kept with the fields before it, as pybtex keeps it
    assert bib.keys() == ("test1", "test2", "test3", "test4", "test5")

    bib = read_bibliography([shared_file("biblint/clean_pageshyphen_in.bib")])
    assert codes(bib.diagnostics) == [("syntax-recovered", 32)]
    assert len(bib) == 7


def test_testdata_entries_without_keys() -> None:
    bib = read_bibliography([shared_file("zotero-better-bibtex/import/Endnote should parse.bib")])
    assert codes(bib.diagnostics) == [("syntax", 2)]

    mendeley = "zotero-better-bibtex/import/web_page and other mendeley idiocy.bib"
    bib = read_bibliography([shared_file(mendeley)])
    syntax = [d for d in bib.diagnostics if d.code is Code.SYNTAX]
    assert len(syntax) == 37
    assert [d.location.line for d in syntax[:3] if d.location] == [114, 525, 536]
    assert all("no citation key" in d.message for d in syntax)
    assert len(bib) == 450  # pybtex stops reading such entries' files at the first error


def test_testdata_commented_out_entries_and_comment_lines() -> None:
    bib = read_bibliography([shared_file("biber/names.bib")])
    assert bib.diagnostics == ()
    assert "L27" not in bib
    assert "L29" in bib
    bib = read_bibliography([shared_file("biblint/clean_comments_in.bib")])
    assert bib.diagnostics == ()
    assert bib.keys() == ("end", "t")


# -- crossref and xdata ------------------------------------------------------------------------

def test_crossref_inherits_missing_fields_with_parent_locations() -> None:
    bib = read_bibliography([shared_file("texlive/xampl.bib")])
    child = bib["incollection-crossref"]
    v = values(child)
    assert v["crossref"] == "whole-collection"  # kept
    assert v["author"] == "Daniel D. Lincoll"  # own field wins
    assert v["title"] == "Semigroups of Recurrences"
    assert v["booktitle"] == "High Speed Computer and Algorithm Organization"
    assert v["editor"] == "David J. Lipcoll and D. H. Lawrie and A. H. Sameh"
    assert v["publisher"] == "Academic Press"
    assert v["month"] == "September"
    parent = bib["whole-collection"]
    assert child.field("editor") == parent.field("editor")
    # a @book parent fills an @incollection child's booktitle from its own booktitle (biblatex
    # renames title to booktitle only for @inbook children; pandoc does the same)
    assert child.field("booktitle") == parent.field("booktitle")
    assert [f.name for f in child.fields][:5] == ["crossref", "author", "title", "pages", "note"]


def test_crossref_book_to_inbook_and_case_sensitive_keys() -> None:
    bib = read_bibliography([shared_file("texlive/xampl.bib")])
    inbook = bib["inbook-crossref"]
    v = values(inbook)
    assert v["title"] == "Fundamental Algorithms"
    assert v["booktitle"] == "The Art of Computer Programming"
    assert v["author"] == v["bookauthor"] == "Donald E. Knuth"
    booktitle = inbook.field("booktitle")
    assert booktitle is not None
    assert booktitle.location == Location(str(shared_file("texlive/xampl.bib")), 123)
    # "WHOLE-JOURNAL" names @ARTICLE{whole-journal} only if case is ignored (BibTeX does,
    # biber and pandoc do not): reported, with the near key in the hint.
    (d,) = bib.diagnostics
    assert (d.code, d.location.line if d.location else 0, d.key, d.field) == (
        Code.CROSSREF_MISSING, 35, "article-crossref", "crossref")
    assert "did you mean `whole-journal`?" in d.hint
    assert "journal" not in bib["article-crossref"]


BIBLATEX = """\
@mvbook{mv, title = {Collected Works}, author = {A. Author}, year = 1990,
  shorttitle = {Works}, ids = {mvalias}}
@book{vol, crossref = {mv}, title = {Volume One}, volume = 1}
@inbook{chap, crossref = {vol}, title = {Chapter}, pages = {1--10}}
@proceedings{proc, title = {Proceedings}, subtitle = {Sub}, titleaddon = {Addon},
  year = 2000, sorttitle = {Proc}}
@inproceedings{paper, crossref = {proc}, title = {Paper}}
@periodical{jour, title = {Journal of Things}, year = 2001}
@article{art, crossref = {jour}, title = {Article}}
@xdata{pub, publisher = {Press}, location = {City}}
@book{x, xdata = {pub}, title = {X}, location = {Own City}, crossref = {mv}}
"""


def test_biblatex_inheritance_rules() -> None:
    r = parse_bibtex(BIBLATEX, "b.bib")
    entries, diagnostics = resolve_crossrefs(r.entries)
    assert diagnostics == []
    by_key = {e.key: values(e) for e in entries}
    # multi-volume parent: its title becomes maintitle, shorttitle and ids are not inherited
    assert by_key["vol"]["maintitle"] == "Collected Works"
    assert "shorttitle" not in by_key["vol"]
    assert "ids" not in by_key["vol"]
    assert by_key["vol"]["author"] == "A. Author"
    # cascade: the chapter gets its book's title as booktitle, and the maintitle through it
    assert by_key["chap"]["booktitle"] == "Volume One"
    assert by_key["chap"]["maintitle"] == "Collected Works"
    assert by_key["chap"]["bookauthor"] == "A. Author"
    # proceedings → inproceedings: title, subtitle, titleaddon move to book*
    assert {k: by_key["paper"][k] for k in ("booktitle", "booksubtitle", "booktitleaddon")} == {
        "booktitle": "Proceedings", "booksubtitle": "Sub", "booktitleaddon": "Addon"}
    assert by_key["paper"]["title"] == "Paper"
    assert "sorttitle" not in by_key["paper"]
    assert by_key["art"]["journaltitle"] == "Journal of Things"
    # xdata before crossref, own fields first
    assert by_key["x"]["publisher"] == "Press"
    assert by_key["x"]["location"] == "Own City"
    assert by_key["x"]["maintitle"] == "Collected Works"


def test_crossref_missing_and_cycles_are_reported() -> None:
    r = parse_bibtex("""\
@inproceedings{orphan,
  title = {T},
  crossref = {nowhere},
}
@book{a, crossref = {b}, title = {A}}
@book{b, crossref = {a}, title = {B}, year = 1999}
""", "c.bib")
    entries, diagnostics = resolve_crossrefs(r.entries)
    assert [(d.code, d.location, d.key, d.field) for d in diagnostics] == [
        (Code.CROSSREF_MISSING, Location("c.bib", 3), "orphan", "crossref"),
        (Code.CROSSREF_CYCLE, Location("c.bib", 6), "b", "crossref"),
    ]
    assert "a → b → a" in diagnostics[1].message
    assert values(entries[1])["year"] == "1999"  # a still inherits from b
    assert values(entries[0]) == {"title": "T", "crossref": "nowhere"}


def test_testdata_crossref_problems() -> None:
    bib = read_bibliography([shared_file("biber/crossrefs.bib")])
    assert codes(bib.diagnostics) == [("crossref-missing", 206), ("crossref-missing", 238),
                                      ("crossref-cycle", 255), ("crossref-missing", 325)]
    bib = read_bibliography(
        [shared_file("bibtex-tidy/python-bibtexparser/crossref_cascading_cycle.bib")])
    assert [d.code for d in bib.diagnostics] == [Code.CROSSREF_CYCLE]


# -- files -------------------------------------------------------------------------------------

def test_several_files_share_macros_and_report_cross_file_duplicates(tmp_path: Path) -> None:
    strings = tmp_path / "strings.bib"
    refs = tmp_path / "refs.bib"
    strings.write_text("@string{pub = {Addison-Wesley}}\n@book{dup, title = {One}}\n")
    refs.write_text("@book{b, publisher = pub}\n\n@book{dup, title = {Two}}\n")
    bib = read_bibliography([strings, str(refs)])
    assert bib.keys() == ("dup", "b")
    assert values(bib["b"]) == {"publisher": "Addison-Wesley"}
    assert values(bib["dup"]) == {"title": "One"}
    (d,) = bib.diagnostics
    assert (d.code, d.location, d.key) == (Code.DUPLICATE_KEY, Location(str(refs), 3), "dup")
    assert f"{strings}:2" in d.hint
    assert bib.sources == (str(strings), str(refs))


def test_one_path_and_repeated_paths(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text("@misc{a, title = {A}}\n")
    assert read_bibliography(str(path)).keys() == ("a",)
    twice = read_bibliography([path, str(path)])
    assert twice.diagnostics == ()
    assert twice.sources == (str(path),)


def test_missing_file_and_directory_are_diagnostics(tmp_path: Path) -> None:
    good = tmp_path / "good.bib"
    good.write_text("@misc{a, title = {A}}\n")
    missing = tmp_path / "missing.bib"
    bib = read_bibliography([missing, tmp_path, good])
    assert bib.keys() == ("a",)
    assert [(d.code, d.location) for d in bib.diagnostics] == [
        (Code.FILE, Location(str(missing))), (Code.FILE, Location(str(tmp_path)))]
    assert all(d.hint for d in bib.diagnostics)


def test_latin1_file_is_decoded_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "latin1.bib"
    path.write_bytes("@misc{a,\n  author = {Jos\u00e9 M\u00fcller},\n}\n".encode("latin-1"))
    bib = read_bibliography([path])
    assert values(bib["a"]) == {"author": "Jos\u00e9 M\u00fcller"}
    (d,) = bib.diagnostics
    assert (d.code, d.location) == (Code.ENCODING, Location(str(path), 2))
    assert "0xe9" in d.message
    assert "UTF-8" in d.hint


def test_testdata_encodings() -> None:
    bib = read_bibliography([shared_file("biber/encoding1.bib")])
    assert codes(bib.diagnostics) == [("encoding", 4)]
    bib = read_bibliography([shared_file("jabref/encoding-windows-1252-with-header.bib")])
    assert codes(bib.diagnostics) == [("syntax", 3), ("encoding", 4)]


def test_bom_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "bom.bib"
    path.write_bytes(b"\xef\xbb\xbf@misc{a, title = {A}}\n")
    bib = read_bibliography([path])
    assert bib.diagnostics == ()
    assert bib.keys() == ("a",)
    assert bib["a"].location.line == 1
    bib = read_bibliography([shared_file("bibtex-tidy/python-bibtexparser/article_start_with_bom.bib")])
    assert bib.keys() == ("Cesar2013",)
    assert bib["Cesar2013"].location.line == 2


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "crlf.bib"
    path.write_bytes(b"@misc{a,\r\n  title = {A\r\n B},\r\n  year = 1}\r\n")
    bib = read_bibliography([path])
    assert values(bib["a"]) == {"title": "A B", "year": "1"}
    assert lines(bib["a"]) == {"title": 2, "year": 4}


# -- caches and pickling -----------------------------------------------------------------------

def test_second_read_is_served_from_memory(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TWO_ENTRIES)
    first = read_bibliography([path])
    assert read_bibliography([path]) is first
    bibcache.bibliographies.clear()
    again = read_bibliography([path])
    assert again == first
    assert again is not first
    path.write_text(TWO_ENTRIES.replace("year = 1984", "year = 1985"))
    changed = read_bibliography([path])
    assert values(changed["Knuth:1984"])["year"] == "1985"


def test_disk_cache_round_trip_and_corruption(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TWO_ENTRIES + "@misc{u, journal = undefinedmacro}\n")
    cache = tmp_path / "cache"
    first = read_bibliography([path], cache_dir=cache)
    files = list(cache.glob("*.pickle"))
    assert len(files) == 1
    bibcache.clear_memory_cache()
    assert read_bibliography([path], cache_dir=cache) == first
    for f in files:
        f.write_bytes(b"not a pickle")
    bibcache.clear_memory_cache()
    assert read_bibliography([path], cache_dir=cache) == first
    assert first.diagnostics[0].code is Code.UNDEFINED_STRING


def test_disk_cache_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "refs.bib"
    path.write_text(TWO_ENTRIES)
    monkeypatch.setenv(bibcache.CACHE_DIR_ENV, str(tmp_path / "envcache"))
    read_bibliography([path])
    # the file's parse, and its entries one by one for the next edit (refbook.readers.chunks)
    names = sorted(p.name for p in (tmp_path / "envcache").glob("*.pickle"))
    assert len(names) == 2
    assert sum(n.startswith("chunks-") for n in names) == 1


def test_results_pickle_round_trip() -> None:
    bib = read_bibliography([shared_file("biblatex/biblatex-examples.bib")])
    assert len(bib) > 50
    clone = pickle.loads(pickle.dumps(bib))
    assert isinstance(clone, Bibliography)
    assert clone == bib
    assert clone["knuth:ct:a"] == bib["knuth:ct:a"]
    result = parse_bibtex(TWO_ENTRIES + "@misc{u, journal = undefinedmacro}\n", "t.bib")
    assert pickle.loads(pickle.dumps(result)) == result


# -- every shared test file ----------------------------------------------------------------------

def test_every_testdata_file_reads_with_located_diagnostics() -> None:
    files = sorted(TESTDATA.resolve().rglob("*.bib"))
    assert files, f"shared test data not present: {TESTDATA}"
    total = 0
    for path in files:
        bib = read_bibliography([path])
        total += len(bib)
        for d in bib.diagnostics:
            assert d.location is not None, (path, d)
            assert d.location.file == str(path)
            assert d.location.line >= 1, (path, d)
            assert d.message, (path, d)
            assert d.hint, (path, d)
        for e in bib:
            assert e.location.line >= 1
            assert all(f.location.line >= 1 for f in e.fields), (path, e.key)
    assert total > 1500
