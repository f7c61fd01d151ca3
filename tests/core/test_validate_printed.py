"""The rules about what the style prints ask only about the entries the book prints.

``validate(..., printed=keys)`` (the hosts pass their book's cited and listed keys, ``refbook
check --docs`` the documents'): an entry outside ``keys`` is checked by every rule, but the four
that report only a change of the style's output (``title-case``, ``pages-dash``,
``month-braced``, ``unknown-field`` for a reference manager's name of a standard field) find
nothing to change, and no render of it is made. On the real files of ``shared/testdata`` and the
seed, the two runs differ in those codes only, and a printed entry gets exactly what it got when
every entry was printed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import refbook.validate as validation
from refbook.cli import main
from refbook.readers import read_bibliography
from refbook.validate import check_bibliography, output, recheck_printed, validate
from tests.conftest import SEED, TESTDATA
from tests.core.test_validate_output_cost import _renders_for

if TYPE_CHECKING:
    from refbook.diagnostics import Diagnostic

#: the codes whose reports depend on what the style prints (title-lost-case: its hint shows
#: the title-case fix too when there is one)
OUTPUT_CODES = {"title-case", "title-lost-case", "pages-dash", "month-braced", "unknown-field"}
FILES = [SEED / "references.raw.bib",
         *sorted(p for p in TESTDATA.rglob("*") if p.suffix in (".bib", ".bibtex"))]


def _forget() -> None:
    validation._MEMO.clear()
    output._as_written.cache_clear()
    output._written_item.cache_clear()
    output._output_changes.cache_clear()


def _by_key(diags: list[Diagnostic]) -> dict[str, set[Diagnostic]]:
    out: dict[str, set[Diagnostic]] = {}
    for d in diags:
        out.setdefault(d.key, set()).add(d)
    return out


def test_unprinted_entries_differ_only_in_the_output_rules_and_are_not_rendered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(FILES) > 100
    renders = _renders_for(monkeypatch)  # whole renders and renders as written
    gained: Counter[str] = Counter()
    printed_renders = unprinted_renders = 0
    for path in FILES:
        bib = read_bibliography([str(path)])
        _forget()
        n = renders[0]
        every = set(validate(bib))
        printed_renders += renders[0] - n
        _forget()
        n = renders[0]
        none = set(validate(bib, printed=frozenset()))
        unprinted_renders += renders[0] - n
        gained.update(d.code.slug for d in every - none)
        assert {d.code.slug for d in every ^ none} <= OUTPUT_CODES, path
        # an unprinted entry's title-lost-case hint no longer braces the words title-case would
        assert {d.code.slug for d in none - every} <= {"title-lost-case"}, path
    assert unprinted_renders == 0
    assert printed_renders > 300
    # the real files hold each kind (Mendeley's fields, acronyms a style lowercases)
    assert gained["title-case"] >= 8
    assert gained["unknown-field"] >= 80


@pytest.mark.parametrize("path", [
    SEED / "references.raw.bib",
    TESTDATA / "zotero-better-bibtex" / "import" / "web_page and other mendeley idiocy.bib"])
def test_a_printed_entry_gets_what_it_got_when_every_entry_was_printed(path: Path) -> None:
    bib = read_bibliography([str(path)])
    keys = [e.key for e in bib]
    some = frozenset(keys[::3])
    _forget()
    every = _by_key(check_bibliography(bib))
    none = _by_key(check_bibliography(bib, printed=frozenset()))
    mixed = _by_key(check_bibliography(bib, printed=some))
    for k in set(keys):
        assert mixed.get(k, set()) == (every if k in some else none).get(k, set()), k
    assert any(every.get(k) != none.get(k) for k in some)  # the sample does hold such entries


def test_an_entry_whose_printing_changes_is_checked_again_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    bib = read_bibliography([str(SEED / "references.raw.bib")])
    keys = [e.key for e in bib]
    checked: list[int] = []
    real = validation.map_entries

    def counting(fn: Any, entries: Any, config: Any, **kw: Any) -> Any:
        checked.append(len(entries))
        return real(fn, entries, config, **kw)

    monkeypatch.setattr(validation, "map_entries", counting)
    _forget()
    cited = frozenset(keys[:10])
    first = validate(bib, printed=cited)
    assert checked == [len(keys)]  # printed entries and the others, in one pass
    checked.clear()
    validate(bib, printed=cited | {"carneiro2023uncovering"})
    assert checked == [1]  # the newly printed entry alone
    checked.clear()
    assert validate(bib, printed=cited) == first
    assert checked == [0]  # both forms are in the memo


BIB = """@article{cited2020,
  author = {Doe, Jane},
  title = {A Study of I/O},
  journal = {J},
  year = {2020},
  pages = {1\u20102},
}

