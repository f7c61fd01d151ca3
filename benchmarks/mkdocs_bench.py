"""MkDocs benchmark: plain MkDocs vs mkdocs-bibtex 4.4 vs mkdocs_refbook on one generated book.

The book: 30 pages of prose, each citing 20 keys in Pandoc syntax (``[@key]``, ``[see @a; @b, p. 3]``,
narrative ``@key``), and a ``.bib`` of N entries (default: 300 and 20,000). The same pages are
built three ways: without any citation plugin (the floor), with mkdocs-bibtex and with refbook.

Measured, side by side:

- cold build: a fresh ``python -m mkdocs build`` process (what CI pays);
- rebuild after a prose edit of a page, a citation edit and a ``.bib`` edit, in one long-lived process that reloads the
  config and builds again as ``mkdocs serve`` does (plugins with ``on_startup`` are kept; the
  plugins' ``on_serve`` runs after the first build, as before serving).

- cold build with a warm refbook cache: the same, keeping the ``.cache/refbook`` the previous
  build wrote (a CI run that restores its cache; the other tools keep nothing, their row repeats
  their cold build);
- peak memory: the largest resident set of a cold build process (``wait4``).

Prints a table of the best of ``--rounds`` runs, side by side, with the ratios to plain MkDocs
and refbook's to mkdocs-bibtex. The 20,000-entry rows are not run by default (minutes)::

    .venv/bin/python benchmarks/mkdocs_bench.py [--entries 300 20000] [--rounds 3]
    BENCH_ENTRIES="300 20000" make bench
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
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


def real() -> bool:
    """``--real``: a .bib file of real entries (benchmarks/realbib.py); an environment variable,
    so that the serve driver (a process of its own) edits the same kind of file."""
    return os.environ.get("BENCH_REAL") == "1"


def edit_bib(bib: Path, r: int) -> None:
    """A change to the first entry (cited): a new year, or with real entries a new title (made
    by a child process: the text of 20,000 real entries would add ~80 MB to the serve driver's
    measured peak, for every tool)."""
    if real():
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from realbib import edit_title_file

        edit_title_file(bib, "key00000", r)
        return
    text = bib.read_text(encoding="utf-8")
    bib.write_text(re.sub(r"year = \{\d+\}", f"year = {{{1900 + r}}}", text, count=1),
                   encoding="utf-8")


def make_project(root: Path, tool: str, n: int) -> Path:
    rng = random.Random(20_000)  # noqa: S311 - reproducible test data, not security
    docs = root / "docs"
    docs.mkdir(parents=True)
    if real():
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from realbib import write_real_bib

        write_real_bib(n, root / "refs.bib")
    else:
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


def timed_process(command: list[str], cwd: Path, env: dict[str, str] | None = None,
                  ) -> tuple[float, float]:
    """Run ``command``; its wall-clock seconds and the peak RSS of that process in MB
    (``wait4``'s own resource usage of the child, not the maximum over all children).
    Without ``env``: refbook as installed (benchmarks/bytecode.py)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env or installed(), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, command)
    return elapsed, usage.ru_maxrss / 1024  # kilobytes on Linux


_ENV: dict[str, str] = {}


def installed() -> dict[str, str]:
    """the environment of every timed process: refbook's bytecode compiled, as installed"""
    if not _ENV:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bytecode import installed_env

        _ENV.update(installed_env())
    return _ENV


def cold_build(root: Path, *, keep_cache: bool = False) -> tuple[float, float]:
    """A new ``mkdocs build`` process. Without ``keep_cache`` refbook's cache folder is deleted
    first (the first CI run); with it, the folder the previous build left is used (a CI run that
    restored it)."""
    if not keep_cache:
        shutil.rmtree(root / ".cache", ignore_errors=True)
    return timed_process([sys.executable, "-m", "mkdocs", "build", "-q", "-f",
                          str(root / "mkdocs.yml")], root)


