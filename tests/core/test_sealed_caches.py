"""Cache files never run code: each one is unpickled only after its HMAC (``refbook.sealed``,
keyed outside the cache folders) checks out, so a pickle planted in a cache folder — by a
pull-request build sharing a CI cache, say — is a miss, while refbook's own files are reused."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import refbook.styles.csl.processor as processor_module
import refbook.validate as validation
from refbook import bibcache, memo, sealed, styles
from refbook.config import Config
from refbook.items import clear_memo as clear_items_memo
from refbook.models import Bibliography
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.render.text import to_text
from refbook.styles import get_style
from refbook.syntax import find_citations
from refbook.validate import check_bibliography
from tests.conftest import counts_python_calls
from tests.core.test_registry import ITEMS

BIB = """@string{pub = {Addison-Wesley}}
@book{knuth1984, author = {Donald E. Knuth}, title = {The {TeX}book}, year = 1984,
  publisher = pub}
@article{doe2020, author = {Doe, Jane and Roe, Richard}, title = {A study of GPU caches},
  journal = {J. Caches}, year = {2020}, volume = {3}, pages = {1--10}, doi = {not a doi}}
@misc{odd, title = {No author}, year = {20x0}, month = {jan}}
"""


class Planted:
    """What an attacker puts in a cache folder: unpickling it writes ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return Path.write_text, (self.marker, "code ran while loading a cache file")


def plant(path: Path, marker: Path) -> None:
    path.write_bytes(pickle.dumps(Planted(marker)))


def new_process() -> None:
    """Forget what this process holds in memory, as a new build process would start."""
    memo.forget()
    validation._MEMO.clear()
    bibcache.clear_memory_cache()
    clear_items_memo()
    get_style("chicago-author-date").style().memo.clear()
    processor_module._FORMATTED.clear()  # which items this process's processors had
    # nor the parsed styles kept from the host's cache folder
    styles.keep_parsed_styles_in(None)
    styles._kept_style.cache_clear()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker"


@pytest.fixture
def bib_file(tmp_path: Path) -> Path:
    path = tmp_path / "refs.bib"
    path.write_text(BIB, encoding="utf-8")
    return path


