# The two commands a reader needs: `make book` and `make test`. Everything else is a step they call.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MATHJAX_VERSION := 3.2.2
MATHJAX := _vendor/mathjax/tex-chtml.js
BENCH_VENV := .venv-bench
# xdist workers for the test suite (the machine has 2 cores)
JOBS ?= 2
# the size of every experiment in the built book: smoke | book | paper (see README, "Another profile")
PROFILE ?= book
# each profile builds in a folder of its own, with its own jupyter cache (<folder>/_build/.jupyter_cache):
# book -> _build/html; any other profile P -> _build/P/html
BOOK_ROOT := $(if $(filter book,$(PROFILE)),.,_build/$(PROFILE))
BOOK_HTML := $(if $(filter book,$(PROFILE)),_build/html,_build/$(PROFILE)/html)
NOSOL_ROOT := _build/nosolutions$(if $(filter book,$(PROFILE)),,-$(PROFILE))
JB_BUILD := $(BIN)/jupyter-book build . -W -n --keep-going
# kernels see the profile; progress bars stay in a reader's own runs, not in the built pages
# and each chapter's claims table is recorded as JSON for `make verdicts`
CLAIMS_DIR = $(abspath $(BOOK_ROOT))/_build/claims
BOOK_ENV = LDP_PROFILE=$(PROFILE) LDP_PROGRESS=0 LDP_CLAIMS_DIR=$(CLAIMS_DIR)

.PHONY: help install install-test data data-if-possible mathjax book book-nosolutions verdicts lab lint test bench clean

help:
	@echo "make book   build the HTML book (book profile) into _build/html"
	@echo "make book PROFILE=paper   the papers' own sizes into _build/paper/html (PROFILE=smoke: seconds)"
	@echo "make book-nosolutions     the book without exercise solutions into _build/nosolutions/html"
	@echo "make verdicts  list the claims whose verdict differs between the book and paper profiles' builds"
	@echo "make lab    open JupyterLab; the notebooks' .md files open as notebooks (jupytext)"
	@echo "make test   run the whole test suite (unit, notebooks at smoke size, strict book build, browser)"
	@echo "make data   copy/download and verify the real datasets into data/external/ (fails if one is missing)"
	@echo "make bench  time ldp against pure-ldp and multi-freq-ldpy"
	@echo "make clean  remove build output and the jupyter cache"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.book-installed: requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.test-installed: $(VENV)/.book-installed requirements-test.txt
	$(BIN)/pip install --quiet -r requirements-test.txt
	touch $@

install: $(VENV)/.book-installed
install-test: $(VENV)/.test-installed

# MathJax 3 from the npm registry, vendored so equations render without a network.
$(MATHJAX):
	rm -rf _build/npm && mkdir -p _build/npm _vendor/mathjax/output/chtml/fonts
	cd _build/npm && npm install --no-save --no-audit --no-fund --silent mathjax@$(MATHJAX_VERSION)
	cp _build/npm/node_modules/mathjax/es5/tex-chtml.js _vendor/mathjax/
	cp -r _build/npm/node_modules/mathjax/es5/output/chtml/fonts/woff-v2 _vendor/mathjax/output/chtml/fonts/
	rm -rf _build/npm

mathjax: $(MATHJAX)

data: $(VENV)/.book-installed
	$(BIN)/python -m ldp.data fetch

# `make book` and `make test` run with whatever data can be obtained: a missing dataset is replaced
# by its documented stand-in, and every page that uses one says so.
data-if-possible: $(VENV)/.book-installed
	@$(BIN)/python -m ldp.data fetch || echo "Some datasets are missing (listed above): the book uses stand-ins for them and says so on each page."

book: $(VENV)/.book-installed $(MATHJAX) data-if-possible
	@case "$(PROFILE)" in smoke|book|paper) ;; *) echo "PROFILE must be smoke, book or paper"; exit 2;; esac
	@start=$$(date +%s); \
	$(BOOK_ENV) $(JB_BUILD) --path-output $(BOOK_ROOT); status=$$?; \
	echo "Book ($(PROFILE) profile) built in $$(( $$(date +%s) - start )) s."; \
	if [ "$(BOOK_ROOT)" != "." ]; then ln -sfn _build/html $(BOOK_ROOT)/html; fi; \
	if [ $$status -ne 0 ]; then echo "Build failed: see the warnings above and $(BOOK_HTML)/reports/"; exit $$status; fi; \
	echo "Open file://$(CURDIR)/$(BOOK_HTML)/index.html"

# The same book without the solutions of the exercises (sphinx-exercise's hide_solutions), for handing out.
# It reuses the executed notebooks of the PROFILE's own build (same code, same profile: same outputs).
book-nosolutions: $(VENV)/.book-installed $(MATHJAX) data-if-possible
	@mkdir -p $(BOOK_ROOT)/_build/.jupyter_cache $(NOSOL_ROOT)/_build
	@ln -sfn $(abspath $(BOOK_ROOT))/_build/.jupyter_cache $(NOSOL_ROOT)/_build/.jupyter_cache
	LDP_HIDE_SOLUTIONS=1 $(BOOK_ENV) $(JB_BUILD) --path-output $(NOSOL_ROOT)
	@ln -sfn _build/html $(NOSOL_ROOT)/html
	@echo "Open file://$(CURDIR)/$(NOSOL_ROOT)/html/index.html"

# The claims whose verdict differs between the book and the paper profile (build both first: `make book` and
# `make book PROFILE=paper`); each build records its chapters' claims tables in <root>/_build/claims/.
verdicts: $(VENV)/.book-installed
	$(BIN)/python -m ldp.claims diff _build/claims _build/paper/_build/claims

# JupyterLab on the repository; the settings in .jupyter/lab/user-settings make a double click on a notebook's
# .md open it as a notebook (jupytext), and the kernel imports this checkout's ldp.
lab: $(VENV)/.book-installed
	JUPYTERLAB_SETTINGS_DIR=$(CURDIR)/.jupyter/lab/user-settings $(BIN)/jupyter lab --notebook-dir=$(CURDIR) \
		$(if $(filter 0,$(shell id -u)),--allow-root) notebooks/00-frequency-oracles.md

# lint and format check (ruff, pinned in requirements-test.txt) before the tests
lint: $(VENV)/.test-installed
	$(BIN)/ruff check ldp tests benchmarks book/_ext
	$(BIN)/ruff format --check ldp tests benchmarks book/_ext

test: $(VENV)/.test-installed $(MATHJAX) data-if-possible lint
	$(BIN)/python -m pytest -n $(JOBS) --dist loadgroup -ra tests

$(BENCH_VENV)/.installed: benchmarks/requirements.txt pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/pip install --quiet -r benchmarks/requirements.txt
	$(BENCH_VENV)/bin/pip install --quiet --no-deps -e .
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/run_benchmarks.py $(BENCH_ARGS)

clean:
	rm -rf _build
