"""House rules as tests: ruff and mypy --strict clean, the core never imports a host."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOSTS = ("sphinx", "docutils", "mkdocs", "markdown", "logging")


def test_ruff_clean() -> None:
    r = subprocess.run([str(BIN / "ruff"), "check", "refbook", "sphinx_refbook", "mkdocs_refbook",
                        "tests", "benchmarks"], check=False, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_clean() -> None:
    r = subprocess.run([str(BIN / "mypy")], check=False, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_core_never_imports_a_host_or_logging() -> None:
    offenders = []
    for path in (ROOT / "refbook").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path}: {n}" for n in names if n.split(".")[0] in HOSTS]
    assert offenders == []


def test_adapters_never_import_each_other() -> None:
    for pkg, other in (("sphinx_refbook", "mkdocs_refbook"), ("mkdocs_refbook", "sphinx_refbook")):
        for path in (ROOT / pkg).rglob("*.py"):
            assert other not in path.read_text(encoding="utf-8"), path
