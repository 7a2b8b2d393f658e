# The two commands: `make run` and `make test`. Everything else is optional.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-pgbouncer slow reliability load bench lint fuzz clean lock nginx nginx-conf package-test clients mutation \
  ha-deps ha-up ha-status ha-down ha-chaos ha-backup ha-restore ha-drill

# Only what the locks pin, checked against their hashes: the build tools (pip, setuptools,
# wheel), then the runtime, test and bench packages, then the project itself and the Python
# client (clients/python), editable and built with those same tools (pip's isolated build
# would fetch setuptools unpinned). Bytecode is written as modules are first imported, not
# for every module of every package at install (25 s against 43 here: most are never imported).
$(STAMP): pyproject.toml requirements-build.lock requirements-dev.lock clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --require-hashes -r requirements-build.lock
	$(BIN)/pip install -q --no-compile --require-hashes -r requirements-dev.lock
	$(BIN)/pip install -q --no-deps --no-build-isolation -e . -e ./clients/python
	touch $(STAMP)

# The locks, from pyproject.toml, for Python 3.11 on Linux x86_64 (the image's platform)
# whatever machine runs this: requirements.lock (runtime: the image), requirements-dev.lock
# (runtime + test + bench + lock + clients extras, the same pins: make's install) and
# requirements-build.lock ([build-system] requires and pip). Existing pins are kept where
# pyproject still allows them; `make lock UPGRADE=1` takes the newest releases.
UV_COMPILE = $(BIN)/uv pip compile --quiet --generate-hashes --python-version 3.11 \
  --python-platform x86_64-manylinux_2_28 --custom-compile-command 'make lock' \
  $(if $(UPGRADE),--upgrade)
lock: $(STAMP)
	$(UV_COMPILE) pyproject.toml -o requirements.lock
	$(UV_COMPILE) pyproject.toml --extra test --extra bench --extra lock --extra clients --extra mutation \
	  -c requirements.lock \
	  -o requirements-dev.lock
	$(BIN)/python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], 'pip', sep='\n')" \
	  | $(UV_COMPILE) - -c requirements-dev.lock -o requirements-build.lock

# The demo service on SQLite: migrate, make the `demo` client once (its key is kept in
# var/demo.key, mode 0600, and printed on every run) and a signing key once
# (var/signing-keys.json), then serve on 127.0.0.1:$(PORT) with the webhook dispatcher beside
# it (loopback receivers allowed, as a development machine's are: WEBHOOK_ALLOW_PRIVATE=0
# make run refuses them) and `capsa sweep`, which settles Capsa Susun games at their
# deadline, plays overdue Big Two turns and folds the ledger's all-time rollups; both stop
# when the server does. The ports:
# `make run PORT=8080 METRICS_PORT=9200 WEBHOOK_METRICS_PORT=9201` (the API, gunicorn's
# metrics, the dispatcher's metrics; all on 127.0.0.1).
DEMO_DB := sqlite:///var/capsa.db
DEMO_KEYS := var/signing-keys.json
PORT ?= 8000
METRICS_PORT ?= 9100
WEBHOOK_METRICS_PORT ?= 9101
run: $(STAMP)
	@mkdir -p var
	DATABASE_URL=$(DEMO_DB) $(BIN)/capsa db upgrade
	@umask 077; if ! DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients list | grep -q '^demo '; then \
	  made=$$(DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients create demo) && echo "$$made" | tail -n 1 > var/demo.key; \
	elif [ ! -s var/demo.key ]; then \
	  made=$$(DATABASE_URL=$(DEMO_DB) $(BIN)/capsa clients key demo) && echo "$$made" | tail -n 1 > var/demo.key; \
	fi; chmod 600 var/demo.key
	@echo "Demo API key (client demo): $$(cat var/demo.key)"
	@# The receipts' signing key: made once (it also signs the records stored before it).
	@[ -s $(DEMO_KEYS) ] || DATABASE_URL=$(DEMO_DB) $(BIN)/capsa keys create --file $(DEMO_KEYS) >/dev/null
	@# METRICS_BIND and WEBHOOK_METRICS_BIND, when set (`off`, another address), win over the ports.
	@export DATABASE_URL=$(DEMO_DB) SIGNING_KEY_FILE=$(DEMO_KEYS) WEBHOOK_ALLOW_PRIVATE=$${WEBHOOK_ALLOW_PRIVATE-1} \
	  METRICS_BIND=$${METRICS_BIND-127.0.0.1:$(METRICS_PORT)} WEBHOOK_METRICS_BIND=$${WEBHOOK_METRICS_BIND-127.0.0.1:$(WEBHOOK_METRICS_PORT)}; \
	  echo "Serving http://127.0.0.1:$(PORT) (metrics on $$METRICS_BIND); beside it the webhook dispatcher" \
	    "(capsa webhooks dispatch; metrics on $$WEBHOOK_METRICS_BIND) and the sweeper (capsa sweep: games, turns, ledger rollups)"; \
	  $(BIN)/capsa webhooks dispatch & dispatcher=$$!; \
	  $(BIN)/capsa sweep & sweeper=$$!; \
	  trap 'kill $$dispatcher $$sweeper 2>/dev/null; wait $$dispatcher $$sweeper' EXIT; trap 'exit 130' INT TERM; \
	  $(BIN)/capsa serve --host 127.0.0.1 --port $(PORT)

