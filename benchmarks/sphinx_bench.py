"""Benchmark: plain Sphinx vs sphinxcontrib-bibtex vs sphinx_refbook on a generated book.

Generates a book of 30 reST chapters (each citing 10 entries with ``:cite:p:``/``:cite:t:``) and
a ``.bib`` file of N entries, then times, side by side in one run and for each tool: a cold
build, a no-op rebuild, an edit to one chapter's prose, a changed citation (one key replaced by
another) and an edit to one cited ``.bib`` entry (its year). Plain Sphinx builds the same pages
with the roles replaced by plain text. Prints the times and the ratios against plain Sphinx.
Each build is a fresh ``sphinx-build`` process, as on the command line.

    .venv/bin/python benchmarks/sphinx_bench.py            # 300 and 20,000 entries
    .venv/bin/python benchmarks/sphinx_bench.py --entries 300
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHAPTERS = 30
CITES_PER_CHAPTER = 10
TOOLS = ("plain", "sphinxcontrib-bibtex", "sphinx_refbook")
STEPS = ("cold", "no-op", "edit chapter", "edit a citation", "edit .bib entry")


def bib_entry(i: int, year: int) -> str:
    return (f"@article{{key{i:05d},\n  author = {{Author{i % 97}, Alice and Writer{i % 89}, Bob}},\n"
            f"  title = {{A study of topic number {i}}},\n  journal = {{Journal {i % 13}}},\n"
            f"  year = {{{year}}},\n  volume = {{{i % 40 + 1}}},\n  pages = {{{i % 200}--{i % 200 + 9}}},\n"
            f"  doi = {{10.1000/j.{i}}}\n}}\n\n")


def generate(root: Path, entries: int, tool: str) -> None:
    rng = random.Random(1234)  # noqa: S311 - reproducible test data, not security
    src = root / "src"
    src.mkdir(parents=True)
    conf = ['project = "bench"', 'exclude_patterns = ["_build"]']
    if tool == "sphinxcontrib-bibtex":
        conf += ['extensions = ["sphinxcontrib.bibtex"]', 'bibtex_bibfiles = ["refs.bib"]',
                 'bibtex_reference_style = "author_year"']
    elif tool == "sphinx_refbook":
        conf += ['extensions = ["sphinx_refbook"]', 'refbook_bibfiles = ["refs.bib"]']
    (src / "conf.py").write_text("\n".join(conf) + "\n", encoding="utf-8")
    (src / "refs.bib").write_text("".join(bib_entry(i, 1990 + i % 30) for i in range(entries)),
                                  encoding="utf-8")
    toc = "\n".join(f"   ch{c:02d}" for c in range(CHAPTERS))
    (src / "index.rst").write_text(f"Bench\n=====\n\n.. toctree::\n\n{toc}\n   references\n",
                                   encoding="utf-8")
    refs = "References\n==========\n\n"
    if tool != "plain":
        refs += ".. bibliography::\n"
    (src / "references.rst").write_text(refs, encoding="utf-8")
    for c in range(CHAPTERS):
        lines = [f"Chapter {c}", "=" * 12, ""]
        for p in range(CITES_PER_CHAPTER):
            key = f"key{rng.randrange(min(entries, 300)) if p % 2 else rng.randrange(entries):05d}"
            role = "p" if p % 3 else "t"
            cite = f":cite:{role}:`{key}`" if tool != "plain" else f"({key})"
            lines += [f"Paragraph {p} of chapter {c} says something {cite} about the topic.", ""]
        (src / f"ch{c:02d}.rst").write_text("\n".join(lines), encoding="utf-8")


def build(root: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root / "src"),
                    str(root / "out")], check=True, capture_output=True)
    return time.perf_counter() - t0


def run_tool(base: Path, entries: int, tool: str) -> dict[str, float]:
    root = base / f"{tool}-{entries}"
    generate(root, entries, tool)
    times = {"cold": build(root), "no-op": build(root)}
    ch = root / "src" / "ch05.rst"
    ch.write_text(ch.read_text(encoding="utf-8") + "\nOne more paragraph.\n", encoding="utf-8")
    times["edit chapter"] = build(root)
    ch = root / "src" / "ch07.rst"
    text = ch.read_text(encoding="utf-8")
    ch.write_text(re.sub(r"key\d{5}", "key00001", text, count=1), encoding="utf-8")
    times["edit a citation"] = build(root)
    bib = root / "src" / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    cited = re.search(r"key\d{5}", (root / "src" / "ch00.rst").read_text(encoding="utf-8"))
    key = cited.group(0) if cited else "key00000"
    text = re.sub(rf"(@article{{{key},(?:.|\n)*?year = {{)(\d+)", r"\g<1>2099", text, count=1)
    bib.write_text(text, encoding="utf-8")
    times["edit .bib entry"] = build(root)
    shutil.rmtree(root)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, action="append",
                        help="bibliography size (repeatable; default 300 and 20000)")
    args = parser.parse_args()
    sizes = args.entries or [300, 20000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            results = {tool: run_tool(Path(tmp), n, tool) for tool in TOOLS}
            print(f"\n{CHAPTERS} chapters, {n} entries (seconds; ratio to plain Sphinx)")
            print(f"{'step':<17}" + "".join(f"{t:>28}" for t in TOOLS))
            for step in STEPS:
                base = results["plain"][step]
                cells = [f"{results[t][step]:8.2f}s ({results[t][step] / base:5.2f}x)"
                         for t in TOOLS]
                print(f"{step:<17}" + "".join(f"{c:>28}" for c in cells))
            rb, sb = results["sphinx_refbook"], results["sphinxcontrib-bibtex"]
            print("sphinx_refbook vs sphinxcontrib-bibtex: "
                  + ", ".join(f"{s} {rb[s] / sb[s]:.2f}x" for s in STEPS), flush=True)


if __name__ == "__main__":
    main()
