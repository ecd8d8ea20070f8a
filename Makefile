# video-research: `make run` serves, `make test` tests. Both create .venv on first use.
#
# torch is installed first, pinned to the CPU build: without that, pip resolves the
# embedding model's torch dependency to a multi-GB CUDA build. Off this project's build
# machines, point TORCH_INDEX at the CPU wheel index:
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=
BENCH_VENV ?= .venv-fastmcp
PYTEST_ARGS ?=

.PHONY: install run test bench eval lint clean

# Set-up output goes to stderr: stdout belongs to the MCP stream when `make run` is a
# client's command.
$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "video-research needs Python 3.11+"' >&2
	@echo "creating $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

$(STAMP): pyproject.toml | $(PY)
	@echo "installing video-research and its dependencies into $(VENV)" >&2
	@$(PY) -m pip install --quiet --upgrade pip >&2
	@$(PY) -m pip install --quiet "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)) >&2
	@$(PY) -m pip install --quiet -e ".[test]" >&2
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

# Transcript retrieval quality (issue 13): needs ../shared/data/transcripts; EVAL="--sweep"
# tunes the fusion, EVAL="--embedders use-multilingual" picks the embedders measured.
eval: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m tests.eval $(EVAL)

lint: install
	$(PY) -m ruff check video_research tests
	$(PY) -m ruff format --check video_research tests

clean:
	rm -rf $(VENV) $(BENCH_VENV) .pytest_cache .ruff_cache