# The client libraries, regenerated from openapi.yaml: clients/python/capsa_client and
# clients/typescript/src/schema.ts (tools/clients.py; the TypeScript half runs `npm ci` in
# clients/typescript once per package-lock.json). Run it after changing the API, with
# `capsa openapi`, and commit the result: tests/integration/test_clients.py fails on drift.
clients: $(STAMP)
	$(BIN)/python tools/clients.py

# The suite runs on every core (pytest-xdist: each worker takes whole files, with databases and
# servers of its own, the longest first: tests/conftest.py); `make test XDIST=` runs it in one
# process.
XDIST ?= -n auto --dist loadfile --no-loadscope-reorder

test: $(STAMP)
	$(BIN)/pytest $(XDIST) -m "not slow and not reliability"

# The API suite's PostgreSQL half again, through a pgbouncer 1.18 in transaction mode that
# the session starts (TEST_PGBOUNCER=1, DATABASE_POOLER=pgbouncer; needs TEST_DATABASE_URL).
test-pgbouncer: $(STAMP)
	TEST_PGBOUNCER=1 $(BIN)/pytest $(XDIST) -m "postgres and not slow and not reliability" tests/api

# The Dockerfile's steps without Docker: a wheel, a fresh venv from requirements.lock with
# hashes, the service run from elsewhere (tests/integration/test_packaging.py, about 30 s
# with pip's cache warm; part of `make test` too).
package-test: $(STAMP)
	$(BIN)/pytest -m packaging tests/integration/test_packaging.py

# nginx in front of `make run` (deploy/nginx.conf: 127.0.0.1:8080 -> 127.0.0.1:8000), in the
# foreground, with its pid, logs and temp files under var/nginx/.
nginx:
	@mkdir -p var/nginx
	nginx -p $(CURDIR)/var/nginx/ -c $(CURDIR)/deploy/nginx.conf -g 'daemon off;'

# deploy/nginx.conf from its template for a local run (docker-compose.yml renders its own).
nginx-conf:
	UPSTREAM=127.0.0.1:8000 LISTEN=127.0.0.1:8080 envsubst '$${UPSTREAM} $${LISTEN}' \
	  < deploy/nginx.conf.template > deploy/nginx.conf

# Not CI: the high-availability formation on this machine (tools/ha/formation.py, as root;
# docs/operations.md "High availability"): a pg_auto_failover monitor, two PostgreSQL nodes
# each with its pgbouncer, two app nodes, nginx and redis, each "host" on its own loopback
# address and in its own session, ports from HA_PORT_BASE. `ha-up` creates it on first use
# and starts whatever is not running, then writes HA_DIR/formation.json; `ha-status` prints it
# with the current roles; `ha-down` stops every process it started. `ha-deps` installs
# Debian's packages (as root).
HA_PORT_BASE ?= 17000
HA_PACKAGES := postgresql-15 postgresql-15-auto-failover pg-auto-failover-cli pgbouncer pgbackrest nginx redis-server \
  util-linux iptables
ha-deps:
	apt-get install -y --no-install-recommends $(HA_PACKAGES)
ha-up ha-status ha-down: ha-%: $(STAMP)
	@test -n "$(HA_DIR)" || { echo "HA_DIR is required: make $@ HA_DIR=/some/dir" >&2; exit 2; }
	HA_PORT_BASE=$(HA_PORT_BASE) $(BIN)/python tools/ha/formation.py $* --dir $(HA_DIR)

# Faults under load on that formation (tools/ha/chaos.py, as root; docs/operations.md "High
# availability"): brings it up if needed, takes down what it brought up, writes HA_DIR/chaos.json.
ha-chaos: $(STAMP)
	@test -n "$(HA_DIR)" || { echo "HA_DIR is required: make $@ HA_DIR=/some/dir" >&2; exit 2; }
	HA_PORT_BASE=$(HA_PORT_BASE) $(BIN)/python tools/ha/chaos.py --dir $(HA_DIR) $(HA_CHAOS_ARGS)

# Backups of that formation (tools/ha/backups.py, pgBackRest, as root; docs/operations.md
# "Point-in-time restore on the formation"): `ha-up` sets up the repository (HA_DIR/backup)
# and archiving; `ha-backup` takes a backup now (TYPE=full, diff or incr; from the standby) and
# prints its size and duration; `ha-restore` restores to TARGET ("time:TIMESTAMP" or
# "lsn:X/Y") into a new PostgreSQL of its own in INTO (REPLACE=1 replaces an existing INTO)
# and prints its URL on its last line; `ha-down` stops the restored servers too.
# `ha-drill` (tools/ha/drill.py): backup, failover, a destructive statement and a restore
# under load, checked against the signed heads; writes HA_DIR/drill.json.
TYPE ?= full
ha-backup: $(STAMP)
	@test -n "$(HA_DIR)" || { echo "HA_DIR is required: make $@ HA_DIR=/some/dir" >&2; exit 2; }
	HA_PORT_BASE=$(HA_PORT_BASE) $(BIN)/python tools/ha/backups.py backup --dir $(HA_DIR) --type $(TYPE)
