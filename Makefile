# refbook — the façade. `make example` builds the example book, `make test` runs every test.
# Both create .venv (Python >= 3.11) and install what they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup accel lint typecheck test test-sphinx-matrix example bench screenshots ci clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# mkdocs-bibtex's own test suite (in its sdist), run against refbook by
	# tests/mkdocs/test_bibtex_suite.py; fetched here, never committed
	$(BIN)/python -m pip download --quiet --no-deps --no-binary :all: mkdocs-bibtex==4.4.0 -d $(VENV)/sdists
	# sphinxcontrib-bibtex's own test suite and test projects, run against refbook by
	# tests/sphinx/test_scb_suite.py
	$(BIN)/python -m pip download --quiet --no-deps --no-binary :all: sphinxcontrib-bibtex==2.7.0 -d $(VENV)/sdists
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check refbook sphinx_refbook mkdocs_refbook tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

# The CSL test suite's fixtures (run through the style engine by tests/core/test_csl_suite.py):
# fetched at install time from Debian's source package of pandoc's CSL engine, pinned by version
# and SHA-256, never committed. Needs apt-get (Debian/Ubuntu); elsewhere that one test skips and
# says why, unless CI=true (then the fetch and the test fail).
CSL_SUITE := $(VENV)/csl-suite/SOURCE
$(CSL_SUITE): tests/fetch_csl_suite.py | $(STAMP)
	$(BIN)/python tests/fetch_csl_suite.py --into $(VENV)/csl-suite

# citeproc-js, the reference CSL engine, for tests/core/test_citeproc_js_oracle.py: installed at
# install time with npm into .venv/node (pinned version and integrity), never committed. Needs
# node and npm (Debian: apt-get install nodejs npm); without them that test skips and says why,
# unless CI=true.
CITEPROC_JS := $(VENV)/node/node_modules/citeproc/package.json
$(CITEPROC_JS): tests/fetch_citeproc_js.py | $(STAMP)
	$(BIN)/python tests/fetch_citeproc_js.py --into $(VENV)/node

# The compiled engine (refbook/accel.py): the engine's modules compiled by mypyc into
# refbook/_compiled/, rebuilt when any of refbook's sources changes (a stale build is never
# used). Needs a C compiler and the Python headers; without them refbook stays plain Python
# (the same output, slower), unless CI=true (then the build must succeed).
ACCEL := refbook/_compiled/manifest.txt
ACCEL_SOURCES := $(shell find refbook -name '*.py' -not -path '*/_compiled/*')
$(ACCEL): $(ACCEL_SOURCES) | $(STAMP)
	$(BIN)/refbook compile $(if $(filter true,$(CI)),--require)

accel: $(ACCEL)

# Every test with the compiled engine (when built), then the core's tests again as plain Python
# (REFBOOK_PURE=1: what an install without a C compiler runs). pytest's exit code 5 (no test
# collected) counts as a failure.
test: $(STAMP) $(CSL_SUITE) $(CITEPROC_JS) $(ACCEL)
	@$(BIN)/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; \
	if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	echo "the core's tests as plain Python (REFBOOK_PURE=1):"; \
	REFBOOK_PURE=1 $(BIN)/python -m pytest -q tests/core; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

# The Sphinx extension's tests on every older supported Sphinx line (7.4, 8.2), and a Jupyter
# Book 1 build (tests/jupyterbook), one venv each under .venv-matrix/ (`make test` runs the
# newest line).
test-sphinx-matrix:
	PYTHON=$(PYTHON) bash tests/matrix.sh

# The example book: its reference list rendered by the CLI in every format, then the same
# Markdown pages built by Sphinx (MyST, -W) and by MkDocs (--strict), both warning-free.
example: $(STAMP)
	mkdir -p example_book/_build
	$(BIN)/refbook render example_book/references.bib --format html > example_book/_build/references.html
	$(BIN)/refbook render example_book/references.bib --format markdown > example_book/_build/references.md
	$(BIN)/refbook render example_book/references.bib --format text > example_book/_build/references.txt
	@echo "example book reference list: example_book/_build/references.{html,md,txt} ($$(grep -c 'csl-entry' example_book/_build/references.html) entries)"
	$(BIN)/sphinx-build -W -q -c example_book example_book/docs example_book/_build/sphinx
	@echo "Sphinx build of the example book: example_book/_build/sphinx/index.html"
	$(BIN)/mkdocs build --strict -f example_book/mkdocs.yml
	@echo "MkDocs build of the example book: example_book/_build/mkdocs/index.html"

# BENCH_ENTRIES="300 20000" make bench adds the 20,000-entry rows (several minutes).
# BENCH_REAL=1 make bench: the host benchmarks on a .bib of real entries (benchmarks/realbib.py).
BENCH_ENTRIES ?= 300
bench: $(STAMP) $(ACCEL)
	$(BIN)/python benchmarks/parse_speed.py
	$(BIN)/python benchmarks/mkdocs_bench.py --entries $(BENCH_ENTRIES) $(if $(BENCH_REAL),--real)
	$(BIN)/python benchmarks/sphinx_bench.py --entries $(BENCH_ENTRIES) $(if $(BENCH_REAL),--real)
	$(BIN)/python benchmarks/csl_styles.py
	$(BIN)/python benchmarks/engine_speed.py

# docs/images/styles-*.png: the example book's References page in an author-date, a numeric and
# a note style, built by both hosts and shot in chromium (docs/styles.md shows them)
screenshots: $(STAMP)
	$(BIN)/python benchmarks/style_screenshots.py --out docs/images

ci: test test-sphinx-matrix

clean:
	rm -rf $(VENV) .venv-matrix example_book/_build example_book/.cache .pytest_cache .mypy_cache .ruff_cache refbook/_compiled
