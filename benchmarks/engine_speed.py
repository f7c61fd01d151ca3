"""Speed of the style engine against the reference engines: refbook vs pandoc vs citeproc-py.

Usage: ``python benchmarks/engine_speed.py [--shared DIR] [--entries N] [--repeat R]
[--styles chicago-author-date,apa,ieee] [--no-citeproc-py]`` (part of ``make bench``). Prints
seconds (best of R runs, 3 by default) for the reference list of every entry of two
bibliographies:

- the seed bibliography (``shared/seed/references.bib``, 253 entries);
- a file of N entries (2,000 by default), written into a temporary folder: the seed's entries
  and then those of the shared real-world ``.bib`` files (``shared/testdata``; files that use
  ``@string`` macros are left out, and so are entries with ``crossref``/``xdata`` and those
  refbook's reader flags when read alone: every entry stands alone and is well-formed), in sorted file order, each under a new key
  (``bench00001`` …), repeated until N are reached. The same input every run.

What is timed, per engine, with the same ``.csl`` file:

- **refbook**: in this process, its caches emptied before each run (parsed styles with their
  memos, parsed ``.bib`` files, entry → item conversions: a cold start, as a new build
  process has), formats the list;
  ``total`` also reads the ``.bib`` file and maps it to CSL items (what a build does),
  ``engine`` only formats (items made beforehand);
- **pandoc** (``pandoc --citeproc --csl FILE -t plain``, pypandoc_binary's pandoc): the whole
  process, which reads the ``.bib`` file too, so it is compared with refbook's ``total``;
- **citeproc-py**: given CSL-JSON made from refbook's items beforehand (not timed), it loads
  the style and formats the list as plain text: compared with refbook's ``engine``.

``refbook/pandoc`` and ``refbook/citeproc-py`` are time ratios: below 1 means refbook is faster
(0.33: three times as fast). Nothing is asserted; the numbers go in docs/design/performance.md.
The engine is called through the style API that ``benchmarks/csl_styles.py`` uses (a
``CslStyle`` subclass naming the file, ``processor(items).bibliography()``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path and not any(Path(p, "refbook").is_dir() for p in sys.path if p):
    sys.path.insert(0, str(ROOT))  # run from a checkout without PYTHONPATH

from refbook.bibtex_csl import csl_to_json  # noqa: E402
from refbook.items import items_for  # noqa: E402
from refbook.readers import read_bibliography  # noqa: E402
from refbook.readers.bibtex import parse_bibtex  # noqa: E402
from refbook.render.text import to_text  # noqa: E402
from refbook.styles import CslStyle, get_style  # noqa: E402

DEFAULT_STYLES = ("chicago-author-date", "apa", "ieee")
ENTRY_START = re.compile(r"^[ \t]*@[ \t]*([A-Za-z]+)\s*[{(]\s*([^,\s]*)\s*,", re.M)
SKIP_TYPES = {"string", "preamble", "comment"}


def raw_entries(text: str) -> list[tuple[str, str]]:
    """(type, body after the key up to the closing brace) of each ``@type{key, ...}`` entry of a
    ``.bib`` text, in order; the end is found by counting braces."""
    out = []
    for m in ENTRY_START.finditer(text):
        if m.group(1).lower() in SKIP_TYPES or text[m.end(1):m.end()].lstrip()[:1] != "{":
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            out.append((m.group(1), text[m.end():i]))
    return out


def stands_alone(kind: str, body: str) -> bool:
    """Whether the entry reads without any problem on its own (the testdata holds linters'
    deliberately broken entries, which pandoc rejects) and needs no other entry or macro."""
    if re.search(r"\b(crossref|xdata)\s*=", body, re.I):
        return False
    parsed = parse_bibtex(f"@{kind}{{probe,{body}\n", "probe.bib")
    return len(parsed.entries) == 1 and not parsed.diagnostics and not parsed.strings


def make_big_bib(shared: Path, count: int, dest: Path) -> Path:
    """Write ``count`` entries (seed first, then the testdata files) under new keys to ``dest``."""
    sources = [shared / "seed" / "references.bib"]
    sources += sorted((shared / "testdata").rglob("*.bib"))
    pool: list[tuple[str, str]] = []
    for path in sources:
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"^\s*@\s*string\b", text, re.I | re.M):
            continue  # values may name the file's macros
        pool.extend(e for e in raw_entries(text) if stands_alone(*e))
    if not pool:
        sys.exit(f"no entries under {shared}")
    parts = []
    for i in range(count):
        kind, body = pool[i % len(pool)]
        parts.append(f"@{kind}{{bench{i + 1:05d},{body}\n")
    dest.write_text("\n".join(parts), encoding="utf-8")
    return dest


def forget_refbook_caches() -> None:
    """Empty refbook's in-memory caches (parsed styles and their memos, parsed ``.bib`` files,
    locale data), so that each timed run starts cold, as a new build process does."""
    for name, module in list(sys.modules.items()):
        if name != "refbook" and not name.startswith("refbook."):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and hasattr(value, "cache_info"):
                clear()
    from refbook import bibcache, items

    # the parsed files and the entry -> item conversions too: without this only the first run
    # read and converted, and "total" was the engine alone from the second run on
    for holder, name in ((bibcache, "clear_memory_cache"), (items, "clear_memo")):
        clear = getattr(holder, name, None)
        if callable(clear):
            clear()
    caches = getattr(bibcache, "bibliographies", None)
    if caches is not None and hasattr(caches, "clear"):
        caches.clear()


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        forget_refbook_caches()
        t0 = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - t0)
    return best, result


def refbook_list(csl: Path, items: Any) -> list[str]:
    style = type("BenchStyle", (CslStyle,), {"name": csl.stem, "csl_file": str(csl)})()
    processor = style.processor(items.many(items) if hasattr(items, "many") else list(items.values()))
    return [" ".join(to_text(entry).split()) for _, entry in processor.bibliography()]


def refbook_total(csl: Path, bib: Path) -> list[str]:
    data = read_bibliography([str(bib)])
    return refbook_list(csl, items_for(data))


def pandoc_list(pandoc: str, csl: Path, bib: Path) -> str:
    return subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={csl}"],
        input="---\nnocite: '@*'\n---\n", capture_output=True, text=True, check=True,
        timeout=1200).stdout


def citeproc_py_list(csl: Path, json_items: list[dict[str, Any]]) -> list[str]:
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one line per item it has no use for ("other_ids")
        source = CiteProcJSON(json_items)
    style = CitationStylesStyle(str(csl), validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    for item in json_items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


def citeproc_py_input(items: Any) -> list[dict[str, Any]]:
    out = []
    for key in items:
        item = csl_to_json(items[key])
        # citeproc-py wants lower-case ids and no "literal"-only dates it cannot parse
        item["id"] = item["id"].lower()
        out.append(item)
    return out


class _SkippedError(Exception):
    """citeproc-py not timed (``--no-citeproc-py``)."""


def measure(label: str, bib: Path, styles: list[str], repeat: int, pandoc: str, *,
            citeproc_py: bool = True) -> None:
    data = read_bibliography([str(bib)])
    items = dict(items_for(data))  # converted now: "engine" times the formatting alone
    json_items = citeproc_py_input(items)
    print(f"\n{label}: {bib} ({len(items)} entries), best of {repeat}, seconds")
    print(f"{'style':22} {'refbook':>8} {'engine':>8} {'pandoc':>8} {'citeproc-py':>12} "
          f"{'refbook/pandoc':>15} {'engine/citeproc-py':>19}")
    for name in styles:
        csl = get_style(name).path
        total, ours = best_of(repeat, lambda csl=csl: refbook_total(csl, bib))
        engine, _ = best_of(repeat, lambda csl=csl: refbook_list(csl, items))
        theirs, _ = best_of(repeat, lambda csl=csl: pandoc_list(pandoc, csl, bib))
        try:
            if not citeproc_py:
                raise _SkippedError
            cpy, cpy_out = best_of(repeat, lambda csl=csl: citeproc_py_list(csl, json_items))
            cpy_text, cpy_ratio = f"{cpy:12.2f}", f"{engine / cpy:19.2f}"
            if len(cpy_out) != len(ours):
                cpy_text = f"{cpy:9.2f} ({len(cpy_out)})"
        except _SkippedError:
            cpy_text, cpy_ratio = f"{'-':>12}", f"{'-':>19}"
        except Exception as exc:  # citeproc-py fails on some styles and inputs
            cpy_text, cpy_ratio = f"{'failed':>12}", f"{type(exc).__name__:>19}"
        print(f"{name:22} {total:8.2f} {engine:8.2f} {theirs:8.2f} {cpy_text} "
              f"{total / theirs:15.2f} {cpy_ratio}")
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path,
                    default=Path(os.environ.get("REFBOOK_SHARED", str(ROOT.parent / "shared"))))
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--styles", default=",".join(DEFAULT_STYLES))
    ap.add_argument("--no-citeproc-py", action="store_true",
                    help="time refbook and pandoc only (citeproc-py is the slowest of the three)")
    args = ap.parse_args()
    import pypandoc

    pandoc = str(pypandoc.get_pandoc_path())
    styles = [s for s in args.styles.split(",") if s]
    from refbook import accel

    print("refbook: read + format (engine: format only); pandoc: the whole process; "
          "citeproc-py: format CSL-JSON")
    # which refbook is timed: compiled by mypyc (make accel) or plain Python (REFBOOK_PURE=1)
    print(f"refbook's {accel.status()}")
    cpy = not args.no_citeproc_py
    measure("seed", args.shared / "seed" / "references.bib", styles, args.repeat, pandoc,
            citeproc_py=cpy)
    with tempfile.TemporaryDirectory() as tmp:
        big = make_big_bib(args.shared, args.entries, Path(tmp) / f"bench{args.entries}.bib")
        measure(f"{args.entries} entries", big, styles, args.repeat, pandoc, citeproc_py=cpy)


if __name__ == "__main__":
    main()
