"""Serve-like rebuilds: one plugin instance across builds, caches reused, never stale output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.mkdocs.conftest import refbook_warnings
from tests.mkdocs.test_build import cites, entries

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.mkdocs.conftest import Project


def _build(project: Project) -> Any:
    """Load the config again and build, as ``mkdocs serve`` does; returns the plugin."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="serve", dirty=False)
    build(cfg)
    return cfg.plugins["refbook"]


def test_plugin_survives_rebuilds_and_output_follows_edits(
        project: Project, refbook_log: pytest.LogCaptureFixture) -> None:
    project.page("index.md", "# Home\n\nSee [@smith2020a] and [@nosuchkey].\n")
    first = _build(project)
    resolution = first.resolution
    assert cites(project.html("index.html")) == ["(Smith 2020)", "(nosuchkey?)"]
    assert [w.split(" error:")[0] for w in refbook_warnings(refbook_log)] == ["docs/index.md:3:"]

    # a prose edit: same plugin, the resolution is reused, the warning moves with its line
    refbook_log.clear()
    project.page("index.md", "# Home\n\nNew paragraph.\n\nSee [@smith2020a] and [@nosuchkey].\n")
    second = _build(project)
    assert second is first
    assert second.resolution is resolution
    assert [w.split(" error:")[0] for w in refbook_warnings(refbook_log)] == ["docs/index.md:5:"]

    # a citation edit: resolved again, year suffixes follow
    project.page("index.md", "# Home\n\nSee [@smith2020a] and [@smith2020b].\n")
    _build(project)
    assert cites(project.html("index.html")) == ["(Smith 2020a)", "(Smith 2020b)"]

    # a .bib edit: the new year shows up
    bib = project.root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace(
        "title = {Beta Results},\n  journal = {Journal of Tests},\n  year = {2020}",
        "title = {Beta Results},\n  journal = {Journal of Tests},\n  year = {2023}"), encoding="utf-8")
    _build(project)
    assert cites(project.html("index.html")) == ["(Smith 2020)", "(Smith 2023)"]
    assert "Smith, John. 2023." in project.html("references/index.html")


def test_removed_page_leaves_the_book(project: Project) -> None:
    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("gone.md", "# Gone\n\n[@doe2019]\n")
    _build(project)
    assert 'id="ref-doe2019"' in project.html("references/index.html")
    (project.root / "docs" / "gone.md").unlink()
    _build(project)
    assert 'id="ref-doe2019"' not in project.html("references/index.html")


def test_on_serve_watches_the_bib_files(project: Project) -> None:
    from mkdocs.config import load_config

    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    plugin = cfg.plugins["refbook"]
    cfg.plugins.on_config(cfg)

    class Server:
        def __init__(self) -> None:
            self.watched: list[str] = []

        def watch(self, path: str) -> None:
            self.watched.append(path)

    server = Server()
    plugin.on_serve(server, config=cfg, builder=lambda: None)
    assert server.watched == [str(project.root / "refs.bib")]


