"""LaTeX field values → inline tree / plain text (``refbook.latex``), checked against pandoc.

The table cases were read off pandoc 3.9 (``pandoc -f biblatex -s -t json``); the oracle test
re-runs pandoc on every field value of the shared test files and compares the inline shapes
(words, spaces, spans) that pandoc's case handling depends on.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from refbook import ir, latex
from refbook.latex import SPACE, PCode, PFmt, PLink, PMath, PQuoted, PRaw, PSpan, PStr
from tests.conftest import SHARED

T = ir.Text


def nocase(*kids: ir.Inline) -> ir.Styled:
    return ir.Styled("nocase", kids)


@pytest.mark.parametrize(
    ("source", "text"),
    [
        (r"{\'E}cole", "École"),
        (r"\'{E}cole", "École"),
        (r"\'Ecole", "École"),
        (r"{\"o}", "ö"),
        (r"\v{c}\c c\"{o}\H{o}", "čçöő"),
        (r"\ss \o{} \aa\ \L", "ßø å\u00a0Ł"),
        (r"\'\i", "ı́"),
        (r"x \& y \% \$ \_ \#", "x & y % $ _ #"),
        ("a~b", "a\u00a0b"),
        ("10--20", "10–20"),
        ("A---B", "A—B"),
        ("It's", "It’s"),
        (r"50\,\% and \dots", "50\u2006% and …"),
        (r"a \ldots b", "a …b"),
        (r"\LaTeX\ and \TeX{}", "LaTeX\u00a0and TeX"),
        (r"\textquotedblleft x\textquotedblright", "“x”"),
        (r"\RN{12} \Rn{4}", "XII iv"),
        (r"\bibstring{jourser}", "series"),
        (r"\MakeUppercase{x}", "X"),
        (r"\foo{bar} baz", "baz"),  # pandoc keeps unknown commands as raw TeX: not shown
        (r"\mbox{X} y", "y"),  # raw TeX in a .bib field (pandoc reads it with raw_tex)
        (r"\index{foo}bar", "bar"),
        ("x$y$z", "xyz"),  # math as pandoc's plain writer shows it (refbook.latex_math)
        (r"$\frac{1}{2}$", r"$\frac{1}{2}$"),  # what texmath cannot write stays TeX
        ("  padded  ", "padded"),
        ("", ""),
    ],
)
def test_to_text(source: str, text: str) -> None:
    assert latex.to_text(source) == text


@pytest.mark.parametrize(
    ("source", "inlines"),
    [
        ("{NASA} rockets", (nocase(T("NASA")), T(" rockets"))),
        ("{{NASA}}", (nocase(T("NASA")),)),
        (r"{\'E}cole", (nocase(T("É")), T("cole"))),
        ("a {} b", (T("a b"),)),
        (r"\emph{Deep} learning", (ir.Styled("emph", (T("Deep"),)), T(" learning"))),
        (r"{\em x} y", (nocase(ir.Styled("emph", (T("x"),))), T(" y"))),
        (r"\it x y", (ir.Styled("emph", (T("x y"),)),)),
        (
            r"\textbf{b}\textsc{sc}",
            (ir.Styled("strong", (T("b"),)), ir.Styled("smallcaps", (T("sc"),))),
        ),
        (r"H\textsubscript{2}O", (T("H"), ir.Styled("sub", (T("2"),)), T("O"))),
        (r"\texttt{co de}", (ir.Styled("code", (T("co de"),)),)),
        (r"\url{http://a.b/c_d}", (ir.Link("http://a.b/c_d", (T("http://a.b/c_d"),)),)),
        (r"\url{http://x.y/%20a}", (ir.Link("http://x.y/%20a", (T("http://x.y/%20a"),)),)),
        (r"\href{http://h.i}{Text}", (ir.Link("http://h.i", (T("Text"),)),)),
        ("``quoted'' text", (ir.Styled("quoted", (T("quoted"),)), T(" text"))),
        ("$x^2$", (ir.Span("math", (T("x"), ir.Styled("sup", (T("2"),))), "$x^2$"),)),
        (r"$\frac12$", (ir.Span("math", (T(r"$\frac12$"),), r"$\frac12$"),)),
    ],
)
def test_to_inlines(source: str, inlines: ir.Inlines) -> None:
    assert latex.to_inlines(source) == inlines


def test_unreadable_value_falls_back_to_text() -> None:
    # pandoc's reader fails on an unclosed "$" (and then ignores the field)
    assert latex.parse("cost $5") is None
    assert latex.to_text("cost $5 {x}") == "cost $5 x"


@pytest.mark.parametrize(
    ("source", "nodes"),
    [
        ("Foo{Bar}", (PStr("Foo"), PSpan("", (PStr("Bar"),)))),
        (r"\emph{a}\emph{b}", (PFmt("emph", (PStr("a"), PStr("b"))),)),
        (r"\textbf{{X}}", (PFmt("strong", (PStr("X"),)),)),
        (r"\it{x}", (PFmt("emph", (PSpan("", (PStr("x"),)),)),)),
        (r"\emph{ x }", (PFmt("emph", (PStr("x"),)),)),
        (r"\foo[opt]{a}{b} c", (PRaw(r"\foo[opt]{a}{b}"), SPACE, PStr("c"))),
        (r"\mkbibquote{x}", (PSpan("", (PQuoted(True, (PStr("x"),)),)),)),
        ("`it's'", (PQuoted(False, (PStr("it’s"),)),)),
        ("x'''y", (PStr("x”’y"),)),
        (r"\(y\)", (PMath("y"),)),
        (r"\texttt{a \emph{b}}", (PCode("a "), PFmt("emph", (PCode("b"),)))),
        (r"\href{http://a.b/\#c}{x\_y}", (PLink("http://a.b/#c", (PStr("x_y"),)),)),
        ("x\n\ny", (PStr("x"), PStr("y"))),
    ],
)
def test_parse_shapes(source: str, nodes: latex.PInlines) -> None:
    assert latex.parse(source) == nodes


# -- oracle --------------------------------------------------------------------------------


def _from_pandoc(ils: list[dict[str, Any]]) -> latex.PInlines:
    kinds = {
        "Emph": "emph", "Strong": "strong", "SmallCaps": "smallcaps", "Superscript": "sup",
        "Subscript": "sub", "Underline": "underline", "Strikeout": "strikeout",
    }  # fmt: skip
    out: list[latex.PInline] = []
    for i in ils:
        t, c = i["t"], i.get("c")
        if t == "Str":
            out.append(PStr(c))
        elif t in ("Space", "SoftBreak"):
            out.append(SPACE)
        elif t == "LineBreak":
            out.append(latex.PBreak())
        elif t == "Span":
            (_id, classes, attrs), kids = c
            cls = "" if not classes and not attrs else ("nocase" if classes == ["nocase"] else "*")
            out.append(PSpan(cls, _from_pandoc(kids)))
        elif t in kinds:
            out.append(PFmt(kinds[t], _from_pandoc(c)))
        elif t == "Quoted":
            out.append(PQuoted(c[0]["t"] == "DoubleQuote", _from_pandoc(c[1])))
        elif t == "Link":
            out.append(PLink(c[2][0], _from_pandoc(c[1])))
        elif t == "Math":
            out.append(PMath(c[1], c[0]["t"] == "DisplayMath"))
        elif t == "Code":
            out.append(PCode(c[1]))
        else:  # RawInline, Note, Cite: never shown
            out.append(PRaw(""))
    return tuple(out)


def _normalise(nodes: latex.PInlines) -> latex.PInlines:
    out: list[latex.PInline] = []
    for n in nodes:
        if isinstance(n, PRaw):
            out.append(PRaw(""))
        elif isinstance(n, PSpan):
            cls = n.cls if n.cls in ("", "nocase") else "*"
            out.append(PSpan(cls, _normalise(n.children)))
        elif isinstance(n, PFmt):
            out.append(PFmt(n.kind, _normalise(n.children)))
        elif isinstance(n, PQuoted):
            out.append(PQuoted(n.double, _normalise(n.children)))
        elif isinstance(n, PLink):
            out.append(PLink(n.url, _normalise(n.children)))
        else:
            out.append(n)
    return tuple(out)


def _field_values() -> list[str]:
    from refbook.readers.bibtex import parse_bibtex

    values: set[str] = set()
    for path in (
        SHARED / "seed" / "references.raw.bib",
        SHARED / "testdata" / "biblatex" / "biblatex-examples.bib",
        SHARED / "testdata" / "texlive" / "xampl.bib",
    ):
        for entry in parse_bibtex(path.read_text(encoding="utf-8"), str(path)).entries:
            values.update(f.value for f in entry.fields if "@" not in f.value)
    return sorted(values)


def test_parse_matches_pandoc(pandoc: str) -> None:
    values = _field_values()
    bib = "".join(f"@misc{{k{i},\n note = {{{v}}}\n}}\n" for i, v in enumerate(values))
    out = subprocess.run(
        [pandoc, "-f", "biblatex", "-s", "-t", "json"],
        input=bib, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    refs = json.loads(out.stdout)["meta"]["references"]["c"]
    theirs: dict[str, latex.PInlines | None] = {}
    for ref in refs:
        m = ref["c"]
        note = m.get("note")
        if note is None:
            theirs[m["id"]["c"]] = None
        elif note["t"] == "MetaString":
            theirs[m["id"]["c"]] = (PStr(note["c"]),) if note["c"] else ()
        else:
            theirs[m["id"]["c"]] = _from_pandoc(note["c"])
    differ = []
    for i, v in enumerate(values):
        ours = latex.parse(v)
        if (None if ours is None else _normalise(ours)) != theirs[f"k{i}"]:
            differ.append(v)
    print(f"\nLaTeX values read like pandoc: {len(values) - len(differ)}/{len(values)}")
    for v in differ:
        print(f"  differs: {v!r}")
    assert not differ


def test_to_text_shortcut_agrees_with_the_parser() -> None:
    """Values without markup skip the LaTeX parser; on every field of the shared .bib files and
    on random strings the shortcut gives what the parser gives."""
    import random

    from refbook.latex import parsed_text, to_text
    from refbook.readers import read_bibliography
    from tests.conftest import SEED, TESTDATA

    values = {f.value for path in [*TESTDATA.rglob("*.bib"), *SEED.glob("*.bib")]
              for e in read_bibliography([str(path)]) for f in e.fields}
    rng = random.Random(5)
    alphabet = "ab Z9.,;:()[]/\t\n\u00a0é‘’“”«»-–—'\"`~{}\\$%&#_^!?<>"
    values |= {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
               for _ in range(3000)}
    assert len(values) > 8000
    wrong = [v for v in values if to_text(v) != parsed_text(v)]
    assert wrong == []
