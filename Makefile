PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8080

.PHONY: venv serve test openapi bench bench-quick clean fuzz fuzz-decide load sanitize
# TLS for `make serve` (see SECURITY.md): SSL_CERTFILE, SSL_KEYFILE, SSL_CA_CERTS, SSL_CERT_REQS.
SERVE_TLS = $(if $(SSL_CERTFILE),--ssl-certfile $(SSL_CERTFILE)) $(if $(SSL_KEYFILE),--ssl-keyfile $(SSL_KEYFILE)) \
            $(if $(SSL_CA_CERTS),--ssl-ca-certs $(SSL_CA_CERTS)) $(if $(SSL_CERT_REQS),--ssl-cert-reqs $(SSL_CERT_REQS))
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 0
LOAD_SECONDS ?= 60
LOAD_WORKERS ?= 2

$(VENV)/.installed: pyproject.toml setup.py app/ingest/kernels.c constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

serve: venv
	@echo "Gangplank on http://$(HOST):$(PORT)  (API docs: http://$(HOST):$(PORT)/docs)"
	@echo "Try it:"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/decisions -H 'Content-Type: application/json' --data-binary @examples/volcano-small.json"
	$(PY) -m app.serve --host $(HOST) --port $(PORT) $(SERVE_TLS)

test: venv
	$(PY) -m pytest

openapi: venv
	$(PY) scripts/export_openapi.py

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info .sanitize

bench: venv
	$(PY) -m bench.run

bench-quick: venv
	$(PY) -m bench.run --quick

# Coverage-guided fuzzing of the ingest path (atheris; not part of `make test`). New inputs
# go to .fuzz/corpus, crashes to .fuzz/; fuzz/corpus is the committed seed corpus.
fuzz: venv
	@$(PY) -c "import atheris" 2>/dev/null || $(PY) -m pip install --quiet -e '.[fuzz]'
	@mkdir -p .fuzz/corpus
	$(PY) fuzz/fuzz_ingest.py .fuzz/corpus fuzz/corpus -max_total_time=$(FUZZ_SECONDS) -timeout=20 -dict=fuzz/ingest.dict -artifact_prefix=.fuzz/

# Structured mutation fuzzing of whole decisions (fuzz/mutate.py; not part of `make test`):
# seeds are the bodies the tests in FUZZ_TESTS decide (recorded once into .fuzz/bodies by
# the fuzz.record plugin) and fuzz/corpus; crashing inputs go to .fuzz/decide/.
FUZZ_TESTS ?= tests
fuzz-decide: venv
	@mkdir -p .fuzz/bodies
	@[ -n "$$(ls .fuzz/bodies)" ] || $(PY) -m pytest -q -o addopts="" -p no:cacheprovider -p fuzz.record $(FUZZ_TESTS) >/dev/null \
		|| echo "recorded $$(ls .fuzz/bodies | wc -l) bodies (test failures while recording are expected: test_hardening sees the recorder write files)"
	$(PY) -m fuzz.mutate --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) .fuzz/bodies fuzz/corpus

# Bounded load test against uvicorn on 127.0.0.1 (LOAD_WORKERS workers, LOAD_SECONDS s).
load: venv
	$(PY) -m bench.load --seconds $(LOAD_SECONDS) --workers $(LOAD_WORKERS)

# The C kernels under AddressSanitizer and UndefinedBehaviorSanitizer (gcc; not part of
# `make test`): built again into .sanitize/, the tests that drive them run against that build.
sanitize: venv
	scripts/sanitize.sh $(PY)
