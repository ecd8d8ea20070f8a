"""Issue 2: cold start to first tools/list over stdio, and tools/call round trips per
second for `infra_cache stats`, against a minimal FastMCP server with the same tool."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import anyio

from tests.bench.common import header, median, report
from tests.helpers import REPO_ROOT, base_env, mcp_client

COLD_RUNS = int(os.environ.get("BENCH_COLD_RUNS", "7"))
CALLS = int(os.environ.get("BENCH_CALLS", "300"))
FASTMCP_PYTHON = Path(
    os.environ.get("FASTMCP_PYTHON", REPO_ROOT / ".venv-fastmcp" / "bin" / "python")
)


def _servers(tmp: Path) -> dict[str, tuple[str, list[str], dict[str, str]]]:
    env = base_env(tmp)
    (tmp / "cache").mkdir(parents=True, exist_ok=True)
    return {
        "video-research": (sys.executable, ["-m", "video_research"], env),
        "fastmcp": (
            str(FASTMCP_PYTHON),
            [str(REPO_ROOT / "tests" / "bench" / "fastmcp_server.py")],
            env,
        ),
    }


async def _cold_start(command: str, args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    async with mcp_client(env, command=command, args=args, errlog=open(os.devnull, "w")) as session:
        tools = await session.list_tools()
        elapsed = time.perf_counter() - started
        assert any(t.name == "infra_cache" for t in tools.tools)
    return elapsed


async def _round_trips(command: str, args: list[str], env: dict[str, str]) -> float:
    async with mcp_client(env, command=command, args=args, errlog=open(os.devnull, "w")) as session:
        await session.list_tools()
        for _ in range(10):  # warm up
            await session.call_tool("infra_cache", {"action": "stats"})
        started = time.perf_counter()
        for _ in range(CALLS):
            result = await session.call_tool("infra_cache", {"action": "stats"})
            assert not result.is_error
        return CALLS / (time.perf_counter() - started)


async def _run() -> None:
    if not FASTMCP_PYTHON.exists():
        raise RuntimeError(
            f"baseline environment missing: {FASTMCP_PYTHON} (make bench creates it)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        servers = _servers(Path(tmp))
        cold: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(COLD_RUNS):  # interleave so drift hits both alike
            for name, (command, args, env) in servers.items():
                cold[name].append(await _cold_start(command, args, env))
        rps = {name: await _round_trips(*spec) for name, spec in servers.items()}
    header("startup and round trips (stdio, real MCP client)")
    report(
        "cold start -> first tools/list (median)",
        median(cold["video-research"]) * 1000,
        "ms",
        "FastMCP same tool",
        median(cold["fastmcp"]) * 1000,
        higher_is_better=False,
    )
    report(
        f"infra_cache stats round trips ({CALLS} calls)",
        rps["video-research"],
        "calls/s",
        "FastMCP same tool",
        rps["fastmcp"],
        higher_is_better=True,
    )


def main() -> None:
    anyio.run(_run)
