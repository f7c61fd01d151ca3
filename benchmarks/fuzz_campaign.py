"""Fuzz campaign: hostile and mutated input through every stage, with the worst case reported.

Where it sits: outside the flow, beside the benchmarks; the bounded property tests in
``tests/core/test_fuzz.py`` run a small slice of the same idea on every ``make test``. This
script is the long run behind the numbers in ``docs/security.md``:

- ``--mutations N`` random mutations of the shared real-world ``.bib`` files (insert, delete or
  repeat a special character or a chunk, cut the file, splice two files);
- the crafted cases of issue 9 (macro bombs, deep nesting, runs of ``[``, backticks, U+00A0 …),
  generated at several sizes;
- random Markdown pages through the citation finder.

Each case runs the whole core: read → CSL items → book-wide resolution (author-date and
numeric) → text, HTML and Markdown renderers → every validation rule → ``--fix`` on a copy.
A case fails on any exception, on HTML output holding an element or attribute that no renderer
writes (markup from data), or on passing ``--timeout`` seconds. Printed: cases, failures with
their traceback, the slowest case, and the peak memory of the process (``ru_maxrss``).

Run: ``.venv/bin/python benchmarks/fuzz_campaign.py [--mutations 3000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from refbook.bibcache import clear_memory_cache
from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.html import to_html
from refbook.render.markdown import to_markdown
from refbook.render.text import to_text
from refbook.syntax import find_citations
from refbook.validate import check_bibliography

ROOT = Path(__file__).resolve().parents[1]
SPECIALS = [*'{}"@#\\~,=%$^_&[]()`\n', "\u00a0", "\u3000", "\\'", "\\v{", "{{", "}}",
            "@string{", "@comment(", " and ", "--"]
#: What the HTML renderer writes itself; anything else in its output came from the data.
HTML_TAGS = {"a", "span", "i", "b", "em", "strong", "sup", "sub", "div", "code", "br"}
HTML_ATTRS = {"href", "class", "id", "title", "style", "lang", "dir"}


class CaseTimeoutError(Exception):
    pass


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in HTML_TAGS:
            self.bad.append(f"<{tag}>")
        for name, value in attrs:
            if name not in HTML_ATTRS:
                self.bad.append(f"{tag}[{name}]")
            if name == "href" and value and not value.startswith(("http://", "https://", "#")):
                self.bad.append(f"href={value[:40]!r}")


def markup_from_data(html: str) -> list[str]:
    p = _Markup()
    p.feed(html)
    p.close()
    return p.bad


def mutate(text: str, rng: random.Random, others: list[str]) -> str:
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randrange(len(text) + 1)
        if op < 0.35:
            text = text[:pos] + rng.choice(SPECIALS) * rng.choice((1, 1, 2, 50, 400)) + text[pos:]
        elif op < 0.6:
            end = min(len(text), pos + rng.randint(1, 40))
            text = text[:pos] + text[end:]
        elif op < 0.75:
            end = min(len(text), pos + rng.randint(1, 200))
            text = text[:pos] + text[pos:end] * rng.randint(2, 6) + text[end:]
        elif op < 0.85:
            text = text[:pos]
        else:
            other = rng.choice(others)
            cut = rng.randrange(len(other) + 1)
            text = text[:pos] + other[cut:cut + rng.randint(10, 3000)] + text[pos:]
    return text


def crafted(scale: int) -> Iterator[tuple[str, str]]:
    """The hostile files of issue 9, ``scale`` sizing their repeated part."""
    bomb = ['@string{a0 = "xx"}'] + [f"@string{{a{i} = a{i - 1} # a{i - 1}}}" for i in range(1, 41)]
    yield "string-bomb", "\n".join([*bomb, "@misc{k, title = a40}"])
    yield "nested-braces", "@misc{k, title = {" + "{" * scale + "x" + "}" * scale + "}}"
    yield "unclosed-braces", "\n".join(f"@misc{{k{i}, title = {{open" for i in range(scale))
    yield "unclosed-quotes", "\n".join(f'@misc{{k{i}, title = "open' for i in range(scale))
    yield "comment-paren", "\n".join("@comment(" + "x" * 10 for _ in range(scale))
    yield "accents", "@misc{k, title = {" + "\\'{" * scale + "e" + "}" * scale + "}}"
    yield "backticks", "@misc{k, title = {" + "`" * scale + "}}"
    yield "long-year", "@misc{k, year = {" + "9" * (scale * 10) + "}, volume = {" + "1" * 5000 + "}}"
    for field in ("pages", "month", "title", "isbn", "issn", "doi", "url", "author", "date"):
        yield (f"nbsp-{field}",
               f"@misc{{k, {field} = {{1" + "~" * scale + "\u3000" * scale + "x}, year = 2020}")
    same = [f"@article{{s{i}, author = {{Smith, John}}, year = 2020, title = {{T{i}}}}}"
            for i in range(min(scale, 400))]
    yield "same-author-year", "\n".join(same)
    children = [f"@inproceedings{{c{i}, author = {{A{i}, B}}, title = {{T{i}}}, crossref = {{p}}}}"
                for i in range(min(scale, 1000))]
    yield "crossref-children", "\n".join(
        ["@proceedings{p, title = {Proc}, booktitle = {Proc}, year = 2000}", *children])
    yield "xss", ('@misc{x, author = {{<img src=x onerror=alert(1)>}}, title = {<script>alert(1)'
                  '</script> "q" \'q\'}, url = {javascript:alert(1)}, note = {\\\\ # heading}}')


def pages(rng: random.Random, scale: int) -> Iterator[tuple[str, str]]:
    yield "brackets", "[" * scale
    yield "brackets-at", "[@" * scale
    yield "backticks", "`" * scale
    yield "mixed", "".join(rng.choice("[]@;-` \n{}:.,ab") for _ in range(scale * 4))


def run_bib(text: str, folder: Path) -> None:
    path = folder / "case.bib"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    clear_memory_cache()
    bib = read_bibliography([path])
    items = items_for(bib)
    for style in ("chicago-author-date", "numeric"):
        res = Registry().resolve(bib, items, style, nocite=["*"])
        for _, entry in res.entries:
            to_text(entry)
            to_markdown(entry)
            bad = markup_from_data(to_html(entry))
            if bad:
                raise AssertionError(f"markup from data in HTML: {bad[:5]}")
    check_bibliography(bib)
    run_fix(path)


def run_fix(path: Path) -> None:
    """``refbook check --fix`` through the CLI's own entry point, on the case file."""
    from refbook.cli import main

    devnull = open(os.devnull, "w")  # noqa: SIM115 - closed below
    old = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = devnull
    try:
        main(["check", str(path), "--fix", "--format", "json"])
    finally:
        sys.stdout, sys.stderr = old
        devnull.close()


