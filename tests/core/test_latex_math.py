"""TeX math in field values (``refbook.latex_math``) against pandoc 3.9's plain output, live.

Every formula is written once as ``$…$`` in a LaTeX document for pandoc and read by our
converter; the text must be identical, spaces included (pandoc puts U+2004 around relations,
U+2005 around binary operators, U+2006 after punctuation and operator names). Formulas texmath
cannot write as text (fractions, roots, ``\\overline``, a sum with both limits) stay TeX on both
sides. The cases come from real bibliographies (jabref-authors.bib, testjabref.bib, xampl.bib,
a Better BibTeX fixture, arXiv physics titles) and from the issue.
"""

from __future__ import annotations

import subprocess

import pytest

from refbook import latex_math
from refbook.render.text import to_text

CASES = [
    # from the real files
    r"O(n \log n / \! \log\log n)", r"\Delta", r"\Sigma", r"{}^{\mbox{th}}", r"{}^{\mbox{2}}",
    r"\mathrm{\mu}", r"\mu", r"\pm", r"-", r"^2", r"^{6}", r"^{3}", r"\alpha", r"k^-", r"k^+",
    r"z", r"Z_3", r"\gamma", r"D\rightarrow4", r"B", r"A_2", r"_2",
    # from the issue
    r"(\infty,1)", r"\sqrt{s} = 13\,\text{TeV}", r"\nu",
    # Greek, operators, relations, arrows
    r"\alpha\beta\Gamma\Delta", r"\varepsilon \epsilon \vartheta \phi \varphi",
    # upright Greek (upgreek; a real thesis's file: $0-\uppi$, $\upphi_0$)
    r"0-\uppi", r"\upphi_0", r"4\uppi", r"\upepsilon \upvarepsilon \upalpha \upomega \upmu",
    r"\Upgamma",
    r"a \le b \ge c \ne d", r"a \to b \rightarrow c \leftarrow d \Rightarrow e",
    r"a+b-c", r"a \times b", r"a \cdot b", r"a \in B", r"a \sim b", r"\sim 10", r"\le 5",
    r"a\leq", r"\neg a \wedge b \vee c", r"A \cup B \cap C \subset D \subseteq E",
    r"x \mapsto y", r"\pm 0.1", r"-1", r"a - 1", r"a : b", r"a;b", r"a, b, c", r"1{,}5",
    r"\langle a \rangle", r"|V_{cb}|", r"\{a\}", r"\left( x \right)", r"a \cdots b",
    # operator names
    r"\log n", r"\log(x)", r"\log_2 n", r"\log^2 n", r"\sin^2\theta_{W}", r"\max_i x",
    r"\lim_{n\to\infty} a", r"\operatorname{Tr} x", r"\exp(x)", r"a\log",
    # sub- and superscripts
    r"x^{10}", r"x^{ab}", r"x_{ij}", r"x_{10}", r"a_{n+1}", r"10^{-3}", r"e^{i\pi}",
    r"B^0_s", r"B_s^0", r"\bar{B}^0", r"x'", r"x''", r"f'(x)", r"x^*", r"K^{*0}",
    r"\mathrm{e}^+\mathrm{e}^-", r"\int_0^1 f", r"\sum_i x", r"\oint_C",
    # styles, text, spacing
    r"\mathrm{TeV}", r"13\,\mathrm{TeV}", r"\mathrm{a b}", r"\text{a b}", r"\text{if } x",
    r"\mbox{ab cd}", r"\textbf{ab}", r"\mathbf{x}", r"\boldsymbol{\mu}", r"\mathcal{O}",
    r"\mathbb{R}", r"\mathbb{Z}_2", r"\mathfrak{g}", r"\mathcal{N}=4", r"\mathsf{A}",
    r"a\;b\:c\,d\ e\quad f\qquad g\!h~i", r"\textstyle a",
    # accents
    r"\hat{x}", r"\tilde{x}", r"\vec{x}", r"\dot{x}", r"\bar{B}", r"\acute{e}", r"\hat{\alpha}",
    # what stays TeX
    r"\frac{1}{2}", r"\tfrac12", r"\sqrt{2}", r"\sqrt[3]{x}", r"\sum_{i=1}^n x_i",
    r"\overline{x}", r"\hat{xy}", r"\ddot{x}", r"x_{\rm max}", r"\hbox{ab}", r"\it ab",
    r"\unknowncommand x",
]  # fmt: skip


@pytest.fixture(scope="module")
def pandoc_math(pandoc: str) -> dict[str, str]:
    source = "\n\n".join(f"${tex}$" for tex in CASES)
    out = subprocess.run(
        [pandoc, "-f", "latex", "-t", "plain", "--wrap=none"],
        input=source, capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    paras = out.rstrip("\n").split("\n\n")
    assert len(paras) == len(CASES)
    return dict(zip(CASES, paras, strict=True))


@pytest.mark.parametrize("tex", CASES)
def test_math_as_pandoc_writes_it(tex: str, pandoc_math: dict[str, str]) -> None:
    ours = to_text(latex_math.math_to_inlines(tex, display=False)).strip()
    assert ours == pandoc_math[tex].strip()


def test_math_keeps_its_source_for_csl_json() -> None:
    (span,) = latex_math.math_to_inlines(r"x^2", display=False)
    assert span.key == "$x^2$"
    (span,) = latex_math.math_to_inlines(r"\frac{1}{2}", display=True)
    assert span.key == r"$$\frac{1}{2}$$"


def test_html_keeps_sup_and_sub_markup() -> None:
    from refbook import latex
    from refbook.render.html import to_html

    html = to_html(latex.to_inlines(r"H$_2$O, $x^{th}$ and $\frac12$"))
    assert html == (
        'H<span class="refbook-math"><sub>2</sub></span>O, '
        '<span class="refbook-math">x<sup>th</sup></span> and '
        '<span class="refbook-math">$\\frac12$</span>'
    )


@pytest.mark.parametrize(
    "tex",
    ["{" * 5000 + "x" + "}" * 5000, "\\hat" * 5000 + " x", "x^1" * 20000, "\\alpha " * 50000],
    ids=["deep-groups", "deep-accents", "many-scripts", "long"],
)
def test_hostile_math_never_raises(tex: str) -> None:
    """Deep nesting stays TeX (no recursion error); long formulas convert in linear time."""
    from tests.scaling import assert_linear

    (span,) = latex_math.math_to_inlines(tex, display=False)
    assert isinstance(span.children, tuple)
    if tex.startswith(("x^1", "\\alpha")):
        unit = tex[:3] if tex.startswith("x^1") else "\\alpha "
        assert_linear(lambda n: lambda: latex_math.convert(unit * n), 2000)
