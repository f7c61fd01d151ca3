"""Rules for titles: case protection, lowercased acronyms, media in brackets, quotes, spaces.

Case protection is reported only when the configured style would print the title differently
with the braces (``refbook.validate.output``): styles that title-case titles, as the default
does, keep an acronym as written.

A title's words are read from its LaTeX source at brace depth 0: a word inside ``{…}`` is
protected from the case changes of sentence-case styles (APA, BibTeX's own styles), a word
outside is not.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from refbook.diagnostics import Code
from refbook.validate.output import output_changes, printed
from refbook.validate.report import at, show

if TYPE_CHECKING:
    from collections.abc import Iterator

    from refbook.config import Config
    from refbook.diagnostics import Diagnostic
    from refbook.models import Entry, Field

__all__ = ["check_entry", "unprotected_words"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())

# Only titles: sentence-case styles leave container titles (booktitle, journal) as written.
TITLE_FIELDS = ("title", "subtitle", "maintitle")
LOST = {w.lower(): w for w in _words("""
LLM LLMs GPU GPUs CPU CPUs TPU TPUs HPC AI API APIs DNN DNNs CNN CNNs RNN RNNs NLP RLHF NVIDIA
MPI SQL JSON HTTP BERT GPT LoRA QLoRA MoE FP8 FP16 FP32 INT8 INT4 BF16 TensorRT CUDA SIMD SSD SSDs
DRAM HBM MLPerf HDFS POSIX PyTorch TensorFlow DeepSpeed vLLM RL ML IoT
""")}
# A bracketed medium, as Google Scholar, Zotero's APA export and citation generators append it.
MEDIUM = re.compile(
    r"\[((?:[^\]]{0,30}\b)?(?:dataset|data set|online|video|software|computer program|podcast|"
    r"notebook|colab|slides|blog(?: post)?|tweet|web ?page|website|preprint|pdf|poster|audio|film|"
    r"source code|code|repository|internet|electronic resource|lecture|interview|presentation|"
    r"white ?paper|technical report)\b[^\]]{0,30})\]", re.IGNORECASE)


def unprotected_words(value: str) -> list[tuple[int, int]]:
    """Spans of the words of ``value`` written at brace depth 0, skipping LaTeX commands."""
    spans: list[tuple[int, int]] = []
    depth = 0
    i = 0
    start = -1
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\":
            if start >= 0 and depth == 0:
                spans.append((start, i))
                start = -1
            j = i + 1
            while j < n and value[j].isalpha():
                j += 1
            i = max(j, i + 2)
            continue
        if c == "{":
            if start >= 0 and depth == 0:
                spans.append((start, i))
                start = -1
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and not c.isspace():
            if start < 0:
                start = i
        elif start >= 0:
            spans.append((start, i))
            start = -1
        i += 1
    if start >= 0 and depth == 0:
        spans.append((start, n))
    return spans


def _core(word: str) -> tuple[int, int]:
    """Offsets of a word without surrounding punctuation."""
    a, b = 0, len(word)
    while a < b and not word[a].isalnum():
        a += 1
    while b > a and not (word[b - 1].isalnum() or word[b - 1] in "+"):
        b -= 1
    return a, b


def check_entry(entry: Entry, config: Config) -> Iterator[Diagnostic]:
    """The family's rules on one entry (they look at no other entry)."""
    for f in entry.fields:
        if f.name in TITLE_FIELDS and f.value.strip():
            yield from _case(entry, f, config)
            if f.name == "title":
                yield from _medium(entry, f)
            yield from _quotes_spaces(entry, f)


_INNER_CAPITAL = re.compile(r"\S[A-Z]")
_LOWER_WORD = re.compile(r"[a-z0-9]+")
#: a straight double quote not escaped (\")
_STRAIGHT_QUOTE = re.compile(r'(?<!\\)"')


