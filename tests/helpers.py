"""Shared test helpers: spawning the real server over stdio with the real MCP client.

Every end-to-end test goes through `mcp_client`, which runs `python -m video_research`
in a subprocess (the way MCP clients do) with an isolated environment: its own data and
cache directories, no inherited API keys.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent

# Variables a test environment must never inherit from the developer's shell.
SCRUB_PREFIXES = (
    "GEMINI_",
    "YOUTUBE_",
    "WEAVIATE_",
    "NATS_",
    "VIDEO_RESEARCH_",
    "GOOGLE_",
    "TRANSCRIPT_",
    "WEBSHARE_",
    "DOCUMENTS_",
)


TEST_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
"""The model tests run with unless they test another: their fixtures are 384-dim vectors."""

MODEL_CACHE = Path(tempfile.gettempdir()) / "video-research-test-models"
"""The local model's ONNX graph, built once and shared by every test run (see conftest)."""


def base_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """A clean environment for a server subprocess rooted in `tmp_path`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB_PREFIXES)}
    env.update(
        {
            "VIDEO_RESEARCH_DATA_DIR": str(tmp_path / "data"),
            "GEMINI_CACHE_DIR": str(tmp_path / "cache"),
            "VIDEO_RESEARCH_CONFIG_DIR": str(tmp_path / "config"),
            "VIDEO_RESEARCH_FILE_ROOTS": str(tmp_path),
            "PYTHONPATH": str(REPO_ROOT),
            "PYTHONUNBUFFERED": "1",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            # Every tool listed, as before the default profile: tests of the profile and of
            # toolsets on demand set VIDEO_RESEARCH_TOOLSETS themselves.
            "VIDEO_RESEARCH_TOOLSETS": "all",
            "KNOWLEDGE_MODEL_CACHE_DIR": str(MODEL_CACHE),
            "KNOWLEDGE_EMBEDDING_MODEL": TEST_EMBEDDING_MODEL,
        }
    )
    env.update(overrides)
    return env


@asynccontextmanager
async def mcp_client(
    env: Mapping[str, str],
    *,
    args: list[str] | None = None,
    command: str | None = None,
    cwd: str | Path | None = None,
    errlog: Any = None,
    message_handler: Any = None,
    logging_callback: Any = None,
    extensions: dict[str, dict[str, Any]] | None = None,
) -> AsyncIterator[Any]:
    """An initialized ClientSession talking to a freshly spawned server over stdio.

    `message_handler` receives the server's notifications (e.g. resources/updated),
    `logging_callback` its log notifications (notifications/message); `extensions` are
    the client's declared extensions (identifier -> settings), e.g. MCP Apps.
    """
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=command or sys.executable,
        args=args if args is not None else ["-m", "video_research"],
        env=dict(env),
        cwd=str(cwd or REPO_ROOT),
    )
    log = errlog if errlog is not None else sys.stderr
    async with (
        stdio_client(params, errlog=log) as (read, write),
        ClientSession(
            read,
            write,
            message_handler=message_handler,
            logging_callback=logging_callback,
            extensions=extensions,
        ) as session,
    ):
        await session.initialize()
        yield session


def run_cli(env: Mapping[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`python -m video_research ARGS` in a subprocess: its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "video_research", *args],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=REPO_ROOT,
        timeout=timeout,
    )


def tool_json(result: Any) -> dict[str, Any]:
    """The JSON object a tool result carries in its one text content."""
    assert result.content, "tool result has no content"
    return json.loads(result.content[0].text)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """Wait until a spawned HTTP server accepts connections on 127.0.0.1:`port`."""
    import anyio

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "server exited"
        try:
            stream = await anyio.connect_tcp("127.0.0.1", port)
            await stream.aclose()
            return
        except OSError:
            await anyio.sleep(0.1)
    raise AssertionError("server did not start listening")


@asynccontextmanager
async def http_server(env: Mapping[str, str], transport: str = "http") -> AsyncIterator[Any]:
    """`video-research serve --transport http|sse` on a free port; yields (port, process).

    stdout and stderr are piped: read them after the block to check what it wrote.
    """
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "video_research",
            "serve",
            "--transport",
            transport,
            "--port",
            str(port),
        ],
        env=dict(env),
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        await wait_listening(port, proc)
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


DATA = REPO_ROOT / "tests" / "data"
API_SAMPLES = DATA / "api"
"""Real API responses (copied from ../shared/data/api with their PROVENANCE.md)."""


def shared_data() -> Path | None:
    """The workspace's shared data folder (../shared/data or ./shared/data), if present."""
    for candidate in (REPO_ROOT.parent / "shared" / "data", REPO_ROOT / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def api_sample(relative: str) -> Any:
    """A real API response sample, e.g. api_sample("gemini/error_503_unavailable_overloaded.json")."""
    return json.loads((API_SAMPLES / relative).read_text())


_SPOKEN_DIGITS = {"7": "seven", "9": "nine"}
"""The digits the speech fixture's sentences hold: Whisper writes some as words."""


def spoken_words(text: str) -> list[str]:
    """Lower-case words of `text` without punctuation, the fixture's digits as words."""
    import re

    return [_SPOKEN_DIGITS.get(w, w) for w in re.sub(r"[^a-z0-9 ]", " ", text.lower()).split()]


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: word-level edit distance over the reference's length."""
    ref, hyp = spoken_words(reference), spoken_words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        previous, row[0] = row[:], i
        for j in range(1, len(hyp) + 1):
            row[j] = min(
                previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ref[i - 1] != hyp[j - 1])
            )
    return row[-1] / len(ref)


def kill_after_commits(
    script: str, args: list[str], env: Mapping[str, str], commits: int, delay: float = 0.0
) -> None:
    """Run `script` (python -c) as a writer that prints a line per committed write, let it
    commit `commits` times, wait `delay` seconds more, then SIGKILL it wherever it is:
    what a crash or an OOM kill leaves behind, for the store's recovery tests."""
    import signal

    writer = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=dict(env),
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        for _ in range(commits):
            assert writer.stdout and writer.stdout.readline(), "the writer died before committing"
        time.sleep(delay)
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.wait(timeout=30)
