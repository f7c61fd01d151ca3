"""TeX math in field values → inline text, the way pandoc shows it (texmath's Pandoc writer).

Where it sits: ``refbook.latex`` reads ``$…$``, ``\\(…\\)`` and ``\\ensuremath{…}`` as math
nodes and keeps their source (case changes never touch math); when it converts a tree to
``refbook.ir`` it calls :func:`math_to_inlines` here. The text renderer then writes
superscripts and subscripts as pandoc's plain writer does (Unicode where every character has
one, else ``^(…)``/``_(…)``); HTML keeps ``<sup>``/``<sub>``.

pandoc converts math with texmath: TeX is read into expressions, and expressions are written as
text where texmath can — Greek letters and symbols become Unicode, operators get the spaces of
their TeX class (relations U+2004 on each side, binary operators U+2005, punctuation U+2006
after, operator names U+2006 after), ``\\mathcal``/``\\mathbb``/``\\mathfrak`` become Unicode
letters. Where texmath cannot (fractions, roots, ``\\overline``, a sum with both limits,
unknown commands), pandoc prints the TeX source between dollars, and so do we: :func:`convert`
returns ``None`` for those. The rules were read off pandoc 3.9's output (``tests/core/
test_latex_math.py`` compares every construct with pandoc live); see
``docs/design/pandoc-fidelity.md`` for why this is our own code.
"""

from __future__ import annotations

import re

from refbook import ir
from refbook.records import record

__all__ = ["convert", "math_to_inlines"]

# --------------------------------------------------------------------------------------------
# Symbol tables: command → (text, class). Classes as texmath's: "ord" (no spacing), "op"
# (prefix, no spacing), "bin" (U+2005 both sides), "rel" (U+2004 both sides), "pun" (U+2006
# after), "open"/"close".
# --------------------------------------------------------------------------------------------

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "varkappa": "ϰ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ",
    "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ",
    "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ",
    "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "digamma": "ϝ",
}  # fmt: skip

