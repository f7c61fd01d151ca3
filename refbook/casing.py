"""Citeproc's text-case machinery, shared by the BibTeX mapping and the CSL engine.

Pandoc sentence-cases English BibTeX titles when it reads them (``refbook.bibtex_csl``) and CSL
styles title-case them again when they render (``refbook.styles.csl.output``). Both walk text
chunk by chunk with the same state machine and the same chunk rules, which live here once.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

START, START_SENTENCE, AFTER_WORD_END, AFTER_WORD_CHAR, AFTER_PUNCT, BEFORE_LAST = range(6)
WORD_BREAKS = frozenset("-/\u2013\u2014")

STOP_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "but", "by", "down", "for", "from", "in", "into", "nor", "of", "on", "onto", "or", "over", "so", "the", "till", "to", "up", "via", "with", "yet", "about", "van", "von", "de", "d", "l"]
)

ChunkTransform = Callable[[int, str], str]


def is_word_break(c: str) -> bool:
    return c in WORD_BREAKS or c.isspace()


# a run of letters/digits ([^\W_] is str.isalnum), a run of white space (\s is str.isspace),
# or one other character (punctuation runs are joined by split_chunks)
_CHUNK = re.compile(r"[^\W_]+|\s+|(.)", re.S)


def split_chunks(text: str) -> list[str]:
    """citeproc's chunks: runs of letters/digits, of spaces, of punctuation; others alone."""
    if text.isalnum():
        return [text]
    # runs found by a regular expression, not character by character: only the characters
    # that are neither letters, digits nor spaces are classified one by one
    chunks: list[str] = []
    punct = ""
    for m in _CHUNK.finditer(text):
        c = m.group(1)
        if c is not None and unicodedata.category(c)[0] == "P":
            punct += c
            continue
        if punct:
            chunks.append(punct)
            punct = ""
        chunks.append(m.group())
    if punct:
        chunks.append(punct)
    return chunks


def all_lower(text: str) -> bool:
    """Every character a lower-case letter (Haskell's ``T.all isLower``: "top500" is not)."""
    return all(map(str.islower, text))


def is_capitalized(chunk: str) -> bool:
    return bool(chunk) and chunk[0].isupper() and all_lower(chunk[1:])


def is_mixed(chunk: str) -> bool:
    return any(map(str.isupper, chunk)) and any(map(str.islower, chunk))


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


class CaseState:
    """Where a case transformation is: start, after a word, after sentence punctuation…"""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = START

    def step(self, text: str, transform: ChunkTransform | None) -> str:
        """Advance over one chunk; transform it if it is a word."""
        st = self.state
        if text:
            c = text[-1]
            if c in ".?!:":
                self.state = AFTER_PUNCT
            elif c.isalnum():
                self.state = AFTER_WORD_CHAR
            elif c.isspace() and st == AFTER_PUNCT:
                self.state = START_SENTENCE
            elif is_word_break(c):
                self.state = AFTER_WORD_END
        if transform is not None and text and text.isalnum():
            return transform(st, text)
        return text

    def text(self, text: str, transform: ChunkTransform | None) -> str:
        """:meth:`step` over each chunk of ``text`` (a one-word text is its one chunk)."""
        if text.isalnum():
            return self.step(text, transform)
        step = self.step
        return "".join([step(chunk, transform) for chunk in split_chunks(text)])


def sentence_case(st: int, chunk: str) -> str:
    at_start = st in (START, START_SENTENCE)
    capitalized = is_capitalized(chunk)
    if capitalized and not at_start:
        return chunk.lower()
    if at_start and (capitalized or all_lower(chunk)):
        return capitalize(chunk.lower())
    return chunk


def title_case(st: int, chunk: str) -> str:
    if is_mixed(chunk) or all(c.isupper() or not c.isalpha() for c in chunk):
        return chunk
    if st in (START_SENTENCE, START):
        return capitalize(chunk.lower())
    if st == AFTER_WORD_END and chunk not in STOP_WORDS and len(chunk) > 1:
        return capitalize(chunk.lower())
    if st == BEFORE_LAST and len(chunk) > 1:
        return capitalize(chunk.lower())
    return chunk


def capitalize_first(st: int, chunk: str) -> str:
    if not is_mixed(chunk) and st == START and all_lower(chunk):
        return capitalize(chunk)
    return chunk


def capitalize_all(st: int, chunk: str) -> str:
    if is_mixed(chunk):
        return chunk
    if st in (START, START_SENTENCE, AFTER_WORD_END, BEFORE_LAST) and all_lower(chunk):
        return capitalize(chunk)
    return chunk


TRANSFORMS: dict[str, ChunkTransform] = {
    "lowercase": lambda _st, chunk: chunk.lower(),
    "uppercase": lambda _st, chunk: chunk.upper(),
    "capitalize-first": capitalize_first,
    "capitalize-all": capitalize_all,
    "sentence": sentence_case,
    "title": title_case,
}
