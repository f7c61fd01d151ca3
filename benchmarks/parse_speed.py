"""Benchmark: cold parse of a large synthetic .bib by pybtex, bibtexparser 2 and refbook's reader.

Where it sits: outside the flow; it measures the first step (read ``.bib`` → ``Bibliography``)
and backs the numbers in ``docs/design/bibtex-parser.md``. Run it with
``.venv/bin/python benchmarks/parse_speed.py [--entries N] [--repeat R]``; it writes the file to
a temporary folder, times each parser side by side in one process and prints the ratios.
Every parser reads the same text; each timing is the best of ``--repeat`` runs.
``--recovery`` instead shows how each reader copes with the broken entries of the reader tests.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from refbook.bibcache import clear_memory_cache
from refbook.readers import read_bibliography
from refbook.readers.bibtex import parse_bibtex

T = TypeVar("T")

_GIVEN = ["Ana", "Bernd", "Chloé", "Dmitri", "Eva", "François", "Grace", "Hiro", "Ingrid",
          "José", "Katalin", "Lars", "Mónica", "Nils", "Olga", "Pieter", "Quentin", "Rosa"]
_FAMILY = ["M{\\\"u}ller", "Garc{\\'i}a", "Smith", "van der Berg", "O'Neil", "Nakamura",
           "Dvo{\\v{r}}{\\'a}k", "Lindstr{\\\"o}m", "de la Cruz", "Zhang", "Kowalski",
           "Ib{\\'a}{\\~n}ez", "Brown", "Schr{\\\"o}dinger", "Nguyen", "Rossi", "Petrov"]
_KEY_STEMS = ["mueller", "garcia", "smith", "vanderberg", "oneil", "nakamura", "dvorak"]
_WORDS = ["adaptive", "analysis", "{B}ayesian", "compilers", "concurrent", "data", "deep",
          "distributed", "efficient", "formal", "graphs", "incremental", "learning", "logic",
          "memory", "networks", "optimal", "parallel", "$\\lambda$-calculus", "programs",
          "quantum", "robust", "scalable", "semantics", "systems", "types", "{TeX}", "verified"]
_JOURNALS = ["jacm", "cacm", "toplas", "tcs"]
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_PUBLISHERS = ["Springer", "{ACM} Press", "MIT Press", "Addison-Wesley", "O'Reilly Media"]


def _names(rng: random.Random) -> str:
    people = [f"{rng.choice(_FAMILY)}, {rng.choice(_GIVEN)}" for _ in range(rng.randint(1, 3))]
    return " and ".join(people)


def _title(rng: random.Random) -> str:
    words = rng.sample(_WORDS, rng.randint(3, 7))
    text = " ".join(words)
    return text[0].upper() + text[1:]


def synthetic_bib(entries: int, seed: int = 1) -> str:
    """A realistic .bib text: ``@string`` macros, articles, proceedings papers and books."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not security
    out = [
        "% Synthetic bibliography for benchmarks/parse_speed.py\n",
        '@string{jacm = "Journal of the {ACM}"}\n',
        '@string{cacm = "Communications of the {ACM}"}\n',
        "@string{toplas = {{ACM} Transactions on Programming Languages and Systems}}\n",
        '@string{tcs = "Theoretical Computer Science"}\n\n',
    ]
    for i in range(entries):
        kind = rng.random()
        year = rng.randint(1970, 2024)
        key = f"{_KEY_STEMS[i % len(_KEY_STEMS)]}{year}:{i}"
        fields = [("author", "{" + _names(rng) + "}"), ("title", "{" + _title(rng) + "}")]
        if kind < 0.5:
            typ = "article"
            fields += [
                ("journal", rng.choice(_JOURNALS)),
                ("year", str(year)),
                ("volume", str(rng.randint(1, 60))),
                ("number", f"{{{rng.randint(1, 12)}}}"),
                ("pages", f"{{{rng.randint(1, 400)}--{rng.randint(401, 900)}}}"),
                ("month", rng.choice(_MONTHS)),
            ]
        elif kind < 0.85:
            typ = "inproceedings"
            fields += [
                ("booktitle", '"Proceedings of the " # {' + str(rng.randint(1, 40))
                 + "th} # \" Conference on " + rng.choice(_WORDS) + '"'),
                ("year", f"{{{year}}}"),
                ("pages", f"{{{rng.randint(1, 400)}--{rng.randint(401, 900)}}}"),
                ("publisher", "{" + rng.choice(_PUBLISHERS) + "}"),
            ]
        else:
            typ = "book"
            fields += [
                ("publisher", "{" + rng.choice(_PUBLISHERS) + "}"),
                ("year", str(year)),
                ("edition", "{" + rng.choice(["2nd", "3rd", "Second"]) + "}"),
                ("isbn", (f"{{978-{rng.randint(0, 9)}-{rng.randint(100, 999)}-"
                          f"{rng.randint(10000, 99999)}-{rng.randint(0, 9)}}}")),
            ]
        if rng.random() < 0.6:
            fields.append(("doi", f"{{10.{rng.randint(1000, 9999)}/{rng.randint(10**6, 10**7)}}}"))
        if rng.random() < 0.3:
            fields.append(("url", f"{{https://example.org/papers/{i}.pdf}}"))
        if rng.random() < 0.1:
            fields.append(("abstract", "{" + " ".join(_title(rng) for _ in range(2)) + ".}"))
        if rng.random() < 0.2:
            fields.append(("note", "{See also \\cite{" + key + "} and \\emph{errata}}"))
        body = ",\n".join(f"  {name:<9} = {value}" for name, value in fields)
        out.append(f"@{typ}{{{key},\n{body}\n}}\n\n")
    return "".join(out)


