"""The fault matrix's harness: a running server with a fault inlet, and one row per test.

Each test is one row of the matrix `make faults` prints: it starts the real server
(`tests.faults.serve`, stdio or HTTP, real SQLite and workers), injects its fault during
real work and checks (a) the call in flight fails alone with an error of the documented
vocabulary, (b) the server keeps serving, (c) nothing accepted before is lost and nothing
half-written shows, (d) once the fault is gone the same call succeeds without repair.
It fills in its `row` (fault, tool, result, recovery time, data lost); the outcome is
added from pytest's report.

Rows marked `slow_fault` take minutes (or thousands of calls) and run only in
`make faults` (FAULTS_ALL=1); the others run in `make test` too.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import base_env, mcp_client, tool_json
from video_research.support.errors import ErrorCategory

CATEGORIES = {category.value for category in ErrorCategory}
"""The documented vocabulary a failed call's `category` must come from."""


@dataclass
class Row:
    """One line of the matrix."""

    fault: str = ""
    tool: str = ""
    result: str = ""
    """What the call under the fault answered (its error category and the gist)."""
    recovery_s: float | None = None
    """Seconds from the fault's removal to the same call succeeding."""
    data_lost: int | None = None
    """Objects accepted before the fault and missing after it (must be 0)."""
    outcome: str = ""
    test: str = ""
    notes: list[str] = field(default_factory=list)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("FAULTS_ALL"):
        return
    skip = pytest.mark.skip(reason="a slow fault row: runs in `make faults` (FAULTS_ALL=1)")
    for item in items:
        if "slow_fault" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "slow_fault: a fault row too slow for `make test`")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    row = getattr(item, "fault_row", None)
    if row is None:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        row.outcome = "skipped" if report.skipped else report.outcome
        if report.skipped and isinstance(report.longrepr, tuple):
            row.notes.append(report.longrepr[2])


@pytest.fixture
def row(request) -> Iterator[Row]:
    """The matrix row this test fills in; appended to FAULTS_MATRIX (JSON lines) if set."""
    found = Row(test=request.node.nodeid)
    request.node.fault_row = found
    yield found
    target = os.environ.get("FAULTS_MATRIX")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(found)) + "\n")


def error_of(result: Any) -> dict[str, Any]:
    """The ToolError a failed call carries, checked to be in the documented vocabulary."""
    assert result.is_error, f"expected the call to fail, it answered {result.content}"
    error = tool_json(result)
    assert error.get("category") in CATEGORIES, error
    assert error.get("message"), error
    return error


def gist(error: dict[str, Any], width: int = 110) -> str:
    """`category: message` with paths shortened to their file names, for the matrix."""
    message = re.sub(r"(/[^\s/:]+)+/([^\s/:]+)", r"\2", error["message"])
    text = f"{error['category']}: {message}"
    return text if len(text) <= width else text[: width - 3] + "..."


class Inlet:
    """The running server's fault inlet (see tests/faults/serve.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def inject(self, op: str, **arguments: Any) -> dict[str, Any]:
        name = f"{op}-{uuid.uuid4().hex[:8]}"
        command = self.folder / f"{name}.json"
        staged = self.folder / f"{name}.tmp"
        staged.write_text(json.dumps({"op": op, **arguments}))
        staged.rename(command)
        with anyio.fail_after(20):
            while True:
                done = self.folder / f"{name}.done"
                failed = self.folder / f"{name}.failed"
                if done.exists():
                    return json.loads(done.read_text())
                if failed.exists():
                    raise AssertionError(f"the fault inlet failed: {failed.read_text()}")
                await anyio.sleep(0.02)


@pytest.fixture
def fault_env(tmp_path) -> dict[str, str]:
    env = base_env(tmp_path, FAULTS_CONTROL=str(tmp_path / "faults"))
    (tmp_path / "faults").mkdir()
    return env


@pytest.fixture
def inlet(tmp_path, fault_env) -> Inlet:
    return Inlet(tmp_path / "faults")


SERVE = ["-m", "tests.faults.serve"]


@asynccontextmanager
async def served(env: dict[str, str], errlog: Any = None) -> AsyncIterator[Any]:
    """A stdio session with the real server started through the fault inlet."""
    async with mcp_client(env, args=SERVE, errlog=errlog) as session:
        yield session


async def ok(session: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, tool_json(result)
    return result.structured_content or tool_json(result)


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def seconds(self) -> float:
        return round(time.monotonic() - self.start, 2)


async def assert_whole(documents: list[dict[str, Any]]) -> None:
    """Every listed document has all its passages in the store file, read beside the
    running server (SQLite WAL readers see only committed transactions)."""
    from video_research.documents import library
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store

    store = await get_store()
    for document in documents:
        stored = await store.count(
            library.COLLECTION, Filter.eq("document_id", document["document_id"])
        )
        assert stored == document["chunks"] > 0, f"{document['file_name']} is half written"
