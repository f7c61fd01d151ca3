"""The ``:filter:`` option of the bibliography directive: a small, safe expression language.

Where it sits: the directive compiles the expression (:func:`compile_filter`) once, reporting a
bad one at its line; ``sphinx_refbook.book`` compiles it again once per build and evaluates it
per entry when it decides what each list holds. The language is sphinxcontrib-bibtex's:
names (``key``, ``type``, ``cited``, ``docname``, ``docnames``, ``cited_docnames`` and any
field such as ``author`` or ``year``), string literals, ``and``/``or``/``not``, ``==``, ``!=``,
``<``, ``>``, ``in``, ``not in``, set literals with ``|`` and ``&`` and ``%`` (regular-expression
search, ignoring case). Nothing else is
accepted, so a filter can never run code.

Both the page and the ``.bib`` may come from a contributor, so ``%`` is also kept from running
long: its right side is a string literal, compiled once; the expression is refused when it
nests one repeat inside another (``(a+)+``), repeats a choice (``(a|b)*``) or holds more than
one unbounded repeat (``a.*b.*c``) — the patterns whose backtracking grows faster than the
square of the text — and it searches the first :data:`MAX_SEARCHED` characters of a value.
"""

from __future__ import annotations

import ast
import importlib
import re
from typing import Any

from refbook.records import record

# the parser of the re module (private, but stable since 3.11) and its opcodes
_sre_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")
_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT)

#: characters of a value that ``%`` searches (a quadratic pattern stays cheap on them)
MAX_SEARCHED = 1_000
#: longest filter and longest regular expression accepted
MAX_FILTER = 2_000
MAX_PATTERN = 200
#: ways a pattern may try to match from one position (see :func:`_costly`)
_MAX_WAYS = 8 * MAX_SEARCHED


class FilterError(ValueError):
    """The filter uses something outside the language, or a regular expression that is
    invalid or too costly to match."""


@record(frozen=True)
class Filter:
    """A checked filter: its syntax tree and the compiled pattern of each ``%``."""

    text: str
    tree: ast.Expression
    patterns: dict[str, re.Pattern[str]]


def parse_filter(text: str) -> ast.Expression:
    """The syntax tree of ``text`` (only the filter language's nodes), or :class:`FilterError`."""
    return compile_filter(text).tree


