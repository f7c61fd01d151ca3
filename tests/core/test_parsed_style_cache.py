"""A parsed style is kept in the host's cache folder (``refbook.styles.keep_parsed_styles_in``):
the next build process reads it from there instead of parsing the style's XML, checking it and
assembling its locale again, and formats the same. An edited style file is parsed again (its
digest names the kept file); a planted or corrupt file is a miss (the folder's seal). Counted
(style files parsed), never timed; each "new process" forgets what the process holds."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

from refbook import styles
from refbook.csl import Date, DatePart, Item, Name
from refbook.ir import Text
from refbook.render.text import to_text
from refbook.styles.csl import style as style_module

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

ITEMS = [Item(f"k{i}", "book", text=(("title", (Text(f"Title {i}"),)),
                                     ("publisher", (Text("Press"),))),
              names=(("author", (Name(family=f"Author{i % 3}", given="Ann"),)),),
              dates=(("issued", Date(start=DatePart(2000 + i)),),))
         for i in range(6)]


@pytest.fixture(autouse=True)
def _new_process() -> Iterator[None]:
    yield
    styles.keep_parsed_styles_in(None)
    styles._kept_style.cache_clear()


def _fresh(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A new process: no parsed style in memory; the style files parsed from now on, counted
    (``load_style`` reads a file through ``_parse``)."""
    styles._kept_style.cache_clear()
    style_module.load_style.cache_clear()
    parsed: list[str] = []
    real = style_module._parse

    def counting(path: Path) -> object:
        parsed.append(str(path))
        return real(path)

    monkeypatch.setattr(style_module, "_parse", counting)
    return parsed


def _listed(style: styles.CslStyle) -> list[str]:
    return [to_text(x) for _, x in style.processor(ITEMS, memo={}).bibliography()]


def test_the_next_process_reads_the_parsed_style_from_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    csl = tmp_path / "mine.csl"
    shutil.copyfile(styles.DATA / "chicago-author-date.csl", csl)
    folder = tmp_path / "cache"
    styles.keep_parsed_styles_in(folder)
    with monkeypatch.context() as m:
        parsed = _fresh(m)
        first = _listed(styles.get_style(str(csl)))
        assert len(parsed) == 1  # parsed, and kept
    assert len(list(folder.glob("parsed-style-*.pickle"))) == 1
    with monkeypatch.context() as m:
        parsed = _fresh(m)
        style = styles.get_style(str(csl))
        assert _listed(style) == first
        assert style.style().locale.lang == "en-US"
        assert parsed == []  # read from the folder: no XML parsed
    # an edited style file has another digest: parsed again
    csl.write_text(csl.read_text(encoding="utf-8").replace("<title>", "<title>Edited "),
                   encoding="utf-8")
    with monkeypatch.context() as m:
        parsed = _fresh(m)
        assert _listed(styles.get_style(str(csl))) == first
        assert len(parsed) == 1
    # a corrupt kept file is a miss: parsed again, the same output, the file rewritten
    for kept in folder.glob("parsed-style-*.pickle"):
        kept.write_bytes(kept.read_bytes()[:200])
    with monkeypatch.context() as m:
        parsed = _fresh(m)
        assert _listed(styles.get_style(str(csl))) == first
        assert len(parsed) == 1
    # without a folder nothing is kept or read
    styles.keep_parsed_styles_in(None)
    with monkeypatch.context() as m:
        parsed = _fresh(m)
        assert _listed(styles.get_style(str(csl))) == first
        assert len(parsed) == 1
