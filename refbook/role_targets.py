"""The targets of sphinxcontrib-bibtex's citation roles: ``key1,key2``, ``{pre}key{post}``.

Where it sits: beside :mod:`refbook.syntax` (Pandoc's syntax). The Sphinx roles
(``sphinx_refbook.roles``, ``sphinx_refbook.footnotes``) and ``refbook check --docs`` parse a
role's text with these functions, so both find the same keys and the same malformed roles.
"""

from __future__ import annotations

import re

from refbook.syntax import CiteRef, parse_locator

__all__ = ["parse_foot_keys", "parse_targets"]

# Possessive runs (*+, ++): every part after a run can never match what the run gave back, so
# a failed match ends at once (two \s* around an optional group split a run of spaces before
# a stray "{" in every way: 20k spaces took 4 s).
_TARGET = re.compile(r"\s*+(?:\{(?P<pre>[^{}]*+)\})?\s*+(?P<key>[^{}\s,]++)\s*+"
                     r"(?:\{(?P<post>[^{}]*+)\})?\s*+")


def parse_targets(text: str) -> tuple[CiteRef, ...]:
    """``{see}a{p. 3}, b`` → refs; raises ValueError on a malformed list."""
    refs: list[CiteRef] = []
    pos = 0
    while True:
        m = _TARGET.match(text, pos)
        if m is None or not m.group("key"):
            msg = f"malformed citation target list {text!r}"
            raise ValueError(msg)
        refs.append(_ref(m.group("key"), m.group("pre") or "", m.group("post") or ""))
        pos = m.end()
        if pos >= len(text):
            return tuple(refs)
        if text[pos] != ",":
            msg = f"malformed citation target list {text!r} (expected ',' at {text[pos:]!r})"
            raise ValueError(msg)
        pos += 1


def _ref(key: str, pre: str, post: str) -> CiteRef:
    label, locator, rest = parse_locator(", " + post.strip()) if post.strip() else ("", "", "")
    if not locator and post.strip():
        rest = ", " + post.strip()
    return CiteRef(key=key, prefix=pre.strip(), suffix=rest.rstrip(), locator=locator, label=label)


def parse_foot_keys(text: str) -> tuple[list[str], str]:
    """A ``:footcite:`` role's keys, and the problem of a list with an empty key ('' if none)."""
    keys = [k.strip() for k in text.split(",")]
    problem = f"malformed footnote citation {text!r}: a key is empty" if not all(keys) else ""
    return [k for k in keys if k], problem