def compile_filter(text: str) -> Filter:
    """Check ``text`` and compile its regular expressions, or raise :class:`FilterError`."""
    source = text.strip()
    if len(source) > MAX_FILTER:
        msg = f"invalid filter {_short(text)}: longer than {MAX_FILTER} characters"
        raise FilterError(msg)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as err:
        msg = f"invalid filter {text!r}: {err.msg}"
        raise FilterError(msg) from err
    except (RecursionError, MemoryError) as err:  # nested too deeply for Python's parser
        msg = f"invalid filter {_short(text)}: nested too deeply"
        raise FilterError(msg) from err
    except ValueError as err:  # an integer literal of more digits than int() takes
        msg = f"invalid filter {_short(text)}: {err}"
        raise FilterError(msg) from err
    patterns: dict[str, re.Pattern[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            msg = f"invalid filter {text!r}: {type(node).__name__} is not allowed"
            raise FilterError(msg)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            right = node.right
            if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
                msg = (f"invalid filter {text!r}: the right side of % must be a string "
                       "(the regular expression)")
                raise FilterError(msg)
            patterns[right.value] = _compile_pattern(right.value, text)
    return Filter(text, tree, patterns)


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _compile_pattern(pattern: str, text: str) -> re.Pattern[str]:
    if len(pattern) > MAX_PATTERN:
        msg = (f"invalid filter {_short(text)}: its regular expression is longer than "
               f"{MAX_PATTERN} characters")
        raise FilterError(msg)
    try:
        # case-insensitive, as sphinxcontrib-bibtex searches
        compiled = re.compile(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError) as err:
        msg = f"invalid filter {text!r}: {pattern!r} is not a regular expression ({err})"
        raise FilterError(msg) from err
    problem = _costly(_sre_parser.parse(pattern))
    if problem:
        msg = (f"invalid filter {text!r}: the regular expression {pattern!r} {problem}, which "
               "can take very long to match; write it without")
        raise FilterError(msg)
    return compiled


def _costly(parsed: Any) -> str:
    """Why a parsed pattern may backtrack too long on :data:`MAX_SEARCHED` characters, or ''.

    A repeat inside a repeat, or a choice inside one, is refused outright (exponential). Else
    each repeat with a range of lengths and each choice multiplies the ways a match can be
    tried from one position; their product is kept under :data:`_MAX_WAYS`, which admits one
    unbounded repeat (``^Deep.*Learning``) with a few optional parts, but not two.
    """
    ways = 1
    stack: list[tuple[Any, bool]] = [(parsed, False)]  # (items, inside a repeat)
    while stack:
        items, in_repeat = stack.pop()
        for op, av in items:
            if op in _REPEATS:
                low, high, body = av
                if high > 1 and in_repeat:
                    return "repeats a repeated part (as in (a+)+)"
                ways *= min(high, MAX_SEARCHED) - low + 1
                stack.append((body, in_repeat or high > 1))
            elif op is _sre.BRANCH or op is _sre.GROUPREF_EXISTS:
                parts = av[1] if op is _sre.BRANCH else [p for p in av[1:] if p is not None]
                if in_repeat:
                    return "repeats a choice (as in (a|b)*)"
                ways *= len(parts)
                stack.extend((part, in_repeat) for part in parts)
            elif op is _sre.SUBPATTERN:
                stack.append((av[3], in_repeat))
            elif op is _sre.ATOMIC_GROUP:
                stack.append((av, in_repeat))
            elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
                stack.append((av[1], in_repeat))
            if ways > _MAX_WAYS:
                return "can match in too many ways (as in a.*b.*c)"
    return ""


_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare,
            ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.In, ast.NotIn, ast.BinOp,
            ast.Mod, ast.BitOr, ast.BitAnd, ast.Name, ast.Load, ast.Constant, ast.Set, ast.Tuple, ast.List)


def evaluate(flt: Filter, names: dict[str, Any]) -> bool:
    return bool(_eval(flt.tree.body, names, flt.patterns))


def _eval(node: ast.AST, names: dict[str, Any], patterns: dict[str, re.Pattern[str]]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, "")
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return {_eval(e, names, patterns) for e in node.elts}
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names, patterns) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        return not _eval(node.operand, names, patterns)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Mod):
        # sphinxcontrib-bibtex's set operators: {"a", "b"} | {"c"}, docnames & {"x"}
        left, right = _eval(node.left, names, patterns), _eval(node.right, names, patterns)
        if not isinstance(left, set | frozenset) or not isinstance(right, set | frozenset):
            return frozenset()
        return left | right if isinstance(node.op, ast.BitOr) else left & right
    if isinstance(node, ast.BinOp):
        pattern = patterns[node.right.value]  # type: ignore[attr-defined]  # checked: a str
        return pattern.search(str(_eval(node.left, names, patterns))[:MAX_SEARCHED]) is not None
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names, patterns)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval(comp, names, patterns)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    msg = f"{type(node).__name__} is not allowed in a filter"
    raise FilterError(msg)


def _compare(op: ast.cmpop, left: Any, right: Any) -> bool:
    if isinstance(op, ast.In | ast.NotIn):
        inside = left in right if isinstance(right, set | frozenset | str) else False
        return inside if isinstance(op, ast.In) else not inside
    if isinstance(op, ast.Eq):
        return bool(left == right)
    if isinstance(op, ast.NotEq):
        return bool(left != right)
    try:
        if isinstance(op, ast.Lt):
            return bool(left < right)
        if isinstance(op, ast.Gt):
            return bool(left > right)
        if isinstance(op, ast.LtE):
            return bool(left <= right)
        return bool(left >= right)
    except TypeError:
        return False
