"""The ``:filter:`` option of the bibliography directive: a small, safe expression language.

Where it sits: the directive stores the expression text; ``sphinx_refbook.book`` evaluates it
per entry when it decides what each list holds. The language is sphinxcontrib-bibtex's:
names (``key``, ``type``, ``cited``, ``docname``, ``docnames``, ``cited_docnames`` and any
field such as ``author`` or ``year``), string literals, ``and``/``or``/``not``, ``==``, ``!=``,
``<``, ``>``, ``in``, ``not in`` and ``%`` (regular-expression search). Nothing else is
accepted, so a filter can never run code.
"""

from __future__ import annotations

import ast
import re
from typing import Any


class FilterError(ValueError):
    """The filter uses something outside the language."""


def parse_filter(text: str) -> ast.Expression:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        msg = f"invalid filter {text!r}: {err.msg}"
        raise FilterError(msg) from err
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            msg = f"invalid filter {text!r}: {type(node).__name__} is not allowed"
            raise FilterError(msg)
    return tree


_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Compare,
            ast.Eq, ast.NotEq, ast.Lt, ast.Gt, ast.LtE, ast.GtE, ast.In, ast.NotIn, ast.BinOp,
            ast.Mod, ast.Name, ast.Load, ast.Constant, ast.Set, ast.Tuple, ast.List)


def evaluate(tree: ast.Expression, names: dict[str, Any]) -> bool:
    return bool(_eval(tree.body, names))


def _eval(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id, "")
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return {_eval(e, names) for e in node.elts}
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        return not _eval(node.operand, names)
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, names), _eval(node.right, names)
        return re.search(str(right), str(left)) is not None
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval(comp, names)
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
