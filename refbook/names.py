"""Split BibTeX name lists (``author``, ``editor`` …) into :class:`refbook.models.Person`.

Sits after the reader: validators and styles call it on a field's LaTeX source. Two splitters
live here because the two tools we follow disagree on edge cases:

* :func:`parse_names` follows BibTeX itself (``and`` at brace depth 0 in any case; "First von
  Last", "von Last, First", "von Last, Jr, First"; von words are the lower-case ones, a special
  character such as ``{\\'e}`` counting by its letter). It also reports what BibTeX would
  complain about (too many commas, empty names).
* :func:`parse_names_pandoc` follows pandoc's citeproc (``refbook.bibtex_csl`` uses it so that
  the default style matches pandoc): it splits on a lower-case ``and``, takes every
  leading-capitalised run as given names, never treats a word as von in "von Last, First" when a
  capitalised word follows it, and looks at decoded words (``{\\'E}mile`` starts with a group,
  so pandoc sees the lower-case ``mile``).

Parts come back as plain Unicode (``refbook.latex`` decodes them).
"""

from __future__ import annotations

import re
from functools import lru_cache

from refbook import latex
from refbook.latex import PInline, PSpace, PSpan, PStr
from refbook.models import Person

__all__ = ["is_et_al", "parse_names", "parse_names_pandoc"]

# Control sequences BibTeX treats as letters when deciding a word's case (bibtex.web).
_SPECIAL_UPPER = frozenset({"OE", "AE", "AA", "O", "L"})
_SPECIAL_LOWER = frozenset({"oe", "ae", "aa", "o", "l", "ss", "i", "j"})


# --------------------------------------------------------------------------------------------
# BibTeX's splitting
# --------------------------------------------------------------------------------------------


_ET_AL = re.compile(r"et\.?(?:\s|~|\u00a0)*al\.?", re.IGNORECASE)


def is_et_al(name: str) -> bool:
    """Whether a name of the list is a literal "et al." (``A and B and et al.``): BibTeX prints
    it as a person, so it is read as ``others``, what its writer meant."""
    return _ET_AL.fullmatch(name.strip()) is not None


_AND_SPLIT = re.compile(r"\s[Aa][Nn][Dd](?=\s)")
_BRACE = re.compile(r"[{}]")


def _split_and(value: str) -> list[str]:
    """Split at `` and `` (any case, whitespace around it) at brace depth 0."""
    if "{" not in value and "}" not in value:
        return _AND_SPLIT.split(value)
    parts: list[str] = []
    depth = 0
    scanned = 0  # braces counted up to here
    start = 0
    for m in _AND_SPLIT.finditer(value):
        for b in _BRACE.finditer(value, scanned, m.start()):
            depth = depth + 1 if b.group() == "{" else max(depth - 1, 0)
        scanned = m.start()
        if depth == 0:
            parts.append(value[start:m.start()])
            start = m.end()
    parts.append(value[start:])
    return parts


def _tokens(name: str) -> tuple[list[list[str]], list[list[str]]]:
    """Comma-separated parts of a name, each a list of words and the separators after them."""
    if not _TOKEN_MARKUP.search(name):
        # no group, tie or hyphen: words are split by white space, parts by commas
        words = [part.split() for part in name.split(",")]
        return words, [[" "] * len(w) for w in words]
    return _tokens_scanned(name)


_TOKEN_MARKUP = re.compile(r"[{}~-]")


