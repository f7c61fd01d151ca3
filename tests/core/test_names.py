"""Name lists: BibTeX's splitting (``parse_names``) and pandoc's (``parse_names_pandoc``)."""

from __future__ import annotations

import json
import subprocess

import pytest

from refbook.models import Person
from refbook.names import parse_names, parse_names_pandoc


def one(value: str) -> Person:
    persons, problems = parse_names(value)
    assert len(persons) == 1, persons
    assert problems == ()
    return persons[0]


@pytest.mark.parametrize(
    ("value", "person"),
    [
        ("Donald E. Knuth", Person(first="Donald E.", last="Knuth")),
        ("Knuth, Donald E.", Person(first="Donald E.", last="Knuth")),
        ("Ludwig van Beethoven", Person(first="Ludwig", von="van", last="Beethoven")),
        ("de la Fontaine, Jean", Person(first="Jean", von="de la", last="Fontaine")),
        ("Jean de la Fontaine", Person(first="Jean", von="de la", last="Fontaine")),
        (
            "Charles Louis Xavier Joseph de la Vall{\\'e}e Poussin",
            Person(first="Charles Louis Xavier Joseph", von="de la", last="Vallée Poussin"),
        ),
        # BibTeX: in "von Last, First" the von part runs to the last lower-case word
        ("Drummond de Andrade, Carlos", Person(first="Carlos", von="Drummond de", last="Andrade")),
        ("Smith, Jr., John", Person(first="John", last="Smith", jr="Jr.")),
        ("Armato III, Samuel G.", Person(first="Samuel G.", last="Armato III")),
        ("Jean-Paul Sartre", Person(first="Jean-Paul", last="Sartre")),
        # a special character counts by its letter; {\v C} is upper case, \v{c}... lower
        ("{\\v C}apek, Karel", Person(first="Karel", last="Čapek")),
        ("{\\'E}mile Zola", Person(first="Émile", last="Zola")),
        ("{\\relax Ch}ristophe Dupont", Person(first="Christophe", last="Dupont")),
        ("{\\relax d}e Gaulle, Charles", Person(first="Charles", von="de", last="Gaulle")),
        ("Brinch~Hansen, Per", Person(first="Per", last="Brinch Hansen")),
        ("von Last", Person(von="von", last="Last")),
        ("Aristotle", Person(last="Aristotle")),
        ("{Advanced Micro Devices, Inc.}", Person(literal="Advanced Micro Devices, Inc.")),
        ("{{World Health Organization}}", Person(literal="World Health Organization")),
    ],
)
def test_bibtex_split(value: str, person: Person) -> None:
    assert one(value) == person


def test_and_others_and_case_insensitive_and() -> None:
    persons, problems = parse_names("Smith, John AND Doe, Jane and {Barnes and Noble} and others")
    assert persons == (
        Person(first="John", last="Smith"),
        Person(first="Jane", last="Doe"),
        Person(literal="Barnes and Noble"),
        Person(others=True),
    )
    assert problems == ()


def test_and_inside_a_word_or_braces_does_not_split() -> None:
    persons, _ = parse_names("Alexander Sandberg and {Rock and Roll} Hall")
    assert [p.last for p in persons] == ["Sandberg", "Hall"]
    assert persons[1].first == "Rock and Roll"


def test_problems_are_reported() -> None:
    persons, problems = parse_names("a, b, c, d")
    assert persons == (Person(first="c d", last="a", jr="b"),)
    assert problems == ("name with 3 commas: 'a, b, c, d'",)
    persons, problems = parse_names("Smith, John and and Doe, Jane")
    assert [p.last for p in persons] == ["Smith", "Doe"]
    assert problems == ("empty name in the list",)
    assert parse_names("") == ((), ())


@pytest.mark.parametrize(
    ("value", "person"),
    [
        # pandoc reads the decoded words: "{\'E}mile" starts with a group, then "mile"
        ("{\\'E}mile Zola", Person(von="Émile", last="Zola")),
        # pandoc follows biblatex here: no von before a capitalised word
        ("Drummond de Andrade, Carlos", Person(first="Carlos", last="Drummond de Andrade")),
        ("J.G. Smith", Person(first="J. G.", last="Smith")),
        ("a, b, c, d", Person(first="c", last="a", jr="b")),
        (
            "given=Jean, family=Fontaine, prefix=de la",
            Person(first="Jean", von="de la", last="Fontaine"),
        ),
        ('"Teknium"', Person(last='"Teknium"')),
    ],
)
def test_pandoc_split(value: str, person: Person) -> None:
    persons, _ = parse_names_pandoc(value)
    assert persons == (person,)


