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

.PHONY: help install install-test data data-if-possible mathjax book test bench clean

help:
	@echo "make book   build the HTML book (book profile) into _build/html"
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
	@start=$$(date +%s); \
	$(BIN)/jupyter-book build . -W -n --keep-going; status=$$?; \
	echo "Book built in $$(( $$(date +%s) - start )) s."; \
	if [ $$status -ne 0 ]; then echo "Build failed: see the warnings above and _build/html/reports/"; exit $$status; fi; \
	echo "Open file://$(CURDIR)/_build/html/index.html"

test: $(VENV)/.test-installed $(MATHJAX) data-if-possible
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