_SYMBOLS: dict[str, tuple[str, str]] = {
    # upright Greek (the upgreek package), as texmath reads them: lower case only (it rejects
    # \Upgamma); note \upepsilon is ε and \upvarepsilon ϵ, the other way round from \epsilon
    "upalpha": ("α", "ord"), "upbeta": ("β", "ord"), "upgamma": ("γ", "ord"),
    "updelta": ("δ", "ord"), "upepsilon": ("ε", "ord"), "upvarepsilon": ("ϵ", "ord"),
    "upzeta": ("ζ", "ord"), "upeta": ("η", "ord"), "uptheta": ("θ", "ord"),
    "upvartheta": ("ϑ", "ord"), "upiota": ("ι", "ord"), "upkappa": ("κ", "ord"),
    "uplambda": ("λ", "ord"), "upmu": ("μ", "ord"), "upnu": ("ν", "ord"), "upxi": ("ξ", "ord"),
    "uppi": ("π", "ord"), "upvarpi": ("ϖ", "ord"), "uprho": ("ρ", "ord"),
    "upvarrho": ("ϱ", "ord"), "upsigma": ("σ", "ord"), "upvarsigma": ("ς", "ord"),
    "uptau": ("τ", "ord"), "upupsilon": ("υ", "ord"), "upphi": ("ϕ", "ord"),
    "upvarphi": ("φ", "ord"), "upchi": ("χ", "ord"), "uppsi": ("ψ", "ord"),
    "upomega": ("ω", "ord"),
    # ordinary symbols
    "infty": ("∞", "ord"), "partial": ("∂", "ord"), "nabla": ("∇", "ord"),
    "hbar": ("ℏ", "ord"), "ell": ("ℓ", "ord"), "aleph": ("ℵ", "ord"), "emptyset": ("∅", "ord"),
    "varnothing": ("⌀", "ord"), "prime": ("′", "ord"), "dagger": ("†", "bin"),
    "ddagger": ("‡", "bin"), "ldots": ("…", "ord"), "dots": ("…", "ord"),
    "cdots": ("⋯", "ord"), "vdots": ("⋮", "ord"), "ddots": ("⋱", "ord"), "forall": ("∀", "ord"),
    "exists": ("∃", "ord"), "nexists": ("∄", "ord"), "neg": ("¬", "op"), "lnot": ("¬", "op"),
    "Re": ("ℜ", "ord"), "Im": ("ℑ", "ord"), "wp": ("℘", "ord"), "angle": ("∠", "ord"),
    "top": ("⊤", "ord"), "bot": ("⊥", "ord"), "triangle": ("△", "ord"),
    "Box": ("□", "ord"), "Diamond": ("◇", "ord"), "checkmark": ("✓", "ord"),
    "degree": ("°", "ord"), "imath": ("ı", "ord"), "jmath": ("ȷ", "ord"),
    "%": ("%", "ord"), "&": ("&", "ord"), "#": ("#", "ord"), "$": ("$", "ord"),
    "_": ("_", "ord"), "{": ("{", "open"), "}": ("}", "close"), "|": ("‖", "ord"),
    "backslash": ("\\", "ord"), "surd": ("√", "ord"), "flat": ("♭", "ord"),
    "natural": ("♮", "ord"), "sharp": ("♯", "ord"), "clubsuit": ("♣", "ord"),
    "diamondsuit": ("♢", "ord"), "heartsuit": ("♡", "ord"), "spadesuit": ("♠", "ord"),
    "mho": ("℧", "ord"), "eth": ("ð", "ord"), "S": ("§", "ord"), "P": ("¶", "ord"),
    # binary operators
    "pm": ("±", "bin"), "mp": ("∓", "bin"), "times": ("×", "bin"), "div": ("÷", "bin"),
    "cdot": ("⋅", "bin"), "ast": ("*", "bin"), "star": ("⋆", "bin"), "circ": ("∘", "bin"),
    "bullet": ("∙", "bin"), "cap": ("∩", "bin"), "cup": ("∪", "bin"), "uplus": ("⊎", "bin"),
    "sqcap": ("⊓", "bin"), "sqcup": ("⊔", "bin"), "vee": ("∨", "bin"), "lor": ("∨", "bin"),
    "wedge": ("∧", "bin"), "land": ("∧", "bin"), "setminus": ("∖", "bin"),
    "wr": ("≀", "bin"), "diamond": ("⋄", "bin"), "oplus": ("⊕", "bin"),
    "ominus": ("⊖", "bin"), "otimes": ("⊗", "bin"), "oslash": ("⊘", "bin"),
    "odot": ("⊙", "bin"), "bigcirc": ("◯", "bin"), "amalg": ("⨿", "bin"),
    "triangleleft": ("◁", "bin"), "triangleright": ("▷", "bin"),
    # relations
    "leq": ("≤", "rel"), "le": ("≤", "rel"), "geq": ("≥", "rel"), "ge": ("≥", "rel"),
    "neq": ("≠", "rel"), "ne": ("≠", "rel"), "equiv": ("≡", "rel"), "sim": ("∼", "rel"),
    "simeq": ("≃", "rel"), "approx": ("≈", "rel"), "cong": ("≅", "rel"),
    "propto": ("∝", "rel"), "ll": ("≪", "rel"), "gg": ("≫", "rel"), "in": ("∈", "rel"),
    "ni": ("∋", "rel"), "notin": ("∉", "rel"), "subset": ("⊂", "rel"),
    "supset": ("⊃", "rel"), "subseteq": ("⊆", "rel"), "supseteq": ("⊇", "rel"),
    "perp": ("⊥", "rel"), "parallel": ("∥", "rel"), "mid": ("∣", "rel"), "vdash": ("⊢", "rel"),
    "dashv": ("⊣", "rel"), "models": ("⊨", "rel"), "asymp": ("≍", "rel"),
    "doteq": ("≐", "rel"), "prec": ("≺", "rel"), "succ": ("≻", "rel"),
    "preceq": ("⪯", "rel"), "succeq": ("⪰", "rel"), "lesssim": ("≲", "rel"),
    "gtrsim": ("≳", "rel"), "leqslant": ("⩽", "rel"), "geqslant": ("⩾", "rel"),
    "lll": ("⋘", "rel"), "ggg": ("⋙", "rel"), "bowtie": ("⋈", "rel"), "smile": ("⌣", "rel"),
    "frown": ("⌢", "rel"), "coloneqq": ("≔", "rel"), "triangleq": ("≜", "rel"),
    # arrows (relations)
    "to": ("→", "rel"), "rightarrow": ("→", "rel"), "leftarrow": ("←", "rel"),
    "gets": ("←", "rel"), "leftrightarrow": ("↔", "rel"), "Rightarrow": ("⇒", "rel"),
    "Leftarrow": ("⇐", "rel"), "Leftrightarrow": ("⇔", "rel"), "mapsto": ("↦", "rel"),
    "longrightarrow": ("⟶", "rel"), "longleftarrow": ("⟵", "rel"),
    "Longrightarrow": ("⟹", "rel"), "Longleftarrow": ("⟸", "rel"),
    "longleftrightarrow": ("⟷", "rel"), "Longleftrightarrow": ("⟺", "rel"),
    "longmapsto": ("⟼", "rel"), "implies": ("⟹", "rel"), "iff": ("⟺", "rel"),
    "hookrightarrow": ("↪", "rel"), "hookleftarrow": ("↩", "rel"),
    "rightleftharpoons": ("⇌", "rel"), "leftrightarrows": ("⇆", "rel"),
    "rightleftarrows": ("⇄", "rel"), "leadsto": ("⇝", "rel"),
    "uparrow": ("↑", "ord"), "downarrow": ("↓", "ord"), "Uparrow": ("⇑", "ord"),
    "Downarrow": ("⇓", "ord"), "updownarrow": ("↕", "ord"), "nearrow": ("↗", "rel"),
    "searrow": ("↘", "rel"), "swarrow": ("↙", "rel"), "nwarrow": ("↖", "rel"),
    # delimiters
    "langle": ("⟨", "open"), "rangle": ("⟩", "close"), "lbrace": ("{", "open"),
    "rbrace": ("}", "close"), "lfloor": ("⌊", "open"), "rfloor": ("⌋", "close"),
    "lceil": ("⌈", "open"), "rceil": ("⌉", "close"), "lvert": ("|", "open"),
    "rvert": ("|", "close"), "vert": ("|", "ord"), "Vert": ("‖", "ord"),
    "lbrack": ("[", "open"), "rbrack": ("]", "close"),
    # large operators without limits above and below in text
    "int": ("∫", "op"), "iint": ("∬", "op"), "iiint": ("∭", "op"), "oint": ("∮", "op"),
}  # fmt: skip

