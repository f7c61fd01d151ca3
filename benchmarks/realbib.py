"""Bibliographies made of real entries, for the host benchmarks' ``--real`` option.

The generated ``.bib`` files of ``sphinx_bench.py`` and ``mkdocs_bench.py`` are clean and alike:
every entry an ``@article`` with the same seven fields. Real files are not: abstracts, notes,
URLs, non-standard fields, LaTeX in titles and names, and the defects that make validation
rules ask the style what it prints. ``real_bib`` writes N entries taken from the seed
bibliography and the shared real-world files (``shared/testdata``; the same pool as
``engine_speed.py``: entries that read alone without a problem, no ``@string`` files, no
``crossref``/``xdata``), and of those only the ones pybtex parses too (sphinxcontrib-bibtex and
mkdocs-bibtex read with pybtex, and a pybtex error stops their whole build: a ``%`` comment
inside an entry, a biblatex type such as ``@report``, an ``@article`` without a journal, an
entry without a title cited author-year), under the benchmarks' keys (``key00000`` …). Past the pool's size the
entries repeat as new works: "Part 2: " before the title and no DOI, URL, eprint, ISBN or ISSN
(so they are not reported as duplicates of the first copy).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

ROOT = HERE.parent
IDENTIFIERS = re.compile(r"(?<![\w-])(doi|url|eprint|isbn|issn)\s*=\s*", re.I)
TITLE = re.compile(r"(\btitle\s*=\s*[{\"])", re.I)


def shared_folder() -> Path:
    import os

    return Path(os.environ.get("REFBOOK_SHARED", str(ROOT.parent / "shared")))


def pool(shared: Path) -> list[tuple[str, str]]:
    # imported here: engine_speed imports refbook, and the benchmarks' own process must stay
    # small (a build's peak memory, read with wait4, starts at its parent's size at the fork)
    from engine_speed import raw_entries, stands_alone

    sources = [shared / "seed" / "references.bib", *sorted((shared / "testdata").rglob("*.bib"))]
    found: list[tuple[str, str]] = []
    for path in sources:
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"^\s*@\s*string\b", text, re.I | re.M):
            continue
        found.extend(e for e in raw_entries(text) if stands_alone(*e) and _pybtex_reads(*e))
    if not found:
        sys.exit(f"no real entries under {shared} (set REFBOOK_SHARED)")
    return found


def _pybtex_reads(kind: str, body: str) -> bool:
    """Whether pybtex parses the entry and its default style (``unsrt``, sphinxcontrib-bibtex's)
    formats it: an unknown type (``@report``) or a missing required field stops their build."""
    from pybtex.database import parse_string
    from pybtex.errors import set_strict_mode
    from pybtex.plugin import find_plugin

    set_strict_mode(True)
    try:
        data = parse_string(f"@{kind}{{probe,{body}\n", "bibtex")
        if "title" not in data.entries["probe"].fields:
            return False  # sphinxcontrib-bibtex's author-year citations need it (KeyError)
        style = find_plugin("pybtex.style.formatting", "unsrt")()
        list(style.format_entries(data.entries.values()))
    except Exception:  # any pybtex error: the anchors could not build
        return False
    return True


def _value_end(body: str, i: int) -> int:
    """The index just past the field value that starts at ``i`` (braced, quoted or bare)."""
    if i < len(body) and body[i] in "{\"":
        close = "}" if body[i] == "{" else '"'
        depth, j = 0, i
        while j < len(body):
            c = body[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if (close == "}" and depth == 0) or (close == '"' and c == '"' and j > i
                                                 and depth == 0):
                return j + 1
            j += 1
        return len(body)
    m = re.compile(r"[^,}]*").match(body, i)
    return m.end() if m else i


def _without_identifiers(body: str) -> str:
    """``body`` without its DOI, URL, eprint, ISBN and ISSN fields (values may span lines)."""
    out, pos = [], 0
    for m in IDENTIFIERS.finditer(body):
        if m.start() < pos:
            continue
        end = _value_end(body, m.end())
        rest = re.compile(r"\s*,?").match(body, end)
        out.append(body[pos:m.start()])
        pos = rest.end() if rest else end
    out.append(body[pos:])
    return "".join(out)


def write_real_bib(n: int, dest: Path) -> None:
    """:func:`real_bib` written to ``dest`` by a process of its own: the benchmarks measure
    their builds' peak memory with ``wait4``, and a child's peak starts at its parent's size
    when it forks. Making the pool imports refbook's reader and pybtex, and the text of 20,000
    real entries is ~80 MB as a Python string (an astral character makes it 4 bytes a
    character): neither may live in the benchmark's own process."""
    import subprocess

    subprocess.run([sys.executable, str(Path(__file__).resolve()), str(n), str(dest)],
                   check=True)


def real_bib(n: int, shared: Path | None = None) -> str:
    """``n`` real entries under the keys ``key00000`` … (see the module's docstring)."""
    entries = pool(shared or shared_folder())
    parts = []
    for i in range(n):
        kind, body = entries[i % len(entries)]
        copy = i // len(entries)
        if copy:
            body = TITLE.sub(rf"\g<1>Part {copy + 1}: ", body, count=1)
            body = _without_identifiers(body)
        parts.append(f"@{kind}{{key{i:05d},{body}\n")
    return "\n".join(parts) + "\n"


def edit_title(text: str, key: str, r: int) -> str:
    """``text`` with the title of entry ``key`` changed (round ``r``: a new title each time)."""
    start = re.search(rf"@\w+\s*{{\s*{re.escape(key)}\s*,", text)
    if start is None:
        return text
    m = TITLE.search(text, start.end())
    if m is None:
        return text
    return text[:m.end()] + f"Edited {r}: " + text[m.end():]


def edit_title_file(path: Path, key: str, r: int) -> None:
    """:func:`edit_title` on the file ``path``, in a process of its own (as
    :func:`write_real_bib`: reading the file into the benchmark's process grew it by the size of
    the text, and every later build's measured peak with it)."""
    import subprocess

    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--edit", str(path), key,
                    str(r)], check=True)


if __name__ == "__main__":
    if sys.argv[1] == "--edit":
        target = Path(sys.argv[2])
        target.write_text(edit_title(target.read_text(encoding="utf-8"), sys.argv[3],
                                     int(sys.argv[4])), encoding="utf-8")
    else:
        Path(sys.argv[2]).write_text(real_bib(int(sys.argv[1])), encoding="utf-8")