def _tokens_scanned(name: str) -> tuple[list[list[str]], list[list[str]]]:
    """:func:`_tokens` character by character (braces, ``~`` and hyphens)."""
    parts: list[list[str]] = [[]]
    seps: list[list[str]] = [[]]
    depth = 0
    word: list[str] = []

    def flush(sep: str) -> None:
        if word:
            parts[-1].append("".join(word))
            seps[-1].append(sep)
            word.clear()
        elif sep == "-" and parts[-1]:
            seps[-1][-1] = "-"

    for c in name:
        if c == "{":
            depth += 1
            word.append(c)
        elif c == "}":
            depth = max(depth - 1, 0)
            word.append(c)
        elif depth == 0 and c == ",":
            flush(" ")
            parts.append([])
            seps.append([])
        elif depth == 0 and c == "~" and _after_backslash(word):
            word.append(c)  # \\~ is the tilde accent (Qui\\~{n}ones), not a tie
        elif depth == 0 and (c.isspace() or c == "~"):
            flush(" ")
        elif depth == 0 and c == "-":
            flush("-")
        else:
            word.append(c)
    flush(" ")
    return parts, seps


def _after_backslash(word: list[str]) -> bool:
    """Whether the next character follows a backslash that escapes it (an odd run of them:
    ``\\~`` is a command, ``\\\\~`` a line break and a tie)."""
    k = len(word)
    while k and word[k - 1] == "\\":
        k -= 1
    return (len(word) - k) % 2 == 1


def _word_case(word: str) -> str:
    """``"lower"``, ``"upper"`` or ``""`` (caseless), by BibTeX's rules."""
    depth = 0
    i = 0
    n = len(word)
    while i < n:
        c = word[i]
        if c == "{":
            if depth == 0 and i + 1 < n and word[i + 1] == "\\":
                # special character: its case is the case of its command or first letter
                j = i + 2
                k = j
                while k < n and word[k].isalpha():
                    k += 1
                command = word[j:k]
                if command in _SPECIAL_UPPER:
                    return "upper"
                if command in _SPECIAL_LOWER:
                    return "lower"
                while k < n and word[k] != "}":
                    if word[k].isalpha():
                        return "upper" if word[k].isupper() else "lower"
                    k += 1
                return ""
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and c.isalpha():
            return "upper" if c.isupper() else "lower"
        i += 1
    return ""


def _join(words: list[str], seps: list[str]) -> str:
    out: list[str] = []
    for k, w in enumerate(words):
        out.append(w)
        if k < len(words) - 1:
            out.append(seps[k])
    return latex.to_text("".join(out))


def _is_single_group(name: str) -> bool:
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for k, c in enumerate(name):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and k != len(name) - 1:
                return False
    return True


def _person(name: str, problems: list[str]) -> Person | None:
    name = name.strip()
    if not name:
        problems.append("empty name in the list")
        return None
    if name == "others" or is_et_al(name):
        return Person(others=True)
    if _is_single_group(name):
        return Person(literal=latex.to_text(name[1:-1]))
    parts, seps = _tokens(name)
    commas = len(parts) - 1
    if commas > 2:
        problems.append(f"name with {commas} commas: {name!r}")
        # BibTeX keeps going with the first three parts; the rest joins the first names
        parts = [parts[0], parts[1], [w for p in parts[2:] for w in p]]
        seps = [seps[0], seps[1], [s for p in seps[2:] for s in p]]
    if any(not p for p in parts):
        problems.append(f"name with an empty part: {name!r}")
    first: tuple[list[str], list[str]] = ([], [])
    von: tuple[list[str], list[str]] = ([], [])
    last: tuple[list[str], list[str]] = ([], [])
    jr: tuple[list[str], list[str]] = ([], [])
    if len(parts) == 1:
        words, sep = parts[0], seps[0]
        if not words:
            problems.append("empty name in the list")
            return None
        cases = [_word_case(w) for w in words]
        # von starts at the first lower-case word that is not the last word
        start = next((k for k in range(len(words) - 1) if cases[k] == "lower"), None)
        if start is None:
            first = (words[:-1], sep[:-1])
            last = (words[-1:], sep[-1:])
        else:
            end = max(k for k in range(start, len(words) - 1) if cases[k] == "lower")
            first = (words[:start], sep[:start])
            von = (words[start : end + 1], sep[start : end + 1])
            last = (words[end + 1 :], sep[end + 1 :])
    else:
        words, sep = parts[0], seps[0]
        if len(parts) == 3:
            jr = (parts[1], seps[1])
        first = (parts[-1], seps[-1])
        cases = [_word_case(w) for w in words]
        lower = [k for k in range(len(words) - 1) if cases[k] == "lower"]
        if lower:
            end = lower[-1]
            von = (words[: end + 1], sep[: end + 1])
            last = (words[end + 1 :], sep[end + 1 :])
        else:
            last = (words, sep)
    person = Person(
        first=_join(*first),
        von=_join(*von),
        last=_join(*last),
        jr=_join(*jr),
    )
    if not (person.first or person.von or person.last or person.jr):
        problems.append("empty name in the list")
        return None
    return person