# large operators: a limit below or above reads as a subscript or superscript, both fail
_LARGE_OPS: dict[str, str] = {
    "sum": "∑", "prod": "∏", "coprod": "∐", "bigcup": "⋃", "bigcap": "⋂", "bigvee": "⋁",
    "bigwedge": "⋀", "bigoplus": "⨁", "bigotimes": "⨂", "bigodot": "⨀", "biguplus": "⨄",
    "bigsqcup": "⨆",
}  # fmt: skip
# operator names (``\\log``): upright, a six-per-em space after unless a limit follows; those
# with limits in display style take them like the large operators
_OPERATORS = frozenset({
    "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "dim",
    "exp", "hom", "ker", "lg", "ln", "log", "sec", "sin", "sinh", "tan", "tanh",
})  # fmt: skip
_LIMIT_OPERATORS = frozenset({
    "det", "gcd", "inf", "lim", "liminf", "limsup", "max", "min", "Pr", "sup",
})  # fmt: skip

_CHAR_CLASS: dict[str, str] = {
    "+": "bin", "-": "bin", "*": "bin", "=": "rel", "<": "rel", ">": "rel", ":": "rel",
    ",": "pun", ";": "pun", "(": "open", "[": "open", ")": "close", "]": "close",
}  # fmt: skip
_CHAR_TEXT = {"-": "\u2212", "*": "*"}

_SPACES: dict[str, str] = {
    ",": "\u2006", ":": "\u00a0", ">": "\u00a0", ";": "\u2005", " ": "\u00a0",
    "!": "\u200a", "quad": "\u200a\u2001", "qquad": "\u200a\u2001\u2001",
}  # fmt: skip

# accent command → combining character (texmath converts an accent over one letter only)
_ACCENTS: dict[str, str] = {
    "bar": "\u0304", "acute": "\u0301", "grave": "\u0300", "breve": "\u0306",
    "check": "\u030c", "dot": "\u0307", "mathring": "\u030a", "vec": "\u20d7",
    "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
}  # fmt: skip

# font commands: mathrm & co. read their argument as math in another style
_STYLES: dict[str, str] = {
    "mathrm": "normal", "mathup": "normal", "mathit": "normal", "mathsf": "normal",
    "mathtt": "normal", "mathnormal": "normal", "mathbf": "bold", "boldsymbol": "bold",
    "bm": "bold", "mathcal": "script", "mathscr": "script", "mathbb": "double",
    "mathfrak": "fraktur", "mathbfit": "bold",
}  # fmt: skip
# text commands: their argument is text (spaces kept)
_TEXT_CMDS: dict[str, str] = {
    "text": "normal", "textrm": "normal", "textup": "normal", "textnormal": "normal",
    "textit": "normal", "textsf": "normal", "texttt": "normal", "mbox": "normal",
    "textbf": "bold", "operatorname": "operator",
}  # fmt: skip
_IGNORED = frozenset({"displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle",
                      "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl",
                      "Bigr", "biggl", "biggr", "Biggl", "Biggr", "middle", "limits",
                      "nolimits"})  # fmt: skip

