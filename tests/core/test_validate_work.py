"""The per-entry rules do not redo, entry after entry, work whose answer a shared bibliography
repeats: the nearest known name of an unknown field (``difflib`` against every known field),
whether a name is an organisation's (per spelling), and the search for a link in a title that
holds none. Counted, never timed; the diagnostics are the rules' own, checked elsewhere
(``tests/core/test_validate_rules.py``, ``tests/core/test_validation_corpus.py``)."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

import refbook.validate as validation
from refbook.config import Config
from refbook.diagnostics import Code, Diagnostic
from refbook.readers import read_bibliography
from refbook.validate import fields, identifiers, names, validate

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from refbook.models import Bibliography


def _bib(n: int) -> str:
    return "".join(
        f"@article{{w{i},\n  author = {{Smith, Ann and {{World Health Organization}} and "
        f"Jones, Bo and Institute for Advanced Study}},\n  title = {{Work number {i} on "
        f"plain words}},\n  journal = {{Journal of Things}},\n  year = {{2020}},\n"
        f"  volme = {{{i}}},\n}}\n" for i in range(n))


def _read(tmp_path: Path, text: str) -> Bibliography:
    path = tmp_path / "work.bib"
    path.write_text(text, encoding="utf-8")
    bib = read_bibliography([str(path)])
    assert not bib.diagnostics
    return bib


def _checked(tmp_path: Path, n: int) -> list[Diagnostic]:
    validation._MEMO.clear()
    fields._closest.cache_clear()
    names._corporate_of.cache_clear()
    return list(validate(_read(tmp_path, _bib(n)), Config()))


def test_an_unknown_field_is_matched_against_the_known_ones_once(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []
    real = difflib.get_close_matches

    def counting(word: str, possibilities: list[str], n: int = 3,
                 cutoff: float = 0.6) -> list[str]:
        calls.append(word)
        return real(word, possibilities, n, cutoff)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    found = _checked(tmp_path, 40)
    unknown = [d for d in found if d.code == Code.UNKNOWN_FIELD]
    assert len(unknown) == 40
    assert all("did you mean volume?" in (d.hint or "") for d in unknown)
    assert calls == ["volme"]  # not 40


def test_a_name_is_judged_an_organisation_once_per_spelling(tmp_path: Path) -> None:
    found = _checked(tmp_path, 40)
    corporate = [d for d in found if d.code == Code.CORPORATE_AUTHOR]
    assert len(corporate) == 40  # "Institute for Advanced Study", split as a person
    info = names._corporate_of.cache_info()
    assert info.misses == 3  # Smith, Jones, the institute (the braced one is a literal)
    assert info.hits == 3 * 39


class _CountingPattern:
    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.searched: list[str] = []

    def search(self, text: str) -> re.Match[str] | None:
        self.searched.append(text)
        return self.pattern.search(text)


def test_titles_without_a_link_are_not_searched_for_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    counting = _CountingPattern(identifiers.URL_IN_TEXT)
    monkeypatch.setattr(identifiers, "URL_IN_TEXT", counting)
    validation._MEMO.clear()
    text = _bib(5) + ("@misc{linked,\n  title = {Code at https://example.org/x},\n"
                      "  howpublished = {\\url{https://example.org/y}},\n  year = {2020},\n}\n")
    found = list(validate(_read(tmp_path, text), Config()))
    in_text = [d for d in found if d.code == Code.URL_IN_FIELD and d.key == "linked"]
    assert len(in_text) == 2  # both fields still found
    assert sorted(counting.searched) == ["Code at https://example.org/x",
                                         "\\url{https://example.org/y}"]