def timed(fn: Callable[[], None], timeout: float) -> float:
    def alarm(signum: int, frame: object) -> None:
        raise CaseTimeoutError(f"over {timeout} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    try:
        fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutations", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--shared", default=os.environ.get("REFBOOK_SHARED",
                                                        str(ROOT.parent / "shared")))
    args = ap.parse_args()
    # A bomb must fail as a MemoryError here, not take the machine down.
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    rng = random.Random(args.seed)  # noqa: S311 - reproducible cases, not secrets
    sources = sorted(Path(args.shared, "testdata").rglob("*.bib"))
    sources += [Path(args.shared, "seed", "references.raw.bib")]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sources]
    cases: list[tuple[str, Callable[[Path], None]]] = []
    for scale in (100, 1000, 10000):
        for name, text in crafted(scale):
            cases.append((f"crafted {name} x{scale}", lambda d, t=text: run_bib(t, d)))
        for name, text in pages(rng, scale):
            cases.append((f"page {name} x{scale}", lambda d, t=text: find_citations(t) and None))
    for i in range(args.mutations):
        j = rng.randrange(len(texts))
        text = mutate(texts[j], rng, texts)
        cases.append((f"mutation {i} of {sources[j].name}", lambda d, t=text: run_bib(t, d)))

    failures: list[tuple[str, str]] = []
    slowest: list[tuple[float, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, fn) in enumerate(cases, 1):
            try:
                slowest.append((timed(lambda fn=fn: fn(Path(tmp)), args.timeout), name))
            except Exception:  # every failure is the campaign's finding
                failures.append((name, traceback.format_exc(limit=6)))
            if n % 500 == 0:
                print(f"… {n}/{len(cases)} cases, {len(failures)} failures", flush=True)
    slowest.sort(reverse=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cases: {len(cases)} ({args.mutations} mutations of {len(sources)} files, "
          f"{len(cases) - args.mutations} crafted)")
    print(f"failures (exceptions, timeouts, markup from data): {len(failures)}")
    for name, tb in failures[:20]:
        print(f"--- {name}\n{tb}")
    print("slowest cases: " + "; ".join(f"{name} {t:.2f} s" for t, name in slowest[:5]))
    print(f"peak memory of the process: {peak_mb:.0f} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