# Unicode mathematical alphanumerics with holes filled by older letter-like symbols
_SCRIPT_HOLES = {"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ",
                 "R": "ℛ", "e": "ℯ", "g": "ℊ", "o": "ℴ"}  # fmt: skip
_DOUBLE_HOLES = {"C": "ℂ", "H": "ℍ", "N": "ℕ", "P": "ℙ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"}
_FRAKTUR_HOLES = {"C": "ℭ", "H": "ℌ", "I": "ℑ", "R": "ℜ", "Z": "ℨ"}
_ALPHA_BASE = {"script": 0x1D49C, "double": 0x1D538, "fraktur": 0x1D504}
_HOLES = {"script": _SCRIPT_HOLES, "double": _DOUBLE_HOLES, "fraktur": _FRAKTUR_HOLES}


def _styled_char(c: str, style: str) -> str:
    base = _ALPHA_BASE.get(style)
    if base is None or not c.isascii() or not c.isalpha():
        if style == "double" and c.isascii() and c.isdigit():
            return chr(0x1D7D8 + ord(c) - 48)
        return c
    hole = _HOLES[style].get(c)
    if hole is not None:
        return hole
    offset = ord(c) - 65 if c.isupper() else 26 + ord(c) - 97
    return chr(base + offset)


# --------------------------------------------------------------------------------------------
# Reading: TeX math → a list of atoms
# --------------------------------------------------------------------------------------------


class _UnsupportedError(Exception):
    """texmath cannot write this as text: pandoc prints the TeX source."""


@record(frozen=True)
class _Atom:
    """One expression: ``kind`` is "ord"/"op"/"bin"/"rel"/"pun"/"open"/"close" (a symbol),
    "id" (variable), "num", "text", "space", "oper" (operator name), "group"; ``sub``/``sup``
    are scripts attached to it."""

    kind: str
    text: str = ""
    children: tuple[_Atom, ...] = ()
    sub: tuple[_Atom, ...] | None = None
    sup: tuple[_Atom, ...] | None = None
    large: bool = False  # limits below/above: both at once cannot be written


_TOKEN = re.compile(r"\\([A-Za-z]+)\s*|\\(.)|([0-9]+(?:\.[0-9]+)?)|(\s+)|(.)", re.S)