def test_and_in_capitals_separates_names() -> None:
    # Issue 12: pandoc reads "Foo AND Bar" as one garbled name ("Foo AND" Bar); BibTeX splits
    # at 'and' in any case, and so does refbook now (the names family reports it: and-case).
    persons, _ = parse_names_pandoc("Foo AND Bar and others")
    assert persons == (Person(last="Foo"), Person(last="Bar"), Person(others=True))
    assert parse_names("Foo AND Bar and others")[0] == persons


def test_a_literal_et_al_is_others() -> None:
    bad, _ = parse_names_pandoc("Garcia, B. and Burke, L. and et al.")
    good, _ = parse_names_pandoc("Garcia, B. and Burke, L. and others")
    assert bad == good
    assert bad[-1] == Person(others=True)
    assert parse_names("Garcia, B. and et~al.")[0][-1] == Person(others=True)


def test_pandoc_split_matches_pandoc(pandoc: str) -> None:
    """Every author/editor list of the shared files, against pandoc's CSL-JSON names."""

    from refbook.bibtex_csl import csl_to_json, entry_to_item
    from refbook.readers import resolve_crossrefs
    from refbook.readers.bibtex import parse_bibtex
    from tests.conftest import SHARED
    for path in (
        SHARED / "seed" / "references.raw.bib",
        SHARED / "testdata" / "biblatex" / "biblatex-examples.bib",
        SHARED / "testdata" / "biber" / "names.bib",
    ):
        out = subprocess.run(
            [pandoc, "-f", "biblatex", "-t", "csljson", str(path)],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
        theirs = {i["id"]: i for i in json.loads(out.stdout)}
        entries, _ = resolve_crossrefs(
            parse_bibtex(path.read_text(encoding="utf-8"), str(path)).entries
        )
        differ = []
        for e in entries:
            ours = csl_to_json(entry_to_item(e))
            for var in ("author", "editor"):
                if e.key in theirs and ours.get(var) != theirs[e.key].get(var):
                    differ.append((e.key, var, ours.get(var), theirs[e.key].get(var)))
        for d in differ:
            print(f"  {path.name} {d}")
        assert not differ


def _split_reference(value: str) -> list[str]:
    """BibTeX's split at 'and', character by character (what refbook.names must agree with)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(value):
        c = value[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif (depth == 0 and c.isspace() and value[i + 1:i + 4].lower() == "and"
              and i + 4 < len(value) and value[i + 4].isspace()):
            parts.append(value[start:i])
            i += 4
            start = i
            continue
        i += 1
    parts.append(value[start:])
    return parts


def test_split_at_and_agrees_with_a_character_scan() -> None:
    import random

    from refbook.names import _split_and
    from refbook.readers import read_bibliography
    from tests.conftest import SEED, TESTDATA

    values = {f.value for path in [*TESTDATA.rglob("*.bib"), *SEED.glob("*.bib")]
              for e in read_bibliography([str(path)]) for f in e.fields
              if f.name in ("author", "editor")}
    rng = random.Random(7)
    pieces = [" and ", " AND ", "and", " ", "\t", "\n", "{", "}", "A", "b,", "{\\\"u}", "And "]
    values |= {"".join(rng.choice(pieces) for _ in range(rng.randint(0, 10))) for _ in range(5000)}
    assert len(values) > 3000
    assert [v for v in values if _split_and(v) != _split_reference(v)] == []


def test_name_tokens_shortcut_agrees_with_the_scan() -> None:
    import random

    from refbook.names import _split_and, _tokens, _tokens_scanned
    from refbook.readers import read_bibliography
    from tests.conftest import SEED, TESTDATA

    names = {part for path in [*TESTDATA.rglob("*.bib"), *SEED.glob("*.bib")]
             for e in read_bibliography([str(path)]) for f in e.fields
             if f.name in ("author", "editor") for part in _split_and(f.value)}
    rng = random.Random(11)
    pieces = ["Smith", " ", ",", "J.", "\t", "van", "de la", "\u00e9", "  ", "Jr", "\n"]
    names |= {"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(3000)}
    assert len(names) > 2000
    assert [n for n in names if _tokens(n) != _tokens_scanned(n)] == []