@lru_cache(maxsize=65536)
def parse_names(value: str) -> tuple[tuple[Person, ...], tuple[str, ...]]:
    """Split a BibTeX name list the way BibTeX does.

    Returns the persons and problem messages (``"name with 3 commas: …"``, ``"empty name in
    the list"``). ``and others`` gives ``Person(others=True)``; a name that is one brace group
    gives ``Person(literal=…)``.
    """
    problems: list[str] = []
    persons: list[Person] = []
    if not value.strip():
        return (), ()
    for part in _split_and(value):
        p = _person(part, problems)
        if p is not None:
            persons.append(p)
    return tuple(persons), tuple(problems)


# --------------------------------------------------------------------------------------------
# pandoc's splitting (Text.Pandoc.Citeproc.Name)
# --------------------------------------------------------------------------------------------


def _split_str_when(nodes: list[PInline], chars: str) -> list[PInline]:
    """Give each of ``chars`` its own word node (pandoc's ``splitStrWhen``)."""
    out: list[PInline] = []
    for n in nodes:
        if not isinstance(n, PStr) or not any(c in n.text for c in chars):
            out.append(n)
            continue
        buf = ""
        for c in n.text:
            if c in chars:
                if buf:
                    out.append(PStr(buf))
                    buf = ""
                out.append(PStr(c))
            else:
                buf += c
        if buf:
            out.append(PStr(buf))
    return out


def _split_on(nodes: list[PInline], is_sep: object) -> list[list[PInline]]:
    out: list[list[PInline]] = [[]]
    for n in nodes:
        if n == is_sep:
            out.append([])
        else:
            out[-1].append(n)
    return out


def split_by_and(nodes: tuple[PInline, ...]) -> list[list[PInline]]:
    """Split pandoc-shaped nodes at a word ``and`` between spaces (names, literal lists).

    In any letter case, as BibTeX splits (``AND`` in capitals is a separator there, and pandoc
    alone would read the whole list as one garbled name)."""
    parts: list[list[PInline]] = [[]]
    k = 0
    n = len(nodes)
    while k < n:
        if (
            k + 2 < n
            and isinstance(nodes[k], PSpace)
            and isinstance(nodes[k + 1], PStr)
            and nodes[k + 1].text.lower() == "and"  # type: ignore[union-attr]
            and isinstance(nodes[k + 2], PSpace)
        ):
            parts.append([])
            k += 3
            continue
        parts[-1].append(nodes[k])
        k += 1
    return parts


def _add_space_after_period(nodes: list[PInline]) -> list[PInline]:
    """ "J.G. Smith" reads like "J. G. Smith"."""
    xs = _split_str_when(nodes, ".")
    out: list[PInline] = []
    k = 0
    while k < len(xs):
        x = xs[k]
        if (
            k + 2 < len(xs)
            and isinstance(x, PStr)
            and len(x.text) == 1
            and x.text.isalpha()
            and x.text.isupper()
            and xs[k + 1] == PStr(".")
            and isinstance(xs[k + 2], PStr)
        ):
            d = xs[k + 2]
            assert isinstance(d, PStr)
            if len(d.text) == 1 and d.text.isalpha() and d.text.isupper():
                out.extend((x, PStr("."), latex.SPACE))
                k += 2
                continue
        out.append(x)
        k += 1
    return out


