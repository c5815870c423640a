# Two commands: `make run` serves the site, `make test` runs the whole suite.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.deps-installed
NODE_STAMP := node_modules/.deps-installed
ESLINT := node_modules/.bin/eslint
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := gnugo chromium nodejs docker-compose

.PHONY: run test lint build system-deps bench clean

$(PY):
	python3 -m venv $(VENV)

$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

# ESLint for the front end, from package-lock.json (npm ci starts node_modules/ afresh).
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

build: $(STAMP)
	$(PY) setup.py -q build_ext --inplace

system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $$missing; \
	fi
	@command -v npm >/dev/null || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q npm; }

run: build
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver 127.0.0.1:8000

lint: $(STAMP) system-deps $(NODE_STAMP)
	$(VENV)/bin/ruff check .
	$(ESLINT) frontend/static

test: build system-deps lint
	$(PY) -m pytest

bench: build
	$(PY) -m analysis.bench board

clean:
	rm -rf build analysis/go/*.so
