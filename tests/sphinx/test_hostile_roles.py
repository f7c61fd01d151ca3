"""Citation roles on hostile targets: parsing a target list is linear (a run of spaces before
a stray "{" made the target pattern split the run in every way)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refbook.syntax import CiteRef
from sphinx_refbook.roles import parse_targets
from tests.growth import LIMIT, doubling_ratio

if TYPE_CHECKING:
    from collections.abc import Callable

HOSTILE: dict[str, Callable[[int], str]] = {
    "spaces then a brace": lambda n: " " * n + "{",
    "key, spaces, brace": lambda n: "a" + " " * n + "{x",
    "open prefix": lambda n: "{" + " " * n,
    "many keys": lambda n: "a," * (n // 2) + "{",
}


def _parse(text: str) -> None:
    with pytest.raises(ValueError, match="malformed citation target list"):
        parse_targets(text)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_target_lists_parse_in_linear_time(name: str) -> None:
    make = HOSTILE[name]
    ratio = doubling_ratio(lambda n, _attempt: make(n), _parse, 2_000)
    assert ratio <= LIMIT, (name, ratio)


def test_target_lists_still_parse() -> None:
    assert parse_targets("  {see}a{p. 3} , b ") == (
        CiteRef("a", prefix="see", locator="3", label="page"), CiteRef("b"))
