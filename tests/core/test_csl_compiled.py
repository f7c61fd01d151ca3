"""The compiled element lists of a style (``refbook.styles.csl.compiled``): compiled once per
style and shared by its evaluators, a choose's branch decided per item type and the variables
it tests, a macro's steps shared by its calls. Counted, never timed; the output of the engine
over real styles and files is what ``tests/core/test_csl_suite.py`` and the oracle tests check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from refbook.api import format_bibliography
from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.render.text import to_text
from refbook.styles.csl import compiled
from refbook.styles.csl.engine import Evaluator
from refbook.styles.csl.processor import Processor
from refbook.styles.csl.style import load_style
from tests.conftest import counts_python_calls
from tests.core.test_csl_conformance import style


def _item(key: str, family: str, title: str, *, kind: str = "book", note: str = "") -> Item:
    text: tuple[tuple[str, tuple[Text, ...]], ...] = (("title", (Text(title),)),)
    if note:
        text += (("note", (Text(note),)),)
    return Item(key, kind, text=text, names=(("author", (Name(family=family, given="Ann"),)),),
                dates=(("issued", Date(start=DatePart(2001))),))


_CHOOSING = ('<macro name="author"><names variable="author"/></macro>'
             '<citation><layout><text macro="author"/></layout></citation>'
             '<bibliography><layout delimiter=". ">'
             '<choose><if type="article-journal"><text value="article"/></if>'
             '<else-if variable="note"><text value="with note"/></else-if>'
             '<else><text value="other"/></else></choose>'
             '<text macro="author"/><group><text term="in"/><text macro="author"/></group>'
             '</layout></bibliography>')


@counts_python_calls
def test_each_element_list_is_compiled_once_and_branches_decided_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled_lists: list[int] = []
    decided: list[str] = []
    compile_ = compiled.Program._compile
    first_branch = Evaluator._first_static_branch

    def counting_compile(self: compiled.Program, nodes: list[Any]) -> compiled.Steps:
        compiled_lists.append(id(nodes))
        return compile_(self, nodes)

    def counting_branch(self: Evaluator, branches: list[Any]) -> tuple[int, bool]:
        assert self.item is not None
        decided.append(self.item.id)
        return first_branch(self, branches)

    monkeypatch.setattr(compiled.Program, "_compile", counting_compile)
    monkeypatch.setattr(Evaluator, "_first_static_branch", counting_branch)
    s = load_style(style(tmp_path, _CHOOSING))
    first = Processor(s, [_item("a", "Alpha", "A"), _item("b", "Beta", "B", note="b"),
                          _item("c", "Gamma", "C", kind="article-journal")])
    assert [to_text(e).split(".")[0] for _, e in first.bibliography()] == [
        "other", "with note", "article"]
    # every list once (the layouts, the branches, the group, the macro's body), though the
    # macro is called from three places
    assert len(compiled_lists) == len(set(compiled_lists))
    assert sorted(decided) == ["a", "b", "c"]
    compiled_lists.clear()
    decided.clear()
    # another processor of the same style, items of the same types and variables: nothing is
    # compiled again and no branch is looked for again
    second = Processor(s, [_item("d", "Delta", "D"), _item("e", "Eps", "E", note="e"),
                           _item("f", "Zeta", "F", kind="article-journal")])
    assert [to_text(e).split(".")[0] for _, e in second.bibliography()] == [
        "other", "with note", "article"]
    assert compiled_lists == []
    assert decided == []


def test_a_macro_is_one_program_for_all_its_calls(tmp_path: Path) -> None:
    s = load_style(style(tmp_path, _CHOOSING))
    program = compiled.program_of(s)
    assert compiled.program_of(s) is program
    macro = s.macros["author"].children
    assert program.steps(macro) is program.steps(macro)
    # the bits number the variables the branches test, nothing else
    assert set(program.bits) == {"note"}


def test_a_macro_calling_itself_is_refused_before_it_runs(tmp_path: Path) -> None:
    # evaluating it cannot end (as in any CSL processor): the style is refused when read, at
    # the call (it compiled, then evaluating it ended in a RecursionError; refbook.accel's
    # compiled engine has no recursion limit)
    from refbook.styles.csl.style import StyleSyntaxError

    with pytest.raises(StyleSyntaxError, match=r"the macro 'loop' calls itself \(loop → loop\)"):
        load_style(style(tmp_path, '<macro name="loop"><group><text variable="title"/>'
                                   '<text macro="loop"/></group></macro>'
                                   '<citation><layout><text macro="loop"/></layout></citation>'))


def test_branches_follow_the_variables_each_item_has(tmp_path: Path) -> None:
    # two items of one type, one with the tested variable: each its own branch, in whichever
    # order they come (the branch table is keyed by the variables present, not the first item)
    s = style(tmp_path, '<citation><layout><text variable="title"/></layout></citation>'
                        '<bibliography><layout><choose><if variable="note">'
                        '<text variable="note"/></if><else><text variable="title"/></else>'
                        '</choose></layout></bibliography>')
    items = [{"id": "x", "type": "book", "title": "Plain"},
             {"id": "y", "type": "book", "title": "Noted", "note": "A note"}]
    assert format_bibliography(items, style=s) == ["Plain", "A note"]
    assert format_bibliography(items[::-1], style=s) == ["A note", "Plain"]