def _tokens(src: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(src):
        if m.group(1) is not None:
            out.append(("cmd", m.group(1)))
        elif m.group(2) is not None:
            out.append(("cmd", m.group(2)))
        elif m.group(3) is not None:
            out.append(("num", m.group(3)))
        elif m.group(4) is not None:
            out.append(("ws", m.group(4)))
        else:
            out.append(("chr", m.group(5)))
    return out


#: Nesting of groups and arguments a formula may have; deeper ones stay TeX (no recursion
#: past Python's limit on hostile input; real formulas nest a few levels).
_MAX_DEPTH = 48


class _Reader:
    def __init__(self, toks: list[tuple[str, str]]) -> None:
        self.toks = toks
        self.pos = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        while self.pos < len(self.toks) and self.toks[self.pos][0] == "ws":
            self.pos += 1
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def expressions(self, style: str = "", *, until: str = "") -> tuple[_Atom, ...]:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _UnsupportedError
        try:
            return self._expressions(style, until)
        finally:
            self.depth -= 1

    def _expressions(self, style: str, until: str) -> tuple[_Atom, ...]:
        out: list[_Atom] = []
        while (t := self.peek()) is not None:
            if t == ("chr", "}") or (until and t == ("cmd", until)):
                break
            if t in (("chr", "^"), ("chr", "_")):
                self.pos += 1
                self.script(out, t[1], style)
                continue
            if t == ("chr", "'"):
                n = 0
                while self.pos < len(self.toks) and self.toks[self.pos] == ("chr", "'"):
                    self.pos += 1
                    n += 1
                self.attach(out, "^", (_Atom("ord", "′″‴⁗"[min(n, 4) - 1]),))
                continue
            out.extend(self.atom(style))
        return tuple(out)

    def attach(self, out: list[_Atom], which: str, script: tuple[_Atom, ...]) -> None:
        base = out.pop() if out else _Atom("group")
        if base.kind == "space":
            out.append(base)
            base = _Atom("group")
        if (base.sub if which == "_" else base.sup) is not None:
            raise _UnsupportedError  # double subscript
        if which == "_":
            base = _Atom(base.kind, base.text, base.children, script, base.sup, base.large)
        else:
            base = _Atom(base.kind, base.text, base.children, base.sub, script, base.large)
        if base.large and base.sub is not None and base.sup is not None:
            raise _UnsupportedError
        out.append(base)

    def script(self, out: list[_Atom], which: str, style: str) -> None:
        arg = self.argument(style)
        self.attach(out, which, arg)

    def argument(self, style: str) -> tuple[_Atom, ...]:
        t = self.peek()
        if t is None:
            raise _UnsupportedError
        if t == ("chr", "{"):
            self.pos += 1
            inner = self.expressions(style)
            if self.peek() != ("chr", "}"):
                raise _UnsupportedError
            self.pos += 1
            return inner
        if t[0] == "num":
            # a bare digit argument is one digit (``x^23`` is x² then 3): the rest of the
            # number stays in place as the next token
            if len(t[1]) > 1:
                self.toks[self.pos] = ("num", t[1][1:])
            else:
                self.pos += 1
            return (_Atom("num", t[1][0]),)
        return tuple(self.atom(style))

    def raw_group(self) -> str:
        """The text of a ``{…}`` argument, braces inside kept."""
        if self.peek() != ("chr", "{"):
            raise _UnsupportedError
        self.pos += 1
        depth = 0
        parts: list[str] = []
        while self.pos < len(self.toks):
            kind, text = self.toks[self.pos]
            self.pos += 1
            if (kind, text) == ("chr", "{"):
                depth += 1
            elif (kind, text) == ("chr", "}"):
                if depth == 0:
                    return "".join(parts)
                depth -= 1
            parts.append("\\" + text if kind == "cmd" else text)
        raise _UnsupportedError

    def atom(self, style: str) -> list[_Atom]:
        self.depth += 1  # an argument may be an atom with an argument (``\hat\hat x``)
        if self.depth > _MAX_DEPTH:
            raise _UnsupportedError
        try:
            return self._atom(style)
        finally:
            self.depth -= 1

    def _atom(self, style: str) -> list[_Atom]:
        t = self.peek()
        assert t is not None
        kind, text = t
        self.pos += 1
        if kind == "num":
            return [_Atom("num", _style_text(text, style))]
        if kind == "chr":
            if text == "{":
                inner = self.expressions(style)
                if self.peek() != ("chr", "}"):
                    raise _UnsupportedError
                self.pos += 1
                return [_Atom("group", children=inner)]
            if text.isalpha():
                return [_Atom("id", _style_text(text, style))]
            if text == "~":
                return [_Atom("space", "\u00a0")]
            if text in "&#%$\\":
                raise _UnsupportedError
            cls = _CHAR_CLASS.get(text, "ord")
            return [_Atom(cls, _CHAR_TEXT.get(text, text))]
        return self.command(text, style)

    def command(self, name: str, style: str) -> list[_Atom]:
        if name in _GREEK:
            return [_Atom("id", _GREEK[name])]
        if name in _SYMBOLS:
            text, cls = _SYMBOLS[name]
            return [_Atom(cls, text)]
        if name in _SPACES:
            return [_Atom("space", _SPACES[name])]
        if name in _LARGE_OPS:
            return [_Atom("op", _LARGE_OPS[name], large=True)]
        if name in _OPERATORS or name in _LIMIT_OPERATORS:
            return [_Atom("oper", name, large=name in _LIMIT_OPERATORS)]
        if name in _IGNORED:
            return []
        if name in _STYLES:
            inner_style = _STYLES[name]
            arg = self.argument(inner_style)
            if inner_style == "bold":
                return [_Atom("bold", children=arg)]
            return [_Atom("group", children=arg)]
        if name in _TEXT_CMDS:
            text = self.text_argument()
            if _TEXT_CMDS[name] == "operator":
                return [_Atom("oper", text)]
            return [_Atom("bold" if _TEXT_CMDS[name] == "bold" else "group",
                          children=(_Atom("text", text),))]  # fmt: skip
        if name in _ACCENTS:
            arg = self.argument(style)
            base = arg[0] if len(arg) == 1 else None
            while base is not None and base.kind == "group" and len(base.children) == 1:
                base = base.children[0]
            if base is None or base.kind != "id" or len(base.text) != 1:
                raise _UnsupportedError
            if base.sub is not None or base.sup is not None:
                raise _UnsupportedError
            # texmath appends the combining mark without composing (e + U+0301, not é)
            return [_Atom("id", base.text + _ACCENTS[name])]
        raise _UnsupportedError

    def text_argument(self) -> str:
        raw = self.raw_group()
        if "\\" in raw or "$" in raw:
            raise _UnsupportedError
        return raw.replace("{", "").replace("}", "")


def _style_text(text: str, style: str) -> str:
    if style in _ALPHA_BASE:
        return "".join(_styled_char(c, style) for c in text)
    return text


# --------------------------------------------------------------------------------------------
# Writing: atoms → inline pieces (texmath's Pandoc writer)
# --------------------------------------------------------------------------------------------

_OPERAND = frozenset({"id", "num", "ord", "close", "group", "oper", "text", "bold"})


def _write(atoms: tuple[_Atom, ...], out: list[ir.Inline]) -> None:
    n = len(atoms)
    for i, a in enumerate(atoms):
        kind = a.kind
        last = i == n - 1
        if kind == "bin":
            # a binary operator with nothing on its left (or at the end) is a prefix: no spaces
            prev = atoms[i - 1].kind if i else ""
            if prev in _OPERAND and not last:
                kind = "binary"
        if kind in ("rel",) and last:
            kind = "ord"
        if n == 1 and kind in ("rel", "bin"):
            kind = "ord"
        body: list[ir.Inline] = []
        if a.kind in ("group", "bold"):
            _write(a.children, body)
            if a.kind == "bold" and body:
                body = [ir.Styled("strong", tuple(body))]
        else:
            body.append(ir.Text(a.text))
        if kind == "binary":
            out.append(ir.Text("\u2005"))
        elif kind == "rel":
            out.append(ir.Text("\u2004"))
        out.extend(body)
        if a.sub is not None:
            sub: list[ir.Inline] = []
            _write(a.sub, sub)
            out.append(ir.Styled("sub", tuple(sub)))
        if a.sup is not None:
            sup: list[ir.Inline] = []
            _write(a.sup, sup)
            out.append(ir.Styled("sup", tuple(sup)))
        if kind == "binary":
            out.append(ir.Text("\u2005"))
        elif kind == "rel":
            out.append(ir.Text("\u2004"))
        elif kind == "pun" or (a.kind == "oper" and a.sub is None and a.sup is None):
            out.append(ir.Text("\u2006"))


def _merge_text(nodes: list[ir.Inline]) -> ir.Inlines:
    """Adjacent texts joined (collected first: joining one by one is quadratic)."""
    out: list[ir.Inline] = []
    run: list[str] = []
    for n in nodes:
        if isinstance(n, ir.Text):
            run.append(n.text)
            continue
        if run:
            out.append(ir.Text("".join(run)))
            run = []
        if isinstance(n, ir.Styled):
            out.append(ir.Styled(n.kind, _merge_text(list(n.children))))
        else:
            out.append(n)
    if run and "".join(run):
        out.append(ir.Text("".join(run)))
    return tuple(o for o in out if not (isinstance(o, ir.Text) and not o.text))


def convert(tex: str) -> ir.Inlines | None:
    """TeX math (without delimiters) → inlines as pandoc writes them, or ``None`` where pandoc
    keeps the TeX source."""
    reader = _Reader(_tokens(tex))
    try:
        atoms = reader.expressions()
        if reader.peek() is not None:
            raise _UnsupportedError  # an unmatched "}"
    except _UnsupportedError:
        return None
    out: list[ir.Inline] = []
    _write(atoms, out)
    return _merge_text(out)


def math_to_inlines(tex: str, display: bool) -> ir.Inlines:
    """Math as pandoc's plain output shows it: converted text, else its ``$…$`` source.

    The result is one ``Span("math")`` whose ``key`` is the source with its dollars: case
    changes pass over it without counting it as a word (pandoc's case transforms see only its
    ``Str`` pieces, and math has none), and CSL-JSON writes the source, as pandoc does.
    """
    delim = "$$" if display else "$"
    source = f"{delim}{tex}{delim}"
    converted = convert(tex)
    return (ir.Span("math", converted if converted is not None else (ir.Text(source),), source),)
