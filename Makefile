# The two commands a new user needs: `make run` and `make test`. See README.md.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test bench install install-dev migrate catalogue user lint clean

# Runtime packages only (requirements.txt): enough for `make run`.
$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is required")'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.txt
	@touch $(STAMP)

# Test, lint and benchmark tools on top (requirements-dev.txt): `make test`, `make lint`, `make bench`.
$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(PIP) install --quiet -r requirements-dev.txt
	@touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

migrate: install
	DEBUG=$${DEBUG:-true} $(PY) manage.py migrate --noinput

catalogue: migrate
	DEBUG=$${DEBUG:-true} $(PY) manage.py load_catalogue

# Create a sign-in (asks for a username and a password); works in a fresh shell, like `make run`.
user: migrate
	DEBUG=$${DEBUG:-true} $(PY) manage.py createsuperuser $(ARGS)

run: catalogue
	@echo "Serving on http://127.0.0.1:$(PORT)/"
	DEBUG=$${DEBUG:-true} $(PY) manage.py runserver 127.0.0.1:$(PORT)

test: install-dev
	$(PY) -m pytest $(PYTEST_ARGS)

bench: install-dev
	rm -f bench/results.json  # this run's figures only (a renamed figure must not linger)
	$(PY) -m bench.engine_bench
	$(PY) -m bench.request_bench
	$(PY) -m bench.export_bench
	$(PY) -m bench.solve_bench
	$(PY) -m bench.frontend_bench

lint: install-dev
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
