"""The style's formatting memo grows by added files: a resolution that formats a few new things
(a citation edit) writes them beside the memo file instead of rewriting the whole memo, and a
new process reads the main file and the added ones (``refbook.memo``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbook import memo, sealed
from refbook.models import Bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.syntax import find_citations
from tests.core.test_registry import ITEMS
from tests.core.test_sealed_caches import Planted, new_process


def memo_files(folder: Path) -> tuple[Path, list[Path]]:
    """The style memo's main file and its added files, in their order."""
    [main] = [p for p in folder.glob("style-chicago-author-date-*.pickle") if "+" not in p.name]
    added = sorted(folder.glob(f"{main.stem}+*.pickle"),
                   key=lambda p: int(p.stem.rsplit("+", 1)[1]))
    return main, added


def style_memo() -> dict[object, object]:
    return get_style("chicago-author-date").style().memo


def entries_in(path: Path) -> list[object]:
    data = sealed.load(path)
    assert isinstance(data, sealed.Joined)
    return [k for k, _ in data.items]


def resolve(text: str, folder: Path) -> dict[tuple[str, int], str]:
    reg = Registry()
    reg.set_document("ch1", find_citations(text))
    res = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=str(folder))
    return {k: to_text(v) for k, v in res.citations.items()}


def test_new_formatting_goes_into_an_added_file_and_a_new_process_reads_both(
        tmp_path: Path) -> None:
    new_process()
    first = resolve("[@a; @b] and @c", tmp_path)
    main, added = memo_files(tmp_path)
    assert added == []
    written = main.read_bytes()
    stored = entries_in(main)
    # the same process cites something new: only that goes into an added file
    second = resolve("[@a; @b] and @c, and [@b, p. 7]", tmp_path)
    main, added = memo_files(tmp_path)
    assert main.read_bytes() == written  # not rewritten
    assert len(added) == 1
    new = entries_in(added[0])
    assert 0 < len(new) < len(stored)
    assert not set(map(repr, new)) & set(map(repr, stored))
    # a new process reads the main file and the added one: nothing is formatted again (the
    # memo holds what the files hold, and nothing new is written)
    new_process()
    assert resolve("[@a; @b] and @c, and [@b, p. 7]", tmp_path) == second
    assert len(style_memo()) == len(stored) + len(new)
    assert memo_files(tmp_path) == (main, added)
    # the control: without the added file, its entries are formatted again and written again
    new_process()
    added[0].unlink()
    assert resolve("[@a; @b] and @c, and [@b, p. 7]", tmp_path) == second
    assert memo_files(tmp_path) == (main, added)
    assert len(entries_in(added[0])) == len(new)
    assert first == {k: v for k, v in second.items() if k[1] < 2}


def test_after_max_added_files_the_memo_is_written_whole_again(tmp_path: Path) -> None:
    new_process()
    text = "[@a]"
    resolve(text, tmp_path)
    main, _ = memo_files(tmp_path)
    for page in range(1, memo.MAX_ADDED + 1):
        text += f" [@b, p. {page}]"
        resolve(text, tmp_path)
        assert len(memo_files(tmp_path)[1]) == page
    before = main.read_bytes()
    text += " [@c, p. 99]"
    final = resolve(text, tmp_path)
    main, added = memo_files(tmp_path)
    assert added == []
    assert main.read_bytes() != before
    # everything is in the main file now: a new process formats the same
    new_process()
    assert resolve(text, tmp_path) == final
    assert memo_files(tmp_path) == (main, [])


def test_a_refused_file_makes_the_next_save_rewrite_the_memo(tmp_path: Path) -> None:
    new_process()
    resolve("[@a]", tmp_path)
    resolve("[@a] [@b]", tmp_path)
    main, [added] = memo_files(tmp_path)
    marker = tmp_path / "marker"
    import pickle

    added.write_bytes(pickle.dumps(Planted(marker)))  # planted: refused, never unpickled
    new_process()
    again = resolve("[@a] [@b] [@c]", tmp_path)
    assert not marker.exists()
    assert sealed.take_rejected() == (added,)
    # not one more added file beside a refused one: the whole memo, the planted file gone
    assert memo_files(tmp_path) == (main, [])
    new_process()
    assert resolve("[@a] [@b] [@c]", tmp_path) == again


