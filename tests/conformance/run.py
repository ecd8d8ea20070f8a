"""`make conformance`: the official MCP conformance suite's server scenarios, on both
protocol revisions this server claims, against `video-research serve --transport http`
and, beside it, the Python SDK's own conformance server on the same SDK.

Installs the suite (@modelcontextprotocol/conformance 0.2.x) and its Node 22 (the npm
package `node`) into tests/conformance/node_modules from the lock file, once. For each
revision (`--requirements 2025-11-25`, `--requirements 2026-07-28`: exactly the scenarios
that revision requires, run at its wire, plus the pending ones the suite runs with them)
it starts each server on a free port with a throw-away data dir and every tool listed,
runs the set once (seconds) and reads each scenario's checks.json.

A scenario's checks are read one by one: a failed check whose message starts "Not
testable" could not run here (it needs one of the suite's fixture tools, test_*), so it
is counted apart, not as a failure. The scenarios in JUDGED can judge any server and must
pass (exit status 1 otherwise); the others drive the suite's reference fixtures (tools
test_*, resources test://..., prompts test_...) that a real server does not have: shown,
labelled "n/a (fixture)" where they fail (the tasks-* ones, kind "ext", are the tasks
extension's, which the suite runs but never scores). The SDK's column tells a failure that is the
SDK's (it fails there too) from one of ours.

The SDK's conformance server is examples/servers/everything-server of
github.com/modelcontextprotocol/python-sdk. It is not vendored: put that folder (of the
release matching the installed `mcp`) in VIDEO_RESEARCH_CONFORMANCE_SDK_SERVER or
~/.cache/video-research/conformance/everything-server, or its column says why it is absent.

`--ci` runs only the 2026-07-28 scenarios that need no fixtures against this server (no
SDK column): what `make test` runs, through tests/server/test_conformance_stateless.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
REVISIONS = ("2025-11-25", "2026-07-28")

JUDGED: dict[str, tuple[str, ...]] = {
    "2025-11-25": (
        "server-initialize",
        "server-session-lifecycle",
        "ping",
        "logging-set-level",
        "tools-list",
        "resources-list",
        "prompts-list",
        "completion-complete",
        "server-sse-multiple-streams",
        "server-sse-polling",
        "dns-rebinding-protection",
    ),
    "2026-07-28": (
        "server-stateless",
        "caching",
        "http-header-validation",
        "dns-rebinding-protection",
        "tools-list",
        "resources-list",
        "prompts-list",
        "completion-complete",
        "sep-2164-resource-not-found",
        "input-required-result-unsupported-methods",
        "input-required-result-validate-input",
        "server-sse-multiple-streams",
    ),
}
"""The scenarios that can judge any server, per revision: they must pass."""

CI_SCENARIOS: tuple[str, ...] = (
    "server-stateless",
    "caching",
    "http-header-validation",
    "sep-2164-resource-not-found",
    "tools-list",
    "resources-list",
    "prompts-list",
    "completion-complete",
    "input-required-result-unsupported-methods",
)
"""The 2026-07-28 scenarios `make test` runs: stateless, no fixture needed, seconds."""

SDK_SERVER_ENV = "VIDEO_RESEARCH_CONFORMANCE_SDK_SERVER"
SDK_SERVER_CACHE = Path.home() / ".cache" / "video-research" / "conformance" / "everything-server"
_STAMP = re.compile(r"^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Verdict:
    """One scenario's checks on one server."""

    passed: int = 0
    failed: int = 0
    untestable: int = 0
    warnings: int = 0
    schema_violations: int = 0
    first_failure: str = ""

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def cell(self, kind: str) -> str:
        """`kind`: judged (a failure is ours), fixture or ext (a failure is n/a here)."""
        ran = self.passed + self.failed
        if self.ok:
            text = f"PASS {self.passed}/{ran}"
            if self.untestable:
                text += f" (+{self.untestable} need fixtures)"
            if self.warnings:
                text += f" {self.warnings}w"
            return text
        return f"{'FAIL' if kind == 'judged' else f'n/a ({kind})'} {self.passed}/{ran}"


# ---------------------------------------------------------------- the suite


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
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=HERE,
        check=True,
        stdout=2,  # stderr: stdout is the report
    )


def suite_version() -> str:
    out = subprocess.run([str(NODE), str(SUITE), "--version"], capture_output=True, text=True)
    node = subprocess.run([str(NODE), "--version"], capture_output=True, text=True)
    return f"{out.stdout.strip()} (Node {node.stdout.strip()})"


def run_suite(url: str, revision: str, scenarios: tuple[str, ...] | None = None) -> dict:
    """{scenario: Verdict} of the suite against `url` at `revision`: the revision's whole
    requirement set in one run, or each of `scenarios` at that revision's wire."""
    results: dict[str, Verdict] = {}
    with tempfile.TemporaryDirectory(prefix="vr-conformance-out-") as out:
        runs = (
            [["--requirements", revision]]
            if scenarios is None
            else [["--scenario", name, "--spec-version", revision] for name in scenarios]
        )
        for args in runs:
            subprocess.run(
                [str(NODE), str(SUITE), "server", "--url", url, *args, "-o", out],
                capture_output=True,
                text=True,
                timeout=600,
            )
        for folder in sorted(Path(out).iterdir()):
            match = _STAMP.match(folder.name)
            checks = folder / "checks.json"
            if match and checks.exists():
                results[match.group(1)] = _verdict(json.loads(checks.read_text()))
    return results