@article{uncited2021,
  author = {Roe, Rick},
  title = {Another Study of I/O},
  journal = {J},
  year = {2021},
  pages = {3\u20104},
}
"""


def test_check_with_docs_asks_about_the_printed_entries_as_the_hosts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ch.md").write_text("As shown [@cited2020].\n", encoding="utf-8")

    def reported(*args: str) -> set[tuple[str, str]]:
        import json

        main(["check", str(bib), "--format", "json", *args])
        return {(d["key"], d["code"]) for d in json.loads(capsys.readouterr().out)}

    alone = reported()
    with_docs = reported("--docs", str(tmp_path / "docs"))
    for code in ("refbook.title-case", "refbook.pages-dash"):
        assert {("cited2020", code), ("uncited2021", code)} <= alone
        assert ("cited2020", code) in with_docs
        assert ("uncited2021", code) not in with_docs
    assert ("uncited2021", "refbook.unused-entry") in with_docs
    # a list of every entry prints them all
    (tmp_path / "docs" / "refs.md").write_text("<!-- refbook:bibliography all -->\n",
                                               encoding="utf-8")
    assert reported("--docs", str(tmp_path / "docs")) >= {
        ("uncited2021", "refbook.title-case"), ("uncited2021", "refbook.pages-dash")}


@pytest.mark.parametrize("path", [
    SEED / "references.raw.bib",
    TESTDATA / "zotero-better-bibtex" / "import" / "web_page and other mendeley idiocy.bib"])
def test_a_recheck_of_the_entries_whose_printing_changed_is_the_whole_check(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``recheck_printed`` (a citation edit: one entry more printed, one less) gives what the
    whole check gives, having run the rules on those entries only."""
    bib = read_bibliography([str(path)])
    keys = sorted({e.key for e in bib})
    every = _by_key(check_bibliography(bib))
    none = _by_key(check_bibliography(bib, printed=frozenset()))
    differ = [k for k in keys if every.get(k) != none.get(k)]
    same = [k for k in keys if every.get(k) == none.get(k)]
    assert len(differ) >= 3
    was = frozenset(differ[1:] + same[::2])
    checked: list[str] = []
    for name in ("_facts", "_unprinted_facts"):
        real = getattr(validation, name)

        def counted(entry: Any, config: Any, _real: Any = real) -> Any:
            checked.append(entry.key)
            return _real(entry, config)

        monkeypatch.setattr(validation, name, counted)
    for now in (was - {differ[1]} | {differ[0]},       # a citation moved to another entry
                was | {same[1]}, was - {same[0]},       # entries whose printing shows nothing
                was):
        _forget()
        previous = check_bibliography(bib, printed=was)
        whole = check_bibliography(bib, printed=now)
        _forget()
        checked.clear()
        assert recheck_printed(previous, bib, None, was, now) == whole
        assert sorted(set(checked)) == sorted(was ^ now)
    # what it cannot do, it leaves to check_bibliography
    previous = check_bibliography(bib, printed=was)
    assert recheck_printed(previous, bib, None, was, None) is None
    assert recheck_printed(previous, bib, None, frozenset(), frozenset(keys)) is None  # all
    assert recheck_printed([], bib, None, was, was - {differ[1]}) is None  # not was's result