def _best(
    fn: Callable[[], T], repeat: int, setup: Callable[[], object] | None = None
) -> tuple[float, T]:
    """Best wall time of ``fn()``; freeing the previous result and ``setup`` are not timed."""
    best = float("inf")
    result: T | None = None
    for _ in range(repeat):
        result = None
        if setup is not None:
            setup()
        gc.collect()
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
    assert result is not None
    return best, result


def recovery() -> None:
    """How each library handles the broken-entry cases of tests/core/test_reader.py."""
    import contextlib
    import io

    import bibtexparser
    from pybtex import errors as pybtex_errors  # type: ignore[import-untyped,unused-ignore]
    from pybtex.database.input.bibtex import (  # type: ignore[import-untyped,unused-ignore]
        Parser as PybtexParser,
    )

    from tests.core.test_reader import SYNTAX_CASES

    print(f"{'case':<32} {'bibtexparser 2':<34} {'pybtex (non-strict)':<28} "
          f"{'pybtex strict':<14} refbook")
    for name, broken, _, _ in SYNTAX_CASES:
        text = "@misc{before, title = {B}}\n" + broken + "\n@misc{after,\n  title = {A}}\n"
        lib = bibtexparser.parse_string(text)  # type: ignore[attr-defined]
        failed = [(b.start_line or 0) + 1 for b in lib.failed_blocks]
        bp = f"{[e.key for e in lib.entries]} failed@{failed}"
        pybtex_errors.set_strict_mode(False)
        with contextlib.redirect_stderr(io.StringIO()):
            pb = str(list(PybtexParser().parse_string(text).entries))
        pybtex_errors.set_strict_mode(True)
        try:
            PybtexParser().parse_string(text)
            strict = "reads it"
        except Exception:  # any failure counts
            strict = "raises"
        ours = parse_bibtex(text, "t.bib")
        lines = [d.location.line for d in ours.diagnostics if d.location]
        print(f"{name:<32} {bp:<34} {pb:<28} {strict:<14} "
              f"{[e.key for e in ours.entries]} error@{lines}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of refbook's reader")
    parser.add_argument("--lib-repeat", type=int, default=1,
                        help="runs of pybtex and bibtexparser (several seconds each; 0 skips them)")
    parser.add_argument("--recovery", action="store_true",
                        help="instead of timing, show how each reader recovers from errors")
    args = parser.parse_args(argv)
    if args.recovery:
        recovery()
        return 0

    text = synthetic_bib(args.entries)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.bib"
        path.write_text(text, encoding="utf-8")
        print(f"{args.entries} entries, {len(text.encode()) / 1e6:.1f} MB; best of "
              f"{args.repeat} runs (libraries: {args.lib_repeat})\n")

        rows: list[tuple[str, float, int]] = []

        if args.lib_repeat > 0:
            try:
                from pybtex.database.input.bibtex import (  # type: ignore[import-untyped,unused-ignore]
                    Parser as PybtexParser,
                )

                t, data = _best(lambda: PybtexParser().parse_string(text), args.lib_repeat)
                rows.append(("pybtex (parse_string)", t, len(data.entries)))
            except ImportError:
                print("pybtex not installed; skipped")

            try:
                import bibtexparser

                t, lib = _best(lambda: bibtexparser.parse_string(text),  # type: ignore[attr-defined]
                               args.lib_repeat)
                rows.append(("bibtexparser 2 (parse_string)", t, len(lib.entries)))
                from bibtexparser.splitter import Splitter

                t, lib = _best(lambda: Splitter(text).split(), args.lib_repeat)
                rows.append(("bibtexparser 2 (splitter only)", t, len(lib.entries)))
            except ImportError:
                print("bibtexparser not installed; skipped")

        t, res = _best(lambda: parse_bibtex(text, str(path)), args.repeat)
        rows.append(("refbook parse_bibtex", t, len(res.entries)))

        t, bib = _best(lambda: read_bibliography([path]), args.repeat, clear_memory_cache)
        rows.append(("refbook read_bibliography (cold)", t, len(bib)))
        ours = t

        read_bibliography([path])
        t, bib = _best(lambda: read_bibliography([path]), max(args.repeat, 5))
        rows.append(("refbook read_bibliography (cached)", t, len(bib)))

        with tempfile.TemporaryDirectory() as cache_dir:
            read_bibliography([path], cache_dir=cache_dir)

            t, bib = _best(lambda: read_bibliography([path], cache_dir=cache_dir),
                           args.repeat, clear_memory_cache)
            rows.append(("refbook read_bibliography (disk cache)", t, len(bib)))

    width = max(len(name) for name, _, _ in rows)
    print(f"{'parser':<{width}}  {'seconds':>8}  {'entries':>7}  {'× ours (cold)':>13}")
    for name, t, n in rows:
        print(f"{name:<{width}}  {t:8.3f}  {n:7d}  {t / ours:13.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
