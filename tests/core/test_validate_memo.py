"""Validation memoizes per entry: an edit re-checks only the entries that changed, the others
move to their new lines. The memoized answer must always be the answer computed from scratch."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

import refbook.validate as validation
from refbook.config import Config
from refbook.readers import read_bibliography
from refbook.validate import FAMILY_CHECKS, apply_config, validate
from tests.conftest import SEED, TESTDATA

if TYPE_CHECKING:
    from pathlib import Path

FILES = sorted([*TESTDATA.rglob("*.bib"), SEED / "references.raw.bib"])


def _fresh(path: Path, config: Config) -> list[object]:
    validation._MEMO.clear()
    return validate(read_bibliography([str(path)]), config)


def _by_family(path: Path, config: Config) -> list[object]:
    """The family modules' own ``check`` (no memo), configured the same way."""
    bib = read_bibliography([str(path)])
    found = [d for check in FAMILY_CHECKS.values() for d in check(bib, config)]
    return apply_config(found, config, bib)


@pytest.mark.parametrize("config", [Config(), Config(severity=(("titles", "info"),),
                                                     extra_fields=("mynote",))])
def test_memo_answers_as_a_fresh_check_after_lines_move_and_entries_change(
        tmp_path: Path, config: Config) -> None:
    changed = 0
    for path in FILES:
        text = path.read_text(encoding="utf-8", errors="replace")
        copy = tmp_path / "copy.bib"
        copy.write_text(text, encoding="utf-8")
        first = _fresh(copy, config)
        assert first == _by_family(copy, config), path.name
        # lines move: three lines on top, and the memo is warm
        copy.write_text("% moved\n\n\n" + text, encoding="utf-8")
        warm = validate(read_bibliography([str(copy)]), config)
        assert warm == _fresh(copy, config), path.name
        # one entry changes: its title gains an unbraced acronym
        if "title = {" in text:
            copy.write_text(text.replace("title = {", "title = {The I/O and ", 1), encoding="utf-8")
            warm = validate(read_bibliography([str(copy)]), config)
            fresh = _fresh(copy, config)
            assert warm == fresh, path.name
            changed += warm != first
    assert len(FILES) > 100
    assert changed > 20  # the edits did change what was reported


@pytest.mark.parametrize("selected", ["titles", "keys", "names", "identifiers,dates"])
def test_families_the_config_leaves_out_are_not_run(selected: str) -> None:
    """Selecting families runs only those; what they report is what a full run reports."""
    path = SEED / "references.raw.bib"
    everything = _fresh(path, Config())
    families = set(selected.split(","))
    only = _fresh(path, Config(select=tuple(families)))
    assert only == [d for d in everything if d.code.family in families]
    assert only
    assert validation.active_families(Config(select=tuple(families))) == families


def test_ignore_all_costs_no_rule() -> None:
    validation._MEMO.clear()
    bib = read_bibliography([str(SEED / "references.raw.bib")])
    assert validate(bib, Config(ignore=("ALL",))) == []
    assert all(f.diagnostics == () and f.spellings == () for f in validation._MEMO.values())


def _facts_and_pid(entry: object, config: Config) -> tuple[int, object]:
    return os.getpid(), validation._facts(entry, config)  # type: ignore[arg-type]


def test_checking_on_several_processes_gives_the_same_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The forked workers return, in order, what checking in this process returns."""
    from refbook.validate import workers

    bib = read_bibliography([str(SEED / "references.raw.bib")])
    entries = list(bib)
    config = Config()
    serial = [validation._facts(e, config) for e in entries]
    monkeypatch.setenv("REFBOOK_JOBS", "3")
    assert workers.worker_count() == 3
    got = workers.map_entries(_facts_and_pid, entries, config, min_entries=0)
    assert [facts for _, facts in got] == serial
    pids = {pid for pid, _ in got}
    assert os.getpid() not in pids  # checked in the forked workers, not here
    assert len(pids) == 3
    monkeypatch.setenv("REFBOOK_JOBS", "1")
    got = workers.map_entries(_facts_and_pid, entries, config, min_entries=0)
    assert {pid for pid, _ in got} == {os.getpid()}


_PARENT = os.getpid()


def _dies_in_a_worker(entry: object, config: Config) -> str:
    if os.getpid() != _PARENT:
        os._exit(3)  # a worker killed mid-check
    return str(getattr(entry, "key", ""))


def test_a_worker_that_dies_falls_back_to_checking_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from refbook.validate import workers

    entries = list(read_bibliography([str(SEED / "references.bib")]))
    monkeypatch.setenv("REFBOOK_JOBS", "2")
    got = workers.map_entries(_dies_in_a_worker, entries, Config(), min_entries=0)
    assert got == [e.key for e in entries]


def test_each_family_module_reports_only_codes_of_its_family() -> None:
    """Families the options leave out are skipped by module: a module reporting a code of
    another family would lose that code when its own family is left out."""
    import re

    from refbook.diagnostics import Code
    from tests.conftest import ROOT

    modules = {"fields": "types", "dates": "dates", "identifiers": "identifiers",
               "names": "names", "titles": "titles", "values": "values", "keys": "keys"}
    for module, family in modules.items():
        source = (ROOT / "refbook" / "validate" / f"{module}.py").read_text(encoding="utf-8")
        codes = set(re.findall(r"Code\.([A-Z_]+)", source))
        assert codes
        assert {c: Code[c].family for c in codes if Code[c].family != family} == {}, module
    bib = read_bibliography([str(SEED / "references.raw.bib")])
    for code in {d.code for d in validate(bib, Config())}:
        assert [d.code for d in validate(bib, Config(select=(code.slug,)))] != [], code


def test_an_entrys_memo_key_is_the_same_in_another_process() -> None:
    """The validation memo is kept in a cache file and read by the next build process: each
    entry's key (a digest of its content) must not depend on the process (string interning,
    references, hash seeds). Computed here and in a new process with another hash seed."""
    import subprocess
    import sys

    path = SEED / "references.raw.bib"
    here = [validation._signature(e).hex() for e in read_bibliography([path])]
    code = ("import sys; from refbook.readers import read_bibliography; "
            "import refbook.validate as v; "
            f"print(' '.join(v._signature(e).hex() for e in read_bibliography([{str(path)!r}])))")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.split()
    assert len(here) > 200
    assert there == here
    assert len(set(here)) == len(here)


def test_the_options_part_of_memo_keys_is_the_same_in_another_process() -> None:
    """The options are part of every memo key as a digest of their fields (a string: hashed and
    compared in C, not the ``Config`` record in Python twice per entry). It must not depend on
    the process either: computed here and in a new process with another hash seed, for options
    of every kind; options that differ in any field give another digest."""
    import subprocess
    import sys

    options = [Config(), Config(select=("dates", "keys")), Config(ignore=("dates",)),
               Config(severity=(("missing-field", "error"), ("names", "off"))),
               Config(per_entry_ignore=(("knuth84", ("dates", "titles")),)),
               Config(extra_fields=("mendeley-tags",)), Config(strict=True), Config(style="apa")]
    here = [validation._config_token(c) for c in options]
    code = ("from refbook.config import Config; import refbook.validate as v; "
            f"print(' '.join(v._config_token(c) for c in {options!r}))")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.split()
    assert there == here
    assert len(set(here)) == len(here)
