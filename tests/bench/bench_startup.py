"""Cold start to first tools/list over stdio, and tools/call round trips per second for
`infra_cache stats`, against a minimal FastMCP server with the same tool.

Both are interleaved so that load from elsewhere on a shared machine hits both servers
alike: cold starts alternate, and the round trips run in alternating blocks over two
open sessions (the figure is the median block rate).
"""

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


BLOCKS = int(os.environ.get("BENCH_BLOCKS", "6"))


async def _round_trips(
    servers: dict[str, tuple[str, list[str], dict[str, str]]],
) -> dict[str, float]:
    """Median calls/s over alternating blocks of CALLS / BLOCKS calls per server."""
    from contextlib import AsyncExitStack

    per_block = max(1, CALLS // BLOCKS)
    rates: dict[str, list[float]] = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        sessions = {}
        devnull = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 - closed by the stack
        for name, (command, args, env) in servers.items():
            session = await stack.enter_async_context(
                mcp_client(env, command=command, args=args, errlog=devnull)
            )
            await session.list_tools()
            for _ in range(10):  # warm up
                await session.call_tool("infra_cache", {"action": "stats"})
            sessions[name] = session
        for _ in range(BLOCKS):
            for name, session in sessions.items():
                started = time.perf_counter()
                for _ in range(per_block):
                    result = await session.call_tool("infra_cache", {"action": "stats"})
                    assert not result.is_error
                rates[name].append(per_block / (time.perf_counter() - started))
    return {name: median(values) for name, values in rates.items()}


def _compile_bytecode() -> None:
    """Byte-compile the package first, as an installed wheel is: with
    PYTHONDONTWRITEBYTECODE set (as on the build machines) every start would otherwise
    compile our modules from source, which the baseline's installed packages never do."""
    import compileall

    compileall.compile_dir(REPO_ROOT / "video_research", quiet=1)


async def _run() -> None:
    _compile_bytecode()
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
        rps = await _round_trips(servers)
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
