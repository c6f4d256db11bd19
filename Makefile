# The README's two commands: `make book` builds the site, `make test` runs every test.
# Any Python 3.11 to 3.13 the machine has (the first that runs, in this order).
PY ?= $(shell for p in python3.11 python3.12 python3.13 python3; do \
	$$p -c 'import sys; assert (3, 11) <= sys.version_info[:2] <= (3, 13)' >/dev/null 2>&1 \
	&& { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: book test env colab-env axe student instructor notebooks bench clean grader-env

$(STAMP): requirements.txt
	@test -x $(BIN)/python || test -n "$(PY)" || { echo "make: the book needs Python 3.11, 3.12 or 3.13 (python3.11 ... python3 on PATH); none found" >&2; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -r requirements.txt
	touch $(STAMP)

env: $(STAMP)

# The execution cache is keyed on a page's code cells only: when the model, widgets, labs,
# exercises or any chapter change (the appendix pages list the chapters' exercises and
# draw the recorded labs), drop it so every page re-runs against the new code. The stamp
# is a file of its own: the cache folder's time moves whenever anything touches it.
CODE := $(shell find perfmodel widgets labs exercises _ext -name '*.py' 2>/dev/null) $(wildcard labs/results/*/*.json) $(wildcard chapters/*.md)
BUILT := _build/.built-against-code

# Sphinx skips a build in which no page changed, static files and all: when the site's own
# files (_static, the step engine, the configuration) change, every page is written again (the
# execution cache is kept: no notebook runs again).
SITEFILES := $(wildcard _static/* _templates/* widgets/*.js _config.yml _toc.yml references.bib)

book: $(STAMP)
	@if [ -d _build/.jupyter_cache ] && { [ ! -f $(BUILT) ] || [ -n "$$(find $(CODE) -newer $(BUILT) 2>/dev/null | head -1)" ]; }; then \
		echo "code changed since the last build: re-executing every page"; \
		rm -rf _build/.jupyter_cache _build/.doctrees _build/html; \
	elif [ -f $(BUILT) ] && [ -n "$$(find $(SITEFILES) -newer $(BUILT) 2>/dev/null | head -1)" ]; then \
		echo "the site's files changed since the last build: writing every page again"; \
		rm -rf _build/.doctrees _build/html; fi
	$(BIN)/jupyter-book build . --warningiserror --keep-going
	@touch $(BUILT)
	@echo "The book is in _build/html/index.html"

# pytest on every core (pytest-xdist; tests/conftest.py keeps a module whose tests share a
# costly fixture on one worker), each test under its kind's time ceiling (pytest-timeout),
# and the ten slowest tests printed at the end. One worker a core: the cores are busy all
# through pytest (/proc/stat sampled every 10 s in a clean-clone CI: 96-100%), and a third
# worker on two cores made the run slower, not faster.
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)

# The book, the Colab-faithful runtime and axe-core are made side by side (the build executes
# the chapters on one core while pip fills .venv-colab on the other), then the tests run.
test: $(STAMP)
	@$(MAKE) --no-print-directory -j3 book colab-env axe
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup --durations=10 tests

# axe-core (the accessibility checker tests/test_axe.py injects into every page), from the npm
# registry at the version package-lock.json pins, into node_modules/ (git-ignored, never in
# the site).
AXE := node_modules/axe-core/axe.min.js
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(AXE)

axe: $(AXE)

# The Colab-faithful runtime the twins are tested in (.venv-colab: Colab's package versions
# on Python 3.13; see scripts/colab_env.py).
colab-env: $(STAMP)
	$(BIN)/python scripts/colab_env.py

# Colab twins: notebooks/<name>.ipynb from chapters/<name>.md (never edit them by hand).
notebooks: $(STAMP)
	$(BIN)/python scripts/make_notebooks.py

# Two editions from one source: students get no solutions, instructors get all of them.
student: $(STAMP)
	$(BIN)/python scripts/build_edition.py student

instructor: $(STAMP)
	$(BIN)/python scripts/build_edition.py instructor

# A grading machine (no book-building stack): the checks' packages in .venv-grader; each
# student check runs in a bubblewrap sandbox (apt-get install bubblewrap), or util-linux's
# unshare where bubblewrap is missing. On a GPU grader: make grader-env GRADER_EXTRAS=grader,gpu
GRADER_EXTRAS ?= grader
grader-env:
	test -x .venv-grader/bin/python || $(PY) -m venv .venv-grader
	.venv-grader/bin/pip install -q -e '.[$(GRADER_EXTRAS)]'

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

clean:
	rm -rf _build