def _case(entry: Entry, f: Field, config: Config) -> Iterator[Diagnostic]:
    value = f.value
    if not any(w in LOST for w in _LOWER_WORD.findall(value)) and (
            not printed() or (value.isascii() and not _INNER_CAPITAL.search(value))):
        # no known lowercased acronym (every word of LOST is a run of [a-z0-9]), and no
        # capital after a word's first letter — or an entry the book does not print, whose
        # capitals the style changes nowhere the book shows (output_changes: False)
        return
    caps: list[tuple[int, int, str]] = []
    lost: list[tuple[int, int, str]] = []
    for s, e in unprotected_words(value):
        word = value[s:e]
        tool_name = "-" in word and word == word.lower()  # nvidia-smi: a command, as written
        for piece in re.finditer(r"[^\s\-‐‑–—:;,.!?()~\"'`]+(?:/[^\s\-‐‑–—:;,.!?()~\"'`]+)*", word):
            a, b = _core(piece.group())
            core = piece.group()[a:b]
            if not core:
                continue
            start = s + piece.start() + a
            parts = core.split("/")
            if any(any(ch.isupper() for ch in p[1:]) for p in parts) or (
                    len(parts) > 1 and all(len(p) <= 2 for p in parts)
                    and sum(ch.isupper() for ch in core) >= 2):
                caps.append((start, start + len(core), core))
            elif core in LOST and not tool_name:
                lost.append((start, start + len(core), LOST[core]))
    # Each hint shows the whole fix, so that applying either one leaves nothing to report.
    if caps and not output_changes(entry, f.name, _brace(value, caps), config.style):
        caps = []  # the style keeps these words as written (title case, or no case change)
    elif len(caps) > 1:  # only the words whose braces change what the style prints
        caps = [c for c in caps if output_changes(entry, f.name, _brace(value, [c]), config.style)]
    fixed = _brace(value, [(a, b, value[a:b]) for a, b, _ in caps] + lost)
    if caps:
        listing = ", ".join(repr(w) for _, _, w in caps)
        yield at(Code.TITLE_CASE, entry, f, f"{f.name} has {len(caps)} unprotected "
                 f"word{'s' if len(caps) > 1 else ''} that the style changes: "
                 f"{listing}", f"brace them: {f.name} = {{{fixed}}}")
    if lost:
        listing = ", ".join(f"{value[a:b]!r} (probably {w})" for a, b, w in lost)
        yield at(Code.TITLE_LOST_CASE, entry, f, f"{f.name} {show(value)} was lowercased by an "
                 f"exporter: {listing}", f"restore and brace them: {f.name} = {{{fixed}}}")


def _brace(value: str, spans: list[tuple[int, int, str]]) -> str:
    # one join, not a new copy of the whole title per braced word
    out: list[str] = []
    last = 0
    for a, b, word in sorted(spans):
        out += [value[last:a], "{", word, "}"]
        last = b
    out.append(value[last:])
    return "".join(out)


def _medium(entry: Entry, f: Field) -> Iterator[Diagnostic]:
    m = MEDIUM.search(f.value)
    if m:
        rest = (f.value[: m.start()] + f.value[m.end():]).strip()
        rest = re.sub(r"\s{2,}", " ", rest)
        yield at(Code.TITLE_MEDIUM, entry, f, f"title {show(f.value)} holds the medium "
                 f"{m.group(0)!r}", f"write title = {{{rest}}} and howpublished = "
                 f"{{{m.group(1)}}} (BibLaTeX: type = {{{m.group(1).lower()}}})")


def _quotes_spaces(entry: Entry, f: Field) -> Iterator[Diagnostic]:
    value = f.value
    if _STRAIGHT_QUOTE.search(value):
        fixed = re.sub(r'(?<![\\\w])"(.*?)(?<!\\)"', r"``\1''", value)
        yield at(Code.TITLE_QUOTES, entry, f, f"{f.name} {show(value)} uses straight double quotes",
                 f"write {f.name} = {{{fixed}}}")
    loose = _loose_ties(value)
    if loose:
        fixed = "".join(" " if i in loose else c for i, c in enumerate(value))
        yield at(Code.TITLE_NBSP, entry, f, f"{f.name} {show(value)} has a non-breaking space",
                 f"use a normal space: {f.name} = {{{fixed}}}")


_TIE = re.compile(r"(?<!\\)~|\u00a0")
# A tie that keeps a number, a numeral or a label with the word before it is typesetting
# practice (Algorithms~{II}, Part~2, Fig.~3): only ties between plain words are pasted ones.
_TIED_LABEL = re.compile(r"[{(\[]*+(?:\d|[IVXLCDM]++\b|[A-Z]\b|\\[A-Za-z])")
_MATH = re.compile(r"\$[^$]*+\$|\\\(.*?\\\)|\\(?:text|mathrm|mbox|ensuremath)\{[^{}]*+\}")


def _loose_ties(value: str) -> set[int]:
    """Offsets of the non-breaking spaces of ``value`` between two words (not in math, not
    before a number, a roman numeral or a one-letter label)."""
    if "~" not in value and "\u00a0" not in value:
        return set()
    math = [m.span() for m in _MATH.finditer(value)]
    out: set[int] = set()
    for m in _TIE.finditer(value):
        i = m.start()
        if any(a <= i < b for a, b in math) or _TIED_LABEL.match(value, i + 1) or (
                i and value[i - 1].isdigit()) or (  # 13~TeV: a number with its unit
                i > 1 and value[i - 1] == "." and value[i - 2].isdigit()) or (  # 11.~Jahrhundert
                value.startswith("-", i + 1)):  # Salvatoris~-- Vom: a tie before a dash
            continue
        out.add(i)
    return out
