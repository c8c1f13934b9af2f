PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8080

.PHONY: venv serve test openapi bench bench-quick clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

serve: venv
	@echo "Gangplank on http://$(HOST):$(PORT)  (API docs: http://$(HOST):$(PORT)/docs)"
	@echo "Try it:"
	@echo "  curl -s -X POST http://$(HOST):$(PORT)/v1/decisions -H 'Content-Type: application/json' --data-binary @examples/volcano-small.json"
	$(VENV)/bin/uvicorn app.main:app --host $(HOST) --port $(PORT)

test: venv
	$(PY) -m pytest

openapi: venv
	$(PY) scripts/export_openapi.py

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info

bench: venv
	$(PY) -m bench.run

bench-quick: venv
	$(PY) -m bench.run --quick