def test_dirty_build_keeps_the_unchanged_pages_citations(project: Project) -> None:
    import os
    import time

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    project.page("index.md", "# Home\n\n[@lee2021]\n")
    project.page("other.md", "# Other\n\n[@doe2019]\n")
    _build(project)
    later = time.time() + 5
    project.page("index.md", "# Home\n\n[@lee2021] and [@smith2020a]\n")
    os.utime(project.root / "docs" / "index.md", (later, later))
    cfg = load_config(config_file=str(project.root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="build", dirty=True)
    build(cfg, dirty=True)
    assert entries(project.html("references/index.html")) == ["doe2019", "lee2021", "smith2020a"]


def _served(url: str, wanted: str, proc: Any, timeout: float = 90) -> str:
    """The page at ``url`` once it holds ``wanted`` (a rebuild by ``mkdocs serve``)."""
    import time
    import urllib.request

    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"mkdocs serve exited with {proc.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                text = r.read().decode("utf-8")
        except OSError:
            text = ""
        if wanted in text:
            return text
        time.sleep(0.3)
    raise AssertionError(f"{wanted!r} never showed up at {url}; last page:\n{text[-2000:]}")


def test_mkdocs_serve_rebuilds_when_a_bib_file_of_bib_dir_is_added_edited_or_removed(
        tmp_path: Path) -> None:
    """mkdocs-bibtex's ``bib_dir``: a real ``mkdocs serve`` watches the folder, so a new, an
    edited and a removed ``.bib`` file (in a subfolder too) each rebuild the site."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    import yaml

    from tests.conftest import ROOT
    from tests.mkdocs.conftest import BIB

    (tmp_path / "docs").mkdir()
    (tmp_path / "bibs").mkdir()
    (tmp_path / "bibs" / "a.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(
        "# Home\n\nSee [@doe2019] and [@extra2001].\n\n\\bibliography\n", encoding="utf-8")
    config = {"site_name": "Live", "markdown_extensions": ["footnotes"],
              "plugins": [{"refbook": {"bib_dir": "bibs"}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    extra = tmp_path / "bibs" / "more" / "b.bib"
    try:
        _served(url, "(extra2001?)", proc)
        extra.parent.mkdir()
        extra.write_text("@misc{extra2001,\n  author = {Extra, Eve},\n  title = {First Title},\n"
                         "  year = {2001},\n}\n", encoding="utf-8")
        # (pybtex's "plain", mkdocs-bibtex's look, writes titles in sentence case)
        page = _served(url, "First title", proc)
        assert 'id="fn:extra2001"' in page
        extra.write_text(extra.read_text(encoding="utf-8").replace("First", "Second"),
                         encoding="utf-8")
        _served(url, "Second title", proc)
        extra.unlink()
        page = _served(url, "(extra2001?)", proc)
        assert "Second title" not in page
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_a_prose_edit_logs_the_same_report_without_formatting_it_again(
        project: Project, refbook_log: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``mkdocs serve`` shows the book's problems after every rebuild, as MkDocs shows its
    own; after a prose edit they are the same diagnostic objects, and their lines are logged
    again as they were made (none formatted again: counted); after a citation edit, all but
    the new ones; after a .bib edit, all but the edited entry's."""
    from refbook.diagnostics import Diagnostic

    bib = project.root / "refs.bib"
    extra = "".join(f"@misc{{spare{i},\n  title = {{Spare {i}}},\n  year = {{20x1}},\n}}\n\n"
                    for i in range(25))
    bib.write_text(bib.read_text(encoding="utf-8") + extra, encoding="utf-8")
    project.page("index.md", "# Home\n\nSee [@smith2020a].\n")
    formatted: list[str] = []
    real = Diagnostic.format

    def counting(self: Diagnostic) -> str:
        formatted.append(self.code.slug)
        return real(self)

    monkeypatch.setattr(Diagnostic, "format", counting)
    _build(project)
    first = [(r.levelno, r.getMessage()) for r in refbook_log.records
             if r.name == "mkdocs.plugins.refbook.mkdocs"]
    assert len(formatted) > 25  # 25 bad years, 20 unused entries shown (infos)
    refbook_log.clear()
    formatted.clear()
    project.page("index.md", "# Home\n\nA new paragraph.\n\nSee [@smith2020a].\n")
    _build(project)
    again = [(r.levelno, r.getMessage()) for r in refbook_log.records
             if r.name == "mkdocs.plugins.refbook.mkdocs"]
    assert again == first
    assert formatted == []
    # a citation edit: one entry used now; its unused-entry line goes, no line is made again
    # but those of diagnostics that are new (the cited entry's bad year is reported as before)
    refbook_log.clear()
    project.page("index.md", "# Home\n\nSee [@smith2020a] and [@spare3].\n")
    _build(project)
    cited = [m for _, m in [(r.levelno, r.getMessage()) for r in refbook_log.records]]
    assert not any("'spare3' is never cited" in m for m in cited)
    assert any("'spare4' is never cited" in m for m in cited)
    assert len(formatted) <= 2, formatted
    refbook_log.clear()
    formatted.clear()
    bib.write_text(bib.read_text(encoding="utf-8").replace("Spare 0}", "Spare zero}"),
                   encoding="utf-8")
    _build(project)
    # the edited entry's problem is made again; the other entries' (same facts) are not
    assert formatted.count("year-invalid") == 1
    assert any("spare0" in m and "year" in m for _, m in
               [(r.levelno, r.getMessage()) for r in refbook_log.records])


def test_a_rebuild_reads_each_bib_file_once(project: Project,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache folder's results are keyed by the digest of the bytes the build read
    (``refbook.readers.read_digest``), not by a second read of every file: one read of the
    .bib file per build (counted), and a .bib edit still shows."""
    from pathlib import Path

    reads: list[str] = []
    real = Path.read_bytes

    def counting(self: Path) -> bytes:
        if self.suffix == ".bib":
            reads.append(self.name)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    project.page("index.md", "# Home\n\nSee [@smith2020a].\n")
    _build(project)
    assert len(reads) == 1
    bib = project.root / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8").replace("year = {2020}", "year = {2024}", 1),
                   encoding="utf-8")
    _build(project)
    assert len(reads) == 2
    assert cites(project.html("index.html")) == ["(Smith 2024)"]


def test_a_bib_edit_makes_the_unused_entry_diagnostics_of_changed_entries_only(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a .bib edit under ``mkdocs serve``, the entries the reader re-used keep their
    unused-entry diagnostic; those edited or moved get a new one (counted), and the list is
    the one a new plugin makes from scratch (a new build process), order included."""
    from refbook.validate import citations
    from tests.mkdocs.conftest import forget_plugins

    bib = project.root / "refs.bib"
    extra = "".join(f"@misc{{spare{i},\n  title = {{Spare {i}}},\n  year = {{2001}},\n}}\n\n"
                    for i in range(30))
    bib.write_text(bib.read_text(encoding="utf-8") + extra, encoding="utf-8")
    project.configure({"cache_dir": False})
    project.page("index.md", "# Home\n\nSee [@smith2020a].\n")
    made: list[int] = []
    real = citations.unused_entries

    def counting(entries: Any, used: Any, **kw: Any) -> Any:
        found = real(entries, used, **kw)
        made.append(len(found))
        return found

    monkeypatch.setattr(citations, "unused_entries", counting)

    def unused_lines(plugin: Any) -> list[str]:
        return [d.format() for d in plugin._unused]

    first = _build(project)
    assert made == [len(unused_lines(first)) + 1]  # every entry's, the cited one's too
    for edit, changed in (
            (lambda t: t.replace("title = {Spare 7}", "title = {Spare seven}"), 1),
            # a line more above every spare entry: all of them moved
            (lambda t: t.replace("@misc{spare0,", "@misc{spare0,\n  note = {moved},"), 30)):
        made.clear()
        bib.write_text(edit(bib.read_text(encoding="utf-8")), encoding="utf-8")
        served = _build(project)
        assert made == [changed]
        forget_plugins()
        fresh = _build(project)
        assert fresh is not served
        assert unused_lines(served) == unused_lines(fresh)