def _verdict(checks: list[dict]) -> Verdict:
    verdict = Verdict()
    for check in checks:
        status, message = check.get("status"), _ANSI.sub("", check.get("errorMessage") or "")
        if check.get("id") == "wire-schema-valid":
            verdict.schema_violations += len((check.get("details") or {}).get("violations", []))
        if status == "SUCCESS":
            verdict.passed += 1
        elif status == "WARNING":
            verdict.passed += 1
            verdict.warnings += 1
        elif status == "FAILURE" and message.startswith("Not testable"):
            verdict.untestable += 1
        elif status == "FAILURE":
            verdict.failed += 1
            verdict.first_failure = verdict.first_failure or f"{check.get('id')}: {message}"
    return verdict


# ---------------------------------------------------------------- the servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(server: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"a server exited: see {log}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit(f"a server did not start listening within 60 s: see {log}")


def start_ours(data: Path, port: int) -> subprocess.Popen:
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
    log = data / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "video_research", "serve", "--transport", "http"]
        + ["--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(log, "w"),  # noqa: SIM115 - lives as long as the server
    )
    _wait(server, port, log)
    return server


def sdk_server_dir() -> tuple[Path | None, str]:
    """The SDK's conformance server folder, or None and why it is absent."""
    where = Path(os.environ.get(SDK_SERVER_ENV) or SDK_SERVER_CACHE)
    if (where / "mcp_everything_server" / "server.py").exists():
        return where, ""
    return None, (
        f"not found in {where}: put examples/servers/everything-server of "
        "github.com/modelcontextprotocol/python-sdk there (or name its folder in "
        f"{SDK_SERVER_ENV})"
    )


def start_sdk(folder: Path, data: Path, port: int) -> subprocess.Popen:
    log = data / "sdk-server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_everything_server", "--port", str(port)],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        stdout=subprocess.DEVNULL,
        stderr=open(log, "w"),  # noqa: SIM115 - lives as long as the server
    )
    _wait(server, port, log)
    return server


def against(start, revision: str, scenarios: tuple[str, ...] | None = None) -> dict:
    """Start a fresh server with `start(data, port)`, run the suite, stop it."""
    with tempfile.TemporaryDirectory(prefix="vr-conformance-") as tmp:
        port = free_port()
        server = start(Path(tmp), port)
        try:
            return run_suite(f"http://127.0.0.1:{port}/mcp", revision, scenarios)
        finally:
            server.terminate()
            server.wait(timeout=15)


# ---------------------------------------------------------------- the report


def table(revision: str, ours: dict, sdk: dict | None, sdk_why: str) -> int:
    """Print one revision's table; return how many judged scenarios failed on ours."""
    judged = JUDGED[revision]
    names = list(judged) + sorted((set(ours) | set(sdk or {})) - set(judged))
    print(f"\n--requirements {revision} (at its wire)")
    print(f"  {'scenario':<48} {'':<8} {'video-research':<34} SDK everything-server")
    failures = 0
    for name in names:
        mine = ours.get(name)
        is_judged = name in judged
        kind = "judged" if is_judged else "ext" if name.startswith("tasks-") else "fixture"
        mine_cell = mine.cell(kind) if mine else ("FAIL not run" if is_judged else "-")
        if is_judged and (mine is None or not mine.ok):
            failures += 1
        theirs = (sdk or {}).get(name)
        sdk_cell = theirs.cell(kind) if theirs else ("-" if sdk is not None else "absent")
        print(f"  {name:<48} {kind:<8} {mine_cell:<34} {sdk_cell}")
        if is_judged and mine is not None and not mine.ok:
            print(f"      {mine.first_failure[:160]}")
    violations = sum(v.schema_violations for v in ours.values())
    print(
        f"  messages the suite checked against the {revision} schema: "
        f"{'all valid' if not violations else f'{violations} violation(s)'}"
    )
    if sdk is None:
        print(f"  SDK everything-server: {sdk_why}")
    return failures + (1 if violations else 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ci", action="store_true", help="the stateless scenarios only")
    parser.add_argument("--revision", choices=REVISIONS, action="append")
    options = parser.parse_args(argv)
    install()
    print(f"MCP conformance suite {suite_version()}")
    if options.ci:
        ours = against(start_ours, "2026-07-28", CI_SCENARIOS)
        failed = [n for n in CI_SCENARIOS if n not in ours or not ours[n].ok]
        for name in CI_SCENARIOS:
            print(f"  {name:<48} {ours[name].cell('judged') if name in ours else 'FAIL not run'}")
        return 1 if failed else 0
    folder, sdk_why = sdk_server_dir()
    failures = 0
    for revision in options.revision or REVISIONS:
        ours = against(start_ours, revision)
        sdk = None
        if folder is not None:
            sdk = against(lambda data, port: start_sdk(folder, data, port), revision)
        failures += table(revision, ours, sdk, sdk_why)
    print(
        "\nall judged scenarios pass"
        if not failures
        else f"\n{failures} judged scenario(s) (or schema checks) FAILED"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
