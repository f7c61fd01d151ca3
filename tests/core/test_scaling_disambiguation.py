"""Year suffixes and added names over big ambiguous groups cost O(n log n), not O(n²).

Hundreds of works by one author in one year (or hundreds of crossref children of one parent,
which inherit its author and year) form one ambiguous group; ``refbook render`` must not sort
that group again for each member.
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING

import pytest

from refbook.cli import main
from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.models import Bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.styles.csl import processor
from refbook.syntax import find_citations
from tests.growth import LIMIT, doubling_ratio

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _render(path: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["render", str(path)]) == 0
    return out.getvalue()


def test_same_author_same_year_suffixes_are_in_sort_order(tmp_path: Path) -> None:
    bib = tmp_path / "same.bib"
    bib.write_text("".join(
        f"@article{{k{i}, author={{Smith, John}}, title={{Title {t}}}, journal={{J}}, year={{2000}}}}\n"
        for i, t in enumerate("CAB")))
    out = _render(bib)
    assert [line.split(".")[1].strip() for line in out.split("\n\n")] == ["2000a", "2000b", "2000c"]
    # sentence case: "Title A" is printed as "Title a"
    assert out.index("Title a") < out.index("Title b") < out.index("Title c")


def test_year_suffixes_scale_with_the_group(tmp_path: Path) -> None:
    def prepare(n: int, attempt: int) -> Path:
        # each attempt's titles differ, so the style's in-process memo never answers a repeat
        path = tmp_path / f"same-{n}-{attempt}.bib"
        path.write_text("".join(
            f"@article{{k{i}, author={{Smith, John}}, title={{Title {attempt} {i}}},"
            f" journal={{J}}, year={{2000}}}}\n" for i in range(n)))
        return path

    ratio = doubling_ratio(prepare, _render, 100)
    assert ratio <= LIMIT, ratio


def test_crossref_children_of_one_parent_scale(tmp_path: Path) -> None:
    def prepare(n: int, attempt: int) -> Path:
        path = tmp_path / f"xref-{n}-{attempt}.bib"
        path.write_text(
            f"@book{{parent, author={{Smith, John}}, title={{Parent {attempt}}}, year={{2000}},"
            f" publisher={{P}}}}\n" + "".join(
                f"@incollection{{c{i}, title={{Chapter {attempt} {i}}}, crossref={{parent}}}}\n"
                for i in range(n)))
        return path

    ratio = doubling_ratio(prepare, _render, 100)
    assert ratio <= LIMIT, ratio


def _items(n: int, attempt: int, authors: Callable[[int, int], tuple[Name, ...]]) -> list[Item]:
    return [Item(f"k{i}", "book", text=(("title", (Text(f"T{attempt} {i}"),)),),
                 names=(("author", authors(i, attempt)),),
                 dates=(("issued", Date(start=DatePart(2000))),)) for i in range(n)]


def _process(items: list[Item]) -> None:
    get_style("chicago-author-date").processor(items)


def _count(monkeypatch: pytest.MonkeyPatch, target: object, name: str,
           make: Callable[[int], list[Item]], n: int) -> tuple[int, int]:
    """How often ``target.name`` is called while processing ``make(n)`` and ``make(2n)``: a
    deterministic measure of the work (a plain function, so it also binds as a method)."""
    original = getattr(target, name)
    calls = [0]

    def counted(*args: object) -> object:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(target, name, counted)
    out = []
    for size in (n, 2 * n):
        calls[0] = 0
        _process(make(size))
        out.append(calls[0])
    return out[0], out[1]


def test_added_names_scale_with_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # one shared first author, told apart only by the second: "add names" over a big group;
    # the work is counted in comparisons of names
    small, big = _count(monkeypatch, Name, "__eq__", lambda n: _items(n, n, lambda i, a: (
        Name("Smith", "John"), Name(f"Other{a}x{i}", "Ann"), Name("Third", "Tom"))), 100)
    assert 0 < big <= 2.2 * small


def test_added_given_names_scale_with_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # one family, given names with distinct initials: "add given names" over a big group;
    # the work is counted in initializations and in comparisons of names
    def make(n: int) -> list[Item]:
        return _items(n, n, lambda i, a: (Name("Smith", f"{chr(0x100 + i)}nn{a}"),))

    small, big = _count(monkeypatch, processor, "initialize", make, 100)
    assert 0 < big <= 2.2 * small
    small, big = _count(monkeypatch, Name, "__eq__", make, 100)
    assert big <= 2.2 * small


def test_added_names_still_tell_works_apart() -> None:
    items = _items(3, 0, lambda i, _a: (Name("Smith", "John"), Name(f"Other{i}", "Ann"),
                                         Name("Third", "Tom"), Name("Fourth", "Fay")))
    items += _items(2, 1, lambda i, _a: (Name("Doe", f"Ann{i}"),))[:2]
    items[3:] = [Item(f"g{i}", it.type, it.text, it.names, it.dates) for i, it in enumerate(items[3:])]
    registry = Registry()
    registry.set_document("d", find_citations("[@k0; @k1; @g0; @g1]"))
    res = registry.resolve(Bibliography(), {it.id: it for it in items}, "chicago-author-date")
    assert to_text(res.citations[("d", 0)]) == (
        "(Smith, Other0, et al. 2000; Smith, Other1, et al. 2000; Ann0 Doe 2000; Ann1 Doe 2000)")