def count_checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many entries the validation rules ran on, per call (the rest came from the memo)."""
    calls: list[int] = []
    real = validation.map_entries

    def counting(fn, entries, config, **kw):  # type: ignore[no-untyped-def]
        calls.append(len(entries))
        return real(fn, entries, config, **kw)

    monkeypatch.setattr(validation, "map_entries", counting)
    return calls


# -- the sealing itself -------------------------------------------------------------------------

def test_seal_round_trip_and_every_kind_of_forgery(tmp_path: Path) -> None:
    data = pickle.dumps({"a": (1, 2)})
    blob = sealed.seal(data, label="x.pickle")
    assert bytes(sealed.unseal(blob, label="x.pickle") or b"") == data
    assert sealed.unseal(data, label="x.pickle") is None            # a bare pickle
    assert sealed.unseal(blob, label="y.pickle") is None            # another file's name
    assert sealed.unseal(blob[:-1], label="x.pickle") is None       # truncated
    assert sealed.unseal(blob[:20], label="x.pickle") is None       # shorter than the header
    for i in (0, len(blob) // 2, len(blob) - 1):                    # any flipped byte
        bad = bytearray(blob)
        bad[i] ^= 1
        assert sealed.unseal(bytes(bad), label="x.pickle") is None
    path = tmp_path / "x.pickle"
    assert sealed.dump({"a": (1, 2)}, path)
    assert sealed.load(path) == {"a": (1, 2)}
    (tmp_path / "y.pickle").write_bytes(path.read_bytes())          # copied under another name
    assert sealed.load(tmp_path / "y.pickle") is None
    assert sealed.load(tmp_path / "missing.pickle") is None
    assert not list(tmp_path.glob(".tmp-*"))                        # no temporary file left


def test_a_headed_file_unpickles_its_value_only_under_its_header(
        tmp_path: Path, marker: Path) -> None:
    path = tmp_path / "parse.pickle"
    shared = ("a string both pickles hold", 42)
    value = {"entries": [shared, shared], "n": 2}
    assert sealed.dump(value, path, header=("v1", shared))
    sealed.take_rejected()
    # the value's objects equal to the header's read back right (each pickle has its own memo)
    assert sealed.load(path, header=("v1", shared)) == value
    # another version: a plain miss, not a rejected file, and the value is never unpickled
    headed = path.read_bytes()
    path.write_bytes(headed)
    assert sealed.load(path, header=("v2", shared)) is None
    assert sealed.take_rejected() == ()
    assert sealed.dump(Planted(marker), path, header="v1")  # a value that writes when loaded
    assert sealed.load(path, header="v0") is None
    assert not marker.exists()
    # a forged headed file is rejected before anything is unpickled, as any other
    path.write_bytes(pickle.dumps("v1") + pickle.dumps(Planted(marker)))
    assert sealed.load(path, header="v1") is None
    assert sealed.take_rejected() == (path,)
    assert not marker.exists()
    # held back while writes are deferred, written with its header
    sealed.defer_writes()
    try:
        assert sealed.dump(value, path, header="v3")
    finally:
        assert sealed.flush() == 1
    assert sealed.load(path, header="v3") == value


def test_a_held_back_value_under_another_header_is_a_miss_without_io(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While writes are held back (``mkdocs serve``), asking for a file whose held value has
    another header (the parse of the last ``.bib`` edit, asked for the new content) is a miss
    found in memory: the held value is neither written first nor read back (counted); asked
    under its own header, it is written and read as before; it is written at the end."""
    path = tmp_path / "parse.pickle"
    writes: list[Path] = []
    reads: list[Path] = []
    real_write, real_read = sealed._write, sealed._read_regular

    def counting_write(value: object, where: Path) -> bool:
        writes.append(where)
        return real_write(value, where)

    def counting_read(where: Path) -> bytes | None:
        reads.append(where)
        return real_read(where)

    monkeypatch.setattr(sealed, "_write", counting_write)
    monkeypatch.setattr(sealed, "_read_regular", counting_read)
    assert sealed.dump({"n": 1}, path, header="v1")
    assert sealed.load(path, header="v1") == {"n": 1}
    sealed.defer_writes()
    try:
        assert sealed.dump({"n": 2}, path, header="v2")
        writes.clear()
        reads.clear()
        assert sealed.load(path, header="v3") is None
        assert (writes, reads) == ([], [])
        assert sealed.load(path, header="v2") == {"n": 2}  # the held value, written then read
        assert (writes, reads) == ([path], [path])
        assert sealed.dump({"n": 3}, path, header="v3")
    finally:
        assert sealed.flush() == 1
    assert sealed.load(path, header="v3") == {"n": 3}
    assert sealed.load(path, header="v2") is None


def test_a_pipe_or_device_under_a_cache_name_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "book.pickle"
    os.mkfifo(fifo)  # nobody ever writes to it: reading it would block forever
    (tmp_path / "zero.pickle").symlink_to("/dev/zero")  # reading it would never end
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.extend(
        [sealed.load(fifo), sealed.load(tmp_path / "zero.pickle")]), daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert found == [None, None]


def test_a_huge_file_under_a_cache_name_is_a_miss_not_a_crash(tmp_path: Path,
                                                               bib_file: Path) -> None:
    """A sparse 64 GiB file (no disk used) planted at the parse cache's name: it was read in
    one go, a MemoryError traceback in ``refbook render`` (or, with the memory, gigabytes read
    and hashed). The child process may use 2 GiB of address space, so this cannot exhaust the
    machine either way."""
    cache = tmp_path / "cache"
    env = {**os.environ, bibcache.CACHE_DIR_ENV: str(cache)}
    command = [sys.executable, "-m", "refbook.cli", "render", str(bib_file)]

    def limited() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    first = subprocess.run(command, env=env, capture_output=True, text=True, check=True,
                           timeout=120).stdout
    [cached] = [p for p in cache.glob("*.pickle") if not p.name.startswith("chunks-")]
    cached.unlink()
    with cached.open("wb") as fh:
        fh.truncate(64 << 30)
    r = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120,
                       check=False, preexec_fn=limited)
    assert (r.returncode, r.stderr, r.stdout) == (0, "", first)
    # the miss was written again, sealed, in its place
    assert cached.stat().st_size < 1 << 20
    assert cached.read_bytes().startswith(b"refbook-sealed-1\n")


