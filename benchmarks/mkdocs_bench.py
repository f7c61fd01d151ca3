"""MkDocs benchmark: plain MkDocs vs mkdocs-bibtex 4.4 vs mkdocs_refbook on one generated book.

The book: 30 pages of prose, each citing 20 keys in Pandoc syntax (``[@key]``, ``[see @a; @b, p. 3]``,
narrative ``@key``), and a ``.bib`` of N entries (default: 300 and 20,000). The same pages are
built three ways: without any citation plugin (the floor), with mkdocs-bibtex and with refbook.

Measured, side by side:

- cold build: a fresh ``python -m mkdocs build`` process (what CI pays);
- rebuild after a prose edit of a page, a citation edit and a ``.bib`` edit, in one long-lived process that reloads the
  config and builds again as ``mkdocs serve`` does (plugins with ``on_startup`` are kept).

Prints seconds and the ratios to plain MkDocs and to mkdocs-bibtex. Usage::

    .venv/bin/python benchmarks/mkdocs_bench.py [--entries 300 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

PAGES = 30
CITES_PER_PAGE = 20
TOOLS = ("plain", "mkdocs-bibtex", "refbook")
SURNAMES = ("Smith", "Nguyen", "Garcia", "Müller", "Kowalski", "Tanaka", "Okafor", "Silva",
            "Novak", "Hansen", "Rossi", "Dubois", "Kim", "Patel", "Cohen", "Ivanova")
WORDS = ("scalable", "training", "inference", "memory", "model", "systems", "efficient", "large",
         "language", "distributed", "evaluation", "kernels", "storage", "energy", "quantized")


def make_bib(n: int, rng: random.Random) -> str:
    out = []
    for i in range(n):
        authors = " and ".join(f"{rng.choice(SURNAMES)}, {chr(65 + rng.randrange(26))}."
                               for _ in range(rng.randint(1, 4)))
        title = " ".join(rng.choice(WORDS) for _ in range(6)).capitalize()
        out.append(
            f"@article{{key{i:05d},\n  author = {{{authors}}},\n  title = {{{title}}},\n"
            f"  journal = {{Journal of {rng.choice(WORDS).capitalize()}}},\n"
            f"  year = {{{rng.randint(1990, 2025)}}},\n  volume = {{{rng.randint(1, 60)}}},\n"
            f"  pages = {{{rng.randint(1, 500)}--{rng.randint(501, 900)}}},\n}}\n")
    return "\n".join(out)


def make_page(p: int, n: int, rng: random.Random) -> str:
    lines = [f"# Chapter {p + 1}", ""]
    for c in range(CITES_PER_PAGE):
        key = f"key{rng.randrange(min(n, 600)):05d}" if p or c else "key00000"
        if c % 10 == 0:
            lines.append(f"## Section {c // 10 + 1}\n")
        text = " ".join(rng.choice(WORDS) for _ in range(40))
        lines.append(f"{text.capitalize()} [@{key}].\n")
    lines.append("```python\n@decorator\ndef f(x):\n    return x\n```\n")
    return "\n".join(lines)


def make_project(root: Path, tool: str, n: int) -> Path:
    rng = random.Random(20_000)  # noqa: S311 - reproducible test data, not security
    docs = root / "docs"
    docs.mkdir(parents=True)
    (root / "refs.bib").write_text(make_bib(n, rng), encoding="utf-8")
    for p in range(PAGES):
        (docs / f"ch{p:02d}.md").write_text(make_page(p, n, rng), encoding="utf-8")
    (docs / "index.md").write_text("# Book\n\nA generated book.\n", encoding="utf-8")
    config: dict[str, object] = {"site_name": f"bench {tool}", "site_dir": "site",
                                 "markdown_extensions": ["footnotes", "fenced_code"]}
    if tool == "mkdocs-bibtex":
        config["plugins"] = [{"bibtex": {"bib_file": "refs.bib"}}]
    elif tool == "refbook":
        config["plugins"] = [{"refbook": {"bib_files": ["refs.bib"]}}]
    else:
        config["plugins"] = []
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def cold_build(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(root / "mkdocs.yml")],
                   check=True, cwd=root)
    return time.perf_counter() - start


def rebuild_driver(root: Path, rounds: int) -> dict[str, float]:
    """Runs inside a fresh process: a first build, then serve-like rebuilds after edits."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.ERROR)

    def one_build() -> float:
        start = time.perf_counter()
        cfg = load_config(config_file=str(root / "mkdocs.yml"))
        cfg.plugins.on_startup(command="serve", dirty=False)
        build(cfg)
        return time.perf_counter() - start

    first = one_build()
    prose_times, page_times, bib_times = [], [], []
    page = root / "docs" / "ch00.md"
    bib = root / "refs.bib"
    for r in range(rounds):
        page.write_text(page.read_text(encoding="utf-8") + f"\nProse edit {r}.\n", encoding="utf-8")
        prose_times.append(one_build())
        page.write_text(page.read_text(encoding="utf-8") + f"\nEdit {r} [@key{r + 1:05d}].\n",
                        encoding="utf-8")
        page_times.append(one_build())
        # a new year for the first entry (cited): every citation of it changes
        text = bib.read_text(encoding="utf-8")
        bib.write_text(re.sub(r"year = \{\d+\}", f"year = {{{1900 + r}}}", text, count=1),
                       encoding="utf-8")
        time.sleep(0.01)  # distinct mtimes: mkdocs-bibtex decides on them
        bib_times.append(one_build())
    return {"first": first, "prose": statistics.median(prose_times),
            "page": statistics.median(page_times), "bib": statistics.median(bib_times)}


def rebuild(root: Path, rounds: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--driver", str(root), "--rounds", str(rounds)],
                         check=True, capture_output=True, text=True, cwd=root)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def ratio(a: float, b: float) -> str:
    return f"{a / b:5.2f}x" if b > 0 else "  -  "


def run(entries: list[int], rounds: int) -> None:
    for n in entries:
        print(f"\n== {PAGES} pages x {CITES_PER_PAGE} citations, {n} bibliography entries ==",
              flush=True)
        results: dict[str, dict[str, float]] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for tool in TOOLS:
                root = make_project(Path(tmp) / tool, tool, n)
                cold = cold_build(root)
                warm = rebuild(root, rounds)
                results[tool] = {"cold": cold, **warm}
                print(f"  {tool:14s} cold {cold:7.2f} s   rebuild after: prose edit {warm['prose']:6.2f} s"
                      f"   citation edit {warm['page']:6.2f} s   .bib edit {warm['bib']:6.2f} s",
                      flush=True)
        plain, bibtex, ours = results["plain"], results["mkdocs-bibtex"], results["refbook"]
        print("  ratios (refbook / plain MkDocs, refbook / mkdocs-bibtex):")
        labels = {"cold": "cold build", "prose": "rebuild (prose edit)",
                  "page": "rebuild (citation edit)", "bib": "rebuild (.bib edit)"}
        for what, label in labels.items():
            print(f"    {label:22s} {ratio(ours[what], plain[what])}   {ratio(ours[what], bibtex[what])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[300, 20_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--driver", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver is not None:
        print(json.dumps(rebuild_driver(args.driver, args.rounds)))
        return
    run(args.entries, args.rounds)


if __name__ == "__main__":
    main()
