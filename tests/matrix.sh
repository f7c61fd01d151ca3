#!/usr/bin/env bash
# The Sphinx version matrix: the Sphinx extension's tests (tests/sphinx) on every supported
# Sphinx line older than the one `make test` runs (the newest the `sphinx` extra allows).
# One venv per line under .venv-matrix/ (kept between runs while pyproject.toml is unchanged),
# each with the `test-sphinx` extra and that line's newest release. The line `jupyter-book-1` is
# Jupyter Book 1 (Sphinx 7, myst-parser 3, myst-nb 1, sphinxcontrib-bibtex 2.5+) building a small
# book with sphinxcontrib-bibtex and with refbook (tests/jupyterbook/check_jupyter_book.py).
# Usage: tests/matrix.sh [LINE…]
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
PYTHON=${PYTHON:-python3}
LINES=("$@")
if [ ${#LINES[@]} -eq 0 ]; then LINES=(7.4 8.2 jupyter-book-1); fi
stamp=$(sha1sum pyproject.toml | cut -c1-12)
failed=()
for line in "${LINES[@]}"; do
  if [ "$line" = jupyter-book-1 ]; then
    venv=.venv-matrix/jupyter-book-1
    start=$(date +%s)
    if [ ! -f "$venv/.installed-$stamp" ]; then
      rm -rf "$venv"
      "$PYTHON" -m venv "$venv"
      "$venv/bin/python" -m pip install --quiet -e . "jupyter-book<2" pytest
      touch "$venv/.installed-$stamp"
    fi
    version=$("$venv/bin/python" -c "import jupyter_book; print(jupyter_book.__version__)")
    echo "== Jupyter Book $version: tests/jupyterbook/check_jupyter_book.py"
    set +e
    # by path: pytest does not collect check_*.py; the suite's top conftest.py needs MkDocs
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --confcutdir tests/jupyterbook \
      tests/jupyterbook/check_jupyter_book.py
    rc=$?
    set -e
    echo "== Jupyter Book $version: pytest exit $rc after $(( $(date +%s) - start )) s"
    if [ "$rc" -ne 0 ]; then failed+=("$line"); fi
    continue
  fi
  venv=.venv-matrix/sphinx-$line
  start=$(date +%s)
  if [ ! -f "$venv/.installed-$stamp" ]; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet -e ".[test-sphinx]" "sphinx==$line.*"
    touch "$venv/.installed-$stamp"
  fi
  version=$("$venv/bin/python" -c "import sphinx; print(sphinx.__version__)")
  echo "== Sphinx $version (line $line): tests/sphinx"
  set +e
  # sphinxcontrib-bibtex's own suite (tests/sphinx/test_scb_suite.py) reads the sdist that
  # `make setup` downloaded into the main venv
  REFBOOK_SCB_SDIST="$PWD/.venv/sdists/sphinxcontrib_bibtex-2.7.0.tar.gz" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/sphinx
  rc=$?
  set -e
  echo "== Sphinx $version: pytest exit $rc after $(( $(date +%s) - start )) s"
  # exit 5: no test collected, which is a failure too
  if [ "$rc" -ne 0 ]; then failed+=("$line"); fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "Sphinx matrix: tests failed on ${failed[*]}" >&2
  exit 1
fi
