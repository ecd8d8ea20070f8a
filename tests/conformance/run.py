"""`make conformance`: the official MCP conformance suite's server scenarios against
`video-research serve --transport http`.

Installs the suite (@modelcontextprotocol/conformance) and its Node 22 (the npm package
`node`) into tests/conformance/node_modules from the lock file, once; starts the server on
a free port with a throw-away data dir and every tool listed; runs each server scenario on
its own; prints one line per scenario.

Generic scenarios (anything an MCP server must do) must pass: the exit status is 1 when
one fails. The others drive the suite's reference fixtures (tools named test_*, resources
test://..., prompts test_...) that a real server does not have; their results are shown
for information only.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

GENERIC = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "completion-complete",
    "logging-set-level",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "server-sse-polling",
]
_RESULT = re.compile(r"Passed:\s*(\d+)/(\d+),\s*(\d+)\s*failed,\s*(\d+)\s*warnings")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def install() -> None:
    if NODE.exists() and SUITE.exists():
        return
    if shutil.which("npm") is None:
        sys.exit("make conformance needs npm (any Node) to install the suite and its Node 22")
    print(
        "installing the conformance suite and Node 22 into tests/conformance/node_modules",
        file=sys.stderr,
    )
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data: Path, port: int) -> subprocess.Popen:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GEMINI_", "YOUTUBE_", "VIDEO_RESEARCH_", "WEAVIATE_", "NATS_"))
    }
    env.update(
        VIDEO_RESEARCH_DATA_DIR=str(data / "data"),
        GEMINI_CACHE_DIR=str(data / "cache"),
        VIDEO_RESEARCH_TOOLSETS="all",
        HF_HUB_OFFLINE="1",
        PYTHONPATH=str(REPO),
    )
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "video_research",
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(data / "server.log", "w"),  # noqa: SIM115 - lives as long as the server
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server exited: see {data / 'server.log'}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit("the server did not start listening within 60 s")


def scenarios() -> list[str]:
    listing = subprocess.run(
        [str(NODE), str(SUITE), "list"], capture_output=True, text=True, check=True
    ).stdout
    server_part = listing.split("Client scenarios")[0]
    return re.findall(r"^\s*-\s*([\w-]+)", server_part, re.M)


def run_scenario(name: str, url: str) -> tuple[str, str]:
    proc = subprocess.run(
        [str(NODE), str(SUITE), "server", "--url", url, "--scenario", name],
        capture_output=True,
        text=True,
        timeout=180,
    )
    output = _ANSI.sub("", proc.stdout + proc.stderr)
    match = _RESULT.search(output)
    if match is None:
        return "FAIL", f"no result line (exit status {proc.returncode})"
    passed, total, failed, warnings = (int(g) for g in match.groups())
    detail = f"{passed}/{total} checks passed, {failed} failed, {warnings} warnings"
    flagged = re.findall(r"\[([\w-]+)\s*\]\s+(?:WARNING|FAILURE)", output)
    if flagged:
        detail += f" ({', '.join(dict.fromkeys(flagged))})"
    if failed:
        return "FAIL", detail
    return ("PASS" if not warnings else "PASS (warnings)"), detail


def main() -> int:
    install()
    with tempfile.TemporaryDirectory(prefix="vr-conformance-") as tmp:
        port = free_port()
        server = start_server(Path(tmp), port)
        url = f"http://127.0.0.1:{port}/mcp"
        version = subprocess.run(
            [str(NODE), str(SUITE), "--version"], capture_output=True, text=True
        ).stdout.strip()
        print(
            f"MCP conformance suite {version} (Node {subprocess.run([str(NODE), '--version'], capture_output=True, text=True).stdout.strip()}) against {url}\n"
        )
        failures = 0
        try:
            names = scenarios()
            print("Generic server scenarios (must pass):")
            for name in GENERIC:
                verdict, detail = run_scenario(name, url)
                failures += verdict == "FAIL"
                print(f"  {verdict:<16} {name:<32} {detail}")
            print(
                "\nScenarios that need the suite's reference fixtures (test_* tools, resources, prompts):"
            )
            for name in names:
                if name in GENERIC:
                    continue
                verdict, detail = run_scenario(name, url)
                verdict = "n/a (fixture)" if verdict == "FAIL" else verdict
                print(f"  {verdict:<16} {name:<32} {detail}")
        finally:
            server.terminate()
            server.wait(timeout=15)
    print(
        f"\n{'all generic scenarios pass' if not failures else f'{failures} generic scenario(s) FAILED'}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
