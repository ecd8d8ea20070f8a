"""Every test runs with its own data and cache directories and no inherited credentials."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers import MODEL_CACHE, SCRUB_PREFIXES, base_env
from video_research.support.services import Services, use_services

# Property tests: CI runs a fixed, derandomized set of examples, so a build is never at
# the mercy of a new random draw (a failure found locally becomes an explicit @example);
# local runs keep exploring with fresh random examples. HYPOTHESIS_PROFILE overrides.
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)

# Each area keeps its fixtures (local stubs of outside services) in tests/fixtures/<area>.py.
pytest_plugins = sorted(
    f"tests.fixtures.{path.stem}"
    for path in (Path(__file__).parent / "fixtures").glob("*.py")
    if path.stem != "__init__"
)


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    """Point the in-process config at tmp_path and forget any loaded settings."""
    from video_research import config

    for key in list(os.environ):
        if key.startswith(SCRUB_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("VIDEO_RESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GEMINI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VIDEO_RESEARCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("VIDEO_RESEARCH_FILE_ROOTS", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # The local model's ONNX graph is built once (seconds) and shared by every test and
    # every server a test spawns; the file name pins the weights and the graph version.
    monkeypatch.setenv("KNOWLEDGE_MODEL_CACHE_DIR", str(MODEL_CACHE))
    config.reset_config()
    yield
    config.reset_config()


@pytest.fixture(autouse=True)
def services(isolated_config) -> Iterator[Services]:
    """This test's shared resources (stores, databases, clients), in force for the whole
    test and closed when it ends, so nothing one test opened reaches the next.

    They follow the test's live settings (the environment above). Fixtures whose
    resources belong to the test's event loop (SDK clients, NATS) close them on that loop
    first; what is left is closed here.
    """
    services = Services()
    with use_services(services):
        yield services
    if services.opened():
        asyncio.run(services.aclose())


@pytest.fixture
def server_env(tmp_path):
    """Environment for a spawned server subprocess, isolated under tmp_path."""
    return base_env(tmp_path)