def _is_capitalized(word: list[PInline]) -> bool:
    for n in word:
        if isinstance(n, PStr) and n.text:
            text = n.text
            i = 0  # an index, not text[1:] per digit: that copies a long number once per digit
            while i < len(text) and text[i].isdigit():
                i += 1
            if i == len(text):
                continue
            return text[i].isupper()
    return True


def _words(nodes: list[PInline]) -> list[list[PInline]]:
    words: list[list[PInline]] = []
    cur: list[PInline] = []
    for n in nodes:
        if isinstance(n, PSpace) or n == PStr("\u00a0"):
            if cur:
                words.append(cur)
            cur = []
        else:
            cur.append(n)
    if cur:
        words.append(cur)
    return words


def _unwords(words: list[list[PInline]]) -> str:
    return " ".join(latex.stringify(w) for w in words)


def _pandoc_person(nodes: list[PInline], *, useprefix: bool) -> Person | None:
    if nodes == [PStr("others")] or is_et_al(latex.stringify(nodes)):
        return Person(others=True)
    if len(nodes) == 1 and isinstance(nodes[0], PSpan) and nodes[0].cls == "":
        literal = latex.stringify(nodes[0].children)
        return Person(literal=literal) if literal else None
    if nodes and isinstance(nodes[0], PStr) and "=" in nodes[0].text:
        return _extended_person(nodes)
    parts = [_words(p) for p in _split_on(_split_str_when(nodes, ",\u00a0"), PStr(","))]
    first: list[list[PInline]]
    vonlast: list[list[PInline]]
    jr: list[list[PInline]] = []
    if len(parts) == 1:
        fvl = parts[0]
        k = 0
        while k < len(fvl) and _is_capitalized(fvl[k]):
            k += 1
        caps, rest = fvl[:k], fvl[k:]
        if not rest and caps:
            first, vonlast = caps[:-1], caps[-1:]
        else:
            first, vonlast = caps, rest
    elif len(parts) == 2:
        vonlast, first = parts
    else:
        vonlast, jr, first = parts[0], parts[1], parts[2]
    k = 0
    while k < len(vonlast) and not _is_capitalized(vonlast[k]):
        k += 1
    von, last = vonlast[:k], vonlast[k:]
    if von and not last:
        von, last = von[:-1], von[-1:]
    person = Person(first=_unwords(first), von=_unwords(von), last=_unwords(last), jr=_unwords(jr))
    if not (person.first or person.von or person.last or person.jr):
        return None
    del useprefix  # where the particle goes is decided by the caller (biblatex's useprefix)
    return person


def _extended_person(nodes: list[PInline]) -> Person | None:
    """biblatex's ``family=…, given=…, prefix=…, suffix=…`` name format."""
    given: list[str] = []
    family = von = suffix = ""
    for part in _split_on(_split_str_when(nodes, ",=\u00a0"), PStr(",")):
        while part and isinstance(part[0], PSpace):
            part = part[1:]
        if len(part) < 2 or part[1] != PStr("=") or not isinstance(part[0], PStr):
            continue
        key, rest = part[0].text, part[2:]
        text = latex.stringify(rest)
        if key == "given":
            given.append(text)
        elif key == "family":
            family = text
        elif key == "prefix":
            von = text
        elif key == "suffix":
            suffix = text
    person = Person(first=" ".join(given), von=von, last=family, jr=suffix)
    return person if (person.first or person.von or person.last or person.jr) else None


@lru_cache(maxsize=16384)
def parse_names_pandoc(value: str) -> tuple[tuple[Person, ...], tuple[str, ...]]:
    """Split a name list the way pandoc's citeproc does (see the module docstring).

    A list pandoc cannot read at all gives no persons and one problem message.
    """
    nodes = latex.parse(value.strip())
    if nodes is None:
        return (), ("the name list cannot be read as LaTeX",)
    persons: list[Person] = []
    for part in split_by_and(nodes):
        p = _pandoc_person(_add_space_after_period(part), useprefix=False)
        if p is not None:
            persons.append(p)
    return tuple(persons), ()
