# The two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test slow reliability load bench lint fuzz clean nginx nginx-conf

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $(STAMP)

# The demo service on SQLite: migrate, make the `demo` client once (its key is kept in
# var/demo.key, mode 0600, and printed on every run), then serve on 127.0.0.1:8000.
DEMO_DB := sqlite:///var/capsa.db
run: $(STAMP)
	@mkdir -p var
	DATABASE_URL=$(DEMO_DB) $(BIN)/capsa db upgrade
	@umask 077; if ! DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients list | grep -q '^demo '; then \
	  DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients create demo | tail -n 1 > var/demo.key; \
	elif [ ! -s var/demo.key ]; then \
	  DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients key demo | tail -n 1 > var/demo.key; \
	fi; chmod 600 var/demo.key
	@echo "Demo API key (client demo): $$(cat var/demo.key)"
	DATABASE_URL=$(DEMO_DB) $(BIN)/capsa serve --host 127.0.0.1 --port 8000

test: $(STAMP)
	$(BIN)/pytest -m "not slow and not reliability"

# nginx in front of `make run` (deploy/nginx.conf: 127.0.0.1:8080 -> 127.0.0.1:8000), in the
# foreground, with its pid, logs and temp files under var/nginx/.
nginx:
	@mkdir -p var/nginx
	nginx -p $(CURDIR)/var/nginx/ -c $(CURDIR)/deploy/nginx.conf -g 'daemon off;'

# deploy/nginx.conf from its template for a local run (docker-compose.yml renders its own).
nginx-conf:
	UPSTREAM=127.0.0.1:8000 LISTEN=127.0.0.1:8080 envsubst '$${UPSTREAM} $${LISTEN}' \
	  < deploy/nginx.conf.template > deploy/nginx.conf

slow: $(STAMP)
	$(BIN)/pytest -m slow

# Not CI: fault injection on a private PostgreSQL cluster (initdb/pg_ctl), then the mixed-load
# search and 60 s run on the PostgreSQL server of TEST_DATABASE_URL (a database of its own).
LOAD_DB ?= $(or $(TEST_DATABASE_URL),postgresql+psycopg://postgres@127.0.0.1:5432/test)
reliability: $(STAMP)
	$(BIN)/pytest -m reliability -s -p no:cacheprovider tests/reliability
	TEST_DATABASE_URL=$(LOAD_DB) $(BIN)/python bench/load.py

load: $(STAMP)
	TEST_DATABASE_URL=$(LOAD_DB) $(BIN)/python bench/load.py

# In-process benchmarks; the database ones (bench/http.py, bench/ledger.py, bench/load.py)
# need TEST_DATABASE_URL and are listed in README "Benchmarks".
bench: $(STAMP)
	$(BIN)/python bench/evaluator.py
	$(BIN)/python bench/banting.py
	$(BIN)/python bench/suggest.py

fuzz: $(STAMP)
	FUZZ_EXAMPLES=1000 $(BIN)/pytest -s tests/api/test_api_fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check service tests bench tools
	$(BIN)/mypy --strict --follow-imports=silent service/domain

clean:
	rm -rf $(VENV) var/*.db .pytest_cache .hypothesis
