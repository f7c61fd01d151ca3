"""One hint per diagnostic, in the syntax of the pages: a Sphinx build, an MkDocs build and
``refbook check --docs`` suggest citing an unused entry as the book's pages cite
(``:cite:`key``` in reST, ``[@key]`` in Markdown and MyST), and say "keys are case-sensitive"
once for a key cited with the wrong case (the message and its hint said it both)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.test_host_parity import BIN, _run

if TYPE_CHECKING:
    from pathlib import Path

BIB = """@book{cited2020,
  author = {Cited, Carla},
  title = {Cited},
  publisher = {Press},
  year = {2020},
}

@book{uncited2019,
  author = {Quiet, Quinn},
  title = {Never Cited},
  publisher = {Press},
  year = {2019},
}
"""

PYPROJECT = '[tool.refbook.check]\nseverity = { unused-entry = "warning" }\n'


def _book(root: Path, pages: dict[str, str], conf: str = "") -> Path:
    for name, text in {"refs.bib": BIB, "pyproject.toml": PYPROJECT, **pages}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    if conf:
        (root / "conf.py").write_text(conf, encoding="utf-8")
    return root


def _lines(text: str, needle: str) -> list[str]:
    """The diagnostics that name ``needle``, each with its hint (MkDocs prints a hint on an
    indented line of its own)."""
    records: list[str] = []
    for line in text.splitlines():
        if line.startswith("    hint:") and records:
            records[-1] += line
        else:
            records.append(line)
    return [r for r in records if needle in r]


def _check(book: Path) -> str:
    """``refbook check --docs .``, one line a diagnostic with its hint, as the hosts print."""
    out = _run([str(BIN / "refbook"), "check", "refs.bib", "--docs", ".", "--format", "json"],
               book)
    assert out.returncode == 1, out.stderr
    return "\n".join(f"{d['file']}:{d['line']}: {d['message']} ({d['hint']})"
                     for d in json.loads(out.stdout))


def _sphinx(book: Path) -> str:
    out = _run([str(BIN / "sphinx-build"), "-b", "html", ".", "_build/html"], book)
    assert out.returncode == 0, out.stderr
    return out.stderr


RST_PAGE = "Home\n====\n\nCites :cite:`cited2020` and\n:cite:`Cited2020`.\n\n.. bibliography::\n"
RST_CONF = 'extensions = ["sphinx_refbook"]\nrefbook_bibfiles = ["refs.bib"]\n'


def test_rest_book_hints_in_rest(tmp_path: Path) -> None:
    book = _book(tmp_path, {"index.rst": RST_PAGE}, RST_CONF)
    for output in (_sphinx(book), _check(book)):
        unused = _lines(output, "uncited2019")
        assert len(unused) == 1, output
        assert "cite it (e.g. :cite:`uncited2019`)" in unused[0]
        assert "[@" not in output
        (case,) = _lines(output, "Cited2020")
        assert "index.rst:5" in case, output
        assert case.count("case-sensitive") == 1, case


MD_PAGE = "# Home\n\nCites [@cited2020] and [@Cited2020].\n"


def test_markdown_books_hint_in_pandoc_syntax(tmp_path: Path) -> None:
    myst = _book(tmp_path / "myst", {"index.md": MD_PAGE},
                 'extensions = ["myst_parser", "sphinx_refbook"]\nsource_suffix = {".md": '
                 '"markdown"}\nrefbook_bibfiles = ["refs.bib"]\n')
    mkdocs = _book(tmp_path / "mkdocs", {"docs/index.md": MD_PAGE, "mkdocs.yml": (
        "site_name: x\nplugins:\n  - refbook:\n      bib_files: [refs.bib]\n")})
    built = _run([str(BIN / "mkdocs"), "build", "-f", "mkdocs.yml"], mkdocs)
    assert built.returncode == 0, built.stderr
    # the MkDocs build resolves a key cited with other letter case, as mkdocs-bibtex does
    # (key-case, one hint); Sphinx and check --docs refuse it (cite-case, one hint)
    for output, folded in ((_sphinx(myst), False), (_check(myst), False), (built.stderr, True),
                           (_check(mkdocs), False)):
        unused = _lines(output, "uncited2019")
        assert len(unused) == 1, output
        assert "cite it (e.g. [@uncited2019])" in unused[0]
        assert ":cite:" not in output
        (case,) = _lines(output, "Cited2020")
        assert "index.md:3" in case, output
        if folded:
            assert "[refbook.key-case]" in case, case
            assert case.count("hint:") == 1, case
        else:
            assert case.count("case-sensitive") == 1, case


def test_mixed_book_names_each_syntax(tmp_path: Path) -> None:
    book = _book(tmp_path, {"index.rst": RST_PAGE.replace(".. bibliography::\n", (
        ".. toctree::\n\n   more\n\n.. bibliography::\n")), "more.md": "# More\n\n[@cited2020]\n"},
        'extensions = ["myst_parser", "sphinx_refbook"]\nsource_suffix = {".rst": '
        '"restructuredtext", ".md": "markdown"}\nrefbook_bibfiles = ["refs.bib"]\n')
    for output in (_sphinx(book), _check(book)):
        (unused,) = _lines(output, "uncited2019")
        assert "[@uncited2019] in Markdown, :cite:`uncited2019` in reST" in unused
