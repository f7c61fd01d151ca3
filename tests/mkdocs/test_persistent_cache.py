"""The MkDocs plugin's persistent cache (``cache_dir``, default ``.cache/refbook`` next to
``mkdocs.yml``): a build with a warm cache, a cold one and one without a cache write the same
site byte for byte; a corrupt, truncated, foreign-version or planted cache is ignored with one
info line (``--strict`` stays green) and rebuilt; a warm cache parses and formats nothing."""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from refbook import cachedir, readers, sealed
from tests.conftest import counted_conversions
from tests.core.test_sealed_caches import new_process, plant

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

PAGES = {
    "index.md": "# Home\n\nSee [@smith2020a; @smith2020b] and @doe2019 [p. 3].\n",
    "more.md": "# More\n\nAlso [-@lee2021] and [see @odd.key:x/y].\n\n## Notes\n\n[@doe2019]\n",
}


def site_tree(root: Path) -> dict[str, bytes]:
    """Every file the build wrote, by path (``sitemap.xml.gz`` decompressed: gzip's header
    holds a time stamp, its content is what a build decides)."""
    out = {}
    for p in sorted((root / "site").rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            out[str(p.relative_to(root / "site"))] = gzip.decompress(data) \
                if p.suffix == ".gz" else data
    return out


@pytest.fixture(autouse=True)
def _fixed_build_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")


def make(project: Project, *, bad_entry: bool = False, **plugin: object) -> Project:
    for name, text in PAGES.items():
        project.page(name, text)
    bib = project.root / "refs.bib"
    if bad_entry and "bad1999" not in bib.read_text(encoding="utf-8"):
        # a .bib problem the checks report (a warning: not with --strict)
        with bib.open("a", encoding="utf-8") as fh:
            fh.write("\n@article{bad1999, author = {Bad, Bob}, title = {T}, year = {19x9}}\n")
    project.configure(plugin)
    return project


def cli_build(root: Path, *, strict: bool = True) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` in a new process, as CI runs it."""
    # a fixed build date: MkDocs writes it into every page
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "SOURCE_DATE_EPOCH": "0"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build",
                           *(["--strict"] if strict else [])], cwd=root,
                          env=env, capture_output=True, text=True, check=False)


def log_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    """What the build said, but the line with its duration."""
    return [line for line in result.stderr.splitlines() if "Documentation built in" not in line]


def cache_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if "the cache in" in line]


def test_no_cache_cold_cache_and_warm_cache_write_the_same_site(project: Project) -> None:
    make(project, bad_entry=True, cache_dir=False)
    uncached = cli_build(project.root, strict=False)
    assert uncached.returncode == 0
    assert not (project.root / ".cache").exists()
    without = site_tree(project.root)
    make(project)  # the default: .cache/refbook
    cold = cli_build(project.root, strict=False)
    assert cold.returncode == 0, cold.stderr
    folder = project.root / ".cache" / "refbook"
    names = sorted(p.name for p in folder.iterdir())
    assert cachedir.MARKER in names
    assert "CACHEDIR.TAG" in names
    kinds = {n.split("-")[0] for n in names if n.endswith(".pickle")}
    assert {"validation", "style", "items"} <= kinds, names
    assert any(len(n) == len("0" * 40 + ".pickle") for n in names), names  # a parse
    assert site_tree(project.root) == without
    warm = cli_build(project.root, strict=False)
    assert warm.returncode == 0, warm.stderr
    assert site_tree(project.root) == without
    assert cache_lines(cold) == cache_lines(warm) == []
    # the same diagnostics, whether computed or read from the cache
    assert log_lines(uncached) == log_lines(cold) == log_lines(warm)
    assert any("bad1999" in line for line in log_lines(warm))
    assert any("uncited2017" in line for line in log_lines(warm))


def test_a_warm_cache_parses_converts_and_formats_nothing(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    make(project)
    new_process()
    project.build()
    first = site_tree(project.root)
    new_process()  # as a new `mkdocs build` process: only the disk cache is left
    parsed: list[str] = []
    real = readers.parse_bibtex

    def counting(text: str, file: str, **kw: object) -> object:
        parsed.append(file)
        return real(text, file, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(readers, "parse_bibtex", counting)
    import refbook.items as items_module
    converted: list[str] = []
    real_convert = items_module.entry_to_item

    def converting(entry: object, **kw: object) -> object:
        converted.append(getattr(entry, "key", ""))
        return real_convert(entry, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(items_module, "entry_to_item", converting)
    # the style parser's own module: refbook.styles imports it when a style is first read
    import refbook.styles.csl.style as styles_module
    loaded: list[str] = []
    real_load = styles_module.load_style

    def loading(path: str, *args: object) -> object:
        loaded.append(path)
        return real_load(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(styles_module, "load_style", loading)
    read: list[int] = []
    real_read = readers._read_now

    def reading(*args: Any) -> Any:
        read.append(1)
        return real_read(*args)

    # nor is the parse taken from the folder and built into entries: the checks and the
    # resolution are kept under the files' digests, and the bibliography is never used
    monkeypatch.setattr(readers, "_read_now", reading)
    project.build()
    assert parsed == []
    assert read == []
    assert converted == []
    assert loaded == []  # not even the style's XML: its language is kept in the folder
    assert site_tree(project.root) == first


def test_serve_parses_in_its_first_build_so_that_an_edit_waits_for_no_parse(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    # `mkdocs build` with a warm folder parses nothing (above); the first build of `mkdocs
    # serve` does parse, even then: its first citation edit (a new resolution, which needs the
    # entries) then parses nothing either
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    make(project)
    new_process()
    project.build()  # fills the folder
    new_process()
    read: list[int] = []
    real_read = readers._read_now

    def reading(*args: Any) -> Any:
        read.append(1)
        return real_read(*args)

    monkeypatch.setattr(readers, "_read_now", reading)

    def serve_build() -> None:
        cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
        cfg.plugins.on_startup(command="serve", dirty=False)
        build(cfg)

    serve_build()
    assert read == [1]  # from the folder's parse, in the first build
    project.page("more.md", PAGES["more.md"] + "\nAnd [@smith2020b].\n")
    serve_build()
    assert read == [1]
    assert "Smith" in (project.root / "site" / "more" / "index.html").read_text(encoding="utf-8")


def _logged(project: Project, caplog: pytest.LogCaptureFixture) -> list[str]:
    """What refbook logged during a build of ``project``."""
    caplog.clear()
    project.build()
    return [r.getMessage() for r in caplog.records if "refbook" in r.name]


def test_a_warm_build_that_needs_an_entry_reads_the_files_once_and_says_the_same(
        project: Project, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    # an unknown key and a key that differs in case: their diagnostics are configured per
    # entry (refbook-ignore), so the bibliography is used: parsed once, from the folder
    make(project)
    project.page("keys.md", "# Keys\n\nSee [@nosuch2020] and [@SMITH2020A].\n")
    new_process()
    cold_log = _logged(project, caplog)
    first = site_tree(project.root)
    new_process()
    read: list[int] = []
    real_read = readers._read_now

    def reading(*args: Any) -> Any:
        read.append(1)
        return real_read(*args)

    monkeypatch.setattr(readers, "_read_now", reading)
    warm_log = _logged(project, caplog)
    assert read == [1]
    assert warm_log == cold_log
    assert any("nosuch2020" in line for line in warm_log)
    assert site_tree(project.root) == first


def test_a_warm_cache_of_another_locale_is_not_taken_for_this_one(project: Project) -> None:
    make(project, locale="de-DE", cache_dir=False)
    new_process()
    project.build()
    german = site_tree(project.root)
    make(project)
    new_process()
    project.build()  # the folder now holds the English build's language and results
    assert site_tree(project.root) != german
    make(project, locale="de-DE")
    new_process()
    project.build()
    assert site_tree(project.root) == german


def _damage(folder: Path, how: str, marker: Path) -> None:
    files = sorted(p for p in folder.iterdir() if p.suffix == ".pickle")
    assert files
    for p in files:
        if how == "corrupt":
            data = bytearray(p.read_bytes())
            data[len(data) // 2] ^= 0xFF
            p.write_bytes(bytes(data))
        elif how == "truncated":
            p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 3])
        elif how == "planted":
            plant(p, marker)
        elif how == "other-key":
            # sealed correctly, but with another machine's key
            p.write_bytes(sealed.seal(b"\x80\x04N.", label=p.name, folder=None)[:17]
                          + bytes(32) + p.read_bytes()[49:])


@pytest.mark.parametrize("how", ["corrupt", "truncated", "planted", "other-key"])
def test_a_damaged_cache_is_ignored_with_one_info_line_and_rebuilt(
        project: Project, how: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    make(project)
    assert cli_build(project.root).returncode == 0
    good = site_tree(project.root)
    folder = project.root / ".cache" / "refbook"
    marker = tmp_path_factory.mktemp("m") / "marker"
    _damage(folder, how, marker)
    damaged = cli_build(project.root)
    assert damaged.returncode == 0, damaged.stderr  # --strict: an info line, no warning
    assert "WARNING" not in damaged.stderr
    lines = cache_lines(damaged)
    assert len(lines) == 1, damaged.stderr
    assert lines[0].startswith("INFO")
    assert "ignored and rebuilt" in lines[0]
    assert not marker.exists()
    assert site_tree(project.root) == good
    again = cli_build(project.root)  # healed: rewritten, reused, nothing to say
    assert cache_lines(again) == []
    assert site_tree(project.root) == good


def test_a_cache_of_another_refbook_version_is_cleared_with_one_info_line(
        project: Project) -> None:
    make(project)
    assert cli_build(project.root).returncode == 0
    good = site_tree(project.root)
    folder = project.root / ".cache" / "refbook"
    (folder / cachedir.MARKER).write_text("refbook-cache 1 refbook 0.0.1\n", encoding="utf-8")
    stale = folder / "validation-0.0.1-abcdef.pickle"
    stale.write_bytes(b"old")
    mine = folder / "notes.txt"  # not refbook's: left alone
    mine.write_text("keep me", encoding="utf-8")
    result = cli_build(project.root)
    assert result.returncode == 0, result.stderr
    lines = cache_lines(result)
    assert len(lines) == 1, lines
    assert "written by refbook-cache 1 refbook 0.0.1" in lines[0]
    assert not stale.exists()
    assert mine.exists()
    assert site_tree(project.root) == good
    assert cache_lines(cli_build(project.root)) == []


def test_cache_dir_moves_the_cache_and_a_folder_that_cannot_be_written_only_costs_speed(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    make(project, cache_dir="build-cache/rb")
    new_process()
    project.build()
    assert (project.root / "build-cache" / "rb" / cachedir.MARKER).is_file()
    assert not (project.root / ".cache").exists()
    good = site_tree(project.root)
    shutil.rmtree(project.root / "build-cache")
    (project.root / "build-cache").write_text("a file, not a folder", encoding="utf-8")
    new_process()
    project.build()
    assert site_tree(project.root) == good
    infos = [r.getMessage() for r in refbook_log.records
             if r.name.endswith("refbook.mkdocs") and r.levelno == logging.INFO
             and "cache" in r.getMessage()]
    folder = project.root / "build-cache" / "rb"
    expected = f"refbook: the cache folder {folder} cannot be written; building without a cache"
    assert infos == [expected]


def test_a_cache_dir_inside_docs_dir_is_refused(project: Project) -> None:
    """Its files would be copied into the site and ``mkdocs serve`` would rebuild for ever."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError

    make(project, cache_dir="docs/.cache")
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    with pytest.raises(PluginError, match=r"'cache_dir' .* is inside docs_dir"):
        cfg.plugins.on_config(cfg)
    make(project, cache_dir="docs-cache")  # a sibling whose name starts the same: fine
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_config(cfg)


def _serve_build(project: Project) -> Any:
    """One build as ``mkdocs serve`` runs it (its configuration, for the next hooks)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="serve", dirty=False)
    build(cfg)
    return cfg


def _serving(project: Project) -> Any:
    """``mkdocs serve`` started: its first build, then ``on_serve`` (from then on the cache
    writes are held until ``on_shutdown``)."""

    class Server:
        def watch(self, path: str) -> None:
            pass

    cfg = _serve_build(project)
    cfg.plugins.on_serve(Server(), config=cfg, builder=None)
    return cfg


def test_serve_writes_the_cache_after_its_first_build_and_when_it_stops(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``mkdocs serve`` the first build fills the folder; the rebuilds after edits keep
    their results in memory (no file written: each write pickles and seals a whole memo) and
    the folder gets their latest state once, when serve stops (``on_shutdown``). A new build
    process then starts warm from that state."""
    make(project)
    new_process()
    folder = project.root / ".cache" / "refbook"
    cfg = _serving(project)
    try:
        first = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
        assert any(name.startswith("items-") for name in first)
        project.page("index.md", PAGES["index.md"] + "\nAnd [@lee2021].\n")  # a citation edit
        bib = project.root / "refs.bib"
        bib.write_text(bib.read_text(encoding="utf-8").replace("year = {2021}", "year = {2022}"),
                       encoding="utf-8")  # and a .bib edit
        cfg = _serve_build(project)
        assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == first
        edited = site_tree(project.root)
    finally:
        cfg.plugins.on_shutdown()
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} != first
    # a new `mkdocs build` process after serve: warm from what serve wrote when it stopped
    new_process()
    converted = counted_conversions(monkeypatch)
    project.build()
    assert converted == []
    assert site_tree(project.root) == edited


def test_serve_packs_the_checks_for_the_folder_only_when_it_writes_them(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The diagnostics a build keeps in the folder (the .bib check, the unused entries) are
    packed when the file is written (``sealed.Later``): under ``mkdocs serve``, which holds its
    writes until it stops, a rebuild after a .bib edit packs none of them (neither its own, held,
    nor the last version's, which it does not read back: it knows that file is of other files),
    and serve's stop packs each file's latest once. A new process then starts warm from it."""
    make(project)
    new_process()
    cfg = _serving(project)
    packed: list[int] = []
    real_pack = cachedir.pack_diagnostics

    def pack(diagnostics: Any) -> Any:
        out = real_pack(diagnostics)
        packed.append(len(out))
        return out

    monkeypatch.setattr(cachedir, "pack_diagnostics", pack)
    bib = project.root / "refs.bib"
    try:
        for year in ("2022", "2023"):
            text = bib.read_text(encoding="utf-8")
            bib.write_text(text.replace("year = {2021}", f"year = {{{year}}}")
                           .replace("year = {2022}", f"year = {{{year}}}"), encoding="utf-8")
            cfg = _serve_build(project)
            assert "2023" in bib.read_text(encoding="utf-8") or year == "2022"
        assert packed == []
        edited = site_tree(project.root)
    finally:
        cfg.plugins.on_shutdown()
    assert len(packed) == 2  # the check and the unused entries, each once, as serve stopped
    new_process()
    converted = counted_conversions(monkeypatch)
    project.build()
    assert converted == []
    assert site_tree(project.root) == edited
