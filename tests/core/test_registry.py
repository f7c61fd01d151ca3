"""The book-wide registry: documents come and go, formatting is always book-wide."""

from __future__ import annotations

from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.models import Bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.syntax import find_citations


def item(key: str, family: str, year: int, title: str) -> Item:
    return Item(key, "book", text=(("title", (Text(title),)),),
                names=(("author", (Name(family=family, given="A."),)),),
                dates=(("issued", Date(start=DatePart(year))),))


ITEMS = {
    "a": item("a", "Doe", 2024, "Alpha"),
    "b": item("b", "Doe", 2024, "Beta"),
    "c": item("c", "Roe", 2020, "Gamma"),
}


def texts(reg: Registry, order: list[str] | None = None) -> dict[tuple[str, int], str]:
    res = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", order=order)
    return {k: to_text(v) for k, v in res.citations.items()}


def test_year_suffixes_are_book_wide_and_follow_documents() -> None:
    reg = Registry()
    reg.set_document("ch1", find_citations("See [@a]."))
    assert texts(reg) == {("ch1", 0): "(Doe 2024)"}
    reg.set_document("ch2", find_citations("And @b."))
    assert texts(reg) == {("ch1", 0): "(Doe 2024a)", ("ch2", 0): "Doe (2024b)"}
    reg.drop_document("ch2")
    assert texts(reg) == {("ch1", 0): "(Doe 2024)"}


def test_merge_from_parallel_workers_equals_serial() -> None:
    serial = Registry()
    serial.set_document("ch1", find_citations("[@a]"))
    serial.set_document("ch2", find_citations("[@b; @c]"))
    w1, w2, main = Registry(), Registry(), Registry()
    w1.set_document("ch1", find_citations("[@a]"))
    w2.set_document("ch2", find_citations("[@b; @c]"))
    main.merge(w2)
    main.merge(w1)
    order = ["ch1", "ch2"]
    assert texts(main, order) == texts(serial, order)


def test_backlinks_and_first_citation_order_and_unknown_keys() -> None:
    reg = Registry()
    reg.set_document("intro", find_citations("[@c]\n\nthen [@a; @zzz]"))
    reg.set_document("ch1", find_citations("@c again"))
    res = reg.resolve(Bibliography(), ITEMS, "numeric", order=["intro", "ch1"])
    assert reg.cited_keys(["intro", "ch1"]) == ["c", "a", "zzz"]
    assert [(s.document, s.line) for s in res.backlinks["c"]] == [("intro", 1), ("ch1", 1)]
    assert res.numbers == {"c": 1, "a": 2}
    assert [d.code.slug for d in res.diagnostics] == ["unknown-key"]
    assert str(res.diagnostics[0].location) == "intro:3"
    assert [k for k, _ in res.entries] == ["c", "a"]
    assert to_text(res.citations[("intro", 1)]) == "[2, zzz?]"


def test_nocite_star_lists_everything() -> None:
    reg = Registry()
    res = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", nocite=["*"])
    assert res.entries == ()  # the bibliography object itself is empty here


def test_formatting_memo_survives_the_process(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from refbook import memo
    from refbook.styles import get_style

    def style_memo() -> dict[object, object]:
        return get_style("chicago-author-date").style().memo

    reg = Registry()
    reg.set_document("ch1", find_citations("[@a; @b] and @c"))
    first = texts(reg)
    res = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=str(tmp_path))
    [memo_file] = tmp_path.glob("style-chicago-author-date-*.pickle")
    assert memo_file.stat().st_size > 0
    # a new process: empty memo, nothing loaded yet
    style_memo().clear()
    memo.forget()
    again = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=str(tmp_path))
    assert {k: to_text(v) for k, v in again.citations.items()} == first
    assert again.entries == res.entries
    assert len(style_memo()) > 0
    # a corrupt cache file is ignored, never raised
    memo_file.write_bytes(b"not a pickle")
    memo._LOADED.clear()
    style_memo().clear()
    assert reg.resolve(Bibliography(), ITEMS, "chicago-author-date",
                       memo_dir=str(tmp_path)).entries == res.entries


def test_fold_case_resolves_a_key_cited_with_other_letter_case_with_a_warning() -> None:
    """mkdocs-bibtex's pybtex looks keys up case-insensitively; with ``fold_case`` the registry
    does too (the MkDocs host), each such key a ``key-case`` warning at its citation naming the
    entry's spelling. Without it (Sphinx, Pandoc) the key is unknown: ``cite-case``."""
    from refbook.diagnostics import Code, Severity

    reg = Registry()
    reg.set_document("ch1", find_citations("See [@A; @c].\n\nAnd [@a] and [@nosuch]."))
    folded = reg.resolve(Bibliography(), ITEMS, "chicago-author-date", fold_case=True)
    assert {k: to_text(v) for k, v in folded.citations.items()} == {
        ("ch1", 0): "(Doe 2024; Roe 2020)", ("ch1", 1): "(Doe 2024)", ("ch1", 2): "(nosuch?)"}
    assert [k for k, _ in folded.entries] == ["a", "c"]
    assert [s.index for s in folded.backlinks["a"]] == [0, 1]
    assert folded.aliases == {"A": "a"}
    assert [(d.code, d.location.line if d.location else 0, d.key, d.effective_severity)
            for d in folded.diagnostics] == [
        (Code.KEY_CASE, 1, "A", Severity.WARNING), (Code.UNKNOWN_KEY, 3, "nosuch", Severity.ERROR)]
    assert "'a'" in folded.diagnostics[0].message
    exact = reg.resolve(Bibliography(), ITEMS, "chicago-author-date")
    assert to_text(exact.citations[("ch1", 0)]) == "(A?; Roe 2020)"
    assert [d.code for d in exact.diagnostics] == [Code.CITE_CASE, Code.UNKNOWN_KEY]
    assert exact.aliases == {}