def test_files_over_the_size_bound_are_neither_read_nor_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.pickle"
    assert sealed.dump(list(range(100)), path)
    size = path.stat().st_size
    monkeypatch.setattr(sealed, "MAX_BYTES", size - 1)
    assert sealed.load(path) is None
    assert not sealed.dump(list(range(100)), tmp_path / "d.pickle")
    monkeypatch.setattr(sealed, "MAX_BYTES", size)
    assert sealed.load(path) == list(range(100))


def test_a_file_sealed_with_key_a_is_a_miss_with_key_b(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.pickle"
    monkeypatch.setenv(sealed.KEY_ENV, "key A")
    assert sealed.dump([1, 2, 3], path)
    assert sealed.load(path) == [1, 2, 3]
    monkeypatch.setenv(sealed.KEY_ENV, "key B")
    assert sealed.load(path) is None
    monkeypatch.setenv(sealed.KEY_ENV, "key A")
    assert sealed.load(path) == [1, 2, 3]


def test_unpicklable_values_and_unwritable_folders_are_only_not_cached(tmp_path: Path) -> None:
    assert not sealed.dump(lambda: 1, tmp_path / "f.pickle")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not sealed.dump([1], blocker / "sub" / "f.pickle")
    assert not (tmp_path / "f.pickle").exists()
    assert not list(tmp_path.glob(".tmp-*"))  # no temporary file left behind


def test_a_file_is_written_as_sealed_and_never_held_whole_in_memory(tmp_path: Path) -> None:
    """``dump`` pickles into the file and works the tag out on the way: the bytes on disk are
    ``seal(pickled(value))`` all the same, and the pickle is not built in memory first (traced
    allocations while an 8 MB value is written stay far below its size)."""
    import tracemalloc

    value = ("big", os.urandom(8 << 20), [1, 2, 3])
    path = tmp_path / "big.pickle"
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        assert sealed.dump(value, path)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak  # held whole, it was over 8 MB
    assert path.read_bytes() == sealed.seal(sealed.pickled(value), label=path.name,
                                            folder=tmp_path)
    assert sealed.load(path) == value


def _traced_peak(action: Callable[[], object]) -> tuple[int, object]:
    """The most memory ``action`` held at once (traced allocations above the start), and what
    it returned."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = action()
        return tracemalloc.get_traced_memory()[1] - before, result
    finally:
        tracemalloc.stop()


def test_a_value_in_parts_is_pickled_with_a_memo_per_part(tmp_path: Path) -> None:
    """``sealed.Parts``: a big value of many small objects is written a part at a time, each
    with a fresh pickler memo, so the write never holds a memo entry per object of the whole
    (the peak of a cold 20,000-entry build); it reads back as a ``Joined`` equal item for item,
    objects shared across parts included. Control: the same items dumped whole."""
    shared = ("title", "a value every part refers to")
    items = [(f"key{i}", (shared, f"value {i}", i, ("author", f"Doe, J{i}"))) for i in range(60_000)]
    whole, ok = _traced_peak(lambda: sealed.dump(dict(items), tmp_path / "whole.pickle"))
    assert ok
    made: list[int] = []

    def parts() -> Iterator[list[object]]:
        for part in sealed.chunked(items, 1000):
            made.append(len(part))
            yield part

    in_parts, ok = _traced_peak(lambda: sealed.dump(sealed.Parts(("head", 1), parts),
                                                     tmp_path / "parts.pickle"))
    assert ok
    assert made == [1000] * 60  # built as written, a part at a time
    assert in_parts * 5 < whole, (in_parts, whole)
    loaded = sealed.load(tmp_path / "parts.pickle")
    assert loaded == sealed.Joined(("head", 1), items)
    assert isinstance(loaded, sealed.Joined)
    assert loaded.items[0][1][0] is loaded.items[999][1][0]  # shared inside a part
    assert loaded.items[1000][1][0] == shared  # and equal across parts
    # in parts under a header, and held back while writes are deferred
    path = tmp_path / "headed.pickle"
    sealed.defer_writes()
    try:
        assert sealed.dump(sealed.Parts(None, lambda: sealed.chunked(items[:10], 3)), path,
                           header="v1")
        assert sealed.load(path, header="v1") == sealed.Joined(None, items[:10])
    finally:
        sealed.flush()
    assert sealed.load(path, header="v2") is None


def test_a_failing_part_abandons_the_write_and_keeps_the_last_file(tmp_path: Path) -> None:
    path = tmp_path / "table.pickle"
    assert sealed.dump(sealed.Parts(None, lambda: iter([[1, 2], [3]])), path)

    def failing() -> Iterator[list[int]]:
        yield [4, 5]
        raise ValueError("a part that cannot be made")

    assert not sealed.dump(sealed.Parts(None, failing), path)
    assert sealed.load(path) == sealed.Joined(None, [1, 2, 3])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.pickle"]  # no temporary left


def test_a_later_value_is_made_when_written_and_never_when_replaced_first(
        tmp_path: Path) -> None:
    """``sealed.Later``: the value is made when the file is written. Written at once, it is
    made at once; while writes are deferred (``mkdocs serve``), a value dumped again before the
    flush is never made, and a read of the file makes the value held for it first; a ``make``
    that fails abandons the write and keeps the last file."""
    made: list[str] = []

    def later(value: str) -> sealed.Later:
        return sealed.Later(lambda: made.append(value) or ("packed", value))

    path = tmp_path / "checks.pickle"
    assert sealed.dump(later("first"), path)
    assert made == ["first"]
    assert sealed.load(path) == ("packed", "first")
    sealed.defer_writes()
    try:
        assert sealed.dump(later("second"), path)
        assert sealed.dump(later("third"), path)  # the next rebuild's replaces it
        assert made == ["first"]  # neither made yet
        assert sealed.load(path) == ("packed", "third")  # a read writes what is held first
        assert made == ["first", "third"]
        assert sealed.dump(later("fourth"), path)
    finally:
        assert sealed.flush() == 1
    assert made == ["first", "third", "fourth"]  # "second" was never made
    assert sealed.load(path) == ("packed", "fourth")

    def failing() -> object:
        raise ValueError("a value that cannot be made")

    assert not sealed.dump(sealed.Later(failing), path)
    assert sealed.load(path) == ("packed", "fourth")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checks.pickle"]  # no temporary left


# -- the key --------------------------------------------------------------------------------------

@pytest.fixture
def key_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No REFBOOK_CACHE_KEY: the per-user key file, in a temporary config folder."""
    monkeypatch.delenv(sealed.KEY_ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(sealed, "_file_keys", {})
    monkeypatch.setattr(sealed, "_process_key", None)
    return tmp_path / "config"


def test_the_key_file_is_created_once_private_and_shared_by_processes(key_home: Path,
                                                                      tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert sealed.dump({"k": "v"}, cache / "m.pickle")
    key_file = key_home / "refbook" / "cache-key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert len(bytes.fromhex(key_file.read_text())) == 32
    assert sealed.cache_key(cache) != sealed._per_process()
    # four new processes at once: the first creates nothing new, all read the same key
    script = ("import sys; from pathlib import Path; from refbook import sealed; "
              "print(sealed.load(Path(sys.argv[1])))")
    env = {k: v for k, v in os.environ.items() if k != sealed.KEY_ENV}
    env["XDG_CONFIG_HOME"] = str(key_home)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(cache / "m.pickle")],
                              env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)]
    assert [p.communicate(timeout=60)[0].strip() for p in procs] == ["{'k': 'v'}"] * 4


