"""Helpers for the MkDocs build tests: a temporary project, built with MkDocs' own build()."""

from __future__ import annotations

import logging
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
import yaml

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

BIB = """\
@article{smith2020a,
  author = {Smith, John},
  title = {Alpha Results},
  journal = {Journal of Tests},
  year = {2020},
}

@article{smith2020b,
  author = {Smith, John},
  title = {Beta Results},
  journal = {Journal of Tests},
  year = {2020},
}

@book{doe2019,
  author = {Doe, Jane and Roe, Richard},
  title = {A Book about Things},
  publisher = {Example Press},
  year = {2019},
}

@misc{odd.key:x/y,
  author = {Odd, Otto},
  title = {Odd Keys Considered},
  year = {2018},
  url = {https://example.org/odd},
}

@article{lee2021,
  author = {Lee, Kim},
  title = {Linked Things},
  journal = {Journal of Links},
  year = {2021},
  doi = {10.1234/abcd},
}

@misc{uncited2017,
  author = {Nobody, Ned},
  title = {Never Cited},
  year = {2017},
}
"""


@dataclass
class Project:
    root: Path

    def page(self, path: str, text: str) -> None:
        p = self.root / "docs" / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")

    def html(self, path: str) -> str:
        return (self.root / "site" / path).read_text(encoding="utf-8")

    def configure(self, plugin: dict[str, Any] | None = None, **config: Any) -> None:
        options: dict[str, Any] = {"bib_files": ["refs.bib"]}
        options.update(plugin or {})
        data: dict[str, Any] = {"site_name": "Test book", "plugins": [{"refbook": options}]}
        data.update(config)
        (self.root / "mkdocs.yml").write_text(yaml.safe_dump(data), encoding="utf-8")

    def build(self, **overrides: Any) -> None:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        cfg = load_config(config_file=str(self.root / "mkdocs.yml"), **overrides)
        cfg.plugins.on_startup(command="build", dirty=False)
        try:
            build(cfg)
        finally:
            cfg.plugins.on_shutdown()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    (tmp_path / "docs").mkdir()
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    proj = Project(tmp_path)
    proj.configure()
    return proj


@pytest.fixture
def refbook_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Records what the plugin logs (through MkDocs' plugin logger)."""
    caplog.set_level(logging.INFO, logger="mkdocs")
    return caplog


def refbook_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the plugin warned about, without the logger's ``refbook: `` prefix."""
    out = []
    for r in caplog.records:
        if r.name == "mkdocs.plugins.refbook.mkdocs" and r.levelno >= logging.WARNING:
            message = r.getMessage()
            assert message.startswith("refbook: ")
            out.append(message.removeprefix("refbook: "))
    return out


@pytest.fixture(autouse=True)
def _serve_stops() -> Iterator[None]:
    """A test that builds as ``mkdocs serve`` does (``on_startup(command="serve")``) without
    stopping it leaves cache writes deferred (``refbook.sealed.defer_writes``, process-wide);
    stopping here (``sealed.flush``) keeps the next test's writes its own."""
    yield
    from refbook import sealed

    sealed.flush()


def forget_plugins() -> None:
    """Drop the plugin instances MkDocs keeps between configs of one process (it keeps those
    with ``on_startup``, for ``mkdocs serve``): the next build starts with a new plugin, as a new
    build process does."""
    from mkdocs.config import config_options
    from mkdocs.config.defaults import MkDocsConfig

    for _, option in MkDocsConfig._schema:
        if isinstance(option, config_options.Plugins):
            option.plugin_cache.clear()
