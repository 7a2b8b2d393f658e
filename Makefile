# The two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test slow reliability bench lint fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/capsa score service/examples/round-4p-capsa-susun-id.json

test: $(STAMP)
	$(BIN)/pytest -m "not slow and not reliability"

slow: $(STAMP)
	$(BIN)/pytest -m slow

reliability: $(STAMP)
	$(BIN)/pytest -m reliability

bench: $(STAMP)
	$(BIN)/python bench/evaluator.py

lint: $(STAMP)
	$(BIN)/ruff check service tests bench tools
	$(BIN)/mypy --strict --follow-imports=silent service/domain

clean:
	rm -rf $(VENV) var/*.db .pytest_cache .hypothesis
