"""Fuzz: mutated ``.bib`` text through the reader, the CSL mapping and the renderers (issue 9).

The shared test files are mutated by inserting, deleting or replacing the characters that
matter to BibTeX and LaTeX (``{ } " @ # \\ ~ , =``) and runs of what used to blow up (deep
nesting, long numbers, ``@string`` doubling). Whatever comes out, reading and formatting
never raise, every diagnostic points into the file, and an entry the mutations did not touch
reads exactly as before. Bounded (200 examples each, no deadline) so that the suite stays fast;
the same properties ran over 3,000 mutations while writing this.
"""

from __future__ import annotations

from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refbook import latex
from refbook.items import items_for
from refbook.models import Bibliography, Entry
from refbook.names import parse_names, parse_names_pandoc
from refbook.readers import resolve_crossrefs
from refbook.readers.bibtex import ParseResult, parse_bibtex
from refbook.registry import Registry
from refbook.render.html import to_html
from refbook.render.text import to_text
from tests.conftest import TESTDATA

CHARS = '{}"@#\\~,='
FUZZ = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


@cache
def small_files() -> tuple[str, ...]:
    """The texts of the shared test files small enough to format whole at every example."""
    texts = []
    for path in sorted(TESTDATA.rglob("*.bib")):
        data = path.read_bytes()
        if len(data) <= 8000:
            texts.append(data.decode("utf-8", errors="replace"))
    assert len(texts) > 50, f"shared test data not present: {TESTDATA}"
    return tuple(texts)


def mutate(text: str, edits: list[tuple[float, int, str]], start: int = 0,
           end: int | None = None) -> str:
    """Apply (where in [start, end) as a fraction, 0 insert / 1 delete / 2 replace, text)."""
    chars = list(text)
    end = len(chars) if end is None else end
    for where, op, c in sorted(edits, reverse=True):  # from the back: spans stay valid
        i = start + int(where * (end - start))
        if op == 0 or i >= len(chars):
            chars.insert(i, c)
        elif op == 1:
            del chars[i]
        else:
            chars[i] = c
    return "".join(chars)


# Runs of what made the reader or the LaTeX converter blow up before (issue 9): deep nesting,
# long numbers, unclosed options, no-break spaces, @string doubling.
RUNS = st.builds(
    lambda make, k: make(k),
    st.sampled_from([
        lambda k: "{" * k + "x" + "}" * k,
        lambda k: "\\'" * k + "e",
        lambda k: "`" * k,
        lambda k: "{\\it " * k + "}" * k,
        lambda k: "\\x[" * k,
        lambda k: "1" * (10 * k),
        lambda k: "\u00a0" * (10 * k),
        lambda k: "a and " * k,
        lambda k: "\n@string{z0 = {xx}}\n" + "".join(
            f"@string{{z{i} = z{i - 1} # z{i - 1}}}\n" for i in range(1, k % 40 + 1)),
    ]),
    st.integers(1, 600),
)
EDITS = st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 2),
                           st.sampled_from(CHARS) | RUNS), min_size=1, max_size=8)


def format_all(result: ParseResult) -> None:
    entries, _ = resolve_crossrefs(result.entries)
    bib = Bibliography(tuple(entries), result.diagnostics, ("f.bib",))
    resolution = Registry().resolve(bib, items_for(bib), "chicago-author-date", nocite=["*"])
    for _, rendered in resolution.entries:
        to_html(rendered)
        to_text(rendered)


@FUZZ
@given(st.data(), EDITS)
def test_mutated_files_read_and_format_without_errors(data: st.DataObject,
                                                     edits: list[tuple[float, int, str]]) -> None:
    text = data.draw(st.sampled_from(small_files()))
    mutated = mutate(text, edits)
    result = parse_bibtex(mutated, "f.bib")
    lines = mutated.count("\n") + 1
    for d in result.diagnostics:
        assert d.location is not None
        assert 1 <= d.location.line <= lines, d
        assert d.hint, d
    format_all(result)


def canonical(entry: Entry) -> str:
    fields = "".join(f"  {f.name} = {{{f.value}}},\n" for f in entry.fields)
    return f"@{entry.type}{{{entry.key},\n{fields}}}\n\n"


@FUZZ
@given(st.data(), EDITS)
def test_entries_next_to_a_mutated_one_are_kept(data: st.DataObject,
                                               edits: list[tuple[float, int, str]]) -> None:
    text = data.draw(st.sampled_from(small_files()))
    entries = parse_bibtex(text, "f.bib").entries[:12]
    if len(entries) < 2:
        return
    pieces = [canonical(e) for e in entries]
    victim = data.draw(st.integers(0, len(pieces) - 1))
    # The victim is mutated up to its closing brace; the blank line after it stays, so the next
    # entry still starts a line (with unbalanced braces and the next "@" joined onto the same
    # line, BibTeX itself reads the rest of the file as the victim's value).
    body = mutate(pieces[victim][:-2], edits)
    mutated = "".join([*pieces[:victim], body, "\n\n", *pieces[victim + 1:]])
    result = parse_bibtex(mutated, "f.bib")
    read = {e.key: e for e in result.entries}
    for k, e in enumerate(entries):
        if k != victim:
            assert e.key in read, (e.key, mutated)
            got = read[e.key]
            assert [(f.name, f.value) for f in got.fields] == \
                   [(f.name, f.value) for f in e.fields]
    format_all(result)


LATEX = st.lists(st.sampled_from(
    ["{", "}", "\\'", "\\emph", "\\RN", "\\href", "\\url", "\\bgroup", "\\egroup", "\\par",
     "\\verb", "\\begin", "\\end", "\\\\", "``", "''", "`", "'", '"', "$", "$$", "~", "%", "#",
     "[", "]", "*", "-", "--", " ", "\n", "a", "Bc", "12", " and ", ",", "=", "^^", "\\x"]),
    max_size=40).map("".join)


@FUZZ
@given(LATEX)
def test_latex_values_never_raise(value: str) -> None:
    latex.parse(value)
    latex.to_text(value)
    latex.to_inlines(value)
    latex.too_deep(value)
    parse_names(value)
    parse_names_pandoc(value)
