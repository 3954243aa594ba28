# InferLedger: `make run` (set up + serve the embedded default), `make test` (set up + whole suite).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Two stamps: what serving needs (make run installs only that, so the first page comes sooner) and the
# test/lint tools on top (make test, make check).
RUNTIME_STAMP := $(VENV)/.installed-runtime-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
STAMP := $(VENV)/.installed-dev-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
# The tests' data layer runs on PostgreSQL; this default matches a local server with trust auth.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
HOST ?= 127.0.0.1
PORT ?= 8000

# The vLLM CPU engine the endpoint tests serve (its own environment: its pins clash with ours).
VLLM_VENV ?= .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed-$(shell cat requirements-vllm.txt | cksum | cut -d' ' -f1)
# KServe's model server, the Open Inference Protocol v2 server the endpoint tests measure (its own environment too).
KSERVE_VENV ?= .venv-kserve
KSERVE_STAMP := $(KSERVE_VENV)/.installed-$(shell cat requirements-kserve.txt | cksum | cut -d' ' -f1)

.PHONY: venv runtime-venv vllm-venv kserve-venv run serve test test-browser check lint format bench clean worker beat agent \
	gpu-check

# DEBUG is off unless asked for (inferledger/settings.py): these development targets ask for it. The
# production-style targets below (worker, beat, agent) do not.
run serve test test-browser check bench: export DEBUG ?= true

# Installed without byte-compiling (--no-compile): compiling torch, transformers and scipy was two thirds of
# the install (84 s of pip against 31 s). make run compiles the environment in the background once it serves;
# make venv compiles it before the tests, whose many processes would otherwise each compile what they import.
$(RUNTIME_STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -r requirements.txt
	rm -f $(VENV)/.installed-runtime-*
	touch $@

$(STAMP): $(RUNTIME_STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet --no-compile -r requirements-dev.txt
	$(COMPILE_VENV)
	rm -f $(VENV)/.installed-dev-*
	touch $@

# Byte-compiles the environment's packages (what pip would have done; a file that does not compile, as some
# packages ship on purpose, is skipped as pip skips it).
COMPILE_VENV = $(PY) -m compileall -q -j 0 $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') > /dev/null 2>&1 || true

runtime-venv: $(RUNTIME_STAMP)
venv: $(STAMP)

# An engine's own environment ($(1)) from its pinned requirements file (the prerequisite), without resolving:
# the pins are complete and clash with ours. Not byte-compiled (--no-compile: compiling every module of torch,
# vLLM and transformers was most of the install); an engine writes the bytecode of what it imports on its
# first start (harness.endpoints.engines.engine_environment).
define engine_venv
test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
$(1)/bin/python -m pip install --quiet --no-deps --no-compile -r $<
rm -f $(1)/.installed-*
touch $@
endef

$(VLLM_STAMP): requirements-vllm.txt
	$(call engine_venv,$(VLLM_VENV))

vllm-venv: $(VLLM_STAMP)

$(KSERVE_STAMP): requirements-kserve.txt
	$(call engine_venv,$(KSERVE_VENV))

kserve-venv: $(KSERVE_STAMP)

# ROTATE_TOKEN=1 revokes the demo token printed last time and prints a new one (kept in var/demo-token otherwise).
run: runtime-venv
	$(PY) manage.py prepare_run --base-url http://$(HOST):$(PORT) $(if $(ROTATE_TOKEN),--rotate-token)
	@echo "The built-in local agent measures this machine in the background: progress on /jobs/ (log: var/local-agent.log)"
	@mkdir -p var
	nice -n 19 $(COMPILE_VENV) &
	$(PY) manage.py run_agent --name local > var/local-agent.log 2>&1 & agent=$$!; \
	$(PY) inferledger/announce.py http://$(HOST):$(PORT)/ & announce=$$!; \
	trap 'kill $$agent $$announce 2>/dev/null' EXIT INT TERM; \
	$(PY) manage.py runserver --noreload $(HOST):$(PORT)

serve: runtime-venv
	$(PY) manage.py runserver $(HOST):$(PORT)

test: venv vllm-venv kserve-venv
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(VENV)/bin/pytest $(PYTEST_ARGS)

# The dashboard in headless Chromium (/usr/bin/chromium); screenshots in test-artifacts/screenshots/.
test-browser: venv
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(VENV)/bin/pytest -m browser $(PYTEST_ARGS)

check: venv lint
	$(VENV)/bin/lint-imports
	DATABASE_URL=sqlite:///:memory: $(VENV)/bin/mypy
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py check
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py makemigrations --check --dry-run
	DATABASE_URL=sqlite:///:memory: $(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: venv
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: runtime-venv
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} $(PY) benchmarks/run_all.py

# Production-style processes (docs/operations.md); each needs CELERY_BROKER_URL, worker and beat DATABASE_URL too.
worker: runtime-venv
	$(VENV)/bin/celery -A inferledger worker --queues control --hostname control@%h --loglevel INFO

beat: runtime-venv
	$(VENV)/bin/celery -A inferledger beat --scheduler django_celery_beat.schedulers:DatabaseScheduler --loglevel INFO

AGENT ?= $(shell hostname -s)
agent: runtime-venv
	$(PY) manage.py run_agent --name $(AGENT)

# On a GPU host with requirements-gpu.txt installed: the `gpu` tests (skipped with the reason without a CUDA
# device), then the reference workloads, one row per point as each item finishes. GPU_CHECK_ARGS narrows or
# bounds it, e.g. GPU_CHECK_ARGS="--workload cv-classification --backend eager --precision bf16 --budget-s 300".
gpu-check: venv
	$(VENV)/bin/pytest -m gpu -rs -p no:cacheprovider tests/harness/test_gpu.py tests/harness/test_memory.py
	$(PY) -m harness.gpu_check $(GPU_CHECK_ARGS)

clean:
	rm -rf $(VENV) $(VLLM_VENV) $(KSERVE_VENV) db.sqlite3 staticfiles .pytest_cache .ruff_cache