ha-restore: $(STAMP)
	@test -n "$(HA_DIR)" || { echo "HA_DIR is required: make $@ HA_DIR=/some/dir" >&2; exit 2; }
	@test -n "$(TARGET)" -a -n "$(INTO)" || { echo 'TARGET and INTO are required: make $@ HA_DIR=DIR TARGET="time:..." INTO=DIR2' >&2; exit 2; }
	@HA_PORT_BASE=$(HA_PORT_BASE) $(BIN)/python tools/ha/backups.py restore --dir $(HA_DIR) \
	  --target "$(TARGET)" --into "$(INTO)" $(if $(filter 1,$(REPLACE)),--replace)
ha-drill: $(STAMP)
	@test -n "$(HA_DIR)" || { echo "HA_DIR is required: make $@ HA_DIR=/some/dir" >&2; exit 2; }
	HA_PORT_BASE=$(HA_PORT_BASE) $(BIN)/python tools/ha/drill.py --dir $(HA_DIR) $(HA_DRILL_ARGS)

slow: $(STAMP)
	$(BIN)/pytest -m slow

# Not CI: fault injection on a private PostgreSQL cluster (initdb/pg_ctl) and, as root with
# pg_autoctl installed, the formation's tests (docs/operations.md's `sh ha` blocks among them),
# ha-chaos and ha-drill, each on a fresh HA_DIR taken down afterwards; then the mixed-load
# search and 60 s run on the PostgreSQL server of TEST_DATABASE_URL (a database of its own).
LOAD_DB ?= $(or $(TEST_DATABASE_URL),postgresql+psycopg://postgres@127.0.0.1:5432/test)
reliability: $(STAMP)
	$(BIN)/pytest -m reliability -s -p no:cacheprovider tests/reliability
	@if command -v pg_autoctl >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  dir=$$(mktemp -d /tmp/capsa-ha-chaos-XXXXXX) && chmod 755 $$dir && \
	  $(MAKE) ha-chaos HA_DIR=$$dir HA_PORT_BASE=$(HA_PORT_BASE); rc=$$?; \
	  $(MAKE) ha-down HA_DIR=$$dir HA_PORT_BASE=$(HA_PORT_BASE) >/dev/null; [ $$rc = 0 ] || exit $$rc; \
	  dir=$$(mktemp -d /tmp/capsa-ha-drill-XXXXXX) && chmod 755 $$dir && \
	  $(MAKE) ha-drill HA_DIR=$$dir HA_PORT_BASE=$(HA_PORT_BASE); rc=$$?; \
	  $(MAKE) ha-down HA_DIR=$$dir HA_PORT_BASE=$(HA_PORT_BASE) >/dev/null; exit $$rc; \
	else echo "ha-chaos and ha-drill skipped: pg_autoctl is not installed or not root (make ha-deps, as root)"; fi
	TEST_DATABASE_URL=$(LOAD_DB) $(BIN)/python bench/load.py

load: $(STAMP)
	TEST_DATABASE_URL=$(LOAD_DB) $(BIN)/python bench/load.py

# In-process benchmarks; the database ones (bench/http.py, bench/ledger.py, bench/verify.py, bench/load.py)
# need TEST_DATABASE_URL and are listed in docs/benchmarks.md.
bench: $(STAMP)
	$(BIN)/python bench/evaluator.py
	$(BIN)/python bench/banting.py
	$(BIN)/python bench/suggest.py

# Not CI (over an hour on two cores): mutmut mutates the modules [tool.mutmut] in
# pyproject.toml lists (money, scoring, audit, the Big Two referee, idempotency, signing and
# the keyring, statements, Susun deadlines, the webhook schedule and dispatcher, rate limits),
# runs their unit and API tests against each mutant in mutants/, then prints the killed and
# surviving counts and names each survivor (`mutmut show NAME` shows its diff).
mutation: $(STAMP)
	$(BIN)/mutmut run --max-children 2 || true
	$(BIN)/mutmut export-cicd-stats
	@$(BIN)/python -c "import json; s = json.load(open('mutants/mutmut-cicd-stats.json')); \
	  print('mutants: killed', s['killed'], 'survived', s['survived'], 'timeout', s['timeout'], \
	        'suspicious', s['suspicious'], 'skipped', s['skipped'], 'total', s['total'])"
	$(BIN)/mutmut results

fuzz: $(STAMP)
	FUZZ_EXAMPLES=1000 $(BIN)/pytest -s tests/api/test_api_fuzz.py

lint: $(STAMP)
	$(BIN)/ruff check service tests bench tools
	$(BIN)/mypy --strict service
	$(BIN)/mypy --follow-imports=silent --ignore-missing-imports bench tools

clean:
	rm -rf $(VENV) var/*.db .pytest_cache .hypothesis