def test_concurrent_first_use_agrees_on_one_key(key_home: Path) -> None:
    script = "from refbook import sealed; print(sealed.cache_key().hex())"
    env = {k: v for k, v in os.environ.items() if k != sealed.KEY_ENV}
    env["XDG_CONFIG_HOME"] = str(key_home)
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              text=True) for _ in range(6)]
    keys = {p.communicate(timeout=60)[0].strip() for p in procs}
    stored = (key_home / "refbook" / "cache-key").read_text().strip()
    assert keys == {stored}


def test_no_writable_home_means_a_key_of_this_process(tmp_path: Path, key_home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    path = tmp_path / "cache" / "m.pickle"
    assert sealed.dump([1], path)          # never crashes
    assert sealed.load(path) == [1]        # reused within the process
    assert sealed.cache_key() == sealed._per_process()
    monkeypatch.setattr(sealed, "_process_key", None)
    monkeypatch.setattr(sealed, "_file_keys", {})
    assert sealed.load(path) is None       # a new process: a miss


def test_a_pipe_at_the_key_file_name_is_a_key_of_this_process_not_a_hang(
        key_home: Path) -> None:
    """Opening a named pipe waits for a writer: one planted as the key file blocked the build
    for good (in a new process, so that a hang cannot take this one's lock with it)."""
    (key_home / "refbook").mkdir(parents=True, mode=0o700)
    os.mkfifo(key_home / "refbook" / "cache-key", 0o600)
    script = ("from refbook import sealed; "
              "print(sealed.cache_key() == sealed._per_process())")
    env = {k: v for k, v in os.environ.items() if k != sealed.KEY_ENV}
    env["XDG_CONFIG_HOME"] = str(key_home)
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       timeout=30, check=False)
    assert (r.stdout, r.stderr) == ("True\n", "")