def test_the_file_leaves_out_the_basic_cites_unless_a_global_name_rule_reads_them(
        tmp_path: Path) -> None:
    """The basic cites' output trees (``basic-out``) are most of the memo and a later process
    reads them only for a new citation of an item; a style whose given-name rule is global
    reads every item's in its disambiguation passes, and its file keeps them."""
    from refbook.styles import DATA

    new_process()
    resolve("[@a; @b] and @c", tmp_path / "by-cite")
    main, _ = memo_files(tmp_path / "by-cite")
    kinds = {k[0] for k in entries_in(main)}  # type: ignore[index]
    assert "basic-out" in {k[0] for k in style_memo()}  # type: ignore[index]
    assert "basic-out" not in kinds
    assert {"basic", "cite", "entry", "sort"} <= kinds
    text = (DATA / "chicago-author-date.csl").read_text(encoding="utf-8")
    assert 'disambiguate-add-givenname="true"' in text
    csl = tmp_path / "all-names.csl"
    csl.write_text(text.replace('disambiguate-add-givenname="true"',
                                'disambiguate-add-givenname="true" '
                                'givenname-disambiguation-rule="all-names"', 1), encoding="utf-8")
    reg = Registry()
    reg.set_document("ch1", find_citations("[@a; @b] and @c"))
    reg.resolve(Bibliography(), ITEMS, str(csl), memo_dir=str(tmp_path / "global"))
    [file] = (tmp_path / "global").glob("style-*.pickle")
    assert "basic-out" in {k[0] for k in entries_in(file)}  # type: ignore[index]


def test_an_edited_entry_adds_its_conversion_and_the_old_one_goes_when_written_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry → CSL item conversions (``refbook.items``) grow the same way: a one-entry
    edit adds a file with that entry's conversion; the old one is dropped when the file is
    next written whole."""
    from refbook.items import _memo_file, items_for, save_items
    from refbook.readers import read_bibliography
    from tests.conftest import counted_conversions

    bib = tmp_path / "refs.bib"
    cache = tmp_path / "cache"
    cache.mkdir()

    def write(title: str) -> None:
        bib.write_text(
            "@book{a, author = {Doe, Ann}, title = {First}, year = 2001}\n"
            f"@book{{b, author = {{Roe, Bob}}, title = {{{title}}}, year = 2002}}\n"
            "@book{c, author = {Poe, Cy}, title = {Third}, year = 2003}\n", encoding="utf-8")

    def convert() -> list[str]:
        new_process()
        converted = counted_conversions(monkeypatch)
        items = items_for(read_bibliography([str(bib)]), memo_dir=str(cache))
        assert [items[k].id for k in items] == ["a", "b", "c"]
        save_items(items, str(cache))
        monkeypatch.undo()
        return converted

    def stored(path: Path) -> list[str]:
        return sorted(f"{e.key}:{e.get('title')}" for e, _ in entries_in(path))  # type: ignore[attr-defined]

    write("Second")
    assert convert() == ["a", "b", "c"]
    main = _memo_file(str(cache))
    written = main.read_bytes()
    write("Second, edited")
    assert convert() == ["b"]
    assert main.read_bytes() == written
    [added] = cache.glob(f"{main.stem}+*.pickle")
    assert stored(added) == ["b:Second, edited"]
    assert convert() == []  # a new process finds the edited entry's conversion too
    # written whole (here after one added file): only the current entries' conversions
    monkeypatch.setattr(memo, "MAX_ADDED", 1)
    write("Second, again")
    assert convert() == ["b"]
    assert not added.exists()
    assert stored(main) == ["a:First", "b:Second, again", "c:Third"]


def test_a_memo_written_whole_again_drops_the_entries_of_items_no_longer_formatted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit of an entry gives its item a new content: the old one's sort keys, cites and
    entry are never asked for again. Written whole again, the memo file keeps only what this
    process's processors were made for (the control: the same edits in one process, whose
    items include every version, keep them all)."""
    from tests.core.test_registry import item

    def resolve_with(title: str) -> list[tuple[str, str]]:
        items = {**ITEMS, "b": item("b", "Doe", 2024, title)}
        reg = Registry()
        reg.set_document("ch1", find_citations("[@a; @b] and @c"))
        res = reg.resolve(Bibliography(), items, "chicago-author-date", memo_dir=str(tmp_path))
        return [(k, to_text(v)) for k, v in res.entries]

    def entries_of(path: Path) -> list[str]:
        return sorted(to_text(v) for k, v in sealed.load(path).items  # type: ignore[union-attr]
                      if k[0] == "entry")

    monkeypatch.setattr(memo, "MAX_ADDED", 2)
    for n in range(4):  # each edit in a new process
        new_process()
        assert resolve_with(f"Beta {n}")[1][1].startswith("Doe, A. 2024b. Beta")
    main, added = memo_files(tmp_path)
    assert added == []  # two added files, then written whole at the fourth save
    kept = entries_of(main)
    assert len(kept) == 3
    assert any("Beta 3" in e for e in kept)
    assert not any(f"Beta {n}" in e for e in kept for n in range(3))
    # the control: one process that formatted every version keeps every version
    for path in (main, *added):
        path.unlink()
    new_process()
    for n in range(4):
        resolve_with(f"Beta {n}")
    main, added = memo_files(tmp_path)
    assert added == []  # written whole at the fourth save here too
    assert len(entries_of(main)) == 6  # a, c and four versions of b
