# The two commands of a fresh clone are `make demo` and `make test`; every other target is a
# step of those or a tool for developers. Each target creates and uses .venv by itself.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed

.PHONY: venv generate demo test clean

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

generate: $(VENV_STAMP)
	$(PY) -m gen generate op_docs --out generated

demo: $(VENV_STAMP)
	$(PY) -m gen demo op_docs

test: $(VENV_STAMP)
	$(PY) -m pytest

clean:
	rm -rf build