def test_a_relative_xdg_config_home_is_ignored(tmp_path: Path, key_home: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert sealed.key_file() == tmp_path / "home" / ".config" / "refbook" / "cache-key"
    sealed.cache_key()
    assert (tmp_path / "home" / ".config" / "refbook" / "cache-key").is_file()


def test_a_key_file_others_may_read_is_not_used(key_home: Path) -> None:
    key_file = key_home / "refbook" / "cache-key"
    key_file.parent.mkdir(parents=True)
    key_file.write_text("ab" * 32 + "\n")
    key_file.chmod(0o644)
    assert sealed.cache_key() == sealed._per_process()
    key_file.chmod(0o600)
    sealed._file_keys.clear()
    assert sealed.cache_key() == bytes.fromhex("ab" * 32)


def test_a_key_file_inside_the_cache_folder_is_refused(tmp_path: Path, key_home: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cache / "config"))
    path = cache / "m.pickle"
    assert sealed.dump([1], path)
    assert not (cache / "config" / "refbook" / "cache-key").exists()
    assert sealed.cache_key(cache) == sealed._per_process()
    # planted beside the cache files, a key would not be trusted either
    (cache / "config" / "refbook").mkdir(parents=True)
    (cache / "config" / "refbook" / "cache-key").write_text("cd" * 32)
    (cache / "config" / "refbook" / "cache-key").chmod(0o600)
    assert sealed.cache_key(cache) == sealed._per_process()
    assert sealed.cache_key(tmp_path / "elsewhere") == bytes.fromhex("cd" * 32)


# -- every cache site ignores a planted pickle and reuses its own files -----------------------------

def test_planted_validation_memo_is_ignored(tmp_path: Path, bib_file: Path,
                                           marker: Path) -> None:
    memo_dir = tmp_path / "memo"
    new_process()
    first = check_bibliography(read_bibliography([bib_file]), Config(), memo_dir=str(memo_dir))
    assert first
    [memo_file] = memo_dir.glob("validation-*.pickle")
    plant(memo_file, marker)
    new_process()
    assert check_bibliography(read_bibliography([bib_file]), memo_dir=str(memo_dir)) == first
    assert not marker.exists()


