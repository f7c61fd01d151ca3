"""Rules for plain values: page ranges, months, volumes, empty fields."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from refbook import latex
from refbook.diagnostics import Code
from refbook.latex import to_text
from refbook.validate.output import output_changes
from refbook.validate.report import IGNORE_FIELD, at, show

if TYPE_CHECKING:
    from collections.abc import Iterator

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry

__all__ = ["MONTHS", "SINGLE_DASH", "check_entry"]

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
# Possessive runs (*+, ++): what follows a run of spaces or digits can never be a space or a
# digit, so giving some back cannot help, and refusing to keeps a failed match linear (a run of
# digits followed by 50k non-breaking spaces was quadratic).
SINGLE_DASH = re.compile(
    r"^\s*+([A-Za-z]?\d++[A-Za-z]?)\s*+(?:-|‐|‑)\s*+([A-Za-z]?\d++[A-Za-z]?)\s*+$")
RANGE = re.compile(r"^\s*+[A-Za-z]?(\d++)[A-Za-z]?\s*+(?:--|-|–)\s*+[A-Za-z]?(\d++)[A-Za-z]?\s*+$")
VOLUME_OK = re.compile(
    r"^(?:[A-Za-z]?\d++[A-Za-z]?|[A-Z]|[IVXLCDM]++|[ivxlcdm]++|\d++\s*+(?:--?|–|/)\s*+[\dA-Za-z]++"
    r"|abs/\S++"
    # one alphanumeric token with a digit: a conference's volume (ICHEP2022), a series' (BME-34)
    r"|(?=[^\s]*\d)[A-Za-z\d]++(?:[-.][A-Za-z\d]++)*+)$")
_DASH = re.compile(r"(\d[A-Za-z]?)\s*(?:-|‐|‑)\s*([A-Za-z]?\d)")
# where a month range splits (the spaces around are stripped from the parts afterwards: a
# pattern with \s* on both sides rescans a run of spaces from each of its positions)
MONTH_RANGE = re.compile(r"--?|–|/")


def check_entry(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    """The family's rules on one entry (they look at no other entry)."""
    yield from _pages(entry, config)
    yield from _month(entry, config)
    yield from _volume(entry)
    yield from _macros(entry)
    yield from _empty(entry)


