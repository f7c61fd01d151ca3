"""Shared test fixtures: where the shared data lives and how to run the pandoc oracle."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _shared_folder() -> Path:
    """The shared data (seed book, testdata): ``$REFBOOK_SHARED``, else ``shared/`` beside the
    checkout, else beside the local repository this checkout was cloned from (a throwaway
    clone made to rehearse CI). Never fetched from the network."""
    env = os.environ.get("REFBOOK_SHARED")
    if env:
        return Path(env)
    beside = ROOT.parent / "shared"
    if (beside / "seed").is_dir():
        return beside
    try:
        origin = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"],
                                capture_output=True, text=True, check=False, timeout=10).stdout
    except OSError:
        return beside
    origin_path = Path(origin.strip())
    if origin.strip() and origin_path.is_dir() and (origin_path.parent / "shared" / "seed").is_dir():
        return origin_path.resolve().parent / "shared"
    return beside


def pytest_configure(config: pytest.Config) -> None:
    """Seal the caches of the whole run (this process and every build it starts: subprocesses
    inherit ``os.environ``) with a fixed test key, so that the suite never creates or reads the
    user's own key file under ``~/.config``. The key-file tests unset it for themselves."""
    from refbook.sealed import KEY_ENV

    os.environ[KEY_ENV] = "refbook test suite: not a secret"


@pytest.fixture(autouse=True)
def _no_cache_in_the_checkout(monkeypatch: pytest.MonkeyPatch,
                              tmp_path_factory: pytest.TempPathFactory) -> None:
    """A build of a book inside the checkout (the example book's ``mkdocs.yml``) keeps its
    MkDocs cache in a temporary folder, not in ``example_book/.cache``: the suite never writes
    into the source tree, and a cache left there by ``make example`` (sealed with the user's key,
    not the suite's) never adds an info line to a build that must say nothing."""
    try:
        from mkdocs_refbook import options
    except ImportError:  # the Sphinx matrix venvs (tests/matrix.sh) have no MkDocs
        return

    real = options._cache_dir
    redirected = tmp_path_factory.mktemp("refbook-cache")

    def cache_dir(value: object, root: str) -> str | None:
        path = real(value, root)
        if path is not None and Path(path).is_relative_to(ROOT):
            return str(redirected / Path(path).relative_to(ROOT))
        return path

    monkeypatch.setattr(options, "_cache_dir", cache_dir)


SHARED = _shared_folder()
SEED = SHARED / "seed"
TESTDATA = SHARED / "testdata"


def _compiled() -> bool:
    from refbook import accel

    return accel.active()


#: A test that counts the engine's work by patching its Python functions, methods or classes
#: (``monkeypatch.setattr(Evaluator, "layout", counting)``). The compiled engine
#: (``refbook.accel``, the same source compiled by mypyc) calls those in C, where a patch is not
#: seen, so the count would read zero. ``make test`` runs ``tests/core`` a second time as plain
#: Python (``REFBOOK_PURE=1``): that run counts, with the same code. Where the compiled engine
#: is in use the test is skipped, and says why.
counts_python_calls = pytest.mark.skipif(
    _compiled(), reason="counts calls by patching the engine's Python code, which the compiled "
    "engine calls in C; counted in make test's plain-Python run (REFBOOK_PURE=1)")


@pytest.fixture(scope="session")
def pandoc() -> str:
    import pypandoc

    return str(pypandoc.get_pandoc_path())


#: a Markdown document that cites every entry of its bibliography (pandoc's ``nocite: '@*'``)
NOCITE_ALL = "---\nnocite: '@*'\n---\n"


def pandoc_render(pandoc: str, markdown: str, bib: Path | str, *, to: str = "plain",
                  csl: Path | str | None = None) -> str:
    """Run pandoc --citeproc on a Markdown string: with its built-in style (Chicago
    author-date) or the ``csl`` file; the output as text (no line wrapping)."""
    out = subprocess.run(
        [pandoc, "-f", "markdown", "-t", to, "--wrap=none", "--citeproc", f"--bibliography={bib}",
         *([f"--csl={csl}"] if csl is not None else [])],
        input=markdown, capture_output=True, text=True, check=True, timeout=120,
    )
    return out.stdout


def counted_conversions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys of the entries converted to CSL items from now on (``refbook.items``), in
    order: builds are compared by the work they do, never by their time."""
    from refbook import items as items_module

    converted: list[str] = []
    real = items_module.entry_to_item

    def converting(entry: Any, **kw: Any) -> Any:
        converted.append(entry.key)
        return real(entry, **kw)

    monkeypatch.setattr(items_module, "entry_to_item", converting)
    return converted


def recorded_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """The first argument of each call of ``owner.name`` from now on, in order (the function
    still runs): work compared by counts, never by time."""
    calls: list[Any] = []
    real = getattr(owner, name)

    def recording(*args: Any, **kw: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(*args, **kw)

    monkeypatch.setattr(owner, name, recording)
    return calls


def pandoc_cites(pandoc: str, folder: Path, items: list[dict[str, Any]], csl: Path | str,
                 markdown: str, *, to: str = "plain") -> str:
    """:func:`pandoc_render` of CSL-JSON ``items`` (written to ``folder/items.json``)."""
    data = folder / "items.json"
    data.write_text(json.dumps(items), encoding="utf-8")
    return pandoc_render(pandoc, markdown, data, to=to, csl=csl)


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


@pytest.fixture(scope="session")
def example_style_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    """The example book built once per session by both hosts in three kinds of style (see
    ``tests/test_example_styles.py``), shared with the browser test of the same builds."""
    from tests.test_example_styles import build_all

    return dict(build_all(tmp_path_factory.mktemp("example-styles")))
