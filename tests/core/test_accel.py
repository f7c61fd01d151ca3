"""The compiled engine (refbook.accel): used when built and current, never when stale, and the
same output as plain Python.

Each check runs in a new process: which modules a process loads is decided once, when refbook
is first imported. The comparison renders the seed and biblatex-examples in five styles and
both hosts' formats with the compiled modules and with ``REFBOOK_PURE=1``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from refbook import accel
from tests.conftest import SEED, TESTDATA
from tests.core.test_validate_output_cost import cyclic_garbage

ROOT = Path(__file__).resolve().parents[2]
BUILT = accel.read_manifest() is not None

#: with CI=true the compiled engine must have been built (make accel --require): a CI run that
#: silently tested plain Python twice would hide a broken build
needs_build = pytest.mark.skipif(
    not BUILT and os.environ.get("CI") != "true",
    reason="the compiled engine is not built here (make accel needs a C compiler)")

PROBE = """
import sys
import refbook
from refbook import accel
import refbook.styles.csl.engine as engine
print(accel.active(), engine.__file__)
"""

RENDER = r"""
import sys
from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.render.html import to_html
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook import accel
out = [str(accel.active())]
for bib in sys.argv[1:]:
    data = read_bibliography([bib])
    for name in ("chicago-author-date", "apa", "ieee", "chicago-notes-bibliography",
                 "din-1505-2"):
        style = get_style(name)
        items = items_for(data, style.language)
        keys = list(dict.fromkeys(e.key for e in data if e.type != "xdata"))
        processor = style.processor(items.many(keys))
        for key, entry in processor.bibliography():
            out.append(f"{name}\t{key}\t{to_text(entry)}\t{to_html(entry)}")
        from refbook.styles.csl.processor import CiteItem
        for key in keys[:40]:
            out.append(f"{name}\tcite\t{key}\t{to_text(processor.cite([CiteItem(key)]))}")
print("\n".join(out))
"""


def _run(code: str, *args: str, pure: bool = False, cwd: Path = ROOT) -> str:
    env = {k: v for k, v in os.environ.items() if k != "REFBOOK_PURE"}
    if pure:
        env["REFBOOK_PURE"] = "1"
    env["PYTHONPATH"] = str(cwd)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@needs_build
def test_the_compiled_modules_are_used_when_built_and_current() -> None:
    active, where = _run(PROBE).split()
    assert active == "True"
    assert where.endswith(".so")
    assert Path(where).parent == accel.FOLDER


def test_refbook_pure_turns_them_off() -> None:
    active, where = _run(PROBE, pure=True).split()
    assert active == "False"
    assert where.endswith("engine.py")


@needs_build
def test_a_changed_source_makes_the_build_unused(tmp_path: Path) -> None:
    """A copy of the package whose one source differs by a comment: stale, so plain Python
    (the compiled modules call each other in C: all of them or none)."""
    copy = tmp_path / "refbook"
    shutil.copytree(ROOT / "refbook", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert _run(PROBE, cwd=tmp_path).split()[0] == "True"  # the copy as built: still current
    names = copy / "names.py"
    names.write_text(names.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    active, where = _run(PROBE, cwd=tmp_path).split()
    assert active == "False"
    assert where == str(copy / "styles" / "csl" / "engine.py")


@needs_build
def test_a_touched_but_unchanged_source_keeps_the_build(tmp_path: Path) -> None:
    """A checkout that rewrites files with the same contents (new modification times) keeps
    the build: the contents' digest decides when the sizes and times differ."""
    copy = tmp_path / "refbook"
    shutil.copytree(ROOT / "refbook", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.rglob("*.py"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    assert _run(PROBE, cwd=tmp_path).split()[0] == "True"


@needs_build
def test_a_truncated_manifest_or_build_is_not_used(tmp_path: Path) -> None:
    copy = tmp_path / "refbook"
    shutil.copytree(ROOT / "refbook", copy, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = copy / "_compiled" / "manifest.txt"
    lines = manifest.read_text(encoding="utf-8").splitlines()
    manifest.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    assert _run(PROBE, cwd=tmp_path).split()[0] == "False"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    next((copy / "_compiled").glob("refbook.latex*")).unlink()
    assert _run(PROBE, cwd=tmp_path).split()[0] == "False"


@needs_build
def test_compiled_and_plain_python_give_the_same_output() -> None:
    """The seed and biblatex-examples (every entry type, most fields) in an author-date, an
    APA, a numeric, a note and a German style: every entry and 40 citations, text and HTML,
    identical with and without the compiled modules."""
    bibs = [str(SEED / "references.bib"), str(TESTDATA / "biblatex" / "biblatex-examples.bib")]
    compiled = _run(RENDER, *bibs).splitlines()
    plain = _run(RENDER, *bibs, pure=True).splitlines()
    assert compiled[0] == "True"
    assert plain[0] == "False"
    assert len(compiled) > 2000
    assert compiled[1:] == plain[1:]


@pytest.mark.parametrize("name", ["chicago-author-date", "apa", "din-1505-2"])
def test_a_processor_with_year_suffixes_and_sorted_cites_leaves_no_cycle(name: str) -> None:
    """Compiled by mypyc, a nested function that calls another one (or holds a lambda) and the
    environment they share refer to each other: a processor whose year-suffix order or
    citation sort used one stayed alive until the next collection (the validation rules pause
    the collector). biblatex-examples has works to tell apart by year suffixes; the cites are
    sorted, suppress the author and carry locators. Nothing may be left to the collector, in
    either build."""
    from refbook.bibtex_csl import entry_to_item
    from refbook.readers import read_bibliography
    from refbook.render.text import to_text
    from refbook.styles import get_style
    from refbook.styles.csl.processor import CiteItem

    style = get_style(name)
    entries = read_bibliography([str(TESTDATA / "biblatex" / "biblatex-examples.bib"),
                                 str(SEED / "references.bib")])
    items = list({e.key: entry_to_item(e) for e in entries if e.type != "xdata"}.values())
    style.processor(items[:1], memo={}).bibliography()  # the style read (once per process)
    suffixed = []

    def run() -> None:
        processor = style.processor(items, memo={})
        suffixed.append(sum(1 for d in processor.disamb.values() if d.year_suffix))
        texts = [to_text(n) for _, n in processor.bibliography()]
        ids = [i.id for i in items]
        cites = [processor.cite([CiteItem(a), CiteItem(b, mode="suppress-author"),
                                 CiteItem(c, locator="3")])
                 for a, b, c in zip(ids, ids[5:], ids[9:], strict=False)]
        del processor, texts, cites

    assert cyclic_garbage(run) == (0, [])
    assert suffixed[0] >= 2  # the path that sorts ambiguous works for their suffixes ran
