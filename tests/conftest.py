"""Every test runs with its own data and cache directories and no inherited credentials."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers import MODEL_CACHE, SCRUB_PREFIXES, TEST_EMBEDDING_MODEL, base_env
from video_research import config
from video_research.config import Settings
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
    """An environment of the test's own: data and cache under tmp_path, no credentials
    inherited from the developer's shell. The test's settings are loaded from it (the
    `services` fixture), as the server loads its own."""
    for key in list(os.environ):
        if key.startswith(SCRUB_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("VIDEO_RESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GEMINI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VIDEO_RESEARCH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("VIDEO_RESEARCH_FILE_ROOTS", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # Each test that parses a document starts a parser pool of its own: one worker, since a
    # second would cost a process start and parse nothing in almost every test.
    monkeypatch.setenv("PARSER_WORKERS", "1")
    # The local model's ONNX graph is built once (seconds) and shared by every test and
    # every server a test spawns; the file name pins the weights and the graph version.
    monkeypatch.setenv("KNOWLEDGE_MODEL_CACHE_DIR", str(MODEL_CACHE))
    # The suite's fixtures are 384-dim MiniLM vectors; the default model (use-multilingual)
    # has tests of its own (tests/knowledge/test_multilingual_e2e.py).
    monkeypatch.setenv("KNOWLEDGE_EMBEDDING_MODEL", TEST_EMBEDDING_MODEL)
    yield
    # Nothing a test runs may fall back on the process-wide settings: they are not the
    # test's (a server reads them only where it starts). Tests of that API itself use
    # `live_config`, which forgets what they loaded.
    if config._config is not None:  # loaded by get_config() during the test
        config.reset_config()  # so the tests after this one start without it
        pytest.fail(
            "the test loaded the process-wide settings (get_config()) instead of "
            "reading those of the Services in force (current_settings())"
        )


@pytest.fixture(autouse=True)
def services(isolated_config) -> Iterator[Services]:
    """This test's settings and shared resources (stores, databases, clients), in force
    for the whole test and closed when it ends, so nothing one test opened reaches the
    next.

    The settings are the test's own, loaded from its environment: every call the test
    makes and every accessor below it reads them (`ctx.settings`, `current_settings()`),
    never the process-wide config, so no test can leave settings behind for the next.
    Change them with the `configure` fixture. Fixtures whose resources belong to the
    test's event loop (SDK clients, NATS) close them on that loop first; what is left is
    closed here.
    """
    services = Services(config.load_settings())
    with use_services(services):
        yield services
    if services.opened():
        asyncio.run(services.aclose())


@pytest.fixture
def configure(services, monkeypatch) -> Callable[..., Settings]:
    """Change this test's settings: `configure(GEMINI_MODEL="m", YOUTUBE_API_KEY=None)`.

    Sets the variables (None removes one) and loads the settings again, the way the
    server reads them, into the test's Services; returns them. `configure()` alone
    reloads after the test changed the environment itself. The variables stay set until
    the test ends (monkeypatch), so a later `configure` keeps the earlier changes.
    """

    def apply(**env: str | None) -> Settings:
        for key, value in env.items():
            if value is None:
                monkeypatch.delenv(key, raising=False)
            else:
                monkeypatch.setenv(key, value)
        return services.replace_settings(config.load_settings())

    return apply


@pytest.fixture
def live_config() -> Iterator[None]:
    """For tests of the process-wide settings themselves (`get_config`, `set_config`,
    a Services that follows them): none loaded when the test starts, and
    what it loaded forgotten when it ends."""
    config.reset_config()
    yield
    config.reset_config()


@pytest.fixture
def server_env(tmp_path):
    """Environment for a spawned server subprocess, isolated under tmp_path."""
    return base_env(tmp_path)


# -- the suite's shape: `make test-fast` leaves out the tests marked `slow` ---------------

SPAWNS = re.compile(
    r"\b(mcp_client|http_server|run_cli|stdio_client|create_subprocess_exec)\("
    r"|\bsubprocess\.(run|Popen|check_call|check_output)\("
)
"""What starts a process (the server over stdio or HTTP, the CLI, a tool's own command):
a test that does it itself is `slow` without saying so. Modules whose fixtures or helpers
start one, or that run the speech and OCR models, a browser or an installed wheel, carry
`pytestmark = pytest.mark.slow` themselves."""


def _spawns(function: Callable[..., object]) -> bool:
    try:
        return SPAWNS.search(inspect.getsource(function)) is not None
    except (OSError, TypeError):
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` every test whose own body starts a process (SPAWNS)."""
    for item in items:
        function = getattr(item, "function", None)
        if function is not None and "slow" not in item.keywords and _spawns(function):
            item.add_marker(pytest.mark.slow)
