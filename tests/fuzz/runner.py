"""Schema-driven fuzzing of every listed tool over a real stdio ClientSession (`make fuzz`).

For each tool the server lists, hypothesis-jsonschema draws arguments from the tool's own
published inputSchema, and each set is sent with `tools/call` to a server spawned the way
MCP clients spawn it (`python -m video_research`). Every answer is judged:

- ok: the structured content must match the tool's outputSchema (the SDK's client checks
  it too) and the text content must be the same JSON;
- error: its one text content must be a ToolError (error, category, hint, retryable);
  counted by category, and `UNKNOWN` / `internal_error` are listed as suspicious: a
  schema-shaped input deserves an error that says what is wrong;
- a JSON-RPC error, a call past FUZZ_CALL_TIMEOUT (a hang) or a server that dies (a
  crash) are findings; after a hang or a crash the server is started again.

Everything runs in a throwaway directory: its own HOME, data and cache directories, file
roots pointing at a folder of sample files (hostile ones included: a FIFO, a name that
is not UTF-8, a zip bomb; every other example's path arguments are aimed at them), no
Gemini, YouTube, Weaviate or NATS settings (those calls must fail cleanly, not hang).
Configuration:

    FUZZ_EXAMPLES     examples drawn per tool (default 25)
    FUZZ_SECONDS      the whole run's budget in seconds (default 900); tools not reached
                      in time are reported as skipped
    FUZZ_CALL_TIMEOUT seconds one call may take (default 30)
    FUZZ_TOOLS        comma-separated tool names to fuzz (default: all listed)
    FUZZ_SEED         seed for the draws (default 0; the same seed draws the same inputs)
    FUZZ_SERVER_PYTHON the Python that runs the server (default: this one; `make fuzz`
                      runs the client from .venv-fuzz and the server from .venv)

Exit status 1 when any crash, hang, protocol error or contract violation was found.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
import zipfile
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from tests.helpers import SCRUB_PREFIXES  # stdlib-only module: fine in .venv-fuzz

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOL_ERROR_KEYS = {"error", "category", "hint", "retryable"}
SUSPICIOUS = {"internal_error"}


@dataclass
class ToolReport:
    calls: int = 0
    ok: int = 0
    errors: Counter = field(default_factory=Counter)
    crashes: int = 0
    timeouts: int = 0
    protocol_errors: int = 0
    violations: int = 0
    skipped: bool = False
    findings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"{self.calls} calls, {self.ok} ok, {sum(self.errors.values())} errors"

    def note(self, kind: str, arguments: Any, detail: str) -> None:
        if len(self.findings) < 5:
            shown = json.dumps(arguments, default=str, ensure_ascii=True)
            self.findings.append(f"{kind}: {detail[:300]} <- {shown[:300]}")


def _settings() -> dict[str, Any]:
    return {
        "examples": int(os.environ.get("FUZZ_EXAMPLES", "25")),
        "seconds": float(os.environ.get("FUZZ_SECONDS", "900")),
        "call_timeout": float(os.environ.get("FUZZ_CALL_TIMEOUT", "30")),
        "tools": [t for t in os.environ.get("FUZZ_TOOLS", "").split(",") if t.strip()],
        "seed": int(os.environ.get("FUZZ_SEED", "0")),
    }


def _sample_files(root: Path) -> None:
    """A folder a fuzzed path may hit: ordinary files and hostile ones."""
    files = root / "files"
    (files / "docs").mkdir(parents=True)
    (files / "docs" / "note.md").write_text("# Note\n\nTides follow the moon.\n")
    (files / "docs" / "page.html").write_text("<html><body><p>Hello</p></body></html>")
    (files / "captions").mkdir()
    (files / "captions" / "dQw4w9WgXcQ.vtt").write_text(
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nHello there\n"
    )
    (files / "catalog.csv").write_text("video_id,title\ndQw4w9WgXcQ,A video\n")
    (files / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(256))
    with contextlib.suppress(OSError):
        os.mkfifo(files / "docs" / "pipe.md")
    bad_name = os.path.join(os.fsencode(files / "docs"), b"bad-\xff.md")
    with contextlib.suppress(OSError), open(bad_name, "wb") as handle:
        handle.write(b"# Bad name\n\nStill text.\n")
    with (
        zipfile.ZipFile(files / "docs" / "bomb.docx", "w", zipfile.ZIP_DEFLATED) as bomb,
        bomb.open("word/document.xml", "w") as part,
    ):
        for _ in range(20):
            part.write(b"0" * (1024 * 1024))


PATH_KEYS = {"path", "file_path", "directory", "paths"}
"""Arguments that name local files: half the examples get a sample file instead of the
drawn string (which would almost always lie outside the file roots)."""


def sample_paths(root: Path) -> list[str]:
    """The sample files as a client can name them: JSON cannot carry a name that is not
    UTF-8, so that one is given as the server shows it (`bad-\\xff.md`)."""
    files = root / "files"
    shown = (os.fsencode(p).decode("utf-8", errors="backslashreplace") for p in files.rglob("*"))
    return sorted(shown) + [str(files)]


def aim_at_samples(examples: list[dict[str, Any]], samples: list[str]) -> None:
    """Point every other example's path arguments at the sample files (in place)."""
    for number, arguments in enumerate(examples):
        if number % 2:
            continue
        for key in PATH_KEYS & set(arguments):
            sample = samples[(number // 2 + len(key)) % len(samples)]
            arguments[key] = [sample] if isinstance(arguments[key], list) else sample


def _environment(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB_PREFIXES)}
    env.update(
        {
            "HOME": str(root / "home"),
            "VIDEO_RESEARCH_DATA_DIR": str(root / "data"),
            "GEMINI_CACHE_DIR": str(root / "cache"),
            "VIDEO_RESEARCH_FILE_ROOTS": str(root / "files"),
            "VIDEO_RESEARCH_AUDIT_LOG": str(root / "audit.jsonl"),
            "VIDEO_RESEARCH_CONFIG_DIR": str(root / "config"),  # no developer's .env
            "VIDEO_RESEARCH_TOOLSETS": "all",  # every tool, and the toolset meta-tools too
            "VIDEO_RESEARCH_DYNAMIC_TOOLSETS": "on",
            "PYTHONPATH": str(REPO_ROOT),
            "PYTHONUNBUFFERED": "1",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }
    )
    (root / "home").mkdir(exist_ok=True)
    return env


def draw_examples(schema: dict[str, Any], count: int, seed: int) -> list[dict[str, Any]]:
    """Up to `count` argument objects drawn from `schema` (hypothesis-jsonschema)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed
    from hypothesis_jsonschema import from_schema

    drawn: list[dict[str, Any]] = []

    @with_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(schema))
    def collect(arguments: dict[str, Any]) -> None:
        drawn.append(arguments)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collect()
    return drawn


@contextlib.asynccontextmanager
async def serving(env: dict[str, str], errlog: Path) -> AsyncIterator[Any]:
    """A spawned stdio server and its initialized ClientSession, for one `async with`.

    Held in a plain `async with`, so that when the server dies the SDK's task group
    turns that into an exception leaving this block, never a cancellation of the caller.
    """
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=os.environ.get("FUZZ_SERVER_PYTHON") or sys.executable,
        args=["-m", "video_research"],
        env=env,
        cwd=str(REPO_ROOT),
    )
    with open(errlog, "a", encoding="utf-8") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


class Restart(Exception):
    """Leave the current server (it hangs): the next call gets a fresh one."""


def judge(report: ToolReport, tool: Any, arguments: dict[str, Any], result: Any) -> None:
    """Count one answer and check it against the contracts."""
    from jsonschema import Draft202012Validator

    text = result.content[0].text if result.content else None
    if result.is_error:
        try:
            error = json.loads(text or "")
        except json.JSONDecodeError:
            report.violations += 1
            report.note("error is not JSON", arguments, str(text))
            return
        if not isinstance(error, dict) or not set(error) >= TOOL_ERROR_KEYS:
            report.violations += 1
            report.note("error is not a ToolError", arguments, str(text))
            return
        report.errors[error["category"]] += 1
        if error["category"] in SUSPICIOUS:
            report.note(error["category"], arguments, error["error"])
        return
    report.ok += 1
    structured = result.structured_content
    problems = []
    if tool.output_schema:
        problems = [
            e.message for e in Draft202012Validator(tool.output_schema).iter_errors(structured)
        ]
    if problems or text is None or json.loads(text) != structured:
        report.violations += 1
        report.note("output contract", arguments, "; ".join(problems) or "text differs")


def _holds(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether `exc` is `kind` or an exception group holding one."""
    if isinstance(exc, kind):
        return True
    return isinstance(exc, BaseExceptionGroup) and any(_holds(e, kind) for e in exc.exceptions)


async def call_one(
    session: Any, tool: Any, arguments: dict[str, Any], report: ToolReport, timeout: float
) -> None:
    """One call, counted and judged; Restart when it hangs."""
    from mcp.shared.exceptions import MCPError

    report.calls += 1
    result = None
    try:
        with anyio.move_on_after(timeout):
            result = await session.call_tool(tool.name, arguments)
    except MCPError as exc:
        report.protocol_errors += 1
        report.note("JSON-RPC error", arguments, str(exc))
        return
    if result is None:
        report.timeouts += 1
        report.note("timeout", arguments, f"no answer in {timeout:g} s")
        raise Restart
    judge(report, tool, arguments, result)


async def fuzz(
    env: dict[str, str],
    errlog: Path,
    work: list[tuple[Any, dict[str, Any], ToolReport]],
    config: dict[str, Any],
    deadline: float,
) -> None:
    """Send every (tool, arguments) of `work` in order, through one server while it lives:
    a hang or a crash is counted against the call that caused it, and the rest of the
    work goes to a fresh server."""
    position = 0
    while position < len(work):
        try:
            async with serving(env, errlog) as session:
                while position < len(work):
                    tool, arguments, report = work[position]
                    if time.monotonic() > deadline:
                        report.skipped = True
                        position += 1
                        continue
                    position += 1
                    await call_one(session, tool, arguments, report, config["call_timeout"])
                    if position == len(work) or work[position][0] is not tool:
                        print(f"  {tool.name}: {report.summary()}", file=sys.stderr)
        except Exception as exc:  # the server died mid-call (an ExceptionGroup from the SDK)
            if _holds(exc, Restart):
                continue
            tool, arguments, report = work[position - 1]
            report.crashes += 1
            report.note("crash", arguments, f"{type(exc).__name__}: {exc}")


def print_summary(
    reports: dict[str, ToolReport], seconds: float, config: dict, errlog: Path
) -> int:
    categories = sorted({c for r in reports.values() for c in r.errors})
    print(
        f"\nfuzz: {sum(r.calls for r in reports.values())} calls to {len(reports)} tools in "
        f"{seconds:.0f} s (FUZZ_EXAMPLES={config['examples']}, seed {config['seed']})"
    )
    header = f"{'tool':32} {'calls':>5} {'ok':>4} {'errors':>6} {'crash':>5} {'hang':>4} {'rpc':>3} {'contract':>8}  errors by category"
    print(header)
    print("-" * len(header))
    for name, r in sorted(reports.items()):
        by_category = ", ".join(f"{c}={r.errors[c]}" for c in categories if r.errors[c])
        note = " (budget spent: skipped)" if r.skipped and not r.calls else ""
        print(
            f"{name:32} {r.calls:>5} {r.ok:>4} {sum(r.errors.values()):>6} {r.crashes:>5} "
            f"{r.timeouts:>4} {r.protocol_errors:>3} {r.violations:>8}  {by_category}{note}"
        )
    totals = Counter()
    for r in reports.values():
        totals.update(r.errors)
    print("-" * len(header))
    print("errors by category:", ", ".join(f"{c}={n}" for c, n in totals.most_common()) or "none")
    bad = 0
    for name, r in sorted(reports.items()):
        bad += r.crashes + r.timeouts + r.protocol_errors + r.violations
        for finding in r.findings:
            print(f"  {name}: {finding}")
    print(
        f"crashes={sum(r.crashes for r in reports.values())} "
        f"hangs={sum(r.timeouts for r in reports.values())} "
        f"protocol_errors={sum(r.protocol_errors for r in reports.values())} "
        f"contract_violations={sum(r.violations for r in reports.values())} "
        f"suspicious={sum(r.errors[c] for r in reports.values() for c in SUSPICIOUS)}"
    )
    print(f"server log: {errlog}")
    return 1 if bad else 0


async def main() -> int:
    config = _settings()
    root = Path(tempfile.mkdtemp(prefix="vr-fuzz-"))
    errlog = root / "server.log"
    started = time.monotonic()
    deadline = started + config["seconds"]
    _sample_files(root)
    samples = sample_paths(root)
    env = _environment(root)
    async with serving(env, errlog) as session:
        tools = sorted((await session.list_tools()).tools, key=lambda t: t.name)
    wanted = set(config["tools"]) or {t.name for t in tools}
    reports: dict[str, ToolReport] = {}
    work: list[tuple[Any, dict[str, Any], ToolReport]] = []
    for number, tool in enumerate(tools):
        if tool.name not in wanted:
            continue
        report = reports.setdefault(tool.name, ToolReport())
        examples = await asyncio.to_thread(
            draw_examples, tool.input_schema, config["examples"], config["seed"] + number
        )
        aim_at_samples(examples, samples)
        work += [(tool, arguments, report) for arguments in examples]
    await fuzz(env, errlog, work, config, deadline)
    code = print_summary(reports, time.monotonic() - started, config, errlog)
    if code == 0:
        shutil.rmtree(root, ignore_errors=True)
        print("(no findings: the throwaway directory was removed)")
    return code


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
