"""CSL element lists compiled once per style into chains of closures.

Sits between the parsed style (:mod:`refbook.styles.csl.style`, nodes that never change) and
the interpreter (:class:`refbook.styles.csl.engine.Evaluator`). ``Evaluator.elements`` used to
walk a list of nodes for every item, deciding per element and per call what the element is (a
choose, a macro call, a group, a text …), looking its macro and formatting up and building a
list per nested element list. Here every list of elements is turned, the first time it is
evaluated, into a tuple of *steps*: closures ``step(ev, out)`` that append the element's
outputs to ``out``. What does not depend on the item is decided at compile time: which macro a
``<text macro>`` calls (its steps bound directly), the formatting of groups and macro calls
(and its form without ``text-case``, for items not in English), which variables a
``<choose>``'s branches test (a bit mask). A choose's branch is looked up per (item type,
tested variables present) in the closure's own table, and its steps are compiled when it is
first taken; a group's outputs go into one list, and a chosen branch's straight into its
parent's.

The leaves (``<text>``, ``<names>``, ``<date>``, ``<number>``, ``<label>``) stay the
evaluator's methods, their output depending on the item throughout; but an ordinary
``<text variable>`` is read and printed by its step, and a ``<names>`` step hands the method
the node's parts parsed at compile time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from refbook.records import replace
from refbook.styles.csl.output import NO_FORMAT, Fmt, Formatting, Lit, Out

if TYPE_CHECKING:
    from refbook.styles.csl.engine import Evaluator
    from refbook.styles.csl.style import Node, Style

#: one compiled element: appends its outputs (none, one, or a branch's) to the list given
Step: TypeAlias = Callable[["Evaluator", list[Out]], None]
Steps: TypeAlias = tuple[Step, ...]

#: the programs of the styles parsed in this process, by the style's id (the style is kept to
#: tell a reused id apart); not in the style's memo, which is pickled to a cache file
_PROGRAMS: dict[int, tuple[Style, Program]] = {}


class Program:
    """The compiled element lists of one style (shared by every evaluator of the style, made
    afresh with a new parse of it).

    ``bits`` numbers every variable that a ``<choose>`` branch of the style tests for
    presence: an item's present variables become one integer (``Evaluator._present_mask``),
    and a choose's branch is found by that integer masked with the variables it tests.
    """

    __slots__ = ("_lists", "bits", "date_plans", "macros")

    def __init__(self, style: Style) -> None:
        from refbook.styles.csl.engine import _conditions

        self.macros = style.macros
        #: each ``<date>`` element's plan (variable, formatting, parts merged with the style's
        #: locale), shared by every evaluator of the style (``Evaluator.date_el``)
        self.date_plans: dict[int, tuple[Node, str, Formatting, list[Node]]] = {}
        self._lists: dict[int, tuple[list[Node], Steps]] = {}
        bits: dict[str, int] = {}
        # every variable tested anywhere in the style gets its bit before any item is seen:
        # an item's mask, once made, then serves every choose of the style
        stack = [style.root]
        while stack:
            n = stack.pop()
            if n.tag in ("if", "else-if"):
                for cond, values, _ in _conditions(n.attrs)[1]:
                    if cond == "variable":
                        for v in values:
                            bits.setdefault(v, 1 << len(bits))
            stack.extend(n.children)
        self.bits = bits

    def steps(self, nodes: list[Node]) -> Steps:
        """The steps of a list of elements (compiled on first use)."""
        hit = self._lists.get(id(nodes))
        if hit is not None and hit[0] is nodes:
            return hit[1]
        return self._compile(nodes)

    def _compile(self, nodes: list[Node]) -> Steps:
        # a macro that calls itself (directly or not) would recurse without end when
        # evaluated, as the interpreter does; compiling it must not: the list's entry is
        # made before its elements are compiled, and a call of a macro still being compiled
        # looks its steps up when it runs
        self._lists[id(nodes)] = (nodes, (_lazy(self, nodes),))
        steps = tuple(s for s in (self._compile_one(n) for n in nodes) if s is not None)
        self._lists[id(nodes)] = (nodes, steps)
        return steps

    def _compile_one(self, n: Node) -> Step | None:
        from refbook.styles.csl.engine import _SINGLE_STEPS, formatting_of

        tag = n.tag
        if tag == "choose":
            return self._choose(n)
        if tag == "text" and "macro" in n.attrs:
            macro = self.macros.get(n.attrs["macro"])
            if macro is None:
                return None  # an unknown macro gives no output
            return _group(self.steps(macro.children), formatting_of(n.attrs), is_macro=True)
        if tag == "group":
            return _group(self.steps(n.children), formatting_of(n.attrs), is_macro=False)
        if tag == "text" and "variable" in n.attrs:
            return _text_variable(n.attrs["variable"], n.attrs.get("form", "long"),
                                  formatting_of(n.attrs))
        if tag == "names":
            return _names(n)
        single = _SINGLE_STEPS.get(tag)
        if single is None:
            return None  # sort, a stray element: no output
        return _single(single, n, formatting_of(n.attrs))

    def _choose(self, n: Node) -> Step:
        from refbook.styles.csl.engine import _conditions, _tested_variables

        branches = n.children
        # each branch's steps, compiled when first taken: an item type takes few of a style's
        # branches, and a process that formats one entry (a .bib edit) compiled them all
        branch_steps: list[Steps | None] = [None] * len(branches)
        steps_of = self.steps

        def taken(i: int) -> Steps:
            found = branch_steps[i]
            if found is None:
                found = branch_steps[i] = steps_of(branches[i].children)
            return found

        #: each branch's (match, conditions), None for else
        tests = tuple(None if b.tag == "else" else _conditions(b.attrs) for b in branches)
        tested = _tested_variables(n)
        bits = self.bits
        if all(v in bits for v in tested):
            mask = 0
            for v in tested:
                mask |= bits[v]
        else:  # not reached from the style's root (no bits): every branch tested per item
            mask = -1
        count = len(branches)
        #: (item type, tested variables present) -> (first branch to look at, decided)
        table: dict[tuple[str, int], tuple[int, bool]] = {}

        def choose(ev: Evaluator, out: list[Out]) -> None:
            item = ev.item
            assert item is not None
            present = ev._mask if item is ev._mask_item else ev._present_mask()
            if item.logged:  # a reader recording what a render depends on (validate.output)
                item.tested(tested)
            key = (item.type, present & mask)
            hit = table.get(key)
            if hit is None:
                hit = table[key] = (ev._first_static_branch(branches) if mask != -1
                                    else (0, False))
            start, decided = hit
            if decided:
                if start < count:
                    for step in branch_steps[start] or taken(start):
                        step(ev, out)
                return
            for i in range(start, count):
                test = tests[i]
                if test is None or ev._test_parsed(*test):
                    for step in branch_steps[i] or taken(i):
                        step(ev, out)
                    return

        return choose


def _lazy(program: Program, nodes: list[Node]) -> Step:
    """The step standing for a list still being compiled (a recursive macro)."""

    def run(ev: Evaluator, out: list[Out]) -> None:
        for step in program.steps(nodes):
            step(ev, out)

    return run


def _group(steps: Steps, f: Formatting, *, is_macro: bool) -> Step:
    """A ``<group>`` or a macro call: suppressed when it asks for variables and finds none
    (a macro call counts as one variable found when it gives output, for its enclosing
    group)."""
    # title case is for English items only: the same formatting without it, made once
    uncased = replace(f, text_case=None) if f.text_case == "title" else f

    def group(ev: Evaluator, out: list[Out]) -> None:
        count = ev.var_count
        old_called, old_nonempty = count
        xs: list[Out] = []
        for step in steps:
            step(ev, xs)
        if count[0] != old_called and count[1] == old_nonempty:
            return  # variables asked, none found: the group is suppressed
        if is_macro:
            count[0] += 1
            count[1] += 1
        if xs:
            fmt = uncased if uncased is not f and not ev._is_english() else f
            only = xs[0]
            if (fmt is NO_FORMAT and len(xs) == 1 and type(only) is Fmt
                    and only.f.display is None):
                # a plain group or macro call around one formatted output (58 % of an
                # entry's formatted nodes in Chicago): that output itself, which renders the
                # same (rendering a plain one-child node gives its child's inlines back)
                out.append(only)
            else:
                out.append(Fmt(fmt, xs))

    return group


def _single(method: Callable[[Evaluator, Node, Formatting], Out], n: Node,
            f: Formatting) -> Step:
    """An element that gives one output (or none)."""

    def single(ev: Evaluator, out: list[Out]) -> None:
        r = method(ev, n, f)
        if r is not None:
            out.append(r)

    return single


#: the variables ``Evaluator.text_variable`` prints in a way of their own
_SPECIAL_TEXT = frozenset(["locator", "citation-label", "year-suffix", "citation-number", "DOI",
                           "URL", "PMID", "PMCID", "page", "title"])


def _text_variable(var: str, form: str, f: Formatting) -> Step:
    """``<text variable>``: the most common element, its variable and form read once; an
    ordinary variable (not one of ``_SPECIAL_TEXT``) printed as ``text_variable`` does, without
    its tests for the special ones."""
    if var not in _SPECIAL_TEXT:
        short = var + "-short" if form == "short" else ""
        used = (var, short) if short else (var,)

        def plain(ev: Evaluator, out: list[Out]) -> None:
            val = ev.ask_text(short) if short else None
            if val is None:
                val = ev.ask_text(var)
                if val is None:
                    return
            if ev.in_substitute:  # Evaluator._delete
                ev.substituted.update(used)
            out.append(ev._formatted_by(f, Lit(val)))

        return plain

    def text(ev: Evaluator, out: list[Out]) -> None:
        r = ev._formatted_by(f, ev.text_variable(var, form))
        if r is not None:
            out.append(r)

    return text


def _names(n: Node) -> Step:
    from refbook.styles.csl.engine import _names_parts

    parts = _names_parts(n)  # its variables, formatting and children, found once
    # the lists asked for ("editortranslator" is the editors'), when nothing can stand in
    asked = (None if parts[5] is not None
             else tuple("editor" if v == "editortranslator" else v for v in parts[0]))

    def names(ev: Evaluator, out: list[Out]) -> None:
        item = ev.item
        assert item is not None
        if asked is not None:
            # no <substitute>: when the item has none of the lists, the element gives nothing
            # (most <names> of a long style); counted as names_with's ask_names count them
            used = ev.substituted
            for v in asked:
                if v not in used and item.name_list(v):
                    break
            else:
                ev.var_count[0] += len(asked)
                return
        r = ev.names_with(n, parts)
        if r is not None:
            out.append(r)

    return names


def program_of(style: Style) -> Program:
    """The style's compiled program, made on first use."""
    hit = _PROGRAMS.get(id(style))
    if hit is not None and hit[0] is style:
        return hit[1]
    if len(_PROGRAMS) >= 64:  # as many as refbook.styles.csl.style keeps parsed, and more
        _PROGRAMS.clear()
    p = Program(style)
    _PROGRAMS[id(style)] = (style, p)
    return p

