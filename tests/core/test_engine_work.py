"""The style engine does no work twice for the same content: entries that differ only in their
key (duplicates under two keys, common in merged bibliographies) share sort keys and memoized
renders, since no CSL variable shows the key. Counted, never timed."""

from __future__ import annotations

import pytest

from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.styles.csl.engine import Evaluator


def _item(key: str, family: str, year: int, title: str) -> Item:
    return Item(key, "book", text=(("title", (Text(title),)),),
                names=(("author", (Name(family=family, given="Ann"),)),),
                dates=(("issued", Date(start=DatePart(year))),))


def _counting(monkeypatch: pytest.MonkeyPatch, method: str) -> list[str]:
    calls: list[str] = []
    original = getattr(Evaluator, method)

    def counting(self: Evaluator, area, item, *args, **kw):  # type: ignore[no-untyped-def]
        calls.append(item.id)
        return original(self, area, item, *args, **kw)

    def counting_key(self: Evaluator, area, key, item, disamb):  # type: ignore[no-untyped-def]
        calls.append(item.id)
        return original(self, area, key, item, disamb)

    monkeypatch.setattr(Evaluator, method, counting_key if method == "sort_key" else counting)
    return calls


def test_entries_differing_only_in_key_sort_as_equal_without_sort_keys(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "sort_key")
    # unique names, so that no memo of another test answers for them
    twin_b = _item("twin-b", "Twinsortauthor", 2001, "Same")
    twin_a = _item("twin-a", "Twinsortauthor", 2001, "Same")
    p = get_style("chicago-author-date").processor([twin_b, twin_a])
    entries = [(k, to_text(x)) for k, x in p.bibliography()]
    # the same order and output as before: a stable sort, year suffixes by sort key, then id
    assert [k for k, _ in entries] == ["twin-b", "twin-a"]
    assert entries[0][1].startswith("Twinsortauthor, Ann. 2001b.")
    assert entries[1][1].startswith("Twinsortauthor, Ann. 2001a.")
    # the style has 11 sort keys: equal content decides the comparison, none is computed;
    # the year suffixes' order (by sort key, then id) needs none either
    assert calls == []


def test_entries_differing_only_in_key_share_the_basic_render(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, "layout")
    twins = [_item(f"twin{i}", "Twinbasicauthor", 1999, "Alike") for i in range(3)]
    other = _item("other", "Twinbasicother", 1999, "Else")
    p = get_style("chicago-author-date").processor([*twins, other])
    # one citation render per distinct content for disambiguation (before: one per key), then
    # again for the three twins once their year suffixes set them apart
    assert sorted(calls) == ["other", "twin0", "twin0", "twin1", "twin2"]
    texts = [to_text(x) for _, x in p.bibliography()]
    assert [t.split(".")[1].strip() for t in texts[:3]] == ["1999a", "1999b", "1999c"]
