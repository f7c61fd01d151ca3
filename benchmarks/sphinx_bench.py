"""Benchmark: plain Sphinx vs sphinxcontrib-bibtex vs sphinx_refbook on a generated book.

Generates a book of 30 reST chapters (each citing 10 entries with ``:cite:p:``/``:cite:t:``) and
a ``.bib`` file of N entries, then times, side by side in one run and for each tool: a cold
build, a no-op rebuild, an edit to one chapter's prose, a changed citation (one key replaced by
another) and an edit to one cited ``.bib`` entry (its year). Plain Sphinx builds the same pages
with the roles replaced by plain text. Prints the times and the ratios against plain Sphinx.
Each build is a fresh ``sphinx-build`` process, as on the command line.

    .venv/bin/python benchmarks/sphinx_bench.py                    # 300 entries
    .venv/bin/python benchmarks/sphinx_bench.py --entries 300 20000  # also 20,000 (minutes)

The last row is the peak resident memory of the largest build process of each tool.
"""

from __future__ import annotations

import argparse
import os
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


REAL = False  # --real: the .bib file of real entries (benchmarks/realbib.py)


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
    if REAL:
        from realbib import write_real_bib

        write_real_bib(entries, src / "refs.bib")
    else:
        (src / "refs.bib").write_text(
            "".join(bib_entry(i, 1990 + i % 30) for i in range(entries)), encoding="utf-8")
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


PEAK: dict[str, float] = {}
_ENV: dict[str, str] = {}


def installed() -> dict[str, str]:
    """the environment of every timed build: refbook's bytecode compiled, as installed
    (benchmarks/bytecode.py)"""
    if not _ENV:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bytecode import installed_env

        _ENV.update(installed_env())
    return _ENV


def build(root: Path) -> float:
    """One ``sphinx-build`` process: its seconds; its peak RSS (``wait4``: this child's own)
    goes into :data:`PEAK` under the book's folder name."""
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root / "src"),
               str(root / "out")]
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=installed())
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), command)
    PEAK[root.name] = max(PEAK.get(root.name, 0.0), usage.ru_maxrss / 1024)  # KB on Linux
    return elapsed


def edit(root: Path, step: str, r: int) -> None:
    """The change before a step's build (round ``r``: a different change each round)."""
    if step == "edit chapter":
        ch = root / "src" / "ch05.rst"
        ch.write_text(ch.read_text(encoding="utf-8") + f"\nOne more paragraph {r}.\n",
                      encoding="utf-8")
    elif step == "edit a citation":
        ch = root / "src" / "ch07.rst"
        text = ch.read_text(encoding="utf-8")
        ch.write_text(re.sub(r"key\d{5}", f"key{r + 1:05d}", text, count=1), encoding="utf-8")
    elif step == "edit .bib entry":
        bib = root / "src" / "refs.bib"
        cited = re.search(r"key\d{5}", (root / "src" / "ch00.rst").read_text(encoding="utf-8"))
        key = cited.group(0) if cited else "key00000"
        if REAL:
            from realbib import edit_title_file

            edit_title_file(bib, key, r)
            return
        text = bib.read_text(encoding="utf-8")
        text = re.sub(rf"(@article{{{key},(?:.|\n)*?year = {{)(\d+)", rf"\g<1>{2099 - r}", text,
                      count=1)
        bib.write_text(text, encoding="utf-8")
    elif step == "cold":
        shutil.rmtree(root / "out", ignore_errors=True)


def run_tools(base: Path, entries: int, rounds: int) -> dict[str, dict[str, float]]:
    """Each step ``rounds`` times, the best kept (the machine is shared), the tools interleaved
    step by step so that a busy moment hits them all."""
    roots = {tool: base / f"{tool}-{entries}" for tool in TOOLS}
    for tool, root in roots.items():
        generate(root, entries, tool)
        build(root)  # untimed: compiles every module's bytecode once, as an install has it
        PEAK.pop(root.name)
    times: dict[str, dict[str, list[float]]] = {t: {s: [] for s in STEPS} for t in TOOLS}
    for r in range(rounds):
        for step in STEPS:
            for tool, root in roots.items():
                edit(root, step, r)
                times[tool][step].append(build(root))
    results = {}
    for tool, root in roots.items():
        results[tool] = {step: min(v) for step, v in times[tool].items()}
        results[tool]["peak RSS (MB)"] = PEAK[root.name]
        shutil.rmtree(root)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = [int(x) for x in os.environ.get("BENCH_ENTRIES", "300").split()]
    parser.add_argument("--entries", type=int, nargs="+", default=default,
                        help="bibliography sizes (default: $BENCH_ENTRIES or 300; 20000 takes "
                             "several minutes)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--real", action="store_true",
                        help="a .bib file of real entries (seed + shared/testdata, "
                             "benchmarks/realbib.py) instead of generated ones")
    args = parser.parse_args()
    global REAL  # noqa: PLW0603 - one switch for the whole run
    REAL = args.real
    sizes = args.entries
    # bytecode cached for every tool alike, outside the source trees (as an install has it)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "bench-pycache"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            results = run_tools(Path(tmp), n, args.rounds)
            print(f"\n== Sphinx: {CHAPTERS} chapters, {n} {'real ' if REAL else ''}entries "
                  f"(best of {args.rounds}; "
                  f"seconds; ratio to plain Sphinx) ==")
            from bytecode import engine_status

            print(f"refbook's {engine_status()}")
            print(f"{'step':<17}" + "".join(f"{t:>28}" for t in TOOLS))
            for step in STEPS:
                base = results["plain"][step]
                cells = [f"{results[t][step]:8.2f}s ({results[t][step] / base:5.2f}x)"
                         for t in TOOLS]
                print(f"{step:<17}" + "".join(f"{c:>28}" for c in cells))
            base = results["plain"]["peak RSS (MB)"]
            cells = [f"{results[t]['peak RSS (MB)']:6.0f}MB ({results[t]['peak RSS (MB)'] - base:+5.0f} MB)"
                     for t in TOOLS]
            print(f"{'peak RSS':<17}" + "".join(f"{c:>28}" for c in cells))
            rb, sb = results["sphinx_refbook"], results["sphinxcontrib-bibtex"]
            print("sphinx_refbook vs sphinxcontrib-bibtex: "
                  + ", ".join(f"{s} {rb[s] / sb[s]:.2f}x" for s in STEPS), flush=True)


if __name__ == "__main__":
    main()