def rebuild_driver(root: Path, rounds: int) -> dict[str, float]:
    """Runs inside a fresh process: a first build, then serve-like rebuilds after edits."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    logging.getLogger("mkdocs").setLevel(logging.ERROR)

    built = []  # the config of the last build

    def one_build() -> float:
        start = time.perf_counter()
        cfg = load_config(config_file=str(root / "mkdocs.yml"))
        cfg.plugins.on_startup(command="serve", dirty=False)
        build(cfg)
        built[:] = [cfg]
        return time.perf_counter() - start

    class Server:  # what plugins' on_serve use of MkDocs' LiveReloadServer: watch
        def watch(self, path: str, *args: object, **kwargs: object) -> None:
            pass

    first = one_build()
    # as `mkdocs serve` does between its first build and serving: the plugins' on_serve, with
    # that build's config
    cfg = built[0]
    cfg.plugins.on_serve(Server(), config=cfg, builder=one_build)
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
        edit_bib(bib, r)
        time.sleep(0.01)  # distinct mtimes: mkdocs-bibtex decides on them
        bib_times.append(one_build())
    import resource

    return {"first": first, "prose": min(prose_times), "page": min(page_times),
            "bib": min(bib_times),
            "rss_serve": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def rebuild(root: Path, rounds: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--driver", str(root), "--rounds", str(rounds)],
                         check=True, capture_output=True, text=True, cwd=root, env=installed())
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "-"


ROWS = (("cold", "cold build (new process)"),
        ("warm", "cold, warm refbook cache"),
        ("prose", "serve: prose edit"),
        ("page", "serve: citation edit"),
        ("bib", "serve: .bib edit"))


def measure(roots: dict[str, Path], rounds: int) -> dict[str, dict[str, float]]:
    """Best of ``rounds`` for each row (the machine is shared: the best run is the least
    disturbed), the tools interleaved within each round so that a busy moment hits them all,
    and the largest peak RSS of each kind of build."""
    for root in roots.values():
        cold_build(root)  # untimed: compiles every module's bytecode once, as an install has it
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {
        tool: {"cold": [], "warm": []} for tool in roots}
    for _ in range(rounds):
        for tool, root in roots.items():
            runs[tool]["cold"].append(cold_build(root))
            if tool == "refbook":  # the cache the cold build just wrote, as a CI cache restores it
                runs[tool]["warm"].append(cold_build(root, keep_cache=True))
    results: dict[str, dict[str, float]] = {}
    for tool in roots:
        warm = runs[tool]["warm"] or runs[tool]["cold"]  # the others keep nothing: same as cold
        results[tool] = {"cold": min(t for t, _ in runs[tool]["cold"]),
                         "rss": max(m for _, m in runs[tool]["cold"]),
                         "warm": min(t for t, _ in warm), "rss_warm": max(m for _, m in warm)}
    for tool, root in roots.items():
        results[tool].update(rebuild(root, rounds))
    return results


def run(entries: list[int], rounds: int) -> None:
    # Bytecode is cached for every tool alike, outside the source trees (an installed package
    # has its .pyc files; this environment may forbid writing them next to the sources).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "bench-pycache"))
    for n in entries:
        print(f"\n== MkDocs: {PAGES} pages x {CITES_PER_PAGE} citations, {n} "
              f"{'real ' if real() else ''}bibliography "
              f"entries (best of {rounds}; seconds; ratio to plain MkDocs) ==", flush=True)
        installed()
        from bytecode import engine_status

        print(f"refbook's {engine_status()}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            roots = {tool: make_project(Path(tmp) / tool, tool, n) for tool in TOOLS}
            results = measure(roots, rounds)
        plain, bibtex, ours = results["plain"], results["mkdocs-bibtex"], results["refbook"]
        print(f"{'':28s}{'plain':>10s}{'mkdocs-bibtex':>22s}{'refbook':>22s}{'refbook/bibtex':>16s}")
        for what, label in ROWS:
            print(f"{label:28s}{plain[what]:9.2f}s"
                  f"{bibtex[what]:13.2f}s ({ratio(bibtex[what], plain[what]):>6s})"
                  f"{ours[what]:13.2f}s ({ratio(ours[what], plain[what]):>6s})"
                  f"{ratio(ours[what], bibtex[what]):>16s}")
        for key, label in (("rss", "peak RSS, cold build"), ("rss_warm", "peak RSS, warm cache"),
                           ("rss_serve", "peak RSS, serve process")):
            print(f"{label:28s}{plain[key]:8.0f}MB"
                  f"{bibtex[key]:12.0f}MB ({bibtex[key] - plain[key]:+5.0f} MB)"
                  f"{ours[key]:12.0f}MB ({ours[key] - plain[key]:+5.0f} MB)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = [int(x) for x in os.environ.get("BENCH_ENTRIES", "300").split()]
    parser.add_argument("--entries", type=int, nargs="+", default=default,
                        help="bibliography sizes (default: $BENCH_ENTRIES or 300; 20000 takes "
                             "several minutes)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--driver", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--real", action="store_true",
                        help="a .bib file of real entries (seed + shared/testdata, "
                             "benchmarks/realbib.py) instead of generated ones")
    args = parser.parse_args()
    if args.real:
        os.environ["BENCH_REAL"] = "1"
    if args.driver is not None:
        print(json.dumps(rebuild_driver(args.driver, args.rounds)))
        return
    run(args.entries, args.rounds)


if __name__ == "__main__":
    main()