def _pages(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    f = entry.field("pages")
    if f is None:
        return
    parts = f.value.split(",")
    fixed = ",".join(_DASH.sub(r"\1--\2", p) if SINGLE_DASH.match(p) else p for p in parts)
    # CSL styles print every page range with an en dash: the hyphen then changes nothing
    # (a value far longer than any page list is garbage, reported without rendering it)
    dash_shows = fixed != f.value and (len(f.value) > 200 or output_changes(
        entry, "pages", fixed, config.style))
    for part in parts:
        m = SINGLE_DASH.match(part)
        if m and dash_shows:
            yield at(Code.PAGES_DASH, entry, f, f"pages {show(part.strip())} uses a single dash",
                     f"write {m.group(1)}--{m.group(2)} (refbook check --fix does this)")
        r = RANGE.match(part)
        if r and _number(r.group(2)) < _number(r.group(1)):
            a, b = r.group(1), r.group(2)
            if len(b) < len(a) and _number(a[: len(a) - len(b)] + b) > _number(a):
                # an abbreviated range (1139--43, as PubMed writes them) is 1139 to 1143:
                # styles that print ranges in full complete it (APA: 1139–1143), others keep
                # it as written (pandoc alike); it ends after it starts
                continue
            yield at(Code.PAGES_REVERSED, entry, f, f"pages {show(part.strip())} ends before it "
                     "starts", "check the page range; the first page comes first")


def _number(digits: str) -> tuple[int, str]:
    """A key that orders strings of decimal digits (any script) by their value, without
    int(): a page number of thousands of digits would exceed its limit."""
    ascii_digits = "".join(str(unicodedata.decimal(c)) for c in digits).lstrip("0")
    return len(ascii_digits), ascii_digits


def _month(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    f = entry.field("month")
    if f is None or not f.value.strip():
        return
    text = to_text(f.value).strip()
    low = text.lower()
    if all(_is_month(p) for p in MONTH_RANGE.split(low)):
        return  # a month or a range of months (June--August)
    low = low.rstrip(".")
    abbrev = [m for m in MONTHS if m[:3] == low[:3]] if len(low) >= 3 else []
    if len(low) == 3 and abbrev:
        if not output_changes(entry, "month", abbrev[0], config.style):
            return  # the style prints no month, or reads the braced name as the month
        yield at(Code.MONTH_BRACED, entry, f, f"month {show(text)} is a macro name in braces, "
                 f"so it is printed as {show(text)}",
                 f"write month = {low} without braces (refbook check --fix does this)")
        return
    hint = (f"write month = {abbrev[0][:3]} (the BibTeX macro for {abbrev[0].title()})" if abbrev
            else "write a BibTeX month macro (jan … dec) or a number 1-12; a day goes in date")
    yield at(Code.MONTH_INVALID, entry, f, f"month {show(text)} is not a month", hint)


def _is_month(text: str) -> bool:
    """A month name, a number 1-12, or an abbreviation written out (Sept, Jan.)."""
    text = text.strip()
    if text.isdigit():  # "²" is a digit but no number: isdecimal; "0…012" may be long: strip
        number = text.lstrip("0")
        return text.isdecimal() and len(number) <= 2 and 1 <= int(number or "0") <= 12
    word = text.rstrip(".")
    if word in MONTHS:
        return True
    long_enough = len(word) >= 4 or (len(word) == 3 and text.endswith("."))
    return long_enough and any(m.startswith(word) for m in MONTHS)


def _volume(entry: Entry) -> Iterator[Diagnostic]:
    f = entry.field("volume")
    if f is None or not f.value.strip():
        return
    text = to_text(f.value).strip()
    if not VOLUME_OK.match(text):
        yield at(Code.VOLUME_INVALID, entry, f, f"volume {show(text)} is not a volume number",
                 "keep only the number in volume (e.g. 31); put series or issue names in "
                 "series, number or note")


def _empty(entry: Entry) -> Iterator[Diagnostic]:
    for f in entry.fields:
        if f.name not in ("year", IGNORE_FIELD) and not f.value.strip():
            yield at(Code.EMPTY_FIELD, entry, f, f"{f.name} is empty",
                     f"fill in {f.name} or remove the line")


# Fields a style prints as text (names, identifiers and dates are read otherwise).
PRINTED = frozenset(("title", "subtitle", "titleaddon", "maintitle", "booktitle", "journal",
                     "journaltitle", "series", "note", "howpublished", "publisher", "institution",
                     "school", "organization", "address", "location", "edition", "eventtitle",
                     "type", "chapter", "addendum"))
# Commands written to vanish: sort tricks (\noopsort{a}) and index or label markers.
INVISIBLE = frozenset(("noopsort", "sortnoop", "SortNoop", "noop", "nocite", "hyphenation",
                       "label", "index", "relax", "protect", "ignorespaces"))
# Spacing struts of typeset sources: no text, but they leave TeX in math and braces behind.
LEFTOVER = frozenset(("vphantom", "hphantom", "phantom", "strut", "mathstrut", "smash"))
_LEFTOVER_IN_MATH = re.compile(r"\\(?:" + "|".join(sorted(LEFTOVER)) + r")\b")
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?\s*(.*)", re.DOTALL)
# the lengths pandoc reads as an unknown command's argument (refbook.latex: dimen_arg), with
# glue's plus and minus
_DIMENSIONS = re.compile(r"(?:\b(?:plus|minus)\s*)?=?-?[0-9]*\.?[0-9]+(?:"
                         + "|".join(sorted(u for u in latex.DIMEN_UNITS if u)) + r"|fil+)?\b")


def _macros(entry: Entry) -> Iterator[Diagnostic]:
    for f in entry.fields:
        if f.name not in PRINTED or "\\" not in f.value:
            continue
        nodes = latex.parse(f.value)
        if not nodes:
            continue
        gone = []
        for raw in _raws(nodes):
            m = _COMMAND.match(raw)
            if m is None or m.group(1) in INVISIBLE:
                continue
            argument = m.group(2) if m.group(1) == "char" else _DIMENSIONS.sub("", m.group(2))
            if not re.search(r"\w", argument) and m.group(1) not in LEFTOVER:
                # a switch (\\sc) leaves its text, and a length (\\kern2pt, \\hskip 1em plus
                # 1fil) is none: only an argument vanishes (\\char22 is a character)
                continue
            gone.append((m.group(1), raw.strip()))
        if gone:
            # each command shortened, and at most five of them named (a generated file may
            # hold thousands in one value)
            listing = ", ".join(show(r, 60) for _, r in gone[:5])
            if len(gone) > 5:
                listing += f" and {len(gone) - 5} more"
            name = gone[0][0]
            yield at(Code.UNDEFINED_MACRO, entry, f, f"{f.name} uses {listing}, which refbook "
                     f"does not know: {'it is' if len(gone) == 1 else 'they are'} printed as "
                     "nothing", f"write the text without the command (\\{name}{{R}} → R), "
                     "or with a command refbook knows (\\textsf, \\texttt, \\emph)")


def _raws(nodes: latex.PInlines) -> Iterator[str]:
    """The raw TeX refbook prints as nothing, and the struts left in math (printed as source)."""
    for n in nodes:
        if isinstance(n, latex.PRaw):
            yield n.text
        elif isinstance(n, latex.PMath):
            found = _LEFTOVER_IN_MATH.search(n.text)
            if found:
                yield found.group() + "{}"
        children = getattr(n, "children", None)
        if children:
            yield from _raws(children)
