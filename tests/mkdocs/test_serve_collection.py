"""A ``mkdocs serve`` rebuild leaves the host's objects where the collector finds them.

``refbook.gcpause.paused_gc`` sends what a large piece of work made to the oldest generation
(``gc.freeze`` + ``gc.unfreeze``); that moves every young object of the process, the host's
too. In a serve process those were the rebuild's pages, files and Markdown converters, freed
by the next rebuild, cyclic, and, moved there this way, not counted towards the next full
collection: the process grew by 4.5 MB per three rebuilds of the 300-entry bench book, without
end (docs/design/performance.md). A rebuild's pauses make few objects and promote nothing.

Checked in a new process, where automatic collections are put off (thresholds far above what
a build allocates), so that an object can reach the oldest generation only by a promotion:
the generation of the rebuild's ``Page`` objects right after it. The control runs the same
rebuild with every pause promoting (``PROMOTE_AT = 0``, the code before). Counted, never timed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.mkdocs.conftest import Project

ROOT = Path(__file__).resolve().parents[2]

_DRIVER = """
import gc, logging, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.structure.pages import Page
import refbook.gcpause

logging.getLogger("mkdocs").setLevel(logging.ERROR)
root = Path(sys.argv[1])
if sys.argv[2] == "always":  # the control: every lasting pause promotes, as before
    refbook.gcpause.PROMOTE_AT = 0


def serve_build():
    cfg = load_config(config_file=str(root / "mkdocs.yml"))
    cfg.plugins.on_startup(command="serve", dirty=False)
    build(cfg)


serve_build()  # the first build of the server
page = root / "docs" / "ch1.md"
page.write_text(page.read_text(encoding="utf-8") + "\\nMore prose [@doe2019].\\n",
                encoding="utf-8")
gc.collect()  # the first build's garbage goes; what stays is in the oldest generation
gc.set_threshold(10**9, 10**9, 10**9)  # no automatic collection from here on
kept = sum(type(o) is Page for o in gc.get_objects(generation=2))
serve_build()
assert gc.isenabled()
print(kept, *(sum(type(o) is Page for o in gc.get_objects(generation=g)) for g in range(3)))
"""


def _driven(driver: str, project: Project, mode: str, count: int) -> list[int]:
    """The last ``count`` numbers ``driver`` prints, run in a new process on the project."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", driver, str(project.root), mode],
                         capture_output=True, text=True, cwd=project.root, env=env, check=False)
    assert out.returncode == 0, out.stderr
    return [int(n) for n in out.stdout.split()[-count:]]


def _pages_by_generation(project: Project, mode: str) -> list[int]:
    """The rebuild's ``Page`` objects in the young, middle and oldest generations right after
    it (those of the first build that the plugin still holds taken off the oldest)."""
    kept, young, middle, oldest = _driven(_DRIVER, project, mode, 4)
    return [young, middle, oldest - kept]


def _book(project: Project) -> None:
    for n in range(1, 7):
        project.page(f"ch{n}.md", f"# Chapter {n}\n\nAs shown [@smith2020a; @doe2019].\n")
    project.page("refs.md", "# References\n\n<!-- refbook:bibliography -->\n")


def test_a_serve_rebuild_leaves_its_pages_young(project: Project) -> None:
    _book(project)
    young, middle, oldest = _pages_by_generation(project, "by-size")
    assert young >= 7  # this rebuild's pages (7), where the next young collection sees them
    assert oldest == 0
    assert middle == 0


def test_a_rebuild_promoting_every_pause_moves_its_pages_to_the_oldest_generation(
        project: Project) -> None:
    _book(project)  # the control: the same rebuild, each pause promoting what is alive
    young, _middle, oldest = _pages_by_generation(project, "always")
    assert oldest >= 7
    assert young == 0


_SERVE_DRIVER = """
import gc, logging, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
import mkdocs_refbook.plugin

logging.getLogger("mkdocs").setLevel(logging.ERROR)
root = Path(sys.argv[1])
if sys.argv[2] == "without":  # the control: on_serve as before, no collection of its own
    mkdocs_refbook.plugin.settle_heap = lambda: None
full = []
gc.callbacks.append(lambda phase, info: phase == "stop" and info["generation"] == 2
                    and full.append(info["collected"]))
cfg = load_config(config_file=str(root / "mkdocs.yml"))
cfg.plugins.on_startup(command="serve", dirty=False)
build(cfg)
del full[:]


class Server:
    def watch(self, path):
        pass


gc.set_threshold(10**9, 10**9, 10**9)  # only an explicit collection from here on
cfg.plugins.on_serve(Server(), config=cfg, builder=None)
print(len(full), sum(full))
"""


def _collections_in_on_serve(project: Project, mode: str) -> tuple[int, int]:
    count, freed = _driven(_SERVE_DRIVER, project, mode, 2)
    return count, freed


def test_serve_runs_its_full_collection_before_the_first_edit(project: Project) -> None:
    """``on_serve`` (after the first build, before any edit) runs one full collection: the
    first build's cyclic garbage (its pages, files, Markdown converters) is freed there, and
    the collector's count of the oldest generation is true again (refbook.gcpause.settle_heap),
    so that this collection does not come in the middle of a later edit's rebuild."""
    _book(project)
    count, freed = _collections_in_on_serve(project, "with")
    assert count == 1
    assert freed > 100  # the first build's garbage, found here
    assert _collections_in_on_serve(project, "without") == (0, 0)  # the control
