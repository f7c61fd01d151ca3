"""Fixtures for the Sphinx extension's tests: test roots under ``roots/test-*`` and a helper
that builds a copy of a root in a temporary folder (so that tests may edit it)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sphinx.testing.fixtures import (  # the fixtures of sphinx.testing, for this folder only
    _shared_result_cache,
    app,
    app_params,
    make_app,
    pytest_configure,
    shared_result,
    sphinx_test_tempdir,
    status,
    test_params,
    warning,
)
from sphinx.util.console import strip_colors

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.testing.util import SphinxTestApp

# ``pytest_plugins = "sphinx.testing.fixtures"`` is only allowed in the top-level conftest, so the
# fixtures are imported here instead; importing is what registers them.
__all__ = ["_shared_result_cache", "app", "app_params", "make_app", "pytest_configure",
           "shared_result", "sphinx_test_tempdir", "status", "test_params", "warning"]

ROOTS = Path(__file__).parent / "roots"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


class Built:
    """A finished build: the app, its output folder and its warnings (colours stripped)."""

    def __init__(self, app: SphinxTestApp) -> None:
        self.app = app
        self.outdir = Path(app.outdir)
        self.srcdir = Path(app.srcdir)
        self.warnings = strip_colors(app.warning.getvalue())

    def read(self, name: str) -> str:
        return (self.outdir / name).read_text(encoding="utf-8")


@pytest.fixture
def copy_root(tmp_path: Path) -> Callable[[str], Path]:
    def copy(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(ROOTS / f"test-{name}", dest)
        return dest

    return copy


@pytest.fixture
def build(make_app: Callable[..., SphinxTestApp]) -> Callable[..., Built]:
    def run(srcdir: Path, buildername: str = "html", **kwargs: Any) -> Built:
        app = make_app(buildername, srcdir=srcdir, **kwargs)
        try:
            app.build()
            return Built(app)
        finally:
            # undo docutils' global role/directive registrations before the next app
            app.cleanup()

    return run