def test_validation_memo_is_reused_with_its_key_only(tmp_path: Path, bib_file: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    memo_dir = str(tmp_path / "memo")
    new_process()
    first = check_bibliography(read_bibliography([bib_file]), Config(), memo_dir=memo_dir)
    checked = count_checked(monkeypatch)
    new_process()
    assert check_bibliography(read_bibliography([bib_file]), memo_dir=memo_dir) == first
    assert checked == [0]  # every entry's result came from the file
    monkeypatch.setenv(sealed.KEY_ENV, "another key")
    new_process()
    assert check_bibliography(read_bibliography([bib_file]), memo_dir=memo_dir) == first
    assert checked == [0, 3]


def _many(n: int, years: dict[int, int]) -> str:
    return "".join(f"@article{{e{i}, author = {{Doe, Jane}}, title = {{Study {i}}}, "
                   f"journal = {{J}}, year = {{{years.get(i, 2000)}}}}}\n" for i in range(n))


def test_a_few_new_facts_do_not_rewrite_the_validation_memo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-entry edit of a big file: the next process checks that entry again rather than
    this one rewriting every entry's facts; more edits than validation's share rewrite it."""
    bib = tmp_path / "refs.bib"
    memo_dir = str(tmp_path / "memo")
    n = 3 * memo.REWRITE_SHARE  # a share of 3 entries
    bib.write_text(_many(n, {}), encoding="utf-8")
    new_process()
    check_bibliography(read_bibliography([bib]), memo_dir=memo_dir)
    [memo_file] = Path(memo_dir).glob("validation-*.pickle")
    written = memo_file.read_bytes()
    checked = count_checked(monkeypatch)

    def check(years: dict[int, int]) -> list[object]:
        bib.write_text(_many(n, years), encoding="utf-8")
        new_process()
        return check_bibliography(read_bibliography([bib]), memo_dir=memo_dir)

    one = check({5: 1990})
    assert checked == [1]
    assert memo_file.read_bytes() == written  # not rewritten for one entry
    assert check({5: 1990}) == one
    assert checked == [1, 1]  # that entry again: its facts were not kept
    validation._MEMO.clear()
    memo._LOADED.clear()
    assert check_bibliography(read_bibliography([bib])) == one  # as a check without a memo
    assert checked.pop() == n
    # the control: more new entries than the share rewrite the file, and a new process reuses it
    several = check({5: 1990, 6: 1991, 7: 1992, 8: 1993})
    assert checked == [1, 1, 4]
    assert memo_file.read_bytes() != written
    assert check({5: 1990, 6: 1991, 7: 1992, 8: 1993}) == several
    assert checked == [1, 1, 4, 0]


def _cited() -> Registry:
    reg = Registry()
    reg.set_document("ch1", find_citations("[@a; @b] and @c"))
    return reg


def test_planted_style_memo_is_ignored(tmp_path: Path, marker: Path) -> None:
    memo_dir = str(tmp_path / "memo")
    new_process()
    first = _cited().resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=memo_dir)
    [memo_file] = Path(memo_dir).glob("style-chicago-author-date-*.pickle")
    plant(memo_file, marker)
    new_process()
    again = _cited().resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=memo_dir)
    assert not marker.exists()
    assert {k: to_text(v) for k, v in again.citations.items()} == {
        k: to_text(v) for k, v in first.citations.items()}
    assert again.entries == first.entries


def test_style_memo_is_reused_with_its_key_only(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    memo_dir = str(tmp_path / "memo")
    new_process()
    _cited().resolve(Bibliography(), ITEMS, "chicago-author-date", memo_dir=memo_dir)
    style = get_style("chicago-author-date")
    style_memo = style.style().memo
    # all but the basic cites' output trees (refbook.styles.csl.processor.worth_keeping)
    kinds = sorted(k[0] for k in style_memo if k[0] != "basic-out")
    assert "basic-out" in {k[0] for k in style_memo}
    assert "entry" in kinds
    # the next process starts with the memo from the file, before formatting anything
    new_process()
    style.processor([], memo_dir=memo_dir)
    assert sorted(k[0] for k in style_memo) == kinds
    monkeypatch.setenv(sealed.KEY_ENV, "another key")
    new_process()
    style.processor([], memo_dir=memo_dir)
    assert len(style_memo) == 0


def test_parse_cache_of_the_cli(tmp_path: Path, bib_file: Path, marker: Path) -> None:
    """``REFBOOK_CACHE_DIR`` in a real ``refbook`` process: planted files are misses."""
    cache = tmp_path / "cache"
    env = {**os.environ, bibcache.CACHE_DIR_ENV: str(cache)}

    def render() -> str:
        r = subprocess.run([sys.executable, "-m", "refbook.cli", "render", str(bib_file)],
                           env=env, capture_output=True, text=True, check=True, timeout=120)
        assert r.stderr == ""
        return r.stdout

    first = render()
    assert "Knuth, Donald E. 1984. The TeXbook. Addison-Wesley." in first
    [cached] = [p for p in cache.glob("*.pickle") if not p.name.startswith("chunks-")]
    plant(cached, marker)
    assert render() == first
    assert not marker.exists()
    # the miss was written again, sealed, and serves the next run
    assert cached.read_bytes().startswith(b"refbook-sealed-1\n")
    assert render() == first


def test_parse_cache_reuse_and_foreign_key(tmp_path: Path, bib_file: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from refbook import readers

    parses: list[str] = []
    real = readers.parse_bibtex

    def counting(text, name, **kw):  # type: ignore[no-untyped-def]
        parses.append(name)
        return real(text, name, **kw)

    monkeypatch.setattr(readers, "parse_bibtex", counting)
    cache = tmp_path / "cache"
    bibcache.clear_memory_cache()
    first = read_bibliography([bib_file], cache_dir=cache)
    bibcache.clear_memory_cache()
    assert read_bibliography([bib_file], cache_dir=cache) == first
    assert len(parses) == 1  # the second read came from the disk cache
    monkeypatch.setenv(sealed.KEY_ENV, "another key")
    bibcache.clear_memory_cache()
    assert read_bibliography([bib_file], cache_dir=cache) == first
    assert len(parses) == 2


def test_deferred_writes_are_held_read_through_and_flushed(tmp_path: Path) -> None:
    a, b = tmp_path / "a.pickle", tmp_path / "b.pickle"
    sealed.defer_writes()
    try:
        assert sealed.dump({"x": 1}, a)
        assert sealed.dump({"x": 2}, a)  # the latest value wins
        assert sealed.dump(("k", "v"), b)
        assert not a.exists()
        assert not b.exists()
        assert sealed.load(b) == ("k", "v")  # a held file is written before it is read
        assert b.exists()
        assert not a.exists()
    finally:
        assert sealed.flush() == 1  # a alone was still held
    assert sealed.load(a) == {"x": 2}
    assert sealed.dump({"x": 3}, a)  # no longer deferred: written at once
    assert sealed.load(a) == {"x": 3}
    assert sealed.flush() == 0


_FORMAT_TWICE = """
import sys
from refbook.items import items_for
from refbook.readers import read_bibliography
from refbook.registry import Registry
from refbook.styles import get_style
from refbook.styles.csl.engine import Evaluator
from refbook.syntax import find_citations

layouts = []
real = Evaluator.layout
def counting(self, *args, **kw):
    layouts.append(1)
    return real(self, *args, **kw)
Evaluator.layout = counting
bib = read_bibliography([sys.argv[1]])
registry = Registry()
registry.set_document("ch", find_citations(" ".join(f"[@{e.key}]" for e in bib)))
res = registry.resolve(bib, items_for(bib), get_style("chicago-author-date"), memo_dir=sys.argv[2])
print(len(layouts), len(res.entries))
"""


@counts_python_calls
def test_a_new_process_reuses_the_formatting_memo_file(tmp_path: Path, bib_file: Path) -> None:
    """The style's formatting memo written by one build process serves the next one, whose
    string hashes differ (another ``PYTHONHASHSEED``, as two real processes have): its memo keys
    must not carry a hash worked out in the first. The second process renders nothing (counted
    layout evaluations), and writes the same list."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    cache = tmp_path / "cache"
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", _FORMAT_TWICE, str(bib_file), str(cache)],
                             capture_output=True, text=True, env=env, check=True, timeout=300)
        runs.append([int(x) for x in out.stdout.split()])
    (first, entries), (second, entries_again) = runs
    assert entries == entries_again > 0
    assert first > 0
    assert second == 0
